#!/usr/bin/env bash
# Run 44 on the H200 (bench/h200/NOTES.md): the product binaries of `adc9994` (.scratch/rbx):
# issue 12's B=1 grid (t0 + b over 1024..131072), the explicit B=1 grid 4096..262144 and a plain
# `readbench run` (issue 8's H200 targets: the plain run's cuda fused marginal cost against the
# explicit grid's, same run).
# Usage: bench/h200/run44_device.sh OUTDIR
set -u -o pipefail
out=${1:?OUTDIR}
mkdir -p "$out"
. "$(dirname "$0")/device_lib.sh"  # bin, rb, log, smi, step, shape, plain_runs
step "gpu: $(smi); host cpus $(nproc); $("$rb" --version)"
shape bf16-b1 -b 1 -L 1024:131072:x2 --path fused --fit-from 1024
shape bf16-b1-long -b 1 -L 4096:262144:x2 --path fused
plain_runs 1
step "gpu after: $(smi)"
