#!/usr/bin/env bash
# Builds the three product binaries bench/h200/f32_device.sh compares, in a git worktree of HEAD
# under .scratch (the working tree is left alone): old (HEAD), a (HEAD with
# pending/f32-tile-4k.patch) and b (a with pending/f32-lanes.patch), each readbench with
# readbench_gpu_tests, packed with libgomp into .scratch/rbx for the device call
# (carry .scratch/rbx). About 6 minutes on two cores: one full build, then two rebuilds of the
# CUDA objects.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$root/.scratch/f32-worktree
stage=$root/.scratch/f32-builds
rm -rf "$stage" && mkdir -p "$stage"/{old,a,b} "$root/.scratch/rbx"
git -C "$root" worktree remove --force "$work" 2>/dev/null || true
git -C "$root" worktree prune
git -C "$root" worktree add --detach "$work" HEAD > /dev/null
trap 'git -C "$root" worktree remove --force "$work"' EXIT
cmake -S "$work" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DREADBENCH_CUDA=ON > /dev/null
take() {  # folder
  ninja -C "$work/build" readbench readbench_gpu_tests > /dev/null
  cp "$work/build/src/readbench" "$work/build/tests/readbench_gpu_tests" "$stage/$1/"
}
take old
git -C "$work" apply "$root/bench/h200/pending/f32-tile-4k.patch"
take a
git -C "$work" apply "$root/bench/h200/pending/f32-lanes.patch"
take b
tar -C "$stage" -cf - old a b | xz -6 -T2 > "$root/.scratch/rbx/rb.tar.xz"
cp -L "$(g++ -print-file-name=libgomp.so.1)" "$root/.scratch/rbx/"
ls -l "$root/.scratch/rbx"
