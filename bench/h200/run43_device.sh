#!/usr/bin/env bash
# Run 43 on the H200 (bench/h200/NOTES.md): the trigger of run 41 no longer fires where a warp's
# copies all went out before its first tile (my_tiles == kStages: it = 0); the working tree's
# product binaries (.scratch/rbx/rb.tar.xz): GPU tests with the plugin; then readbench of
# `c7a8435` ("old", the trigger after the reads) against the working tree's ("new"),
# interleaved, two rounds: run 42's shapes and the two where a warp holds exactly kStages tiles
# (bf16 B=1 L=1536: 8 splits of 192 tokens, 3 tiles a warp; e4m3 B=1 L=10240: 32 of 320, 5).
# Usage: bench/h200/run43_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/ab_lib.sh"  # bin, log, step, ab
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
mkdir -p /tmp/rb && tar -xJf "$abx/../rbx/rb.tar.xz" -C /tmp/rb
READBENCH_FUSED_CUDA_PLUGIN=/tmp/rb/libreadbench_fused_cuda.so LD_LIBRARY_PATH=/tmp/rb:$LD_LIBRARY_PATH \
  timeout 120 /tmp/rb/readbench_gpu_tests > "$out/gpu_tests.log" 2>&1
echo "gpu tests rc=$? $(grep -E 'test cases' "$out/gpu_tests.log")" | tee -a "$log"
orders=("old new" "new old")
for rep in 1 2; do
  step "round $rep: ${orders[rep - 1]}"
  for which in ${orders[rep - 1]}; do
    ab "$which" "b32-$rep" -b 32 -L 1024,16384
    ab "$which" "d64-$rep" -b 32 -L 4096 --head-dim 64
    ab "$which" "b1-$rep" -b 1 -L 1536,16384
    ab "$which" "fp8-b1-$rep" -b 1 -L 10240,65536 --kv-dtype fp8_e4m3
  done
done
step done
