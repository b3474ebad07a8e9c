#!/usr/bin/env bash
# Builds the CUDA backend's GPU tests and the variant driver without the rest of the tree, into
# .scratch/bin with libgomp beside them, ready to carry to the device machine.
# Usage: bench/h200/build.sh [CUDA_ARCHITECTURES, default 90]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
arch=${1:-90}
mkdir -p "$root/.scratch/bin"
cmake -S "$root/bench/h200" -B "$root/.scratch/build-$arch" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="$arch" > /dev/null
ninja -C "$root/.scratch/build-$arch"
cp "$root/.scratch/build-$arch/readbench_gpu_tests" "$root/.scratch/build-$arch/cuda_variants" \
  "$root/.scratch/bin/"
cp -L "$(g++ -print-file-name=libgomp.so.1)" "$root/.scratch/bin/"
