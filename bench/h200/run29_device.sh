#!/usr/bin/env bash
# Run 29 on the H200 (bench/h200/NOTES.md): the split merge staged through shared memory with
# cp.async (one L2 round trip for a row's splits; the default), its first form (`mergev=1`:
# divisions in the copy loop) and the merge of runs 25-28 (`mergev=2`), and where the merging
# block's time goes (the timeline's new steps: epilogue, fence, atomic, partials landed, merge).
# The variant build (.scratch/rbx/cv.tar.xz: cuda_variants, readbench_gpu_tests).
# Usage: bench/h200/run29_device.sh check|measure OUTDIR
set -u -o pipefail
phase=${1:?check|measure}
out=${2:?OUTDIR}
mkdir -p "$out" /tmp/cv
tar -xJf "$(dirname "$0")/../../.scratch/rbx/cv.tar.xz" -C /tmp/cv
export LD_LIBRARY_PATH=/tmp/cv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log=$out/device.log
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
if [ "$phase" = check ]; then
  # The variant build's plugin test loads a plugin built without the variant fields (bench/h200
  # builds): the product build runs it.
  step "gpu tests (variant build, defaults)"
  timeout 200 /tmp/cv/readbench_gpu_tests --test-case-exclude='*plugin*' > "$out/gpu_tests.log" 2>&1
  echo "gpu tests rc=$? $(grep -E 'test cases' "$out/gpu_tests.log")" | tee -a "$log"
  step "sanitize cases"
  timeout 60 /tmp/cv/cuda_variants sanitize > "$out/sanitize.log" 2>&1
  echo "sanitize rc=$? fails=$(grep -c FAIL "$out/sanitize.log")" | tee -a "$log"
  for tool in memcheck racecheck synccheck initcheck; do
    echo "== $tool" >> "$out/sanitizer.log"
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 /tmp/cv/cuda_variants sanitize \
      >> "$out/sanitizer.log" 2>&1
    echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)" |
      tee -a "$log"
  done
else
  for spec in "" mergev=1 mergev=2; do
    timeout 60 /tmp/cv/cuda_variants timeline "$out" $spec > "$out/timeline-${spec:-default}.txt" 2>&1
    echo "timeline [$spec] rc=$?" | tee -a "$log"
  done
  # Twice, the variants in opposite orders.
  timeout 200 /tmp/cv/cuda_variants b1 "$out/b1.csv" "" mergev=1 mergev=2 > "$out/b1.txt" 2>&1
  echo "b1 rc=$? failures: $(grep -c FAIL "$out/b1.txt")" | tee -a "$log"
  timeout 200 /tmp/cv/cuda_variants b1 "$out/b1-reversed.csv" mergev=2 mergev=1 "" \
    > "$out/b1-reversed.txt" 2>&1
  echo "b1 reversed rc=$? failures: $(grep -c FAIL "$out/b1-reversed.txt")" | tee -a "$log"
fi
step done
