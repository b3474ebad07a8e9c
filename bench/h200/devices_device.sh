#!/usr/bin/env bash
# Every GPU of a host (run on the nvidia-h200-x2 kind), over binaries built here and carried in
# .scratch/rbx or .scratch/rb: the issue's sweep on both devices at once, then each device alone,
# so each device's min time per point can be compared with its single-device run (target: within
# 3%), and the slow-device callout read from the report.
# Usage: bench/h200/devices_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step

step "gpus: $(smi | tr '\n' ';'); host cpus $(nproc); $("$rb" --version)"
step "both devices at once"
timeout 300 "$rb" run --backend cuda --device all -b 32 -L 4096:65536:x4 --json "$out/all.json" \
  > "$out/all.txt" 2>&1
echo "run --device all rc=$?" | tee -a "$log"
for d in 0 1; do
  step "device $d alone"
  timeout 200 "$rb" run --backend cuda --device "$d" -b 32 -L 4096:65536:x4 --json "$out/dev$d.json" \
    > "$out/dev$d.txt" 2>&1
  echo "run --device $d rc=$?" | tee -a "$log"
done
cat "$out"/*.txt >> "$log"
step "gpus after: $(smi | tr '\n' ';')"
