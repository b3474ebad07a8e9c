#!/usr/bin/env python3
"""Synthetic fleets for `readbench fleet`, and a benchmark of its rule.

  fleet_sim.py generate BASE.json OUTDIR [--devices N] [--sigma S] [--slow PCT:COUNT ...] [--seed N]
      N reports cloned from BASE (a real readbench report), one per host node00000..: every
      point's times scaled by (1 + S * a normal draw) and, for the slowed hosts, by 1 + PCT/100;
      the fits scaled with them (a scale of every time leaves exponents, r2 and shares as they
      are and scales costs), so readers that recompute fits accept them. Writes truth.json:
      the slowdown of every host.
  fleet_sim.py bench READBENCH BASE.json WORKDIR [--devices N] [--sigma S] [--seed N]
      generates a fleet with 5% of it 3.5% slow and 5% 7% slow, runs `readbench fleet` on it and
      counts catches and false flags against the targets (every 7% fail, >= 95% of the 3.5%
      flagged, no healthy fail, <= 1% healthy warned).
  fleet_sim.py time READBENCH BASE.json WORKDIR [--devices N]
      times `readbench fleet` over N reports (wall seconds and peak memory of the child).

The default spread: 0.3%, three times the run-to-run spread of an H200's marginal cost (0.1%),
to be conservative.
"""
import argparse
import copy
import json
import os
import random
import resource
import subprocess
import sys
import time

TIME_KEYS = ("min_s", "median_s", "mean_s", "stddev_s", "max_s")


def scaled(base, k):
    """BASE with every time multiplied by k and what depends on the times recomputed."""
    r = copy.deepcopy(base)
    for res in r["results"]:
        for p in res["points"]:
            for key in TIME_KEYS:
                if key in p:
                    p[key] *= k
            p["gbps"] /= k
            if "ceiling_fraction" in p:
                p["ceiling_fraction"] /= k
        f = res.get("fit")
        if not f:
            continue
        for key in ("constant", "per_token_s", "fixed_s", "marginal_s"):
            if key in f and f[key] is not None:
                f[key] *= k
        for key in ("fixed_ci95", "marginal_ci95"):
            if f.get(key):
                f[key] = [v * k for v in f[key]]
        for key in ("effective_gbps", "effective_ceiling_fraction"):
            if f.get(key) is not None:
                f[key] /= k
        if f.get("share_fit"):
            f["share_fit"]["fixed_s"] *= k
            f["share_fit"]["marginal_s"] *= k
    return r


def generate(base_path, outdir, devices, sigma, slow, seed):
    base = json.load(open(base_path))
    # The fleet is synthetic: the base run's own verdict (a shared machine's) is not the nodes'.
    if "quality" in base:
        base["quality"] = {**base["quality"], "verdict": "clean", "reasons": []}
    rng = random.Random(seed)
    hosts = ["node%05d" % i for i in range(devices)]
    slowdown = {h: 0.0 for h in hosts}
    picked = rng.sample(hosts, sum(c for _, c in slow))
    at = 0
    for pct, count in slow:
        for h in picked[at:at + count]:
            slowdown[h] = pct
        at += count
    os.makedirs(outdir, exist_ok=True)
    for h in hosts:
        k = (1 + sigma * rng.gauss(0, 1)) * (1 + slowdown[h] / 100)
        r = scaled(base, k)
        r["machine"]["hostname"] = h
        with open(os.path.join(outdir, h + ".json"), "w") as f:
            json.dump(r, f)
    with open(os.path.join(os.path.dirname(os.path.abspath(outdir)), "truth.json"), "w") as f:
        json.dump(slowdown, f)
    return slowdown


def run_fleet(readbench, outdir, verdict_path):
    start = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = subprocess.run([readbench, "fleet", outdir, "--json", verdict_path, "-o",
                           verdict_path + ".md"], capture_output=True, text=True)
    wall = time.monotonic() - start
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode not in (0, 1, 4):
        sys.exit("readbench fleet failed (%d): %s" % (proc.returncode, proc.stderr.strip()))
    return proc.returncode, wall, max(peak_kib, before)


def bench(a):
    slow_each = max(1, a.devices // 20)
    workdir = os.path.abspath(a.workdir)
    outdir = os.path.join(workdir, "reports")
    truth = generate(a.base, outdir, a.devices, a.sigma, [(3.5, slow_each), (7.0, slow_each)],
                     a.seed)
    verdict_path = os.path.join(workdir, "verdict.json")
    code, wall, _ = run_fleet(a.readbench, outdir, verdict_path)
    verdict = json.load(open(verdict_path))
    counts = {}
    for d in verdict["devices"]:
        cls = truth[d["host"]]
        c = counts.setdefault(cls, {"devices": 0, "ok": 0, "warn": 0, "fail": 0, "unjudged": 0})
        c["devices"] += 1
        c[d["verdict"]] += 1
    healthy, slow35, slow7 = counts.get(0.0), counts.get(3.5), counts.get(7.0)
    targets = {
        "every 7% slow device fails": slow7["fail"] == slow7["devices"],
        ">= 95% of 3.5% slow flagged": (slow35["warn"] + slow35["fail"]) >= 0.95 * slow35["devices"],
        "no healthy device fails": healthy["fail"] == 0,
        "<= 1% of healthy warned": healthy["warn"] <= 0.01 * healthy["devices"],
    }
    print(json.dumps({"devices": a.devices, "sigma": a.sigma, "seed": a.seed, "exit": code,
                      "skipped": len(verdict["skipped"]), "by_slowdown": counts,
                      "targets": targets, "fleet_wall_s": round(wall, 3)}, indent=1))
    return 0 if all(targets.values()) else 1


def time_fleet(a):
    workdir = os.path.abspath(a.workdir)
    outdir = os.path.join(workdir, "reports")
    generate(a.base, outdir, a.devices, a.sigma, [], a.seed)
    code, wall, peak_kib = run_fleet(a.readbench, outdir, os.path.join(workdir, "verdict.json"))
    print(json.dumps({"devices": a.devices, "exit": code, "fleet_wall_s": round(wall, 3),
                      "fleet_peak_rss_mib": round(peak_kib / 1024, 1)}))
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(s):
        s.add_argument("--devices", type=int, default=1000)
        s.add_argument("--sigma", type=float, default=0.003)
        s.add_argument("--seed", type=int, default=1)

    g = sub.add_parser("generate")
    g.add_argument("base")
    g.add_argument("outdir")
    g.add_argument("--slow", action="append", default=[],
                   help="PCT:COUNT, COUNT hosts slowed by PCT percent (repeatable)")
    common(g)
    b = sub.add_parser("bench")
    t = sub.add_parser("time")
    for s in (b, t):
        s.add_argument("readbench")
        s.add_argument("base")
        s.add_argument("workdir")
        common(s)
    a = p.parse_args()
    if a.cmd == "generate":
        slow = [(float(x.split(":")[0]), int(x.split(":")[1])) for x in a.slow]
        generate(a.base, a.outdir, a.devices, a.sigma, slow, a.seed)
        return 0
    return bench(a) if a.cmd == "bench" else time_fleet(a)


if __name__ == "__main__":
    sys.exit(main())
