#!/usr/bin/env bash
# Run 54 on the H200 (bench/h200/NOTES.md): the product binaries of `470f093`, whose large host
# buffers keep their mappings for the next buffer of about their size (MappingCache), against
# those of `f6f3b21` (run 53; the same kernels; .scratch/rbx/old.tar.xz). GPU tests; plain
# `readbench run`s, three a binary with the order alternating (issue 8's wall); issue 8's
# explicit B=1 grid 4096..262144 for the cuda fused marginal cost; issue 12's shapes.
# Results: results/run54-mapping-cache/.
# Usage: bench/h200/run54_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, shape, ...
start_ab
gpu_tests
plain() {  # label, binary, round
  local start
  start=$(date +%s%N)
  timeout 200 "$2" run --json "$out/plain-$3-$1.json" > "$out/plain-$3-$1.txt" 2>&1
  echo "plain run $3 $1 rc=$? wall $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$log"
}
for round in 1 2 3; do
  step "plain runs, round $round: $(smi)"
  if [ $((round % 2)) = 1 ]; then plain old "$old" $round; plain new "$rb" $round
  else plain new "$rb" $round; plain old "$old" $round; fi
done
step "explicit B=1 grid: $(smi)"
shape b1-explicit -b 1 -L 4096:262144:x2 --path fused --fit-from 4096
step "issue 12's shapes: $(smi)"
issue12_shapes fused
step "gpu after: $(smi)"
