#!/usr/bin/env bash
# Run 82 on the H200 (bench/h200/NOTES.md): the wave-fill rule extended to rows of more than one
# wave (run 81's lead), product binaries of the working tree against `3deef76` (the rule for one
# wave only), from L=4096.
# - Call 1 (results/run82a-beyond-one-wave-candidate/): the candidate rule, one block a row that
#   fills less than 90% of its waves splits into the fewest waves that fill 90% of their last
#   one. The GPU tests, compute-sanitizer's four tools over the new layouts' timed calls, A/B
#   round 1. Prediction (run 81): bf16 B=36/40/48 at L=16384 -15..-20% / -10..-13% / -9%, at
#   L=4096 -5..-14%; e4m3 K/V smaller; B=52-100 (76-89% full) unknown.
# - Calls 2 and 3 (results/run82b-beyond-one-wave/): the committed rule, the bound 75% instead
#   of 90% where a row holds under 2 MiB of K/V (call 1: e4m3 at L=4096, 79% and 85% full, lost
#   6% and 15%). Call 2: the GPU tests, racecheck over the fused path's five splits at B=36 (call
#   1's 90 s did not finish both paths), A/B round 2 over call 1's shapes and e4m3 B=72/100, D=64
#   e4m3 and f32 at B=40; call 3: round 3. Prediction: as call 1 where the rules agree; e4m3
#   B=52, 56, 80 at L=4096 as the old binary.
# - Call 4 (results/run82c-beyond-one-wave-final/): the committed rule, the bound 82% from 2 MiB
#   and 90% from 8 MiB a row (calls 2-3: bf16 B=56 and 88 at L=4096, 85% and 89% full, +3.2%
#   and +2.0%). The GPU tests, and one A/B round of the shapes this bound keeps as they were.
#   Prediction: those within 0.5% of the old binary.
# Usage: bench/h200/run82_device.sh OUTDIR CALL (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR} call=${2:?CALL}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, san, ab_rounds, ...
start_ab
shapes() {
  local b
  for b in 34 36 40 44 48 52 56 72 80 88 100; do echo "bf16-b$b|-b $b -L 4096,16384 --path fused"; done
  local fp8_batches="34 40 48 52 56 80"
  [ "$call" = 1 ] || fp8_batches="34 40 48 52 56 72 80 100"
  for b in $fp8_batches; do
    echo "fp8-b$b|-b $b -L 4096,16384 --kv-dtype fp8_e4m3 --path fused"
  done
  for b in 40 56; do echo "f32-b$b|-b $b -L 4096,16384 --dtype f32 --path fused"; done
  if [ "$call" != 1 ]; then
    echo "fp8-d64-b40|-b 40 -L 4096,16384 --head-dim 64 --kv-dtype fp8_e4m3 --path fused"
    echo "f32-d64-b40|-b 40 -L 4096,16384 --head-dim 64 --dtype f32 --path fused"
  fi
}
case $call in
  1)
    gpu_tests
    step "compute-sanitizer over the new layouts' timed calls"
    for tool in memcheck racecheck synccheck initcheck; do
      san "$tool" "run, both paths, -b 36 L 4099 (five splits, 1440 blocks)" "$rb" run \
        --backend cuda -b 36 -L 4099 --min-samples 2 --budget 0.02 --rounds 1 --path all \
        --json "$out/san.json"
      san "$tool" "run, fused, e4m3 K/V -b 17 L 4099 (seven splits)" "$rb" run --backend cuda \
        -b 17 -L 4099 --kv-dtype fp8_e4m3 --min-samples 2 --budget 0.02 --rounds 1 --path fused \
        --json "$out/san.json"
    done
    rm -f "$out/san.json"
    shapes | ab_rounds 1
    ;;
  2)
    gpu_tests
    shapes | ab_rounds 1 2
    step "racecheck over the fused path's five splits at B=36"
    san_timeout=200 san racecheck "run, fused, -b 36 L 4099 (five splits, 1440 blocks)" "$rb" run \
      --backend cuda -b 36 -L 4099 --min-samples 2 --budget 0.02 --rounds 1 --path fused \
      --json "$out/san.json"
    rm -f "$out/san.json"
    ;;
  4)
    gpu_tests
    ab_rounds 1 <<'SHAPES'
bf16-b56|-b 56 -L 4096 --path fused
bf16-b88|-b 88 -L 4096 --path fused
f32-b56|-b 56 -L 4096 --dtype f32 --path fused
SHAPES
    ;;
  *) shapes | ab_rounds 1 "$call" ;;
esac
step "gpu after: $(smi)"
