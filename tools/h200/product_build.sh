#!/usr/bin/env bash
# Builds the product binaries of a commit for a device run, in a git worktree under .scratch (the
# working tree is left alone): readbench, readbench_gpu_tests and the CUDA plugin example
# (READBENCH_FUSED_CUDA_PLUGIN points the GPU tests at it there), packed into
# .scratch/rbx/NAME.tar.xz with libgomp beside it (carry .scratch/rbx; device_lib.sh unpacks
# rb.tar.xz into /tmp/rb and old.tar.xz into /tmp/rbold). Other archives there stay and travel too.
# The kernels are compiled for sm_90 only (the code the product's "80-real;90" runs on the
# H200): an archive of every architecture is 47.5 MB, and an A/B carries two archives beside the
# tree within the device tool's 64 MiB.
# Usage: tools/h200/product_build.sh [REF [NAME]]   REF: a commit (HEAD) or `worktree` (the
#        working tree's tracked files as they are now); NAME: rb
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ref=${1:-HEAD} name=${2:-rb}
if [ "$ref" = worktree ]; then
  ref=$(git -C "$root" stash create)  # a commit of the working tree; HEAD where it is clean
  ref=${ref:-HEAD}
fi
work=$root/.scratch/product-worktree
rm -rf "$root/.scratch/product" "$root/.scratch/rbx/$name.tar.xz"
mkdir -p "$root/.scratch/rbx" "$root/.scratch/product"
git -C "$root" worktree remove --force "$work" 2>/dev/null || true
rm -rf "$work"
git -C "$root" worktree prune
git -C "$root" worktree add --detach "$work" "$ref" > /dev/null
trap 'git -C "$root" worktree remove --force "$work"' EXIT
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DREADBENCH_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90-real > /dev/null
ninja -C "$work/build" readbench readbench_gpu_tests readbench_fused_cuda > /dev/null
cp "$work/build/src/readbench" "$work/build/tests/readbench_gpu_tests" \
  "$work/build/examples/plugins/libreadbench_fused_cuda.so" "$root/.scratch/product/"
tar -C "$root/.scratch/product" -cf - . | xz -9e -T2 > "$root/.scratch/rbx/$name.tar.xz"
cp -L "$(g++ -print-file-name=libgomp.so.1)" "$root/.scratch/rbx/"
echo "$name: $(git -C "$root" rev-parse --short "$ref")"
ls -l "$root/.scratch/rbx"
