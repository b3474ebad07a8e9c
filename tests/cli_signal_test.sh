#!/usr/bin/env bash
# `readbench run` stopped by a signal, end to end with the real binary: exit 128+N, the table
# of what was measured, reports written and marked incomplete (valid against the schema), no
# temporary files left, a second signal exiting at once, and `check` refusing the incomplete
# report (exit 4) unless --allow incomplete. Also prints the time from SIGINT to exit over a few
# tries (tools/signal_latency.sh measures more); asserts only a generous bound on it.
#
# usage: cli_signal_test.sh READBENCH_BINARY SCHEMA
# Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"  # pass, fail, skip, expect_json, expect_valid_report, cli_summary

if [ $# -ne 2 ]; then
  echo "usage: $0 READBENCH_BINARY SCHEMA" >&2
  exit 2
fi
BIN=$(realpath "$1")
SCHEMA=$(realpath "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
VALIDATE="$HERE/../scripts/validate_report.py"
SIGNAL_RUN="$HERE/signal_run.py"
PY=/usr/bin/python3

WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-signal.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2

check_that() {  # NAME WHY-IF-FALSE CONDITION...
  local name=$1 why=$2
  shift 2
  if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}

# Sets rc, elapsed and sigign from signal_run.py's line.
signal_run() {  # DELAY SIGNAL [SECOND GAP] -- CMD...
  local line
  line=$("$PY" "$SIGNAL_RUN" "$@")
  rc=$(sed -n 's/.*rc=\([0-9-]*\).*/\1/p' <<<"$line")
  elapsed=$(sed -n 's/.*elapsed=\([0-9.]*\).*/\1/p' <<<"$line")
  sigign=$(sed -n 's/.*sigign=\([0-9a-f]*\).*/\1/p' <<<"$line")
}
# Bits 1 (SIGHUP), 2 (SIGINT) and 15 (SIGTERM) of the mask, counted from 1.
none_ignored() { [ -n "$sigign" ] && (((0x$sigign & 0x4003) == 0)); }
under() { "$PY" -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$1" "$2"; }
no_temporaries() { [ -z "$(find . -maxdepth 1 -name '.r.*' -print -quit)" ]; }

SWEEP=(run --backend cpu --lengths 16:262144:x4 --budget 0.5 --json r.json --csv r.csv)

# --- the first signal: stop, report, exit 128+N ------------------------------------------------

for sig in INT:130 TERM:143 HUP:129; do
  name=${sig%%:*}
  want=${sig##*:}
  rm -f r.json r.csv
  signal_run 1.5 "$name" -- "$BIN" "${SWEEP[@]}"
  check_that "SIG$name: the command starts with the stop signals at their defaults" \
    "SigIgn $sigign" none_ignored
  check_that "SIG$name: exit $want" "exit $rc" test "$rc" = "$want"
  check_that "SIG$name: exit within 5 s of the signal" "took $elapsed s" under "$elapsed" 5
  check_that "SIG$name: the table is printed, saying it stopped" "$(head -c 300 stdout.txt)" \
    grep -q "^stopped by SIG$name: " stdout.txt
  check_that "SIG$name: the table has its header" "no header" grep -q "^backend path" stdout.txt
  check_that "SIG$name: one line on stderr says so" "$(head -c 300 stderr.txt)" \
    grep -q "^readbench: stopped by SIG$name: " stderr.txt
  expect_valid_report "SIG$name: the JSON report is valid against the schema" r.json
  expect_json "SIG$name: the JSON report is marked incomplete with the signal" r.json \
    "r['complete'] is False and r['signal'] == 'SIG$name'"
  expect_json "SIG$name: each path's grid says interrupted" r.json \
    "all(x['grid']['stop'] == 'interrupted' for x in r['results'])"
  check_that "SIG$name: the CSV report is written" "no r.csv" \
    grep -q '^backend,' r.csv
  check_that "SIG$name: no temporary file is left" "$(ls -A)" no_temporaries
done
cp r.json hup.json

# --- a second signal exits at once ----------------------------------------------------------------

rm -f r.json r.csv
signal_run 1.5 INT INT 0.02 -- "$BIN" "${SWEEP[@]}"
check_that "a second SIGINT right after the first: exit 130" "exit $rc" test "$rc" = 130
check_that "a second SIGINT: exit within 5 s" "took $elapsed s" under "$elapsed" 5
check_that "a second SIGINT: no temporary file is left" "$(ls -A)" no_temporaries

# A FIFO with no reader blocks the report's write; a second signal must not wait for it
# (signal_run.py kills a command still running 60 s after the first signal).
rm -f r.json r.csv
mkfifo pipe
signal_run 1.5 INT INT 1 -- "$BIN" run --backend cpu --lengths 16:262144:x4 \
  --budget 0.5 --json pipe
check_that "a second SIGINT while a FIFO waits for its reader: exit 130" "exit $rc" test "$rc" = 130
check_that "a second SIGINT while a FIFO waits for its reader: exit within 5 s" "took $elapsed s" \
  under "$elapsed" 5
check_that "the FIFO is still a FIFO" "$(ls -l pipe)" test -p pipe
rm -f pipe

# --- check refuses an incomplete report unless allowed ---------------------------------------------

"$BIN" run --backend cpu -L 16,64,256,1024 --fit-from 0 --budget 0.05 --min-samples 3 \
  --json full.json >/dev/null 2>&1
rc=$?
check_that "a run that ends exits 0" "exit $rc" test "$rc" = 0
expect_valid_report "a complete report is valid against the schema" full.json
expect_json "a complete report says complete and names no signal" full.json \
  "r['complete'] is True and 'signal' not in r"
# The gate refuses contended reports too (exit 4), and these tiny runs often are: the reports
# compared here are set clean, so that only completeness decides.
"$PY" - full.json stopped.json hup.json <<'PYEOF'
import json, sys
def clean(r):
    r["quality"]["verdict"], r["quality"]["reasons"] = "clean", []
    return r
r = clean(json.load(open(sys.argv[1])))
json.dump(r, open(sys.argv[1], "w"), indent=2)
r["complete"], r["signal"] = False, "SIGINT"
json.dump(r, open(sys.argv[2], "w"), indent=2)
json.dump(clean(json.load(open(sys.argv[3]))), open(sys.argv[3], "w"), indent=2)
PYEOF

"$BIN" check hup.json --baseline full.json >out.txt 2>err.txt
rc=$?
check_that "check on a report a signal stopped exits 4" "exit $rc: $(head -c 300 err.txt)" \
  test "$rc" = 4
check_that "check names the incomplete report on one line" "$(head -c 300 err.txt)" \
  grep -q "^readbench: cannot judge: the current report hup.json is incomplete" err.txt
"$BIN" check full.json --baseline stopped.json >out.txt 2>err.txt
rc=$?
check_that "check on an incomplete baseline exits 4" "exit $rc" test "$rc" = 4
"$BIN" check stopped.json --baseline full.json --allow incomplete,not-reached --json verdict.json \
  >out.txt 2>err.txt
rc=$?
check_that "check --allow incomplete judges it: exit 0 or 1" "exit $rc: $(head -c 300 err.txt)" \
  test "$rc" = 0 -o "$rc" = 1
check_that "check --allow incomplete says so in the markdown" "$(head -c 300 out.txt)" \
  grep -q "judged anyway" out.txt
expect_json "check --allow incomplete says so in the JSON verdict" verdict.json \
  "r['incomplete_judged'] is True and r['allow'] == ['incomplete', 'not-reached']"
"$BIN" check stopped.json --baseline full.json --allow incomplete,noisy >out.txt 2>err.txt
rc=$?
check_that "check --allow with an unknown word exits 2 naming it" "exit $rc: $(cat err.txt)" \
  grep -q "'noisy'" err.txt
check_that "check --allow with an unknown word: exit 2" "exit $rc" test "$rc" = 2
"$BIN" check stopped.json --baseline full.json --allow contended >/dev/null 2>&1
rc=$?
check_that "check --allow contended alone still refuses an incomplete report" "exit $rc" \
  test "$rc" = 4

# --- the time from SIGINT to exit ------------------------------------------------------------------

times=()
for delay in 0.2 0.5 0.9 1.3 1.7; do
  signal_run "$delay" INT -- "$BIN" "${SWEEP[@]}"
  times+=("$elapsed")
  [ "$rc" = 130 ] || fail "SIGINT after $delay s: exit 130" "exit $rc"
done
echo "time from SIGINT to exit (s): ${times[*]}"

cli_summary
