#!/usr/bin/env bash
# Run 32 on the H200 (bench/h200/NOTES.md): run 31 found the unsplit shapes slower with the
# staged merge compiled in (e4m3 K/V B=32 L=16384 +5%, f32 D=64 +1.5%), whose kernels never run
# it. Four readbench binaries, interleaved, three rounds: old (90bf71e), new (f961f3d), A (new
# with the merge __noinline__), B (new with its split loops not unrolled).
# .scratch/rbx: rb-old.tar.xz, rb.tar.xz, rb-ab.tar.xz (A/readbench, B/readbench), libgomp.so.1.
# Usage: bench/h200/run32_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
rbx=$(cd "$(dirname "$0")/../../.scratch/rbx" && pwd)
mkdir -p "$out" /tmp/rb-old /tmp/rb-new /tmp/rb-ab
tar -xJf "$rbx/rb-old.tar.xz" -C /tmp/rb-old
tar -xJf "$rbx/rb.tar.xz" -C /tmp/rb-new
tar -xJf "$rbx/rb-ab.tar.xz" -C /tmp/rb-ab
export LD_LIBRARY_PATH=$rbx
declare -A bin=([old]=/tmp/rb-old/readbench [new]=/tmp/rb-new/readbench [A]=/tmp/rb-ab/A/readbench [B]=/tmp/rb-ab/B/readbench)
log=$out/device.log
echo "== $(date +%T) $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader)" | tee -a "$log"
for rep in 1 2 3; do
  for which in old new A B; do
    rb=${bin[$which]}
    "$rb" run --backend cuda -b 32 -L 16384 --kv-dtype fp8_e4m3 --path fused \
      --json "$out/fp8-b32-$which-$rep.json" > /dev/null 2>&1 || echo "fp8 $which $rep failed" | tee -a "$log"
    "$rb" run --backend cuda -b 32 -L 4096 --dtype f32 --head-dim 64 --path fused \
      --json "$out/f32-d64-$which-$rep.json" > /dev/null 2>&1 || echo "f32 $which $rep failed" | tee -a "$log"
    "$rb" run --backend cuda -b 32 -L 1024 --path fused \
      --json "$out/bf16-b32-$which-$rep.json" > /dev/null 2>&1 || echo "b32 $which $rep failed" | tee -a "$log"
    "$rb" run --backend cuda -b 1 -L 1024,16384 --path fused \
      --json "$out/bf16-b1-$which-$rep.json" > /dev/null 2>&1 || echo "b1 $which $rep failed" | tee -a "$log"
  done
done
echo "== $(date +%T) done" | tee -a "$log"
