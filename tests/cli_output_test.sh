#!/usr/bin/env bash
# End-to-end checks of where readbench writes: empty output paths refused, an output naming
# an input or another output refused before any work, a FIFO written in place, stdout
# failures (closed, full device) reported with exit 2, and a run whose report cannot be written
# exiting 3 with its table and other report still out.
#
# Device nodes are made with mknod in a temporary directory (root only, skipped otherwise):
# a test never points at a real file in /dev, where a rename would replace the node.
#
# usage: cli_output_test.sh READBENCH_BINARY
# Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/cli_lib.sh"  # pass, fail, skip, cli_summary

if [ $# -ne 1 ]; then
  echo "usage: $0 READBENCH_BINARY" >&2
  exit 2
fi
BIN=$(realpath "$1")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-cli-output.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2


# Runs a command with stdout in $WORK/out, stderr in $WORK/err and the status in $rc.
run() {
  "$@" <"$WORK/empty" >"$WORK/out" 2>"$WORK/err"
  rc=$?
}
: >"$WORK/empty"
lines_of() { awk 'END { print NR }' "$1"; }
first_err() { head -c 300 "$WORK/err" | tr '\n' ' '; }
sha() { sha256sum "$1" | cut -d' ' -f1; }

# Exit CODE, exactly one line on stderr starting "readbench: " and containing TEXT.
expect_error() {  # NAME CODE TEXT
  local name=$1 code=$2 text=$3 n
  n=$(lines_of "$WORK/err")
  if [ "$rc" -ne "$code" ]; then
    fail "$name" "exit $rc, expected $code: $(first_err)"
  elif [ "$n" -ne 1 ]; then
    fail "$name" "$n lines on stderr, expected 1: $(first_err)"
  elif ! grep -q '^readbench: ' "$WORK/err" || ! grep -qF -- "$text" "$WORK/err"; then
    fail "$name" "stderr lacks 'readbench: ' or '$text': $(first_err)"
  else
    pass "$name"
  fi
}
refused() {  # NAME TEXT CMD...
  local name=$1 text=$2
  shift 2
  run "$@"
  expect_error "$name" 2 "$text"
}

# Three lengths fitted from the first: check compares exponents over at least three shared ones.
TINY=(--backend cpu --path fused --lengths 16,32,64 --fit-from 0 --budget 0.05 --min-samples 3)

# One tiny report, the input of every other command here.
run "$BIN" run "${TINY[@]}" --json r.json
[ "$rc" -eq 0 ] || { echo "FAIL could not make the fixture report: $(first_err)"; exit 1; }
# Set clean: `check` refuses a contended report (exit 4), and this tiny run beside other tests
# often is; what is tested here is where the output goes.
/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); r["quality"].update(verdict="clean", reasons=[]); json.dump(r, open(sys.argv[1], "w"))' r.json
cp r.json b.json
before=$(sha r.json)
unchanged() {  # NAME
  [ "$(sha r.json)" = "$before" ] && pass "$1 leaves r.json unchanged" ||
    fail "$1 leaves r.json unchanged" "r.json changed"
}

# --- empty output paths: an unset variable must not drop the report silently ---------------

refused "run --json ''" "empty" "$BIN" run "${TINY[@]}" --json ''
refused "run --csv ''" "empty" "$BIN" run "${TINY[@]}" --csv ''
refused "fit --json ''" "empty" "$BIN" fit r.json --json ''
refused "check --json ''" "empty" "$BIN" check r.json --baseline b.json --json ''
refused "compare -o ''" "empty" "$BIN" compare r.json b.json -o ''
refused "export -o ''" "empty" "$BIN" export --format bmf r.json -o ''
refused "plot -o ''" "empty" "$BIN" plot r.json -o ''

# --- an output naming an input or another output --------------------------------------------

