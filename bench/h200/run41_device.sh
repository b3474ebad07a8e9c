#!/usr/bin/env bash
# Run 41 on the H200 (bench/h200/NOTES.md): the trigger of run 40 in the product (a block lets
# the next call launch once a warp has issued its last copies, not from the prologue). The
# product binaries of the working tree (.scratch/rbx/rb.tar.xz): GPU tests with the plugin,
# verify, compute-sanitizer's four tools over timed calls; then the variant build
# (.scratch/cvx/cv.tar.xz) times the new default against the trigger after the reads (pdl=1) in
# cuda_variants b1, twice in opposite orders; then issue 12's shapes and a plain run with the
# product readbench.
# Usage: bench/h200/run41_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san_timed_calls, shape, issue12_shapes, plain_runs
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so
mkdir -p /tmp/cv && tar -xJf "$(dirname "$0")/../../.scratch/cvx/cv.tar.xz" -C /tmp/cv

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
verify_all
san_timed_calls
step "b1: the product's trigger against the trigger after the reads (variant build)"
timeout 200 /tmp/cv/cuda_variants b1 "$out/b1-fwd.csv" "" pdl=1 > "$out/b1-fwd.txt" 2>&1
echo "b1 fwd rc=$? fails=$(grep -c FAIL "$out/b1-fwd.txt")" | tee -a "$log"
timeout 200 /tmp/cv/cuda_variants b1 "$out/b1-bwd.csv" pdl=1 "" > "$out/b1-bwd.txt" 2>&1
echo "b1 bwd rc=$? fails=$(grep -c FAIL "$out/b1-bwd.txt")" | tee -a "$log"
step "issue 12's shapes: $(smi)"
issue12_shapes all
plain_runs 1
step "gpu after: $(smi)"
