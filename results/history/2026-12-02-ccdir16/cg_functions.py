#!/usr/bin/env python3
"""Per-function cachegrind counts per lookup: the difference between the
20000- and the 10000-op runs' own counts of each function, over 10000, so
that the prefill and liburcu's call_rcu thread (which frees what the
prefill retired, unequally in the two runs) drop out.  Run in a directory
of cachegrind.INDEX.OPS.out.TAG files kept by a PIDX_VALGRIND wrapper (see
../README.md); arguments: the TAGs."""
import sys, re, collections
def parse(p):
    ev=None; fn=None; tot=collections.defaultdict(lambda: None)
    res={}
    for line in open(p):
        if line.startswith('events:'):
            ev=line.split()[1:]
        elif line.startswith('fn='):
            fn=line[3:].strip()
        elif line and line[0].isdigit() and fn:
            parts=line.split()[1:]
            v=[int(x) for x in parts]+[0]*(len(ev)-len(parts))
            a=res.setdefault(fn,[0]*len(ev))
            for i,x in enumerate(v): a[i]+=x
    return ev,res
def delta(a,b,fns):
    ev,ra=parse(a); _,rb=parse(b)
    out={}
    for f in fns:
        x=[ (rb.get(f,[0]*len(ev))[i]-ra.get(f,[0]*len(ev))[i])/10000 for i in range(len(ev))]
        d=dict(zip(ev,x))
        out[f]=(d['Ir'], d['D1mr']+d['D1mw'], d['DLmr']+d['DLmw'], d['Bcm']+d['Bim'])
    return out
for tag in sys.argv[1:]:
    for ix,fns in (('idr',['__radix_tree_lookup','idr_ref_lookup','pidx_lookup_batch']),('ccskip',['ccs_lookup','pidx_lookup_batch'])):
        r=delta(f'cachegrind.{ix}.10000.out.{tag}', f'cachegrind.{ix}.20000.out.{tag}', fns)
        for f,v in r.items():
            print(f"{tag:10} {ix:7} {f:22} instr {v[0]:7.1f} D1 {v[1]:5.2f} LL {v[2]:5.2f} mispred {v[3]:5.2f}")
