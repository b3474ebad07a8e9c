#!/usr/bin/env bash
# Re-try, one by one, the hostile inputs of the hardening work against a readbench binary and
# judge each outcome against what docs/cli.md promises (exit codes, one-line errors, nothing
# half-written or clobbered, special files written in place, signals, input limits).
#
# usage: tools/hostile_retry.sh READBENCH_BINARY
#
# Prints one line per try:  ITEM | what was tried | exit N | stderr: first line | OK / NOT OK (why)
# and a summary at the end. Everything happens in a mktemp -d directory removed at the end:
# device nodes (null, full, zero) and FIFOs are made there with mknod/mkfifo; no system file
# under /dev, /etc or /proc is ever written. /dev/fd/1 is only used with stdout redirected to a
# file in that directory. Runs are tiny (cpu, L = 16,64,256, budget 0.05 s, 3 samples).
# Needs root for mknod (and for the optional tmpfs of item 3, skipped when mount fails).
set -u

if [ $# -ne 1 ]; then
  echo "usage: $0 READBENCH_BINARY" >&2
  exit 2
fi
BIN=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
SIGNAL_RUN="$HERE/../tests/signal_run.py"
PY=/usr/bin/python3
START=$(date +%s)

T=$(mktemp -d "${TMPDIR:-/tmp}/readbench-retry.XXXXXX")
RPID=
cleanup() {
  [ -n "$RPID" ] && kill "$RPID" 2>/dev/null
  mountpoint -q "$T/small" 2>/dev/null && umount "$T/small"
  rm -rf "$T"
}
trap cleanup EXIT
mkdir "$T/w"
W=$T/w
cd "$W" || exit 2

mknod "$T/null" c 1 3 && mknod "$T/null2" c 1 3 && mknod "$T/full" c 1 7 && mknod "$T/zero" c 1 5 \
  || { echo "cannot mknod in $T (root needed)" >&2; exit 2; }
mkfifo "$T/fifo" "$T/fifo2"

RUN=(run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3)
RUN_TO=240   # a tiny run takes ~20 s on a loaded 2-core machine (the read ceiling's 1 GiB buffer)

n_ok=0
n_bad=0
NOTOK_LIST=()

# --- helpers ------------------------------------------------------------------------------------

# go TIMEOUT DESC CMD... : run CMD in $W, stdout to $STDOUT (a file, or "closed"), stderr to $T/e.
# Sets rc, E1 (first stderr line), NE (stderr lines), DESC; clears the reasons.
STDOUT=$T/o
go() {
  local to=$1
  DESC=$2
  shift 2
  why=()
  : >"$T/e"
  if [ "$STDOUT" = closed ]; then
    timeout -k 5 "$to" "$@" >&- 2>"$T/e"
  else
    timeout -k 5 "$to" "$@" >"$STDOUT" 2>"$T/e"
  fi
  rc=$?
  E1=$(head -n1 "$T/e")
  NE=$(wc -l <"$T/e")
}
no() { why+=("$*"); }
want_rc() {  # N... (any of)
  local w
  for w in "$@"; do [ "$rc" = "$w" ] && return; done
  case $rc in
    124|137) no "timed out / killed (exit $rc), expected $*" ;;
    134|136|139) no "crashed (exit $rc), expected $*" ;;
    *) no "exit $rc, expected $*" ;;
  esac
}
want_one_line() { [ "$NE" -eq 1 ] || no "stderr has $NE lines, expected 1"; }
want_err() {  # STR...: stderr contains each (case-insensitive, fixed strings)
  local s
  for s in "$@"; do grep -qiF -- "$s" "$T/e" || no "stderr does not name '$s'"; done
}
want_err_any() {  # STR...: stderr contains at least one
  local s
  for s in "$@"; do grep -qiF -- "$s" "$T/e" && return; done
  no "stderr names none of: $*"
}
want_char() { test -c "$1" || no "$1 is no longer a character device"; }
want_fifo() { test -p "$1" || no "$1 is no longer a FIFO"; }
want_has() {  # FILE STR
  grep -qF -- "$2" "$1" 2>/dev/null || no "$(basename "$1") lacks '$2'"
}
want_sum() {  # FILE SUM
  [ "$(sha256sum <"$1" 2>/dev/null)" = "$2" ] || no "$(basename "$1") changed (checksum differs)"
}
want_absent() { [ ! -e "$1" ] || no "$(basename "$1") was created"; }
want_no_tmp() {  # DIR: no temporary report files (.NAME.*) left
  local left
  left=$(find "${1:-$W}" -maxdepth 1 -name '.*.*' ! -name . ! -name .. -print | head -3 | tr '\n' ' ')
  [ -z "$left" ] || no "temporary files left: $left"
}
want_table() { grep -q '^backend path' "${1:-$T/o}" || no "no table on stdout"; }
want_json() {  # FILE PYTHON-EXPR over r
  local out
  out=$("$PY" - "$1" "$2" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
if not eval(sys.argv[2]):
    sys.exit("false: " + sys.argv[2])
PYEOF
  ) || no "$(basename "$1"): $(echo "$out" | tail -1)"
}
say() {  # ITEM : print the line for the try just judged
  local verdict
  if [ ${#why[@]} -eq 0 ]; then
    verdict=OK
    n_ok=$((n_ok + 1))
  else
    local IFS=';'
    verdict="NOT OK (${why[*]})"
    n_bad=$((n_bad + 1))
    NOTOK_LIST+=("$1")
  fi
  local e1=${E1//$T/\$T}
  printf '%s | %s | exit %s | stderr: %s | %s\n' "$1" "$DESC" "$rc" "${e1:-(empty)}" "${verdict//$T/\$T}"
}
# A reader on a FIFO: reader_start FIFO OUT ; reader_stop (unblocks it if nothing opened the FIFO)
reader_start() {
  RFIFO=$1
  cat "$1" >"$2" &
  RPID=$!
}
reader_stop() {
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$RPID" 2>/dev/null || break; sleep 0.2; done
  if kill -0 "$RPID" 2>/dev/null; then timeout 2 bash -c ': >"$1"' _ "$RFIFO"; fi
  wait "$RPID" 2>/dev/null
  RPID=
}
sum() { sha256sum <"$1"; }
# py_edit IN OUT PYTHON-STATEMENTS over r (the parsed report), then dumped to OUT
py_edit() {
  "$PY" - "$1" "$2" "$3" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(r, open(sys.argv[2], "w"), indent=2)
PYEOF
}
# txt_edit IN OUT OLD-REGEX NEW : the first match replaced (re.sub count=1)
txt_edit() {
  "$PY" - "$1" "$2" "$3" "$4" <<'PYEOF'
import re, sys
s = open(sys.argv[1]).read()
t = re.sub(sys.argv[3], sys.argv[4], s, count=1)
assert t != s, "pattern not found: " + sys.argv[3]
open(sys.argv[2], "w").write(t)
PYEOF
}

echo "# readbench hostile-input retry: $BIN"
echo "# $("$BIN" --version 2>&1 | head -1); $(nproc) CPUs; $(date -u +%FT%TZ)"
echo "# format: item | what was tried | exit status | first line of stderr | outcome"

# --- the report every other item reads ---------------------------------------------------------

go $RUN_TO "setup: run ${RUN[*]} --json r.json --csv r.csv" "$BIN" "${RUN[@]}" --json r.json --csv r.csv
want_rc 0
want_json r.json 'r["complete"] is True'
say 0
if [ ! -s r.json ]; then
  echo "# no report to work from; stopping" >&2
  exit 1
fi
cp r.json b.json
cp r.json r2.json
RSUM=$(sum r.json)
contended=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["quality"]["verdict"])' r.json)
echo "# the base report's quality verdict: $contended (check is given --allow contended below where it is not the point)"
ALLOW=(--allow contended)

# --- 1. special files ---------------------------------------------------------------------------

echo "## 1. special files as outputs"
go $RUN_TO "run --json \$T/null --csv \$T/null2 (char device nodes)" \
  "$BIN" "${RUN[@]}" --json "$T/null" --csv "$T/null2"
want_rc 0; want_char "$T/null"; want_char "$T/null2"; want_table; want_no_tmp "$T"
say 1.1

go $RUN_TO "run --json \$T/full --csv ok1.csv" "$BIN" "${RUN[@]}" --json "$T/full" --csv ok1.csv
want_rc 3; want_char "$T/full"; want_table; want_err "$T/full"; want_has ok1.csv backend,path
want_no_tmp "$T"
say 1.2

reader_start "$T/fifo2" "$T/got-csv"
go $RUN_TO "run --json /dev/fd/1 (stdout to a temp file) --csv \$T/fifo2 (reader: cat)" \
  "$BIN" "${RUN[@]}" --json /dev/fd/1 --csv "$T/fifo2"
reader_stop
want_rc 0; want_has "$T/o" '"schema_version"'; want_fifo "$T/fifo2"; want_has "$T/got-csv" backend,path
[ -f "$T/o" ] || no "stdout file is not a regular file any more"
say 1.3

reader_start "$T/fifo" "$T/got-json"
go $RUN_TO "run --json \$T/fifo (reader: cat) --csv /dev/fd/1 (stdout to a temp file)" \
  "$BIN" "${RUN[@]}" --json "$T/fifo" --csv /dev/fd/1
reader_stop
want_rc 0; want_has "$T/o" backend,path; want_fifo "$T/fifo"; want_has "$T/got-json" '"schema_version"'
say 1.4
echo "# (run --csv \$T/full: item 5.5)"

# The other writers, each to the four targets.
i=5
for c in plot compare export fit check; do
  for tgt in null full fd1 fifo; do
    case $tgt in
      null) out=$T/null ;;
      full) out=$T/full ;;
      fd1) out=/dev/fd/1 ;;
      fifo) out=$T/fifo ;;
    esac
    case $c in
      plot) args=(plot r.json -o "$out"); marker='<svg' ;;
      compare) args=(compare r.json r2.json -o "$out"); marker='|' ;;
      export) args=(export --format bmf r.json -o "$out"); marker='{' ;;
      fit) args=(fit r.json --json "$out"); marker='{' ;;
      check) args=(check r.json --baseline b.json "${ALLOW[@]}" --json "$out"); marker='{' ;;
    esac
    shown=${args[*]}
    shown=${shown//$T/\$T}
    [ "$tgt" = fd1 ] && shown="$shown (stdout to a temp file)"
    [ "$tgt" = fifo ] && { shown="$shown (reader: cat)"; rm -f "$T/got"; reader_start "$T/fifo" "$T/got"; }
    go 30 "$shown" "$BIN" "${args[@]}"
    [ "$tgt" = fifo ] && reader_stop
    case $tgt in
      null) want_rc 0; want_char "$T/null" ;;
      full) want_rc 2; want_char "$T/full"; want_one_line; want_err "$T/full" ;;
      fd1) want_rc 0; want_has "$T/o" "$marker"; [ -f "$T/o" ] || no "stdout file replaced" ;;
      fifo) want_rc 0; want_fifo "$T/fifo"; want_has "$T/got" "$marker" ;;
    esac
    want_no_tmp "$T"; want_sum r.json "$RSUM"
    say "1.$i"
    i=$((i + 1))
  done
