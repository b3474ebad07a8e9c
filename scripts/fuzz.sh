#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz: clang, ASan, UBSan) and runs each for SECONDS
# (default 60) from its committed seed corpus in tests/fuzz/corpus/. Inputs it finds new go to
# build/fuzz/corpus/, never into the committed seeds; a crash, a sanitizer report or an
# uncaught exception fails the script and leaves the input in build/fuzz/artifacts/.
#
# usage: scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
# libFuzzer reads -max_total_time=0 as no limit: only a whole number of seconds > 0 is taken.
case $seconds in ''|*[!0-9]*|0*) echo "fuzz.sh: SECONDS must be a whole number > 0, got '$seconds'" >&2; exit 2 ;; esac
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
mkdir -p build/fuzz/artifacts
for name in report points lengths; do
  mkdir -p "build/fuzz/corpus/$name"
  echo "== fuzz_$name for ${seconds}s =="
  # -rss_limit_mb: the readers hold one input (at most -max_len bytes) and what it parses to.
  log=build/fuzz/fuzz_$name.log
  status=0
  build/fuzz/fuzz_$name -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix=build/fuzz/artifacts/"$name"- \
    "build/fuzz/corpus/$name" "tests/fuzz/corpus/$name" >"$log" 2>&1 || status=$?
  grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::average_exec_per_sec)' "$log" || true
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$log" >&2
    echo "fuzz_$name found a failure (exit $status): see $log and build/fuzz/artifacts/" >&2
    exit 1
  fi
done
