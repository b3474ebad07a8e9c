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
( while :; do printf 'length,seconds\n%.0s' $(seq 1 4096) || exit 0; done >endless ) 2>/dev/null &
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

cli_summary
