#!/usr/bin/env bash
# Run 68 on the H200 (bench/h200/NOTES.md): what a chain of pure reads of a bf16 B=1 call's
# K/V bytes costs in readbench's samples (read_floor, built here by nvcc with the runtime linked
# statically and carried in .scratch/floor), against readbench's own bf16 B=1 sweep of the
# product (HEAD's binary), three passes alternating. Prediction: the pure read's chain of the
# fused kernel's residency (pdl-full) fits about 3 us + 0.93 ns a token (95%) and takes about
# 18 us at L=16384: the fused kernel's 20.1 us loses about 2 us a call to its epilogue and merge.
# Results: results/run68-read-floor/.
# Usage: bench/h200/run68_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, shape, ...
floor=$(cd "$(dirname "$0")/../../.scratch/floor" && pwd)/read_floor
step "gpu before: $(smi); readbench $("$rb" --version 2>&1 | head -1)"
for pass in 1 2 3; do
  step "pass $pass: read_floor"
  timeout 120 "$floor" "$out/floor-$pass.csv" > "$out/floor-$pass.txt" 2>&1
  echo "read_floor rc=$?" | tee -a "$log"
  step "pass $pass: readbench bf16 B=1"
  shape "bf16-b1-$pass" -b 1 -L 1024:131072:x2 --path fused --fit-from 1024
done
step "gpu after: $(smi)"
