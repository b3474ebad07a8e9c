#!/usr/bin/env bash
# Run 73c on the H200 (bench/h200/NOTES.md): run 73's A/B (run73_device.sh) over the plan that
# takes pairs of KV heads of D=64 only where their rows, 8 splits each, cover the SMs (so not at
# B=1 Hkv=8, where run 73b lost 11-12% at L=1024-4096). Its sanitizer calls are those the pairs
# still take: D=64 -b 32 L 1000 (unsplit) and -b 7 L 4099 (split rows). Prediction: run 73b's
# D=64 B=8 and B=32 gains; B=1 D=64 as `0080ec7`. Results: results/run73-paired-heads/c/.
# Usage: bench/h200/run73_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, san, ...
start_ab
gpu_tests
step "compute-sanitizer over the pairs' timed calls"
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" "run, both paths, D=64 -b 32 L 1000 (unsplit)" "$rb" run --backend cuda -b 32 \
    -L 1000 --head-dim 64 --min-samples 2 --budget 0.02 --rounds 1 --path all \
    --json "$out/san.json"
  san "$tool" "run, both paths, D=64 -b 7 L 4099 (split rows of pairs)" "$rb" run \
    --backend cuda -b 7 -L 4099 --head-dim 64 --min-samples 2 --budget 0.02 --rounds 1 \
    --path all --json "$out/san.json"
done
rm -f "$out/san.json"
ab_rounds 3 <<'SHAPES'
d64-b32|-b 32 -L 1024,4096,16384 --head-dim 64 --path fused
d64-f16-b32|-b 32 -L 4096,16384 --head-dim 64 --dtype f16 --path fused
d64-gather-b32|-b 32 -L 4096 --head-dim 64 --path gather
d64-mha-b32|-b 32 -L 4096 --head-dim 64 --q-heads 8 --kv-heads 8 --path fused
d64-b1|-b 1 -L 1024:131072:x4 --head-dim 64 --path fused --fit-from 1024
d64-b8|-b 8 -L 4096,16384 --head-dim 64 --path fused
d64-b5|-b 5 -L 4096,16384,65536 --head-dim 64 --path fused
d64-gqa8-b32|-b 32 -L 4096 --head-dim 64 --q-heads 64 --kv-heads 8 --path fused
f32-d64-b32|-b 32 -L 4096 --head-dim 64 --dtype f32 --path fused
bf16-b32|-b 32 -L 16384 --path fused
SHAPES
step "gpu after: $(smi)"
