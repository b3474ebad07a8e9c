#!/usr/bin/env bash
# `readbench ab` end to end: arms that cannot start or speak another protocol refused with one
# line and exit 2; a short comparison of two builds of one plugin reported (schema), its pairs
# counted alike on both sides, gated by `check` without a baseline to the same verdict, plotted,
# exported and compared; a tampered report refused; a head whose read is wrong fails (exit 1); a
# comparison stopped by a signal keeps its pairs, marked incomplete. No assertion here rests on a
# timing: the statistics are pinned by the unit tests (test_paired.cpp) on series whose answer is
# known.
#
# usage: cli_ab_test.sh READBENCH SCHEMA_DIR PLUGIN_DIR
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"  # pass, fail, expect_json, expect_valid_report

if [ $# -ne 3 ]; then
  echo "usage: $0 READBENCH SCHEMA_DIR PLUGIN_DIR" >&2
  exit 2
fi
BIN=$(realpath "$1")
SCHEMAS=$(realpath "$2")
DIR=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
VALIDATE="$HERE/../scripts/validate_report.py"
PY=/usr/bin/python3

WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-ab.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2

run() {
  "$@" </dev/null >"$WORK/out" 2>"$WORK/err"
  rc=$?
}
first_err() { head -c 300 "$WORK/err" | tr '\n' ' '; }
expect_rc() {  # NAME RC CMD...
  local name=$1 want=$2
  shift 2
  run "$@"
  if [ "$rc" -eq "$want" ]; then pass "$name"; else fail "$name" "exit $rc, expected $want: $(first_err)"; fi
}
# Exit 2 and exactly one line on stderr containing TEXT.
expect_usage_error() {  # NAME TEXT CMD...
  local name=$1 text=$2
  shift 2
  run "$@"
  local n
  n=$(awk 'END { print NR }' "$WORK/err")
  if [ "$rc" -ne 2 ]; then
    fail "$name" "exit $rc, expected 2: $(first_err)"
  elif [ "$n" -ne 1 ]; then
    fail "$name" "$n lines on stderr, expected 1: $(first_err)"
  elif ! grep -qF -- "$text" "$WORK/err"; then
    fail "$name" "stderr lacks '$text': $(first_err)"
  else
    pass "$name"
  fi
}

SAME="$DIR/libregress_same_cpu.so"
COST="$DIR/libregress_cost10_cpu.so"
# Short: three lengths, a budget of a few seconds, slices of a few milliseconds, one thread.
QUICK=(--backend cpu --threads 1 -L 64,256,1024 --sweep-budget 20 --slice 0.004 --cache hot)

# Arms that cannot be used.
expect_usage_error "ab refuses two backends" "ab times one backend" "$BIN" ab --backend all
expect_usage_error "ab pairs paths by position" "pair by position" \
  "$BIN" ab --base-path fused --head-path gather,fused
expect_usage_error "ab needs two lengths" "at least two lengths" "$BIN" ab --backend cpu -L 64
expect_usage_error "ab names a missing binary" "the base arm ($WORK/missing) is not an executable" \
  "$BIN" ab --backend cpu --base "$WORK/missing"
cat >"$WORK/silent" <<'EOF'
#!/bin/sh
exit 0
EOF
cat >"$WORK/future" <<'EOF'
#!/bin/sh
echo '{"readbench_ab_protocol": 999, "version": "9.9.9", "git_commit": "f00d"}'
read line
EOF
cat >"$WORK/chatty" <<'EOF'
#!/bin/sh
echo 'hello, I am not readbench'
read line
EOF
chmod +x "$WORK/silent" "$WORK/future" "$WORK/chatty"
expect_usage_error "a binary without the ab worker is refused" "ended before its hello" \
  "$BIN" ab --backend cpu --head "$WORK/silent"
expect_usage_error "another protocol version is refused, naming both" \
  "speaks ab protocol 999; this readbench" "$BIN" ab --backend cpu --head "$WORK/future"
if grep -qF "readbench 9.9.9 (f00d)" "$WORK/err"; then pass "the other arm's version is named"
else fail "the other arm's version is named" "$(first_err)"; fi
expect_usage_error "a program that is no worker is refused" "other than the ab protocol" \
  "$BIN" ab --backend cpu --base "$WORK/chatty"

# Two builds of one read: every pair has both sides, the report is what check, plot, export and
# compare read.
run "$BIN" ab "${QUICK[@]}" --path plugin:regress --base-plugin "$SAME" --head-plugin "$COST" \
  --json ab.json
ab_rc=$rc
case $ab_rc in
  0 | 1 | 4) pass "ab of two plugin builds ends with a verdict (exit $ab_rc)" ;;
  *) fail "ab of two plugin builds ends with a verdict" "exit $ab_rc: $(first_err)" ;;
