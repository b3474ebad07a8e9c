#!/usr/bin/env bash
# Run 56 on the H200 (bench/h200/NOTES.md): the variant `l2pf=N`. While a block of a dependent
# launch waits for the kernel before it (its q, outputs and split workspace), each warp asks L2
# for up to N of its tiles past the pipeline's (cp.async.bulk.prefetch.L2), so that memory stays
# busy through the previous call's tail and the copies after the wait come from L2. Runs 38 and
# 45 put the B=1 gap between calls (the merging blocks, the grid's completion, few blocks
# reading); prediction: B=1 L=16384 -1 to -2 us, the long B=1 calls -2 to -4%, B=32 unchanged.
# GPU tests and compute-sanitizer under l2pf=16; cuda_variants b1 (now at least three calls a
# sample) three times, the middle one in the opposite order; timelines.
# The variant was built for this run only and is not in the tree (NOTES.md describes it).
# Usage: bench/h200/run56_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, variant_checks, timelines
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
variant_checks l2pf=16 memcheck racecheck synccheck initcheck
specs=("" l2pf=2 l2pf=4 l2pf=8 l2pf=16 l2pf=8,waves=0.97)
for pass in fwd1 bwd fwd2; do
  order=("${specs[@]}")
  [ $pass = bwd ] && order=(l2pf=8,waves=0.97 l2pf=16 l2pf=8 l2pf=4 l2pf=2 "")
  step "b1, $pass"
  timeout 150 /tmp/cv/cuda_variants b1 "$out/b1-$pass.csv" "${order[@]}" > "$out/b1-$pass.txt" 2>&1
  echo "b1 $pass rc=$? fails=$(grep -c FAIL "$out/b1-$pass.txt")" | tee -a "$log"
done
timelines "" l2pf=8
step done
cd "$out" && tar -cJf timelines.tar.xz timeline-*/ && rm -rf timeline-*/
