#!/usr/bin/env bash
# Run 33 on the H200 (bench/h200/NOTES.md): the decode kernel compiled twice, for split histories
# (with the staged merge) and for unsplit ones (neither partials nor merge), against the
# binaries before the staged merge (90bf71e, "old") and with it alone (f961f3d, "new"). The
# build "C" (readbench, its GPU tests, the plugin; .scratch/rbx/rb-c.tar.xz): GPU tests, verify
# of GQA 4 over every dtype pair, memcheck and racecheck over split and unsplit calls; then the
# three binaries interleaved, three rounds.
# Usage: bench/h200/run33_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
rbx=$(cd "$(dirname "$0")/../../.scratch/rbx" && pwd)
mkdir -p "$out" /tmp/rb-old /tmp/rb-new /tmp/rb-c
tar -xJf "$rbx/rb-old.tar.xz" -C /tmp/rb-old
tar -xJf "$rbx/rb.tar.xz" -C /tmp/rb-new
tar -xJf "$rbx/rb-c.tar.xz" -C /tmp/rb-c
export LD_LIBRARY_PATH=$rbx
declare -A bin=([old]=/tmp/rb-old/readbench [new]=/tmp/rb-new/readbench [C]=/tmp/rb-c/readbench)
log=$out/device.log
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
step "$(nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader)"
READBENCH_FUSED_CUDA_PLUGIN=/tmp/rb-c/libreadbench_fused_cuda.so timeout 150 \
  /tmp/rb-c/readbench_gpu_tests > "$out/gpu_tests.log" 2>&1
echo "gpu tests rc=$? $(grep -E 'test cases' "$out/gpu_tests.log")" | tee -a "$log"
for b in 1 7; do
  timeout 120 /tmp/rb-c/readbench verify --backend cuda -b "$b" --lengths 1,16,17,1000,65537 \
    >> "$out/verify.log" 2>&1
  echo "verify B=$b rc=$? fails so far=$(grep -c FAIL "$out/verify.log")" | tee -a "$log"
done
for tool in memcheck racecheck; do
  timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 /tmp/rb-c/readbench run \
    --backend cuda -b 1 -L 256,16384 --min-samples 2 --budget 0.02 --rounds 1 --path all \
    --json "$out/san.json" >> "$out/sanitizer.log" 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)" | tee -a "$log"
done
rm -f "$out/san.json"
for rep in 1 2 3; do
  for which in old new C; do
    rb=${bin[$which]}
    "$rb" run --backend cuda -b 32 -L 16384 --kv-dtype fp8_e4m3 --path fused \
      --json "$out/fp8-b32-$which-$rep.json" > /dev/null 2>&1 || echo "fp8 $which $rep failed" | tee -a "$log"
    "$rb" run --backend cuda -b 32 -L 4096 --dtype f32 --head-dim 64 --path fused \
      --json "$out/f32-d64-$which-$rep.json" > /dev/null 2>&1 || echo "f32 $which $rep failed" | tee -a "$log"
    "$rb" run --backend cuda -b 32 -L 1024,16384 --path fused \
      --json "$out/bf16-b32-$which-$rep.json" > /dev/null 2>&1 || echo "b32 $which $rep failed" | tee -a "$log"
    "$rb" run --backend cuda -b 1 -L 1024,16384 --path fused \
      --json "$out/bf16-b1-$which-$rep.json" > /dev/null 2>&1 || echo "b1 $which $rep failed" | tee -a "$log"
  done
done
step done
