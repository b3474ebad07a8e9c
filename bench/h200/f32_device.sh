#!/usr/bin/env bash
# The CUDA-core (f32) kernel's tile and lane rules on the H200: binaries of several builds
# carried in .scratch/rbx/rb.tar.xz, one folder each (old/, a/, b/: readbench and
# readbench_gpu_tests; run 16 built them with f32_build.sh and the patches of pending/, both in
# commit ae622b8 and removed once build b became the product), unpacked by device_lib.sh into
# /tmp/rb.
# Checks each candidate first (GPU tests; verify of f32 q with K/V in f32 and in e4m3, head dims
# 64/128/256, GQA 1/4/8, batch 1 and 7, L = 1, S, S+1, 1000, 65537), then times the builds
# interleaved (each round runs every build once per shape) and, last, runs compute-sanitizer's
# four tools over the candidates' CUDA-core kernels.
# Usage: bench/h200/f32_device.sh OUTDIR [SECTIONS, default "checks timing sanitize"]
#        (ROUNDS, default 3; BUILDS, default "old a b"; CANDIDATES, default "a b")
set -u -o pipefail
out=${1:?OUTDIR}
sections=${2:-checks timing sanitize}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, log, smi, step, san
has() { [[ " $sections " == *" $1 "* ]]; }
builds=${BUILDS:-old a b}
candidates=${CANDIDATES:-a b}
rounds=${ROUNDS:-3}

step "gpu: $(smi); host cpus $(nproc)"
for v in $builds; do
  step "build $v: $("$bin/$v/readbench" --version)"
  # Registers, shared memory and spills of the CUDA-core kernels (SimtMath).
  cuobjdump -res-usage "$bin/$v/readbench" 2>&1 | grep -A1 SimtMath > "$out/resources-$v.txt"
done

if has checks; then
  for v in $candidates; do
    step "checks of build $v"
    timeout 180 "$bin/$v/readbench_gpu_tests" > "$out/gpu_tests-$v.log" 2>&1
    echo "gpu tests [$v] rc=$? $(grep -E 'test cases' "$out/gpu_tests-$v.log")" | tee -a "$log"
    for dim in 64 128 256; do
      for heads in "8 8" "32 8" "64 8"; do
        set -- $heads
        for b in 1 7; do
          timeout 120 "$bin/$v/readbench" verify --backend cuda --dtypes f32 \
            --kv-dtypes same,fp8_e4m3 --head-dim "$dim" --q-heads "$1" --kv-heads "$2" -b "$b" \
            --lengths 1,16,17,1000,65537 >> "$out/verify-$v.log" 2>&1
          echo "verify [$v] D=$dim Hq=$1 Hkv=$2 B=$b rc=$? fails so far=$(grep -c FAIL "$out/verify-$v.log")" |
            tee -a "$log"
        done
      done
    done
  done
fi

# Min times of the fused read (and gather for the first shape), K/V bytes over time against the
# read ceiling of the same run.
timed() {  # build, round, name, readbench run options...
  local v=$1 r=$2 name=$3
  shift 3
  timeout 150 "$bin/$v/readbench" run --backend cuda "$@" --json "$out/$name-$v-$r.json" \
    > "$out/$name-$v-$r.txt" 2>&1
  echo "run $name [$v] round $r rc=$?" | tee -a "$log"
}
if has timing; then
  for r in $(seq 1 "$rounds"); do
    step "timing round $r: $(smi)"
    for v in $builds; do
      timed "$v" "$r" f32-d128 -b 32 -L 4096,16384 --dtype f32 --path all
      timed "$v" "$r" f32-g8 -b 32 -L 16384 --dtype f32 --q-heads 64 --path fused
      timed "$v" "$r" f32-d64 -b 32 -L 16384 --dtype f32 --head-dim 64 --path fused
      timed "$v" "$r" f32-d256 -b 32 -L 16384 --dtype f32 --head-dim 256 --path fused
      timed "$v" "$r" f32-fp8 -b 32 -L 16384 --dtype f32 --kv-dtype fp8_e4m3 --path fused
      timed "$v" "$r" f32-b1 -b 1 -L 65536 --dtype f32 --path fused
      [ "$r" = 1 ] && timed "$v" "$r" bf16 -b 32 -L 16384 --path fused
    done
  done
fi

if has sanitize; then
  for v in $candidates; do
    step "compute-sanitizer over the CUDA-core kernels of build $v"
    for tool in memcheck racecheck initcheck synccheck; do
      san "$tool" "$v: f32 and fp8 K/V, D 128 GQA 4, -b 2 L 17,1000" "$bin/$v/readbench" verify \
        --backend cuda --dtypes f32 --kv-dtypes same,fp8_e4m3 -b 2 --lengths 17,1000
      san "$tool" "$v: f32 D 256 GQA 1, -b 1 L 4099 (split)" "$bin/$v/readbench" verify \
        --backend cuda --dtypes f32 --head-dim 256 --q-heads 8 -b 1 --lengths 4099
      san "$tool" "$v: f32 D 64 GQA 8, -b 2 L 1000" "$bin/$v/readbench" verify --backend cuda \
        --dtypes f32 --head-dim 64 --q-heads 64 -b 2 --lengths 1000
    done
  done
fi
step "gpu after: $(smi)"
