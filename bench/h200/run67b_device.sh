#!/usr/bin/env bash
# Run 67b on the H200 (bench/h200/NOTES.md): the few-rows layout narrowed to what run 67 measured
# faster in readbench: one cluster of 8 eight-warp blocks a row, e4m3 K/V L=1024-6144 and
# 16-bit K/V L=2049-8192, for rows with 16-31 SMs each; no 16-split rows. The product binaries
# of the working tree against those of `e587ccb`. Prediction: run 67's gains at those lengths,
# every other point as the old binary (bf16 L=1024-2048 and e4m3 from L=8192 back to it; rows of
# 2 untouched). GPU tests, three A/B rounds, compute-sanitizer over the new layout's timed calls,
# issue 12's shapes. Results: results/run67-few-rows/b/.
# Usage: bench/h200/run67b_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
start_ab
gpu_tests
ab_rounds 3 <<'SHAPES'
bf16-b1|-b 1 -L 1024:131072:x2 --path fused --fit-from 1024
fp8-b1|-b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
fp8-b1-mid|-b 1 -L 4608,6144,6656,7168 --kv-dtype fp8_e4m3 --path fused
f16-fp8-b1|-b 1 -L 1024:8192:x2 --dtype f16 --kv-dtype fp8_e4m3 --path fused
hkv2-fp8-b1|-b 1 --q-heads 8 --kv-heads 2 -L 1024,16384 --kv-dtype fp8_e4m3 --path fused
SHAPES
for tool in memcheck racecheck; do
  san "$tool" "run, fused, few rows: e4m3 K/V -b 1 L 1024,6144" "$rb" run --backend cuda -b 1 \
    -L 1024,6144 --kv-dtype fp8_e4m3 --min-samples 2 --budget 0.02 --rounds 1 --path fused \
    --json "$out/san.json"
  san "$tool" "run, fused, few rows: bf16 -b 1 L 2049,8192" "$rb" run --backend cuda -b 1 \
    -L 2049,8192 --min-samples 2 --budget 0.02 --rounds 1 --path fused --json "$out/san.json"
done
rm -f "$out/san.json"
step "issue 12's shapes, new binary"
issue12_shapes fused
step "gpu after: $(smi)"
