#!/usr/bin/env bash
# Run 50 on the H200 (bench/h200/NOTES.md): run 49's clusters only where a row's splits are one
# cluster (`cluster=N`: rows of at most N splits, N up to 16, every cluster of the grid resident
# at once), the first block merging them into the output; `spread=1` asks each block for more
# than half an SM's shared memory so that a cluster's blocks take SMs of their own. Run 49: one
# cluster a row, B=1 L=1024 -13% (bf16) / -18% (e4m3), but bf16 L=2048 +10%; rows of several
# clusters 7-57% slower (clusters not all resident, a second merge level). GPU tests and
# compute-sanitizer under cluster=16, the tests under cluster=8,spread=1, cuda_variants b1
# twice (specs in opposite orders), timelines.
# Usage: bench/h200/run50_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, variant_checks
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
variant_checks cluster=16 memcheck racecheck synccheck initcheck
variant_checks cluster=8,spread=1
specs=("" cluster=8 cluster=16 cluster=8,spread=1 cluster=16,spread=1 waves=0.97)
step "b1, forward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-fwd.csv" "${specs[@]}" > "$out/b1-fwd.txt" 2>&1
echo "b1 fwd rc=$? fails=$(grep -c FAIL "$out/b1-fwd.txt")" | tee -a "$log"
step "b1, backward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-bwd.csv" waves=0.97 cluster=16,spread=1 \
  cluster=8,spread=1 cluster=16 cluster=8 "" > "$out/b1-bwd.txt" 2>&1
echo "b1 bwd rc=$? fails=$(grep -c FAIL "$out/b1-bwd.txt")" | tee -a "$log"
timelines "" cluster=16 cluster=16,spread=1
step done
