#!/usr/bin/env bash
# Run 70 on the H200 (bench/h200/NOTES.md): the few-rows layout's long rows in the product: a
# B=1-like row (16-31 SMs a row) of 16-bit K/V in q's type at D=128 from L=16384 takes one
# eight-warp block of three stages an SM, a split for each SM of the row (16 on the H200),
# merged through the workspace. The product binaries of the working tree against those of
# `e18c4f9`. Prediction (run 69's variant build in readbench): bf16 B=1 L=16384 -1.0%, 32768
# -4.0%, 65536 -1.7%, 131072 -0.6%, f16 alike, the fit's marginal from about 91 to 92.5% of the
# ceiling; every other shape unchanged. GPU tests, three A/B rounds, compute-sanitizer's four
# tools over the long rows' timed calls, issue 12's shapes with the new binary.
# Results: results/run70-long-rows/.
# Usage: bench/h200/run70_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
start_ab
gpu_tests
ab_rounds 3 <<'SHAPES'
bf16-b1|-b 1 -L 1024:131072:x2 --path fused --fit-from 1024
f16-b1|-b 1 -L 8192:131072:x2 --dtype f16 --path fused
fp8-b1|-b 1 -L 16384,65536 --kv-dtype fp8_e4m3 --path fused
hkv2-bf16-b1|-b 1 --q-heads 8 --kv-heads 2 -L 16384,65536 --path fused
bf16-b3|-b 3 -L 16384,65536 --path fused
SHAPES
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" "run, fused, long rows: bf16 -b 1 L 16384,40001" "$rb" run --backend cuda -b 1 \
    -L 16384,40001 --min-samples 2 --budget 0.02 --rounds 1 --path fused --json "$out/san.json"
  san "$tool" "run, fused, long rows: f16 -b 1 L 16385" "$rb" run --backend cuda -b 1 \
    -L 16385 --dtype f16 --min-samples 2 --budget 0.02 --rounds 1 --path fused \
    --json "$out/san.json"
done
rm -f "$out/san.json"
step "issue 12's shapes, new binary"
issue12_shapes fused
step "gpu after: $(smi)"
