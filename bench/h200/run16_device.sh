#!/usr/bin/env bash
# Run 16 on the H200 (bench/h200/NOTES.md): the f32 tile and lanes builds timed against HEAD
# (f32_device.sh's timing, interleaved rounds), build b's GPU tests, the short-call shapes under
# split tunings (cuda_variants b1, carried as .scratch/rbx/cv.tar.xz), then compute-sanitizer over
# build a's CUDA-core kernels while time is left. Everything lands in OUTDIR.
# Usage: bench/h200/run16_device.sh OUTDIR [SECONDS, default 560]
set -u -o pipefail
out=${1:?OUTDIR}
budget=${2:-560}
start=$(date +%s)
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
ROUNDS=2 bash "$here/f32_device.sh" "$out/timing" timing
timeout 120 /tmp/rb/b/readbench_gpu_tests > "$out/gpu_tests-b.log" 2>&1
echo "gpu tests [b] rc=$? $(grep -E 'test cases' "$out/gpu_tests-b.log")"
mkdir -p /tmp/cv && tar -xJf "$here/../../.scratch/rbx/cv.tar.xz" -C /tmp/cv
echo "== $(date +%T) cuda_variants b1"
timeout 200 /tmp/cv/cuda_variants b1 "$out/b1.csv" "" minsplit=128 minsplit=64 minsplit=32 \
  waves=2 waves=2,minsplit=64 > "$out/b1.txt" 2>&1
echo "cuda_variants b1 rc=$?"
left=$((budget - ($(date +%s) - start)))
echo "== $(date +%T) sanitize with ${left} s left"
[ "$left" -gt 30 ] && CANDIDATES=a timeout "$left" bash "$here/f32_device.sh" "$out/sanitize" sanitize
echo "== $(date +%T) done"
