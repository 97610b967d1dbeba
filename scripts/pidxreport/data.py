# SPDX-License-Identifier: GPL-2.0
"""A results directory read for the report: its meta and its rows.

Every row gets the substrate it was measured on, from its own columns and
the run's meta, because a ratio means something else on each:
  kernel-tcg     pidx.ko under QEMU TCG: emulated, no cache model
  kernel-kvm     pidx.ko in a QEMU/KVM guest
  kernel-native  pidx.ko in the host's own kernel
  user-native    user/pidx-user natively: cache-true times, user space's
  cachegrind     user/pidx-user under valgrind: counted, not timed
A row's settings are every column that is not a measurement, so that a
setting added later (a live-set shape, say) separates configurations and
becomes a target's filter without a change here.
"""

import csv
import os

# what a storm measured; every other column (but the row's identity) is
# one of its settings
MEASURED = {
    "run", "index", "repeat", "total_ops", "fails", "errors", "elapsed_ns",
    "ns_per_op", "mops", "cpu_nsop_min", "cpu_nsop_max", "p50_ns", "p90_ns",
    "p99_ns", "max_ns", "clock_ns", "mem_bytes", "bytes_per_key", "verified",
    "extra", "visits_per_op", "visits_max", "lines_per_op", "lines_max",
    "cycles_per_op", "instructions_per_op", "cache_refs_per_op",
    "cache_misses_per_op", "llc_load_misses_per_op", "cpu_nodes",
    "mem_nodes", "round_max_ns", "irqs_off_max_ns", "substrate",
    # the repeat's seed (the run's plus the repeat): a sample, as repeat is
    "seed",
    "shape_wraps",
    # settings that follow from others and would split nothing
    "cpus",
}
MISSING = ("", "n/a", "na", "-")
# the share of a remote-exit fork row's operations that may have freed
# their own CPU's PID (local_exits in extra) before the row is left out
LOCAL_EXITS_MAX = 0.10

SUBSTRATE_TEXT = {
    "kernel-tcg": "pidx.ko under QEMU TCG (emulated)",
    "kernel-kvm": "pidx.ko in a QEMU/KVM guest",
    "kernel-native": "pidx.ko, native",
    "user-native": "user space, native",
    "cachegrind": "cachegrind (counted)",
}
SUBSTRATE_ORDER = list(SUBSTRATE_TEXT)
SUBSTRATE_SHORT = {
    "kernel-tcg": "TCG", "kernel-kvm": "KVM", "kernel-native": "kernel",
    "user-native": "native", "cachegrind": "cachegrind",
}
WORKLOAD_ORDER = ["lookup", "insert", "delete", "mixed", "fork", "iterate",
                  "replay"]


# the reason the report gives for leaving out a row with verified=slow
SLOW_REASON = "ran past a time bound (slow)"


class ReportError(Exception):
    pass


def number(text):
    if text is None or text.strip().lower() in MISSING:
        return None
    try:
        v = float(text)
    except ValueError:
        return None
    return int(v) if v.is_integer() and "." not in text else v


def rejoin_extra(cells, header):
    """A results.csv line's cells, with the commas of its free-text `extra`
    column rejoined: a line with more cells than the header has them there."""
    if len(cells) > len(header) and "extra" in header:
        e = header.index("extra")
        n = len(cells) - len(header) + 1
        cells = cells[:e] + [",".join(cells[e:e + n])] + cells[e + n:]
    return cells


def read_meta(path):
    meta = {}
    if not os.path.isfile(path):
        return meta
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                meta[k.strip()] = v.strip()
    return meta


def kernel_substrate(meta):
    env = meta.get("env", "").lower()
    accel = meta.get("accel", "").lower()
    if env == "native":
        return "kernel-native"
    if accel == "kvm":
        return "kernel-kvm"
    return "kernel-tcg"


def extra_value(row, key):
    for kv in (row.get("extra") or "").split(";"):
        k, _, v = kv.partition("=")
        if k.strip() == key:
            return number(v)
    return None


