# Sourced by the *_device.sh scripts that run the variant build (tools/h200/build.sh, packed into
# .scratch/cvx/cv.tar.xz with libgomp: cuda_variants, and readbench_gpu_tests where the script
# runs them) on the GPU machine. Expects `out` (the results folder); unpacks into /tmp/cv; sets
# `log` and the library path; defines:
#   step MESSAGE          a heading, on the terminal and in device.log
#   variant_checks SPEC TOOL...  the GPU tests under tuning SPEC (the plugin test left out: the
#                         plugin is not built with the variant define) into gpu_tests-SPEC.log,
#                         then `cuda_variants sanitize SPEC` under each compute-sanitizer TOOL
#                         into sanitizer.log; one line each into device.log
#   b1_passes SPEC...     `cuda_variants b1` over the specs three times, the middle pass in
#                         reverse order, into b1-{fwd1,bwd,fwd2}.{csv,txt}; one line each into
#                         device.log
#   variant_sanitize SPEC TOOL...  `cuda_variants sanitize SPEC` under each compute-sanitizer
#                         TOOL into sanitizer.log (the GPU tests left out); one line each
#   timelines SPEC...     `cuda_variants timeline` under each tuning SPEC ("" the default) into
#                         timeline-SPEC/ and timeline.txt; one line each into device.log
mkdir -p "$out" /tmp/cv
tar -xJf "$(dirname "${BASH_SOURCE[0]}")/../../.scratch/cvx/cv.tar.xz" -C /tmp/cv
export LD_LIBRARY_PATH=/tmp/cv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
log=$out/device.log
step() { echo "== $(date +%T) $*" | tee -a "$log"; }
variant_checks() {  # spec, tools...
  local spec=$1 tool
  shift
  READBENCH_TEST_CUDA_TUNING=$spec timeout 150 /tmp/cv/readbench_gpu_tests \
    --test-case-exclude='*plugin*' > "$out/gpu_tests-$spec.log" 2>&1
  echo "gpu tests ($spec) rc=$? $(grep -E 'test cases' "$out/gpu_tests-$spec.log")" | tee -a "$log"
  variant_sanitize "$spec" "$@"
}
timelines() {  # specs...
  local spec dir
  step "timelines"
  for spec in "$@"; do
    dir=$out/timeline-${spec:-default}
    mkdir -p "$dir"
    echo "== spec '$spec'" >> "$out/timeline.txt"
    timeout 100 /tmp/cv/cuda_variants timeline "$dir" "$spec" >> "$out/timeline.txt" 2>&1
    echo "timeline '$spec' rc=$?" | tee -a "$log"
  done
}
b1_passes() {  # specs...: `cuda_variants b1` three times (the middle pass in reverse order)
  local pass i order
  for pass in fwd1 bwd fwd2; do
    order=("$@")
    if [ $pass = bwd ]; then
      order=()
      for ((i = $#; i >= 1; i--)); do order+=("${!i}"); done
    fi
    step "b1, $pass"
    timeout 150 /tmp/cv/cuda_variants b1 "$out/b1-$pass.csv" "${order[@]}" > "$out/b1-$pass.txt" 2>&1
    echo "b1 $pass rc=$? fails=$(grep -c FAIL "$out/b1-$pass.txt")" | tee -a "$log"
  done
}
variant_sanitize() {  # spec, tools...: `cuda_variants sanitize SPEC` under each tool (no GPU tests)
  local spec=$1 tool
  shift
  for tool in "$@"; do
    timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 /tmp/cv/cuda_variants \
      sanitize "$spec" >> "$out/sanitizer.log" 2>&1
    echo "sanitizer $tool $spec rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)" | tee -a "$log"
  done
}
