#!/usr/bin/env bash
# Run 34 on the H200 (bench/h200/NOTES.md): the product binary of the kernel pair (split and
# unsplit, run 33, chosen at launch by the plan's splits) on issue 12's shapes, carried in
# .scratch/rbx/rb.tar.xz: its GPU tests with the plugin (the batched-merge test now over D 64,
# 128 and 256), then the shapes. Run 33 checked the same kernels further (verify, sanitizers).
# Usage: bench/h200/run34_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, shape
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so
step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
shape bf16-b32 -b 32 -L 1024,4096,16384 --path fused
shape d64-b32 -b 32 -L 1024,4096,16384 --head-dim 64 --path fused
shape fp8-b32 -b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3 --path fused
shape f32-b32 -b 32 -L 1024,4096,16384 --dtype f32 --path fused
shape f32-d64 -b 32 -L 1024,4096,16384 --dtype f32 --head-dim 64 --path fused
shape bf16-b1 -b 1 -L 1024:131072:x2 --path fused --fit-from 1024
shape fp8-b1 -b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
step "gpu after: $(smi)"
