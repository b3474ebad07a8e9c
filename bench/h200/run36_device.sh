#!/usr/bin/env bash
# Ran on the tree of 69f6483 with results/run35-tile-queue/tile-queue.patch applied (not adopted).
# Run 36 on the H200 (bench/h200/NOTES.md): why run 35's tile queue was slower. The variant
# build of the working tree (.scratch/cvx/cv.tar.xz): split rows' tiles in fixed interleaved
# shares (draw=0, no queue) and drawn from a queue of 128-byte-separated counters, 1, 2, 4 or 8
# tiles a draw; graph replay through cuda_variants b1 (each shape's specs back to back, twice in
# opposite orders); timelines of draw=0 and draw=2; the GPU tests under draw=2; memcheck and
# racecheck of the queue under draw=1 and draw=4.
# Usage: bench/h200/run36_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out" /tmp/cv
tar -xJf "$(dirname "$0")/../../.scratch/cvx/cv.tar.xz" -C /tmp/cv
export LD_LIBRARY_PATH=/tmp/cv
log=$out/device.log
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
READBENCH_TEST_CUDA_TUNING=draw=2 timeout 150 /tmp/cv/readbench_gpu_tests \
  --test-case-exclude='*plugin*' > "$out/gpu_tests.log" 2>&1
echo "gpu tests (draw=2) rc=$? $(grep -E 'test cases' "$out/gpu_tests.log")" | tee -a "$log"
for spec in draw=1 draw=4; do
  for tool in memcheck racecheck; do
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 /tmp/cv/cuda_variants \
      sanitize "$spec" >> "$out/sanitizer.log" 2>&1
    echo "sanitizer $tool $spec rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)" | tee -a "$log"
  done
done
step "b1, forward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-fwd.csv" draw=0 draw=1 draw=2 draw=4 draw=8 \
  > "$out/b1-fwd.txt" 2>&1; echo "b1 fwd rc=$?" | tee -a "$log"
step "b1, backward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-bwd.csv" draw=8 draw=4 draw=2 draw=1 draw=0 \
  > "$out/b1-bwd.txt" 2>&1; echo "b1 bwd rc=$?" | tee -a "$log"
step "timelines"
mkdir -p "$out/tl"
for spec in draw=0 draw=2; do
  timeout 100 /tmp/cv/cuda_variants timeline "$out/tl" "$spec" > "$out/timeline-$spec.txt" 2>&1
  echo "timeline $spec rc=$?" | tee -a "$log"
done
step done