def slow_why(row):
    """The bound a slow row ran past and its time: the module's words
    (slow= in extra, last), or, from a row without them, its longest
    round or batch against the module's 5 s bound."""
    for kv in reversed((row.get("extra") or "").split(";")):
        if kv.startswith("slow="):
            return kv[5:]
    if row.get("mode") == "ipi":
        what, ns = "one ipi round", number(row.get("round_max_ns"))
        irqs = number(row.get("irqs_off_max_ns"))
        if irqs is not None and irqs > 5000 * 10 ** 6:
            what, ns = "interrupts off in one ipi round", irqs
    else:
        what, ns = "one kthread batch", number(row.get("round_max_ns"))
    if ns is None:
        return "past a bound the row does not name"
    return f"{what} took {ns // 10 ** 6} ms (bound 5000 ms)"


def workload_label(row):
    """The workload a row measures, as the report and plot.py name it: a
    mix, a trace and more than one namespace level each make their own."""
    levels = row.get("levels") or "1"
    if levels not in ("1", 1):
        return f"{workload_label(dict(row, levels='1'))} ({levels} levels)"
    if row.get("workload") == "mixed" and row.get("mix"):
        return f"mixed {row['mix']}"
    if row.get("workload") == "replay":
        # bench names each trace (trace_name=, first); a row without
        # one tells traces apart by their event count (trace=N)
        kvs = dict(kv.partition("=")[::2] for kv in
                   (row.get("extra") or "").split(";"))
        if kvs.get("trace_name"):
            return f"replay {kvs['trace_name']}"
        if kvs.get("trace"):
            return f"replay {kvs['trace']}ev"
    return row.get("workload", "?")


def workload_key(wl):
    base = wl.split()[0]
    pos = WORKLOAD_ORDER.index(base) if base in WORKLOAD_ORDER else 99
    try:
        first = -int(wl[len(base):].strip().split("/")[0])
    except ValueError:
        first = 0
    return (pos, first, wl)


def fmt_keys(k):
    k = int(k)
    if k >= 1 << 20 and k % (1 << 20) == 0:
        return f"{k >> 20}M"
    if k >= 1 << 10 and k % (1 << 10) == 0:
        return f"{k >> 10}K"
    return str(k)


def row_substrate(row, ksub):
    """The substrate a results.csv row was measured on: pidx-user's rows
    user-native or cachegrind, the module's @ksub (kernel_substrate())."""
    if (row.get("substrate") or "kernel") == "user":
        return "cachegrind" if row.get("pmu") == "cachegrind" \
            else "user-native"
    return ksub


