#!/usr/bin/env bash
# Run 19 on the H200 (bench/h200/NOTES.md): the product binary with sampling rounds
# (bench/h200/product_build.sh, carried in .scratch/rbx): GPU tests, then plain `readbench run`
# with the default three rounds and with one, alternating, twice each (wall times in
# device.log), and the explicit B=1 grid the plain run's marginal cost is compared with.
# Usage: bench/h200/run19_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
for i in 1 2; do
  for rounds in 3 1; do
    step "plain readbench run --rounds $rounds ($i): $(smi)"
    start=$(date +%s%N)
    timeout 200 "$rb" run --rounds "$rounds" --json "$out/plain-r$rounds-$i.json" \
      > "$out/plain-r$rounds-$i.txt" 2>&1
    rc=$?
    echo "plain --rounds $rounds ($i) rc=$rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$log"
  done
done
step "explicit B=1 grid 4096..262144, fused"
timeout 150 "$rb" run --backend cuda --path fused -b 1 -L 4096:262144:x2 \
  --json "$out/b1-explicit.json" > "$out/b1-explicit.txt" 2>&1
echo "b1 explicit rc=$?" | tee -a "$log"
step "gpu after: $(smi)"
