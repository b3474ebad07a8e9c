#!/usr/bin/env bash
# Run 26 on the H200 (bench/h200/NOTES.md): the final product binary of the session (the
# 128-token split only for a history split anyway): GPU tests, compute-sanitizer memcheck and
# racecheck over timed short splits, and the short B=1 lengths the split rule touches.
# Usage: bench/h200/run26_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so
step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
for tool in memcheck racecheck; do
  san "$tool" "run, both paths, -b 1 L 256,512,1024" "$rb" run --backend cuda -b 1 \
    -L 256,512,1024 --min-samples 2 --budget 0.02 --rounds 1 --path all --json "$out/san.json"
done
rm -f "$out/san.json"
for kv in bf16 fp8_e4m3; do
  timeout 120 "$rb" run --backend cuda -b 1 -L 256,384,512,768,1024,2048,4096 --path fused \
    --kv-dtype "$kv" --json "$out/b1-short-$kv.json" > "$out/b1-short-$kv.txt" 2>&1
  echo "run b1-short-$kv rc=$?" | tee -a "$log"
done
step "gpu after: $(smi)"
