#!/usr/bin/env bash
# Builds the CUDA backend with its bench-only kernel variants (READBENCH_BENCH_VARIANTS): the GPU
# tests, the variant driver and readbench itself (READBENCH_CUDA_TUNING=SPEC runs its sweep under
# a tuning), into .scratch/bin with libgomp beside them, ready to carry to the device machine.
# Usage: tools/h200/build.sh [CUDA_ARCHITECTURES, default 90]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
arch=${1:-90}
build=$root/.scratch/build-variants-$arch
mkdir -p "$root/.scratch/bin"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DREADBENCH_CUDA=ON \
  -DREADBENCH_BENCH_VARIANTS=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" > /dev/null
ninja -C "$build" readbench readbench_gpu_tests cuda_variants
cp "$build/src/readbench" "$build/tests/readbench_gpu_tests" "$build/tools/h200/cuda_variants" \
  "$root/.scratch/bin/"
cp -L "$(g++ -print-file-name=libgomp.so.1)" "$root/.scratch/bin/"
