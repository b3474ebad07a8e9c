#!/usr/bin/env bash
# The integrated run on the GPU machine, over readbench binaries built here and carried in
# .scratch/rb (readbench, readbench_gpu_tests, libgomp.so.1): GPU tests, correctness checks of
# both CUDA paths, compute-sanitizer on small cases, then readbench's own sweeps as JSON.
# Usage: tools/h200/readbench_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all

step "gpu: $(smi)"
gpu_tests

verify_all

step "compute-sanitizer on both paths (small cases, split and unsplit)"
for tool in memcheck racecheck; do
  for args in "-b 2 --lengths 17,1000" "-b 1 --lengths 4099"; do
    timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$rb" verify --backend cuda \
      --dtypes bf16,f32 $args >> "$out/sanitizer.log" 2>&1
    echo "sanitizer $tool [$args] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)" | tee -a "$log"
  done
done

step "sweeps"
timeout 150 "$rb" run --backend cuda -b 32 -L 1024,4096,16384 --json "$out/h200-b32.json" >> "$log" 2>&1
echo "run b32 rc=$?" | tee -a "$log"
timeout 150 "$rb" run --backend cuda -b 1 -L 1024,4096,16384,65536 --json "$out/h200-b1.json" >> "$log" 2>&1
echo "run b1 rc=$?" | tee -a "$log"
timeout 150 "$rb" run --backend all --json "$out/h200-default.json" >> "$log" 2>&1
echo "run default rc=$?" | tee -a "$log"
step "gpu after: $(smi)"
