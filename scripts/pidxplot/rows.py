# SPDX-License-Identifier: GPL-2.0
"""A results directory read into rows: the columns, their defaults for an
older results.csv, the rows each figure takes, the text that describes
where they ran (and whether under emulation), and the substrates."""

import copy
import csv
import math
import os

# the report's package beside this one: one name for each workload
from pidxreport.data import rejoin_extra, workload_label

from .common import CG, KVM_NOTE, TCG_NOTE, PlotError, warn

# Columns plot.py reads; a header without any of them is an error.
REQUIRED = ["index", "workload", "mode", "mix", "ncpus", "keys", "repeat",
            "ns_per_op", "mops", "p50_ns", "p99_ns", "bytes_per_key",
            "verified"]
# Every numeric column of the README table: checked when present.  "n/a"
# (the README's own word for "not applicable") reads as a missing value.
NUMERIC = ["run", "ncpus", "keys", "ops", "pid_max", "seed", "repeat",
           "total_ops", "fails", "errors", "elapsed_ns", "ns_per_op", "mops",
           "cpu_nsop_min", "cpu_nsop_max", "p50_ns", "p90_ns", "p99_ns",
           "max_ns", "clock_ns", "mem_bytes", "bytes_per_key",
           "trace_visits", "visits_per_op", "visits_max", "lines_per_op",
           "lines_max", "cycles_per_op", "instructions_per_op",
           "cache_refs_per_op", "cache_misses_per_op",
           "llc_load_misses_per_op", "dependent", "levels"]
# Columns added after `extra`, and what a results.csv without them means.
OPTIONAL_NUMBERS = ["visits_per_op", "visits_max", "lines_per_op",
                    "lines_max", "cycles_per_op", "instructions_per_op",
                    "cache_refs_per_op", "cache_misses_per_op",
                    "llc_load_misses_per_op"]
OPTIONAL_TEXT = {"pmu": "n/a", "node": "any", "cpu_nodes": "n/a",
                 "mem_nodes": "n/a", "substrate": "kernel", "dist": "uniform"}
MISSING_WORDS = ("n/a", "na", "-")


def parse_number(text):
    """float(text) for finite numbers, None for n/a, ValueError otherwise."""
    t = text.strip()
    if t.lower() in MISSING_WORDS:
        return None
    v = float(t)            # ValueError on junk
    if not math.isfinite(v):
        raise ValueError(t)
    return v


def read_meta(path):
    meta = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#") or "=" not in line:
                    continue
                k, v = line.split("=", 1)
                meta[k.strip()] = v.strip()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise PlotError(f"{path}: {e.strerror}")
    return meta