done

# --- 2. outputs that are inputs ----------------------------------------------------------------

echo "## 2. an output naming an input (or another output)"
ln r.json hard.json
i=1
while IFS= read -r line; do
  eval "args=($line)"
  t0=$(date +%s.%N)
  go 60 "$line" "$BIN" "${args[@]}"
  t1=$(date +%s.%N)
  want_rc 2; want_one_line; want_sum r.json "$RSUM"; want_no_tmp
  case $line in
    run*) want_absent X
          took=$("$PY" -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t0" "$t1")
          "$PY" -c 'import sys; sys.exit(float(sys.argv[1]) > 3)' "$took" || no "took $took s: not refused before measuring" ;;
  esac
  say "2.$i"
  i=$((i + 1))
done <<'EOF'
plot r.json -o r.json
fit r.json --json r.json
export --format bmf r.json -o r.json
export --format gab r.json -o ./r.json
compare r.json r2.json -o r.json
compare r.json r2.json -o r2.json
check r.json --baseline b.json --json r.json
check r.json --baseline b.json --allow contended --json b.json
plot r.json -o hard.json
run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3 --json X --csv X
run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3 --json X --csv ./X
EOF

# --- 3. write errors on stdout -----------------------------------------------------------------

echo "## 3. stdout closed, stdout a full device, a full file system"
i=1
for mode in closed full; do
  while IFS= read -r line; do
    eval "args=($line)"
    if [ "$mode" = closed ]; then STDOUT=closed; m='>&-'; else STDOUT=$T/full; m='>$T/full'; fi
    to=30
    [ "${args[0]}" = run ] && to=$RUN_TO
    go $to "$line $m" "$BIN" "${args[@]}"
    STDOUT=$T/o
    want_rc 2; want_one_line; want_err stdout
    [ "$mode" = full ] && want_char "$T/full"
    say "3.$i"
    i=$((i + 1))
  done <<'EOF'
run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3
verify --backend cpu -L 16 --dtypes f32
fit r.json
check r.json --baseline b.json --allow contended
compare r.json r2.json
plot r.json -o -
export --format bmf r.json
EOF
done

mkdir "$T/small"
if mount -t tmpfs -o size=64k tmpfs "$T/small" 2>/dev/null; then
  cp r.json "$T/small/keep.json"                             # an earlier report, to be kept
  head -c 1000000 "$T/zero" >"$T/small/fill" 2>/dev/null   # fill it to the last block
  STDOUT=$T/small/out
  go 30 "fit r.json >\$T/small/out (tmpfs of 64k, full)" "$BIN" fit r.json
  STDOUT=$T/o
  want_rc 2; want_one_line; want_err stdout
  say "3.$i"; i=$((i + 1))
  go 30 "plot r.json -o \$T/small/p.svg (full tmpfs)" "$BIN" plot r.json -o "$T/small/p.svg"
  want_rc 2; want_one_line; want_err p.svg; want_absent "$T/small/p.svg"; want_no_tmp "$T/small"
  say "3.$i"; i=$((i + 1))
  KSUM=$(sum "$T/small/keep.json")
  go $RUN_TO "run ... --json \$T/small/keep.json (an earlier report there; full tmpfs) --csv ok3.csv" \
    "$BIN" "${RUN[@]}" --json "$T/small/keep.json" --csv ok3.csv
  want_rc 3; want_table; want_err keep.json; want_sum "$T/small/keep.json" "$KSUM"; want_no_tmp "$T/small"
  want_has ok3.csv backend,path
  say "3.$i"; i=$((i + 1))
  umount "$T/small"
else
  echo "3.x | tmpfs of 64k under \$T | - | - | SKIPPED (mount failed)"
fi

# --- 4. empty paths ----------------------------------------------------------------------------

echo "## 4. empty output paths"
i=1
while IFS= read -r line; do
  eval "args=($line)"
  go 60 "$line" "$BIN" "${args[@]}"
  want_rc 2; want_one_line; want_err_any empty "''"
  say "4.$i"
  i=$((i + 1))
done <<'EOF'
run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3 --json ''
run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3 --csv ''
fit r.json --json ''
check r.json --baseline b.json --allow contended --json ''
plot r.json -o ''
compare r.json r2.json -o ''
export --format bmf r.json -o ''
EOF

# --- 5. interruption ---------------------------------------------------------------------------

echo "## 5. signals during a run"
SWEEP=(run --backend cpu --lengths 16:4194304:x4 --budget 0.5 --json r.json --csv r.csv)
i=1
for s in INT:130 TERM:143 HUP:129 INT,INT:130; do
  name=${s%%:*}
  want=${s##*:}
  d="$T/sig$i"
  mkdir "$d"
  if [ "$name" = INT,INT ]; then
    sargs=(2 INT INT 0.05)
    DESC="SIGINT at 2 s, a second SIGINT 0.05 s later: ${SWEEP[*]}"
  else
    sargs=(2 "$name")
    DESC="SIG$name at 2 s: ${SWEEP[*]}"
  fi
  why=()
  line=$(cd "$d" && timeout -k 5 120 "$PY" "$SIGNAL_RUN" "${sargs[@]}" -- "$BIN" "${SWEEP[@]}")
  rc=$(sed -n 's/.*rc=\([0-9-]*\).*/\1/p' <<<"$line")
  el=$(sed -n 's/.*elapsed=\([0-9.]*\).*/\1/p' <<<"$line")
  [ -n "$rc" ] || rc="?"
  E1=$(head -n1 "$d/stderr.txt")
  NE=$(wc -l <"$d/stderr.txt")
  DESC="$DESC [elapsed after signal ${el:-?} s]"
  want_rc "$want"
  want_no_tmp "$d"
  if [ "$name" = INT,INT ]; then
    "$PY" -c 'import sys; sys.exit(not float(sys.argv[1]) < 1.0)' "${el:-99}" || no "second signal: exit took ${el:-?} s (not at once)"
    # a report, if one was written, must be whole and marked incomplete
    [ ! -e "$d/r.json" ] || want_json "$d/r.json" 'r["complete"] is False'
  else
    want_json "$d/r.json" "r['complete'] is False and r.get('signal') == 'SIG$name'"
    [ -s "$d/r.csv" ] || no "r.csv missing"
    grep -q "^stopped by SIG$name" "$d/stdout.txt" || no "table lacks 'stopped by SIG$name'"
    "$PY" -c 'import sys; sys.exit(not float(sys.argv[1]) < 3.0)' "${el:-99}" || no "exit took ${el:-?} s after the signal (docs/cli.md: about a second)"
  fi
  say "5.$i"
  i=$((i + 1))
done

go $RUN_TO "run ... --json ok.json --csv \$T/full (write failure at the end)" \
  "$BIN" "${RUN[@]}" --json ok.json --csv "$T/full"
want_rc 3; want_table; want_err "$T/full"; want_json ok.json 'r["complete"] is True'; want_char "$T/full"
want_no_tmp
say 5.5

# --- 6. --threads -----------------------------------------------------------------------------

echo "## 6. --threads (bound: 4 x $(nproc) CPUs = $((4 * $(nproc))))"
i=1
for n in 100000 40000 2147483647 20000 -1 $((4 * $(nproc) + 1)); do
  go 30 "run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3 --threads $n" \
    "$BIN" "${RUN[@]}" --threads "$n"
  want_rc 2; want_one_line; want_err --threads
  say "6.$i"
  i=$((i + 1))
done
go $RUN_TO "run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3 --threads 0 (--help: 0 = all CPUs, valid)" \
  "$BIN" "${RUN[@]}" --threads 0
want_rc 0; want_table
say "6.$i"
i=$((i + 1))
go 60 "verify --backend cpu -L 16 --dtypes f32 --threads $((4 * $(nproc))) (the bound itself, valid)" \
  "$BIN" verify --backend cpu -L 16 --dtypes f32 --threads $((4 * $(nproc)))
want_rc 0
say "6.$i"

# --- 7. numbers --------------------------------------------------------------------------------

echo "## 7. numbers out of range"
i=1
while IFS='|' read -r field line; do
  eval "args=($line)"
  go 60 "$line" "$BIN" "${args[@]}"
  want_rc 2; want_one_line; want_err "$field"
  say "7.$i"
  i=$((i + 1))
done <<'EOF'
--budget|run --backend cpu -L 16,64,256 --budget inf --min-samples 3
--budget|run --backend cpu -L 16,64,256 --budget 1e309 --min-samples 3
--seed|run --backend cpu -L 16,64,256 --budget 0.05 --min-samples 3 --seed 99999999999999999999
--tolerance|check r.json --baseline b.json --allow contended --tolerance ''
EOF

txt_edit r.json big.json '"min_s": [0-9.e+-]+' '"min_s": 1e400'
txt_edit r.json sv15.json '"schema_version": 2' '"schema_version": 1.5'
txt_edit r.json sv308.json '"schema_version": 2' '"schema_version": 1e308'
txt_edit r.json np308.json '"n_points": [0-9]+' '"n_points": 1e308'
for e in big:min_s:'a point min_s = 1e400' sv15:schema_version:'schema_version 1.5' \
         sv308:schema_version:'schema_version 1e308' np308:n_points:'fit n_points 1e308'; do
  f=${e%%:*}.json
  rest=${e#*:}
  field=${rest%%:*}
  what=${rest#*:}
  for c in check compare plot export fit; do
    case $c in
      check) args=(check "$f" --baseline b.json "${ALLOW[@]}") ;;
      compare) args=(compare r.json "$f") ;;
      plot) args=(plot "$f" -o p.svg) ;;
      export) args=(export --format bmf "$f") ;;
      fit) args=(fit "$f") ;;
    esac
    rm -f p.svg
    go 30 "$what: ${args[*]}" "$BIN" "${args[@]}"
    want_rc 2; want_one_line; want_err "$f" "$field"; want_absent p.svg
    say "7.$i"
    i=$((i + 1))
  done
