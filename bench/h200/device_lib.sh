# Sourced by the *_device.sh scripts that run on the GPU machine over binaries built here and
# carried in .scratch/rb (readbench, readbench_gpu_tests, libgomp.so.1) or .scratch/rbx. Expects `out` (the
# results folder); sets `bin`, `rb`, `log` and the library path; defines:
#   smi           the GPU's name, driver, clocks, temperature, power and utilization
#   step MESSAGE  a heading, on the terminal and in device.log
#   gpu_tests     readbench_gpu_tests into gpu_tests.log, its counts into device.log
#   san TOOL LABEL CMD...  CMD under compute-sanitizer's TOOL into sanitizer.log, its summary
#                 into device.log
#   shape NAME OPTS...  `readbench run --backend cuda OPTS` into NAME.json / NAME.txt
#   plain_runs N  N plain `readbench run`s into plain-I.json / .txt, their wall times into device.log
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
  timeout 90 compute-sanitizer --tool "$tool" --error-exitcode 9 "$@" >> "$out/sanitizer.log" 2>&1
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
