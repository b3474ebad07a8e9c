#!/usr/bin/env bash
# Run 17 on the H200 (bench/h200/NOTES.md): the product binary of the f32 kernel change
# (bench/h200/product_build.sh, carried in .scratch/rbx): GPU tests with the CUDA plugin, verify of
# every q type with its own and e4m3 K/V over GQA 1/4/8, batch 1 and 7, and of f32 over head
# dims 64 and 256, compute-sanitizer over the CUDA-core kernels, then issue 12's shapes and a
# plain `readbench run`.
# Usage: bench/h200/run17_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
cuobjdump -res-usage "$rb" 2>&1 | grep -A1 SimtMath > "$out/resources.txt"
gpu_tests
verify_all
step "verify f32 (f32 and e4m3 K/V) over head dims 64 and 256"
for dim in 64 256; do
  for heads in "8 8" "32 8" "64 8"; do
    set -- $heads
    timeout 120 "$rb" verify --backend cuda --dtypes f32 --head-dim "$dim" --q-heads "$1" \
      --kv-heads "$2" -b 7 --lengths 1,16,17,1000,65537 >> "$out/verify.log" 2>&1
    echo "verify f32 D=$dim Hq=$1 Hkv=$2 B=7 rc=$? fails so far=$(grep -c FAIL "$out/verify.log")" | tee -a "$log"
  done
done
step "compute-sanitizer over the CUDA-core kernels"
for tool in memcheck racecheck initcheck synccheck; do
  san "$tool" "f32 and fp8 K/V, D 128 GQA 4, -b 2 L 17,1000" "$rb" verify --backend cuda \
    --dtypes f32 -b 2 --lengths 17,1000
  san "$tool" "f32 D 256 GQA 1, -b 1 L 4099 (split)" "$rb" verify --backend cuda --dtypes f32 \
    --head-dim 256 --q-heads 8 -b 1 --lengths 4099
  san "$tool" "f32 D 64 GQA 8, -b 2 L 1000" "$rb" verify --backend cuda --dtypes f32 \
    --head-dim 64 --q-heads 64 -b 2 --lengths 1000
done

shape() {  # name, readbench run options...
  local name=$1
  shift
  timeout 150 "$rb" run --backend cuda "$@" --json "$out/$name.json" > "$out/$name.txt" 2>&1
  echo "run $name rc=$? ($*)" | tee -a "$log"
}
step "issue 12's shapes: $(smi)"
shape f32-b32 -b 32 -L 1024,4096,16384 --dtype f32 --path all
shape f32-d64 -b 32 -L 1024,4096,16384 --dtype f32 --head-dim 64 --path fused
shape f32-g8 -b 32 -L 16384 --dtype f32 --q-heads 64 --path fused
shape f32-d256 -b 32 -L 16384 --dtype f32 --head-dim 256 --path fused
shape f32-fp8 -b 32 -L 16384 --dtype f32 --kv-dtype fp8_e4m3 --path fused
shape bf16-b32 -b 32 -L 1024,4096,16384 --path fused
shape d64-b32 -b 32 -L 1024,4096,16384 --head-dim 64 --path fused
shape fp8-b32 -b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3 --path fused
shape bf16-b1 -b 1 -L 1024:131072:x2 --path fused --fit-from 1024
shape fp8-b1 -b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
step "plain readbench run"
start=$(date +%s%N)
timeout 200 "$rb" run --json "$out/plain.json" > "$out/plain.txt" 2>&1
rc=$?
echo "plain run rc=$rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$log"
step "ncu: the decode kernel's own duration at the short shapes (verify's calls, one each)"
for shape in "-b 1 --lengths 1024" "-b 1 --lengths 16384" "-b 32 --lengths 1024"; do
  timeout 90 ncu --clock-control none --kernel-name regex:decode_kernel \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,sm__cycles_active.avg \
    "$rb" verify --backend cuda --dtypes bf16 --kv-dtypes same $shape >> "$out/ncu.txt" 2>&1
  echo "ncu [$shape] rc=$?" | tee -a "$log"
done
step "gpu after: $(smi)"
