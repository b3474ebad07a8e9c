#!/usr/bin/env bash
# Run 31 on the H200 (bench/h200/NOTES.md): did the staged split merge (f961f3d) change the
# unsplit shapes, whose kernels only compile it? The product binaries before it (90bf71e,
# .scratch/rbx/rb-old.tar.xz) and with it (.scratch/rbx/rb.tar.xz), interleaved: three rounds,
# each shape run by the old binary, then the new one.
# Usage: bench/h200/run31_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out" /tmp/rb-new /tmp/rb-old
rbx=$(cd "$(dirname "$0")/../../.scratch/rbx" && pwd)
tar -xJf "$rbx/rb.tar.xz" -C /tmp/rb-new
tar -xJf "$rbx/rb-old.tar.xz" -C /tmp/rb-old
cp "$rbx/libgomp.so.1" /tmp/rb-new/ && cp "$rbx/libgomp.so.1" /tmp/rb-old/
log=$out/device.log
echo "== $(date +%T) $(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader)" | tee -a "$log"
for rep in 1 2 3; do
  for which in old new; do
    rb="env LD_LIBRARY_PATH=/tmp/rb-$which /tmp/rb-$which/readbench"
    $rb run --backend cuda -b 32 -L 1024,4096,16384 --dtype f32 --head-dim 64 --path fused \
      --json "$out/f32-d64-$which-$rep.json" > /dev/null 2>&1
    echo "f32-d64 $which $rep rc=$?" | tee -a "$log"
    $rb run --backend cuda -b 32 -L 1024,4096 --head-dim 64 --path fused \
      --json "$out/d64-b32-$which-$rep.json" > /dev/null 2>&1
    echo "d64-b32 $which $rep rc=$?" | tee -a "$log"
    $rb run --backend cuda -b 32 -L 1024,16384 --path fused \
      --json "$out/bf16-b32-$which-$rep.json" > /dev/null 2>&1
    echo "bf16-b32 $which $rep rc=$?" | tee -a "$log"
    $rb run --backend cuda -b 32 -L 16384 --kv-dtype fp8_e4m3 --path fused \
      --json "$out/fp8-b32-$which-$rep.json" > /dev/null 2>&1
    echo "fp8-b32 $which $rep rc=$?" | tee -a "$log"
    $rb run --backend cuda -b 1 -L 1024,16384,65536 --path fused \
      --json "$out/bf16-b1-$which-$rep.json" > /dev/null 2>&1
    echo "bf16-b1 $which $rep rc=$?" | tee -a "$log"
  done
done
echo "== $(date +%T) done" | tee -a "$log"
