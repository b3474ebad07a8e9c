#!/usr/bin/env bash
# Run 63 on the H200 (bench/h200/NOTES.md): split partials in the output's type.
# Runs 38-60 put most of a split row's tail in the merging block's wait for the row's partials:
# 32-33 splits of 4 heads of 128 f32 (67 KB) landing 1.3-2.6 us after the block's atomic. The
# product binaries of the working tree (each split's normalized partial output stored as bf16 or
# f16 where the output is, f32 where it is f32: half the bytes written, fenced and staged, and half
# the 16-byte copies; the log-sum-exps stay f32) against those of `9acc80e` (same kernels as HEAD
# before the change). Prediction: split calls (B=1 from L=4096, B=3) 0.3-1 us faster, the
# cluster rows and unsplit calls unchanged; the outputs of split calls change by one more
# rounding of each partial (bf16 2^-9, f16 2^-12 relative), inside the reference tolerances.
# GPU tests, verify (new; the old binary's B=1 errors beside it), three A/B rounds,
# compute-sanitizer's four tools over timed calls, issue 12's shapes with the new binary.
# Results: results/run63-partials-in-output-type/.
# Usage: bench/h200/run63_device.sh OUTDIR (the device returns 8 files at most: run it into a
#        folder under /tmp and pack that into $OUT)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
start_ab
gpu_tests
verify_all
step "verify with the old binary, B=1"
for heads in "8 8" "32 8" "64 8"; do
  set -- $heads
  timeout 120 "$old" verify --backend cuda --q-heads "$1" --kv-heads "$2" -b 1 \
    --lengths 1,16,17,1000,65537 >> "$out/verify-old.log" 2>&1
  echo "old verify Hq=$1 Hkv=$2 B=1 rc=$?" | tee -a "$log"
done
kernel_ab_shapes | ab_rounds 3
san_timed_calls
step "issue 12's shapes, new binary"
issue12_shapes fused
step "gpu after: $(smi)"
