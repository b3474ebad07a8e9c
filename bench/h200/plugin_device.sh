#!/usr/bin/env bash
# The plugin boundary on the H200: readbench's fused read built as a plugin
# (examples/plugins/fused_cuda.cpp) against the built-in fused path, over binaries built here
# and carried in .scratch/rbx (readbench, readbench_gpu_tests, libreadbench_fused_cuda.so).
# Checks first (GPU tests, verify --plugin, compute-sanitizer), then 5 runs per shape with both
# paths in one run, the order of the two alternating between runs; each run's min times give one
# plugin/built-in ratio (target: median ratio within 2%).
# Usage: bench/h200/plugin_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, san
plugin=$bin/libreadbench_fused_cuda.so
export READBENCH_FUSED_CUDA_PLUGIN=$plugin
P=plugin:readbench_fused_cuda

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
step "verify --plugin: every dtype pair, GQA 4, batch 7, L = 1, S, S+1, 1000, 65537"
timeout 300 "$rb" verify --backend cuda --plugin "$plugin" -b 7 --lengths 1,16,17,1000,65537 \
  > "$out/verify_plugin.log" 2>&1
echo "verify --plugin rc=$? fails=$(grep -c FAIL "$out/verify_plugin.log") passes=$(grep -c pass "$out/verify_plugin.log")" | tee -a "$log"
san memcheck plugin "$rb" run --backend cuda --plugin "$plugin" --path "$P" -b 3 -L 17,1000 \
  --budget 0.05 --min-samples 2
san racecheck plugin "$rb" run --backend cuda --plugin "$plugin" --path "$P" -b 3 -L 1000 \
  --budget 0.05 --min-samples 2

shape() {  # LABEL ARGS...
  local label=$1 i order
  shift
  for i in 1 2 3 4 5; do
    order=$([ $((i % 2)) -eq 1 ] && echo "fused,$P" || echo "$P,fused")
    step "$label run $i ($order)"
    timeout 200 "$rb" run --backend cuda --plugin "$plugin" --path "$order" "$@" \
      --json "$out/$label-$i.json" > "$out/$label-$i.txt" 2>&1
    echo "$label run $i rc=$?" | tee -a "$log"
  done
}
shape b32-L16384 -b 32 -L 16384
shape b1-L4096 -b 1 -L 4096
shape fp8-b32-L16384 -b 32 -L 16384 --kv-dtype fp8_e4m3
step "gpu after: $(smi)"
