#!/usr/bin/env bash
# Run 51 on the H200 (bench/h200/NOTES.md): the product binaries of `61110ed`, whose rows of at
# most 8 splits run as one thread block cluster merged in its first block's shared memory (run
# 50's `cluster=8,spread=1`, adopted), against the product of `553ca56` (run 48, the same kernels
# otherwise; .scratch/rbx/old.tar.xz). GPU tests, verify, compute-sanitizer over timed calls
# (B=1 L=1000 is a row of 8 splits: a cluster); readbench's B=1 grids, short B=1 grids and two
# B=32 controls, three rounds with the order of the two binaries alternating; issue 12's shapes
# and one plain run with the new binary.
# Usage: bench/h200/run51_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, shape, ...
start_ab
gpu_tests
verify_all
san_timed_calls
ab_rounds 3 <<'SHAPES'
bf16-b1|-b 1 -L 1024:131072:x2 --path fused --fit-from 1024
fp8-b1|-b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
bf16-b1-short|-b 1 -L 257,512,768,1000,1024,1536,2048,3072,4096 --path fused --fit-from 257
fp8-b1-short|-b 1 -L 257,512,768,1000,1024,1536,2048,3072,4096 --kv-dtype fp8_e4m3 --path fused --fit-from 257
bf16-b32|-b 32 -L 1024,16384 --path fused
d64-b32|-b 32 -L 4096 --head-dim 64 --path fused
SHAPES
step "issue 12's shapes: $(smi)"
issue12_shapes fused
plain_runs 1
step "gpu after: $(smi)"
