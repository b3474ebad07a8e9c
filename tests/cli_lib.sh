# Sourced by the CLI test scripts: the counters and the one-line results each check prints.
# A script ends with `cli_summary`, which prints "N passed, M failed" and fails on any failure.
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
skip() { echo "skip $1: $2"; }
cli_summary() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
