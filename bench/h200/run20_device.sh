#!/usr/bin/env bash
# Run 20 on the H200 (bench/h200/NOTES.md): the product binary with `--rounds auto` (three
# rounds on the CPU, one on the GPU) and the contended grid stop (bench/h200/product_build.sh,
# carried in .scratch/rbx): GPU tests, then the plain `readbench run` twice (wall times in
# device.log).
# Usage: bench/h200/run20_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
for i in 1 2; do
  step "plain readbench run ($i): $(smi)"
  start=$(date +%s%N)
  timeout 200 "$rb" run --json "$out/plain-$i.json" > "$out/plain-$i.txt" 2>&1
  rc=$?
  echo "plain ($i) rc=$rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$log"
done
step "gpu after: $(smi)"
