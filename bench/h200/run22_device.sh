#!/usr/bin/env bash
# Run 22 on the H200 (bench/h200/NOTES.md): dependent launches (programmatic stream
# serialization) of the fused read, from the variant build (bench/h200/build.sh) carried as
# .scratch/rbx/cv.tar.xz: the SASS holds the griddepcontrol instructions, GPU tests and
# compute-sanitizer under `pdl=1`, then cuda_variants b1 under the defaults and pdl=1
# (trigger after the reads, the paged history read before the wait), pdl=2 (trigger at once)
# and pdl=3 (wait before any read).
# Usage: bench/h200/run22_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out" /tmp/cv
tar -xJf "$(dirname "$0")/../../.scratch/rbx/cv.tar.xz" -C /tmp/cv
export LD_LIBRARY_PATH=/tmp/cv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export READBENCH_FUSED_CUDA_PLUGIN=/tmp/cv/libreadbench_fused_cuda.so
echo "== $(date +%T) $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader)"
cuobjdump -sass /tmp/cv/cuda_variants 2>/dev/null | grep -oE "ACQBULK|PREEXIT|griddepcontrol[a-z_.]*|BAR\.SYNC\.DEFER_BLOCKING" | sort | uniq -c > "$out/sass_pdl.txt"
echo "sass: $(tr '\n' ' ' < "$out/sass_pdl.txt")"
for spec in "" pdl=1; do
  READBENCH_TEST_CUDA_TUNING=$spec timeout 200 /tmp/cv/readbench_gpu_tests > "$out/gpu_tests-${spec:-default}.log" 2>&1
  echo "gpu tests [$spec] rc=$? $(grep -E 'test cases' "$out/gpu_tests-${spec:-default}.log")"
done
for tool in memcheck racecheck synccheck initcheck; do
  timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 /tmp/cv/cuda_variants sanitize \
    pdl=1 >> "$out/sanitizer.log" 2>&1
  echo "sanitizer $tool pdl=1 rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)"
done
echo "== $(date +%T) cuda_variants b1"
timeout 420 /tmp/cv/cuda_variants b1 "$out/b1.csv" "" pdl=1 pdl=2 pdl=3 > "$out/b1.txt" 2>&1
echo "cuda_variants b1 rc=$? failures: $(grep -c FAIL "$out/b1.txt")"
echo "== $(date +%T) done"
