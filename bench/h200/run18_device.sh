#!/usr/bin/env bash
# Run 18 on the H200 (bench/h200/NOTES.md): six stages a warp for 8 KiB stages (the variant
# `stages=6`: five tiles in flight, one block an SM) at the short calls, from the variant build
# (bench/h200/build.sh) carried as .scratch/rbx/cv.tar.xz: GPU tests and compute-sanitizer under
# the variant, then cuda_variants b1 against the default and the 128-token split.
# Usage: bench/h200/run18_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out" /tmp/cv
tar -xJf "$(dirname "$0")/../../.scratch/rbx/cv.tar.xz" -C /tmp/cv
export LD_LIBRARY_PATH=/tmp/cv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
echo "== $(date +%T) $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader)"
READBENCH_TEST_CUDA_TUNING=stages=6 timeout 150 /tmp/cv/readbench_gpu_tests > "$out/gpu_tests-stages6.log" 2>&1
echo "gpu tests under stages=6 rc=$? $(grep -E 'test cases' "$out/gpu_tests-stages6.log")"
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 /tmp/cv/cuda_variants sanitize \
    stages=6 >> "$out/sanitizer.log" 2>&1
  echo "sanitizer $tool stages=6 rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)"
done
echo "== $(date +%T) cuda_variants b1"
timeout 200 /tmp/cv/cuda_variants b1 "$out/b1.csv" "" stages=6 stages=6,minsplit=128 \
  > "$out/b1.txt" 2>&1
echo "cuda_variants b1 rc=$?"
echo "== $(date +%T) done"
