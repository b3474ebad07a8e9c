#!/usr/bin/env bash
# Run 74b on the H200 (bench/h200/NOTES.md): the pairs of KV heads at the batches between run
# 73c's (B=5, 8 and 32), where a pair row's few splits run as one cluster: the product binaries
# of `fcd8ea4` against `0080ec7`'s, two A/B rounds. Prediction: as run 73c's B=5 and B=8 (2-3%
# faster), B=7 L=300 unchanged (a head a row under the review's rule).
# Results: results/run74-pairs-review/b/.
# Usage: bench/h200/run74b_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, ab_rounds, ...
start_ab
ab_rounds 2 <<'SHAPES'
d64-b7|-b 7 -L 300,4099,16384 --head-dim 64 --path fused
d64-b12|-b 12 -L 2048,8192 --head-dim 64 --path fused
d64-b16|-b 16 -L 1024,4096,16384 --head-dim 64 --path fused
SHAPES
step "gpu after: $(smi)"
