#!/usr/bin/env bash
# Run 66 on the H200 (bench/h200/NOTES.md): before the eight-warp rows of run 65 go into the
# product, where does each layout win? Run 65 gave e4m3 K/V B=1 eight-warp rows of 16 splits
# (5-8% faster from L=8192, slower at L=4096) and bf16 B=1 eight-warp clusters of 8 (L=4096 -13%),
# but no e4m3 row as a cluster of 8 eight-warp blocks between L=4096 and L=8192. Variants of the
# variant build (no kernel change): `warps=8,waves=0.25` (e4m3: 8 splits, one cluster a row;
# bf16: 4), `warps=8,waves=0.5` (e4m3: 16 splits; bf16: 8, one cluster a row), the default.
# Prediction: e4m3 L=4096 and L=8192 as clusters of 8 take about bf16's L=2048 and L=4096
# times of the same layout (5.9 and 7.9 us, the same bytes), against 7.5 and 10.5 us now.
# Usage: bench/h200/run66_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, b1_passes, variant_sanitize
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
specs=("" warps=8,waves=0.25 warps=8,waves=0.5)
b1_passes "${specs[@]}"
variant_sanitize "${specs[1]}" memcheck racecheck
step done
