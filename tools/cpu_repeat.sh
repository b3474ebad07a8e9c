#!/usr/bin/env bash
# N back-to-back default CPU runs (`readbench run --backend cpu`) on a quiet machine, then the
# spread of what they report per path: exponent, marginal cost, fitted region, and the read
# ceiling and wall time of each run.
# usage: tools/cpu_repeat.sh READBENCH_BINARY OUTDIR [N=5]
set -euo pipefail
bin=$(realpath "$1") out=$2 n=${3:-5}
mkdir -p "$out"
for i in $(seq 1 "$n"); do
  start=$(date +%s%N)
  "$bin" run --backend cpu --json "$out/run$i.json" >"$out/run$i.txt" 2>&1
  echo "run $i: $(( ($(date +%s%N) - start) / 1000000 )) ms, load $(cut -d' ' -f1-3 /proc/loadavg)" |
    tee -a "$out/wall.txt"
done
python3 - "$out" "$n" <<'PY' | tee "$out/summary.txt"
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
runs = [json.load(open(f"{out}/run{i}.json")) for i in range(1, n + 1)]
for i, r in enumerate(runs, 1):
    ceil = max(b["read_gbps"] for b in r["machine"]["bandwidths"] if b["backend"] == "cpu")
    row = [f"run {i}: ceiling {ceil:.1f} GB/s, quality {r['quality']['verdict']}"]
    for x in r["results"]:
        f = x["fit"]
        row.append(f"{x['path']} from {f['fit_from']:g} p {f['exponent']:.3f} "
                   f"b {f['marginal_s'] * 1e9:.0f} ns t0 {f['fixed_s'] * 1e6:.1f} us "
                   f"reached {f['asymptote_reached']}")
    print("; ".join(row))
for path in ("gather", "fused"):
    fits = [next(x["fit"] for x in r["results"] if x["path"] == path) for r in runs]
    p = [f["exponent"] for f in fits]
    b = [f["marginal_s"] for f in fits]
    print(f"{path}: p {min(p):.3f}-{max(p):.3f} (range {max(p) - min(p):.3f}); "
          f"b {min(b) * 1e9:.0f}-{max(b) * 1e9:.0f} ns (max/min - 1: {100 * (max(b) / min(b) - 1):.1f}%)")
ceil = [max(b["read_gbps"] for b in r["machine"]["bandwidths"] if b["backend"] == "cpu") for r in runs]
print(f"read ceiling {min(ceil):.1f}-{max(ceil):.1f} GB/s (max/min - 1: {100 * (max(ceil) / min(ceil) - 1):.1f}%)")
PY
