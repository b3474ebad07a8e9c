#!/usr/bin/env bash
# Run 73 on the H200 (bench/h200/NOTES.md): 16-bit heads of D=64 read as pairs of KV heads
# (MmaMath's kPaired: 256-byte rows). The product binaries of the working tree against those of
# `0080ec7`: GPU tests, compute-sanitizer's four tools over the pairs' timed calls (unsplit,
# split and merged through the workspace, a cluster), three A/B rounds. Run 73 timed the pairs
# in the four-warp block of three stages (two an SM), run 73b in a block of eight warps (one an
# SM). Prediction (run 72: the copies alone 4.11-4.13 -> 4.31-4.32 TB/s): bf16 and f16 D=64
# B=32 3-4% faster at L=16384, 2-4% at 4096; B=1 D=64 unmeasured (4 rows of pairs instead of 8);
# the controls (D=128, f32 D=64, GQA 8 at D=64) unchanged. Results: results/run73-paired-heads/.
# Usage: bench/h200/run73_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, san, ...
start_ab
gpu_tests
step "compute-sanitizer over the pairs' timed calls"
for tool in memcheck racecheck synccheck initcheck; do
  san "$tool" "run, both paths, D=64 -b 32 L 1000 (unsplit)" "$rb" run --backend cuda -b 32 \
    -L 1000 --head-dim 64 --min-samples 2 --budget 0.02 --rounds 1 --path all \
    --json "$out/san.json"
  san "$tool" "run, both paths, D=64 -b 1 L 1000,16384 (a cluster, splits)" "$rb" run \
    --backend cuda -b 1 -L 1000,16384 --head-dim 64 --min-samples 2 --budget 0.02 --rounds 1 \
    --path all --json "$out/san.json"
done
rm -f "$out/san.json"
ab_rounds 3 <<'SHAPES'
d64-b32|-b 32 -L 1024,4096,16384 --head-dim 64 --path fused
d64-f16-b32|-b 32 -L 4096,16384 --head-dim 64 --dtype f16 --path fused
d64-gather-b32|-b 32 -L 4096 --head-dim 64 --path gather
d64-mha-b32|-b 32 -L 4096 --head-dim 64 --q-heads 8 --kv-heads 8 --path fused
d64-b1|-b 1 -L 1024:131072:x4 --head-dim 64 --path fused --fit-from 1024
d64-b8|-b 8 -L 4096,16384 --head-dim 64 --path fused
d64-gqa8-b32|-b 32 -L 4096 --head-dim 64 --q-heads 64 --kv-heads 8 --path fused
f32-d64-b32|-b 32 -L 4096 --head-dim 64 --dtype f32 --path fused
bf16-b32|-b 32 -L 16384 --path fused
SHAPES
step "gpu after: $(smi)"
