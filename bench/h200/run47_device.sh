#!/usr/bin/env bash
# Run 47 on the H200 (bench/h200/NOTES.md): a split block's arrival at the merge counter as one
# thread's acquire-release fence and a relaxed atomic after the block's barrier (`fence=1`),
# against every thread's sequentially consistent fence before it (the product). Runs 38-39 put
# 0.3-1.3 us of a split block's tail in the fence and 0.6-1.9 us in the atomic, SM time the next
# call's blocks wait for. Alone and with waves=0.97 (at most 32 splits). GPU tests and
# compute-sanitizer under fence=1, cuda_variants b1 twice (specs in opposite orders), timelines.
# In this run `fence=1` named the new arrival; the product adopted it in run 48, and `fence=1`
# names the old fences since (run with that build, this script's labels are swapped).
# Usage: bench/h200/run47_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, variant_checks
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
variant_checks fence=1 memcheck racecheck synccheck
specs=("" fence=1 waves=0.97 fence=1,waves=0.97)
step "b1, forward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-fwd.csv" "${specs[@]}" > "$out/b1-fwd.txt" 2>&1
echo "b1 fwd rc=$? fails=$(grep -c FAIL "$out/b1-fwd.txt")" | tee -a "$log"
step "b1, backward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-bwd.csv" fence=1,waves=0.97 waves=0.97 fence=1 "" \
  > "$out/b1-bwd.txt" 2>&1
echo "b1 bwd rc=$? fails=$(grep -c FAIL "$out/b1-bwd.txt")" | tee -a "$log"
timelines "" fence=1
step done
