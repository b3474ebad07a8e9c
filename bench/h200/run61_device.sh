#!/usr/bin/env bash
# Run 61 on the H200 (bench/h200/NOTES.md): the mma kernels' epilogue stores four d's at a time.
# Run 60's timelines: the last block of a call to finish its reads takes 1.6-1.9 us to write its
# partials at e4m3 K/V B=1 L=65536 against 1.1 us at bf16, and some e4m3 blocks 5-8 us, with or
# without the next call beside them; MmaMath::store wrote one float a lane a store, 8-way
# bank-conflicted at bf16 and 16-way at e4m3 (a lane's runs of d are 8 and 16 long). The
# product binaries of the working tree (one 16-byte store for four consecutive d's: a quarter
# of the stores, each 4-way) against those of `470f093` (.scratch/rbx/old.tar.xz). Prediction:
# e4m3 K/V B=1 split calls 0.3-0.7 us faster, bf16 0.1-0.3 us; unsplit B=32 within noise; the
# outputs bit for bit unchanged (same values, same places).
# GPU tests, verify, three A/B rounds, compute-sanitizer's four tools over timed calls.
# Results: results/run61-vector-epilogue/.
# Usage: bench/h200/run61_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
start_ab
gpu_tests
verify_all
kernel_ab_shapes | ab_rounds 3
san_timed_calls
step "gpu after: $(smi)"
