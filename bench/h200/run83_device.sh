#!/usr/bin/env bash
# Run 83 on the H200 (bench/h200/NOTES.md): the wave-fill rule for rows of more than one wave
# (run 82) at lengths between its measured 4096 and 16384, where its bound steps with the K/V a
# row reads (75% under 2 MiB, 82% under 8 MiB). Product binaries of `e5b8dcf`'s code against
# `3deef76`, two A/B rounds. e4m3 K/V B=52 (79% full) at L=6144 (1.5 MiB a row: kept) and 8192
# (2 MiB: three splits), B=80 (81%) at 8192 (two splits), B=48 (73%) at 6144 (two splits); bf16
# B=80 at 8192 (4 MiB: two splits). Prediction: the split ones 2-8% faster, the kept one level.
# Results: results/run83-wave-fill-between/.
# Usage: bench/h200/run83_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, ab_rounds, ...
start_ab
ab_rounds 2 <<'SHAPES'
fp8-b52|-b 52 -L 6144,8192 --kv-dtype fp8_e4m3 --path fused
fp8-b80|-b 80 -L 8192 --kv-dtype fp8_e4m3 --path fused
fp8-b48|-b 48 -L 6144 --kv-dtype fp8_e4m3 --path fused
bf16-b80|-b 80 -L 8192 --path fused
SHAPES
step "gpu after: $(smi)"
