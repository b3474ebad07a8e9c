#!/usr/bin/env python3
"""Table of ../WAIT_POLICY.md from the reports run.sh wrote: per load, variant, path and
length, the best and the median over repeats of each report's min_s and median_s, and the
spread (max/min over repeats) of the min. Usage: summarize.py DIR"""
import json
import pathlib
import statistics
import sys
from collections import defaultdict

VARIANTS = ["active", "passive", "spin10k", "spin100k", "default"]

rows = defaultdict(lambda: {"min": [], "median": []})
for f in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    load, variant, _ = f.stem.split("-")
    for r in json.loads(f.read_text())["results"]:
        for p in r["points"]:
            key = (load, r["path"], p["length"], variant)
            rows[key]["min"].append(p["min_s"])
            rows[key]["median"].append(p["median_s"])

us = lambda s: f"{s * 1e6:,.1f}"
print("| load | path | L | wait | runs | min of min (us) | median of min (us) | "
      "min spread (max/min) | median of median (us) | worst median (us) |")
print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
for load in ("quiet", "busy"):
    for path in ("gather", "fused"):
        for length in (16, 256, 4096):
            for v in VARIANTS:
                d = rows.get((load, path, length, v))
                if not d:
                    continue
                mins, meds = d["min"], d["median"]
                print(f"| {load} | {path} | {length} | {v} | {len(mins)} | {us(min(mins))} | "
                      f"{us(statistics.median(mins))} | {max(mins) / min(mins):.2f} | "
                      f"{us(statistics.median(meds))} | {us(max(meds))} |")
