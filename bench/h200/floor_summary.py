#!/usr/bin/env python3
"""Run 68's summary: per length, the min per call (range over the passes) of each read_floor
variant and of readbench's fused bf16 B=1 sweep; per pass, readbench's fixed + marginal fit
(least squares on relative error, as src/core/affine_fit.cpp) over 1024..131072, the marginal as
a fraction of that tool's read ceiling (K/V bytes: 4096 a token).
Usage: floor_summary.py DIR"""
import csv
import glob
import json
import sys

TOKEN_BYTES = 4096


def fit(points):
    """t0 (us), b (ns/token) minimising sum(((t0 + b L) - t) / t)^2."""
    w = [1 / (t * t) for _, t in points]
    sw = sum(w)
    ml = sum(wi * l for wi, (l, _) in zip(w, points)) / sw
    mt = sum(wi * t for wi, (_, t) in zip(w, points)) / sw
    sxx = sum(wi * (l - ml) ** 2 for wi, (l, _) in zip(w, points))
    sxy = sum(wi * (l - ml) * (t - mt) for wi, (l, t) in zip(w, points))
    b = sxy / sxx
    return mt - b * ml, b * 1e3


def main(d):
    series = {}  # name -> pass -> {L: min_us}; ceilings: name -> pass -> GB/s
    ceilings = {}
    for path in sorted(glob.glob(f"{d}/floor-*.csv")):
        p = path.rsplit("-", 1)[1].split(".")[0]
        for row in csv.DictReader(open(path)):
            series.setdefault(row["variant"], {}).setdefault(p, {})[int(row["length"])] = float(
                row["min_us"])
            ceilings.setdefault(row["variant"], {})[p] = float(row["ceiling_gbps"])
    for path in sorted(glob.glob(f"{d}/bf16-b1-*.json")):
        p = path.rsplit("-", 1)[1].split(".")[0]
        r = json.load(open(path))
        res = r["results"][0]
        series.setdefault("fused (readbench)", {})[p] = {
            pt["length"]: pt["min_s"] * 1e6 for pt in res["points"]}
        f = res["fit"]  # its ceiling: the effective bandwidth over its fraction
        ceilings.setdefault("fused (readbench)", {})[p] = f["effective_gbps"] / f[
            "effective_ceiling_fraction"]
        print(f"readbench's own fit, pass {p}: {f['fixed_s'] * 1e6:.2f} us + "
              f"{f['marginal_s'] * 1e9:.4f} ns ({100 * f['effective_ceiling_fraction']:.1f}%)")
    lengths = sorted({l for s in series.values() for ps in s.values() for l in ps})
    names = list(series)
    print("| L | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for l in lengths:
        cells = []
        for n in names:
            v = [ps[l] for ps in series[n].values() if l in ps]
            cells.append(f"{min(v):.2f}-{max(v):.2f}" if v else "")
        print(f"| {l} | " + " | ".join(cells) + " |")
    print()
    for n in names:
        for p, ps in sorted(series[n].items()):
            pts = [(l, t) for l, t in sorted(ps.items()) if l >= 1024]
            t0, b = fit(pts)
            ceil = ceilings[n][p]
            frac = TOKEN_BYTES / (b * 1e-9) / (ceil * 1e9)
            print(f"fit {n:18s} pass {p}: {t0:.2f} us + {b:.4f} ns ({100 * frac:.1f}% of {ceil:.0f} GB/s)")


if __name__ == "__main__":
    main(sys.argv[1])
