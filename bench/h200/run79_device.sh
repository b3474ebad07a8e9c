#!/usr/bin/env bash
# Run 79 on the H200 (bench/h200/NOTES.md): run 78's plan narrowed to where it gained at every
# length (wave_fill.hpp: one wave kept from 65% full, splits of at least 512 tokens, pairs of
# KV heads left as they were), the product binaries of the working tree against `9934e1b`'s
# code: the GPU tests and two A/B rounds. Prediction: B=17 and 20 as in run 78 (-7 to -24%),
# B=21 alike, B=12, 22 and D=64 B=20 unchanged, B=20 L=1024 unchanged (two splits at most),
# bf16 B=1 L=8192-16384 -1.5 to -2%.
# Results: results/run79-wave-fill-narrowed/.
# Usage: bench/h200/run79_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
start_ab
gpu_tests
ab_rounds 2 <<'SHAPES'
bf16-b1|-b 1 -L 1024:131072:x2 --path fused --fit-from 1024
bf16-b12|-b 12 -L 4096,16384 --path fused
bf16-b17|-b 17 -L 1024,4096,16384 --path fused
bf16-b20|-b 20 -L 1024,2048,4096,16384 --path fused
bf16-b21|-b 21 -L 2048,4096,16384 --path fused
bf16-b22|-b 22 -L 4096,16384 --path fused
fp8-b20|-b 20 -L 2048,4096,16384 --kv-dtype fp8_e4m3 --path fused
f32-b17|-b 17 -L 4096,16384 --dtype f32 --path fused
d64-b20|-b 20 -L 4096,16384 --head-dim 64 --path fused
SHAPES
step "gpu after: $(smi)"