esac
SCHEMA="$SCHEMAS/readbench-ab.schema.json"
expect_valid_report "the ab report is valid against its schema" ab.json
"$PY" -c "import json,sys; j=json.load(open('ab.json')); json.dump(j['base'], open('base.json','w')); json.dump(j['head'], open('head.json','w'))"
SCHEMA="$SCHEMAS/readbench-report.schema.json"
expect_valid_report "the base arm is a valid run report" base.json
expect_valid_report "the head arm is a valid run report" head.json
expect_json "each length has as many base slices as head slices, from at least 6 rounds" ab.json \
  "all(len(l['base_slices']) == len(l['head_slices']) == l['pairs'] >= 12 for p in r['ab']['pairings'] for l in p['lengths'])"
expect_json "the report names both arms' plugins and the shared path" ab.json \
  "r['ab']['arms'][0]['plugins'][0].endswith('libregress_same_cpu.so') and r['ab']['arms'][1]['plugins'][0].endswith('libregress_cost10_cpu.so') and r['ab']['pairings'][0]['base_path'] == 'plugin:regress'"
expect_json "the grid is the lengths asked for" ab.json "r['ab']['lengths'] == [64, 256, 1024]"
expect_json "a CPU comparison's cost bound is the CPU default, its slice the one asked for" ab.json \
  "r['ab']['thresholds']['max_cost_ratio'] == 1.03 and r['ab']['slice_s'] == 0.004"
expect_json "the arms of one binary share one worker" ab.json "r['ab']['workers'] == 'one'"
if grep -qF "both arms in one worker of their binary, reading one workload in memory" "$WORK/out"; then
  pass "the summary says the arms shared a worker and a workload"
else
  fail "the summary says the arms shared a worker and a workload" "$(head -c 300 "$WORK/out")"
fi
if grep -qF "a worker each" "$WORK/out"; then
  fail "one worker's summary says nothing of two workers' offsets" "$(grep -F "a worker each" "$WORK/out")"
else
  pass "one worker's summary says nothing of two workers' offsets"
fi
# Both workers without address-space randomization, where the system allows it (setarch -R
# asks for the same), and the report says which.
if setarch "$(uname -m)" -R true 2>/dev/null; then layout=fixed; else layout=randomized; fi
expect_json "both arms' address layout is $layout, as this system allows" ab.json \
  "[a['address_layout'] for a in r['ab']['arms']] == ['$layout', '$layout']"
expect_json "each pairing records the spread of offsets between its lengths" ab.json \
  "all(p['between_lengths_sd'] >= 0 for p in r['ab']['pairings'])"
expect_rc "check gates the ab report without a baseline, to its verdict" "$ab_rc" "$BIN" check ab.json
if grep -q "^VERDICT: " "$WORK/out"; then pass "check prints the verdict"; else fail "check prints the verdict" "no VERDICT line"; fi
expect_rc "check with thresholds no pair can reach passes" 0 \
  "$BIN" check ab.json --tolerance 100 --max-cost-ratio 100
expect_usage_error "check refuses a baseline beside an ab report" "gated on its own pairs" \
  "$BIN" check ab.json --baseline ab.json
expect_rc "plot draws the ab report" 0 "$BIN" plot ab.json -o ab.svg
if grep -q "head / base" ab.svg; then pass "the plot holds the ratio panel"; else fail "the plot holds the ratio panel" "no ratio title"; fi
expect_rc "export bmf reads the ab report" 0 "$BIN" export --format bmf ab.json -o ab.bmf.json
expect_json "export bmf has the pairing's delta p and cost ratio" ab.bmf.json \
  "'delta_p' in r['ab/plugin:regress'] and 'cost_ratio' in r['ab/plugin:regress']"
