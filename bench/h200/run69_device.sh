#!/usr/bin/env bash
# Run 69 on the H200 (bench/h200/NOTES.md): readbench's own sweep (the variant build,
# READBENCH_CUDA_TUNING) of bf16 and e4m3 K/V B=1 under the layouts that leave the next call
# room beside a call's tail: `waves=0.5` (one four-warp block an SM a call, 16 splits: the next
# call's blocks take the SMs' second slots while this call's blocks finish), `waves=0.75`, and
# `warps=8,stages=3` (one eight-warp block an SM, no room). Run 68 put a pure read of the fused
# kernel's residency at 16.1 us at L=16384 against the fused kernel's 20.1, and a pure read of
# half the slots at 15.4. Prediction: `waves=0.5` 1-2 us faster from L=16384 if the tail is what
# the 4 us are; slower at L=8192 and from 32768 if the half of the copies in flight is not
# enough (the pure read's half was). Three rounds, the order rotating; readbench checks each
# run's calls against the f64 reference before timing them.
# Results: results/run69-readbench-layouts/.
# Usage: bench/h200/run69_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/variant_lib.sh"  # /tmp/cv, log, step
rb=/tmp/cv/readbench
step "gpu before: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader)"
labels=(default w50 w75 w8s3)
declare -A spec=([default]="" [w50]="waves=0.5" [w75]="waves=0.75" [w8s3]="warps=8,stages=3")
for round in 1 2 3; do
  order=("${labels[@]:round-1}" "${labels[@]:0:round-1}")
  for label in "${order[@]}"; do
    step "round $round: $label (${spec[$label]})"
    for kv in bf16 fp8_e4m3; do
      name=bf16b1; [ "$kv" = fp8_e4m3 ] && name=fp8b1
      READBENCH_CUDA_TUNING=${spec[$label]} timeout 150 "$rb" run --backend cuda -b 1 \
        -L 1024:131072:x2 --kv-dtype "$kv" --path fused --fit-from 1024 \
        --json "$out/ab-$round-$label-$name.json" > "$out/ab-$round-$label-$name.txt" 2>&1
      echo "run $label $name rc=$?" | tee -a "$log"
    done
  done
done
step "gpu after: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader)"
