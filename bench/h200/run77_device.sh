#!/usr/bin/env bash
# Run 77 on the H200 (bench/h200/NOTES.md): the batches between 1 and 32, where a grid of one
# block a row leaves a partial wave (run 76: e4m3 K/V B=20 L=16384 at 70% of the ceiling against
# 93% at B=32). readbench's own sweep (the variant build, READBENCH_CUDA_TUNING) of bf16 and
# e4m3 K/V B=12, 17, 20, 28 at L=4096 and 16384 under the default (one wave: B>=17 unsplit, 136
# to 224 four-warp blocks on 132 SMs' 264 slots), `waves=2`, `waves=3`, `waves=5` (the history
# split so that the blocks fill about that many waves, merged through the workspace), and for
# bf16 the eight-warp three-stage block (one an SM) in one and in four waves. Then bf16 B=1
# L=8192..131072: that block in 16 splits a row (the product's long rows) against 15 (120
# blocks: 12 SMs free for the 8 merging blocks' successors) and the product's plan.
# Prediction: if the partial wave is what holds B=17-28, waves=3 and 5 recover most of it
# (B=20: 480 or 800 blocks, 91-97% of the slots busy to the last wave against 61%).
# Two rounds (one device call each), the second starting half way through the order; readbench checks each run's calls against the f64 reference.
# Results: results/run77-mid-batches/.
# Usage: bench/h200/run77_device.sh OUTDIR ROUND (1 or 2: one device call each, the order
# rotating by round; round 2 also times B=1) (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
round=${2:?ROUND}
mkdir -p "$out"
. "$(dirname "$0")/variant_lib.sh"  # /tmp/cv, log, step
rb=/tmp/cv/readbench
step "gpu before: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader); $("$rb" --version)"
labels=(default w2 w3 w5 w8s3 w8s3w4)
declare -A spec=([default]="" [w2]="waves=2" [w3]="waves=3" [w5]="waves=5"
  [w8s3]="warps=8,stages=3" [w8s3w4]="warps=8,stages=3,waves=4")
one() {  # round label name options...
  local round=$1 label=$2 name=$3
  shift 3
  READBENCH_CUDA_TUNING=${spec[$label]} timeout 150 "$rb" run --backend cuda --path fused "$@" \
    --json "$out/ab-$round-$label-$name.json" > "$out/ab-$round-$label-$name.txt" 2>&1
  echo "run $round $label $name rc=$?" >> "$log"
}
order=("${labels[@]:(round-1)*3}" "${labels[@]:0:(round-1)*3}")
for label in "${order[@]}"; do
  step "round $round: $label (${spec[$label]})"
  for b in 12 17 20 28; do
    one "$round" "$label" "bf16b$b" -b "$b" -L 4096,16384
    case $label in w8s3*) continue ;; esac
    one "$round" "$label" "fp8b$b" -b "$b" -L 4096,16384 --kv-dtype fp8_e4m3
  done
done
if [ "$round" = 2 ]; then
  spec[w8s3w091]="warps=8,stages=3,waves=0.91"
  for pass in 1 2; do
    step "B=1 pass $pass"
    for label in default w8s3 w8s3w091; do
      one "$pass" "$label" bf16b1 -b 1 -L 8192:131072:x2 --fit-from 8192
    done
  done
fi
grep -c "rc=0" "$log" | sed 's/^/runs rc=0: /' | tee -a "$log"
grep "rc=[1-9]" "$log" | tee -a "$log"
step "gpu after: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader)"
