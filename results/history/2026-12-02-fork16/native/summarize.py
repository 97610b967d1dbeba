#!/usr/bin/python3
"""Per index: fork Mops/s at 1 and 2 threads (median [min-max] of the repeats),
the ratios the issue 16 targets name (each repeat paired with idr's of the same
round and repeat), and lookup ns at 32K on 1 thread with its ratio to idr."""
import csv, statistics as st, sys
from collections import defaultdict
d = sys.argv[1]
def rows(f):
    return list(csv.DictReader(open(f)))
fork = rows(d + '/fork.csv')
look = rows(d + '/lookup.csv')
def key(r): return (r['run'], r['repeat'])
m = defaultdict(dict)   # (index, ncpus) -> {(run,repeat): mops}
agg = defaultdict(dict)
for r in fork:
    assert r['verified'] in ('yes', 'n/a'), r
    m[(r['index'], r['ncpus'])][key(r)] = float(r['mops'])
    agg[(r['index'], r['ncpus'])][key(r)] = float(r['total_ops']) / float(r['elapsed_ns']) * 1e3
def s(v):
    v = sorted(v)
    return "%.3g [%.3g-%.3g]" % (st.median(v), v[0], v[-1])
names = []
for r in fork:
    if r['index'] not in names: names.append(r['index'])
print("fork, Mops/s summed over threads (total ops / wall time in parentheses), median [min-max], n=%d" % len(m[(names[0], '1')]))
print("| index | 1 thread | 2 threads | 2 / own 1 | 2 threads / idr's 2 |")
print("|---|---|---|---|---|")
for n in names:
    one, two = m[(n, '1')], m[(n, '2')]
    own = [two[k] / one[k] for k in two if k in one]
    vs = [two[k] / m[('idr', '2')][k] for k in two if k in m[('idr', '2')]]
    print("| %s | %s (%s) | %s (%s) | %s | %s |" % (n, s(one.values()), s(agg[(n,'1')].values()),
          s(two.values()), s(agg[(n,'2')].values()), s(own), s(vs)))
import os
for f, label in (('lookup.csv', '32K'), ('lookup1m.csv', '1M')):
    if not os.path.exists(d + '/' + f):
        continue
    lk = defaultdict(dict)
    for r in rows(d + '/' + f):
        assert r['verified'] in ('yes', 'n/a'), r
        lk[r['index']][key(r)] = float(r['ns_per_op'])
    print()
    print("lookup %s, 1 thread, ns/op median [min-max]; ratio to idr per repeat, n=%d" % (label, len(lk['idr'])))
    print("| index | ns | / idr |")
    print("|---|---|---|")
    for n in names:
        v = lk[n]
        rat = [v[k] / lk['idr'][k] for k in v if k in lk['idr']]
        print("| %s | %s | %s |" % (n, s(v.values()), s(rat)))
