# Sourced by the *_device.sh scripts that run on the GPU machine over binaries built here and
# carried in .scratch/rb (readbench, readbench_gpu_tests, libgomp.so.1) or .scratch/rbx. Expects `out` (the
# results folder); sets `bin`, `rb`, `log` and the library path; defines:
#   smi           the GPU's name, driver, clocks, temperature, power and utilization
#   step MESSAGE  a heading, on the terminal and in device.log
#   gpu_tests     readbench_gpu_tests into gpu_tests.log, its counts into device.log
#   san TOOL LABEL CMD...  CMD under compute-sanitizer's TOOL into sanitizer.log, its summary
#                 into device.log (stopped after $san_timeout seconds, 90)
#   shape NAME OPTS...  `readbench run --backend cuda OPTS` into NAME.json / NAME.txt
#   plain_runs N  N plain `readbench run`s into plain-I.json / .txt, their wall times into device.log
#   issue12_shapes PATH  issue 12's shapes (B=32 bf16, D=64, e4m3 K/V, f32, f32 D=64 at L 1024,
#                 4096, 16384; B=1 bf16 and e4m3 over 1024..131072) through `shape`; PATH
#                 (fused or all) for the bf16 B=32 and B=1 runs
#   san_timed_calls  compute-sanitizer's four tools over timed calls: both paths at B=1 L 1000
#                 and 16384 (8 and 32 splits), e4m3 K/V at B=2 L 4099, one KV head at B=1
#                 L 65537 (257 splits: a merge in batches)
#   unpack_old    the product binary to compare against, .scratch/rbx/old.tar.xz, into
#                 /tmp/rbold; sets `old`
#   start_ab      unpack_old, the plugin test pointed at the new build's plugin, and a heading
#                 naming the GPU, the host's CPUs and both binaries' versions
#   ab_rounds N [FIRST]  N rounds (numbered from FIRST, 1) of `readbench run --backend cuda` of
#                 the old binary and the new, the order alternating (old first in odd rounds),
#                 over the shapes on standard input (lines NAME|OPTIONS) into
#                 ab-ROUND-LABEL-NAME.json / .txt; needs unpack_old
#   ab_one LABEL BINARY ROUND  one binary over the shapes of the array `ab_shapes` into
#                 ab-ROUND-LABEL-NAME.json / .txt (ab_rounds' step; run 59 rotates three binaries)
#   kernel_ab_shapes  the shapes a kernel change's A/B times (ab_rounds' input): B=1 bf16 and
#                 e4m3 K/V over 1024..131072, B=3 bf16, and the unsplit B=32 controls
#   verify_all    `verify --backend cuda` over GQA 1/4/8, batch 1 and 7, L = 1, S, S+1, 1000,
#                 65537 into verify.log, one line each into device.log
# Where the binaries outgrow the tree's 64 MiB limit they travel as .scratch/rbx/rb.tar.xz (with
# libgomp beside it) and are unpacked into /tmp/rb.
if [ -f "$(dirname "${BASH_SOURCE[0]}")/../../.scratch/rbx/rb.tar.xz" ]; then
  packed=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.scratch/rbx" && pwd)
  mkdir -p /tmp/rb && tar -xJf "$packed/rb.tar.xz" -C /tmp/rb && cp "$packed/libgomp.so.1" /tmp/rb/
  bin=/tmp/rb
else
  bin=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.scratch/rb" && pwd)
