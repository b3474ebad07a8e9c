#!/usr/bin/env bash
# Run 59 on the H200 (bench/h200/NOTES.md): where a split B=1 call's tail goes, instruction by
# instruction; a smaller merge; the streamed K/V marked first to leave L2.
# - The split kernel's code is 50.5 KB (bf16 D=128, sm_90) where the unsplit one is 21.4 KB and
#   the cluster one 28.9 KB; runs 24-58 put 1-2.7 us in a block's epilogue even at L=16 (e4m3 K/V
#   B=1 L=65536: 2.9-5.1 us in run 58) and run 56 found unexecuted code costing 0.3-0.9 us.
# - `new`: the product of the working tree with the merge's three loops not unrolled (39.0 KB).
#   Prediction, if instruction fetch is part of the tail: B=1 from L=4096 (the counter merge)
#   0.3-1 us faster a call, the rest unchanged; if not, the same or about 0.2 us slower.
# - `new2`: `new` with every K/V copy under an L2
#   evict-first policy, so that what a call needs again (its code, q, the block table, the
#   partials) is not pushed out of L2 by the stream. Prediction: every call 0.3-1 us faster
#   (q is loaded after the wait for the previous call, from DRAM today), B=32 unchanged.
# Against `470f093` (`old`). Phase `ab`: GPU tests of `new`, verify of
# `new` and `new2`, three A/B rounds of the three binaries, the order rotated. Phase `ncu`:
# ncu's per-instruction stall sampling (SourceCounters, WarpStateStats) of one split call, B=1
# L=16384 bf16 and e4m3 K/V L=65536, old and new: a lone call with caches flushed (verify's),
# and a call deep in a timed run with the caches as the calls before left them.
# Results: results/run59-tail/ (ncu reports and their SASS pages packed in ncu.tar.xz).
# Usage: bench/h200/run59_device.sh ab|ncu OUTDIR
set -u -o pipefail
phase=${1:?ab or ncu}
out=${2:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, verify_all, ...
# The three builds travel in one archive (rb.tar.xz: new at its root, old/ and new2/ beside).
old=$bin/old/readbench
new2=$bin/new2/readbench
export READBENCH_FUSED_CUDA_PLUGIN=$bin/libreadbench_fused_cuda.so
step "gpu: $(smi); host cpus $(nproc); new $("$rb" --version); old $("$old" --version); new2 $("$new2" --version)"

if [ "$phase" = ab ]; then
  gpu_tests
  verify_all
  (out=$out/verify-new2; rb=$new2; mkdir -p "$out"; verify_all)
  mapfile -t ab_shapes < <(kernel_ab_shapes)
  for round in 1 2 3; do
    step "A/B round $round: $(smi)"
    case $round in
      1) ab_one old "$old" 1; ab_one new "$bin/readbench" 1; ab_one new2 "$new2" 1 ;;
      2) ab_one new2 "$new2" 2; ab_one new "$bin/readbench" 2; ab_one old "$old" 2 ;;
      3) ab_one new "$bin/readbench" 3; ab_one old "$old" 3; ab_one new2 "$new2" 3 ;;
    esac
  done
fi

if [ "$phase" = ncu ]; then
  mkdir -p "$out/ncu"
  profile() {  # label, cache control, ncu options and command...
    local label=$1 cache=$2
    shift 2
    timeout 150 ncu --clock-control none --cache-control "$cache" --kernel-name-base demangled \
      --kernel-name 'regex:decode_kernel<.*PagedRows' --section WarpStateStats \
      --section SourceCounters --section LaunchStats --import-source no -f \
      -o "$out/ncu/$label" "$@" > "$out/ncu/$label.log" 2>&1
    echo "ncu $label rc=$?" | tee -a "$log"
    ncu -i "$out/ncu/$label.ncu-rep" --page details --csv > "$out/ncu/$label-details.csv" 2>&1
    ncu -i "$out/ncu/$label.ncu-rep" --page source --csv --print-source sass \
      > "$out/ncu/$label-sass.csv" 2>&1
    echo "ncu $label pages: $(wc -l < "$out/ncu/$label-details.csv") / $(wc -l < "$out/ncu/$label-sass.csv") lines" | tee -a "$log"
  }
  step "ncu: stall sampling of one split call, each binary"
  for label in old new; do
    b=$bin/readbench
    [ $label = old ] && b=$old
    profile "$label-bf16-cold" all --launch-count 1 \
      "$b" verify --backend cuda --dtypes bf16 -b 1 --lengths 16384 --kv-dtypes same
    profile "$label-bf16-warm" none --launch-skip 6 --launch-count 1 \
      "$b" run --backend cuda -b 1 -L 16384 --path fused --min-samples 4 --budget 0.05 \
      --rounds 1 --json "$out/ncu/run-$label.json"
    profile "$label-e4m3-cold" all --launch-count 1 \
      "$b" verify --backend cuda --dtypes bf16 -b 1 --lengths 65536 --kv-dtypes fp8_e4m3
    profile "$label-e4m3-warm" none --launch-skip 6 --launch-count 1 \
      "$b" run --backend cuda -b 1 -L 65536 --kv-dtype fp8_e4m3 --path fused --min-samples 4 \
      --budget 0.05 --rounds 1 --json "$out/ncu/run-$label-e4m3.json"
  done
  tar -C "$out" -cJf "$out/ncu.tar.xz" ncu && rm -rf "$out/ncu"
fi
step "gpu after: $(smi)"
