#!/usr/bin/env bash
# Run 25 on the H200 (bench/h200/NOTES.md): the product binary of the merge change (sixteen
# splits' partials in flight, each log-sum-exp read once; 128-token splits while every block
# keeps an SM), carried in .scratch/rbx/rb.tar.xz: GPU tests, verify, compute-sanitizer's four
# tools over timed calls with many and with short splits, issue 12's shapes, two plain runs;
# then the variant build (.scratch/rbx/cv.tar.xz): b1 with and without the short-split rule,
# and the timelines.
# Usage: bench/h200/run25_device.sh OUTDIR check|measure (two device calls: each within the limit)
set -u -o pipefail
out=${1:?OUTDIR}
mode=${2:?check or measure}
mkdir -p "$out" /tmp/cv
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san, shape, plain_runs
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
if [ "$mode" = check ]; then
gpu_tests
verify_all
step "compute-sanitizer over timed calls"
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" "run, both paths, -b 1 L 1000,16384 (8 and 32 splits)" "$rb" run \
    --backend cuda -b 1 -L 1000,16384 --min-samples 2 --budget 0.02 --rounds 1 --path all \
    --json "$out/san.json"
  san "$tool" "run, fused, e4m3 K/V -b 2 L 4099" "$rb" run --backend cuda -b 2 -L 4099 \
    --kv-dtype fp8_e4m3 --min-samples 2 --budget 0.02 --rounds 1 --path fused --json "$out/san.json"
done
rm -f "$out/san.json"
exit 0
fi
step "issue 12's shapes: $(smi)"
shape bf16-b32 -b 32 -L 1024,4096,16384 --path all
shape d64-b32 -b 32 -L 1024,4096,16384 --head-dim 64 --path fused
shape fp8-b32 -b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3 --path fused
shape f32-b32 -b 32 -L 1024,4096,16384 --dtype f32 --path fused
shape f32-d64 -b 32 -L 1024,4096,16384 --dtype f32 --head-dim 64 --path fused
shape bf16-b1 -b 1 -L 1024:131072:x2 --path all --fit-from 1024
shape fp8-b1 -b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
plain_runs 2
step "variant build: b1 with and without the short-split rule, timelines"
tar -xJf "$(dirname "$0")/../../.scratch/rbx/cv.tar.xz" -C /tmp/cv
export LD_LIBRARY_PATH=/tmp/cv:$LD_LIBRARY_PATH
timeout 240 /tmp/cv/cuda_variants b1 "$out/b1.csv" "" shortsplit=0 > "$out/b1.txt" 2>&1
echo "b1 rc=$? failures: $(grep -c FAIL "$out/b1.txt")" | tee -a "$log"
timeout 120 /tmp/cv/cuda_variants timeline "$out" > "$out/timeline.txt" 2>&1
echo "timeline rc=$?" | tee -a "$log"
step "gpu after: $(smi)"
