#!/usr/bin/env python3
"""Compares two readbench JSON documents field by field, leaving out what is measured.

Usage: report_fields.py BEFORE.json AFTER.json [--all]

Every leaf is named by its path (.results[0].checks[2].error). Without --all the fields that
depend on timing or on the machine are left out: point times and everything computed from them
(samples, GB/s, shares, batch sizes, convergence), fits, speedups, ceilings, the quality verdict,
load and machine facts. Prints how many fields both hold, how many are equal, the fields only
one holds, and each difference. Exit 0 when every compared field is equal, 1 otherwise.
"""
import json
import re
import sys

MEASURED_LEAVES = {
    "min_s", "median_s", "max_s", "mean_s", "stddev_s", "noise", "samples", "converged",
    "gbps", "ceiling_fraction", "length_dependent_share", "calls_per_sample", "replicas",
    "contended", "disturbed", "timer_resolution_s",
}
MEASURED_PREFIX = re.compile(
    r"^\.(fit|speedups|bandwidths|quality|machine|load|created|results\[\d+\]\.(fit|grid))")


def flat(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from flat(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from flat(v, f"{path}[{i}]")
    else:
        yield path, x


def measured(key):
    return key.rsplit(".", 1)[-1] in MEASURED_LEAVES or MEASURED_PREFIX.search(key) is not None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        a = dict(flat(json.load(f)))
    with open(sys.argv[2]) as f:
        b = dict(flat(json.load(f)))
    everything = "--all" in sys.argv[3:]
    keys = [k for k in a if k in b and (everything or not measured(k))]
    diff = [(k, a[k], b[k]) for k in keys if a[k] != b[k]]
    print(f"{sys.argv[1]} vs {sys.argv[2]}: {len(keys)} fields in both, "
          f"{len(keys) - len(diff)} equal")
    for k in sorted(k for k in a if k not in b):
        print(f"  only in {sys.argv[1]}: {k}")
    for k in sorted(k for k in b if k not in a):
        print(f"  only in {sys.argv[2]}: {k}")
    for k, x, y in diff:
        print(f"  differs: {k}: {x!r} -> {y!r}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