done

# --- 8. edited reports -------------------------------------------------------------------------

echo "## 8. edited reports"
py_edit r.json e-exp.json 'r["results"][0]["fit"]["exponent"] += 0.5'
py_edit r.json e-unsorted.json 'p = r["results"][0]["points"]; p[0], p[1] = p[1], p[0]'
py_edit r.json e-repeat.json 'p = r["results"][0]["points"]; p[1]["length"] = p[0]["length"]'
py_edit r.json e-median.json 'p = r["results"][0]["points"][0]; p["median_s"] = p["min_s"] / 2'
py_edit r.json e-batch.json 'r["config"]["batch"] = -1'
py_edit r.json e-gbps.json 'r["results"][0]["points"][0]["gbps"] = -1.0'
txt_edit r.json e-dupkey.json '("exponent": [0-9.e+-]+),' '\1, \1,'
i=1
for e in e-exp:exponent:'stored fit exponent +0.5' e-unsorted:length:'points unsorted (first two swapped)' \
         e-repeat:length:'a repeated length' e-median:median:'median_s below min_s' \
         e-batch:batch:'config.batch = -1' e-gbps:gbps:'a point gbps = -1' \
         e-dupkey:exponent:'duplicate key "exponent" (text edit)'; do
  f=${e%%:*}.json
  rest=${e#*:}
  field=${rest%%:*}
  what=${rest#*:}
  for c in check compare plot export; do
    case $c in
      check) args=(check "$f" --baseline b.json "${ALLOW[@]}") ;;
      compare) args=(compare r.json "$f") ;;
      plot) args=(plot "$f" -o p.svg) ;;
      export) args=(export --format bmf "$f") ;;
    esac
    rm -f p.svg
    go 30 "$what: ${args[*]}" "$BIN" "${args[@]}"
    want_rc 2; want_one_line; want_err "$f" "$field"; want_absent p.svg
    say "8.$i"
    i=$((i + 1))
  done