ln r.json hard.json
refused "plot r.json -o r.json" "the report 'r.json'" "$BIN" plot r.json -o r.json
unchanged "plot r.json -o r.json"
refused "plot r.json -o ./r.json" "-o './r.json'" "$BIN" plot r.json -o ./r.json
refused "plot r.json -o a hard link to it" "-o 'hard.json'" "$BIN" plot r.json -o hard.json
unchanged "plot into a hard link"
refused "fit r.json --json r.json" "the input 'r.json'" "$BIN" fit r.json --json r.json
unchanged "fit r.json --json r.json"
refused "export r.json -o ./r.json" "the report 'r.json'" \
  "$BIN" export --format gab r.json -o ./r.json
unchanged "export r.json -o ./r.json"
refused "compare r.json b.json -o r.json" "report 1 'r.json'" \
  "$BIN" compare r.json b.json -o r.json
refused "compare b.json r.json -o r.json" "report 2 'r.json'" \
  "$BIN" compare b.json r.json -o r.json
unchanged "compare ... -o r.json"
refused "check r.json --json r.json" "the report 'r.json'" \
  "$BIN" check r.json --baseline b.json --json r.json
refused "check --baseline b.json --json b.json" "--baseline 'b.json'" \
  "$BIN" check r.json --baseline b.json --json ./b.json
unchanged "check r.json --json r.json"
# Refused before measuring: the file does not exist yet and is not created.
refused "run --json x --csv ./x" "--json 'x'" "$BIN" run "${TINY[@]}" --json x --csv ./x
[ ! -e x ] && pass "run --json x --csv ./x measures nothing and writes nothing" ||
  fail "run --json x --csv ./x measures nothing and writes nothing" "x exists"
mkfifo twice
refused "run with both reports into one FIFO" "--csv 'twice'" \
  "$BIN" run "${TINY[@]}" --json twice --csv twice

# --- FIFO: written in place, the FIFO stays -------------------------------------------------

mkfifo fifo
# The reader gives up after a minute, so a readbench that never opens the FIFO fails the check
# rather than hanging the script.
timeout 60 cat fifo >from_fifo &
reader=$!
run "$BIN" run "${TINY[@]}" --json fifo
wait "$reader"
if [ "$rc" -eq 0 ] && /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' from_fifo
then pass "run --json into a FIFO reaches its reader"; else fail "run --json into a FIFO" "exit $rc: $(first_err)"; fi
[ -p fifo ] && pass "the FIFO is still a FIFO" || fail "the FIFO is still a FIFO" "replaced"
timeout 60 cat fifo >from_fifo &
reader=$!
run "$BIN" export --format bmf r.json -o fifo
wait "$reader"
"$BIN" export --format bmf r.json >expected
[ "$rc" -eq 0 ] && cmp -s from_fifo expected && pass "export -o FIFO writes the export" ||
  fail "export -o FIFO writes the export" "exit $rc: $(first_err)"

# --- stdout closed: exit 2 and one line, for every command that writes there ----------------

closed() {  # NAME CMD...
  local name=$1
  shift
  "$@" <"$WORK/empty" >&- 2>"$WORK/err"
  rc=$?
  expect_error "$name with stdout closed" 2 "cannot write to stdout"
}
closed "run" "$BIN" run "${TINY[@]}"
closed "run --json -" "$BIN" run "${TINY[@]}" --json -
closed "fit" "$BIN" fit r.json
closed "check" "$BIN" check r.json --baseline b.json
closed "plot -o -" "$BIN" plot r.json -o -
closed "compare" "$BIN" compare r.json b.json
closed "export" "$BIN" export --format bmf r.json
closed "verify" "$BIN" verify --backend cpu --dtypes f32 --lengths 16
closed "--help" "$BIN" --help
# A reader that went away (the pipe's other end closed): the same error, not a SIGPIPE death.
piped() {  # NAME CMD...
  local name=$1
  shift
  # stdout a pipe whose read end is closed before the command starts (SIGPIPE at its default,
  # as a shell leaves it): every write fails, whatever the machine's load.
  /usr/bin/python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[2:], stdin=open(sys.argv[1]), stdout=w,
                         stderr=open(sys.argv[1] + ".err", "w")))' "$WORK/empty" "$@"
  rc=$?
  mv "$WORK/empty.err" "$WORK/err"
  expect_error "$name into a closed pipe" 2 "cannot write to stdout"
}
piped "check" "$BIN" check r.json --baseline b.json
piped "export" "$BIN" export --format bmf r.json
piped "fit" "$BIN" fit r.json
# A report file is still written when only stdout is closed, and not onto fd 1.
"$BIN" export --format bmf r.json -o e.json >&- 2>"$WORK/err"
rc=$?
[ "$rc" -eq 0 ] && cmp -s e.json expected && pass "export -o FILE works with stdout closed" ||
  fail "export -o FILE works with stdout closed" "exit $rc: $(first_err)"

