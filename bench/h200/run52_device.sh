#!/usr/bin/env bash
# Run 52 on the H200 (bench/h200/NOTES.md): run 51 again with the product binaries of `1e966e5`,
# whose cluster merge is a kernel of its own (in run 51 its code inside the split kernel had
# cost e4m3 K/V B=1 calls of 32-33 splits 2-3%), against the product of `553ca56` (run 48;
# .scratch/rbx/old.tar.xz). GPU tests, verify, compute-sanitizer over timed calls; the A/B
# rounds of run 51; issue 12's shapes and one plain run with the new binary.
# Usage: bench/h200/run52_device.sh OUTDIR
exec "$(dirname "$0")/run51_device.sh" "$@"
