#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: install dependencies, then configure, build
# and test twice: with the CUDA backend where nvcc is found (GPU tests skip visibly without a
# device), and with no nvcc on the PATH, so the CPU-only build stays honest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

echo "== build and test: CUDA backend where nvcc is found =="
mkdir -p build
# A tree configured while nvcc was missing keeps "no CUDA compiler" in its cache, and CMake does
# not look again: with nvcc on the PATH now, that tree is configured afresh.
if command -v nvcc >/dev/null &&
  grep -q '^CMAKE_CUDA_COMPILER:.*NOTFOUND' build/default/CMakeCache.txt 2>/dev/null; then
  rm -f build/default/CMakeCache.txt
fi
cmake --workflow --preset default | tee build/default-workflow.log
if grep -q "readbench: CUDA backend OFF" build/default-workflow.log; then
  # No CUDA compiler here: that build was the CPU-only one, and building it again proves nothing.
  echo "== no CUDA compiler found: the build above is the CPU-only build =="
  exit 0
fi

echo "== build and test: no nvcc on the PATH =="
no_nvcc_path=$(printf '%s' "$PATH" | tr ':' '\n' |
  while read -r dir; do [ -x "$dir/nvcc" ] || printf '%s\n' "$dir"; done | paste -sd: -)
# Detection must find no CUDA compiler there and fall back to the CPU backend alone...
env -u CUDACXX PATH="$no_nvcc_path" cmake -S . -B build/autodetect -G Ninja \
  -DBUILD_TESTING=OFF | tee build/autodetect.log | grep "readbench: CUDA backend"
grep -q "readbench: CUDA backend OFF" build/autodetect.log
# ...and the CPU-only build and its tests must pass without it.
env -u CUDACXX PATH="$no_nvcc_path" cmake --workflow --preset nocuda