expect_rc "export gab reads the ab report" 0 "$BIN" export --format gab ab.json -o ab.gab.json
expect_rc "compare reads the ab report's two arms" 0 "$BIN" compare ab.json
if grep -qF "ab.json [head]" "$WORK/out"; then pass "compare names the arms"; else fail "compare names the arms" "$(head -c 200 "$WORK/out")"; fi

# A tampered report (one length's head slices tripled): its pairs decide.
"$PY" -c "import json; j=json.load(open('ab.json')); l = j['ab']['pairings'][0]['lengths'][0]; l['head_slices'] = [3 * t for t in l['head_slices']]; json.dump(j, open('tampered.json','w'))"
expect_usage_error "a slice edited by hand is refused" "its pairs give" "$BIN" check tampered.json
"$PY" -c "import json; j=json.load(open('ab.json')); j['ab']['verdict'] = 'pass' if j['ab']['verdict'] != 'pass' else 'regression'; json.dump(j, open('verdict.json','w'))"
expect_usage_error "a verdict edited by hand is refused" "ab.verdict is" "$BIN" check verdict.json
"$PY" -c "import json; j=json.load(open('ab.json')); j['ab']['pairings'][0]['lengths'][0]['base_slices'][0] = -1; json.dump(j, open('negative.json','w'))"
expect_usage_error "a negative slice is refused" "slice times are finite numbers > 0" "$BIN" check negative.json
# The method a report names is the one its pairs are compared by again.
expect_json "a new report compares its pairs by their median" ab.json \
  "r['ab']['method']['per_length'].startswith('binomial order-statistic interval on the median')"
"$PY" -c "import json; j=json.load(open('ab.json')); j['ab']['method']['per_length'] = 'Student t interval on the mean log(head/base) of the pairs'; json.dump(j, open('method.json','w'))"
expect_usage_error "a report whose method was edited is refused: its pairs give other figures" "its pairs give" \
  "$BIN" check method.json
"$PY" -c "import json; j=json.load(open('ab.json')); j['ab']['method']['per_length'] = 'the mode'; json.dump(j, open('method2.json','w'))"
expect_usage_error "a method readbench does not know is refused" "ab.method.per_length is not a method" \
  "$BIN" check method2.json
FIXTURE="$HERE/fixtures/ab-v7-mean-cpu.json"
expect_rc "a report of an older readbench, compared by the mean, is read by its method (its regression)" 1 \
  "$BIN" check "$FIXTURE"
expect_rc "plot draws it" 0 "$BIN" plot "$FIXTURE" -o old.svg
expect_usage_error "a run-report reader refuses an ab report, saying who reads it" "is an ab report" \
  "$BIN" check base.json --baseline ab.json

# A worker for each arm: asked for, or for two binary files (a copy of this one).
SHORT=(--backend cpu --threads 1 -L 64,256 --sweep-budget 2 --slice 0.002 --cache hot --path fused)
run "$BIN" ab "${SHORT[@]}" --separate-workers --json separate.json
# At least one round, two pairs a length, whatever the budget leaves (a sanitizer build is slow).
expect_json "--separate-workers gives each arm a worker of its own" separate.json \
  "r['ab']['workers'] == 'two' and all(l['pairs'] >= 2 for l in r['ab']['pairings'][0]['lengths'])"
run "$BIN" ab --backend cpu --threads 1 -L 64,256 --sweep-budget 1 --cache hot --path fused --json defaults.json
expect_json "a CPU comparison's slices default to 10 ms" defaults.json "r['ab']['slice_s'] == 0.01"
cp "$BIN" "$WORK/rb-copy"
run "$BIN" ab "${SHORT[@]}" --head "$WORK/rb-copy" --max-cost-ratio 1.5 --json copy.json
expect_json "two binary files get a worker each" copy.json "r['ab']['workers'] == 'two'"
expect_json "a cost bound given is the one used" copy.json "r['ab']['thresholds']['max_cost_ratio'] == 1.5"
if grep -qF "a worker each: on a small shared machine two processes can read a few percent apart" "$WORK/out"; then
  pass "the summary of two workers on a CPU says what their offset may do to the cost ratio"
