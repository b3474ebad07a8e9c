#!/usr/bin/env bash
# The final binary of a session on the GPU machine: GPU tests, --device all on this host, and a
# plain `readbench run` (both backends, the auto grid), over binaries carried in .scratch/rbx.
# Usage: bench/h200/final_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
step "--device all on this host"
timeout 200 "$rb" run --backend cuda --device all -b 32 -L 4096,16384 --kv-dtype fp8_e4m3 \
  --json "$out/device-all.json" > "$out/device-all.txt" 2>&1
echo "run --device all rc=$?" | tee -a "$log"
step "plain readbench run"
start=$(date +%s.%N)
timeout 300 "$rb" run --json "$out/plain.json" > "$out/plain.txt" 2>&1
echo "plain run rc=$? wall $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a "$log"
cat "$out"/*.txt >> "$log"
step "gpu after: $(smi)"
