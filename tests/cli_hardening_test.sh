#!/usr/bin/env bash
# Hostile command lines and inputs, end to end with the real binary: every numeric option's
# bounds (exit 2, one line naming the option and the value), inputs that never end or are too
# large (a FIFO fed by a writer and a sparse file, both in a temporary directory), duplicate
# keys and numbers that do not fit their field.
#
# usage: cli_hardening_test.sh READBENCH_BINARY
# Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"  # pass, fail, skip, cli_summary

if [ $# -ne 1 ]; then
  echo "usage: $0 READBENCH_BINARY" >&2
  exit 2
fi
BIN=$(realpath "$1")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-hardening.XXXXXX")
writer_pid=
cleanup() {
  [ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
cd "$WORK" || exit 2


# Runs a command with stdout in $WORK/out, stderr in $WORK/err and the status in $rc, under a
# time limit: a hang is a failure, not a stuck test.
run() {
  timeout 60 "$@" </dev/null >"$WORK/out" 2>"$WORK/err"
  rc=$?
}
lines_of() { awk 'END { print NR }' "$1"; }
first_err() { head -c 300 "$WORK/err" | tr '\n' ' '; }

# Exit 2 and exactly one line on stderr, naming readbench and containing each WORD.
expect_refused() {  # NAME 'WORD|WORD' CMD...
  local name=$1 words=$2 n w
  shift 2
  run "$@"
  n=$(lines_of "$WORK/err")
  if [ "$rc" -ne 2 ]; then
    fail "$name" "exit $rc, expected 2: $(first_err)"
    return
  elif [ "$n" -ne 1 ]; then
    fail "$name" "$n lines on stderr, expected 1: $(first_err)"
    return
  elif ! grep -q '^readbench: ' "$WORK/err"; then
    fail "$name" "stderr does not start with 'readbench: ': $(first_err)"
    return
  fi
  local IFS='|'
  for w in $words; do
    if ! grep -qF -- "$w" "$WORK/err"; then
      fail "$name" "stderr does not name '$w': $(first_err)"
      return
    fi
  done
  pass "$name"
}

# --- numeric options: refused before anything runs -------------------------------------------
expect_refused "run --threads 100000" "--threads|'100000'|out of range" "$BIN" run --threads 100000
expect_refused "run --threads 40000" "--threads|'40000'" "$BIN" run --threads 40000
expect_refused "run --threads 20000" "--threads|'20000'" "$BIN" run --threads 20000
expect_refused "run --threads -1" "--threads|'-1'" "$BIN" run --threads -1
expect_refused "verify --threads 100000" "--threads|'100000'" "$BIN" verify --threads 100000
for opt in --budget --noise --sweep-budget; do
  for v in inf 1e309 nan ''; do
    expect_refused "run $opt '$v'" "$opt" "$BIN" run "$opt" "$v"
  done
done
expect_refused "run --budget 0" "--budget|'0'" "$BIN" run --budget 0
expect_refused "run --seed 99999999999999999999" "--seed|'99999999999999999999'|64 bits" \
  "$BIN" run --seed 99999999999999999999
expect_refused "verify --seed 18446744073709551616" "--seed|does not fit" \
  "$BIN" verify --seed 18446744073709551616
expect_refused "run --seed -1" "--seed|'-1'" "$BIN" run --seed -1
expect_refused "run --seed ''" "--seed|empty" "$BIN" run --seed ''
expect_refused "run -b ''" "--batch|empty" "$BIN" run -b ''
expect_refused "run --budget ''" "--budget|empty" "$BIN" run --budget ''
for opt in --batch --q-heads --kv-heads --head-dim --block-size; do
  expect_refused "run $opt 4294967297" "$opt|'4294967297'" "$BIN" run "$opt" 4294967297
  expect_refused "run $opt 99999999999999999999" "$opt|does not fit" \
    "$BIN" run "$opt" 99999999999999999999
  expect_refused "verify $opt 0" "$opt|'0'" "$BIN" verify "$opt" 0
done
expect_refused "run --max-length 99999999999999999999" "--max-length|does not fit" \
  "$BIN" run --max-length 99999999999999999999
expect_refused "run --max-length -5" "--max-length|'-5'" "$BIN" run --max-length -5
expect_refused "run --min-samples 4294967297" "--min-samples|'4294967297'" \
  "$BIN" run --min-samples 4294967297
expect_refused "run --min-samples 1.5" "--min-samples|'1.5'" "$BIN" run --min-samples 1.5
expect_refused "run --device 4294967296" "--device|'4294967296'" "$BIN" run --device 4294967296
expect_refused "verify --device -1" "--device|'-1'" "$BIN" verify --device -1
for v in 0 -1 101 1.5 x ''; do
  expect_refused "run --rounds '$v'" "--rounds must be auto or a whole number from 1 to 100" \
    "$BIN" run --backend cpu --rounds "$v"
done

# --- check's numbers, with a real report to read ---------------------------------------------
run "$BIN" run --backend cpu --path fused -L 16,64,256 --fit-from 0 --budget 0.05 --threads 1 \
  --json r.json
# Set clean: `check` refuses a contended report (exit 4); the bounds are what is tested here.
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["quality"].update(verdict="clean", reasons=[]); json.dump(r, open(sys.argv[1], "w"))' r.json
if [ "$rc" -eq 0 ]; then pass "a small report to check"; else fail "a small report" "exit $rc: $(first_err)"; fi
for v in inf 1e309 nan '' -0.1; do
  expect_refused "check --tolerance '$v'" "--tolerance" "$BIN" check r.json --baseline r.json \
    --tolerance "$v"
done
for v in inf 1e309 nan '' 0; do
  expect_refused "check --max-cost-ratio '$v'" "--max-cost-ratio" "$BIN" check r.json \
    --baseline r.json --max-cost-ratio "$v"
done
# A tiny grid is not at its asymptote: judged all the same, as the numbers are what is tested.
run "$BIN" check r.json --baseline r.json --tolerance 0.1 --max-cost-ratio 2 --allow not-reached
if [ "$rc" -eq 0 ]; then pass "check with sound numbers passes"; else fail "check sound" "exit $rc: $(first_err)"; fi

# --- inputs that never end or are too large --------------------------------------------------
mkfifo endless
# yes writes as fast as the reader reads: a shell loop feeding the FIFO took 25 s of the
# sanitizer build's 60 on a quiet machine, and past 60 on a busy one.
yes 'length,seconds' >endless 2>/dev/null &
writer_pid=$!
expect_refused "fit on an endless FIFO stops at the limit" "'endless'|more than 67108864 bytes" \
  "$BIN" fit endless
kill "$writer_pid" 2>/dev/null
wait "$writer_pid" 2>/dev/null
writer_pid=
printf '[' >sparse.json
truncate -s 100M sparse.json
expect_refused "check on a 100 MiB sparse report" "'sparse.json'|more than 67108864 bytes" \
  "$BIN" check sparse.json --baseline r.json
expect_refused "plot on a 100 MiB sparse report" "'sparse.json'|more than" \
  "$BIN" plot sparse.json -o p.svg
run sh -c "'$BIN' fit - < sparse.json"
if [ "$rc" -eq 2 ] && grep -qF "stdin" "$WORK/err" && [ "$(lines_of "$WORK/err")" -eq 1 ]; then
  pass "fit - on a 100 MiB stdin stops at the limit"
else
  fail "fit - on a 100 MiB stdin" "exit $rc: $(first_err)"
fi

# --- duplicate keys and numbers that do not fit ----------------------------------------------
edit() {  # OUT PYTHON-EXPRESSION-ON-TEXT-t
  /usr/bin/python3 -c "import sys; t=open('r.json').read(); open(sys.argv[1],'w').write($2)" "$1"
}
edit dup.json "t.replace('\"min_s\":', '\"min_s\": 1, \"min_s\":', 1)"
expect_refused "a report with a duplicate key" "dup.json|duplicate key \"min_s\"|points[0]" \
  "$BIN" check dup.json --baseline r.json
edit big_n.json "t.replace('\"n_points\":', '\"n_points\": 1e308, \"x\":', 1)"
expect_refused "n_points 1e308" "big_n.json|n_points" "$BIN" check big_n.json --baseline r.json
edit v15.json "t.replace('\"schema_version\": 7', '\"schema_version\": 1.5', 1)"
expect_refused "schema_version 1.5" "v15.json|schema_version 1.5" "$BIN" plot v15.json -o p.svg
edit vbig.json "t.replace('\"schema_version\": 7', '\"schema_version\": 1e308', 1)"
expect_refused "schema_version 1e308" "vbig.json|schema_version" "$BIN" export --format bmf vbig.json
edit len400.json "t.replace('\"min_s\":', '\"min_s\": 1e400, \"x\":', 1)"
expect_refused "a time of 1e400" "len400.json|points[0].min_s|number overflow" \
  "$BIN" compare len400.json r.json
edit batch.json "t.replace('\"batch\": 1', '\"batch\": 1e308', 1)"
expect_refused "config.batch 1e308" "batch.json|config.batch|whole number" \
  "$BIN" fit batch.json
printf '[{"length": 16, "seconds": 1e-6}, {"length": 64, "seconds": 2e-6, "seconds": 3e-6}]' \
  >dup_points.json
expect_refused "a points element with a duplicate key" "duplicate key \"seconds\"|[1]" \
  "$BIN" fit dup_points.json
printf '[{"length": 1e400, "seconds": 1e-6}]' >len_points.json
expect_refused "a points length of 1e400" "[0].length|number overflow" "$BIN" fit len_points.json

# Memory counted before it is taken: a block far past the history (whole blocks of 2^20 tokens
# would take gigabytes at L=64), and a run past any machine's memory, refused before anything is
# allocated; under a 2 GB address-space limit so that a regression fails instead of swapping.
# A sanitizer's runtime reserves terabytes of address space and cannot start under such a
# limit: there the refusals run without it (the plain build, tested first, keeps the limit).
if nm -D "$BIN" 2>/dev/null | grep -q __asan_init; then
  limit_kb=unlimited
else
  limit_kb=2000000
fi
expect_refused "a block size past the longest length" "--block-size 1048576|longest length, 64" \
  bash -c 'ulimit -v "$1"; shift; exec "$@"' _ "$limit_kb" "$BIN" run --backend cpu -L 16,64 \
  --budget 0.02 --rounds 1 --block-size 1048576
expect_refused "a run past this machine's memory" "bytes of host memory" \
  bash -c 'ulimit -v "$1"; shift; exec "$@"' _ "$limit_kb" "$BIN" run --backend cpu \
  -L 1048576 -b 100000 --budget 0.02 --rounds 1

# --- a report edited so that the gate cannot see a path ---------------------------------------
jedit() {  # OUT PYTHON-STATEMENTS-ON-REPORT-r
  /usr/bin/python3 -c "import json,sys; r=json.load(open('r.json')); $2; json.dump(r, open(sys.argv[1],'w'))" "$1"
}
jedit nofit.json 'x=r["results"][0]; x["fit"]=None; x["fit_error"]="edited away"'
for cmd in "check nofit.json --baseline r.json" "fit nofit.json" "plot nofit.json -o p.svg" \
  "export --format bmf nofit.json" "compare r.json nofit.json"; do
  # shellcheck disable=SC2086
  expect_refused "$cmd: points but their fit removed" \
    "nofit.json|results[0].fit is null|cpu/fused give one" "$BIN" $cmd
done
jedit unavail.json 'x=r["results"][0]; x["status"]="unavailable"; x["reason"]="no"'
expect_refused "check: points under status unavailable" \
  "unavail.json|results[0].points|status is unavailable" "$BIN" check unavail.json --baseline r.json
jedit gbps.json 'r["results"][0]["points"][0]["gbps"]=1e6'
expect_refused "export: a forged GB/s" "gbps.json|results[0].points[0].gbps 1000000.0" \
  "$BIN" export --format bmf gbps.json
jedit cuda01.json 'x=dict(r["results"][0]); x["backend"]="cuda:01"; r["results"].append(x)'
expect_refused "a report with backend cuda:01" "cuda01.json|\"cuda:01\" is not cpu, cuda or cuda:N" \
  "$BIN" plot cuda01.json -o p.svg
run "$BIN" check r.json --baseline r.json --allow-missing --allow not-reached
[ "$rc" -eq 0 ] && pass "check --allow-missing with every row present passes" ||
  fail "check --allow-missing with every row present passes" "exit $rc: $(first_err)"
jedit nofused.json 'r["results"]=[x for x in r["results"] if x["path"]!="fused"]'
run "$BIN" check nofused.json --baseline r.json
if [ "$rc" -eq 1 ] && grep -qF "cpu/fused" "$WORK/out" && grep -qF "missing from the current report" "$WORK/out"; then
  pass "check fails when a baseline row is missing from the report"
else
  fail "check fails when a baseline row is missing from the report" "exit $rc: $(first_err)"
fi
expect_refused "check --allow-missing with nothing left to compare" "nothing to compare" \
  "$BIN" check nofused.json --baseline r.json --allow-missing

# --- smaller things said plainly -------------------------------------------------------------
timeout 60 "$BIN" fit <"$WORK" >"$WORK/out" 2>"$WORK/err"
rc=$?
if [ "$rc" -eq 2 ] && grep -qF "stdin: it is a directory" "$WORK/err"; then
  pass "fit < a directory says stdin is a directory"
else
  fail "fit < a directory says stdin is a directory" "exit $rc: $(first_err)"
fi
expect_refused "run --budget=" "--budget: the value is missing (expected a number, finite > 0)" \
  "$BIN" run --budget=
expect_refused "run --budget twice" "--budget is given twice: give it once" \
  "$BIN" run --budget 1 --budget 2
expect_refused "run --path all,fused" "--path 'all,fused': all cannot be combined" \
  "$BIN" run --path all,fused
printf 'length,seconds\n16,1e-6\n64,-2e-6\n' >negative.csv
expect_refused "fit: a bad point names the file" "negative.csv: point 2" "$BIN" fit negative.csv
expect_refused "check --allow ''" "--allow: the value is empty" \
  "$BIN" check r.json --baseline r.json --allow ''
expect_refused "verify --dtypes f32,f32" "--dtypes lists f32 twice" \
  "$BIN" verify --backend cpu --dtypes f32,f32
expect_refused "run --device 01" "--device '01'" "$BIN" run --device 01
expect_refused "run --backend cpu --device 5" "--device applies only to the cuda backend" \
  "$BIN" run --backend cpu --device 5
expect_refused "verify --backend cpu --device 5" "--device applies only to the cuda backend" \
  "$BIN" verify --backend cpu --device 5
printf 'backend,path,length,seconds\n\033[31mcpu,fused,16,1e-6\n\033[31mcpu,fused,64,4e-6\n' >esc.csv
run "$BIN" fit esc.csv
if [ "$rc" -eq 0 ] && ! grep -q $'\033' "$WORK/out" && grep -qF '\x1b[31mcpu/fused:' "$WORK/out"; then
  pass "fit prints a CSV backend's control characters escaped"
else
  fail "fit prints a CSV backend's control characters escaped" "exit $rc: $(head -c 200 "$WORK/out")"
fi

cli_summary