class Results:
    """The rows of one results directory that make a fair comparison.

    Left out, and counted: rows that failed verification, rows that ran
    past one of the module's time bounds (verified=slow: their times are
    the host's pauses as much as the index's, listed in `slow` with the
    bound and the time), rows under fault injection, rows that traced
    visits (their times include the tracing) and rows placed on a NUMA
    node (the numa sweep compares placements, not indexes).
    """

    def __init__(self, directory):
        self.dir = directory
        path = os.path.join(directory, "results.csv")
        if not os.path.isfile(path):
            raise ReportError(f"{path}: missing")
        self.meta = read_meta(os.path.join(directory, "meta"))
        self.rows = []
        # the system benchmark's rows (substrates system-*): the System
        # view's alone (system.py), never compared with the storms'
        self.system_rows = []
        self.left_out = {"verification failed": 0,
                         SLOW_REASON: 0, "fault injection": 0,
                         "visits traced": 0, "placed on a node": 0}
        self.failed = []
        # each slow row with slow_why, the bound it ran past and its time
        self.slow = []
        self._read(path)
        if not self.rows and not self.system_rows:
            raise ReportError(f"{path}: no row to report on")

    def _read(self, path):
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            reader = csv.reader(f)
            header = [h.strip() for h in next(reader, [])]
            for need in ("index", "workload", "keys", "ncpus", "repeat",
                         "ns_per_op", "verified"):
                if need not in header:
                    raise ReportError(f"{path}: no column '{need}'")
            self.header = header
            ksub = kernel_substrate(self.meta)
            for cells in reader:
                if not any(c.strip() for c in cells):
                    continue
                cells = rejoin_extra(cells, header)
                if len(cells) != len(header):
                    raise ReportError(f"{path} line {reader.line_num}: "
                                      f"{len(cells)} fields, header has "
                                      f"{len(header)}")
                row = {h: c.strip() for h, c in zip(header, cells)}
                self._add(row, ksub)

    def _add(self, row, ksub):
        if (row.get("substrate") or "").startswith("system-"):
            self.system_rows.append(row)
            return
        row["substrate"] = row_substrate(row, ksub)
        # rows from before the shape setting are of the dense shape
        row["shape"] = row.get("shape") or "dense"
        # and from before the dist setting drew their lookups uniformly
        if not row.get("dist"):
            draws = row.get("workload") in ("lookup", "mixed") or (
                row.get("workload") == "fork" and
                row.get("fork_lookups") not in (None, "", "0", "n/a"))
            row["dist"] = "uniform" if draws else "n/a"
        row["wl"] = workload_label(row)
        if row["verified"].upper() == "FAILED":
            self.left_out["verification failed"] += 1
            self.failed.append(row)
            return
        if row["verified"].lower() == "slow":
            self.left_out[SLOW_REASON] += 1
            row["slow_why"] = slow_why(row)
            self.slow.append(row)
            return
        if "faults=" in row.get("extra", ""):
            self.left_out["fault injection"] += 1
            return
        if row.get("trace_visits", "0") not in ("0", "", "n/a"):
            self.left_out["visits traced"] += 1
            return
        if row.get("node", "any") not in ("any", ""):
            self.left_out["placed on a node"] += 1
            return
        # a remote-exit fork row whose CPUs did not run side by side (the
        # host ran one vCPU at a time) freed its PIDs where it forked them
        local = extra_value(row, "local_exits") or 0
        total = number(row.get("total_ops")) or 0
        if row.get("fork_exit") == "remote" and total and \
                local > LOCAL_EXITS_MAX * total:
            k = "remote fork exits mostly local"
            self.left_out[k] = self.left_out.get(k, 0) + 1
            return
        # a run made before the settings existed batched its lookups, and
        # numbered each PID in one namespace level
        row["dependent"] = row.get("dependent") or "0"
        row["levels"] = row.get("levels") or "1"
        for c in ("keys", "ncpus", "repeat", "run"):
            row[c] = number(row.get(c)) or 0
        row["cg_ll_misses"] = extra_value(row, "cg_ll_misses")
        if row["cg_ll_misses"] is None:
            row["cg_ll_misses"] = number(row.get("llc_load_misses_per_op"))
        cols = [c for c in self.header if c not in MEASURED]
        cols += [c for c in ("dependent", "levels") if c not in cols]
        row["settings"] = tuple(sorted(
            (c, row[c] if c in ("keys", "ncpus") else row.get(c, ""))
            for c in cols) +
            [("substrate", row["substrate"]), ("wl", row["wl"])])
        self.rows.append(row)

    def value(self, row, metric):
        if metric == "cg_ll_misses":
            return row["cg_ll_misses"]
        return number(row.get(metric))

    def substrates(self):
        have = {r["substrate"] for r in self.rows}
        return [s for s in SUBSTRATE_ORDER if s in have]

    def indexes(self):
        names = []
        for r in self.rows:
            if r["index"] not in names:
                names.append(r["index"])
        first = [n for n in ("idr", "idr_onelock", "skiplist", "rbskip")
                 if n in names]
        rest = sorted(n for n in names if n not in first and n != "null")
        return first + rest + (["null"] if "null" in names else [])

    def configs(self):
        """{settings: [rows]}, one entry per configuration."""
        out = {}
        for r in self.rows:
            out.setdefault(r["settings"], []).append(r)
        return out
