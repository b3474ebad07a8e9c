#!/usr/bin/env bash
# The auto length grid and the fixed + marginal fit on the GPU machine, over binaries built
# here and carried in .scratch/rb (readbench, readbench_gpu_tests, libgomp.so.1): GPU tests,
# plain `readbench run` (both backends, the default auto grid) timed twice, and the explicit
# B=1 grid 4096..262144 whose marginal cost the auto grid's is compared with.
# Usage: bench/h200/auto_grid_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
for i in 1 2; do
  step "plain readbench run $i"
  start=$(date +%s%N)
  timeout 300 "$rb" run --json "$out/h200-auto-$i.json" > "$out/h200-auto-$i.txt" 2>&1
  rc=$?
  echo "run $i rc=$rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$log"
done
step "explicit B=1 grid 4096..262144, cuda fused, fitted over all of it"
timeout 200 "$rb" run --backend cuda --path fused -L 4096:262144:x4 --fit-from 0 \
  --json "$out/h200-b1-grid.json" > "$out/h200-b1-grid.txt" 2>&1
echo "grid rc=$?" | tee -a "$log"
step "gpu after: $(smi)"
