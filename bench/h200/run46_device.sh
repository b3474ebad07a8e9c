#!/usr/bin/env bash
# Run 46 on the H200 (bench/h200/NOTES.md): the product binaries of `d19d6e5` (.scratch/rbx),
# whose auto region waits for the cost per token to settle (schema version 6): GPU tests, three
# plain `readbench run`s (issue 8's H200 targets: every path reached with p in [0.9, 1.1], at
# most 40 s), the explicit B=1 grid 4096..262144 for cuda fused's marginal cost, issue 12's
# shapes; the plain runs checked against each other and against the committed CPU baseline.
# Usage: bench/h200/run46_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, shape, issue12_shapes, plain_runs
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
plain_runs 3
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
step "issue 12's shapes: $(smi)"
issue12_shapes all
step "readers: check and compare of the plain runs"
for i in 2 3; do
  "$rb" check "$out/plain-$i.json" --baseline "$out/plain-1.json" > "$out/check-plain-$i.md" 2>&1
  echo "check plain-$i against plain-1 rc=$?" | tee -a "$log"
done
"$rb" check "$out/plain-1.json" --baseline bench/baseline/cpu-default.json > "$out/check-baseline.md" 2>&1
echo "check plain-1 against the committed CPU baseline rc=$?" | tee -a "$log"
"$rb" compare "$out/plain-1.json" "$out/plain-2.json" "$out/plain-3.json" > "$out/compare-plain.md" 2>&1
echo "compare rc=$?" | tee -a "$log"
step "gpu after: $(smi)"
