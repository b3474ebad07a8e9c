#!/usr/bin/env bash
# fp8 e4m3 K/V on the GPU machine, over binaries built here and carried in .scratch/rb
# (readbench, readbench_gpu_tests, libgomp.so.1): GPU tests (every dtype pair), verify over every
# dtype with K/V in its own type and in fp8_e4m3, compute-sanitizer's four tools over the fp8
# kernels, then the timed points of the fp8 targets beside bf16 and the other shape targets.
# Usage: bench/h200/fp8_device.sh OUTDIR [SECTIONS, default "checks timing sanitize"]
set -u -o pipefail
out=${1:?OUTDIR}
sections=${2:-checks timing sanitize}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, san
has() { [[ " $sections " == *" $1 "* ]]; }

step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
if has checks; then
  gpu_tests
  verify_all
fi

if has sanitize; then
step "compute-sanitizer: fp8 K/V under bf16, f16 and f32 q, gather and fused, unsplit and split"
for tool in memcheck racecheck initcheck synccheck; do
  san "$tool" "fp8 -b 2 L 17,1000" "$rb" verify --backend cuda --kv-dtypes fp8_e4m3 -b 2 --lengths 17,1000
  san "$tool" "fp8 -b 1 L 4099 (split)" "$rb" verify --backend cuda --dtypes bf16 --kv-dtypes fp8_e4m3 -b 1 --lengths 4099
  san "$tool" "D 64 bf16 and fp8" "$rb" verify --backend cuda --dtypes bf16 --kv-dtypes same,fp8_e4m3 --head-dim 64 -b 2 --lengths 1000
  san "$tool" "fp8 D 256" "$rb" verify --backend cuda --dtypes bf16 --kv-dtypes fp8_e4m3 --head-dim 256 -b 2 --lengths 1000
done
fi

# Timed points: K/V bytes over time against the same run's read ceiling (the table's
# ceiling fraction); each run measures its own ceiling.
timed() {  # name, readbench run options...
  local name=$1; shift
  timeout 120 "$rb" run --backend cuda "$@" --json "$out/$name.json" > "$out/$name.txt" 2>&1
  echo "run $name rc=$? ($*)" | tee -a "$log"
}
if has timing; then
step "fp8 targets beside bf16 (B=32 L=16384, B=1 L=65536, B=32 L=1024 and 4096)"
timed bf16-b32 -b 32 -L 1024,4096,16384 --path fused
timed fp8-b32 -b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3
timed fp8-f16-b32 -b 32 -L 16384 --dtype f16 --kv-dtype fp8_e4m3 --path fused
timed fp8-f32-b32 -b 32 -L 16384 --dtype f32 --kv-dtype fp8_e4m3 --path fused
timed bf16-b1 -b 1 -L 1024:131072:x2 --path fused --fit-from 1024
timed fp8-b1 -b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
step "the other shape targets, as they stand (f32, head dim 64)"
timed f32-b32 -b 32 -L 16384 --dtype f32 --path fused
timed d64-b32 -b 32 -L 4096,16384 --head-dim 64 --path fused
timed fp8-d64-b32 -b 32 -L 4096,16384 --head-dim 64 --kv-dtype fp8_e4m3 --path fused
for f in "$out"/*.txt; do echo "--- $(basename "$f")" >> "$log"; cat "$f" >> "$log"; done
fi
step "gpu after: $(smi)"
