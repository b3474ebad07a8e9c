#!/usr/bin/env bash
# `readbench fleet` and `readbench export --format openmetrics` end to end, on a fleet cloned from
# one real short run by tools/fleet_sim.py: a slowed host failed, the table worst first, the JSON
# verdict, unreadable and contended reports named, small groups and --reference, exit codes
# 0/1/2/4, and the OpenMetrics text read by an independent parser (prometheus_client).
#   tests/cli_fleet_test.sh READBENCH_BINARY
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"  # pass, fail, skip, expect_json, cli_summary

[ $# -eq 1 ] || { echo "usage: $0 READBENCH_BINARY" >&2; exit 2; }
BIN=$(realpath "$1")
SIM="$(cd "$(dirname "$0")/.." && pwd)/tools/fleet_sim.py"
PY=/usr/bin/python3
WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-fleet-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2

expect_exit() {  # NAME CODE COMMAND...
  local name=$1 want=$2 got
  shift 2
  "$@" >out.txt 2>err.txt
  got=$?
  if [ "$got" -eq "$want" ]; then pass "$name"; else
    fail "$name" "exit $got, wanted $want: $(head -c 300 err.txt)"
  fi
}

"$BIN" run --backend cpu -L 1024,4096,16384,65536 --fit-from 0 --budget 0.05 --min-samples 3 \
  --json base.json >/dev/null 2>&1 || { echo "the base run failed" >&2; exit 2; }

# Eight healthy hosts and one 10% slow (its marginal cost exactly 1.1 times the others').
"$PY" "$SIM" generate base.json fleet --devices 8 --sigma 0 --seed 3 >/dev/null
"$PY" "$SIM" generate base.json slowone --devices 1 --sigma 0 --slow 10:1 >/dev/null
cp slowone/node00000.json fleet/slowhost.json
"$PY" - fleet/slowhost.json <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1])); r["machine"]["hostname"] = "slowhost"
json.dump(r, open(sys.argv[1], "w"))
PYEOF

expect_exit "a fleet with a 10% slow host exits 1" 1 "$BIN" fleet fleet --json verdict.json
grep -q "^| fail | slowhost | cpu | " out.txt && pass "the slow host's rows come first, failed" ||
  fail "slow host first" "$(sed -n 1,12p out.txt)"
grep -q "marginal cost +10.0%" out.txt && pass "the reason names the deviation" ||
  fail "reason" "$(grep slowhost out.txt | head -1)"
expect_json "the JSON verdict fails, slowhost first" verdict.json \
  "r['verdict'] == 'fail' and r['devices'][0]['host'] == 'slowhost' and \
   all(d['verdict'] == 'ok' for d in r['devices'] if d['host'] != 'slowhost')"
expect_exit "files named one by one read the same" 1 "$BIN" fleet fleet/node0000{0..7}.json fleet/slowhost.json

# Healthy alone: exit 0.
rm fleet/slowhost.json
expect_exit "a healthy fleet exits 0" 0 "$BIN" fleet fleet

# Named, never dropped: an unreadable file and a contended report.
echo '{"not": "a report"}' >fleet/zz-broken.json
"$PY" - fleet/node00001.json <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1])); r["quality"] = {"verdict": "contended", "reasons": ["a test's"]}
json.dump(r, open(sys.argv[1], "w"))
PYEOF
expect_exit "unreadable and contended members leave the rest judged" 0 "$BIN" fleet fleet --json v2.json
grep -q "zz-broken.json: unreadable" out.txt && grep -q "node00001.json: contended" out.txt &&
  pass "both are named under 'not judged'" || fail "named" "$(tail -4 out.txt)"
expect_json "the JSON lists them skipped" v2.json "len(r['skipped']) == 2"
expect_exit "--allow contended judges the contended report too" 0 "$BIN" fleet fleet --allow contended \
  --json v3.json
expect_json "only the unreadable one is skipped, the contended one judged and marked" v3.json \
  "len(r['skipped']) == 1 and any('judged as asked though its run was contended' in d['reason'] for d in r['devices'])"
expect_exit "--allow takes contended only" 2 "$BIN" fleet fleet --allow incomplete
rm fleet/zz-broken.json

# Small groups: unjudged without a reference (exit 4), judged with one.
mkdir small
cp fleet/node00002.json fleet/node00003.json small/
expect_exit "a group under --min-group without --reference cannot be judged (4)" 4 "$BIN" fleet small
cp slowone/node00000.json small/slow.json
expect_exit "with --reference the small group is judged and the slow one fails" 1 \
  "$BIN" fleet small --reference base.json
expect_exit "--min-group 2 judges three against their median" 1 "$BIN" fleet small --min-group 2

# Bad input: exit 2, one line.
mkdir empty
expect_exit "a directory without reports is bad input" 2 "$BIN" fleet empty
expect_exit "--fail under --warn is refused" 2 "$BIN" fleet fleet --warn 0.1 --fail 0.05
expect_exit "a negative threshold is refused" 2 "$BIN" fleet fleet --warn -1
expect_exit "an unreadable --reference is bad input" 2 "$BIN" fleet fleet --reference nothere.json
expect_exit "an output naming an input is refused" 2 "$BIN" fleet fleet/node00002.json --json fleet/node00002.json
[ "$(wc -l <err.txt)" -eq 1 ] && pass "bad input says one line" || fail "one line" "$(cat err.txt)"

# OpenMetrics, read back by an independent parser.
expect_exit "export --format openmetrics" 0 "$BIN" export --format openmetrics base.json -o base.prom
expect_exit "fleet --openmetrics" 0 "$BIN" fleet fleet --openmetrics fleet.prom
tail -1 base.prom | grep -qx "# EOF" && pass "the text ends with # EOF" || fail "EOF" "$(tail -1 base.prom)"
if "$PY" -c "import prometheus_client.openmetrics.parser" 2>/dev/null; then
  for prom in base.prom fleet.prom; do
    if why=$("$PY" - "$prom" <<'PYEOF' 2>&1
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
families = list(text_string_to_metric_families(open(sys.argv[1]).read()))
names = {f.name: f for f in families}
want = {"readbench_marginal_cost_seconds": "seconds", "readbench_fixed_cost_seconds": "seconds",
        "readbench_exponent": "", "readbench_read_ceiling_bytes_per_second": "bytes_per_second",
        "readbench_ceiling_fraction_ratio": "ratio"}
for name, unit in want.items():
    f = names[name]
    assert f.type == "gauge", (name, f.type)
    assert f.unit == unit, (name, f.unit)
    assert f.samples, name
    for s in f.samples:
        assert {"host", "device", "gpu_model", "backend", "path", "batch", "q_heads", "kv_heads",
                "head_dim", "dtype", "kv_dtype"} <= set(s.labels), s.labels
assert len(families) == len(want), [f.name for f in families]
PYEOF
    ); then pass "$prom parsed by prometheus_client, every family typed"; else
      fail "$prom parsed" "$(echo "$why" | tail -1)"
    fi
  done
else
  skip "OpenMetrics parsed by prometheus_client" "python3-prometheus-client is not installed"
fi
cli_summary
