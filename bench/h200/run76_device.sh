#!/usr/bin/env bash
# Run 76 on the H200 (bench/h200/NOTES.md): e4m3 K/V of D=128 (128-byte rows, as D=64's 16-bit
# ones) read as pairs of KV heads: MmaMath<T, 256, E4m3, kPaired>, two heads' rows as one of
# 256 bytes, both query groups in the mma's 8 heads over a virtual D=256 (each head's q zero
# over the other's 128 d's: twice the math a byte). Where the plan leaves the history unsplit.
# The product binaries of the working tree against `0080ec7`'s: GPU tests, compute-sanitizer's
# four tools over unsplit e4m3 pairs, two A/B rounds. Prediction: e4m3 B=32 L=4096-16384 2-4%
# faster if the copies are what holds it at 89-93% (run 72), slower if the doubled math is;
# B=1 and bf16 unchanged. Results: results/run76-e4m3-pairs/.
# Refuted, not committed to the product: the change is results/run76-e4m3-pairs/e4m3-pairs.patch.
# Usage: bench/h200/run76_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, san, ab_rounds, ...
start_ab
gpu_tests
step "compute-sanitizer over unsplit e4m3 pairs"
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" "run, both paths, e4m3 K/V -b 40 L 2049" "$rb" run --backend cuda -b 40 \
    -L 2049 --kv-dtype fp8_e4m3 --min-samples 2 --budget 0.02 --rounds 1 --path all \
    --json "$out/san.json"
done
rm -f "$out/san.json"
ab_rounds 2 <<'SHAPES'
fp8-b32|-b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3 --path fused
fp8-f16-b32|-b 32 -L 4096,16384 --kv-dtype fp8_e4m3 --dtype f16 --path fused
fp8-b20|-b 20 -L 4096,16384 --kv-dtype fp8_e4m3 --path fused
fp8-b1|-b 1 -L 4096,65536 --kv-dtype fp8_e4m3 --path fused
bf16-b32|-b 32 -L 16384 --path fused
SHAPES
step "gpu after: $(smi)"