done
go 30 "a point gbps = -1: export --format gab e-gbps.json (does the rate reach the dashboard?)" \
  "$BIN" export --format gab e-gbps.json
want_rc 2; want_one_line; want_err e-gbps.json gbps
if grep -q -- '-1 GB/s' "$T/o"; then no "stdout passes it on: '$(grep -o -- '"extra": "[^"]*-1 GB/s' "$T/o" | head -1)'"; fi
say "8.$i"
i=$((i + 1))
printf '[{"length":16,"seconds":1e-6,"seconds":2e-6},{"length":64,"seconds":3e-6},{"length":256,"seconds":9e-6}]\n' >dup-points.json
go 30 "fit points array with a duplicate key: fit dup-points.json" "$BIN" fit dup-points.json
want_rc 2; want_one_line; want_err dup-points.json seconds
say "8.$i"
i=$((i + 1))
go 30 "the same points on stdin: fit - <dup-points.json" bash -c '"$0" fit - <dup-points.json' "$BIN"
want_rc 2; want_one_line; want_err seconds
say "8.$i"

# --- 9. memory ---------------------------------------------------------------------------------

echo "## 9. memory limits and endless input"
go $RUN_TO "ulimit -v 800000; run --backend cpu -L 16,64 --budget 0.05 --min-samples 3" \
  bash -c 'ulimit -v 800000 && exec "$0" run --backend cpu -L 16,64 --budget 0.05 --min-samples 3' "$BIN"
want_rc 2; want_one_line; want_err bytes; want_err_any buffer ceiling flush
say 9.1
go $RUN_TO "ulimit -v 800000; run --backend auto -L 16,64 --budget 0.05 --min-samples 3 --json auto.json (no GPU here: auto = CPU only, CUDA unavailable)" \
  bash -c 'ulimit -v 800000 && exec "$0" run --backend auto -L 16,64 --budget 0.05 --min-samples 3 --json auto.json' "$BIN"
case $rc in 134|136|139|124|137) no "aborted/crashed (exit $rc)" ;; esac
[ "$rc" -lt 128 ] 2>/dev/null || no "exit $rc"
if [ -s auto.json ]; then
  want_json auto.json '[b["status"] for b in r["backends"] if b["name"] == "cpu"] == ["failed"]'
  want_json auto.json '"bytes" in "".join(b["reason"] for b in r["backends"] if b["name"] == "cpu")'
  DESC="$DESC [backends: $("$PY" -c 'import json,sys; print("; ".join(b["name"]+"="+b["status"]+" ("+b["reason"][:90]+")" for b in json.load(open(sys.argv[1]))["backends"]))' auto.json)]"
else
  grep -qiF bytes "$T/e" "$T/o" || no "no report and no message naming the bytes"
fi
say 9.2
go 30 "fit \$T/zero (char device node: endless zeros)" "$BIN" fit "$T/zero"
want_rc 2; want_one_line; want_err_any MiB limit "67108864 bytes"; want_char "$T/zero"
say 9.3
go 30 "fit - <\$T/zero (endless stdin)" bash -c '"$0" fit - <"$1"' "$BIN" "$T/zero"
want_rc 2; want_one_line; want_err_any MiB limit "67108864 bytes"
say 9.4

# --- summary -----------------------------------------------------------------------------------

END=$(date +%s)
echo "# $n_ok OK, $n_bad NOT OK; script runtime $((END - START)) s"
[ $n_bad -eq 0 ] || echo "# NOT OK: ${NOTOK_LIST[*]}"
exit 0
