#!/usr/bin/env bash
# Builds the product binaries of HEAD for a device run, in a git worktree under .scratch (the
# working tree is left alone): readbench, readbench_gpu_tests and the CUDA plugin example
# (READBENCH_FUSED_CUDA_PLUGIN points the GPU tests at it there), packed with libgomp into
# .scratch/rbx/rb.tar.xz (carry .scratch/rbx; device_lib.sh unpacks it into /tmp/rb). Other
# archives in .scratch/rbx (cuda_variants' cv.tar.xz) stay and travel too.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/.scratch/product-worktree
rm -rf "$root/.scratch/product" "$root/.scratch/rbx/rb.tar.xz"
mkdir -p "$root/.scratch/rbx" "$root/.scratch/product"
git -C "$root" worktree remove --force "$work" 2>/dev/null || true
rm -rf "$work"
git -C "$root" worktree prune
git -C "$root" worktree add --detach "$work" HEAD > /dev/null
trap 'git -C "$root" worktree remove --force "$work"' EXIT
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DREADBENCH_CUDA=ON > /dev/null
ninja -C "$work/build" readbench readbench_gpu_tests readbench_fused_cuda > /dev/null
cp "$work/build/src/readbench" "$work/build/tests/readbench_gpu_tests" \
  "$work/build/examples/plugins/libreadbench_fused_cuda.so" "$root/.scratch/product/"
tar -C "$root/.scratch/product" -cf - . | xz -6 -T2 > "$root/.scratch/rbx/rb.tar.xz"
cp -L "$(g++ -print-file-name=libgomp.so.1)" "$root/.scratch/rbx/"
ls -l "$root/.scratch/rbx"
