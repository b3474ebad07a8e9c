#!/usr/bin/env bash
# Run 30 on the H200 (bench/h200/NOTES.md): the product binary of the staged split merge (run 29),
# carried in .scratch/rbx/rb.tar.xz: GPU tests with the plugin, verify, compute-sanitizer's four
# tools over timed calls with 8, 32 and 257 splits (one KV head: a merge in batches) and e4m3
# K/V; then issue 12's shapes and two plain runs.
# Usage: bench/h200/run30_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san_timed_calls, shape, issue12_shapes, plain_runs
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
verify_all
san_timed_calls
step "issue 12's shapes: $(smi)"
issue12_shapes all
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
shape bf16-b1-short -b 1 -L 16,64,256,512,1024,2048 --path fused
plain_runs 2
step "gpu after: $(smi)"
