#!/usr/bin/env bash
# scripts/gate-same-runner.sh end to end: two copies of this readbench compared through
# `readbench ab` give a verdict, a report, a plot and the summary line; a base that has no ab
# worker and usage errors are exit 2. Whether the verdict is a pass rests on the machine's
# noise, so the A/A's verdict is not asserted here (.ci/run's A/A is where it is judged).
#
# usage: gate_script_test.sh READBENCH_BINARY
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"  # pass, fail, skip, cli_summary

[ $# -eq 1 ] || { echo "usage: $0 READBENCH_BINARY" >&2; exit 2; }
BIN=$(realpath "$1")
GATE="$(cd "$(dirname "$0")/.." && pwd)/scripts/gate-same-runner.sh"
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-gate-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2
cp "$BIN" "$WORK/base-readbench"

QUICK=(--backend cpu --threads 1 --path fused -L 256,1024,4096 --sweep-budget 10 --slice 0.004)

rc=0
bash "$GATE" --out "$WORK/aa" "$WORK/base-readbench" "$BIN" -- "${QUICK[@]}" >"$WORK/out" 2>"$WORK/err" || rc=$?
case $rc in
  0 | 1 | 4) pass "an A/A through the gate ends with a verdict (exit $rc)" ;;
  *) fail "an A/A through the gate ends with a verdict" "exit $rc: $(head -c 300 "$WORK/err")" ;;
esac
if grep -qE "^gate-same-runner: (PASS|FAIL|CANNOT JUDGE)" "$WORK/out"; then pass "the gate says its verdict"
else fail "the gate says its verdict" "$(tail -n 2 "$WORK/out")"; fi
if [ -s "$WORK/aa/ab.json" ] && [ -s "$WORK/aa/ab.svg" ] && [ -s "$WORK/aa/ab.md" ]; then
  pass "the report, its plot and the summary are kept"
else
  fail "the report, its plot and the summary are kept" "$(ls "$WORK/aa")"
fi
expect_json "the report names the two binaries" "$WORK/aa/ab.json" \
  "r['ab']['arms'][0]['binary'].endswith('base-readbench') and r['ab']['arms'][1]['binary'] == '$BIN'"
ab_rc=0
"$BIN" check "$WORK/aa/ab.json" >/dev/null 2>&1 || ab_rc=$?
if [ "$ab_rc" -eq "$rc" ]; then pass "check of the kept report gives the gate's verdict"
else fail "check of the kept report gives the gate's verdict" "check $ab_rc, gate $rc"; fi

# A base without the ab worker (a readbench older than the gate) cannot take part.
printf '#!/bin/sh\necho "readbench: unknown command" >&2\nexit 2\n' >"$WORK/old-readbench"
chmod +x "$WORK/old-readbench"
rc=0
bash "$GATE" --out "$WORK/old" "$WORK/old-readbench" "$BIN" -- "${QUICK[@]}" >"$WORK/out" 2>"$WORK/err" || rc=$?
if [ "$rc" -eq 2 ] && grep -q "ended before its hello" "$WORK/err"; then pass "a base without the ab worker is exit 2, named"
else fail "a base without the ab worker is exit 2, named" "exit $rc: $(head -c 300 "$WORK/err")"; fi

# Usage errors.
for args in "" "--out" "--bogus a b" "$WORK/nonexistent-revision $BIN"; do
  rc=0
  # shellcheck disable=SC2086
  bash "$GATE" $args >/dev/null 2>"$WORK/err" || rc=$?
  if [ "$rc" -eq 2 ]; then pass "usage error '$args' is exit 2"
  else fail "usage error '$args' is exit 2" "exit $rc: $(head -c 200 "$WORK/err")"; fi
done

cli_summary