class Run:
    """One results directory."""

    def __init__(self, directory):
        self.dir = directory
        self.name = os.path.basename(os.path.abspath(directory)) or directory
        if not os.path.isdir(directory):
            raise PlotError(f"{directory}: no such results directory")
        csv_path = os.path.join(directory, "results.csv")
        if not os.path.isfile(csv_path):
            raise PlotError(f"{csv_path}: missing")
        self.all_rows, self.failed, self.faulted, self.slow = \
            self._read_csv(csv_path)
        # plot.py says what else it left out; a storm past the module's
        # time bound measured the host's pauses as much as the index
        if self.slow:
            warn(f"{directory}: left out {self.slow} row(s) with "
                 f"verified=slow (ran past a time bound)")
        self.split_rows()
        meta = read_meta(os.path.join(directory, "meta"))
        self.meta_missing = meta is None
        self.meta = meta or {}
        self.fig_prefix = ""

    def split_rows(self):
        # the figures compare uniform lookups: other dists' rows are left out
        rows = [r for r in self.all_rows if r["dist"] in ("uniform", "n/a")]
        self.other_dist = len(self.all_rows) - len(rows)
        # rows timed the ordinary way feed the time and memory figures;
        # traced rows (times include the tracing), placed rows (the numa
        # sweep) and cachegrind's rows only their own figures; dependent
        # lookups (dependent=1) only ratio_to_idr, where they are bars of
        # their own, and under cachegrind none: it counts both settings
        # alike
        self.dep_rows = [r for r in rows if r["dependent"] and r["pmu"] != CG
                         and not r["trace_visits"] and r["node"] == "any"]
        rows = [r for r in rows if not r["dependent"]]
        self.cg_rows = [r for r in rows if r["pmu"] == CG]
        rows = [r for r in rows if r["pmu"] != CG]
        self.visit_rows = [r for r in rows if r["trace_visits"]]
        self.numa_rows = [r for r in rows if not r["trace_visits"]
                          and r["node"] != "any"]
        self.rows = [r for r in rows if not r["trace_visits"]
                     and r["node"] == "any"]

    def substrates(self):
        """The substrates of the rows: kernel first."""
        return sorted({r["substrate"] for r in self.all_rows},
                      key=lambda s: (s != "kernel", s))

    def view(self, substrate):
        """The rows of one substrate as a Run of their own, its meta saying
        where they ran (a user sweep beside a VM's ran on the host)."""
        v = copy.copy(self)
        v.all_rows = [r for r in self.all_rows if r["substrate"] == substrate]
        v.split_rows()
        m = dict(self.meta)
        if substrate == "user" and m.get("env") != "user":
            m["env"] = "user"
            m["accel"] = "none"
            for k, host in (("kernel", "host_kernel"), ("vcpus", "host_cpus"),
                            ("cpu_model", "host_cpu_model")):
                if m.get(host):
                    m[k] = m[host]
            m.pop("mem_mb", None)
        v.meta = m
        return v

    @staticmethod
    def _read_csv(path):
        try:
            with open(path, newline="", encoding="utf-8",
                      errors="replace") as f:
                reader = csv.reader(f)
                header = next(reader, None)
                if header is None or not any(h.strip() for h in header):
                    raise PlotError(f"{path}: empty file (no header line)")
                header = [h.strip() for h in header]
                missing = [c for c in REQUIRED if c not in header]
                if missing:
                    raise PlotError(f"{path}: header lacks required "
                                    f"column(s): {', '.join(missing)}")
                numeric = [c for c in NUMERIC if c in header]
                rows, failed, faulted, slow = [], 0, 0, 0
                for cells in reader:
                    line = reader.line_num
                    if not cells or not any(c.strip() for c in cells):
                        continue
                    cells = rejoin_extra(cells, header)
                    if len(cells) != len(header):
                        raise PlotError(f"{path} line {line}: {len(cells)} "
                                        f"fields, header has {len(header)}")
                    row = {h: c.strip() for h, c in zip(header, cells)}
                    # the system benchmark's rows: the report's System
                    # view shows them, no figure here does
                    if row.get("substrate", "").startswith("system-"):
                        continue
                    for c in numeric:
                        try:
                            row[c] = parse_number(row[c])
                        except ValueError:
                            raise PlotError(
                                f"{path} line {line}: column '{c}' is not "
                                f"a number: '{row[c]}'") from None
                    if row["verified"].upper() == "FAILED":
                        failed += 1
                        continue
                    if row["verified"].lower() == "slow":
                        slow += 1
                        continue
                    # a storm under fault injection (the module's
                    # fault_inject): its times are no ordinary result
                    if "faults=" in row.get("extra", ""):
                        faulted += 1
                        continue
                    for c in ("ncpus", "keys"):
                        if row[c] is None:
                            raise PlotError(f"{path} line {line}: column "
                                            f"'{c}' is empty")
                        row[c] = int(row[c])
                    check_new_columns(row, path, line)
                    row["wl"] = workload_label(row)
                    rows.append(row)
        except OSError as e:
            raise PlotError(f"{path}: {e.strerror}")
        except csv.Error as e:
            raise PlotError(f"{path}: malformed CSV: {e}")
        if not rows and not failed and not faulted and not slow:
            raise PlotError(f"{path}: no data rows")
        if not rows:
            raise PlotError(f"{path}: all {failed + faulted + slow} data rows "
                            f"have verified=FAILED, verified=slow or faults= "
                            f"in extra, nothing to plot")
        return rows, failed, faulted, slow

    # -- description for titles and legends
    def env_text(self):
        m = self.meta
        env = m.get("env", "?")
        ncpu = m.get("vcpus", "?")
        if env == "vm":
            accel = m.get("accel", "tcg")
            s = f"VM (QEMU {accel.upper()}), {ncpu} vCPUs"
            if m.get("mem_mb"):
                s += f", {m['mem_mb']} MB"
        elif env == "native":
            s = f"native, {ncpu} CPUs"
        elif env == "user":
            s = f"user space (pidx-user), {ncpu} CPUs"
        else:
            s = f"env {env}"
        return s

    def describe(self):
        m = self.meta
        if self.meta_missing:
            return f"{self.name} (no meta)"
        s = f"kernel {m.get('kernel', '?')}, {self.env_text()}"
        cpu = m.get("cpu_model")
        if cpu:
            s += f", {cpu}"
        if m.get("fixture"):
            s += " [synthetic fixture]"
        return s

    def short_tag(self):
        m = self.meta
        if self.meta_missing:
            return self.name
        env = m.get("env", "?")
        if env == "vm":
            env = f"vm/{m.get('accel', 'tcg')}"
        return f"{m.get('kernel', '?')} {env}"

    def note(self):
        m = self.meta
        accel = m.get("accel", "").lower()
        env = m.get("env", "").lower()
        if accel == "tcg" or (env == "vm" and accel not in ("kvm",)):
            return TCG_NOTE
        if env == "vm":
            return KVM_NOTE
        return None


