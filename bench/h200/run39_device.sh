#!/usr/bin/env bash
# Run 39 on the H200 (bench/h200/NOTES.md): run 38 found a split B=1 call 1.9-4 us slower than an
# unsplit B=32 call of the same blocks; the split blocks hold their SMs for the fence, the atomic
# and the merge. Variants (the variant build of the working tree, .scratch/cvx/cv.tar.xz):
# merge=1, the splits merged by a second kernel launched as the decode's programmatic dependent
# (it lets the next call launch at once, then waits for the decode; the decode's blocks write
# their partials and leave); pdl=5, a block lets the next call launch once a warp has issued
# its last copies; both; waves=0.97 (at most 32 splits of 8 rows: 8 SMs' slots free for the
# merging blocks); pdl=2 (the next call at once). GPU tests and compute-sanitizer under the new
# ones, then cuda_variants b1 twice (specs in opposite orders), then timelines.
# (Its preamble moved into variant_lib.sh after it ran: the same steps.)
# Usage: bench/h200/run39_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
. "$(dirname "$0")/variant_lib.sh"  # log, step, variant_checks
step "$(nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader)"
variant_checks merge=1 memcheck racecheck synccheck
variant_checks pdl=5 memcheck racecheck synccheck
specs=("" pdl=5 merge=1 merge=1,pdl=5 waves=0.97 pdl=2)
step "b1, forward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-fwd.csv" "${specs[@]}" > "$out/b1-fwd.txt" 2>&1
echo "b1 fwd rc=$? fails=$(grep -c FAIL "$out/b1-fwd.txt")" | tee -a "$log"
step "b1, backward"
timeout 280 /tmp/cv/cuda_variants b1 "$out/b1-bwd.csv" pdl=2 waves=0.97 merge=1,pdl=5 merge=1 \
  pdl=5 "" > "$out/b1-bwd.txt" 2>&1
echo "b1 bwd rc=$? fails=$(grep -c FAIL "$out/b1-bwd.txt")" | tee -a "$log"
step "timelines"
for spec in merge=1 pdl=5 merge=1,pdl=5; do
  timeout 100 /tmp/cv/cuda_variants timeline "$out" "$spec" >> "$out/timeline.txt" 2>&1
  echo "timeline $spec rc=$?" | tee -a "$log"
done
step done
