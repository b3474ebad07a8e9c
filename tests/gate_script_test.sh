#!/usr/bin/env bash
# scripts/gate-same-runner.sh end to end with deterministic reports: each side is a stand-in
# binary whose `run` writes a prepared report (exact lines, so the verdicts do not depend on
# this machine's noise) and whose `check` is the real readbench. An A/A passes; a head whose
# fused exponent rose by 0.5 fails; reports marked contended give no verdict (exit 4); a run
# or a check that fails otherwise is exit 2.
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

# A real report's layout, its times made exact lines (4 us fixed; 1 ns a token gathered,
# 0.5 ns fused) and its fits computed again by `readbench fit`; the variants below change it.
"$BIN" run --backend cpu -L 256,1024,4096,16384 --fit-from 0 --budget 0.05 --min-samples 3 \
  --json measured.json >/dev/null 2>&1 || { echo "the measured report failed" >&2; exit 2; }
"$PY" - "$BIN" <<'PYEOF'
import json, subprocess, sys
rb = sys.argv[1]
def refit(r):
    stat = "min_s" if r["config"]["statistic"] == "min" else "median_s"
    for x in r["results"]:
        pts = [{"length": p["length"], "seconds": p[stat]} for p in x["points"]]
        out = subprocess.run([rb, "fit", "-", "--fit-from", "0", "--json", "-"],
                             input=json.dumps(pts), capture_output=True, text=True, check=True)
        x["fit"] = json.loads(out.stdout)
    return r
def report(marginal, fused_extra_exponent=0.0, verdict="clean"):
    r = json.load(open("measured.json"))
    for x, b in zip(r["results"], marginal):
        for q in x["points"]:
            t = 4e-6 + b * q["length"]
            if x["path"] == "fused":
                t *= (q["length"] / 256) ** fused_extra_exponent
            q["min_s"], q["median_s"] = t, 1.02 * t
            q["mean_s"], q["max_s"], q["stddev_s"] = 1.03 * t, 1.5 * t, 0.01 * t
    r = refit(r)
    r["quality"]["verdict"] = verdict
    r["quality"]["reasons"] = ["a test's stand-in"] if verdict == "contended" else []
    return r
json.dump(report([1e-9, 0.5e-9]), open("base.json", "w"))
json.dump(report([1e-9, 0.5e-9], fused_extra_exponent=0.5), open("slower.json", "w"))
json.dump(report([1e-9, 0.5e-9], verdict="contended"), open("busy.json", "w"))
PYEOF

