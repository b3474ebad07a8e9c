#!/usr/bin/env bash
# Run 75 on the H200 (bench/h200/NOTES.md): issue 12's shapes with the product binary of this
# session's kernels (`72b971e`, the kernels of `85d9f82`): B=32 bf16, D=64, e4m3 K/V, f32 and
# f32 D=64 at L 1024, 4096, 16384; B=1 bf16 and e4m3 K/V over 1024..131072 (fused). Prediction:
# run 70's numbers but D=64 (run 74c: 91.7% and 95.7% at L=4096 and 16384).
# Results: results/run75-issue12/.
# Usage: bench/h200/run75_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, shape, issue12_shapes
step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
issue12_shapes fused
step "gpu after: $(smi)"
