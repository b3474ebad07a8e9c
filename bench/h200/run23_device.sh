#!/usr/bin/env bash
# Run 23 on the H200 (bench/h200/NOTES.md): the product binary of the dependent-launch change
# (bench/h200/product_build.sh, carried in .scratch/rbx): GPU tests with the CUDA plugin,
# verify of every dtype pair over GQA 1/4/8, compute-sanitizer's four tools over timed,
# overlapping calls of both paths, issue 12's shapes (as run 17) and two plain `readbench run`s.
# Usage: bench/h200/run23_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san, shape, plain_runs
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
cuobjdump -sass "$rb" 2>/dev/null | grep -oE "ACQBULK|PREEXIT" | sort | uniq -c | tr '\n' ' ' | tee -a "$log"
echo | tee -a "$log"
gpu_tests
verify_all
step "compute-sanitizer over timed calls (batches overlap under the dependent launch)"
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" "run, both paths, bf16 -b 3 L 17,1000" "$rb" run --backend cuda -b 3 -L 17,1000 \
    --min-samples 2 --budget 0.02 --rounds 1 --path all --json "$out/san-$tool.json"
  san "$tool" "run, fused, e4m3 K/V -b 1 L 4099 (split)" "$rb" run --backend cuda -b 1 \
    -L 4099 --kv-dtype fp8_e4m3 --min-samples 2 --budget 0.02 --rounds 1 --path all \
    --json "$out/san-$tool-fp8.json"
done

step "issue 12's shapes: $(smi)"
shape bf16-b32 -b 32 -L 1024,4096,16384 --path all
shape d64-b32 -b 32 -L 1024,4096,16384 --head-dim 64 --path fused
shape fp8-b32 -b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3 --path fused
shape f32-b32 -b 32 -L 1024,4096,16384 --dtype f32 --path fused
shape f32-d64 -b 32 -L 1024,4096,16384 --dtype f32 --head-dim 64 --path fused
shape bf16-b1 -b 1 -L 1024:131072:x2 --path all --fit-from 1024
shape fp8-b1 -b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
shape bf16-b1-short -b 1 -L 16,64,256,1024 --path fused
plain_runs 2
step "gpu after: $(smi)"
