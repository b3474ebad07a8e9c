#!/usr/bin/env python3
"""The gate's false alarms and sensitivity over the runs of measure.sh.

Usage: tools/gate/analyze.py OUTDIR READBENCH BASELINE.json

- each quiet run checked against the first and against the committed baseline (default
  tolerance, no cost gate): any exit 1 is a false alarm;
- same-runner mode: consecutive quiet runs as A/A pairs, checked with the same-runner
  script's defaults (tolerance 0.10, --max-cost-ratio 1.4);
- injected regressions: the second run of each pair with its times multiplied by (L/L0)^k
  (k = 0.05, 0.1, 0.2; L0 its shortest length), which raises every exponent by exactly k, or by
  a constant 1.1; fits computed again from the points by `readbench fit`; flagged or not at
  the default tolerance, in same-runner mode, and by the cost rule alone;
- busy runs: each one's quality verdict, and whether `check` against the first quiet run
  passed, failed or refused to judge;
- the read ceiling of each quiet run (the best of its before and after measurements).
"""
import json, subprocess, sys, os, copy

out, rb, baseline = sys.argv[1], sys.argv[2], sys.argv[3]

def load(name):
    return json.load(open(os.path.join(out, name)))

def refit(r):
    stat = "min_s" if r["config"]["statistic"] == "min" else "median_s"
    for x in r["results"]:
        for p in x["points"]:  # readers refuse a GB/s that is not the bytes over the time
            p["gbps"] = p["bytes"] / p[stat] / 1e9
        if not x["points"] or x["fit"] is None:
            continue
        pts = [{"length": p["length"], "seconds": p[stat]} for p in x["points"]]
        fit_from = "auto" if x["fit"].get("fit_from_auto") else str(x["fit"]["fit_from"])
        res = subprocess.run([rb, "fit", "-", "--fit-from", fit_from, "--json", "-"],
                             input=json.dumps(pts), capture_output=True, text=True, check=True)
        x["fit"] = json.loads(res.stdout)
    # `fit` judges by this build's rule (schema version 6: the cost per token settled), which
    # a reader applies to the version the report says.
    r["schema_version"] = 6
    return r

def scaled(r, k=0.0, factor=1.0):
    v = copy.deepcopy(r)
    for x in v["results"]:
        if not x["points"]:
            continue
        l0 = x["points"][0]["length"]
        for p in x["points"]:
            s = factor * (p["length"] / l0) ** k
            for key in ("min_s", "median_s", "mean_s", "max_s"):
                p[key] *= s
    return refit(v)

def check(cur, base, *args):
    paths = []
    for i, r in enumerate((cur, base)):
        if isinstance(r, str):
            paths.append(os.path.join(out, r))
        else:
            p = os.path.join(out, f"_tmp{i}.json")
            json.dump(r, open(p, "w"))
            paths.append(p)
    res = subprocess.run([rb, "check", paths[0], "--baseline", paths[1], *args],
                         capture_output=True, text=True)
    return res.returncode

quiet = sorted((f for f in os.listdir(out) if f.startswith("quiet-") and f.endswith(".json")),
               key=lambda f: int(f[6:-5]))
busy = sorted(f for f in os.listdir(out) if f.startswith("busy-") and f.endswith(".json"))
base_abs = os.path.abspath(baseline)

def count(codes):
    return {c: codes.count(c) for c in sorted(set(codes))}

print(f"{len(quiet)} quiet runs, {len(busy)} busy runs")
vs_first = [check(q, quiet[0]) for q in quiet[1:]]
vs_base = [check(q, base_abs) for q in quiet]
print("quiet vs the first run, default tolerance, exit codes:", count(vs_first))
print("quiet vs the committed baseline, exit codes:", count(vs_base))
pairs = list(zip(quiet[:-1], quiet[1:]))
same = ["--tolerance", "0.10", "--max-cost-ratio", "1.4"]
print("same-runner A/A pairs, exit codes:", count([check(b, a, *same) for a, b in pairs]))
for k in (0.05, 0.1, 0.2):
    default, sr = [], []
    for a, b in pairs:
        inj = scaled(load(b), k=k)
        default.append(check(inj, a))
        sr.append(check(inj, a, *same))
    print(f"k={k}: default tolerance flagged {default.count(1)}/{len(pairs)}; same-runner flagged "
          f"{sr.count(1)}/{len(pairs)}; codes {count(default)} {count(sr)}")
const_cost, const_exp = [], []
for a, b in pairs:
    inj = scaled(load(b), factor=1.1)
    const_cost.append(check(inj, a, *same))
    const_exp.append(check(inj, a))
print(f"constant 10%: same-runner (cost rule on) flagged {const_cost.count(1)}/{len(pairs)}; "
      f"exponent rule alone flagged {const_exp.count(1)}/{len(pairs)}")
for f in busy:
    r = load(f)
    print(f, "quality", r["quality"]["verdict"], "| check vs quiet-1 exit", check(f, quiet[0]),
          "|", "; ".join(r["quality"]["reasons"])[:200])
ceil = [max(b["read_gbps"] for b in load(q)["machine"]["bandwidths"] if b["backend"] == "cpu")
        for q in quiet]
first5 = ceil[:5]
print("read ceilings (GB/s):", [round(c, 1) for c in ceil])
print("spread of the first five (max/min - 1): %.1f%%" % (100 * (max(first5) / min(first5) - 1)))
print("quality of the quiet runs:",
      count([load(q).get("quality", {}).get("verdict", "none") for q in quiet]))
