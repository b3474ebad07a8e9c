#!/usr/bin/env bash
# Run 49 on the H200 (bench/h200/NOTES.md): a split row's blocks in thread block clusters
# (`cluster=N`: up to N blocks, the largest power of two dividing the row's splits, which are
# first rounded down to a multiple of N). Each block writes its partials into the cluster's
# first block's shared memory and leaves; the first merges them, into the output where the
# row is one cluster, else into the cluster's partial, which the row's clusters merge through
# the split counter as split blocks do. Runs 38-39 put the B=1 gap in the split's tail (fence,
# atomic, the last block's wait for 32-33 partials from L2). GPU tests and compute-sanitizer
# under cluster=8 (and the tests under cluster=2), cuda_variants b1 twice (specs in opposite
# orders), timelines.
# Usage: bench/h200/run49_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, variant_checks
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
variant_checks cluster=8 memcheck racecheck synccheck initcheck
variant_checks cluster=2
specs=("" cluster=8 cluster=4 cluster=2 waves=0.97)
step "b1, forward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-fwd.csv" "${specs[@]}" > "$out/b1-fwd.txt" 2>&1
echo "b1 fwd rc=$? fails=$(grep -c FAIL "$out/b1-fwd.txt")" | tee -a "$log"
step "b1, backward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-bwd.csv" waves=0.97 cluster=2 cluster=4 cluster=8 "" \
  > "$out/b1-bwd.txt" 2>&1
echo "b1 bwd rc=$? fails=$(grep -c FAIL "$out/b1-bwd.txt")" | tee -a "$log"
timelines "" cluster=8
step done
