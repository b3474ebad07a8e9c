#!/usr/bin/env bash
# Run 58 on the H200 (bench/h200/NOTES.md): one block of eight warps an SM for the split B=1
# rows (`warps=8,stages=3`, bf16 D=128 only: the same 128 KiB in flight an SM as two blocks of
# four warps, half the splits a row, so half the partials for the merging block to read), alone
# and with rows of 16 splits as one cluster (`cluster=16`); `waves=0.97` for reference. Run 38's
# `waves=0.5` halved the splits with half the bytes in flight and lost from L=8192. Prediction:
# bf16 B=1 L=8192-32768 0.5-1.5 us faster (the merge of run 47 took 2.2-3.9 us at 32 splits).
# GPU tests and memcheck/racecheck under warps=8,stages=3; cuda_variants b1 three times (the
# middle one in the opposite order); timelines.
# Usage: bench/h200/run58_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, variant_checks, timelines
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
variant_checks warps=8,stages=3 memcheck racecheck
variant_checks warps=8,stages=3,cluster=16 racecheck
specs=("" warps=8,stages=3 warps=8,stages=3,cluster=16 waves=0.97)
for pass in fwd1 bwd fwd2; do
  order=("${specs[@]}")
  [ $pass = bwd ] && order=(waves=0.97 warps=8,stages=3,cluster=16 warps=8,stages=3 "")
  step "b1, $pass"
  timeout 150 /tmp/cv/cuda_variants b1 "$out/b1-$pass.csv" "${order[@]}" > "$out/b1-$pass.txt" 2>&1
  echo "b1 $pass rc=$? fails=$(grep -c FAIL "$out/b1-$pass.txt")" | tee -a "$log"
done
timelines "" warps=8,stages=3
step done