# --- a full device (a node made here with the numbers of /dev/full) -------------------------

if [ "$(id -u)" -eq 0 ] && mknod full c 1 7 2>/dev/null; then
  to_full() {  # NAME CMD...
    local name=$1
    shift
    "$@" <"$WORK/empty" >full 2>"$WORK/err"
    rc=$?
    expect_error "$name to a full device" 2 "No space left on device"
  }
  to_full "run table" "$BIN" run "${TINY[@]}"
  to_full "fit table" "$BIN" fit r.json
  to_full "check table" "$BIN" check r.json --baseline b.json
  to_full "compare" "$BIN" compare r.json b.json
  to_full "verify table" "$BIN" verify --backend cpu --dtypes f32 --lengths 16
  refused "export -o a full device" "cannot write 'full': No space left on device" \
    "$BIN" export --format bmf r.json -o full
  [ -c full ] && pass "the full device is still a character device" ||
    fail "the full device is still a character device" "replaced"

  # --- run: a report that cannot be written after measuring exits 3 --------------------------
  cp r.json ok.json
  run "$BIN" run "${TINY[@]}" --json ok.json --csv full
  expect_error "run --csv to a full device exits 3" 3 "cannot write 'full'"
  grep -q 'cpu' "$WORK/out" && pass "run exiting 3 still prints the table" ||
    fail "run exiting 3 still prints the table" "stdout: $(head -c 200 "$WORK/out")"
  [ "$(sha ok.json)" != "$before" ] &&
    /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' ok.json &&
    pass "run exiting 3 still writes the other report" ||
    fail "run exiting 3 still writes the other report" "ok.json not replaced"
else
  skip "full device checks" "mknod needs root"
fi

# Without root: a 3 KiB file-size limit fails the JSON report (about 5 KiB; SIGXFSZ ignored, so
# write() returns EFBIG); the CSV and the table (about 1 KiB each: the table reaches $WORK/out
# through cat, under the same limit) still go.
run bash -c 'set -o pipefail; trap "" XFSZ; ulimit -f 3; "$@" | cat' _ \
  "$BIN" run "${TINY[@]}" --json big.json --csv small.csv
expect_error "run with an unwritable --json exits 3" 3 "cannot write 'big.json'"
grep -q 'cpu' "$WORK/out" && pass "run with an unwritable --json prints the table" ||
  fail "run with an unwritable --json prints the table" "stdout: $(head -c 200 "$WORK/out")"
[ -s small.csv ] && [ ! -e big.json ] && pass "run with an unwritable --json writes the CSV" ||
  fail "run with an unwritable --json writes the CSV" "$(ls)"

# readbench ignores SIGXFSZ itself: with no trap in the shell, a report past `ulimit -f` fails
# as a write error (exit 3), its temporary file removed and the report it would replace kept.
cp r.json old.json
old_sha=$(sha old.json)
run bash -c 'ulimit -f 3; exec "$@"' _ "$BIN" run "${TINY[@]}" --json old.json
expect_error "run past the file-size limit exits 3" 3 "cannot write 'old.json': File too large"
[ "$(sha old.json)" = "$old_sha" ] && pass "run past the file-size limit keeps the old report" ||
  fail "run past the file-size limit keeps the old report" "old.json changed"
