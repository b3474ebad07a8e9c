#!/usr/bin/env bash
# Run 78 on the H200 (bench/h200/NOTES.md): run 77's two findings in the product, against the
# product of `9934e1b`: rows that fill their one wave in part split into waves that fill their
# last one (wave_fill.hpp: B=12-13 and 17-26 at Hkv=8), and the long rows from L=8192, a split
# fewer below L=32768 (15 on the H200). Call 1: the GPU tests, compute-sanitizer's four tools
# over the new layouts' timed calls, one A/B round; call 2: two more rounds, then issue 12's
# shapes with the new binary. Prediction: run 77's gains (bf16 B=17/20 L=16384 -20/-16%, e4m3
# -27/-21%; B=12 -3.5%, but about +2% at L=4096), B=28 and B=32 unchanged; bf16 B=1 L=8192 and
# 16384 -2%, 32768 on as before; D=64 B=20 (pairs unsplit now a head a row in three splits)
# and f32 B=20 not measured before.
# Results: results/run78-wave-fill/.
# Usage: bench/h200/run78_device.sh OUTDIR CALL (1 or 2) (pack OUTDIR into $OUT: 8 files at
# most come back)
set -u -o pipefail
out=${1:?OUTDIR}
call=${2:?CALL}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, san, ab_rounds, ...
start_ab
shapes() {
  cat <<'SHAPES'
bf16-b1|-b 1 -L 1024:131072:x2 --path fused --fit-from 1024
bf16-b12|-b 12 -L 4096,16384 --path fused
bf16-b13|-b 13 -L 4096,16384 --path fused
bf16-b17|-b 17 -L 4096,16384 --path fused
bf16-b20|-b 20 -L 4096,16384 --path fused
bf16-b24|-b 24 -L 4096,16384 --path fused
bf16-b26|-b 26 -L 4096,16384 --path fused
bf16-b28|-b 28 -L 4096,16384 --path fused
fp8-b12|-b 12 -L 4096,16384 --kv-dtype fp8_e4m3 --path fused
fp8-b17|-b 17 -L 4096,16384 --kv-dtype fp8_e4m3 --path fused
fp8-b20|-b 20 -L 4096,16384 --kv-dtype fp8_e4m3 --path fused
fp8-b26|-b 26 -L 4096,16384 --kv-dtype fp8_e4m3 --path fused
d64-b20|-b 20 -L 4096,16384 --head-dim 64 --path fused
f32-b20|-b 20 -L 4096,16384 --dtype f32 --path fused
d64-b32|-b 32 -L 4096,16384 --head-dim 64 --path fused
bf16-b32|-b 32 -L 1024,16384 --path fused
fp8-b1|-b 1 -L 4096,65536 --kv-dtype fp8_e4m3 --path fused
SHAPES
}
if [ "$call" = 1 ]; then
  gpu_tests
  step "compute-sanitizer over the new layouts' timed calls"
  for tool in memcheck racecheck synccheck initcheck; do
    san "$tool" "run, both paths, -b 20 L 3001 (three splits, two waves)" "$rb" run \
      --backend cuda -b 20 -L 3001 --min-samples 2 --budget 0.02 --rounds 1 --path all \
      --json "$out/san.json"
    san "$tool" "run, fused, -b 1 L 8192,16385 (15 long splits)" "$rb" run --backend cuda -b 1 \
      -L 8192,16385 --min-samples 2 --budget 0.02 --rounds 1 --path fused --json "$out/san.json"
  done
  rm -f "$out/san.json"
  shapes | ab_rounds 1
else
  shapes | ab_rounds 2
  # ab_rounds names its files by round: the second call's rounds become 2 and 3
  for f in "$out"/ab-2-*; do mv "$f" "${f/ab-2-/ab-3-}"; done
  for f in "$out"/ab-1-*; do mv "$f" "${f/ab-1-/ab-2-}"; done
  step "issue 12's shapes, the new binary"
  issue12_shapes fused
fi
step "gpu after: $(smi)"
