#!/usr/bin/env bash
# Run 65 on the H200 (bench/h200/NOTES.md): run 64's lead for e4m3 K/V at B=1. There, e4m3 rows
# under `warps=8` (the eight-warp kernel of two stages) with 16 splits a row were 4-8% faster
# from L=8192 than the product's four-warp rows of 32-33 splits, where run 58's 32 splits of the
# same kernel were slower. Which of the two is it, the kernel or the splits? Variants of the
# variant build (no kernel change): eight-warp rows at waves 0.5, 0.625 and 0.75 (16, 20 and 24
# splits), four-warp rows at waves 0.5 (16 splits, an SM each; run 38's `waves=0.5`), the
# default. Prediction: if the splits, the four-warp rows of 16 gain as much; if the kernel,
# only the eight-warp rows, at every split count.
# Second call (65b), RUN65_SPECS='"" warps=8 warps=8,waves=0.5 warps=8,stages=3
# warps=8,stages=3,waves=0.5': two stages against three of the eight-warp kernel, at 16 splits
# and at 8 (clusters), since run 65's two-stage clusters of 8 read 3.69 TB/s at L=131072 where
# run 64's three-stage ones read 2.54. Third call (65c), RUN65_SPECS='"" stages=2,waves=0.67
# stages=2 stages=4 stages=6 l1=0': the product's four-warp blocks with fewer or more stages.
# RUN65_SPECS: the specs, space-separated, as bash words ("" the default).
# Usage: [RUN65_SPECS=...] bench/h200/run65_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, b1_passes, variant_sanitize, timelines
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
specs=("" warps=8,waves=0.5 warps=8,waves=0.625 warps=8,waves=0.75 waves=0.5)
[ -n "${RUN65_SPECS:-}" ] && eval "specs=($RUN65_SPECS)"
b1_passes "${specs[@]}"
variant_sanitize "${specs[1]}" memcheck racecheck
step done
