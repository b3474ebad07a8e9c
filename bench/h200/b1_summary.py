#!/usr/bin/env python3
"""Summarises `cuda_variants b1` passes (b1-fwd1/bwd/fwd2.csv in RESULTS): min us of each shape
and spec, the range over the passes, with splits a row (s) and cluster size (c).
Usage: b1_summary.py RESULTS TITLE (bench/h200 runs 64-65 wrote b1-summary.txt with it)."""
import csv, collections, sys
R=sys.argv[1]; title=sys.argv[2]
d=collections.defaultdict(list); cl={}; sp={}
for f in ['b1-fwd1.csv','b1-bwd.csv','b1-fwd2.csv']:
    for r in csv.DictReader(open(R+'/'+f)):
        k=(r['kv'],r['batch'],r['head_dim'],int(r['length']))
        d[(k,r['spec'])].append(float(r['min_us'])); cl[(k,r['spec'])]=r['cluster']; sp[(k,r['spec'])]=r['splits']
specs=[]
for (k,s) in d:
    if s not in specs: specs.append(s)
print(f"# {title}: cuda_variants b1, min us per pass, range over the three passes; sN = splits a row, cN = cluster")
for i,s in enumerate(specs): print(f"# spec {i}: '{s}'")
keys=sorted({k for k,s in d}, key=lambda k:(k[0],int(k[1]),int(k[2]),k[3]))
print('shape'.ljust(22),' | '.join(f"spec {i}".ljust(22) for i in range(len(specs))))
for k in keys:
    row=[]
    for s in specs:
        v=d[(k,s)]
        row.append(f"{min(v):.2f}-{max(v):.2f} s{sp[(k,s)]}c{cl[(k,s)]}".ljust(22))
    print(f"{k[0][:4]} B{k[1]} D{k[2]} L{k[3]}".ljust(22),' | '.join(row))
