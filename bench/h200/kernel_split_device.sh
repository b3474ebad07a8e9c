#!/usr/bin/env bash
# The CUDA backend's checks on the GPU machine after a change to its kernels, over binaries built
# here and carried in .scratch/rb (readbench, readbench_gpu_tests, libgomp.so.1; where present,
# variants.tar.xz: cuda_variants and readbench_gpu_tests_variants, bench/h200/build.sh's): GPU
# tests, verify over every dtype, two timed points to compare with earlier runs, the variant
# build's checks, then compute-sanitizer's four tools over every kernel (gather, fused, split
# merge, stream read).
# Usage: bench/h200/kernel_split_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests

verify_all

step "timing: B=32 L=16384 and B=1 L=4096, bf16, cold"
timeout 120 "$rb" run --backend cuda -b 32 -L 16384 --json "$out/h200-b32.json" > /tmp/h200-b32.txt 2>&1
echo "run b32 rc=$?" | tee -a "$log"
timeout 120 "$rb" run --backend cuda -b 1 -L 4096 --json "$out/h200-b1.json" > /tmp/h200-b1.txt 2>&1
echo "run b1 rc=$?" | tee -a "$log"
cat /tmp/h200-b32.txt /tmp/h200-b1.txt >> "$log"
[ -f "$bin/variants.tar.xz" ] && tar -xJf "$bin/variants.tar.xz" -C "$bin"
if [ -x "$bin/readbench_gpu_tests_variants" ]; then
  step "variant build: GPU tests under bench/h200 variants, cuda_variants sanitize"
  for spec in warps=4 warps=8 warps=8,l1=1 kv=4,l1=1 merge=1 stages=4 flushread=1; do
    READBENCH_TEST_CUDA_TUNING=$spec timeout 90 "$bin/readbench_gpu_tests_variants" > "$out/t.txt" 2>&1
    echo "variant tests [$spec] rc=$? $(grep -E 'test cases' "$out/t.txt")" | tee -a "$log"
  done
  rm -f "$out/t.txt"
  timeout 90 "$bin/cuda_variants" sanitize warps=8 > "$out/variants_sanitize.log" 2>&1
  echo "cuda_variants sanitize warps=8 rc=$?" | tee -a "$log"
fi

step "compute-sanitizer: gather and fused (all dtypes, unsplit and split), stream read"
for tool in memcheck racecheck initcheck synccheck; do
  san "$tool" "verify -b 2 L 17,1000" "$rb" verify --backend cuda -b 2 --lengths 17,1000
  san "$tool" "verify -b 1 L 4099 (split)" "$rb" verify --backend cuda -b 1 --lengths 4099
  san "$tool" "stream read" "$bin/readbench_gpu_tests" -tc="device facts*"
done

step "gpu after: $(smi)"
