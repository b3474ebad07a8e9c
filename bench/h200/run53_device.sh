#!/usr/bin/env bash
# Run 53 on the H200 (bench/h200/NOTES.md): the product binaries of `f6f3b21` (run 52's cluster
# merge after review: the cluster kernel without the counter merge's code, its stamps), checked
# again: GPU tests, compute-sanitizer over timed calls, readbench's short and long B=1 grids
# once each beside `553ca56` (.scratch/rbx/old.tar.xz), and one plain run.
# Usage: bench/h200/run53_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, shape, ...
start_ab
gpu_tests
san_timed_calls
for label in old new; do
  binary=$rb
  [ $label = old ] && binary=$old
  for kv in bf16 fp8_e4m3; do
    timeout 150 "$binary" run --backend cuda -b 1 -L 512,1024,2048,4096,16384,65536 \
      --kv-dtype $kv --path fused --json "$out/ab-$label-$kv.json" > "$out/ab-$label-$kv.txt" 2>&1
    echo "ab $label $kv rc=$?" | tee -a "$log"
  done
done
plain_runs 1
step "gpu after: $(smi)"
