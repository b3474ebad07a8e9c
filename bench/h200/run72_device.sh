#!/usr/bin/env bash
# Run 72 on the H200 (bench/h200/NOTES.md): what the fused kernel's copies alone read at, by
# row size and grid (`row_pattern`, built here and carried as .scratch/pattern), and the D=64
# B=32 shapes under the variant build's eight-warp block (`warps=8`) in readbench's own sweep.
# Questions: does a D=64 head's 128-byte row read slower than a D=128 head's 256 bytes (two
# adjacent heads read as one row: `d64-pairs`)? Do 128 SMs (the long rows' 16 splits a row) read
# a B=1 call slower than every SM? Results: results/run72-row-pattern/.
# Usage: bench/h200/run72_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/variant_lib.sh"  # /tmp/cv, log, step
rb=/tmp/cv/readbench
pattern=$(dirname "$0")/../../.scratch/pattern/row_pattern
step "gpu before: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader)"
for pass in 1 2; do
  step "row_pattern pass $pass"
  timeout 200 "$pattern" "$out/pattern-$pass.csv" > "$out/pattern-$pass.txt" 2>&1
  echo "row_pattern rc=$?" | tee -a "$log"
done
labels=(default w8)
declare -A spec=([default]="" [w8]="warps=8")
for round in 1 2 3; do
  order=("${labels[@]:round-1}" "${labels[@]:0:round-1}")
  [ "$round" = 3 ] && order=("${labels[@]}")
  for label in "${order[@]}"; do
    step "round $round: $label (${spec[$label]})"
    READBENCH_CUDA_TUNING=${spec[$label]} timeout 150 "$rb" run --backend cuda -b 32 \
      -L 4096,16384 --head-dim 64 --path fused --json "$out/ab-$round-$label-d64b32.json" \
      > "$out/ab-$round-$label-d64b32.txt" 2>&1
    echo "run $label rc=$?" | tee -a "$log"
  done
done
step "gpu after: $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu,power.draw --format=csv,noheader)"
