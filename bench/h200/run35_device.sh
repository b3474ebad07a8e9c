#!/usr/bin/env bash
# Ran on the tree of 69f6483 with results/run35-tile-queue/tile-queue.patch applied (not adopted).
# Run 35 on the H200 (bench/h200/NOTES.md): a split row's tiles shared by its warps through a
# queue (the working tree's product build, .scratch/rbx/rb.tar.xz) against the static split
# shares of 69f6483 (its readbench alone, .scratch/rbx/rb-old.tar.xz): the new build's GPU tests
# with the plugin, verify, compute-sanitizer's four tools over timed split calls; then the two
# binaries interleaved over split shapes and one unsplit control, three rounds; then issue 12's
# shapes with the new build.
# Usage: bench/h200/run35_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, packed, log, smi, step, gpu_tests, verify_all, ...
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so
mkdir -p /tmp/rb-old && tar -xJf "$packed/rb-old.tar.xz" -C /tmp/rb-old
declare -A which_bin=([old]=/tmp/rb-old/readbench [new]=$rb)
step "gpu: $(smi); host cpus $(nproc); new $("$rb" --version); old $(/tmp/rb-old/readbench --version)"
gpu_tests
verify_all
san_timed_calls
ab_shape() {  # binary (old or new), name, readbench run options...
  local which=$1 name=$2
  shift 2
  timeout 150 "${which_bin[$which]}" run --backend cuda "$@" --json "$out/ab-$name-$which.json" \
    > "$out/ab-$name-$which.txt" 2>&1
  echo "ab $name $which rc=$? ($*)" | tee -a "$log"
}
step "interleaved: old (static split shares) and new (a queue per split row)"
for rep in 1 2 3; do
  order=(old new)
  [ $((rep % 2)) -eq 0 ] && order=(new old)
  for which in "${order[@]}"; do
    ab_shape "$which" "b1-$rep" -b 1 -L 1024:131072:x2 --path fused --fit-from 1024
    ab_shape "$which" "fp8-b1-$rep" -b 1 -L 16384,65536 --kv-dtype fp8_e4m3 --path fused
    ab_shape "$which" "f32-b1-$rep" -b 1 -L 16384 --dtype f32 --path fused
    ab_shape "$which" "d64-b1-$rep" -b 1 -L 16384 --head-dim 64 --path fused
    ab_shape "$which" "b32-$rep" -b 32 -L 1024,16384 --path fused
  done
done
step "issue 12's shapes, new build: $(smi)"
issue12_shapes fused
step "gpu after: $(smi)"
