#!/usr/bin/env bash
# Run 55 on the H200 (bench/h200/NOTES.md): the product binaries of `470f093`'s code with
# Tuning::waves = 0.97 (a B=1 row of 8 KV heads splits 32 ways instead of 33, a B=3 batch 10
# instead of 11; B=32 plans unchanged; stamped `f1d2619-dirty`) against those of `470f093`
# (.scratch/rbx/old.tar.xz).
# Runs 39, 47 and 50 timed it as a variant (cuda_variants): -0.6 to -1.2% at bf16 B=1 L >= 32768,
# -0.4 to -3.2% at e4m3 L=32768-65536, +0.8% at e4m3 L=131072 (run 47). GPU tests and verify with
# the new binary; readbench's B=1 grids, a B=3 grid and two B=32 controls, three rounds with the
# order of the two binaries alternating.
# Results: results/run55-waves/.
# Usage: bench/h200/run55_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, shape, ab_rounds, ...
start_ab
gpu_tests
verify_all
kernel_ab_shapes | ab_rounds 3
step "gpu after: $(smi)"
