# SPDX-License-Identifier: GPL-2.0
"""The system benchmark's records (scripts/bench-system.sh's system.txt)
as results.csv rows, its fidelity pairs, and its native bound's costs.

A record line is a kind and key=value words:
  run repeat=R order=K substrate=S [fidelity=yes|no]   which boot follows
  boot index=NAME kernel=REL vcpus=N threads=N           the boot itself
  rate <pidx-sysbench's line>                            a workload's rate
  timed <pidx-sysbench's line> stats <stats' sums>       with timing on
  fidelity_header / fidelity_module <module CSV>         idr in the module
  fidelity_kernel <pidx-sysbench fork> stats <sums>      idr in the kernel
  error what=...                                         a failed step
  end                                                    the boot ended
"""

import csv
import os

from .data import ReportError, number

SYSTEM_SUBSTRATES = ("system-tcg", "system-native")
SITES = ("alloc", "free", "find", "find_ge")
COLUMNS = ["run", "index", "workload", "mode", "cpus", "ncpus", "keys",
           "ops", "repeat", "total_ops", "fails", "errors", "elapsed_ns",
           "ns_per_op", "mops", "verified", "extra", "substrate", "levels"]


def kv_words(text):
    out = {}
    for w in text.split():
        k, sep, v = w.partition("=")
        if sep:
            out[k] = v
    return out


def label(kv):
    """nsfork:2, procwalk:1000, fork: the workload and its argument."""
    return kv["workload"] + (f":{kv['arg']}" if kv.get("arg") else "")


class Records:
    """Every boot's rates, timed runs and fidelity pairs, and its errors."""

    def __init__(self, path):
        self.rows = []
        self.errors = []
        self.fid_module = []        # the module's idr ns/op, per repeat
        self.fid_null = []          # and null's: the engine without an index
        self.fid_kernel = []        # the kernel's idr ns per fork, per run
        self.fid_threads = None
        self.seen = set()
        if not os.path.isfile(path):
            raise ReportError(f"{path}: missing")
        with open(path, encoding="utf-8", errors="replace") as f:
            self._parse(f)

    def _parse(self, f):
        run = boot = None
        header = None
        last = {}
        for n, line in enumerate(f, 1):
            kind, _, rest = line.strip().partition(" ")
            if kind == "run":
                run, boot, last = kv_words(rest), None, {}
            elif kind == "boot":
                boot = kv_words(rest)
            elif kind in ("rate", "timed") and run and boot:
                main, _, stats = rest.partition(" stats ")
                kv = kv_words(main)
                if "workload" not in kv or number(kv.get("ops")) is None:
                    raise ReportError(f"system.txt line {n}: no workload "
                                      f"or ops in '{line.strip()}'")
                if kind == "rate":
                    row = self._row(run, boot, kv)
                    key = (row["substrate"], row["index"], row["workload"],
                           row["repeat"], row["ncpus"])
                    if key in self.seen:
                        raise ReportError(
                            f"system.txt line {n}: a second {key[2]} of "
                            f"{key[1]} in repeat {key[3] + 1} ({key[0]}, "
                            f"{key[4]} CPUs)")
                    self.seen.add(key)
                    last[label(kv)] = row
                    self.rows.append(row)
                elif label(kv) in last:
                    self._timed(last[label(kv)], kv, kv_words(stats))
            elif kind == "fidelity_header":
                header = next(csv.reader([rest]))
            elif kind == "fidelity_module" and header:
                cells = next(csv.reader([rest]))[:len(header)]
                r = dict(zip(header, cells))
                if r.get("verified") not in ("yes", "n/a"):
                    continue
                if r.get("index") == "idr":
                    self.fid_module.append(number(r["ns_per_op"]))
                elif r.get("index") == "null":
                    self.fid_null.append(number(r["ns_per_op"]))
            elif kind == "fidelity_kernel":
                main, _, stats = rest.partition(" stats ")
                kv, st = kv_words(main), kv_words(stats)
                ops = number(kv.get("ops")) or 0
                if ops:
                    ns = sum(number(st.get(f"{s}_ns")) or 0
                             for s in ("alloc", "free"))
                    self.fid_kernel.append(ns / ops)
                    self.fid_threads = number(kv.get("threads"))
            elif kind == "error":
                self.errors.append(rest)

    @staticmethod
    def _row(run, boot, kv):
        arg = kv.get("arg", "")
        levels = int(arg) + 1 if kv["workload"] == "nsfork" and arg else 1
        ops = number(kv["ops"])
        secs = number(kv["seconds"]) or 0
        extra = {"ops_per_s": kv["ops_per_s"], "procs": kv.get("procs", ""),
                 "order": run.get("order", ""),
                 "kernel": boot.get("kernel", "")}
        for k in ("arg", "entries", "ops_min", "ops_max"):
            if k in kv:
                extra[k] = kv[k]
        return {"run": 1, "index": boot.get("index", "?"),
                "workload": label(kv), "mode": "process",
                "cpus": kv.get("procs", ""), "ncpus": boot.get("vcpus", ""),
                "keys": boot.get("threads", ""), "ops": ops,
                "repeat": int(run.get("repeat", 1)) - 1, "total_ops": ops,
                "fails": 0, "errors": 0, "elapsed_ns": int(secs * 1e9),
                "ns_per_op": kv.get("ns_per_op", ""),
                "mops": f"{(number(kv['ops_per_s']) or 0) / 1e6:.6f}",
                "verified": "yes", "extra": extra,
                "substrate": run.get("substrate", "system-tcg"),
                "levels": levels}

    @staticmethod
    def _timed(row, kv, st):
        ops = number(kv.get("ops")) or 0
        if not ops:
            return
        e = row["extra"]
        total = 0
        for s in SITES:
            ns = number(st.get(f"{s}_ns")) or 0
            total += ns
            e[f"{s}_ns_per_op"] = f"{ns / ops:.1f}"
        e["index_ns_per_op"] = f"{total / ops:.1f}"
        e["timed_ns_per_op"] = kv.get("ns_per_op", "")
        wall = number(kv.get("ns_per_op")) or 0
        if wall:
            e["index_share"] = f"{total / ops / wall:.5f}"

    def write_csv(self, path):
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(COLUMNS)
            for r in self.rows:
                extra = ";".join(f"{k}={v}" for k, v in r["extra"].items())
                w.writerow([extra if c == "extra" else r[c] for c in COLUMNS])


def read_bound(path):
    """pidx-user's bound storms (bench-system.sh's bound.csv):
    {run: {index: [ns_per_op by repeat]}}; run 1 a fork at one level, 2 at
    three, 3 a thread's PID, 4 a lookup, 5 a find_ge step."""
    out = {}
    if not os.path.isfile(path):
        return out
    with open(path, newline="", encoding="utf-8") as f:
        rd = csv.reader(f)
        header = next(rd, [])
        for cells in rd:
            if len(cells) < len(header):
                continue
            r = dict(zip(header, cells))
            if r.get("verified") != "yes":
                continue
            run = int(number(r.get("run")) or 0)
            rep = int(number(r.get("repeat")) or 0)
            vals = out.setdefault(run, {}).setdefault(r["index"], {})
            vals[rep] = number(r["ns_per_op"])
    return {run: {i: [v[k] for k in sorted(v)] for i, v in d.items()}
            for run, d in out.items()}