fi
export LD_LIBRARY_PATH=$bin${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
rb=$bin/readbench
log=$out/device.log
smi() { nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw,utilization.gpu --format=csv,noheader; }
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
gpu_tests() {
  step "gpu tests"
  timeout 120 "$bin/readbench_gpu_tests" > "$out/gpu_tests.log" 2>&1
  echo "gpu tests rc=$? $(grep -E 'test cases' "$out/gpu_tests.log")" | tee -a "$log"
}
verify_all() {
  step "verify: all dtypes, GQA 1/4/8, batch 1 and 7, L = 1, S, S+1, 1000, 65537"
  local heads b
  for heads in "8 8" "32 8" "64 8"; do
    set -- $heads
    for b in 1 7; do
      timeout 120 "$rb" verify --backend cuda --q-heads "$1" --kv-heads "$2" -b "$b" \
        --lengths 1,16,17,1000,65537 >> "$out/verify.log" 2>&1
      echo "verify Hq=$1 Hkv=$2 B=$b rc=$? fails so far=$(grep -c FAIL "$out/verify.log")" | tee -a "$log"
    done
  done
}

san() {  # tool, label, command...
  local tool=$1 label=$2; shift 2
  echo "== $tool [$label]" >> "$out/sanitizer.log"
  timeout "${san_timeout:-90}" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" \
    >> "$out/sanitizer.log" 2>&1
  echo "sanitizer $tool [$label] rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)" | tee -a "$log"
}

shape() {  # name, readbench run options...
  local name=$1
  shift
  timeout 150 "$rb" run --backend cuda "$@" --json "$out/$name.json" > "$out/$name.txt" 2>&1
  echo "run $name rc=$? ($*)" | tee -a "$log"
}
plain_runs() {  # count
  local i start rc
  for i in $(seq 1 "$1"); do
    step "plain readbench run $i"
    start=$(date +%s%N)
    timeout 200 "$rb" run --json "$out/plain-$i.json" > "$out/plain-$i.txt" 2>&1
    rc=$?
    echo "plain run $i rc=$rc wall $(( ($(date +%s%N) - start) / 1000000 )) ms" | tee -a "$log"
  done
}
issue12_shapes() {  # path for bf16 B=32 and B=1: fused or all
  shape bf16-b32 -b 32 -L 1024,4096,16384 --path "$1"
  shape d64-b32 -b 32 -L 1024,4096,16384 --head-dim 64 --path fused
  shape fp8-b32 -b 32 -L 1024,4096,16384 --kv-dtype fp8_e4m3 --path fused
  shape f32-b32 -b 32 -L 1024,4096,16384 --dtype f32 --path fused
  shape f32-d64 -b 32 -L 1024,4096,16384 --dtype f32 --head-dim 64 --path fused
  shape bf16-b1 -b 1 -L 1024:131072:x2 --path "$1" --fit-from 1024
  shape fp8-b1 -b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
}
san_timed_calls() {
  local tool
  step "compute-sanitizer over timed calls"
  for tool in memcheck racecheck synccheck initcheck; do
    san "$tool" "run, both paths, -b 1 L 1000,16384 (8 and 32 splits)" "$rb" run \
      --backend cuda -b 1 -L 1000,16384 --min-samples 2 --budget 0.02 --rounds 1 --path all \
      --json "$out/san.json"
    san "$tool" "run, fused, e4m3 K/V -b 2 L 4099" "$rb" run --backend cuda -b 2 -L 4099 \
      --kv-dtype fp8_e4m3 --min-samples 2 --budget 0.02 --rounds 1 --path fused \
      --json "$out/san.json"
    san "$tool" "run, both paths, Hq 8 Hkv 1 -b 1 L 65537 (257 splits)" "$rb" run --backend cuda \
      -b 1 --q-heads 8 --kv-heads 1 -L 65537 --min-samples 2 --budget 0.02 --rounds 1 --path all \
      --json "$out/san.json"
  done
  rm -f "$out/san.json"
}
unpack_old() {
  mkdir -p /tmp/rbold
  tar -xJf "$(dirname "${BASH_SOURCE[0]}")/../../.scratch/rbx/old.tar.xz" -C /tmp/rbold
  old=/tmp/rbold/readbench
}
start_ab() {
  unpack_old
  export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so
  step "gpu: $(smi); host cpus $(nproc); new $("$rb" --version); old $("$old" --version)"
}
kernel_ab_shapes() {
  cat <<'SHAPES'
bf16-b1|-b 1 -L 1024:131072:x2 --path fused --fit-from 1024
fp8-b1|-b 1 -L 1024:131072:x2 --kv-dtype fp8_e4m3 --path fused --fit-from 1024
bf16-b3|-b 3 -L 4096,16384,65536 --path fused
bf16-b32|-b 32 -L 1024,16384 --path fused
d64-b32|-b 32 -L 4096 --head-dim 64 --path fused
SHAPES
}
ab_one() {  # label, binary, round: the shapes of `ab_shapes` (NAME|OPTIONS entries)
  local line name opts
  for line in "${ab_shapes[@]}"; do
    name=${line%%|*} opts=${line#*|}
    timeout 150 "$2" run --backend cuda $opts --json "$out/ab-$3-$1-$name.json" \
      > "$out/ab-$3-$1-$name.txt" 2>&1
    echo "ab round $3 $1 $name rc=$?" | tee -a "$log"
  done
}
ab_rounds() {  # rounds, first round's number (1); shapes (NAME|OPTIONS lines) on stdin
  local round
  mapfile -t ab_shapes
  for round in $(seq "${2:-1}" $((${2:-1} + $1 - 1))); do
    step "A/B round $round: $(smi)"
    if [ $((round % 2)) = 1 ]; then ab_one old "$old" "$round"; ab_one new "$rb" "$round"
    else ab_one new "$rb" "$round"; ab_one old "$old" "$round"; fi
  done
}
