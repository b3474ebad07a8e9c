#!/usr/bin/env bash
# Run 40 on the H200 (bench/h200/NOTES.md): run 39's earlier trigger (pdl=5: a block lets the
# next call launch once a warp has issued its last copies) helped bf16 and B=32 short calls
# and cost e4m3 B=1 L=2048-4096 10-15%, where a warp's few tiles are all issued in the prologue
# and the trigger comes at the block's start (pdl=2's pile-up). pdl=6: the same trigger, but
# not before the warp's first tile is consumed; with and without waves=0.97 (at most 32 splits
# of 8 rows). The variant build of the working tree (.scratch/cvx/cv.tar.xz): GPU tests and
# memcheck / racecheck under pdl=6, then cuda_variants b1 twice (specs in opposite orders).
# (Its preamble moved into variant_lib.sh after it ran: the same steps; gpu_tests.log then.)
# Usage: bench/h200/run40_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, variant_checks
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
variant_checks pdl=6 memcheck racecheck
step "b1, forward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-fwd.csv" "" pdl=5 pdl=6 pdl=6,waves=0.97 \
  > "$out/b1-fwd.txt" 2>&1
echo "b1 fwd rc=$? fails=$(grep -c FAIL "$out/b1-fwd.txt")" | tee -a "$log"
step "b1, backward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-bwd.csv" pdl=6,waves=0.97 pdl=6 pdl=5 "" \
  > "$out/b1-bwd.txt" 2>&1
echo "b1 bwd rc=$? fails=$(grep -c FAIL "$out/b1-bwd.txt")" | tee -a "$log"
step done
