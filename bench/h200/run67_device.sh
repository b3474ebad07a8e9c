#!/usr/bin/env bash
# Run 67 on the H200 (bench/h200/NOTES.md): runs 65-66's few-rows layout in the product
# (Tuning::few_rows). A split row with 16 SMs of its own (B=1 Hkv=8 on 132 SMs), 16-bit q,
# D=128, takes blocks of eight warps and two stages, one an SM: clusters of 8 splits up to 768
# tokens a split for e4m3 K/V (run 66's two lines crossing, interpolated) and 1024 for bf16/f16 K/V, then, for e4m3 K/V alone, SMs / rows
# splits (16). The product binaries of the working tree against those of `e587ccb` (the kernels
# of 55323a1). Predictions from run 66's replay (min us): e4m3 K/V B=1 L=2048 6.0 -> 5.0,
# L=4096 7.5 -> 6.9, L=8192 10.5 -> 9.9, L=65536 45.0 -> 41.7 (76% -> 81-82% of the ceiling);
# bf16 B=1 L=1024 4.46 -> 4.28, L=4096 9.1 -> 7.9, L=8192 13.3 -> 13.15; everything else
# unchanged, f16 as bf16; e4m3 L=4608-7168, where the layouts cross, no slower than now. Rows of 2 (B=1 Hkv=2) take the layout too, unmeasured: a control that
# it does not lose there. GPU tests, verify, three A/B rounds, compute-sanitizer's four tools
# over timed calls (the product's and the few-rows layouts), issue 12's shapes.
# Results: results/run67-few-rows/.
# Usage: bench/h200/run67_device.sh OUTDIR (the device returns 8 files at most: run it into a
#        folder under /tmp and pack that into $OUT)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
start_ab
gpu_tests
verify_all
{
  kernel_ab_shapes
  cat <<'SHAPES'
f16-b1|-b 1 -L 1024:16384:x2 --dtype f16 --path fused --fit-from 1024
f16-fp8-b1|-b 1 -L 1024:65536:x2 --dtype f16 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
fp8-b1-mid|-b 1 -L 4608,5120,6144,6656,7168 --kv-dtype fp8_e4m3 --path fused
hkv2-bf16-b1|-b 1 --q-heads 8 --kv-heads 2 -L 1024:65536:x4 --path fused
hkv2-fp8-b1|-b 1 --q-heads 8 --kv-heads 2 -L 1024:65536:x4 --kv-dtype fp8_e4m3 --path fused
SHAPES
} | ab_rounds 3
san_timed_calls
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" "run, fused, few rows: e4m3 K/V -b 1 L 4096,40000 (8 clustered, 16 split)" "$rb" \
    run --backend cuda -b 1 -L 4096,40000 --kv-dtype fp8_e4m3 --min-samples 2 --budget 0.02 \
    --rounds 1 --path fused --json "$out/san.json"
  san "$tool" "run, fused, few rows: bf16 -b 1 L 4099 (8 clustered)" "$rb" run --backend cuda \
    -b 1 -L 4099 --min-samples 2 --budget 0.02 --rounds 1 --path fused --json "$out/san.json"
done
rm -f "$out/san.json"
step "issue 12's shapes, new binary"
issue12_shapes fused
step "gpu after: $(smi)"