# A stand-in for a readbench binary: `run ... --json FILE` copies REPORT there; every other
# command is the real binary's.
stand_in() {  # NAME REPORT
  cat >"$1" <<SH
#!/usr/bin/env bash
if [ "\$1" = run ]; then
  while [ \$# -gt 0 ]; do
    if [ "\$1" = --json ]; then cp "$WORK/$2" "\$2"; fi
    shift
  done
  echo "table"
  exit 0
fi
exec "$BIN" "\$@"
SH
  chmod +x "$1"
}
stand_in base-rb base.json
stand_in slower-rb slower.json
stand_in busy-rb busy.json
printf '#!/usr/bin/env bash\nexit 1\n' >broken-rb
chmod +x broken-rb

gate() {  # OUT-NAME BINARIES...
  local out=$1
  shift
  bash "$GATE" --out "$out" "$@" >"$out.log" 2>&1
  rc=$?
}

# The stand-in reports are mostly fixed cost (not at their asymptote): judged under
# --allow not-reached, as the gate's rounds are what is tested here.
gate aa --allow not-reached ./base-rb ./base-rb
[ "$rc" -eq 0 ] && grep -q "^gate-same-runner: PASS: 0 of 2 judged rounds" aa.log &&
  pass "an A/A of identical reports passes" || fail "an A/A of identical reports passes" "exit $rc: $(tail -1 aa.log)"
[ -f aa/base-1.json ] && [ -f aa/head-2.json ] && [ -f aa/verdict-2.json ] &&
  pass "the reports and verdicts of each round stay in --out" ||
  fail "the reports and verdicts of each round stay in --out" "$(ls aa)"

gate raised ./base-rb ./slower-rb
[ "$rc" -eq 1 ] && grep -q "^gate-same-runner: FAIL: a regression in all 2 rounds" raised.log &&
  pass "a fused exponent raised by 0.5 fails the gate" ||
  fail "a fused exponent raised by 0.5 fails the gate" "exit $rc: $(tail -1 raised.log)"

gate busy ./busy-rb ./busy-rb
[ "$rc" -eq 4 ] && grep -q "^gate-same-runner: CANNOT JUDGE" busy.log &&
  [ "$(grep -c "could not be judged (check exit 4): left out" busy.log)" -eq 2 ] &&
  pass "contended reports give no verdict: exit 4" ||
  fail "contended reports give no verdict: exit 4" "exit $rc: $(tail -1 busy.log)"

gate mixed ./base-rb ./busy-rb
[ "$rc" -eq 4 ] && pass "a contended head in every round: exit 4" ||
  fail "a contended head in every round: exit 4" "exit $rc: $(tail -1 mixed.log)"

# A head contended in round 1 and slower in round 2: one judged round, which flagged a
# regression, is one round's noise: no verdict. With --rounds 1 that one round is all there is.
cat >flaky-rb <<SH
#!/usr/bin/env bash
if [ "\$1" = run ]; then
  n=\$(cat "$WORK/flaky.count" 2>/dev/null || echo 0)
  echo \$((n + 1)) >"$WORK/flaky.count"
  report=slower.json
  [ "\$n" -eq 0 ] && report=busy.json
  while [ \$# -gt 0 ]; do
    if [ "\$1" = --json ]; then cp "$WORK/\$report" "\$2"; fi
    shift
  done
  exit 0
fi
exec "$BIN" "\$@"
SH
chmod +x flaky-rb
gate flaky ./base-rb ./flaky-rb
[ "$rc" -eq 4 ] && grep -q "^gate-same-runner: CANNOT JUDGE: only 1 of 2 rounds could be judged (1 flagged" flaky.log &&
  pass "one judged round that flags a regression gives no verdict: exit 4" ||
  fail "one judged round that flags a regression gives no verdict: exit 4" "exit $rc: $(tail -1 flaky.log)"
# ...nor one that passes: a head contended in round 1 and identical in round 2.
rm -f flaky.count
sed 's/report=slower.json/report=base.json/' flaky-rb >flaky-pass-rb
chmod +x flaky-pass-rb
gate flakypass --allow not-reached ./base-rb ./flaky-pass-rb
[ "$rc" -eq 4 ] && grep -q "^gate-same-runner: CANNOT JUDGE: only 1 of 2 rounds could be judged (0 flagged" flakypass.log &&
  pass "one judged round that passes gives no verdict either: exit 4" ||
  fail "one judged round that passes gives no verdict either: exit 4" "exit $rc: $(tail -1 flakypass.log)"
gate single --rounds 1 ./base-rb ./slower-rb
[ "$rc" -eq 1 ] && pass "with --rounds 1 its one round decides" ||
  fail "with --rounds 1 its one round decides" "exit $rc: $(tail -1 single.log)"

gate broken ./base-rb ./broken-rb
[ "$rc" -eq 2 ] && grep -q "the head run of round 1 failed" broken.log &&
  pass "a run that fails is exit 2 naming it" ||
  fail "a run that fails is exit 2 naming it" "exit $rc: $(tail -1 broken.log)"

gate badtol --tolerance abc ./base-rb ./base-rb
[ "$rc" -eq 2 ] && grep -q "the check of round 1 failed" badtol.log &&
  pass "a check that fails for another reason (a bad --tolerance) is exit 2, not 'cannot judge'" ||
  fail "a check that fails for another reason (a bad --tolerance) is exit 2, not 'cannot judge'" "exit $rc: $(tail -1 badtol.log)"

gate usage ./base-rb
[ "$rc" -eq 2 ] && pass "one binary only is a usage error" ||
  fail "one binary only is a usage error" "exit $rc"
bash "$GATE" --rounds 0 ./base-rb ./base-rb >rounds.log 2>&1
rc=$?
[ "$rc" -eq 2 ] && pass "--rounds 0 is a usage error" || fail "--rounds 0 is a usage error" "exit $rc"

cli_summary
