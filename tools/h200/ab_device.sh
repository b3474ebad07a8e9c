#!/usr/bin/env bash
# readbench ab on a CUDA machine: the regression fixtures verified (and memcheck'd) on the GPU,
# then tools/ab_targets.sh's trials. Runs over a carried build: DIR/src/readbench,
# DIR/tests/plugins/libregress_*_cuda.so, DIR/tests/readbench_gpu_tests, DIR/libgomp.so.1.
# Usage: tools/h200/ab_device.sh DIR OUTDIR PHASE   (PHASE: b1 = checks and B=1 on the auto grid;
#        b32 = B=32 over 1024..65536); TRIALS (default 10) trials of the A/A and of +3%.
set -u -o pipefail
dir=$(realpath "$1") out=$2 phase=$3 trials=${TRIALS:-10}
export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rb=$dir/src/readbench plugins=$dir/tests/plugins
log=$out/log.txt
here=$(cd "$(dirname "$0")/../.." && pwd)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv >>"$log" 2>&1
if [ "$phase" = b1 ]; then
  if [ -x "$dir/tests/readbench_gpu_tests" ]; then
    timeout 300 "$dir/tests/readbench_gpu_tests" >"$out/gpu_tests.txt" 2>&1
    echo "gpu tests rc=$? $(grep -E 'test cases' "$out/gpu_tests.txt" | tail -1)" | tee -a "$log"
  fi
  for v in same cost3; do
    timeout 120 "$rb" verify --backend cuda --plugin "$plugins/libregress_${v}_cuda.so" >>"$log" 2>&1
    echo "verify regress_$v rc=$?" | tee -a "$log"
  done
  timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$rb" verify --backend cuda \
    --dtypes bf16 -b 2 --lengths 17,4099 --plugin "$plugins/libregress_cost3_cuda.so" >>"$log" 2>&1
  echo "memcheck regress_cost3 rc=$?" | tee -a "$log"
  AB_ARGS="" timeout 420 bash "$here/tools/ab_targets.sh" "$dir" "$out/ab-b1" "$trials" cuda aa cost3 \
    2>&1 | tail -n 4 | tee -a "$log"
else
  AB_ARGS="-b 32 -L 1024:65536:x4" timeout 540 bash "$here/tools/ab_targets.sh" "$dir" "$out/ab-b32" \
    "$trials" cuda aa cost3 2>&1 | tail -n 4 | tee -a "$log"
fi
cp "$out/ab-$phase/summary.tsv" "$out/summary-$phase.tsv"
tar -C "$out" -cJf "$out/ab-$phase.tar.xz" "ab-$phase" && rm -rf "${out:?}/ab-$phase"
