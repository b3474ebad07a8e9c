#!/usr/bin/env bash
# Run 34 on the H200 (bench/h200/NOTES.md): the product binary of the kernel pair (split and
# unsplit, run 33, chosen at launch by the plan's splits) on issue 12's shapes, carried in
# .scratch/rbx/rb.tar.xz: its GPU tests with the plugin (the batched-merge test now over D 64,
# 128 and 256), then the shapes. Run 33 checked the same kernels further (verify, sanitizers).
# Usage: bench/h200/run34_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, issue12_shapes
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so
step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
issue12_shapes fused
step "gpu after: $(smi)"
