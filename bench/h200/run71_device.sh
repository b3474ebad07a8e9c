#!/usr/bin/env bash
# Run 71 on the H200 (bench/h200/NOTES.md): where the next call may launch, for the long rows'
# layout (one eight-warp block of three stages an SM, 16 splits: `warps=8,stages=3` in the
# variant build of run 69, readbench's own sweep): the product's trigger (once a warp has
# issued its last copies), `pdl=2` (at a block's start: the next call's blocks take the SMs
# this call leaves idle, 4 of 132 here) and `pdl=4` (at exit: no overlap but the launch).
# Information for the next step, not a candidate as it stands: run 22 kept the trigger at a
# block's start out of the product. Prediction: `pdl=2` 0.2-0.5 us faster a call from L=16384
# (run 68b's pure read: 0.4 us at L=16384), `pdl=4` 1-3 us slower. Three rounds, the order
# rotating. Results: results/run71-long-row-triggers/.
# Usage: bench/h200/run71_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/variant_lib.sh"  # /tmp/cv, log, step
rb=/tmp/cv/readbench
step "gpu before: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader)"
labels=(last start exit)
declare -A spec=([last]="warps=8,stages=3" [start]="warps=8,stages=3,pdl=2"
  [exit]="warps=8,stages=3,pdl=4")
for round in 1 2 3; do
  order=("${labels[@]:round-1}" "${labels[@]:0:round-1}")
  for label in "${order[@]}"; do
    step "round $round: $label (${spec[$label]})"
    READBENCH_CUDA_TUNING=${spec[$label]} timeout 150 "$rb" run --backend cuda -b 1 \
      -L 16384:131072:x2 --path fused --json "$out/ab-$round-$label-bf16b1.json" \
      > "$out/ab-$round-$label-bf16b1.txt" 2>&1
    echo "run $label rc=$?" | tee -a "$log"
  done
done
step "gpu after: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader)"
