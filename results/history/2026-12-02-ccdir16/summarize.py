#!/usr/bin/env python3
"""Native lookup ns/op per index and keys: median [min-max] over the 9
repeats, and the ratio to idr per repeat (the same run and repeat), median
[min-max].  Usage: summarize.py before/results.csv after/results.csv;
with --fork: the fork/*.csv rows, ccskip against idr."""
import csv, sys, statistics as st
def load(p):
    return list(csv.DictReader(open(p)))
def summ(path, idxs=None):
    rows=[r for r in load(path) if r['pmu']!='cachegrind' and r['workload']=='lookup']
    by={}
    for r in rows:
        by.setdefault((int(r['keys']),r['index']),{})[int(r['repeat'])]=float(r['ns_per_op'])
    keys=sorted(set(k for k,_ in by))
    out=[]
    for k in keys:
        idr=by[(k,'idr')]
        for (kk,ix),d in sorted(by.items()):
            if kk!=k: continue
            if idxs and ix not in idxs: continue
            v=list(d.values()); rat=[d[r]/idr[r] for r in d if r in idr]
            out.append(f"{k:>8} {ix:11} {st.median(v):8.1f} [{min(v):.1f}-{max(v):.1f}]  ratio {st.median(rat):.2f} [{min(rat):.2f}-{max(rat):.2f}]")
    return out
def cg(path):
    rows=[r for r in load(path) if r['pmu']=='cachegrind']
    out=[]
    for r in rows:
        out.append(f"{r['keys']:>8} {r['index']:10} instr {r['instructions_per_op']} extra {r['extra'][:200]}")
    return out
def fork(path):
    by = {}
    for r in load(path):
        by.setdefault(r['index'], {})[(r['run'], r['repeat'])] = float(r['ns_per_op'])
    out = []
    for ix, d in sorted(by.items()):
        v = list(d.values())
        out.append(f"{ix:8} fork ns/op {st.median(v):.0f} [{min(v):.0f}-{max(v):.0f}]")
    rat = [by['ccskip'][k] / by['idr'][k] for k in by['ccskip'] if k in by['idr']]
    out.append(f"ccskip / idr per repeat {st.median(rat):.2f} [{min(rat):.2f}-{max(rat):.2f}]")
    return out


if sys.argv[1:2] == ['--fork']:
    for p in sys.argv[2:]:
        print(p)
        print("\n".join(fork(p)))
else:
    for p in sys.argv[1:]:
        print(p)
        print("\n".join(summ(p)))
