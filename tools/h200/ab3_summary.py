#!/usr/bin/env python3
"""Interleaved A/B rounds of readbench binaries as device_lib.sh's ab_rounds (or a run script's
own rounds) name them: ab-ROUND-LABEL-SHAPE.json. Per shape and length: each label's min time
(cuda fused) in every round, the range over the rounds as a fraction of the read ceiling, and
each label's best against the first label's best; then the fixed + marginal fit of the B=1
shapes as readbench reported it, per round.
Usage: tools/h200/ab3_summary.py RESULTS_DIR LABEL..."""
import collections
import glob
import json
import os
import sys

folder, labels = sys.argv[1], sys.argv[2:]
points = collections.defaultdict(dict)
fits = collections.defaultdict(dict)
for path in sorted(glob.glob(os.path.join(folder, "ab-*-*-*.json"))):
    _, rnd, label, shape = os.path.basename(path)[:-5].split("-", 3)
    for r in json.load(open(path))["results"]:
        if r["backend"] != "cuda" or r["path"] != "fused":
            continue
        for p in r["points"]:
            points[(shape, p["length"])].setdefault(label, []).append(
                (int(rnd), p["min_s"] * 1e6, 100 * p["ceiling_fraction"]))
        f = r.get("fit") or {}
        if "marginal_s" in f:
            fits[shape].setdefault(label, []).append((int(rnd), f))
for (shape, length), by in sorted(points.items()):
    base = min(t for _, t, _ in by.get(labels[0], [(0, float("nan"), 0)]))
    row = f"{shape:9} L={length:<7}"
    for lab in labels:
        v = sorted(by.get(lab, []))
        if not v:
            continue
        best = min(t for _, t, _ in v)
        row += (f" | {lab} " + " ".join(f"{t:.2f}" for _, t, _ in v) +
                f" ({min(f for *_, f in v):.1f}-{max(f for *_, f in v):.1f}%, "
                f"{100 * (best / base - 1):+.1f}%)")
    print(row)
for shape, by in sorted(fits.items()):
    for lab in labels:
        v = sorted(by.get(lab, []), key=lambda x: x[0])
        if v:
            print(f"fit {shape:9} {lab:5}" + "".join(
                f" | {f['fixed_s'] * 1e6:.2f} us + {f['marginal_s'] * 1e9:.4f} ns"
                f" ({100 * f['effective_ceiling_fraction']:.1f}%)" for _, f in v))
