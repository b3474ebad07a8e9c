#!/usr/bin/env bash
# Run 30 on the H200 (bench/h200/NOTES.md): the product binary of the staged split merge (run 29),
# carried in .scratch/rbx/rb.tar.xz: GPU tests with the plugin, verify, compute-sanitizer's four
# tools over timed calls with 8, 32 and 257 splits (one KV head: a merge in batches) and e4m3
# K/V; then issue 12's shapes and two plain runs.
# Usage: bench/h200/run30_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san, shape, plain_runs
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
verify_all
step "compute-sanitizer over timed calls"
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" "run, both paths, -b 1 L 1000,16384 (8 and 32 splits)" "$rb" run \
    --backend cuda -b 1 -L 1000,16384 --min-samples 2 --budget 0.02 --rounds 1 --path all \
    --json "$out/san.json"
  san "$tool" "run, fused, e4m3 K/V -b 2 L 4099" "$rb" run --backend cuda -b 2 -L 4099 \
    --kv-dtype fp8_e4m3 --min-samples 2 --budget 0.02 --rounds 1 --path fused --json "$out/san.json"
  san "$tool" "run, both paths, Hq 8 Hkv 1 -b 1 L 65537 (257 splits)" "$rb" run --backend cuda \
    -b 1 --q-heads 8 --kv-heads 1 -L 65537 --min-samples 2 --budget 0.02 --rounds 1 --path all \
    --json "$out/san.json"
done
rm -f "$out/san.json"
step "issue 12's shapes: $(smi)"
shape bf16-b32 -b 32 -L 1024,4096,16384 --path all
shape d64-b32 -b 32 -L 1024,4096,16384 --head-dim 64 --path fused
shape fp8-b32 -b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3 --path fused
shape f32-b32 -b 32 -L 1024,4096,16384 --dtype f32 --path fused
shape f32-d64 -b 32 -L 1024,4096,16384 --dtype f32 --head-dim 64 --path fused
shape bf16-b1 -b 1 -L 1024:131072:x2 --path all --fit-from 1024
shape fp8-b1 -b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
shape bf16-b1-short -b 1 -L 16,64,256,512,1024,2048 --path fused
plain_runs 2
step "gpu after: $(smi)"
