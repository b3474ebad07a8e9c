#!/usr/bin/env bash
# Run 74c on the H200 (bench/h200/NOTES.md): the committed plan of pairs of KV heads (`72b971e`:
# only where the history stays unsplit). The product binaries against `0080ec7`'s: GPU tests,
# memcheck over an unsplit pair's timed calls, two A/B rounds over D=64 from B=1 to 32.
# Prediction: B=32 as run 73c (L=4096 -2.6%, L=16384 -3.3%); B=1 to 16 as `0080ec7` (a head a
# row again). Results: results/run74-pairs-review/c/.
# Usage: bench/h200/run74c_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, san, ab_rounds, ...
start_ab
gpu_tests
san memcheck "run, both paths, D=64 -b 40 L 2049 (unsplit pairs)" "$rb" run --backend cuda \
  -b 40 -L 2049 --head-dim 64 --min-samples 2 --budget 0.02 --rounds 1 --path all \
  --json "$out/san.json"
rm -f "$out/san.json"
ab_rounds 2 <<'SHAPES'
d64-b32|-b 32 -L 1024,4096,16384 --head-dim 64 --path fused
d64-b20|-b 20 -L 4096,16384 --head-dim 64 --path fused
d64-b16|-b 16 -L 4096,16384 --head-dim 64 --path fused
d64-b8|-b 8 -L 4096,16384 --head-dim 64 --path fused
d64-b7|-b 7 -L 4099 --head-dim 64 --path fused
d64-b1|-b 1 -L 4096,65536 --head-dim 64 --path fused
bf16-b32|-b 32 -L 16384 --path fused
SHAPES
step "gpu after: $(smi)"
