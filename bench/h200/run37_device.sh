#!/usr/bin/env bash
# Ran on the tree of 69f6483 with results/run35-tile-queue/tile-queue.patch applied (not adopted).
# Run 37 on the H200 (bench/h200/NOTES.md): readbench itself over three builds of the split
# kernel, interleaved (three rounds, orders rotated): 69f6483 (contiguous split shares, "old"),
# the working tree with fixed interleaved shares (draw_tiles 0, "q0") and with a queue of two
# tiles a draw (draw_tiles 2, "q2"); readbench alone each, in .scratch/abx. verify first.
# Usage: bench/h200/run37_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
abx=$(cd "$(dirname "$0")/../../.scratch/abx" && pwd)
mkdir -p "$out"
declare -A bin
for b in old q0 q2; do
  mkdir -p "/tmp/ab-$b"
  tar -xJf "$abx/$b.tar.xz" -C "/tmp/ab-$b" 2>/dev/null || tar -xJf "$abx/rb-$b.tar.xz" -C "/tmp/ab-$b"
  bin[$b]=/tmp/ab-$b/readbench
done
export LD_LIBRARY_PATH=$abx
log=$out/device.log
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
for b in q0 q2; do
  for batch in 1 7; do
    timeout 120 "${bin[$b]}" verify --backend cuda -b "$batch" --lengths 1,16,17,1000,65537 \
      >> "$out/verify-$b.log" 2>&1
    echo "verify $b B=$batch rc=$? fails so far=$(grep -c FAIL "$out/verify-$b.log")" | tee -a "$log"
  done
done
ab() {  # build, name, options...
  local which=$1 name=$2
  shift 2
  timeout 150 "${bin[$which]}" run --backend cuda "$@" --json "$out/ab-$name-$which.json" \
    > "$out/ab-$name-$which.txt" 2>&1
  echo "ab $name $which rc=$? ($*)" | tee -a "$log"
}
orders=("old q0 q2" "q2 q0 old" "q0 old q2")
for rep in 1 2 3; do
  step "round $rep: ${orders[rep - 1]}"
  for which in ${orders[rep - 1]}; do
    ab "$which" "b1-$rep" -b 1 -L 1024:131072:x2 --path fused --fit-from 1024
    ab "$which" "fp8-b1-$rep" -b 1 -L 16384,65536 --kv-dtype fp8_e4m3 --path fused
    ab "$which" "b32-$rep" -b 32 -L 1024,16384 --path fused
  done
done
step done
