#!/usr/bin/env bash
# The time from SIGINT to exit of `readbench run`, over TRIES runs whose signal lands at delays
# spread over the first DELAY_MAX seconds, so every phase is hit: the ceiling measurement,
# verification, workload building, cache flushes and timing samples. Prints each try (delay,
# exit status, seconds to exit, the points the JSON report kept) and the median and max.
#
# LENGTHS (default 16:4194304:x4) picks the grid: `1048576` alone puts most tries inside one
# long cold call (a gather call at L = 1M copies 4 GiB), the slowest phase to stop.
#
# usage: tools/signal_latency.sh READBENCH_BINARY [TRIES [DELAY_MAX [LENGTHS]]]
set -u
BIN=$(realpath "$1")
TRIES=${2:-20}
DELAY_MAX=${3:-8}
LENGTHS=${4:-16:4194304:x4}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/readbench-latency.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2

times=()
for ((i = 0; i < TRIES; i++)); do
  delay=$(python3 -c "print(round(0.1 + $DELAY_MAX * $i / max(1, $TRIES - 1), 2))")
  rm -f r.json
  line=$(python3 "$HERE/../tests/signal_run.py" "$delay" INT -- "$BIN" run --backend cpu \
    --lengths "$LENGTHS" --budget 0.5 --json r.json --csv r.csv)
  points=$(python3 -c "import json; print(sum(len(x['points']) for x in json.load(open('r.json'))['results']))" 2>/dev/null || echo "-")
  echo "delay=$delay $line points=$points"
  times+=("$(sed -n 's/.*elapsed=\([0-9.]*\).*/\1/p' <<<"$line")")
done
printf '%s\n' "${times[@]}" | sort -g | awk '{ t[NR] = $1 } END {
  printf "SIGINT to exit over %d tries: median %.3f s, max %.3f s\n", NR,
    (NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2), t[NR] }'
