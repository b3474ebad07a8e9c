#!/usr/bin/env bash
# Run 28 on the H200 (bench/h200/NOTES.md): does the merging block's tail come from the next
# call's blocks, which launch as this call's blocks finish reading? The variant build
# (.scratch/rbx/cv.tar.xz) with `pdl=4` (no explicit trigger: the next call may launch only as
# this call's blocks exit) against the default: timelines and b1.
# Usage: bench/h200/run28_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out" /tmp/cv
tar -xJf "$(dirname "$0")/../../.scratch/rbx/cv.tar.xz" -C /tmp/cv
export LD_LIBRARY_PATH=/tmp/cv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "== $(date +%T) $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader)"
for spec in "" pdl=4; do
  timeout 60 /tmp/cv/cuda_variants timeline "$out" $spec > "$out/timeline-${spec:-default}.txt" 2>&1
  echo "timeline [$spec] rc=$?"
done
timeout 200 /tmp/cv/cuda_variants b1 "$out/b1.csv" "" pdl=4 > "$out/b1.txt" 2>&1
echo "b1 rc=$? failures: $(grep -c FAIL "$out/b1.txt")"
echo "== $(date +%T) done"
