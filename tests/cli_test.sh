#!/usr/bin/env bash
# End-to-end checks of the readbench command line with the real binary:
# exit codes, one-line errors, reports validated against the JSON Schema by an independent
# validator (Debian's python3-jsonschema), atomic writes.
#
# usage: cli_test.sh SECTION READBENCH_BINARY SCHEMA
# SECTION is one command's checks (help, fit, old-reports, run, run-options, check, verify,
# compare, export, plot): each is a ctest of its own, so a failure names its command.
# Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"  # pass, fail, skip, expect_json, expect_valid_report, cli_summary

if [ $# -ne 3 ]; then
  echo "usage: $0 SECTION READBENCH_BINARY SCHEMA" >&2
  exit 2
fi
SECTION=$1
BIN=$(realpath "$2")
SCHEMA=$(realpath "$3")
HERE=$(cd "$(dirname "$0")" && pwd)
VALIDATE="$HERE/../scripts/validate_report.py"
PY=/usr/bin/python3

WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-cli.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2


# Runs a command with stdout in $WORK/out, stderr in $WORK/err and the status in $rc.
# Stdin is empty unless IN names a file.
IN=/dev/null
run() {
  "$@" <"$IN" >"$WORK/out" 2>"$WORK/err"
  rc=$?
  IN=/dev/null
}
lines_of() { awk 'END { print NR }' "$1"; }
first_err() { head -c 300 "$WORK/err" | tr '\n' ' '; }

expect_ok() {  # NAME CMD...
  local name=$1
  shift
  run "$@"
  if [ "$rc" -eq 0 ]; then pass "$name"; else fail "$name" "exit $rc: $(first_err)"; fi
}

# Bad usage or input: exit 2 and exactly one line on stderr, naming readbench.
expect_usage_error() {  # NAME CMD...
  local name=$1
  shift
  run "$@"
  local n
  n=$(lines_of "$WORK/err")
  if [ "$rc" -ne 2 ]; then
    fail "$name" "exit $rc, expected 2: $(first_err)"
  elif [ "$n" -ne 1 ]; then
    fail "$name" "$n lines on stderr, expected 1: $(first_err)"
  elif ! grep -q '^readbench: ' "$WORK/err"; then
    fail "$name" "stderr does not start with 'readbench: ': $(first_err)"
  else
    pass "$name"
  fi
}

# The `fit` object, checked against the schema's own definition of it.
expect_valid_fit() {  # NAME FILE (a fit object, or an array of {backend, path, fit})
  local why
  if why=$("$PY" - "$2" "$SCHEMA" 2>&1 <<'EOF'
import json, sys
from jsonschema import Draft202012Validator
doc = json.load(open(sys.argv[1]))
schema = json.load(open(sys.argv[2]))
fit = Draft202012Validator({"$ref": "#/$defs/fit", "$defs": schema["$defs"]})
for f in (x["fit"] for x in doc) if isinstance(doc, list) else [doc]:
    fit.validate(f)
EOF
  ); then pass "$1"; else fail "$1" "$(echo "$why" | tail -1)"; fi
}

csv_rows_are() {  # NAME FILE ROWS: a header plus ROWS rows, every row as wide as the header
  local why
  why=$(awk -F, -v want="$3" '
    NR == 1 { cols = NF; if ($1 != "backend") { print "no header"; exit 1 } next }
    NF != cols { print "row " NR " has " NF " cells, header " cols; exit 1 }
    END { if (NR - 1 != want) { print NR - 1 " rows, expected " want; exit 1 } }' "$2") &&
    pass "$1" || fail "$1" "$why"
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# A Python expression over the SVG in FILE, parsed by Python's own XML parser, must be true.
# Bound: series (the <g class="series"> elements), of(el, tag, cls) (el's descendants of that
# tag and class), text(cls) (the text of every element of that class), json.
expect_svg() {  # NAME FILE EXPR
  local name=$1 file=$2 expr=$3 why
  if why=$("$PY" - "$file" "$expr" 2>&1 <<'EOF'
import json, sys
import xml.etree.ElementTree as E
N = "{http://www.w3.org/2000/svg}"
root = E.parse(sys.argv[1]).getroot()
def of(el, tag, cls):
    return el.findall(".//" + N + tag + "[@class='" + cls + "']")
def text(cls):
    return ["".join(e.itertext()) for e in root.iter() if e.get("class") == cls]
series = of(root, "g", "series")
if not eval(sys.argv[2]):
    sys.exit("false: " + sys.argv[2])
EOF
  ); then pass "$name"; else fail "$name" "$(echo "$why" | tail -1)"; fi
}

# Real CUDA devices change what --backend cuda and auto do; the checks that need a machine
# without one are skipped where nvidia-smi lists a GPU.
HAVE_GPU=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  HAVE_GPU=1
fi

# Small, fast sweep settings shared by the real runs.
TINY=(--lengths 16,32,64 --budget 0.05 --min-samples 3)

# Points every section reads: a CSV whose fit is linear, a JSON array whose fit is sublinear.
printf 'length,seconds,note\n16,1e-6,a\n64,4e-6,b\n256,1.6e-5,c\n1024,6.4e-5,d\n' >good.csv
printf '[{"length": 16, "seconds": 1e-6}, {"length": 64, "seconds": 2e-6},
  {"length": 256, "seconds": 4e-6}]\n' >good.json

# Report variants change the points; readers refuse a stored fit the points do not give, so
# each variant's fits are computed again by `readbench fit` from its points.
# Report variants change the points; readers refuse a stored fit the points do not give, so
# each variant's fits are computed again by `readbench fit` from its points.
cat >variants.py <<EOF
import json, subprocess
def refit(r):
    stat = "min_s" if r["config"]["statistic"] == "min" else "median_s"
    for x in r["results"]:
        for p in x["points"]:  # readers refuse a GB/s that is not the bytes over the time
            p["gbps"] = p["bytes"] / p[stat] / 1e9
        if not x["points"] or x["fit"] is None:
            continue
        pts = [{"length": p["length"], "seconds": p[stat]} for p in x["points"]]
        out = subprocess.run(["$BIN", "fit", "-", "--fit-from", str(x["fit"]["fit_from"]),
                              "--json", "-"], input=json.dumps(pts), capture_output=True,
                             text=True, check=True).stdout
        x["fit"] = json.loads(out)
    return r
def affine(x, fixed, marginal):  # a path's times made exactly fixed + marginal * L
    for q in x["points"]:
        t = fixed + marginal * q["length"]
        q["min_s"], q["median_s"] = t, 1.02 * t
        q["mean_s"], q["max_s"], q["stddev_s"] = 1.03 * t, 1.5 * t, 0.01 * t
def power_law(x, p):  # a path's times made an exact power law of exponent p through its first
    first = x["points"][0]
    for q in x["points"]:
        scale = (q["length"] / first["length"]) ** p * first["min_s"] / q["min_s"]
        for key in ("min_s", "median_s", "mean_s", "max_s", "stddev_s"):
            q[key] *= scale
EOF

# The report the readers' sections read: the tiny sweep of `run`, fitted over every length
# (--fit-from 0), so the report variants share three lengths.
make_report() {
  expect_ok "a tiny CPU run for the report read here" "$BIN" run --backend cpu "${TINY[@]}" \
    --fit-from 0 --json out.json --csv out.csv
}

# The tiny sweeps here run beside other tests and are often contended; the gate refuses to
# judge a contended report (exit 4), tested in check's section. For the rules themselves,
# out.json's verdict is set clean and its times made exact lines (2 us fixed; 1 ns per token
# gathered, 0.5 ns fused), and contended.json is the same report marked contended: at
# L = 16..64 the measured times are mostly fixed cost and their slope can come out negative on a
# busy machine, which would leave the cost rules nothing to judge.
exact_times() {
"$PY" - out.json <<'EOF'
import json, sys
from variants import refit, affine
r = json.load(open(sys.argv[1]))
affine(r["results"][0], 2e-6, 1e-9)
affine(r["results"][1], 2e-6, 0.5e-9)
r = refit(r)
r["quality"]["verdict"], r["quality"]["reasons"] = "clean", []
json.dump(r, open(sys.argv[1], "w"))
r["quality"]["verdict"], r["quality"]["reasons"] = "contended", ["a test's neighbours"]
json.dump(r, open("contended.json", "w"))
EOF
}

# Variants of out.json for compare and export: another machine, a failed path, nothing timed,
# other lengths.
make_variants() {
"$PY" - out.json <<'EOF'
import json, sys
from variants import refit
r = json.load(open(sys.argv[1]))
def variant(name, change):
    v = json.loads(json.dumps(r))
    change(v)
    json.dump(refit(v), open(name, "w"))
def slower(v):  # another machine: every time doubled at L=64, every exponent 0.1 higher
    v["machine"]["hostname"] = "otherhost"
    for x in v["results"]:
        for p in x["points"]:
            scale = 2 * (p["length"] / 64) ** 0.1
            for key in ("min_s", "median_s", "mean_s", "max_s", "stddev_s"):
                p[key] *= scale
def gather_failed(v):
    v["results"][0].update(status="failed", reason="out of memory", points=[], fit=None)
def nothing_timed(v):
    for x in v["results"]:
        x.update(status="unavailable", reason="no CUDA device", points=[], fit=None)
def other_lengths(v):  # the same paths timed at lengths out.json never ran
    for x in v["results"]:
        for p in x["points"]:
            p["length"] *= 1000
variant("other.json", slower)
variant("gather_failed.json", gather_failed)
variant("nothing_timed.json", nothing_timed)
variant("other_lengths.json", other_lengths)
EOF
}

# --- version and help -----------------------------------------------------------------------------

section_help() {
run "$BIN" --version
if [ "$rc" -eq 0 ] && grep -q '^readbench [0-9]' "$WORK/out"; then pass "--version"; else
  fail "--version" "exit $rc: $(head -c 200 "$WORK/out")"; fi

for sub in run fit check verify compare export fleet plot; do
  run "$BIN" "$sub" --version
  if [ "$rc" -eq 0 ] && grep -q '^readbench [0-9]' "$WORK/out"; then pass "$sub --version"; else
    fail "$sub --version" "exit $rc: $(head -c 200 "$WORK/out") $(first_err)"; fi
done

expect_ok "--help" "$BIN" --help
subcommands=$("$BIN" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
for sub in run fit check verify compare export fleet plot; do
  echo "$subcommands" | grep -qx "$sub" || fail "--help lists $sub" "not in: $subcommands"
done
for sub in $subcommands; do
  run "$BIN" "$sub" --help
  if [ "$rc" -eq 0 ] && grep -q "$sub" "$WORK/out"; then pass "$sub --help"; else
    fail "$sub --help" "exit $rc"; fi
done
expect_usage_error "no subcommand" "$BIN"
expect_usage_error "unknown subcommand" "$BIN" frobnicate
grep -qx "readbench: unknown command 'frobnicate' (expected one of run, fit, check, plot, verify, compare, export, fleet, ab, ab-worker)" "$WORK/err" \
  && pass "an unknown subcommand is named, with the commands there are" \
  || fail "an unknown subcommand is named, with the commands there are" "$(first_err)"
expect_usage_error "unknown option" "$BIN" run --frobnicate
# A control character in what an error names is escaped: the error stays one line.
expect_usage_error "a file name holding a newline is named on one line" "$BIN" fit "$WORK/no"$'\n'"such.csv"
grep -qF "no\nsuch.csv" "$WORK/err" && pass "the newline in the name is written as \\n" \
  || fail "the newline in the name is written as \\n" "$(first_err)"
}

# --- fit ------------------------------------------------------------------------------------------

section_fit() {
expect_ok "fit CSV file" "$BIN" fit good.csv
grep -q 'regime: linear' "$WORK/out" && pass "fit CSV reads linear" ||
  fail "fit CSV reads linear" "$(head -c 200 "$WORK/out")"
expect_ok "fit JSON array file" "$BIN" fit good.json
grep -q 'regime: sublinear' "$WORK/out" && pass "fit JSON array reads sublinear" ||
  fail "fit JSON array reads sublinear" "$(head -c 200 "$WORK/out")"
printf '\xef\xbb\xbflength,seconds\n16,1e-6\n64,4e-6\n' >bom.csv
expect_ok "fit CSV with a UTF-8 byte-order mark" "$BIN" fit bom.csv
IN=good.csv expect_ok "fit from stdin (no file argument)" "$BIN" fit
IN=good.json expect_ok "fit from stdin (-)" "$BIN" fit -

expect_ok "fit --json -" "$BIN" fit --json - good.csv
cp "$WORK/out" fit.json
expect_json "fit --json - writes only JSON, exponent 1" fit.json \
  'abs(r["exponent"] - 1) < 1e-9 and r["regime"] == "linear" and r["n_points"] == 4'
expect_valid_fit "fit --json matches the schema's fit object" fit.json

expect_ok "fit --fit-from" "$BIN" fit --fit-from 64 --json fit_from.json good.csv
expect_json "fit --fit-from drops shorter lengths" fit_from.json \
  'r["n_points"] == 3 and r["fit_from"] == 64 and r["segments"][0]["from_length"] == 64'
printf 'length,seconds\n16,1e-6\n64,4e-6\n' >two.csv
expect_ok "fit of two points" "$BIN" fit --json two.json two.csv
expect_json "fit of two points has a null CI with a reason" two.json \
  'r["ci95"] is None and r["stderr"] is None and len(r["ci95_reason"]) > 0'

: >empty.csv
printf '16,1e-6\n64,4e-6\n' >noheader.csv
printf 'length,seconds\n16,1e-6\n64,fast\n' >nonnumeric.csv
printf 'length,seconds\n16,1e-6\n64,-4e-6\n' >negative.csv
printf 'length,seconds\n-16,1e-6\n64,4e-6\n' >negative_length.csv
printf 'length,seconds\n16,1e-6\n64,nan\n' >nan.csv
printf 'length,seconds\n16,1e-6\n' >one.csv
printf 'length,seconds\n16,1e-6\n16,2e-6\n' >one_length.csv
printf '[{"length": 16, "seconds": "1e-6"}]\n' >string.json
printf '[{"length": 16, "seconds": 1e-6},\n' >truncated.json
expect_usage_error "fit empty file" "$BIN" fit empty.csv
expect_usage_error "fit missing header" "$BIN" fit noheader.csv
expect_usage_error "fit non-numeric cell" "$BIN" fit nonnumeric.csv
expect_usage_error "fit negative time" "$BIN" fit negative.csv
expect_usage_error "fit negative length" "$BIN" fit negative_length.csv
expect_usage_error "fit NaN time" "$BIN" fit nan.csv
expect_usage_error "fit one point" "$BIN" fit one.csv
expect_usage_error "fit one distinct length" "$BIN" fit one_length.csv
expect_usage_error "fit JSON string number" "$BIN" fit string.json
expect_usage_error "fit malformed JSON" "$BIN" fit truncated.json
expect_usage_error "fit missing file" "$BIN" fit does-not-exist.csv
printf 'backend,path,length,seconds\ncpu,gather,16,1e-6\ncpu,gather,64,4e-6\ncpu,fused,16,1e-6\n' >grouped_one.csv
expect_usage_error "fit of several series, one with a single point" "$BIN" fit grouped_one.csv
grep -q "grouped_one.csv: cpu/fused: the fit needs at least 2 points" "$WORK/err" &&
  pass "fit names the series that cannot be fitted" ||
  fail "fit names the series that cannot be fitted" "$(first_err)"
mkdir -p a_directory
expect_usage_error "fit a directory" "$BIN" fit a_directory
grep -q "a_directory" "$WORK/err" && pass "fit a directory names it" ||
  fail "fit a directory names it" "$(first_err)"
IN=empty.csv expect_usage_error "fit empty stdin" "$BIN" fit
expect_usage_error "fit --fit-from leaving one point" "$BIN" fit --fit-from 1000 good.csv
expect_usage_error "fit --json into a missing directory" "$BIN" fit --json /nonexistent/fit.json good.csv
}

# --- reports of earlier schema versions, read by fit and check ------------------------------------

section_old_reports() {
# A version 3 report (written before plugins and sampling rounds) is still read; version 2 is
# refused, naming the versions this build reads.
V3="$HERE/fixtures/report-v3-h200-fp8.json"
expect_ok "fit reads a version 3 report" "$BIN" fit --json v3fit.json "$V3"
expect_json "a version 3 report's fits carry fixed and marginal costs" v3fit.json \
  'all(x["fit"]["marginal_s"] > 0 and "fixed_s" in x["fit"] for x in r)'
expect_ok "check reads version 3 reports" "$BIN" check "$V3" --baseline "$V3" --allow not-reached
# A version 5 report was judged by the share alone: its gather, whose cost per token rises 1.7x
# over its fitted lengths as the copy outgrows the cache, is read back as "reached"; fitted
# again now, the same points are not at their asymptote.
V5="$HERE/fixtures/report-v5-cpu.json"
expect_ok "check reads a version 5 report judged by the share alone" "$BIN" check "$V5" --baseline "$V5" --allow not-reached
expect_ok "fit refits a version 5 report by the settling rule" "$BIN" fit --json v5fit.json "$V5"
expect_json "the refit gather is not at its asymptote, the cost per token rising" v5fit.json \
  'any(x["path"] == "gather" and not x["fit"]["asymptote_reached"] and x["fit"]["cost_rise"] > 1.25 for x in r)'
V2="$HERE/fixtures/report-v2-cpu.json"
expect_usage_error "a version 2 report is refused" "$BIN" fit "$V2"
grep -q 'schema_version 2 is not one this readbench reads (3 to 7)' "$WORK/err" &&
  pass "the refusal names the version and those read" ||
  fail "the refusal names the version and those read" "$(head -c 300 "$WORK/err")"
}

# --- run: option validation (fails before any measuring), real sweeps, failed runs ----------------

section_run() {
expect_usage_error "run --batch 0" "$BIN" run --batch 0
expect_usage_error "run --batch -1" "$BIN" run --batch -1
expect_usage_error "run --head-dim 0" "$BIN" run --head-dim 0
expect_usage_error "run --block-size -16" "$BIN" run --block-size -16
expect_usage_error "run --kv-heads 0" "$BIN" run --kv-heads 0
expect_usage_error "run Hq not a multiple of Hkv" "$BIN" run --q-heads 6 --kv-heads 4
expect_usage_error "run empty --lengths" "$BIN" run --lengths ''
expect_usage_error "run unsorted --lengths" "$BIN" run --lengths 64,16
expect_usage_error "run duplicate --lengths" "$BIN" run --lengths 16,16
expect_usage_error "run zero length" "$BIN" run --lengths 0,16
expect_usage_error "run non-numeric --lengths" "$BIN" run --lengths 16,abc
expect_usage_error "run bad range factor" "$BIN" run --lengths 16:64:x1
expect_usage_error "run bad --dtype" "$BIN" run --dtype fp8
expect_usage_error "run bad --backend" "$BIN" run --backend tpu
expect_usage_error "run bad --path" "$BIN" run --path scatter
expect_usage_error "run bad --cache" "$BIN" run --cache warm
expect_usage_error "run zero --budget" "$BIN" run --budget 0
expect_usage_error "run zero --noise" "$BIN" run --noise 0
expect_usage_error "run --json and --csv both on stdout" "$BIN" run --json - --csv -
expect_usage_error "run --seed -1" "$BIN" run --seed -1
# Rejected before any sweep: a sweep at the default lengths would take seconds.
expect_usage_error "run --fit-from -1" "$BIN" run --backend cpu --fit-from -1
grep -q -- '--fit-from' "$WORK/err" && pass "run --fit-from -1 names --fit-from" ||
  fail "run --fit-from -1 names --fit-from" "$(first_err)"
# 100000 sequences of 100000 tokens need about 4e13 bytes: refused, naming the bytes.
expect_usage_error "run a workload larger than memory" \
  "$BIN" run --backend cpu -b 100000 --lengths 100000
grep -q 'bytes' "$WORK/err" && pass "run a workload larger than memory names its bytes" ||
  fail "run a workload larger than memory names its bytes" "$(first_err)"
expect_usage_error "run a workload larger than memory under auto" \
  "$BIN" run -b 100000 --lengths 100000

# Under an address-space limit the ceiling's buffer cannot be had: auto records the CPU backend
# failed, writes the report, and exits 2 because nothing was measured. (A sanitizer's runtime
# reserves terabytes of address space and cannot start under such a limit: skipped there.)
if nm -D "$BIN" 2>/dev/null | grep -q __asan_init; then
  skip "run under auto with no memory for any backend" "a sanitizer build"
else
  run bash -c 'ulimit -v 800000; exec "$@"' _ "$BIN" run --backend auto -L 16,64 --budget 0.05 \
    --json nomem.json
  # The ceiling's buffer is 4x the last-level cache, at least 256 MiB: on a machine with a
  # small cache it fits under the limit, the run measures, and there is nothing to test.
  if [ "$rc" -eq 0 ]; then
    skip "run under auto with no memory for any backend" "the ceiling's buffer fits in 800000 KiB here"
  elif [ "$rc" -eq 2 ] && grep -q '^readbench: nothing was measured: every backend failed' "$WORK/err" &&
    "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["results"][0]["status"] == "failed" and "bytes" in r["results"][0]["reason"] else 1)' nomem.json; then
    pass "run under auto with no memory for any backend: report written, exit 2"
  else
    fail "run under auto with no memory for any backend: report written, exit 2" "exit $rc: $(first_err)"
  fi
fi

# A sweep budget spent on the ceilings and checks before the first length: nothing timed.
run "$BIN" run --backend cpu --sweep-budget 0.001 --json nobudget.json
[ "$rc" -eq 2 ] &&
  grep -q '^readbench: nothing was measured: every grid stopped at a bound before its first length' "$WORK/err" &&
  "$PY" -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if all(x["grid"]["stop"] == "sweep_budget" and not x["points"] and "was not started" in x["grid"]["reason"] and "about 0 s" not in x["grid"]["reason"] for x in r["results"]) else 1)' nobudget.json &&
  pass "run whose sweep budget ends before any length: report written, exit 2" ||
  fail "run whose sweep budget ends before any length: report written, exit 2" "exit $rc: $(first_err)"

if [ "$HAVE_GPU" -eq 0 ]; then
  expect_usage_error "run --backend cuda without a GPU" "$BIN" run --backend cuda "${TINY[@]}"
  expect_usage_error "verify --backend cuda without a GPU" "$BIN" verify --backend cuda
else
  skip "run --backend cuda without a GPU" "a GPU is present"
  skip "verify --backend cuda without a GPU" "a GPU is present"
fi

# Fitted over every length (--fit-from 0), so report variants below share three lengths.
expect_ok "run cpu bf16 cold" "$BIN" run --backend cpu "${TINY[@]}" --fit-from 0 --json out.json --csv out.csv
grep -q 'exponent p' "$WORK/out" && pass "run prints the fit table" ||
  fail "run prints the fit table" "$(head -c 200 "$WORK/out")"
expect_valid_report "run JSON validates against the schema" out.json
expect_json "run JSON has both paths with three points each" out.json \
  '[(x["backend"], x["path"], x["status"], len(x["points"])) for x in r["results"]] == [("cpu", "gather", "ok", 3), ("cpu", "fused", "ok", 3)]'
expect_json "run JSON records the config asked for" out.json \
  'r["config"]["lengths"] == [16, 32, 64] and r["config"]["dtype"] == "bf16" and r["config"]["cache"] == "cold"'
expect_json "run JSON numbers are numbers" out.json \
  'all(isinstance(p[k], (int, float)) and not isinstance(p[k], bool) for x in r["results"] for p in x["points"] for k in ("min_s", "median_s", "gbps", "ceiling_fraction"))'
csv_rows_are "run CSV has one row per point" out.csv 6
expect_ok "fit reads the run's own CSV" "$BIN" fit --fit-from 0 --json csvfit.json out.csv
expect_ok "fit of the run's JSON, to compare" "$BIN" fit --fit-from 0 --json jsonfit.json out.json
# The CSV's nine digits move a nearly flat series' marginal cost by more than its JSON's
# seventeen would, so the exponent and the fixed cost are compared.
expect_json "the run CSV gives each path the fit its JSON gives" csvfit.json \
  '[(x["backend"], x["path"]) for x in r] == [("cpu", "gather"), ("cpu", "fused")] and all(abs(a["fit"]["exponent"] - b["fit"]["exponent"]) < 1e-6 and abs(a["fit"]["fixed_s"] - b["fit"]["fixed_s"]) < 1e-6 * abs(b["fit"]["fixed_s"]) + 1e-12 for a, b in zip(r, json.load(open("jsonfit.json"))))'
leftovers=$(ls -A | grep '^\.' || true)
[ -z "$leftovers" ] && pass "run leaves no temporary files" ||
  fail "run leaves no temporary files" "$leftovers"

# The auto grid, stopped by --max-length: the report says which bound stopped it. One thread
# and a budget long enough for clean samples to replace disturbed ones: a point that still had
# to keep disturbed samples (a machine busy beyond that) stops the grid at its own length, by
# design, and then the bound cannot be seen.
expect_ok "run with the auto grid" "$BIN" run --backend cpu --path fused --max-length 64 \
  --budget 0.3 --min-samples 3 --threads 1 --json auto.json
expect_valid_report "an auto-grid report validates against the schema" auto.json
# A round whose every sample was disturbed does not count (sampler.cpp): on a machine that busy
# a point has fewer rounds, and the rounds cannot be checked either.
if "$PY" -c 'import json,sys; sys.exit(json.load(open("auto.json"))["results"][0]["grid"]["stop"] != "contended")'; then
  skip "an auto grid stopped by --max-length says so" "this machine was too busy: a point kept disturbed samples"
elif "$PY" -c 'import json,sys; p=json.load(open("auto.json"))["results"][0]["points"]; sys.exit(not any(x["rounds"] < 3 and x["disturbed"] > 0 for x in p))'; then
  skip "an auto grid stopped by --max-length says so" "this machine was too busy: a round's samples were all disturbed"
else
  expect_json "an auto grid stopped by --max-length says so" auto.json \
    'r["config"]["lengths"] == "auto" and r["config"]["fit_from"] == "auto" and r["config"]["rounds"] == "auto" and [p["length"] for p in r["results"][0]["points"]] == [16, 64] and all(p["rounds"] == 3 for p in r["results"][0]["points"]) and r["results"][0]["grid"]["stop"] == "max_length" and "--max-length 64" in r["results"][0]["grid"]["reason"] and r["results"][0]["fit"]["asymptote_reached"] is False'
  grep -q 'the grid stopped at its max_length bound' "$WORK/out" &&
    pass "the table names the bound that stopped the grid" ||
    fail "the table names the bound that stopped the grid" "$(head -c 300 "$WORK/out")"
  grep -q '^cpu: read ceiling .*, points sampled in 3 rounds$' "$WORK/out" &&
    pass "the table says how many rounds the points were sampled in" ||
    fail "the table says how many rounds the points were sampled in" "$(head -c 300 "$WORK/out")"
fi

expect_ok "fit re-fits a report" "$BIN" fit --json refit.json out.json
expect_json "fit of a report gives one fit per result" refit.json \
  '[(x["backend"], x["path"]) for x in r] == [("cpu", "gather"), ("cpu", "fused")]'
expect_valid_fit "fit of a report matches the schema's fit object" refit.json

# The schema rejects what it should.
# --- the schema rejects what it should ----------------------------------------------------------

"$PY" - out.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
bad = json.loads(json.dumps(r)); del bad["tool"]; json.dump(bad, open("no_tool.json", "w"))
bad = json.loads(json.dumps(r)); del bad["results"][0]["points"][0]["min_s"]
json.dump(bad, open("no_min_s.json", "w"))
bad = json.loads(json.dumps(r)); bad["results"][1]["fit"]["exponent"] = "1.0"
json.dump(bad, open("string_exponent.json", "w"))
bad = json.loads(json.dumps(r)); bad["results"][1]["fit"]["regime"] = "fast"
json.dump(bad, open("bad_regime.json", "w"))
EOF
for f in no_tool no_min_s string_exponent bad_regime; do
  "$PY" "$VALIDATE" "$f.json" "$SCHEMA" >/dev/null 2>"$WORK/err"
  vrc=$?
  if [ "$vrc" -eq 1 ] && [ "$(lines_of "$WORK/err")" -eq 1 ]; then
    pass "schema rejects $f"
  else
    fail "schema rejects $f" "validator exit $vrc: $(first_err)"
  fi
done

# Failed runs write nothing.
# --- failed runs write nothing ---------------------------------------------------------------

expect_usage_error "run into a missing directory fails early" \
  "$BIN" run --backend cpu "${TINY[@]}" --json /nonexistent/x.json
[ ! -e /nonexistent/x.json ] && pass "a failed run leaves no report" ||
  fail "a failed run leaves no report" "/nonexistent/x.json exists"

cp out.json keep.json
before=$(sha keep.json)
expect_usage_error "run with a bad --csv path fails" \
  "$BIN" run --backend cpu "${TINY[@]}" --json keep.json --csv /nonexistent/x.csv
[ "$(sha keep.json)" = "$before" ] && pass "a run failing early does not touch the old report" ||
  fail "a run failing early does not touch the old report" "keep.json changed"

# A run that fails while writing: a 1 KiB file-size limit makes the report's write fail after
# the sweep (SIGXFSZ ignored so write() returns EFBIG instead of killing the process).
run bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@" >/dev/null' _ \
  "$BIN" run --backend cpu --path fused --lengths 16,32 --budget 0.05 --min-samples 3 --json keep.json
# Exit 3: the run measured, its report could not be written.
if [ "$rc" -eq 3 ] && [ "$(lines_of "$WORK/err")" -eq 1 ]; then
  pass "a run failing while writing exits 3 with one line"
else
  fail "a run failing while writing exits 3 with one line" "exit $rc: $(first_err)"
fi
[ "$(sha keep.json)" = "$before" ] && pass "a run failing while writing does not clobber the old report" ||
  fail "a run failing while writing does not clobber the old report" "keep.json changed"
leftovers=$(ls -A | grep '^\.keep\.json\.' || true)
[ -z "$leftovers" ] && pass "a run failing while writing leaves no temporary file" ||
  fail "a run failing while writing leaves no temporary file" "$leftovers"
}

# --- run: cache, dtypes, devices and backends -----------------------------------------------------

section_run_options() {
make_report
expect_ok "run cpu --cache hot" "$BIN" run --backend cpu --path fused "${TINY[@]}" --cache hot --json hot.json --csv -
cp "$WORK/out" hot.csv
csv_rows_are "run --csv - writes only the CSV to stdout" hot.csv 3
expect_valid_report "run --cache hot JSON validates" hot.json
expect_json "run --cache hot is recorded" hot.json \
  'r["config"]["cache"] == "hot" and [x["path"] for x in r["results"]] == ["fused"]'

expect_ok "run cpu --dtype f32" "$BIN" run --backend cpu "${TINY[@]}" --dtype f32 --json - --csv f32.csv
cp "$WORK/out" f32.json
expect_valid_report "run --dtype f32 JSON on stdout validates" f32.json
expect_json "run --dtype f32 is checked at the f32 tolerance" f32.json \
  'r["config"]["dtype"] == "f32" and all(c["tolerance"] == 1e-5 and c["passed"] for x in r["results"] for c in x["checks"])'
csv_rows_are "run --dtype f32 CSV has one row per point" f32.csv 6

# K/V in fp8_e4m3 under bf16 queries: half the K/V bytes, the type and scale in the report.
expect_ok "run --kv-dtype fp8_e4m3" "$BIN" run --backend cpu "${TINY[@]}" --kv-dtype fp8_e4m3 --json fp8.json --csv fp8.csv
expect_valid_report "a run with fp8_e4m3 K/V validates" fp8.json
expect_json "the fp8 run records its K/V type and scale and checks at q's tolerance" fp8.json \
  'r["config"]["dtype"] == "bf16" and r["config"]["kv_dtype"] == "fp8_e4m3" and abs(r["config"]["kv_scale"] - 1/448) < 1e-9 and r["config"]["kv_scale_granularity"] == "per-tensor" and all(c["kv_dtype"] == "fp8_e4m3" and c["tolerance"] == 1e-2 and c["passed"] for x in r["results"] for c in x["checks"])'
expect_json "fp8 K/V read half the K/V bytes of bf16" fp8.json \
  'all(p["kv_bytes"] == 2 * 8 * 128 * p["length"] for x in r["results"] for p in x["points"])'
grep -q 'bf16 q, fp8_e4m3 K/V' "$WORK/out" && pass "the table names both dtypes" ||
  fail "the table names both dtypes" "$(head -c 300 "$WORK/out")"
"$PY" -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); sys.exit(0 if rows and all(x["kv_dtype"]=="fp8_e4m3" and x["dtype"]=="bf16" for x in rows) else 1)' fp8.csv &&
  pass "the CSV has a kv_dtype column" || fail "the CSV has a kv_dtype column" "$(head -2 fp8.csv)"
expect_usage_error "check refuses fp8 K/V against bf16 K/V" "$BIN" check fp8.json --baseline out.json --allow contended
grep -q 'fp8_e4m3' "$WORK/err" && pass "the refusal names the K/V type" ||
  fail "the refusal names the K/V type" "$(head -c 300 "$WORK/err")"
expect_usage_error "run --dtype fp8_e4m3" "$BIN" run --backend cpu --dtype fp8_e4m3
expect_usage_error "run --kv-dtype f32 under bf16 q" "$BIN" run --backend cpu --kv-dtype f32
expect_usage_error "run --kv-dtype int4" "$BIN" run --backend cpu --kv-dtype int4

# Several CUDA devices: each a backend cuda:N of its own; bad lists are refused.
expect_usage_error "run --device 1,0" "$BIN" run --backend cpu --device 1,0
expect_usage_error "run --device 0,0" "$BIN" run --backend cpu --device 0,0
expect_usage_error "run --device gpu0" "$BIN" run --backend cpu --device gpu0
expect_usage_error "run --device -1" "$BIN" run --backend cpu --device -1
if [ "$HAVE_GPU" -eq 0 ]; then
  expect_ok "run --device 0,1 without a GPU" "$BIN" run --backend auto --device 0,1 "${TINY[@]}" --path fused --json devices.json
  expect_valid_report "a run over two devices validates" devices.json
  expect_json "each device is a backend of its own, unavailable here, and no device is called out" devices.json \
    '[b["name"] for b in r["backends"]] == ["cpu", "cuda:0", "cuda:1"] and r["config"]["devices"] == [0, 1] and all(b["status"] == "unavailable" for b in r["backends"][1:]) and r["slow_devices"] == []'
  expect_usage_error "run --backend cuda --device all without a GPU" "$BIN" run --backend cuda --device all
else
  skip "run --device 0,1 without a GPU" "a GPU is present"
fi

expect_ok "run --backend auto" "$BIN" run --backend auto --lengths 16,32 --budget 0.05 --min-samples 3 --json auto.json
expect_valid_report "run --backend auto JSON validates" auto.json
if [ "$HAVE_GPU" -eq 0 ]; then
  expect_json "run --backend auto records cuda as unavailable with a reason" auto.json \
    'any(b["name"] == "cuda" and b["status"] == "unavailable" and b["reason"] for b in r["backends"]) and all(x["status"] == "unavailable" and x["reason"] and x["fit"] is None for x in r["results"] if x["backend"] == "cuda") and sum(x["backend"] == "cuda" for x in r["results"]) == 2'
else
  skip "run --backend auto records cuda as unavailable" "a GPU is present"
fi
}

# --- check: the CI gate against a baseline --------------------------------------------------------

section_check() {
make_report
exact_times
run "$BIN" check contended.json --baseline out.json
[ "$rc" -eq 4 ] && grep -q "^readbench: cannot judge: the current report contended.json is contended (a test's neighbours)" "$WORK/err" &&
  pass "check refuses to judge a contended report: exit 4, one line" ||
  fail "check refuses to judge a contended report: exit 4, one line" "exit $rc: $(first_err)"
expect_ok "check --allow contended judges it" "$BIN" check contended.json --baseline out.json --allow contended,not-reached
grep -q "a contended report judged anyway" "$WORK/out" && pass "check --allow contended says so" ||
  fail "check --allow contended says so" "$(tail -1 "$WORK/out")"

# L = 16..64 of 2 us fixed cost: not at the asymptote, so not a pass without --allow not-reached.
run "$BIN" check out.json --baseline out.json
[ "$rc" -eq 4 ] && grep -q 'NOT REACHED' "$WORK/out" && grep -q '^readbench: cannot judge: the current fit of cpu/gather, cpu/fused is not at its asymptote' "$WORK/err" &&
  pass "check of rows not at their asymptote marks them and exits 4" ||
  fail "check of rows not at their asymptote marks them and exits 4" "exit $rc: $(first_err)"
expect_ok "check a report against itself passes" "$BIN" check out.json --baseline out.json --allow not-reached
grep -q '^| backend/path | lengths compared | baseline p' "$WORK/out" && grep -q '^| cpu/fused | .* | ok (note: NOT REACHED' "$WORK/out" &&
  pass "check prints a markdown table" || fail "check prints a markdown table" "$(head -c 400 "$WORK/out")"
tail -1 "$WORK/out" | grep -q '^readbench check: PASS: 2 backend/paths compared' &&
  pass "check ends with a one-line summary" || fail "check ends with a one-line summary" "$(tail -1 "$WORK/out")"

# The fused times made an exact power law 0.5 above the baseline's exponent: a zero-width CI
# wholly above it plus the default tolerance of 0.1. Gather keeps its points.
"$PY" - out.json <<'EOF2'
import json, sys
from variants import refit, power_law
r = json.load(open(sys.argv[1]))
power_law(r["results"][1], r["results"][1]["fit"]["exponent"] + 0.5)
json.dump(refit(r), open("slower.json", "w"))
EOF2
run "$BIN" check slower.json --baseline out.json --json verdict.json
if [ "$rc" -eq 1 ] && grep -q 'cpu/fused .*REGRESSION' "$WORK/out"; then
  pass "check of a raised exponent exits 1 and says REGRESSION"
else
  fail "check of a raised exponent exits 1 and says REGRESSION" "exit $rc: $(head -c 400 "$WORK/out") $(first_err)"
fi
expect_json "check --json FILE writes the failing verdict" verdict.json \
  'r["pass"] is False and r["verdict"] == "fail" and r["regressions"] == 1 and [x["verdict"] for x in r["rows"]] == ["ok", "regression"]'
expect_json "check --json FILE gives the reason" verdict.json \
  '"wholly above" in r["rows"][1]["reasons"][0] and r["rows"][0]["reasons"] == []'

run "$BIN" check out.json --baseline out.json --json - --allow not-reached
cp "$WORK/out" check.json
[ "$rc" -eq 0 ] && pass "check --json - exits 0" || fail "check --json - exits 0" "exit $rc: $(first_err)"
expect_json "check --json - writes only JSON with the verdict" check.json \
  'r["pass"] is True and r["verdict"] == "pass" and r["tolerance"] == 0.1 and r["max_cost_ratio"] is None and all(isinstance(x["delta_exponent"], float) and x["verdict"] == "ok" for x in r["rows"])'
run "$BIN" check slower.json --baseline out.json --json -
cp "$WORK/out" check_fail.json
[ "$rc" -eq 1 ] && pass "check --json - exits 1 on a regression" || fail "check --json - exits 1 on a regression" "exit $rc"
expect_json "check --json - reports the regression" check_fail.json \
  'r["pass"] is False and r["rows"][1]["verdict"] == "regression" and r["rows"][1]["delta_exponent"] > 0.1'

IN=slower.json expect_ok "check reads the report from stdin" "$BIN" check - --baseline slower.json --allow not-reached
run "$BIN" check out.json --baseline out.json --max-cost-ratio 1.5 --allow not-reached
[ "$rc" -eq 0 ] && grep -q 'cost gate 1.5x' "$WORK/out" && pass "check --max-cost-ratio on a report against itself" ||
  fail "check --max-cost-ratio on a report against itself" "exit $rc"
"$PY" - out.json <<'EOF'
import json, sys
from variants import refit
r = json.load(open(sys.argv[1]))
for x in r["results"]:  # every time doubled, the exponents as they were
    for p in x["points"]:
        for key in ("min_s", "median_s", "mean_s", "max_s", "stddev_s"):
            p[key] *= 2
json.dump(refit(r), open("costlier.json", "w"))
EOF
run "$BIN" check costlier.json --baseline out.json --max-cost-ratio 1.5
[ "$rc" -eq 1 ] && grep -q 'marginal cost per token ratio 2.00 > 1.5' "$WORK/out" &&
  pass "check --max-cost-ratio fails a report twice as slow per token" ||
  fail "check --max-cost-ratio fails a report twice as slow per token" "exit $rc: $(head -c 400 "$WORK/out")"
expect_ok "check without the cost gate passes the same report" "$BIN" check costlier.json --baseline out.json --allow not-reached

"$PY" - out.json <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
r["results"] = [x for x in r["results"] if x["backend"] != "cpu"]
json.dump(r, open("no_cpu.json", "w"))
EOF2
# The baseline's cpu rows missing from the report: regressions, unless --allow-missing, which
# leaves nothing to compare.
run "$BIN" check no_cpu.json --baseline out.json
[ "$rc" -eq 1 ] && grep -q 'missing from the current report' "$WORK/out" &&
  pass "check with the baseline's rows missing fails" ||
  fail "check with the baseline's rows missing fails" "exit $rc: $(first_err)"
expect_usage_error "check with nothing comparable" "$BIN" check no_cpu.json --baseline out.json \
  --allow-missing
grep -q 'nothing to compare' "$WORK/err" && pass "check with nothing comparable says so" ||
  fail "check with nothing comparable says so" "$(first_err)"
expect_usage_error "check a missing baseline" "$BIN" check out.json --baseline does-not-exist.json
expect_usage_error "check a baseline that is not a report" "$BIN" check out.json --baseline good.json
expect_usage_error "check a report that is not JSON" "$BIN" check good.csv --baseline out.json
expect_usage_error "check without --baseline" "$BIN" check out.json
expect_usage_error "check --tolerance -1" "$BIN" check out.json --baseline out.json --tolerance -1
grep -q -- '--tolerance' "$WORK/err" && pass "check --tolerance -1 names --tolerance" ||
  fail "check --tolerance -1 names --tolerance" "$(first_err)"
expect_usage_error "check --tolerance nan" "$BIN" check out.json --baseline out.json --tolerance nan
expect_usage_error "check --tolerance inf" "$BIN" check out.json --baseline out.json --tolerance inf
expect_usage_error "check --max-cost-ratio 0" "$BIN" check out.json --baseline out.json --max-cost-ratio 0
# Options are validated before anything is read: a bad option wins over a missing file.
expect_usage_error "check --tolerance -1 before reading" "$BIN" check nowhere.json --baseline nowhere.json --tolerance -1
grep -q -- '--tolerance' "$WORK/err" && pass "check validates options before reading" ||
  fail "check validates options before reading" "$(first_err)"
expect_usage_error "check --json into a missing directory" "$BIN" check out.json --baseline out.json --json /nonexistent/v.json
IN=out.json expect_usage_error "check with both from stdin" "$BIN" check - --baseline -
}

# --- verify ---------------------------------------------------------------------------------------

section_verify() {
expect_ok "verify --backend cpu --dtypes f32,bf16" "$BIN" verify --backend cpu --dtypes f32,bf16
passes=$(grep -c ' pass$' "$WORK/out")
# Default lengths 1, S, S+1, 1000, two paths, two dtypes each with K/V in its own type and in
# fp8_e4m3: 32 checks.
[ "$passes" -eq 32 ] && ! grep -q FAIL "$WORK/out" && pass "verify reports every check as passed" ||
  fail "verify reports every check as passed" "$passes passes"
[ "$(grep -c ' fp8_e4m3 ' "$WORK/out")" -eq 16 ] && pass "verify checks fp8_e4m3 K/V by default" ||
  fail "verify checks fp8_e4m3 K/V by default" "$(head -c 300 "$WORK/out")"
expect_ok "verify --kv-dtypes same" "$BIN" verify --backend cpu --dtypes bf16 --kv-dtypes same,bf16
[ "$(grep -c ' pass$' "$WORK/out")" -eq 8 ] && pass "verify checks a repeated dtype pair once" ||
  fail "verify checks a repeated dtype pair once" "$(head -c 300 "$WORK/out")"
expect_usage_error "verify bad --dtypes" "$BIN" verify --backend cpu --dtypes f32,fp8
expect_usage_error "verify --dtypes fp8_e4m3" "$BIN" verify --backend cpu --dtypes fp8_e4m3
grep -q -- "--kv-dtype" "$WORK/err" && pass "q in fp8_e4m3 is refused pointing at --kv-dtype" ||
  fail "q in fp8_e4m3 is refused pointing at --kv-dtype" "$(head -c 300 "$WORK/err")"
expect_usage_error "run --kv-dtype '' is refused, not read as the default" \
  "$BIN" run --backend cpu -L 16 --budget 0.01 --min-samples 2 --kv-dtype ''
grep -qx "readbench: --kv-dtype: an empty value names no dtype (see --help)" "$WORK/err" \
  && pass "run --kv-dtype '' names the option" || fail "run --kv-dtype '' names the option" "$(first_err)"
expect_usage_error "verify --kv-dtypes with an unknown type" "$BIN" verify --backend cpu --kv-dtypes fp8
grep -qx "readbench: unknown dtype 'fp8' (expected f32, f16, bf16, fp8_e4m3 or same)" "$WORK/err" \
  && pass "verify --kv-dtypes names every word it takes" \
  || fail "verify --kv-dtypes names every word it takes" "$(first_err)"
expect_usage_error "verify --kv-dtypes f16 with bf16 q" \
  "$BIN" verify --backend cpu --dtypes bf16 --kv-dtypes f16
# S = 1 makes the default lengths 1 and S the same: checked once, still passing.
expect_ok "verify --block-size 1" "$BIN" verify --backend cpu --block-size 1 --dtypes bf16
! grep -q FAIL "$WORK/out" && [ "$(grep -c ' pass$' "$WORK/out")" -eq 12 ] &&
  pass "verify --block-size 1 checks lengths 1, 2 and 1000" ||
  fail "verify --block-size 1 checks lengths 1, 2 and 1000" "$(head -c 300 "$WORK/out")"
}

# --- compare (reports read back) ------------------------------------------------------------------

section_compare() {
make_report
exact_times
make_variants

expect_ok "compare two reports" "$BIN" compare out.json other.json
grep -Eq '^\| backend\/path \| measure \| out.json \(.*, [0-9]+ threads?, .*\)( \(contended\))? \| other.json \(otherhost, [0-9]+ threads?, .*\)( \(contended\))? \|$' "$WORK/out" &&
  pass "compare names the reports by file, machine, threads and CPU" ||
  fail "compare names the reports by file, machine, threads and CPU" "$(head -c 300 "$WORK/out")"
grep -q '^| cpu/fused | ns/token at L=64 | [0-9.]* | [0-9.]* (×2.00) |$' "$WORK/out" &&
  pass "compare shows the cost ratio at the longest common length" ||
  fail "compare shows the cost ratio at the longest common length" "$(cat "$WORK/out")"
grep -q '^| cpu/gather | exponent p .* | .* (+0.10)' "$WORK/out" &&
  pass "compare shows the exponent difference" ||
  fail "compare shows the exponent difference" "$(cat "$WORK/out")"

expect_ok "compare --format json -o" "$BIN" compare --format json -o compare.json out.json other.json
expect_json "compare JSON has both rows with ratios to the first report" compare.json \
  '[x["source"] for x in r["reports"]] == ["out.json", "other.json"] and [(x["backend"], x["path"], x["length"]) for x in r["rows"]] == [("cpu", "gather", 64), ("cpu", "fused", 64)] and all(x["entries"][0]["cost_ratio"] == 1 and abs(x["entries"][1]["cost_ratio"] - 2) < 1e-9 and abs(x["entries"][1]["exponent_diff"] - 0.1) < 1e-9 for x in r["rows"])'

expect_ok "compare --format csv" "$BIN" compare --format csv out.json other.json
cp "$WORK/out" compare.csv
if why=$("$PY" - compare.csv <<'EOF' 2>&1
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = [("cpu", "gather", "out.json"), ("cpu", "gather", "other.json"),
        ("cpu", "fused", "out.json"), ("cpu", "fused", "other.json")]
assert [(x["backend"], x["path"], x["report"]) for x in rows] == want, rows
assert [float(x["cost_ratio"]) for x in rows] == [1, 2, 1, 2], rows
EOF
); then pass "compare CSV has a row per backend/path and report"; else
  fail "compare CSV has a row per backend/path and report" "$(echo "$why" | tail -1)"; fi

expect_ok "compare with a failed path" "$BIN" compare out.json gather_failed.json
grep -q '^| cpu/gather | ns/token at L=64 | [0-9.]* | failed: out of memory |$' "$WORK/out" &&
  pass "compare shows a failed path's reason instead of numbers" ||
  fail "compare shows a failed path's reason instead of numbers" "$(cat "$WORK/out")"

expect_usage_error "compare one report" "$BIN" compare out.json -o compare_failed.md
[ ! -e compare_failed.md ] && pass "a failed compare writes nothing" ||
  fail "a failed compare writes nothing" "compare_failed.md exists"
expect_usage_error "compare a missing file" "$BIN" compare out.json does-not-exist.json
expect_usage_error "compare a non-report" "$BIN" compare out.json good.json
expect_usage_error "compare with nothing timed in common" "$BIN" compare out.json nothing_timed.json
expect_ok "compare without a common length" "$BIN" compare out.json other_lengths.json
grep -q '^| cpu/gather | ns/token (no length timed in common) | - | - |$' "$WORK/out" &&
  grep -q '^| cpu/gather | exponent p .* | .* ([+-]0.00)' "$WORK/out" &&
  pass "compare without a common length shows exponents and no cost" ||
  fail "compare without a common length shows exponents and no cost" "$(head -c 400 "$WORK/out")"
expect_usage_error "compare stdin twice" "$BIN" compare - -
grep -q 'named more than once' "$WORK/err" && pass "compare stdin twice says why" ||
  fail "compare stdin twice says why" "$(first_err)"
expect_usage_error "compare bad --format" "$BIN" compare --format xml out.json other.json
}

# --- export (reports read back) -------------------------------------------------------------------

section_export() {
make_report
exact_times
make_variants

expect_usage_error "export without a report" "$BIN" export --format bmf

expect_ok "export --format bmf" "$BIN" export --format bmf out.json -o bmf.json
# Each name ends with the set-up in brackets: the workload and the CPU's threads.
expect_json "export bmf has a benchmark per fit and per point" bmf.json \
  'all(k.endswith(" threads]") and "[bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache, " in k for k in r) and sorted(k.split(" [")[0] for k in r) == sorted(["cpu/gather", "cpu/fused"] + ["cpu/%s/L=%d" % (p, n) for p in ("gather", "fused") for n in (16, 32, 64)]) and all(set(v) == {"exponent", "marginal_ns_per_token", "fixed_ns", "per_token_ns", "asymptote_reached", "contended"} for k, v in r.items() if "/L=" not in k) and all(set(v) == {"latency", "contended"} and v["latency"]["lower_value"] <= v["latency"]["value"] <= v["latency"]["upper_value"] for k, v in r.items() if "/L=" in k)'
expect_ok "export --format gab" "$BIN" export --format gab out.json
cp "$WORK/out" gab.json
expect_json "export gab is an array of name, unit, value entries" gab.json \
  '[x["name"].split(" [")[0] for x in r if x["unit"] == "ns"] == ["cpu/%s L=%d" % (p, n) for p in ("gather", "fused") for n in (16, 32, 64)] and [x["name"].split(" [")[0] for x in r if x["unit"] != "ns"] == ["cpu/gather marginal cost", "cpu/gather per-token cost", "cpu/gather exponent", "cpu/fused marginal cost", "cpu/fused per-token cost", "cpu/fused exponent"] and all(isinstance(x["value"], (int, float)) and isinstance(x["extra"], str) for x in r)'
expect_ok "export skips a failed path" "$BIN" export --format bmf gather_failed.json -o bmf_failed.json
expect_json "export of a failed path leaves it out" bmf_failed.json \
  'not any(k.startswith("cpu/gather") for k in r) and any(k.startswith("cpu/fused [") for k in r)'

expect_usage_error "export unknown --format" "$BIN" export --format csv out.json
expect_usage_error "export without --format" "$BIN" export out.json
expect_usage_error "export a missing file" "$BIN" export --format bmf does-not-exist.json
expect_usage_error "export a non-report" "$BIN" export --format gab good.json
expect_usage_error "export a report with nothing timed" "$BIN" export --format bmf nothing_timed.json -o export_failed.json
[ ! -e export_failed.json ] && pass "a failed export writes nothing" ||
  fail "a failed export writes nothing" "export_failed.json exists"
}

# --- plot -----------------------------------------------------------------------------------------

section_plot() {
make_report
exact_times

expect_ok "plot a report" "$BIN" plot out.json -o plot.svg
expect_svg "plot draws each series with a marker per point and one fitted line" plot.svg \
  '[s.find(N + "title").text for s in series] == ["cpu/gather", "cpu/fused"] and all(len(of(s, "path", "marker")) == 3 and len(of(s, "line", "fit")) == 1 for s in series)'
expect_svg "plot writes each series' exponent from the report" plot.svg \
  'text("exponent") and [t.split("  p = ")[0] for t in text("exponent")] == ["cpu/gather", "cpu/fused"] and all(t.split("  p = ")[1].startswith("%.2f" % x["fit"]["exponent"]) for x, t in zip(json.load(open("out.json"))["results"], text("exponent")))'
expect_svg "plot labels both axes and names the workload" plot.svg \
  'len(text("xtick")) >= 2 and len(text("ytick")) >= 2 and text("subtitle")[0].startswith("bf16, B=1 Hq=32 Hkv=8 D=128 S=16, cold cache")'
IN=out.json expect_ok "plot from stdin to stdout" "$BIN" plot - -o -
cp "$WORK/out" stdout.svg
expect_svg "plot -o - writes only the SVG to stdout" stdout.svg 'len(series) == 2'

"$PY" - out.json <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
for x in r["results"]:
    x.update(status="failed", reason="a test", points=[], fit=None)
json.dump(r, open("untimed.json", "w"))
EOF
cp plot.svg keep.svg
before=$(sha keep.svg)
expect_usage_error "plot without -o" "$BIN" plot out.json
expect_usage_error "plot a missing file" "$BIN" plot missing.json -o missing.svg
expect_usage_error "plot a file that is not a report" "$BIN" plot good.json -o not_report.svg
expect_usage_error "plot a report with nothing timed" "$BIN" plot untimed.json -o untimed.svg
grep -q 'nothing timed' "$WORK/err" && pass "plot with nothing timed says so" ||
  fail "plot with nothing timed says so" "$(first_err)"
expect_usage_error "plot -o into a missing directory" "$BIN" plot out.json -o /nonexistent/plot.svg
expect_usage_error "plot a bad report over an earlier plot" "$BIN" plot good.json -o keep.svg
left=$(ls missing.svg not_report.svg untimed.svg 2>/dev/null; ls -A | grep '^\.' || true)
[ -z "$left" ] && pass "plot errors leave no file" || fail "plot errors leave no file" "$left"
[ "$(sha keep.svg)" = "$before" ] && pass "a failed plot does not clobber an earlier one" ||
  fail "a failed plot does not clobber an earlier one" "keep.svg changed"

}

case $SECTION in
  help | fit | old-reports | run | run-options | check | verify | compare | export | plot)
    "section_${SECTION//-/_}" ;;
  *)
    echo "$0: unknown section '$SECTION'" >&2
    exit 2 ;;
esac
cli_summary
