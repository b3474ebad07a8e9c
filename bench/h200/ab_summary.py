#!/usr/bin/env python3
"""Interleaved A/B runs of readbench binaries (bench/h200 runs 31-33): reports named
SHAPE-BINARY-ROUND.json. Per shape and length, each binary's min times over the rounds (cuda
fused) and their range as a fraction of the read ceiling.
Usage: bench/h200/ab_summary.py RESULTS_DIR BINARY..."""
import collections
import glob
import json
import os
import sys

folder, binaries = sys.argv[1], sys.argv[2:]
points = collections.defaultdict(list)
for path in sorted(glob.glob(os.path.join(folder, "*-[0-9].json"))):
    shape, which, _ = os.path.basename(path)[:-5].rsplit("-", 2)
    for r in json.load(open(path))["results"]:
        if r["backend"] == "cuda" and r["path"] == "fused":
            for p in r["points"]:
                points[(shape, p["length"], which)].append(
                    (p["min_s"] * 1e6, 100 * p["ceiling_fraction"]))
for shape, length in sorted({k[:2] for k in points}):
    print(f"{shape:9} L={length:<6}" + "".join(
        f" | {b} " + " ".join(f"{t:.2f}" for t, _ in points[(shape, length, b)])
        for b in binaries))
    print(" " * 18 + "of the ceiling:" + "".join(
        f" {b} {min(f for _, f in points[(shape, length, b)]):.1f}-"
        f"{max(f for _, f in points[(shape, length, b)]):.1f}%" for b in binaries))