leftover=$(find . -maxdepth 1 -name '.old.json.*')
[ -z "$leftover" ] && pass "run past the file-size limit leaves no temporary file" ||
  fail "run past the file-size limit leaves no temporary file" "$leftover"

# Two outputs that are one file through a link: refused before anything runs, even where the
# link dangles (its file would be created by the first and replaced by the second).
mkdir x
ln -s nx.json x/dang.csv
refused "run --json x/nx.json --csv a dangling link to it" "--csv 'x/dang.csv'" \
  "$BIN" run "${TINY[@]}" --json x/nx.json --csv x/dang.csv
[ ! -e x/nx.json ] && pass "run into one file through a dangling link writes nothing" ||
  fail "run into one file through a dangling link writes nothing" "x/nx.json exists"
ln -s dang.csv x/chain.csv
refused "run --json x/nx.json --csv a chain of links to it" "--csv 'x/chain.csv'" \
  "$BIN" run "${TINY[@]}" --json x/nx.json --csv x/chain.csv

# A descriptor path naming the file stdout already writes: the report goes through stdout, and
# the table after it does not write over it.
run "$BIN" run "${TINY[@]}" --json /proc/self/fd/1
cp "$WORK/out" both.txt
if [ "$rc" -eq 0 ] && /usr/bin/python3 -c '
import json, sys
t = open(sys.argv[1]).read()
json.loads(t[:t.index("readbench: ")])' both.txt; then
  pass "--json /proc/self/fd/1 into a redirected stdout keeps the report and the table"
else
  fail "--json /proc/self/fd/1 into a redirected stdout keeps the report and the table" "exit $rc: $(head -c 200 both.txt)"
fi
# --- output names: a link to a file, a name too long for a hidden sibling, bytes not UTF-8 -----

"$BIN" export --format bmf r.json -o target.json
ln -s target.json link.json
run "$BIN" export --format gab r.json -o link.json
"$BIN" export --format gab r.json >gab_expected
if [ "$rc" -eq 0 ] && [ -L link.json ] && [ "$(readlink link.json)" = target.json ] &&
  cmp -s target.json gab_expected; then
  pass "-o a link to a file replaces the file and keeps the link"
else
  fail "-o a link to a file replaces the file and keeps the link" "exit $rc: $(first_err)"
fi
ln -s created.json dangling.json
run "$BIN" export --format gab r.json -o dangling.json
[ "$rc" -eq 0 ] && [ -L dangling.json ] && cmp -s created.json gab_expected &&
  pass "-o a dangling link creates the file it names and keeps the link" ||
  fail "-o a dangling link creates the file it names and keeps the link" "exit $rc: $(first_err)"
long=$(printf 'x%.0s' $(seq 1 250))
run "$BIN" export --format bmf r.json -o "$long"
[ "$rc" -eq 0 ] && cmp -s "$long" expected && pass "-o a 250-byte name is written" ||
  fail "-o a 250-byte name is written" "exit $rc: $(first_err)"
odd=$'\xff.json'
cp r.json "$odd"
run "$BIN" compare b.json "$odd" --format json
if [ "$rc" -eq 0 ] && /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out"
then pass "compare --format json of a file named in bytes that are not UTF-8 writes valid JSON"
else fail "compare --format json of a file named in bytes that are not UTF-8" "exit $rc: $(first_err)"; fi
run "$BIN" check "$odd" --baseline b.json --json verdict.json --allow not-reached
[ "$rc" -eq 0 ] && /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' verdict.json &&
  pass "check --json of a report named in bytes that are not UTF-8 writes its verdict" ||
  fail "check --json of a report named in bytes that are not UTF-8" "exit $rc: $(first_err)"

cli_summary
