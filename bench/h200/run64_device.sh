#!/usr/bin/env bash
# Run 64 on the H200 (bench/h200/NOTES.md): a B=1 row as one cluster of 8-14 blocks, an SM each.
# Runs 38-63 put the B=1 gap in the counter merge's tail (fence, atomic, the merging block's
# wait); rows of at most 8 splits as one cluster (run 52) have no such tail (3.4 us fixed cost at
# L <= 2048), but from L=4096 a row takes 16-33 splits, and rows of several clusters, or of 16,
# were slower or not resident (runs 49, 50, 58). Variants of the variant build (no kernel
# change): every B=1 row one cluster, its blocks an SM each, at any length:
#   warps=8,stages=3,waves=0.5             8 splits of eight-warp blocks (128 KiB in flight an
#                                          SM): 64 SMs
#   warps=8,stages=3,waves=0.5,cluster=1   the same blocks merged through the counter
#   warps=8,stages=3,waves=0.73,cluster=12 12 splits: 96 SMs, if 8 clusters of 12 are resident
#   warps=8,stages=3,waves=0.85,cluster=14 14 splits: 112 SMs, likewise
#   waves=0.365,cluster=12 / waves=0.425,cluster=14   four-warp blocks (64 KiB in flight an SM)
# Prediction: if 64 SMs stream at the ceiling, bf16 B=1 L=4096-16384 1.5-2 us faster (L=16384
# about 18.5 us in b1's replay); if an SM's bytes in flight bound it, the long calls slower in
# proportion to the SMs left idle (L=131072: 64 SMs at 4.5 TB/s need 70 GB/s an SM).
# The b1 column `cluster` says which rows became clusters (the residency check).
# Usage: bench/h200/run64_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, b1_passes, variant_sanitize, timelines
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
specs=("" warps=8,stages=3,waves=0.5 warps=8,stages=3,waves=0.5,cluster=1
       warps=8,stages=3,waves=0.73,cluster=12 warps=8,stages=3,waves=0.85,cluster=14
       waves=0.365,cluster=12 waves=0.425,cluster=14)
b1_passes "${specs[@]}"
# The GPU tests stay here (the 64 MiB that travels holds one variant binary): b1 checks each
# call against the f64 reference before it times it; memcheck and racecheck over `sanitize`.
variant_sanitize warps=8,stages=3,waves=0.5 memcheck racecheck
timelines "" warps=8,stages=3,waves=0.5
step done
