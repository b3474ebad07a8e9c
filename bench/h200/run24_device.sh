#!/usr/bin/env bash
# Run 24 on the H200 (bench/h200/NOTES.md): the product binary with the first call of a sample
# never a dependent launch (bench/h200/product_build.sh, in .scratch/rbx/rb.tar.xz): GPU tests,
# compute-sanitizer over timed calls, issue 12's short-call shapes and two plain runs; then the
# variant build's timelines (.scratch/rbx/cv.tar.xz: cuda_variants timeline).
# Usage: bench/h200/run24_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out" /tmp/cv
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san, shape, plain_runs
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
step "compute-sanitizer over timed calls"
for tool in memcheck racecheck synccheck; do
  san "$tool" "run, both paths, bf16 -b 3 L 17,1000" "$rb" run --backend cuda -b 3 -L 17,1000 \
    --min-samples 2 --budget 0.02 --rounds 1 --path all --json "$out/san-$tool.json"
done
step "issue 12's shapes: $(smi)"
shape bf16-b32 -b 32 -L 1024,4096,16384 --path all
shape d64-b32 -b 32 -L 1024,4096,16384 --head-dim 64 --path fused
shape fp8-b32 -b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3 --path fused
shape bf16-b1 -b 1 -L 1024:131072:x2 --path all --fit-from 1024
shape fp8-b1 -b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
plain_runs 2
step "timelines (variant build)"
tar -xJf "$(dirname "$0")/../../.scratch/rbx/cv.tar.xz" -C /tmp/cv
LD_LIBRARY_PATH=/tmp/cv:$LD_LIBRARY_PATH timeout 200 /tmp/cv/cuda_variants timeline "$out" \
  > "$out/timeline.txt" 2>&1
echo "timeline rc=$?" | tee -a "$log"
step "gpu after: $(smi)"
