#!/usr/bin/env bash
# The plugin boundary on this machine's CPU: readbench's fused read built as a plugin
# (examples/plugins/fused_cpu.cpp) against the built-in fused path, default shape, L = 4096.
# 5 runs with both paths in one run, the order alternating; each run gives one plugin/built-in
# ratio of min times. Run on a quiet machine (nothing building); BUDGET: seconds per point (1).
# Usage: tools/plugin_ab.sh BUILD_DIR OUTDIR
set -u -o pipefail
build=${1:?BUILD_DIR}
out=${2:?OUTDIR}
mkdir -p "$out"
rb=$build/src/readbench
plugin=$build/examples/plugins/libreadbench_fused_cpu.so
P=plugin:readbench_fused_cpu
for i in 1 2 3 4 5; do
  order=$([ $((i % 2)) -eq 1 ] && echo "fused,$P" || echo "$P,fused")
  "$rb" run --backend cpu --plugin "$plugin" --path "$order" -L 4096 --budget "${BUDGET:-1}" --json "$out/run$i.json" \
    > "$out/run$i.txt" 2>&1
  echo "run $i ($order) rc=$?"
done
python3 - "$out" <<'PY'
import json, statistics, sys, glob
ratios = []
for f in sorted(glob.glob(sys.argv[1] + "/run*.json")):
    r = json.load(open(f))
    t = {x["path"]: x["points"][0]["min_s"] for x in r["results"] if x["points"]}
    ratio = t["plugin:readbench_fused_cpu"] / t["fused"]
    ratios.append(ratio)
    print(f"{f.split('/')[-1]}: fused {t['fused']*1e6:.1f} us, plugin {t['plugin:readbench_fused_cpu']*1e6:.1f} us, ratio {ratio:.4f}, quality {r['quality']['verdict']}")
print(f"median ratio {statistics.median(ratios):.4f} (range {min(ratios):.4f}-{max(ratios):.4f})")
PY