def check_new_columns(row, path, line):
    """Defaults for the columns an older results.csv lacks; checks the
    values of those it has."""
    for c in OPTIONAL_NUMBERS:
        row.setdefault(c, None)
    for c, default in OPTIONAL_TEXT.items():
        row[c] = row.get(c) or default
    tv = row.get("trace_visits")
    if tv not in (None, 0, 1):
        raise PlotError(f"{path} line {line}: column 'trace_visits' is not "
                        f"0 or 1: '{tv:g}'")
    row["trace_visits"] = int(tv or 0)
    # a run made before the setting existed batched its lookups
    dep = row.get("dependent")
    if dep not in (None, 0, 1):
        raise PlotError(f"{path} line {line}: column 'dependent' is not "
                        f"0 or 1: '{dep:g}'")
    row["dependent"] = int(dep or 0)
    # a run made before the setting existed had one namespace level
    lv = row.get("levels")
    if lv not in (None, 1, 2, 3):
        raise PlotError(f"{path} line {line}: column 'levels' is not 1, 2 "
                        f"or 3: '{lv:g}'")
    row["levels"] = str(int(lv or 1))
    node = row["node"].lower()
    if node not in ("any", "interleave") and not node.isdigit():
        raise PlotError(f"{path} line {line}: column 'node' is not any, "
                        f"interleave or a node number: '{row['node']}'")
    row["node"] = node if not node.isdigit() else str(int(node))


def figure_sets(runs):
    """[(tag, runs)]: the runs whose figures to draw, once per substrate
    when the rows have two (bench.sh under QEMU: the VM's and the user
    sweep's); the user rows' files are then named user_*."""
    subs = [run.substrates() for run in runs]
    if all(len(s) <= 1 for s in subs):
        return [("", runs)]
    sets = []
    for sub in ("kernel", "user"):
        if all(sub in s for s in subs):
            views = [run.view(sub) for run in runs]
            if sub != "kernel":
                for v in views:
                    v.fig_prefix = f"{sub}_"
            sets.append((f"{sub} rows: ", views))
    if not sets:
        # nothing in common: each run's first substrate
        sets.append(("", [run.view(s[0]) for run, s in zip(runs, subs)]))
    return sets
