# Sourced by the CLI test scripts: the counters, the one-line results each check prints, and
# the JSON checks two of them share.
# A script ends with `cli_summary`, which prints "N passed, M failed" and fails on any failure.
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
skip() { echo "skip $1: $2"; }
# A Python expression over the JSON document in FILE, bound to r, must be true. Uses $PY.
expect_json() {  # NAME FILE EXPR
  local name=$1 file=$2 expr=$3 why
  if why=$("$PY" - "$file" "$expr" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
if not eval(sys.argv[2]):
    sys.exit("false: " + sys.argv[2])
PYEOF
  ); then pass "$name"; else fail "$name" "$(echo "$why" | tail -1)"; fi
}
# FILE valid against the report schema. Uses $PY, $VALIDATE and $SCHEMA.
expect_valid_report() {  # NAME FILE
  local why
  if why=$("$PY" "$VALIDATE" "$2" "$SCHEMA" 2>&1); then pass "$1"; else fail "$1" "$why"; fi
}
cli_summary() {
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
}
