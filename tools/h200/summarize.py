#!/usr/bin/env python3
"""Summarizes a device run's readbench reports (a results folder of tools/h200 runs) for the notes:
per report, its ceilings and verdict; per backend/path the exponent, whether the asymptote was
reached, the fixed and marginal cost and the marginal cost's share of the read ceiling; per
point of a CUDA fused path, the min time and its share of the ceiling (K/V bytes over time).
Usage: tools/h200/summarize.py RESULTS_DIR"""
import json
import pathlib
import sys

for path in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    j = json.load(open(path))
    ceilings = {b["backend"]: round(b["read_gbps"]) for b in j["machine"]["bandwidths"]}
    print(f"== {path.stem} {ceilings} {j['quality']['verdict']}")
    for r in j["results"]:
        f = r.get("fit")
        if not f:
            continue
        print(f"  {r['backend']:5} {r['path']:6} p={f['exponent']:.3f} "
              f"reached={f['asymptote_reached']} from={f['fit_from']:.0f} "
              f"t0={f['fixed_s'] * 1e6:.2f}us b={f['marginal_s'] * 1e9:.4f}ns "
              f"effceil={f['effective_ceiling_fraction'] or 0:.3f}")
        if r["backend"] == "cuda" and r["path"] == "fused":
            print("     " + "  ".join(f"{p['length']}:{p['min_s'] * 1e6:.2f}us/"
                                      f"{100 * p['ceiling_fraction']:.1f}%" for p in r["points"]))
