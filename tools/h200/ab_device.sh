#!/usr/bin/env bash
# readbench ab on a CUDA machine. Runs over a carried build: DIR/src/readbench, DIR/libgomp.so.1,
# and per phase DIR/tests/readbench_gpu_tests or DIR/tests/plugins/libregress_{same,cost3}_cuda.so
# (both together pass the device tool's 64 MiB carry: the phases split them).
# Usage: tools/h200/ab_device.sh DIR OUTDIR PHASE
#   checks: verify's output beside DIR/other/readbench's (another build) where that is carried,
#           the GPU tests and racecheck/memcheck over verify (B=36 and B=52 too), then the A/A
#           (this build in both arms, the default paths) at B=1 on the auto grid and at B=32
#           over 1024..65536;
#   cost3:  the fixtures verified and memcheck'd, then +3% marginal cost (regress_cost3 against
#           regress_same) in the same two settings.
# TRIALS (default 10) trials of each setting; tools/ab_targets.sh writes each verdict. WIDE_ARGS
# replaces the second setting (an 80 GB card holds B=32 both arms to L=16384 only: -b 16).
set -u -o pipefail
dir=$(realpath "$1") out=$2 phase=$3 trials=${TRIALS:-10}
export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rb=$dir/src/readbench plugins=$dir/tests/plugins
log=$out/log.txt
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,power.draw --format=csv >>"$log" 2>&1
sanitize() {  # TOOL LABEL verify-args...
  local tool=$1 label=$2; shift 2
  timeout 240 compute-sanitizer --tool "$tool" --error-exitcode 9 "$rb" verify --backend cuda \
    "$@" >"$out/$tool-$label.txt" 2>&1
  echo "$tool $label rc=$? $(grep -E 'ERROR SUMMARY' "$out/$tool-$label.txt" | tail -1)" | tee -a "$log"
}
if [ "$phase" = checks ]; then
  # Where DIR/other/readbench is carried (another build), verify's output of both builds, which
  # a behaviour-neutral change leaves byte-identical.
  if [ -x "$dir/other/readbench" ]; then
    for b in other this; do
      bin=$rb
      [ "$b" = other ] && bin=$dir/other/readbench
      { timeout 120 "$bin" verify --backend cuda; timeout 120 "$bin" verify --backend cuda -b 36 \
          --lengths 1,17,4099,70001; } >"$out/verify-$b.txt" 2>&1
      echo "verify $b rc=$? $("$bin" --version)" | tee -a "$log"
    done
    if cmp -s "$out/verify-other.txt" "$out/verify-this.txt"; then
      echo "verify identical: $(wc -l <"$out/verify-this.txt") lines" | tee -a "$log"
    else
      echo "verify DIFFERS" | tee -a "$log"
    fi
  fi
  timeout 300 "$dir/tests/readbench_gpu_tests" >"$out/gpu_tests.txt" 2>&1
  echo "gpu tests rc=$? $(grep -E 'test cases' "$out/gpu_tests.txt" | tail -1)" | tee -a "$log"
  sanitize racecheck b36 --dtypes bf16 -b 36 --lengths 17,4099
  sanitize memcheck b52 --dtypes bf16 -b 52 --lengths 17,4099
  kinds=(aa)
else
  for v in same cost3; do
    timeout 120 "$rb" verify --backend cuda --plugin "$plugins/libregress_${v}_cuda.so" >>"$log" 2>&1
    echo "verify regress_$v rc=$?" | tee -a "$log"
  done
  sanitize memcheck cost3 --dtypes bf16 -b 2 --lengths 17,4099 \
    --plugin "$plugins/libregress_cost3_cuda.so"
  kinds=(cost3)
fi
AB_ARGS="" timeout 170 bash "$here/tools/ab_targets.sh" "$dir" "$out/b1" "$trials" cuda \
  "${kinds[@]}" >/dev/null 2>&1
AB_ARGS="${WIDE_ARGS:--b 32 -L 1024:65536:x4}" timeout 170 bash "$here/tools/ab_targets.sh" "$dir" "$out/b32" \
  "$trials" cuda "${kinds[@]}" >/dev/null 2>&1
for s in b1 b32; do
  [ -f "$out/$s/summary.tsv" ] && cut -f1-5 "$out/$s/summary.tsv" | sed "s/^/$s /" | tee -a "$log"
  cp "$out/$s/summary.tsv" "$out/summary-$s.tsv" 2>/dev/null
done
tar -C "$out" -cJf "$out/ab-$phase.tar.xz" b1 b32 && rm -rf "${out:?}/b1" "${out:?}/b32"
