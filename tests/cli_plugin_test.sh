#!/usr/bin/env bash
# Plugins end to end with the real binary: a plain C plugin and readbench's own fused read as a
# plugin timed, reported (schema), fitted, gated, compared, plotted and exported beside the
# built-in paths; every way a plugin can be unusable a one-line error with exit 2; wrong,
# crashing and hanging plugins failed with the reason and never timed; `verify --plugin`.
#
# usage: cli_plugin_test.sh READBENCH SCHEMA PLUGIN_DIR NAIVE_PLUGIN FUSED_CPU_PLUGIN
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"  # pass, fail, expect_json, expect_valid_report

if [ $# -ne 5 ]; then
  echo "usage: $0 READBENCH SCHEMA PLUGIN_DIR NAIVE_PLUGIN FUSED_CPU_PLUGIN" >&2
  exit 2
fi
BIN=$(realpath "$1")
SCHEMA=$(realpath "$2")
DIR=$(realpath "$3")
NAIVE=$(realpath "$4")
FUSED=$(realpath "$5")
HERE=$(cd "$(dirname "$0")" && pwd)
VALIDATE="$HERE/../scripts/validate_report.py"
PY=/usr/bin/python3

WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-plugin.XXXXXX")
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

QUICK=(--backend cpu --threads 2 -L 16,64,256 --budget 0.05 --min-samples 3 --cache hot)

# Two plugins beside the built-in paths.
expect_rc "run with two plugins" 0 "$BIN" run "${QUICK[@]}" --plugin "$NAIVE" --plugin "$FUSED" \
  --json plug.json --csv plug.csv
expect_valid_report "the report with plugins is valid" plug.json
expect_json "the plugins are in config" plug.json \
  "[p['path'] for p in r['config']['plugins']] == ['plugin:naive_cpu', 'plugin:readbench_fused_cpu'] and r['config']['paths'] == ['gather', 'fused', 'plugin:naive_cpu', 'plugin:readbench_fused_cpu']"
expect_json "each plugin was checked, timed and fitted" plug.json \
  "all(x['status'] == 'ok' and len(x['points']) == 3 and x['fit'] and all(c['passed'] for c in x['checks']) for x in r['results'] if x['path'].startswith('plugin:'))"
expect_json "speedups compare the built-in paths only" plug.json \
  "len(r['speedups']) == 3"
if grep -q '^cpu,plugin:naive_cpu,' plug.csv; then pass "the CSV has plugin rows"; else fail "the CSV has plugin rows" "$(head -3 plug.csv)"; fi
if grep -q 'plugin:readbench_fused_cpu' "$WORK/out"; then pass "the table names the plugin"; else fail "the table names the plugin" "$(head -c 300 "$WORK/out")"; fi

# Every consumer of the report takes plugin rows.
expect_rc "fit re-fits plugin rows" 0 "$BIN" fit plug.json
grep -q 'plugin:naive_cpu' "$WORK/out" && pass "fit names the plugin" || fail "fit names the plugin" "$(head -c 200 "$WORK/out")"
expect_rc "check against itself passes" 0 "$BIN" check plug.json --baseline plug.json --allow contended,not-reached
grep -q 'cpu/plugin:naive_cpu' "$WORK/out" && pass "check gates the plugin row" || fail "check gates the plugin row" "$(head -c 300 "$WORK/out")"
expect_rc "compare takes plugin rows" 0 "$BIN" compare plug.json plug.json
grep -q 'cpu/plugin:readbench_fused_cpu' "$WORK/out" && pass "compare names the plugin" || fail "compare names the plugin" "$(head -c 300 "$WORK/out")"
expect_rc "plot draws plugin rows" 0 "$BIN" plot plug.json -o plug.svg
grep -q 'plugin:naive_cpu' plug.svg && pass "the plot labels the plugin" || fail "the plot labels the plugin" "no label"
expect_rc "export takes plugin rows" 0 "$BIN" export plug.json --format bmf -o plug.bmf.json
grep -q 'plugin:naive_cpu' plug.bmf.json && pass "export names the plugin" || fail "export names the plugin" "no name"

# Unusable plugins: one line, exit 2, nothing measured.
expect_usage_error "a missing plugin file" "cannot load plugin $WORK/none.so: no such file" \
  "$BIN" run "${QUICK[@]}" --plugin "$WORK/none.so"
echo "text" > "$WORK/text.so"
expect_usage_error "a file that is not a library" "cannot load plugin $WORK/text.so: not an ELF shared library" \
  "$BIN" run "${QUICK[@]}" --plugin "$WORK/text.so"
expect_usage_error "a library without the entry point" "does not export readbench_plugin" \
  "$BIN" run "${QUICK[@]}" --plugin "$DIR/libfaulty_no_symbol.so"
expect_usage_error "another ABI version, both named" \
  "was built for plugin ABI version 999; this readbench reads version 1" \
  "$BIN" run "${QUICK[@]}" --plugin "$DIR/libfaulty_abi.so"
cp "$NAIVE" "$WORK/copy.so"
expect_usage_error "two plugins of one name, both files named" \
  "two plugins are named naive_cpu: $NAIVE and $WORK/copy.so" \
  "$BIN" run "${QUICK[@]}" --plugin "$NAIVE" --plugin "$WORK/copy.so"
expect_usage_error "a dtype the plugin does not take" "does not take q in bf16" \
  "$BIN" run "${QUICK[@]}" --plugin "$DIR/libfaulty_none.so"
expect_usage_error "a backend the plugin does not run on" "runs on cpu, which --backend cuda leaves out" \
  "$BIN" run --backend cuda --plugin "$NAIVE"
expect_usage_error "a path naming no loaded plugin" "--path plugin:nope names no plugin loaded with --plugin" \
  "$BIN" run "${QUICK[@]}" --path fused,plugin:nope
expect_usage_error "a path listed twice" "--path lists fused twice" \
  "$BIN" run "${QUICK[@]}" --path fused,fused
cp "$NAIVE" "$WORK/target.so"
for out in --json --csv; do
  expect_usage_error "$out naming the plugin's library is refused" \
    "$out '$WORK/target.so' names the same file as --plugin '$WORK/target.so'" \
    "$BIN" run "${QUICK[@]}" --plugin "$WORK/target.so" "$out" "$WORK/target.so"
  cmp -s "$NAIVE" "$WORK/target.so" && pass "$out left the plugin's library as it was" \
    || fail "$out left the plugin's library as it was" "target.so changed"
done

# Files that are not a shared library of this machine, or truncated ones (the first 1,000 to
# 12,000 bytes of a good library made dlopen die of SIGBUS): refused before dlopen, by run and
# verify alike.
size=$(wc -c <"$FUSED")
for cut in 1000 4096 12000 $((size / 2)) $((size - 1)); do
  head -c "$cut" "$FUSED" >"$WORK/cut$cut.so"
  expect_usage_error "run: a library cut to $cut bytes" \
    "cannot load plugin $WORK/cut$cut.so: truncated or damaged: its ELF headers place" \
    "$BIN" run "${QUICK[@]}" --plugin "$WORK/cut$cut.so"
  expect_usage_error "verify: a library cut to $cut bytes" \
    "past the end of the file ($cut bytes)" \
    "$BIN" verify --backend cpu --plugin "$WORK/cut$cut.so"
done
forge() {  # OUT OFFSET FORMAT VALUE: the fused plugin with one field of its ELF header changed
  "$PY" - "$FUSED" "$@" <<'PYEOF'
import struct, sys
src, out, offset, fmt, value = sys.argv[1:]
b = bytearray(open(src, 'rb').read())
struct.pack_into(fmt, b, int(offset), int(value))
open(out, 'wb').write(b)
PYEOF
}
if [ "$(uname -m)" = x86_64 ]; then other=183 other_name=AArch64 own_name=x86-64; else
  other=62 other_name=x86-64 own_name=AArch64; fi
forge "$WORK/foreign.so" 18 '<H' "$other"
expect_usage_error "a library of another architecture" \
  "cannot load plugin $WORK/foreign.so: built for $other_name; this readbench runs on $own_name" \
  "$BIN" run "${QUICK[@]}" --plugin "$WORK/foreign.so"
forge "$WORK/exec.so" 16 '<H' 2
expect_usage_error "an executable" \
  "cannot load plugin $WORK/exec.so: an executable (ET_EXEC), not a shared library (ET_DYN)" \
  "$BIN" verify --backend cpu --plugin "$WORK/exec.so"
forge "$WORK/narrow.so" 4 'B' 1
expect_usage_error "a 32-bit library" "cannot load plugin $WORK/narrow.so: a 32-bit ELF file" \
  "$BIN" run "${QUICK[@]}" --plugin "$WORK/narrow.so"
# A real library of the other architecture, where a cross compiler is installed.
cross=$([ "$(uname -m)" = x86_64 ] && echo aarch64-linux-gnu-gcc || echo x86_64-linux-gnu-gcc)
if command -v "$cross" >/dev/null; then
  "$cross" -shared -fPIC -I "$HERE/../include" "$HERE/plugins/faulty.c" -o "$WORK/cross.so" -lm
  expect_usage_error "a library built by $cross" "built for $other_name" \
    "$BIN" run "${QUICK[@]}" --plugin "$WORK/cross.so"
fi

# A library whose loading crashes, exits or hangs does so in a child process: refused, exit 2.
for cmd in run verify; do
  if [ "$cmd" = run ]; then args=("${QUICK[@]}" --dtype f32); else
    args=(--backend cpu --threads 2 --dtypes f32 --kv-dtypes same); fi
  expect_usage_error "$cmd: a constructor that calls exit(0)" \
    "cannot load plugin $DIR/libfaulty_exit_on_load.so: loading it ended the process (exit status 0) in a separate process" \
    "$BIN" "$cmd" "${args[@]}" --plugin "$DIR/libfaulty_exit_on_load.so"
  expect_usage_error "$cmd: a constructor that crashes" \
    "cannot load plugin $DIR/libfaulty_crash_on_load.so: loading it crashed (SIGSEGV)" \
    "$BIN" "$cmd" "${args[@]}" --plugin "$DIR/libfaulty_crash_on_load.so"
  expect_usage_error "$cmd: a constructor that hangs" \
    "cannot load plugin $DIR/libfaulty_hang_on_load.so: loading it did not finish within 1 s" \
    "$BIN" "$cmd" "${args[@]}" --plugin-timeout 1 --plugin "$DIR/libfaulty_hang_on_load.so"
done

# What a plugin prints (printf and write(1) in its constructor, prepare and run) goes to stderr:
# a report on stdout stays a report.
PRINT=(--plugin "$DIR/libfaulty_print.so" --dtype f32)
printed_on_stderr() {  # NAME
  if grep -qF 'faulty_print: printf in the constructor' "$WORK/err" &&
    grep -qF 'faulty_print: printf in run' "$WORK/err" &&
    grep -qF 'faulty_print: write(1) {not json' "$WORK/err"; then pass "$1"; else
    fail "$1" "$(first_err)"; fi
}
expect_rc "run --json - beside a plugin that prints" 0 "$BIN" run "${QUICK[@]}" "${PRINT[@]}" --json -
if "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["results"]' "$WORK/out" 2>/dev/null; then
  pass "stdout is the JSON report alone"
else
  fail "stdout is the JSON report alone" "$(head -c 300 "$WORK/out")"
fi
printed_on_stderr "what the plugin printed is on stderr"
expect_rc "run --csv - beside a plugin that prints" 0 "$BIN" run "${QUICK[@]}" "${PRINT[@]}" --csv -
PRINTED='faulty_print: (printf|write)'
if head -1 "$WORK/out" | grep -q '^backend,path,' && ! grep -qE "$PRINTED" "$WORK/out"; then
  pass "stdout is the CSV report alone"
else
  fail "stdout is the CSV report alone" "$(head -c 300 "$WORK/out")"
fi
expect_rc "run's table beside a plugin that prints" 0 "$BIN" run "${QUICK[@]}" "${PRINT[@]}"
if grep -q 'plugin:faulty_print' "$WORK/out" && ! grep -qE "$PRINTED" "$WORK/out"; then
  pass "stdout is the table alone"
else
  fail "stdout is the table alone" "$(head -c 300 "$WORK/out")"
fi
expect_rc "verify beside a plugin that prints" 0 "$BIN" verify --backend cpu --threads 2 \
  --dtypes f32 --kv-dtypes same --plugin "$DIR/libfaulty_print.so"
if ! grep -qE "$PRINTED" "$WORK/out" && grep -q 'plugin:faulty_print' "$WORK/out"; then
  pass "verify's stdout is its table alone"
else
  fail "verify's stdout is its table alone" "$(head -c 300 "$WORK/out")"
fi
printed_on_stderr "what the plugin printed during verify is on stderr"

# exit(0) or quick_exit(0) from a plugin being timed in readbench's process: exit 5 and one
# line, never 0; what was measured before it written as a partial report (JSON and CSV), marked
# incomplete with how the plugin ended the run, valid against the schema, refused by check.
for fault in exit_later quick_exit_later; do
  echo '{"earlier": true}' >"$WORK/$fault.json"
  run "$BIN" run "${QUICK[@]}" --dtype f32 --plugin "$DIR/libfaulty_$fault.so" \
    --json "$WORK/$fault.json" --csv "$WORK/$fault.csv"
  lines=$(awk 'END { print NR }' "$WORK/err")
  if [ "$rc" -eq 5 ] && [ "$lines" -eq 1 ] &&
    grep -q "^readbench: a plugin ended the process with .*what was measured is in $WORK/$fault.json and $WORK/$fault.csv (the JSON marked incomplete); exit status 5$" "$WORK/err"; then
    pass "$fault: exit 5 and one line naming the partial report"
  else
    fail "$fault: exit 5 and one line naming the partial report" "exit $rc, $lines lines: $(first_err)"
  fi
  [ ! -s "$WORK/out" ] && pass "$fault: nothing on stdout" || fail "$fault: nothing on stdout" "$(head -c 200 "$WORK/out")"
  expect_valid_report "$fault: the partial report is valid" "$fault.json"
  how=$([ "$fault" = exit_later ] && echo 'exit(0)' || echo 'quick_exit()')
  expect_json "$fault: the report is marked incomplete, the plugin's exit named, the built-in paths' first points kept" "$fault.json" \
    "r['complete'] is False and r['plugin_exit'] == '$how' and 'signal' not in r and all(x['points'] for x in r['results'] if not x['path'].startswith('plugin:')) and [x['grid']['stop'] for x in r['results'] if x['path'].startswith('plugin:')] == ['interrupted']"
  grep -q '^cpu,gather,f32,' "$WORK/$fault.csv" && pass "$fault: the CSV holds the points" ||
    fail "$fault: the CSV holds the points" "$(head -c 200 "$WORK/$fault.csv")"
  expect_rc "$fault: check refuses the partial report (exit 4)" 4 \
    "$BIN" check "$fault.json" --baseline plug.json
  grep -q "incomplete: a plugin ended the run with $how" "$WORK/err" &&
    pass "$fault: check says how the run ended" || fail "$fault: check says how the run ended" "$(first_err)"
done
# Two threads of the plugin's own exit(0) at once: one ends the process (status 5, one line),
# the other waits for it; the partial report holds the sweep's points.
run "$BIN" run "${QUICK[@]}" --dtype f32 --plugin "$DIR/libfaulty_exit_threads.so" --json threads.json
lines=$(awk 'END { print NR }' "$WORK/err")
if [ "$rc" -eq 5 ] && [ "$lines" -eq 1 ] && grep -q "^readbench: a plugin ended the process with exit(0) .*threads.json" "$WORK/err"; then
  pass "exit(0) from two plugin threads at once: exit 5, one line, the report named"
else
  fail "exit(0) from two plugin threads at once: exit 5, one line, the report named" "exit $rc, $lines lines: $(first_err)"
fi
expect_json "the partial report holds the sweep's points though the exit came from a plugin thread" threads.json \
  "r['plugin_exit'] == 'exit(0)' and all(x['points'] for x in r['results'] if not x['path'].startswith('plugin:'))"
run "$BIN" run "${QUICK[@]}" --dtype f32 --plugin "$DIR/libfaulty_exit_later.so"
if [ "$rc" -eq 5 ] && grep -q "the run did not finish and wrote no report; exit status 5$" "$WORK/err"; then
  pass "exit(0) while timed, no report asked: exit 5, none written"
else
  fail "exit(0) while timed, no report asked: exit 5, none written" "exit $rc: $(first_err)"
fi
expect_rc "exit(0) while timed, the report asked on stdout: exit 5" 5 \
  "$BIN" run "${QUICK[@]}" --dtype f32 --plugin "$DIR/libfaulty_exit_later.so" --json -
if $PY -c "import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r['plugin_exit'] == 'exit(0)' and not r['complete'] else 1)" "$WORK/out"; then
  pass "the partial report alone on stdout, marked incomplete"
else
  fail "the partial report alone on stdout, marked incomplete" "$(head -c 200 "$WORK/out")"
fi

# Wrong, crashing and hanging plugins: failed with the reason, never timed, the rest measured.
F32=(--dtype f32)
for fault in off_by_one_block wrong_scale nan; do
  expect_rc "a wrong plugin ($fault) fails the run's checks" 1 \
    "$BIN" run "${QUICK[@]}" "${F32[@]}" --plugin "$DIR/libfaulty_$fault.so" --json "$fault.json"
  expect_json "the wrong plugin ($fault) was never timed" "$fault.json" \
    "[(x['status'], len(x['points']), x['reason'].startswith('verification failed')) for x in r['results'] if x['path'] == 'plugin:faulty_$fault'] == [('failed', 0, True)] and all(x['points'] for x in r['results'] if not x['path'].startswith('plugin:'))"
done
expect_rc "a crashing plugin fails its path, not the run's report" 1 \
  "$BIN" run "${QUICK[@]}" "${F32[@]}" --plugin "$DIR/libfaulty_crash.so" --json crash.json
expect_valid_report "the report beside a crashing plugin is valid" crash.json
expect_json "the crash is named and the plugin never called again" crash.json \
  "[x['reason'] for x in r['results'] if x['path'] == 'plugin:faulty_crash'] == ['plugin:faulty_crash crashed (SIGSEGV) during its check (run in a separate process); not called again'] and all(x['points'] for x in r['results'] if not x['path'].startswith('plugin:'))"
expect_rc "a hanging plugin is given up after --plugin-timeout" 1 \
  "$BIN" run "${QUICK[@]}" "${F32[@]}" --plugin "$DIR/libfaulty_hang.so" --plugin-timeout 1 --json hang.json
expect_json "the hang is named" hang.json \
  "[x['status'] for x in r['results'] if x['path'] == 'plugin:faulty_hang'] == ['failed'] and 'did not finish' in [x['reason'] for x in r['results'] if x['path'] == 'plugin:faulty_hang'][0]"
expect_rc "a plugin whose call errs fails with its message" 1 \
  "$BIN" run "${QUICK[@]}" "${F32[@]}" --plugin "$DIR/libfaulty_run_error.so" --json err.json
expect_json "the plugin's message is in the reason and the check" err.json \
  "[(x['reason'], x['checks'][0].get('failure')) for x in r['results'] if x['path'] == 'plugin:faulty_run_error'] == [('its call failed at L=16: plugin:faulty_run_error failed: deliberate failure', 'plugin:faulty_run_error failed: deliberate failure')]"

# verify --plugin checks the plugin alone.
expect_rc "verify a correct plugin" 0 "$BIN" verify --backend cpu --threads 2 --plugin "$NAIVE" \
  --dtypes bf16,f32 --kv-dtypes same,fp8_e4m3 --lengths 1,17,100
if grep -q 'plugin:naive_cpu' "$WORK/out" && ! grep -qE ' (gather|fused) ' "$WORK/out"; then
  pass "verify --plugin checks the plugin alone"
else
  fail "verify --plugin checks the plugin alone" "$(head -c 300 "$WORK/out")"
fi
expect_rc "verify a head-major plugin" 0 "$BIN" verify --backend cpu --threads 2 \
  --plugin "$DIR/libfaulty_hnd_only.so" --dtypes f32 --kv-dtypes same
expect_rc "verify a wrong plugin" 1 "$BIN" verify --backend cpu --threads 2 \
  --plugin "$DIR/libfaulty_nan.so" --dtypes f32 --kv-dtypes same
expect_rc "verify a crashing plugin" 1 "$BIN" verify --backend cpu --threads 2 \
  --plugin "$DIR/libfaulty_crash.so" --dtypes f32 --kv-dtypes same
grep -q 'FAIL: plugin:faulty_crash crashed (SIGSEGV)' "$WORK/out" && pass "verify names the crash" ||
  fail "verify names the crash" "$(head -c 300 "$WORK/out")"
expect_usage_error "verify: a dtype the plugin does not take" "does not take q in bf16" \
  "$BIN" verify --backend cpu --plugin "$DIR/libfaulty_none.so" --dtypes bf16

cli_summary
