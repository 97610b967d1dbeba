# SPDX-License-Identifier: GPL-2.0
"""What every figure shares: the program's messages, the names the
figures treat alike (null, cachegrind), the emulation notes, and the
medians and selections of rows the figures draw."""

import math
import statistics
import sys

# the report's order of workloads (lookup first, mixed by lookup share)
from pidxreport.data import workload_key

PROG = "plot.py"

NULL = "null"
TCG_NOTE = ("QEMU TCG emulation: absolute times are not hardware times; "
            "compare indexes within one boot")
KVM_NOTE = ("QEMU/KVM guest: absolute times include virtualisation; "
            "compare indexes within one boot")
NUMA_TCG_NOTE = ("QEMU TCG: remote memory costs nothing extra, so these "
                 "times do not show hardware NUMA costs")
CG = "cachegrind"
# the label of the figures' messages while a substrate's figures are drawn
VIEW = {"tag": ""}


class PlotError(Exception):
    pass


def warn(msg):
    print(f"{PROG}: warning: {msg}", file=sys.stderr)


def info(msg):
    print(f"{PROG}: {VIEW['tag']}{msg}")


def summary(values):
    """(median, min, max, n) of the values that are not None, or None."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals), len(vals)


def group(rows, keyfn, col):
    out = {}
    for r in rows:
        out.setdefault(keyfn(r), []).append(r[col])
    return {k: summary(v) for k, v in out.items() if summary(v) is not None}


def preferred_mode(rows):
    modes = {}
    for r in rows:
        modes[r["mode"]] = modes.get(r["mode"], 0) + 1
    if "ipi" in modes:
        return "ipi"
    return max(modes, key=modes.get) if modes else None


def pick_most_distinct(rows, fixed_col, vary_col, prefer):
    """The value of fixed_col seen with the most distinct vary_col values;
    ties go to prefer(value) (largest wins)."""
    seen = {}
    for r in rows:
        seen.setdefault(r[fixed_col], set()).add(r[vary_col])
    if not seen:
        return None
    return max(seen, key=lambda v: (len(seen[v]), prefer(v)))


def keys_pref(k):
    # tie-break for the keys size of the CPU sweep: nearest to 32K
    return -abs(math.log2(max(k, 1)) - 15)


def repeats_text(counts):
    if not counts:
        return ""
    lo, hi = min(counts), max(counts)
    n = str(lo) if lo == hi else f"{lo}-{hi}"
    return f"median of {n} repeats, bars min-max"


def workloads_of(runs):
    wls = set()
    for run in runs:
        wls.update(r["wl"] for r in run.rows)
    return sorted(wls, key=workload_key)