else
  fail "the summary of two workers on a CPU says what their offset may do to the cost ratio" "$(head -c 300 "$WORK/out")"
fi
run "$BIN" ab "${SHORT[@]}" --head "$WORK/../$(basename "$WORK")/rb-copy" --base "$WORK/rb-copy" --json copy2.json
expect_json "one binary named by two paths shares a worker" copy2.json "r['ab']['workers'] == 'one'"
"$PY" -c "import json; j=json.load(open('ab.json')); j['ab']['protocol'] = 1; del j['ab']['workers']; json.dump(j, open('protocol1.json','w'))"
expect_rc "a report of protocol 1 (no workers field) is read" "$ab_rc" "$BIN" check protocol1.json
"$PY" -c "import json; j=json.load(open('ab.json')); j['ab']['workers'] = 'three'; json.dump(j, open('workers3.json','w'))"
expect_usage_error "a workers field edited to nonsense is refused" "ab.workers" "$BIN" check workers3.json

# A head whose read is wrong: its check fails, nothing is timed, exit 1. Both plugins in one
# worker: each arm calls its own.
expect_rc "a head that fails its check is a regression" 1 "$BIN" ab "${QUICK[@]}" --dtype f32 \
  --base-plugin "$DIR/libfaulty_none.so" --head-plugin "$DIR/libfaulty_off_by_one_block.so" \
  --base-path plugin:faulty_none --head-path plugin:faulty_off_by_one_block --json failed.json
if grep -q "not compared: head plugin:faulty_off_by_one_block: verification failed" "$WORK/err"; then
  pass "the failed head is named"
else
  fail "the failed head is named" "$(first_err)"
fi
expect_json "the failed pairing is recorded with its arm" failed.json \
  "r['ab']['pairings'][0]['status'] == 'failed' and r['ab']['pairings'][0]['failed_arm'] == 'head' and r['ab']['verdict'] == 'regression' and r['ab']['workers'] == 'one'"

# A signal (SIGTERM: a script's background job ignores SIGINT): the pairs taken so far are kept,
# marked incomplete; check does not judge them unless asked.
# Slices of half a second: its six rounds before a first verdict (24 s of slices) outlast the
# signal. A sanitizer build starts its workers several times slower: it is given longer to reach
# its first pairs.
settle=4
if nm -D "$BIN" 2>/dev/null | grep -q __asan_init; then settle=16; fi
cp "$BIN" "$WORK/rb-stopped"  # a name of its own, so its workers can be told from any others
"$WORK/rb-stopped" ab --backend cpu --threads 1 -L 64,256 --sweep-budget 60 --slice 0.5 --cache hot \
  --path plugin:regress --plugin "$SAME" --json stopped.json >/dev/null 2>"$WORK/err" &
pid=$!
sleep "$settle"
kill -TERM "$pid"
wait "$pid"
rc=$?
if [ "$rc" -eq 143 ]; then pass "SIGTERM ends ab with 143"; else fail "SIGTERM ends ab with 143" "exit $rc: $(first_err)"; fi
expect_json "the stopped report is incomplete and keeps its pairs" stopped.json \
  "r['complete'] is False and r['signal'] == 'SIGTERM' and sum(l['pairs'] for l in r['ab']['pairings'][0]['lengths']) > 0"
expect_rc "check does not judge an incomplete ab report" 4 "$BIN" check stopped.json
run "$BIN" check stopped.json --allow incomplete
case $rc in 0 | 1 | 4) pass "check --allow incomplete judges it (exit $rc)" ;; *) fail "check --allow incomplete judges it" "exit $rc: $(first_err)" ;; esac
if pgrep -f "$WORK/rb-stopped ab-worker" >/dev/null; then fail "no worker outlives its ab" "$(pgrep -af rb-stopped | head -2)"; else pass "no worker outlives its ab"; fi

cli_summary
