#!/usr/bin/env bash
# Run 57 on the H200 (bench/h200/NOTES.md): the product binaries of the working tree, whose split
# rows are merged by their first split's block as the other splits' partials land (each word of
# the workspace is final once it differs from the fill the merging block puts back; no fence, no
# counter, no atomic: the other blocks write their partials and leave), against those of
# `470f093` (.scratch/rbx/old.tar.xz; the last kernel change was `f6f3b21`). Runs 38 and 47 put
# 6-7 us between a B=1 L=16384 call's last read and its last merge's end: the merging block's
# epilogue, its fence and atomic (0.6-1.3 us) and its merge (2.2-3.9 us, 1.3-2.6 us of it
# waiting for the partials). Prediction: B=1 from L=4096 (16-33 splits, the counter merge) 1-2
# us faster a call; the cluster rows (L <= 2048) and the unsplit B=32 calls unchanged.
# GPU tests, verify, A/B rounds, compute-sanitizer over timed calls, issue 12's shapes, a plain
# run (the last two only while time is left).
# Results: results/run57-merge-as-they-land/.
# Usage: bench/h200/run57_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, shape, ab_rounds, ...
t0=$(date +%s)
start_ab
gpu_tests
verify_all
{ kernel_ab_shapes; echo 'gather-b1|-b 1 -L 4096,65536 --path gather'; } | ab_rounds 3
san_timed_calls
if [ $(( $(date +%s) - t0 )) -lt 400 ]; then
  step "issue 12's shapes: $(smi)"
  issue12_shapes fused
fi
if [ $(( $(date +%s) - t0 )) -lt 470 ]; then plain_runs 1; fi
step "gpu after: $(smi)"
