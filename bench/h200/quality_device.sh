#!/usr/bin/env bash
# The quality verdict on the GPU machine, over binaries built here and carried in .scratch/rb:
# GPU tests, a plain `readbench run` (both backends), then the CUDA sweep again while a second
# readbench keeps the same GPU busy (the verdict must say contended, naming the other process).
# Usage: bench/h200/quality_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all
verdict() { python3 -c "import json,sys; q=json.load(open(sys.argv[1]))['quality']; print(q['verdict'], q['reasons'])" "$1"; }

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
gpu_tests
step "plain readbench run"
start=$(date +%s%N)
timeout 300 "$rb" run --json "$out/h200-plain.json" > "$out/h200-plain.txt" 2>&1
echo "plain rc=$? wall $(( ($(date +%s%N) - start) / 1000000 )) ms: $(verdict "$out/h200-plain.json")" | tee -a "$log"
step "cuda sweep beside a second readbench on the same GPU"
"$rb" run --backend cuda -b 32 -L 16384,65536 --budget 30 --noise 0.0001 --json "$out/competitor.json" \
  > "$out/competitor.txt" 2>&1 &
competitor=$!
sleep 8
timeout 200 "$rb" run --backend cuda --json "$out/h200-shared.json" > "$out/h200-shared.txt" 2>&1
echo "shared rc=$?: $(verdict "$out/h200-shared.json")" | tee -a "$log"
kill $competitor 2>/dev/null; wait $competitor 2>/dev/null
step "gpu after: $(smi)"
