#!/usr/bin/env bash
# Run 60 on the H200 (bench/h200/NOTES.md): is the long epilogue of e4m3 K/V's merging blocks
# the next call's doing? Run 58's timelines gave the merging blocks of e4m3 K/V B=1 L=65536 an
# epilogue (their partials written) of 2.9-5.1 us against 1.2-1.7 us at bf16, where run 59's ncu
# of a lone call found nothing in that code to wait for. Timelines of the variant build of run 58
# (.scratch/cvx/cv.tar.xz, the product's kernels) under the product's trigger, `pdl=4` (no
# trigger: the next call launches as this one's blocks exit, so no block of it shares an SM
# with a merging block) and `pdl=1` (the trigger once each block's reads are done, runs 22-40).
# Prediction, if the next call's blocks are what the epilogue waits for: 1.2-1.7 us under
# `pdl=4` at both dtypes.
# Usage: bench/h200/run60_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, timelines
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
timelines "" pdl=4 pdl=1
step done
