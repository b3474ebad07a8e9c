#!/usr/bin/env bash
# Run 45 on the H200 (bench/h200/NOTES.md): the product binaries of `aa945de` (.scratch/rbx),
# whose CUDA backend now waits for its uploads and counter memset before the first call: GPU
# tests with the plugin, verify, compute-sanitizer's four tools over timed calls; issue 12's
# shapes; the explicit B=1 grid 4096..262144; two plain `readbench run`s (issue 8's H200
# targets), checked and compared against each other by the same binary's readers.
# Usage: bench/h200/run45_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san_timed_calls, shape, issue12_shapes, plain_runs
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
verify_all
san_timed_calls
step "issue 12's shapes: $(smi)"
issue12_shapes all
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
plain_runs 2
step "readers: check and compare of the two plain runs"
"$rb" check "$out/plain-2.json" --baseline "$out/plain-1.json" > "$out/check-plain.md" 2>&1
echo "check plain-2 against plain-1 rc=$?" | tee -a "$log"
"$rb" compare "$out/plain-1.json" "$out/plain-2.json" > "$out/compare-plain.md" 2>&1
echo "compare rc=$?" | tee -a "$log"
step "gpu after: $(smi)"
