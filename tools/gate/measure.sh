#!/usr/bin/env bash
# Runs for the gate's false-alarm rate and sensitivity: N quiet back-to-back default CPU runs,
# then M default runs beside a parallel build of this repository (-j2). analyze.py reads them.
# Usage: tools/gate/measure.sh OUTDIR READBENCH [N=21] [M=5]
set -euo pipefail
out=$1 rb=$(realpath "$2") n=${3:-21} m=${4:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
load() { cut -d' ' -f1-4 /proc/loadavg; }
for i in $(seq 1 "$n"); do
  start=$(date +%s%N)
  "$rb" run --backend cpu --json "$out/quiet-$i.json" >"$out/quiet-$i.txt" 2>&1
  echo "quiet $i: $(( ($(date +%s%N) - start) / 1000000 )) ms, load $(load)" | tee -a "$out/log.txt"
done
# A -j2 build of this tree in a scratch directory, restarted whenever it finishes, in a
# process group of its own (its id written to $build/pgid) so that the compilers go with it.
build=$(mktemp -d "${TMPDIR:-/tmp}/readbench-busy.XXXXXX")
setsid bash -c 'echo $$ > "$1/pgid"; while :; do
    rm -rf "$1/b"
    cmake -S "$2" -B "$1/b" -G Ninja -DREADBENCH_CUDA=OFF -DBUILD_TESTING=OFF >/dev/null
    cmake --build "$1/b" -j2 >/dev/null 2>&1 || true
  done' busy-build "$build" "$root" &
stop_build() {
  if [ -s "$build/pgid" ]; then kill -- "-$(cat "$build/pgid")" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$build"
  return 0
}
trap stop_build EXIT
until [ -s "$build/pgid" ]; do sleep 0.1; done
sleep 20  # let the build get going
for i in $(seq 1 "$m"); do
  start=$(date +%s%N)
  "$rb" run --backend cpu --json "$out/busy-$i.json" >"$out/busy-$i.txt" 2>&1 || true
  echo "busy $i: $(( ($(date +%s%N) - start) / 1000000 )) ms, load $(load)" | tee -a "$out/log.txt"
done
