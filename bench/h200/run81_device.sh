#!/usr/bin/env bash
# Run 81 on the H200 (bench/h200/NOTES.md): batches whose rows are more than one wave of the
# H200's 264 four-warp slots (B=36, 40, 48 at Hkv=8: 288, 320, 384 rows), which the wave-fill
# rule of runs 77-80 leaves alone. The variant build of `9934e1b` (the plan before that rule),
# readbench's own sweep, bf16 and e4m3 K/V at L=4096 and 16384 under the default (one block a
# row: 1.09, 1.21 and 1.45 waves) and `waves=3`, `4`, `5` (B=36: 2, 3, 4 splits; B=40: 2, 3, 4;
# B=48: 2, 2, 3). One round: information for a later plan, not a plan.
# Prediction: if the partial last wave costs as the partial one wave did, B=36 and 40 gain
# 10-20% at L=16384 in 3-4 splits, B=48 less.
# Results: results/run81-beyond-one-wave/.
# Usage: bench/h200/run81_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/variant_lib.sh"  # /tmp/cv, log, step
rb=/tmp/cv/readbench
step "gpu before: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader); $("$rb" --version)"
declare -A spec=([default]="" [w3]="waves=3" [w4]="waves=4" [w5]="waves=5")
for label in default w3 w4 w5; do
  step "$label (${spec[$label]})"
  for b in 36 40 48; do
    for kv in bf16 fp8_e4m3; do
      name=bf16b$b; [ "$kv" = fp8_e4m3 ] && name=fp8b$b
      READBENCH_CUDA_TUNING=${spec[$label]} timeout 150 "$rb" run --backend cuda --path fused \
        -b "$b" -L 4096,16384 --kv-dtype "$kv" --json "$out/ab-1-$label-$name.json" \
        > "$out/ab-1-$label-$name.txt" 2>&1
      echo "run $label $name rc=$?" >> "$log"
    done
  done
done
grep -c "rc=0" "$log" | sed 's/^/runs rc=0: /' | tee -a "$log"
step "gpu after: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader)"
