#!/usr/bin/env bash
# Runs on the device machine over binaries built here (bench/h200/build.sh puts them in
# .scratch/bin): GPU tests, variant timings, compute-sanitizer on small cases, SASS counts.
# Usage: bench/h200/run_device.sh OUTDIR [tests] [variant_tests] [bench] [sanitize] [sass] [ncu]
set -u -o pipefail
out=${1:?OUTDIR}; shift
steps=${*:-tests bench sanitize sass}
bin=$(cd "$(dirname "$0")/../../.scratch/bin" && pwd)
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader; }
echo "before: $(smi)" > "$out/device.txt"
for step in $steps; do
  case $step in
    tests) (time timeout 60 "$bin/readbench_gpu_tests" -d) > "$out/tests.txt" 2>&1; echo "tests rc=$?" ;;
    variant_tests)  # the whole suite under each candidate default
      for spec in warps=4 warps=8 l1=1 warps=4,l1=1 warps=8,l1=1 minsplit=128,l1=1 kv=4,l1=1; do
        READBENCH_TEST_CUDA_TUNING=$spec timeout 60 "$bin/readbench_gpu_tests" > "$out/t.txt" 2>&1
        echo "variant tests [$spec] rc=$? $(grep -E 'test cases' "$out/t.txt")" | tee -a "$out/variant_tests.txt"
        grep -E "ERROR|FAILED" "$out/t.txt" | head -5 >> "$out/variant_tests.txt"
      done; rm -f "$out/t.txt" ;;
    bench) timeout 150 "$bin/cuda_variants" bench "$out/variants.csv" > "$out/bench.txt" 2>&1; echo "bench rc=$?" ;;
    sanitize)
      for run in memcheck: racecheck: initcheck: synccheck: memcheck:l1=1,warps=8 \
                 racecheck:l1=1,warps=8 memcheck:l1=1,warps=4 racecheck:l1=1,warps=4; do
        tool=${run%%:*}; spec=${run#*:}
        echo "== $tool [$spec]" >> "$out/sanitizer.txt"
        timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/cuda_variants" sanitize $spec \
          >> "$out/sanitizer.txt" 2>&1
        echo "sanitizer $tool [$spec] rc=$?" | tee -a "$out/sanitizer.txt"
      done ;;
    ncu)
      timeout 120 ncu --clock-control none -k regex:decode_kernel --section SpeedOfLight \
        --section Occupancy --section WarpStateStats --section LaunchStats \
        --metrics lts__t_sector_hit_rate.pct,lts__t_requests_srcunit_tex.sum,lts__t_sectors_srcunit_tex.sum,dram__bytes_read.sum \
        "$bin/cuda_variants" profile > "$out/ncu.txt" 2>&1
      echo "ncu rc=$?" ;;
    sass)
      cuobjdump -sass -fun '_ZN9readbench4cuda7kernels13decode_kernelINS1_7MmaMathI13__nv_bfloat16Li128EEENS1_9PagedRowsELi4ELi3ELi1EEEvNS0_12DecodeParamsE' \
        "$bin/cuda_variants" > /tmp/sass_bf16_d128.txt 2>&1
      for op in LDGSTS HMMA MOVM LDS SHFL MUFU PRMT LDG STL LDL BAR; do
        echo "$op $(grep -c "$op" /tmp/sass_bf16_d128.txt)"; done > "$out/sass_counts.txt"
      echo "instructions $(grep -cE '/\*[0-9a-f]{4}\*/' /tmp/sass_bf16_d128.txt)" >> "$out/sass_counts.txt" ;;
  esac
done
echo "after: $(smi)" >> "$out/device.txt"
tail -n 4 "$out/tests.txt" 2>/dev/null; cat "$out/bench.txt" 2>/dev/null | tail -n 80
grep -E "rc=|ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.txt" 2>/dev/null; cat "$out/variant_tests.txt" 2>/dev/null
cat "$out/sass_counts.txt" 2>/dev/null
