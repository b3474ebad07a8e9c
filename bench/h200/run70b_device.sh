#!/usr/bin/env bash
# Run 70b on the H200 (bench/h200/NOTES.md): the review's refactor of run 70's plan (one check
# of a block's shared memory against the device's limit, for the clusters and the long rows;
# the same plans). The product binaries of the working tree against those of `e18c4f9`: GPU
# tests, memcheck over the long rows' and the clusters' timed calls, two A/B rounds of bf16 B=1.
# Prediction: run 70's times. Also run 68b: read_floor with each sample's calls replayed from a
# CUDA graph, as readbench's are (run 68 launched them from the host), before and after the
# rounds. Prediction: the pure reads' L=1024-2048 times fall if the host's launches bounded
# them; L >= 4096 as in run 68. Results: results/run70-long-rows/b/ and
# results/run68-read-floor/b/ (floor-*).
# Usage: bench/h200/run70b_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
floor=$(cd "$(dirname "$0")/../../.scratch/floor" && pwd)/read_floor
start_ab
gpu_tests
step "read_floor 1"
timeout 120 "$floor" "$out/floor-1.csv" > "$out/floor-1.txt" 2>&1
echo "read_floor rc=$?" | tee -a "$log"
ab_rounds 2 <<'SHAPES'
bf16-b1|-b 1 -L 1024:131072:x2 --path fused --fit-from 1024
fp8-b1|-b 1 -L 2048,4096 --kv-dtype fp8_e4m3 --path fused
SHAPES
san memcheck "run, fused, long rows and clusters: bf16 -b 1 L 2048,4096,16384" "$rb" run \
  --backend cuda -b 1 -L 2048,4096,16384 --min-samples 2 --budget 0.02 --rounds 1 --path fused \
  --json "$out/san.json"
rm -f "$out/san.json"
step "read_floor 2"
timeout 120 "$floor" "$out/floor-2.csv" > "$out/floor-2.txt" 2>&1
echo "read_floor rc=$?" | tee -a "$log"
step "gpu after: $(smi)"
