#!/usr/bin/env bash
# Run 48 on the H200 (bench/h200/NOTES.md): the product binaries of the working tree, whose split
# blocks arrive at the merge counter with one thread's acquire-release fence after the block's
# barrier (run 47's `fence=1` variant, adopted), against the product of `d19d6e5` (run 46, the
# same kernels otherwise; .scratch/rbx/old.tar.xz). GPU tests, verify, compute-sanitizer over
# timed calls; then readbench's B=1 grids and two B=32 controls, three rounds with the order of
# the two binaries alternating; issue 12's shapes, the long B=1 grid and one plain run with the
# new binary.
# Usage: bench/h200/run48_device.sh OUTDIR
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
bf16-b32|-b 32 -L 1024,16384 --path fused
d64-b32|-b 32 -L 4096 --head-dim 64 --path fused
SHAPES
step "issue 12's shapes: $(smi)"
issue12_shapes fused
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
plain_runs 1
step "gpu after: $(smi)"
