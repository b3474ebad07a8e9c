#!/usr/bin/env bash
# Run 62 on the H200 (bench/h200/NOTES.md): the split counter's release as the atomic's own.
# Run 59's stall sampling put 36-44% of a split block's tail samples at the barrier behind
# thread 0's fence.acq_rel and relaxed atomic (MEMBAR, ERRBAR and CCTL.IVALL: the fence's
# acquire half invalidates L1 in every block, though only the last block reads what others
# wrote). The product binaries of the working tree (atom.release.gpu, then fence.acq_rel only in
# the last block: CUTLASS's semaphore pattern) against those of HEAD (.scratch/rbx/old.tar.xz),
# both built for sm_90 only. Prediction: split calls (B=1 from L=4096, B=3) 0.1-0.3 us faster,
# cluster rows and unsplit calls unchanged, outputs bit for bit the same.
# The two binaries' fence and atomic instructions (cuobjdump), GPU tests, verify, four A/B
# rounds, compute-sanitizer's four tools over timed calls, issue 12's shapes and one plain run
# with the new binary. Results: results/run62-release-atomic/.
# Usage: bench/h200/run62_device.sh OUTDIR (the device returns 8 files at most: the call ran it
#        into /tmp/r and packed that folder into $OUT/r.tar.xz)
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, gpu_tests, ab_rounds, ...
start_ab
step "fence and atomic instructions, old then new"
for b in "$old" "$rb"; do
  cuobjdump -sass "$b" 2>/dev/null | grep -oE "(MEMBAR|ERRBAR|CCTL|ATOM|RED|FENCE)[A-Z0-9._]*" |
    sort | uniq -c | tr '\n' ' ' | tee -a "$log"
  echo | tee -a "$log"
done
gpu_tests
verify_all
kernel_ab_shapes | ab_rounds 4
san_timed_calls
step "issue 12's shapes, new binary"
issue12_shapes fused
plain_runs 1
step "gpu after: $(smi)"
