#!/usr/bin/env bash
# Run 74 on the H200 (bench/h200/NOTES.md): the reviewed pairs of KV heads (`fcd8ea4`). The
# variant build's readbench verify under the default tuning and under `cluster=1` (no clusters:
# a split row of pairs merges through the workspace and the counter, which the H200's plan of
# pairs takes only where a cluster of its at most 7 splits cannot be resident),
# compute-sanitizer's memcheck, racecheck, synccheck and initcheck over such calls (D=64 -b 7
# L 4099, 4 splits a row); the product binaries' GPU tests and one pass over D=64 B=32 and B=7
# (L=300, which the review's rule turned back to a head a row: 28 rows of pairs in 3 splits of
# 128 tokens would leave SMs idle; L=4099 pairs). No A/B, and no variant GPU tests: the variant
# build's readbench and the product binary fill the device tool's carry.
# Results: results/run74-pairs-review/.
# Usage: bench/h200/run74_device.sh OUTDIR (pack OUTDIR into $OUT: 8 files at most come back)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/variant_lib.sh"  # /tmp/cv, log, step, variant_checks
step "variant verify: pairs merged through the workspace (cluster=1) and by default"
for spec in "cluster=1" "pdl=7"; do
  for shape in "-b 7 --kv-heads 8 --q-heads 32" "-b 20 --kv-heads 8 --q-heads 8" \
    "-b 20 --kv-heads 2 --q-heads 8"; do
    READBENCH_CUDA_TUNING=$spec timeout 120 /tmp/cv/readbench verify --backend cuda \
      --dtypes bf16,f16 --kv-dtypes same --head-dim 64 $shape -L 1,17,1000,4099,9001 \
      >> "$out/verify.log" 2>&1
    echo "verify ($spec, $shape) rc=$? fails so far=$(grep -c FAIL "$out/verify.log")" | tee -a "$log"
  done
done
step "compute-sanitizer: pairs merged through the workspace (cluster=1)"
for tool in memcheck racecheck synccheck initcheck; do
  READBENCH_CUDA_TUNING=cluster=1 timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 \
    /tmp/cv/readbench run --backend cuda -b 7 -L 4099 --head-dim 64 --min-samples 2 \
    --budget 0.02 --rounds 1 --path all --json "$out/san.json" >> "$out/sanitizer.log" 2>&1
  echo "sanitizer $tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$out/sanitizer.log" | tail -1)" | tee -a "$log"
done
READBENCH_CUDA_TUNING=cluster=1 timeout 60 /tmp/cv/readbench run --backend cuda -b 7 -L 4099 \
  --head-dim 64 --min-samples 2 --budget 0.02 --rounds 1 --path fused --json "$out/san.json" \
  > "$out/cluster1-launch.txt" 2>&1
rm -f "$out/san.json"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, smi, gpu_tests, shape (log stays)
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so
step "product: $(smi); $("$rb" --version)"
gpu_tests
shape d64-b32 -b 32 -L 1024,4096,16384 --head-dim 64 --path fused
shape d64-b7 -b 7 -L 300,4099 --head-dim 64 --path fused
step "gpu after: $(smi)"
