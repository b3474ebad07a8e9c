#!/usr/bin/env bash
# Run 42 on the H200 (bench/h200/NOTES.md): readbench itself, the product of `c7a8435` (the
# trigger after each block's reads, "old") against the working tree's (run 41's trigger once a
# warp's last copies are issued, "new"), interleaved, three rounds with the order alternating:
# the shapes run 41 measured against earlier runs' numbers (the headline, e4m3 K/V B=32
# L=16384, B=32 L=1024 and D=64 L=4096, B=1 bf16 L=16384 and e4m3 L=65536). Binaries in
# .scratch/abx (readbench alone each; libgomp from .scratch/rbx).
# (Its preamble moved into ab_lib.sh after it ran: the same steps.)
# Usage: bench/h200/run42_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/ab_lib.sh"  # bin, log, step, ab
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
orders=("old new" "new old" "old new")
for rep in 1 2 3; do
  step "round $rep: ${orders[rep - 1]}"
  for which in ${orders[rep - 1]}; do
    ab "$which" "b32-$rep" -b 32 -L 1024,16384
    ab "$which" "fp8-b32-$rep" -b 32 -L 16384 --kv-dtype fp8_e4m3
    ab "$which" "d64-$rep" -b 32 -L 4096 --head-dim 64
    ab "$which" "b1-$rep" -b 1 -L 16384
    ab "$which" "fp8-b1-$rep" -b 1 -L 65536 --kv-dtype fp8_e4m3
  done
done
step done
