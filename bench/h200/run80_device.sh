#!/usr/bin/env bash
# Run 80 on the H200 (bench/h200/NOTES.md): the wave-fill plan from L=4096 only (run 79 had
# its split rows 1-9% slower at L=2048), the product binaries of the working tree against
# `9934e1b`'s code: the GPU tests and two A/B rounds at the lengths around the new bound.
# Prediction: L=2048 and 3000 as the old binary, L=4096 and 5001 as run 79 (-5 to -13%).
# Results: results/run80-wave-fill-from-4096/.
# Usage: bench/h200/run80_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
start_ab
gpu_tests
ab_rounds 2 <<'SHAPES'
bf16-b20|-b 20 -L 2048,3000,4096,5001 --path fused
fp8-b20|-b 20 -L 2048,4096 --kv-dtype fp8_e4m3 --path fused
bf16-b17|-b 17 -L 3000,4096 --path fused
SHAPES
step "gpu after: $(smi)"
