#!/usr/bin/env bash
# Run 38 on the H200 (bench/h200/NOTES.md): is a split B=1 call slow because it is split, or
# because its blocks are short? Pairs of shapes with the same K/V bytes, the same number of
# thread blocks and the same tokens a block, one a split B=1 row set, the other B=32 unsplit:
#   bf16  B=1 L=16384 (32 splits, 256 blocks of 512 tokens)  ~ B=32 L=512  (256 blocks of 512)
#   bf16  B=1 L=65536 (33 splits, 264 blocks of 1986 tokens) ~ B=32 L=2048 (256 blocks of 2048)
#   e4m3  B=1 L=65536                                        ~ B=32 L=2048
# readbench itself (the product binary of HEAD, .scratch/rbx) times them interleaved, three
# rounds; ncu then profiles one lone call of each (verify's call, caches flushed by ncu) with the
# memory and warp-state sections; last, cuda_variants (the variant build, .scratch/cvx) times the
# B=1 grid with one block an SM (waves=0.5) against the default, and the timelines of both.
# Usage: bench/h200/run38_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step
cvx=$(cd "$(dirname "$0")/../../.scratch/cvx" && pwd)
mkdir -p /tmp/cv && tar -xJf "$cvx/cv.tar.xz" -C /tmp/cv

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
pair() {  # name, readbench run options...
  local name=$1
  shift
  timeout 150 "$rb" run --backend cuda --path fused "$@" --json "$out/$name.json" \
    > "$out/$name.txt" 2>&1
  echo "run $name rc=$? ($*)" | tee -a "$log"
}
for rep in 1 2 3; do
  step "round $rep: $(smi)"
  if [ $((rep % 2)) -eq 1 ]; then first=b1 second=b32; else first=b32 second=b1; fi
  for which in $first $second; do
    if [ "$which" = b1 ]; then
      pair "b1-$rep" -b 1 -L 16384,65536
      pair "b1-e4m3-$rep" -b 1 -L 65536 --kv-dtype fp8_e4m3
    else
      pair "b32-$rep" -b 32 -L 512,2048
      pair "b32-e4m3-$rep" -b 32 -L 2048 --kv-dtype fp8_e4m3
    fi
  done
done

step "ncu: one lone call of each pair's shapes (verify's fused call)"
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics=$metrics,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct
metrics=$metrics,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max
for shape in "-b 1 --lengths 16384 --kv-dtypes same" "-b 32 --lengths 512 --kv-dtypes same" \
             "-b 1 --lengths 65536 --kv-dtypes same" "-b 32 --lengths 2048 --kv-dtypes same" \
             "-b 1 --lengths 65536 --kv-dtypes fp8_e4m3" "-b 32 --lengths 2048 --kv-dtypes fp8_e4m3"; do
  echo "=== ncu [$shape]" >> "$out/ncu.txt"
  timeout 120 ncu --clock-control none --kernel-name-base demangled \
    --kernel-name 'regex:decode_kernel<.*PagedRows' --section SpeedOfLight \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section Occupancy --section LaunchStats --metrics "$metrics" \
    "$rb" verify --backend cuda --dtypes bf16 $shape >> "$out/ncu.txt" 2>&1
  echo "ncu [$shape] rc=$? $(grep -c 'decode_kernel' "$out/ncu.txt") kernel lines so far" | tee -a "$log"
done

step "cuda_variants b1: default against one block an SM (waves=0.5); timelines of both"
timeout 300 /tmp/cv/cuda_variants b1 "$out/variants.csv" "" "waves=0.5" > "$out/variants.txt" 2>&1
echo "cuda_variants rc=$? failures=$(grep -c FAIL "$out/variants.txt")" | tee -a "$log"
for spec in "" "waves=0.5"; do
  timeout 120 /tmp/cv/cuda_variants timeline "$out" $spec >> "$out/timeline.txt" 2>&1
  echo "timeline [$spec] rc=$?" | tee -a "$log"
done
step "done: $(smi)"
