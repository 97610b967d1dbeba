#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot a pidx results directory (results.csv + meta), or compare two.

usage: plot.py [--out DIR] [--with DIR]... [--compare] RESULTS_DIR
       [RESULTS_DIR2]

Draws, as PNG and SVG, into --out (default RESULTS_DIR/plots):
  nsop_vs_keys        ns/op against keys, one panel per workload
  throughput_vs_cpus  aggregate Mops/s against storming CPUs
  latency             p50 and p99 of sampled single operations
  memory              bytes per key each index held
and, only when results.csv has such rows (not with --compare):
  visits              index nodes and cache lines per operation against
                      keys, from the trace_visits=1 rows
  numa                ns/op by memory placement, from the rows with a
                      node other than "any"
  pmu                 CPU counters per operation of the lookup keys sweep
                      (cachegrind's counts for pmu=cachegrind rows)
  ratio_to_idr        every index's ratio to idr side by side, one bar per
                      source of rows: the kernel's ns/op (under QEMU TCG:
                      emulated, said so), native user space's ns/op, and
                      cachegrind's instructions, D1 and LL misses per op;
                      a panel per workload (lookup, fork) and keys size;
                      drawn when there are two sources or cachegrind rows;
                      the numbers also go to ratio_to_idr.csv
Rows of two substrates (bench.sh under QEMU: substrate=kernel from the VM,
substrate=user from user/pidx-user) draw each figure once per substrate:
the kernel's as named above, user space's named user_*.  Rows with
pmu=cachegrind feed only the pmu and ratio_to_idr figures.  --with DIR
(repeatable) adds another results directory's rows to ratio_to_idr only
(e.g. a TCG sweep beside a native one).
With --compare the files are named compare_*.  Medians and min-max spread
are computed here from the individual repeats; rows with verified=FAILED
and rows run under fault injection (faults= in extra) are left out (with a
warning).  The `null` index is drawn as a grey dashed
"engine cost" reference, never as an index.  Rows with trace_visits=1 (their
times include the tracing) and rows with node other than "any" are left out
of the time and memory figures.  Rows with dependent=1 (lookups that wait
for each other) appear only in ratio_to_idr, as bars of their own, and not
at all under cachegrind, which counts both settings alike.  Rows whose
lookups another dist than uniform drew (zipf:S, recent:H, sequential) are
left out of every figure, which compare uniform lookups (with a warning).
Replay rows (workload=replay) are a workload of their own per trace,
labelled with the trace's event count from extra (replay 406ev).
Rows with levels
above 1 (a number per namespace level) are a workload of their own
(fork (3 levels)).  A results.csv without those columns reads as
trace_visits=0, node=any, pmu n/a, dependent=0, dist=uniform, levels=1.

Runs with Debian's python3-matplotlib: use /usr/bin/python3.
"""

import argparse
import copy
import csv
import math
import os
import statistics
import sys

# the report's package beside this script: one name for each workload
from pidxreport.data import workload_label

PROG = "plot.py"

# Columns this script reads; a header without any of them is an error.
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
# CPU counter columns and their labels, in the order drawn
PMU_COLUMNS = [("cycles_per_op", "cycles"),
               ("instructions_per_op", "instructions"),
               ("cache_refs_per_op", "cache references"),
               ("cache_misses_per_op", "cache misses"),
               ("llc_load_misses_per_op", "LLC load misses")]
MISSING_WORDS = ("n/a", "na", "-")

NULL = "null"
# idr_onelock, mainline's IDR, in idr's hue
INDEX_COLORS = {"idr": "#1f77b4", "idr_onelock": "#aec7e8",
                "skiplist": "#ff7f0e", "rbskip": "#2ca02c"}
SPARE_COLORS = ["#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
                "#bcbd22"]
INDEX_MARKERS = {"idr": "o", "idr_onelock": "h", "skiplist": "s",
                 "rbskip": "^"}
SPARE_MARKERS = ["D", "v", "P", "X", "<", ">"]
MODE_MARKERS = {"ipi": "o", "kthread": "^"}
NULL_COLOR = "#7f7f7f"
WORKLOAD_ORDER = ["lookup", "insert", "delete", "mixed", "fork", "iterate",
                  "replay"]
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


class ArgParser(argparse.ArgumentParser):
    def error(self, message):
        # one line, no usage dump
        print(f"{PROG}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(1)


# ---------------------------------------------------------------- reading

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
        self.all_rows, self.failed, self.faulted = self._read_csv(csv_path)
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
                rows, failed, faulted = [], 0, 0
                for cells in reader:
                    line = reader.line_num
                    if not cells or not any(c.strip() for c in cells):
                        continue
                    if len(cells) > len(header) and "extra" in header:
                        # `extra` is free text: keep any commas in it
                        e = header.index("extra")
                        n = len(cells) - len(header) + 1
                        cells = cells[:e] + [",".join(cells[e:e + n])] + \
                            cells[e + n:]
                    if len(cells) != len(header):
                        raise PlotError(f"{path} line {line}: {len(cells)} "
                                        f"fields, header has {len(header)}")
                    row = {h: c.strip() for h, c in zip(header, cells)}
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
        if not rows and not failed and not faulted:
            raise PlotError(f"{path}: no data rows")
        if not rows:
            raise PlotError(f"{path}: all {failed + faulted} data rows have "
                            f"verified=FAILED or faults= in extra, nothing "
                            f"to plot")
        return rows, failed, faulted

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


# ------------------------------------------------------------ statistics

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


def workload_sort_key(wl):
    base = wl.split()[0]
    pos = WORKLOAD_ORDER.index(base) if base in WORKLOAD_ORDER else 99
    # mixed 90/5/5 before mixed 50/25/25: more lookups first
    tail = wl[len(base):]
    try:
        lookup_pct = -int(tail.strip().split("/")[0])
    except ValueError:
        lookup_pct = 0
    return (pos, lookup_pct, wl)


def ordered_indexes(runs, attr="rows"):
    """Index names of the rows in attr (rows: the timed ones), known ones
    first, without null."""
    names = []
    for run in runs:
        for r in getattr(run, attr):
            if r["index"] != NULL and r["index"] not in names:
                names.append(r["index"])
    known = [n for n in INDEX_COLORS if n in names]
    return known + sorted(n for n in names if n not in INDEX_COLORS)


def fmt_keys(k):
    k = int(k)
    if k >= 1 << 20 and k % (1 << 20) == 0:
        return f"{k >> 20}M"
    if k >= 1 << 10 and k % (1 << 10) == 0:
        return f"{k >> 10}K"
    return str(k)


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


# --------------------------------------------------------------- drawing

class Styler:
    def __init__(self, runs):
        self.runs = runs
        self.compare = len(runs) > 1
        self.colors, self.markers = {}, {}
        # every row: the same index has one colour in every figure
        for i, name in enumerate(ordered_indexes(runs, "all_rows")):
            j = i - len([n for n in INDEX_COLORS if n in self.colors])
            self.colors[name] = INDEX_COLORS.get(
                name, SPARE_COLORS[max(j, 0) % len(SPARE_COLORS)])
            self.markers[name] = INDEX_MARKERS.get(
                name, SPARE_MARKERS[max(j, 0) % len(SPARE_MARKERS)])

    def line(self, index, run_i, mode_marker=None):
        """kwargs for plot()/errorbar() of one curve."""
        if index == NULL:
            return dict(color=NULL_COLOR, linestyle="--" if run_i == 0
                        else ":", linewidth=1.6, marker=mode_marker or "",
                        markersize=5, alpha=0.9)
        kw = dict(color=self.colors[index], linewidth=2.0,
                  marker=mode_marker or self.markers[index], markersize=6,
                  linestyle="-" if run_i == 0 else "--")
        if run_i:
            kw["markerfacecolor"] = "white"
        return kw

    def run_tags(self):
        a, b = self.runs
        ta, tb = a.short_tag(), b.short_tag()
        if ta == tb:
            ta, tb = a.name, b.name
        if ta == tb:
            ta, tb = a.dir, b.dir

        def short(t):
            return t if len(t) <= 40 else "..." + t[-37:]
        return [f"A: {short(ta)}", f"B: {short(tb)}"]

    def legend_handles(self, indexes, with_null, modes=None):
        from matplotlib.lines import Line2D
        h = []
        for name in indexes:
            h.append(Line2D([], [], label=name, **self.line(
                name, 0, "o" if modes else None)))
        if with_null:
            for i in range(len(self.runs) if self.compare else 1):
                lab = "null: engine cost"
                if self.compare:
                    lab += f" ({'AB'[i]})"
                h.append(Line2D([], [], label=lab, **self.line(NULL, i)))
        if modes:
            for i, m in enumerate(modes):
                h.append(Line2D([], [], color="black", linewidth=1.5,
                                linestyle="-" if i == 0 else "-.",
                                marker=MODE_MARKERS.get(m, "x"),
                                markersize=7, label=f"mode {m}"))
        if self.compare:
            for i, tag in enumerate(self.run_tags()):
                h.append(Line2D([], [], color="black", linewidth=2.0,
                                linestyle="-" if i == 0 else "--",
                                label=tag))
        return h


def new_figure(npanels, panel_w=5.4, panel_h=3.9, ncols=None):
    import matplotlib.pyplot as plt
    if ncols is None:
        ncols = min(npanels, 3 if npanels > 4 else 2) if npanels > 1 else 1
    nrows = (npanels + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(panel_w * ncols, panel_h * nrows))
    flat = [ax for row in axes for ax in row]
    for ax in flat[npanels:]:
        ax.set_visible(False)
    return fig, flat[:npanels]


def finish_figure(fig, runs, title, subtitle, handles, out_base, written,
                  run_notes=True, notes=(), foot=(), head=None):
    """Title, legend and notes in margins added to the figure, then PNG and
    SVG.  The panels keep the size they were created with.  run_notes: the
    emulation notes of the runs (for figures of times); notes: more of
    them; foot: lines of small print between the legend and the notes."""
    import textwrap
    import matplotlib.pyplot as plt
    w, h = fig.get_size_inches()
    wrap = max(60, int(w * 12.5))
    if head is None:
        head = [r.describe() if len(runs) == 1 else
                f"{'AB'[i]}: {r.describe()}" for i, r in enumerate(runs)]
    head = list(head)
    if subtitle:
        head.append(subtitle)
    head = [line for text in head for line in textwrap.wrap(text, wrap)]
    top_in = 0.62 + 0.24 * len(head)
    notes, more = [], list(notes)
    for r in runs if run_notes else []:
        n = r.note()
        if n and n not in notes:
            notes.append(n)
    notes += [n for n in more if n not in notes]
    # columns as wide as the widest entry must fit the figure's width
    widest = max((0.75 + 0.085 * len(h.get_label()) for h in handles),
                 default=1.0)
    ncol = max(1, min(len(handles), int(w * 0.96 // widest)))
    legend_rows = (len(handles) + ncol - 1) // ncol
    note_in = 0.36 * len(notes)
    foot_in = 0.1 + 0.18 * len(foot) if foot else 0.0
    bottom_in = 0.2 + 0.27 * legend_rows + note_in + foot_in + 0.1
    H = h + top_in + bottom_in
    fig.set_size_inches(w, H)
    fig.tight_layout(rect=[0, bottom_in / H, 1, 1 - top_in / H],
                     h_pad=1.8, w_pad=1.5)
    fig.text(0.5, 1 - 0.12 / H, title, ha="center", va="top",
             fontsize=14, fontweight="bold")
    fig.text(0.5, 1 - 0.50 / H, "\n".join(head), ha="center", va="top",
             fontsize=10.5, linespacing=1.45)
    fig.legend(handles=row_major(handles, ncol), loc="lower center",
               ncol=ncol,
               bbox_to_anchor=(0.5, (0.05 + note_in + foot_in) / H),
               frameon=False, fontsize=10.5)
    if foot:
        fig.text(0.5, (0.12 + note_in) / H, "\n".join(foot), ha="center",
                 va="bottom", multialignment="left", fontsize=9,
                 family="monospace", linespacing=1.35)
    for i, n in enumerate(notes):
        fig.text(0.5, (0.10 + 0.36 * i) / H, n, ha="center", va="bottom",
                 fontsize=10.5, color="#a00000", fontweight="bold",
                 bbox=dict(boxstyle="round,pad=0.3", facecolor="#fff3f3",
                           edgecolor="#a00000"))
    for ext in ("png", "svg"):
        path = f"{out_base}.{ext}"
        fig.savefig(path, dpi=110)
        written.append(path)
    plt.close(fig)


def row_major(handles, ncol):
    """matplotlib fills legend columns first: reorder (padding with blank
    entries) so that the legend reads left to right, row by row."""
    from matplotlib.lines import Line2D
    rows = (len(handles) + ncol - 1) // ncol
    if rows <= 1:
        return handles
    padded = handles + [Line2D([], [], linestyle="none", label="")
                        for _ in range(rows * ncol - len(handles))]
    return [padded[r * ncol + c] for c in range(ncol) for r in range(rows)]


def log_axis(ax, axis="y"):
    """Log scale with plain-number ticks at 1, 2, 5 x 10^n."""
    from matplotlib import ticker

    def fmt(v, _pos):
        if v >= 1e6:
            return f"{v / 1e6:g}M"
        if v >= 1e4:
            return f"{v / 1e3:g}k"
        return f"{v:g}"
    a = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    a.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    a.set_major_formatter(ticker.FuncFormatter(fmt))
    a.set_minor_locator(ticker.LogLocator(base=10, subs="auto"))
    a.set_minor_formatter(ticker.NullFormatter())


def no_minor_x(ax):
    from matplotlib import ticker
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def errbar(ax, xs, stats, **kw):
    med = [s[0] for s in stats]
    lo = [s[0] - s[1] for s in stats]
    hi = [s[2] - s[0] for s in stats]
    ax.errorbar(xs, med, yerr=[lo, hi], capsize=3, elinewidth=1.1, **kw)


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
    return sorted(wls, key=workload_sort_key)


# ---- ns/op against keys

def plot_nsop(runs, sty, out, written):
    wls = workloads_of(runs)
    # per run and workload: rows of the preferred mode at one CPU count
    sel, counts, any_sweep, modes = {}, [], False, set()
    for ri, run in enumerate(runs):
        mode = preferred_mode(run.rows)
        modes.add(mode)
        for wl in wls:
            rows = [r for r in run.rows if r["wl"] == wl and r["mode"] == mode
                    and r["ns_per_op"] is not None]
            ncpus = pick_most_distinct(rows, "ncpus", "keys", lambda v: v)
            rows = [r for r in rows if r["ncpus"] == ncpus]
            if len({r["keys"] for r in rows}) > 1:
                any_sweep = True
            sel[ri, wl] = (ncpus, rows)
    if not any_sweep:
        info("skipping nsop_vs_keys: only one keys size in the data")
        return
    fig, axes = new_figure(len(wls))
    has_null, all_keys = False, set()
    for ax, wl in zip(axes, wls):
        cpu_txt = []
        for ri, run in enumerate(runs):
            ncpus, rows = sel[ri, wl]
            if ncpus is None:
                continue
            cpu_txt.append(f"{ncpus} CPU{'s' if ncpus != 1 else ''}")
            g = group(rows, lambda r: (r["index"], r["keys"]), "ns_per_op")
            for name in ordered_indexes(runs) + [NULL]:
                pts = sorted((k, s) for (i, k), s in g.items() if i == name)
                if not pts:
                    continue
                has_null |= name == NULL
                all_keys.update(k for k, _ in pts)
                counts.extend(s[3] for _, s in pts)
                errbar(ax, [k for k, _ in pts], [s for _, s in pts],
                       **sty.line(name, ri))
        if len(set(cpu_txt)) > 1:
            cpu_txt = [f"{'AB'[i]} {t}" for i, t in enumerate(cpu_txt)]
        ax.set_title(f"{wl} · {', '.join(dict.fromkeys(cpu_txt))}",
                     fontsize=12)
        ax.set_xscale("log")
        log_axis(ax)
        ax.set_xlabel("keys prefilled (log scale)")
        ax.set_ylabel("mean ns per operation (log)")
        ax.grid(True, which="major", alpha=0.35)
        ax.grid(True, which="minor", alpha=0.12)
    for ax in axes:
        ax.set_xticks(sorted(all_keys))
        ax.set_xticklabels([fmt_keys(k) for k in sorted(all_keys)])
        no_minor_x(ax)
        ax.set_xlim(min(all_keys) / 1.6, max(all_keys) * 1.6)
    mode_txt = "/".join(sorted(m for m in modes if m))
    finish_figure(fig, runs, "ns per operation vs keys",
                  f"mode {mode_txt}, each panel at the CPU count named in "
                  f"its title; {repeats_text(counts)}",
                  sty.legend_handles(ordered_indexes(runs), has_null),
                  os.path.join(out, f"{prefix(runs)}nsop_vs_keys"), written)


# ---- throughput against CPUs

def plot_throughput(runs, sty, out, written):
    wls = workloads_of(runs)
    sel, counts, any_sweep, modes = {}, [], False, []
    for ri, run in enumerate(runs):
        for wl in wls:
            rows = [r for r in run.rows
                    if r["wl"] == wl and r["mops"] is not None]
            keys = pick_most_distinct(rows, "keys", "ncpus", keys_pref)
            rows = [r for r in rows if r["keys"] == keys]
            if len({r["ncpus"] for r in rows}) > 1:
                any_sweep = True
            for r in rows:
                if r["mode"] not in modes:
                    modes.append(r["mode"])
            sel[ri, wl] = (keys, rows)
    if not any_sweep:
        info("skipping throughput_vs_cpus: only one CPU count in the data")
        return
    modes.sort(key=lambda m: (m != "ipi", m))
    multi_mode = len(modes) > 1
    fig, axes = new_figure(len(wls))
    has_null, all_cpus, ranges = False, set(), []
    for ax, wl in zip(axes, wls):
        key_txt, ymin, ymax = [], math.inf, 0
        for ri, run in enumerate(runs):
            keys, rows = sel[ri, wl]
            if keys is None:
                continue
            key_txt.append(f"{fmt_keys(keys)} keys")
            g = group(rows, lambda r: (r["index"], r["mode"], r["ncpus"]),
                      "mops")
            for name in ordered_indexes(runs) + [NULL]:
                for mode in modes:
                    pts = sorted((c, s) for (i, m, c), s in g.items()
                                 if i == name and m == mode)
                    if not pts:
                        continue
                    has_null |= name == NULL
                    all_cpus.update(c for c, _ in pts)
                    counts.extend(s[3] for _, s in pts)
                    ymin = min([ymin] + [s[1] for _, s in pts if s[1] > 0])
                    ymax = max([ymax] + [s[2] for _, s in pts])
                    mk = MODE_MARKERS.get(mode, "x") if multi_mode else None
                    kw = sty.line(name, ri, mk)
                    if multi_mode and name != NULL and mode != modes[0]:
                        kw["linestyle"] = "-." if ri == 0 else ":"
                    errbar(ax, [c for c, _ in pts], [s for _, s in pts],
                           **kw)
        if len(set(key_txt)) > 1:
            key_txt = [f"{'AB'[i]} {t}" for i, t in enumerate(key_txt)]
        ax.set_title(f"{wl} · {', '.join(dict.fromkeys(key_txt))}",
                     fontsize=12)
        ranges.append((ax, ymin, ymax))
        ax.set_xlabel("CPUs storming")
        ax.grid(True, alpha=0.35)
    # one y scale for all panels: log when any panel spans more than 30x
    use_log = any(hi > 0 and lo < math.inf and hi / lo > 30
                  for _, lo, hi in ranges)
    for ax, lo, hi in ranges:
        if use_log:
            log_axis(ax)
            ax.set_ylabel("aggregate Mops/s (log)")
        else:
            ax.set_ylim(bottom=0, top=hi * 1.12 if hi > 0 else None)
            ax.set_ylabel("aggregate Mops/s")
    cpus = sorted(all_cpus)
    for ax in axes:
        if cpus and cpus[-1] / max(cpus[0], 1) >= 8:
            ax.set_xscale("log", base=2)
        ax.set_xticks(cpus)
        ax.set_xticklabels([str(c) for c in cpus])
        no_minor_x(ax)
        ax.set_xlim(cpus[0] - 0.3 if cpus[0] > 0 and cpus[-1] / max(
            cpus[0], 1) < 8 else cpus[0] / 1.3,
            cpus[-1] + 0.3 if cpus[-1] / max(cpus[0], 1) < 8
            else cpus[-1] * 1.3)
    finish_figure(fig, runs, "aggregate throughput vs CPUs",
                  "modes " + ", ".join(modes) + ", each panel at the keys "
                  f"size named in its title; {repeats_text(counts)}",
                  sty.legend_handles(ordered_indexes(runs), has_null,
                                     modes if multi_mode else None),
                  os.path.join(out, f"{prefix(runs)}throughput_vs_cpus"),
                  written)


# ---- latency bars

def latency_selection(run, wl):
    rows = [r for r in run.rows if r["wl"] == wl]
    mode = preferred_mode(rows)
    rows = [r for r in rows if r["mode"] == mode]
    keys = pick_most_distinct(rows, "keys", "ncpus", keys_pref)
    rows = [r for r in rows if r["keys"] == keys]
    ncpus = max((r["ncpus"] for r in rows), default=None)
    rows = [r for r in rows if r["ncpus"] == ncpus]
    return (mode, keys, ncpus), rows


def plot_latency(runs, sty, out, written):
    import matplotlib.patches as mpatches
    wls = workloads_of(runs)
    names = ordered_indexes(runs)
    nrun = len(runs)
    sel = {(ri, wl): latency_selection(run, wl)
           for ri, run in enumerate(runs) for wl in wls}
    if not any(rows for _, rows in sel.values()):
        info("skipping latency: no rows")
        return
    width = 0.8 / max(1, len(names) * nrun)
    # the configuration each group shows: in the subtitle when it is the
    # same everywhere, else under each group
    cfg = {}
    for (ri, wl), ((mode, keys, ncpus), rows) in sel.items():
        if rows:
            cfg[ri, wl] = (f"{fmt_keys(keys)} keys, {ncpus} "
                           f"CPU{'s' if ncpus != 1 else ''}, {mode}")
    per_run = [{c for (r, _), c in cfg.items() if r == ri}
               for ri in range(nrun)]
    common = all(len(c) <= 1 for c in per_run)
    if common:
        cfg_txt = "; ".join((f"{'AB'[ri]}: " if nrun > 1 else "")
                            + next(iter(c)) for ri, c in enumerate(per_run)
                            if c)
        if nrun > 1 and len(set.union(*per_run)) == 1:
            cfg_txt = next(iter(per_run[0] or per_run[1]))
    tick_labels = []
    for wl in wls:
        if common:
            tick_labels.append(wl)
            continue
        c = [cfg.get((ri, wl)) for ri in range(nrun)]
        if nrun > 1 and len(set(c)) > 1:
            c = [f"{'AB'[ri]}: {t}" for ri, t in enumerate(c) if t]
        tick_labels.append("\n".join([wl] + list(dict.fromkeys(
            t.replace(" keys,", ",") for t in c if t))))
    fig, axes = new_figure(2, panel_w=min(16.0, max(
        10.5, 0.3 * len(wls) * (len(names) * nrun + 1.5) + 2)),
        panel_h=3.6 if nrun == 1 else 4.2, ncols=1)
    counts, has_null = [], False
    for ax, col, lab in zip(axes, ("p50_ns", "p99_ns"), ("p50", "p99")):
        for wi, wl in enumerate(wls):
            for ri in range(nrun):
                _, rows = sel[ri, wl]
                g = group(rows, lambda r: r["index"], col)
                for ni, name in enumerate(names):
                    s = g.get(name)
                    if s is None or s[0] <= 0:
                        continue
                    counts.append(s[3])
                    x = wi - 0.4 + width * (ni * nrun + ri + 0.5)
                    ax.bar(x, s[0], width * 0.92, color=sty.colors[name],
                           alpha=1.0 if ri == 0 else 0.55,
                           hatch=None if ri == 0 else "//",
                           edgecolor="black" if ri else sty.colors[name],
                           linewidth=0.6,
                           linestyle="-" if ri == 0 else "--")
                    ax.errorbar(x, s[0], yerr=[[s[0] - s[1]], [s[2] - s[0]]],
                                color="black", capsize=2.5, elinewidth=1,
                                linestyle="none")
                s = g.get(NULL)
                if s is not None and s[0] > 0:
                    has_null = True
                    ax.hlines(s[0], wi - 0.45, wi + 0.45,
                              **{k: v for k, v in sty.line(NULL, ri).items()
                                 if k in ("color", "linestyle", "linewidth")})
        log_axis(ax)
        ax.set_axisbelow(True)
        ax.set_ylabel(f"{lab} latency, ns (log)")
        ax.set_title(f"{lab} of sampled single operations "
                     f"(clock cost included)", fontsize=12)
        ax.set_xticks(range(len(wls)))
        ax.set_xlim(-0.6, len(wls) - 0.4)
        ax.grid(True, axis="y", which="major", alpha=0.35)
        ax.set_xticklabels(tick_labels, fontsize=10 if common else 9.5)
        ax.set_xlabel("workload" if common else
                      "workload (and the configuration shown)")
    handles = [mpatches.Patch(color=sty.colors[n], label=n) for n in names]
    hl = sty.legend_handles([], has_null)
    if nrun > 1:
        handles = handles + [h for h in hl if h.get_label().startswith(
            "null")] + [mpatches.Patch(facecolor="#bbbbbb", edgecolor="black",
                                       label=t + (" (solid)" if i == 0
                                                  else " (hatched)"),
                                       hatch=None if i == 0 else "//")
                        for i, t in enumerate(sty.run_tags())]
    else:
        handles += hl
    finish_figure(fig, runs, "latency of single operations",
                  (f"{cfg_txt}; " if common else "")
                  + "bars: median of the per-storm percentiles over "
                  + repeats_text(counts).replace("median of ", "")
                  .replace("bars", "whiskers"),
                  handles, os.path.join(out, f"{prefix(runs)}latency"),
                  written)


# ---- memory

def memory_rows(run):
    rows = [r for r in run.rows if r["index"] != NULL
            and r["bytes_per_key"] is not None and r["bytes_per_key"] > 0]
    wls = {}
    for r in rows:
        wls.setdefault(r["wl"], set()).add(r["keys"])
    if not wls:
        return None, []
    wl = "lookup" if "lookup" in wls else max(
        wls, key=lambda w: (len(wls[w]), -workload_sort_key(w)[0]))
    return wl, [r for r in rows if r["wl"] == wl]


def plot_memory(runs, sty, out, written):
    sel = [memory_rows(run) for run in runs]
    if not any(rows for _, rows in sel):
        info("skipping memory: no bytes_per_key values")
        return
    names = ordered_indexes(runs)
    all_keys = sorted({r["keys"] for _, rows in sel for r in rows})
    fig, (ax,) = new_figure(1, panel_w=8.5, panel_h=5.0)
    counts = []
    if len(all_keys) > 1:
        for ri, (wl, rows) in enumerate(sel):
            g = group(rows, lambda r: (r["index"], r["keys"]),
                      "bytes_per_key")
            for name in names:
                pts = sorted((k, s) for (i, k), s in g.items() if i == name)
                if pts:
                    counts.extend(s[3] for _, s in pts)
                    errbar(ax, [k for k, _ in pts], [s for _, s in pts],
                           **sty.line(name, ri))
        ax.set_xscale("log")
        ax.set_xticks(all_keys)
        ax.set_xticklabels([fmt_keys(k) for k in all_keys])
        no_minor_x(ax)
        ax.set_xlim(all_keys[0] / 1.6, all_keys[-1] * 1.6)
        ax.set_xlabel("keys prefilled (log scale)")
        ax.set_ylim(bottom=0)
        handles = sty.legend_handles(names, False)
    else:
        import matplotlib.patches as mpatches
        nrun = len(runs)
        for ri, (wl, rows) in enumerate(sel):
            g = group(rows, lambda r: r["index"], "bytes_per_key")
            for ni, name in enumerate(names):
                s = g.get(name)
                if s is None:
                    continue
                counts.append(s[3])
                x = ni + (ri - (nrun - 1) / 2) * 0.8 / nrun
                ax.bar(x, s[0], 0.75 / nrun, color=sty.colors[name],
                       alpha=1.0 if ri == 0 else 0.55,
                       hatch=None if ri == 0 else "//", edgecolor="black"
                       if ri else sty.colors[name])
                ax.errorbar(x, s[0], yerr=[[s[0] - s[1]], [s[2] - s[0]]],
                            color="black", capsize=3, linestyle="none")
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names)
        ax.set_xlabel(f"index ({fmt_keys(all_keys[0])} keys)")
        handles = [mpatches.Patch(color=sty.colors[n], label=n)
                   for n in names]
        if nrun > 1:
            handles += [mpatches.Patch(facecolor="#bbbbbb",
                                       edgecolor="black", label=t,
                                       hatch=None if i == 0 else "//")
                        for i, t in enumerate(sty.run_tags())]
    ax.set_ylabel("bytes per key held (B)")
    ax.set_axisbelow(True)
    ax.grid(True, alpha=0.35)
    wl_txt = ", ".join(dict.fromkeys(w for w, _ in sel if w))
    ax.set_title(f"after {wl_txt} storms, all CPU counts and modes pooled",
                 fontsize=11)
    finish_figure(fig, runs, "index memory per key",
                  repeats_text(counts).replace("repeats", "storms"),
                  handles, os.path.join(out, f"{prefix(runs)}memory"),
                  written)


# ---- visits per operation (trace_visits=1 rows)

def compare_skip(runs, fig_name, attr):
    """True (after saying so) when --compare: the figures of the extra
    sweeps are drawn for one directory at a time."""
    if len(runs) == 1:
        return False
    if any(getattr(run, attr) for run in runs):
        info(f"skipping {fig_name}: not drawn with --compare (plot each "
             f"results directory alone)")
    return True


def keys_axis(axes, all_keys):
    """Log x axis with a tick at each keys size."""
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(all_keys)
        ax.set_xticklabels([fmt_keys(k) for k in all_keys])
        no_minor_x(ax)
        ax.set_xlim(all_keys[0] / 1.6, all_keys[-1] * 1.6)
        ax.set_xlabel("keys prefilled (log scale)")


def plot_visits(runs, sty, out, written):
    from matplotlib.lines import Line2D
    if compare_skip(runs, "visits", "visit_rows"):
        return
    rows = [r for r in runs[0].visit_rows if r["index"] != NULL
            and r["visits_per_op"] is not None]
    if not rows:
        info("skipping visits: no trace_visits=1 rows")
        return
    wls = sorted({r["wl"] for r in rows}, key=workload_sort_key)
    names = ordered_indexes(runs, "visit_rows")
    fig, axes = new_figure(len(wls), panel_w=5.4 if len(wls) > 1 else 7.0)
    all_keys, counts, modes = set(), [], set()
    for ax, wl in zip(axes, wls):
        sel = [r for r in rows if r["wl"] == wl]
        mode = preferred_mode(sel)
        modes.add(mode)
        sel = [r for r in sel if r["mode"] == mode]
        # the CPU count with the most keys sizes; fewest CPUs on a tie
        ncpus = pick_most_distinct(sel, "ncpus", "keys", lambda v: -v)
        sel = [r for r in sel if r["ncpus"] == ncpus]
        for col, style in (("visits_per_op", "-"), ("lines_per_op", "--")):
            g = group(sel, lambda r: (r["index"], r["keys"]), col)
            for name in names:
                pts = sorted((k, s) for (i, k), s in g.items() if i == name)
                if not pts:
                    continue
                all_keys.update(k for k, _ in pts)
                counts.extend(s[3] for _, s in pts)
                kw = sty.line(name, 0)
                kw["linestyle"] = style
                if style != "-":
                    kw.update(markerfacecolor="white", linewidth=1.6)
                errbar(ax, [k for k, _ in pts], [s for _, s in pts], **kw)
        ax.set_title(f"{wl} · {ncpus} CPU{'s' if ncpus != 1 else ''}",
                     fontsize=12)
        ax.set_ylim(bottom=0)
        ax.set_ylabel("per operation (mean over the storm)")
        ax.grid(True, alpha=0.35)
    keys_axis(axes, sorted(all_keys))
    handles = sty.legend_handles(names, False) + [
        Line2D([], [], color="black", linewidth=2.0, linestyle="-",
               label="solid: index nodes visited"),
        Line2D([], [], color="black", linewidth=1.6, linestyle="--",
               label="dashed: distinct cache lines")]
    seeds = sorted({f"{r['seed']:g}" for r in rows if r.get("seed")
                    is not None})
    rep = repeats_text(counts)
    finish_figure(fig, runs,
                  "visits per op: deterministic for a seed; counted, "
                  "not timed",
                  f"trace_visits=1 rows (their times include the tracing "
                  f"and are left out of every time figure); mode "
                  f"{'/'.join(sorted(m for m in modes if m))}"
                  + (f", seed {', '.join(seeds)}" if seeds else "")
                  + (f"; {rep}" if counts and max(counts) > 1 else ""),
                  handles, os.path.join(out, f"{prefix(runs)}visits"),
                  written, run_notes=False)


# ---- ns/op by memory placement (rows with node other than any)

def node_order(node):
    return (node == "interleave", int(node) if node.isdigit() else 0)


def storm_nodes(rows):
    """The NUMA nodes of the storm CPUs (cpu_nodes "cpu:node;...")."""
    nodes = set()
    for r in rows:
        for pair in r["cpu_nodes"].split(";"):
            node = pair.partition(":")[2].strip()
            if node.isdigit():
                nodes.add(node)
    return nodes


def placement_label(node, local, sep="\n"):
    if node == "interleave":
        return "interleave"
    if local is None:
        return f"node {node}"
    return f"node {node}{sep}({'local' if node == local else 'remote'})"


def bar_group(ax, g, xi, at, names, width, sty, counts):
    """One group of bars at x = xi: median and min..max of (index, at) in g,
    and the null index's median as a grey line across the group.  Appends
    each bar's repeat count to counts; returns whether null was drawn."""
    for ni, name in enumerate(names):
        s = g.get((name, at))
        if s is None:
            continue
        counts.append(s[3])
        x = xi - 0.4 + width * (ni + 0.5)
        ax.bar(x, s[0], width * 0.92, color=sty.colors[name])
        ax.errorbar(x, s[0], yerr=[[s[0] - s[1]], [s[2] - s[0]]],
                    color="black", capsize=2.5, elinewidth=1,
                    linestyle="none")
    s = g.get((NULL, at))
    if s is None:
        return False
    ax.hlines(s[0], xi - 0.45, xi + 0.45,
              **{k: v for k, v in sty.line(NULL, 0).items()
                 if k in ("color", "linestyle", "linewidth")})
    return True


def plot_numa(runs, sty, out, written):
    import textwrap
    import matplotlib.patches as mpatches
    if compare_skip(runs, "numa", "numa_rows"):
        return
    run = runs[0]
    rows = [r for r in run.numa_rows if r["ns_per_op"] is not None]
    if not rows:
        info("skipping numa: no rows with a node other than any")
        return
    names = ordered_indexes(runs, "numa_rows")
    panels = sorted({(r["wl"], r["keys"]) for r in rows},
                    key=lambda p: (workload_sort_key(p[0]), p[1]))
    nodes = sorted({r["node"] for r in rows}, key=node_order)
    cpu_nodes = storm_nodes(rows)
    local = next(iter(cpu_nodes)) if len(cpu_nodes) == 1 else None
    width = 0.8 / max(1, len(names))
    fig, axes = new_figure(len(panels), panel_w=max(
        5.4, 0.3 * len(nodes) * (len(names) + 1.5) + 1.5))
    counts, has_null, table, cfg = [], False, [], set()
    many_wls = len({wl for wl, _ in panels}) > 1
    for ax, (wl, keys) in zip(axes, panels):
        prow = [r for r in rows if r["wl"] == wl and r["keys"] == keys]
        g = group(prow, lambda r: (r["index"], r["node"]), "ns_per_op")
        here = [n for n in nodes if any(r["node"] == n for r in prow)]
        for xi, node in enumerate(here):
            has_null |= bar_group(ax, g, xi, node, names, width, sty, counts)
            # where the first repeat's index objects were after the prefill
            first = {}
            for r in sorted(prow, key=lambda r: r["repeat"] or 0):
                if r["node"] == node and r["index"] != NULL:
                    first.setdefault(r["index"], r["mem_nodes"])
            table.append(
                (f"{wl} " if many_wls else "")
                + f"{fmt_keys(keys)} keys, "
                + f"{placement_label(node, local, ' ')}: "
                + "  ".join(f"{n} {first[n]}" for n in names if n in first))
        for r in prow:
            cfg.add(f"{r['ncpus']} CPU{'s' if r['ncpus'] != 1 else ''}, "
                    f"{r['mode']}")
        ax.set_xticks(range(len(here)))
        ax.set_xticklabels([placement_label(n, local) for n in here])
        ax.set_xlim(-0.6, len(here) - 0.4)
        ax.set_ylim(bottom=0)
        ax.set_title(f"{wl} · {fmt_keys(keys)} keys", fontsize=12)
        ax.set_xlabel("index memory placed on (node setting)")
        ax.set_ylabel("mean ns per operation")
        ax.set_axisbelow(True)
        ax.grid(True, axis="y", alpha=0.35)
    w = fig.get_size_inches()[0]
    cpus = sorted({r["cpu_nodes"] for r in rows})
    foot = [f"storm cpu:node {', '.join(cpus)}; index objects per node "
            f"(node:count) after the prefill, first repeat:"]
    for line in table:
        foot += textwrap.wrap(line, max(60, int(w * 12.5)),
                              subsequent_indent="    ")
    notes = [NUMA_TCG_NOTE] if run.note() == TCG_NOTE else []
    handles = [mpatches.Patch(color=sty.colors[n], label=n) for n in names]
    handles += sty.legend_handles([], has_null)
    finish_figure(fig, runs, "ns per operation by memory placement (NUMA)",
                  f"{'; '.join(sorted(cfg))}; bars: median over "
                  + repeats_text(counts).replace("median of ", "")
                  .replace("bars", "whiskers"),
                  handles, os.path.join(out, f"{prefix(runs)}numa"),
                  written, notes=notes, foot=foot)


# ---- CPU counters per operation

def plot_pmu(runs, sty, out, written):
    import matplotlib.patches as mpatches
    cols = [c for c, _ in PMU_COLUMNS]
    if not any(r[c] is not None for run in runs for r in run.all_rows
               for c in cols):
        info("pmu: no hardware counter values (n/a), no pmu plot")
        return
    if compare_skip(runs, "pmu", "all_rows"):
        return
    rows = [r for r in runs[0].rows + runs[0].cg_rows if r["wl"] == "lookup"
            and any(r[c] is not None for c in cols)]
    mode = preferred_mode(rows)
    rows = [r for r in rows if r["mode"] == mode]
    ncpus = pick_most_distinct(rows, "ncpus", "keys", lambda v: v)
    rows = [r for r in rows if r["ncpus"] == ncpus]
    if not rows:
        info("skipping pmu: counter values, but none in the lookup keys "
             "sweep")
        return
    hw = [r for r in rows if r["pmu"] != "sw"]
    if hw:
        rows = hw
        panels = [(c, lab) for c, lab in PMU_COLUMNS
                  if any(r[c] is not None for r in rows)]
    else:
        # pmu=sw: every column holds the software cpu-clock
        panels = [("cycles_per_op", "software cpu-clock ns")]
    names = [n for n in ordered_indexes(runs)
             if any(r["index"] == n for r in rows)]
    all_keys = sorted({r["keys"] for r in rows})
    width = 0.8 / max(1, len(names))
    fig, axes = new_figure(len(panels), panel_w=max(
        5.4, 0.3 * len(all_keys) * (len(names) + 1.5) + 1.5))
    counts, has_null = [], False
    for ax, (col, lab) in zip(axes, panels):
        g = group(rows, lambda r: (r["index"], r["keys"]), col)
        for xi, keys in enumerate(all_keys):
            has_null |= bar_group(ax, g, xi, keys, names, width, sty, counts)
        ax.set_xticks(range(len(all_keys)))
        ax.set_xticklabels([fmt_keys(k) for k in all_keys])
        ax.set_xlim(-0.6, len(all_keys) - 0.4)
        ax.set_ylim(bottom=0)
        ax.set_title(lab, fontsize=12)
        ax.set_xlabel("keys prefilled")
        ax.set_ylabel(f"{lab} per operation")
        ax.set_axisbelow(True)
        ax.grid(True, axis="y", alpha=0.35)
    handles = [mpatches.Patch(color=sty.colors[n], label=n) for n in names]
    handles += sty.legend_handles([], has_null)
    pmu_txt = "/".join(sorted({r["pmu"] for r in rows}))
    # pidx-user --cachegrind: valgrind's model, the storm's difference of two runs
    where = ("cachegrind's cache model, per op of the storm" if pmu_txt == "cachegrind"
             else "kernel only, counted around each CPU's storm")
    finish_figure(fig, runs, "CPU counters per operation, lookup",
                  f"pmu={pmu_txt}, mode {mode}, {ncpus} "
                  f"CPU{'s' if ncpus != 1 else ''}; {where}; bars: median over "
                  + repeats_text(counts).replace("median of ", "")
                  .replace("bars", "whiskers"),
                  handles, os.path.join(out, f"{prefix(runs)}pmu"),
                  written, run_notes=False)


# ---- every index's ratio to idr, one bar per source of rows

# bars of the ratio figure, in order: kind, column, label, colour, hatch
RATIO_KINDS = [
    ("kernel", "ns_per_op", "ns/op", "#9a9a9a", "//"),
    ("kernel-dependent", "ns_per_op", "ns/op", "#5a5a5a", "xx"),
    ("user", "ns_per_op", "ns/op", "#1f77b4", None),
    ("user-dependent", "ns_per_op", "ns/op", "#0b3d66", None),
    (CG, "instructions_per_op", "instructions/op", "#98df8a", None),
    (CG, "cache_misses_per_op", "D1 misses/op", "#ff7f0e", None),
    (CG, "cg_ll_misses", "LL misses/op", "#d62728", None),
]
RATIO_WORKLOADS = ("lookup", "fork")
# an idr count below this per op (LL misses when everything fits in the
# last level) makes no ratio: the bar is left out and the figure says so
RATIO_FLOOR = 0.01
TCG_RATIO_NOTE = ("grey hatched bars: the module in QEMU TCG, EMULATED "
                  "(no cache model): in-kernel behaviour, not hardware times")


def cg_ll(row):
    """cachegrind's LL misses per op, reads and writes (extra's
    cg_ll_misses), else the LL read misses column."""
    for kv in (row.get("extra") or "").split(";"):
        k, _, v = kv.partition("=")
        if k.strip() == "cg_ll_misses":
            try:
                return parse_number(v)
            except ValueError:
                break
    return row.get("llc_load_misses_per_op")


def kernel_source_label(run):
    m = run.meta
    env, accel = m.get("env", "").lower(), m.get("accel", "").lower()
    if run.note() == TCG_NOTE:
        return "kernel, QEMU TCG: EMULATED", True
    if env == "vm":
        return f"kernel, QEMU/{accel.upper() or 'KVM'} guest", False
    if env == "native":
        return "kernel, native", False
    return f"kernel ({env or 'env unknown'})", False


def ratio_sources(runs):
    """[dict(label, emulated, col, rows, colour, hatch)]: every source of
    rows of the runs (a run's kernel rows, user rows, cachegrind rows)."""
    out, seen = [], set()
    # by kind first, so that the bars keep their order whatever the runs
    for kind, col, what, colour, hatch in RATIO_KINDS:
        for run in runs:
            if kind == CG:
                rows = run.cg_rows
                label, emulated = f"cachegrind: {what}", False
            else:
                sub = kind.removesuffix("-dependent")
                dep = sub != kind
                rows = [r for r in (run.dep_rows if dep else run.rows)
                        if r["substrate"] == sub]
                if sub == "kernel":
                    label, emulated = kernel_source_label(run)
                else:
                    label, emulated = "user space, native", False
                if dep:
                    label += ", dependent lookups"
                label += f": {what}"
            if col == "cg_ll_misses":
                rows = [dict(r, cg_ll_misses=cg_ll(r)) for r in rows]
            rows = [r for r in rows if r[col] is not None
                    and r["wl"] in RATIO_WORKLOADS]
            if not rows:
                continue
            if label in seen:
                label += f" [{run.name}]"
            seen.add(label)
            out.append(dict(label=label, emulated=emulated, col=col,
                            rows=rows, colour=colour, hatch=hatch, run=run))
    return out


def ratio_config(rows, wl):
    """The (mode, ncpus) of a source's rows for workload wl: the one with
    the most keys sizes; ties go to fewer CPUs, then ipi."""
    seen = {}
    for r in rows:
        if r["wl"] == wl:
            seen.setdefault((r["mode"], r["ncpus"]), set()).add(r["keys"])
    if not seen:
        return None
    return max(seen, key=lambda c: (len(seen[c]), -c[1], c[0] == "ipi"))


def ratio_of(rows, col, name, keys):
    """(median, min, max, n, value, idr value) of name's ratio to idr at
    keys: per repeat when the repeats pair up (the same run and repeat:
    one boot, one moment), else of the medians; None without idr or below
    RATIO_FLOOR."""
    def pick(n):
        return {(r["run"], r["repeat"]): r[col] for r in rows
                if r["index"] == n and r["keys"] == keys}
    mine, idr = pick(name), pick("idr")
    if not mine or not idr:
        return None
    vm = statistics.median(mine.values())
    vi = statistics.median(idr.values())
    if vi < RATIO_FLOOR:
        return "floor", vm, vi
    pairs = [mine[k] / idr[k] for k in mine if k in idr and idr[k] > 0]
    if pairs:
        s = summary(pairs)
    else:
        s = (vm / vi, vm / vi, vm / vi, 1)
    return s + (vm, vi)


def fmt_ratio(v):
    return f"{v:.0f}" if v >= 99.5 else f"{v:.1f}" if v >= 9.95 else \
        f"{v:.2f}"


def plot_ratios(run, others, sty, out, written):
    import matplotlib.patches as mpatches
    from matplotlib.lines import Line2D
    runs = [run] + others
    sources = ratio_sources(runs)
    if len(sources) < 2:
        info("skipping ratio_to_idr: rows of one source only (it puts "
             "the kernel's, user space's and cachegrind's side by side)")
        return
    # per source and workload, the configuration its bars come from
    cfg = {}
    for si, src in enumerate(sources):
        for wl in RATIO_WORKLOADS:
            c = ratio_config(src["rows"], wl)
            if c:
                cfg[si, wl] = c
    panels = []
    for wl in RATIO_WORKLOADS:
        keys = sorted({r["keys"] for si, src in enumerate(sources)
                       if (si, wl) in cfg for r in src["rows"]
                       if r["wl"] == wl and (r["mode"], r["ncpus"]) ==
                       cfg[si, wl]})
        panels += [(wl, k) for k in keys]
    names = [n for n in ordered_indexes(runs, "all_rows") if n != "idr"
             and any(r["index"] == n for src in sources for r in src["rows"])]
    if not panels or not names or not any(
            r["index"] == "idr" for src in sources for r in src["rows"]):
        info("skipping ratio_to_idr: no idr rows of lookup or fork")
        return
    nsrc = len(sources)
    width = 0.84 / nsrc
    fig, axes = new_figure(len(panels), panel_w=max(
        6.0, 0.16 * len(names) * (nsrc + 1) + 1.6), panel_h=4.3,
        ncols=min(len(panels), 3))
    table, floors, negatives, counts = [], [], [], []
    lo, hi = math.inf, 0.0
    for ax, (wl, keys) in zip(axes, panels):
        for si, src in enumerate(sources):
            c = cfg.get((si, wl))
            if c is None:
                continue
            rows = [r for r in src["rows"] if r["wl"] == wl
                    and (r["mode"], r["ncpus"]) == c]
            for ni, name in enumerate(names):
                res = ratio_of(rows, src["col"], name, keys)
                if res is None:
                    continue
                if res[0] == "floor":
                    fl = (f"{wl} {fmt_keys(keys)}: {src['label']}: "
                          f"idr {res[2]:.3f}")
                    if fl not in floors:
                        floors.append(fl)
                    continue
                med, mn, mx, n, vm, vi = res
                if mn <= 0:
                    # cachegrind's difference of two runs can come out
                    # below zero where little happens per op
                    fl = (f"{wl} {fmt_keys(keys)}: {src['label']}: {name} "
                          f"{vm:.3f} (not a count)")
                    if fl not in negatives:
                        negatives.append(fl)
                    continue
                counts.append(n)
                lo, hi = min(lo, mn), max(hi, mx)
                x = ni - 0.42 + width * (si + 0.5)
                ax.bar(x, med, width * 0.9, color=src["colour"],
                       hatch=src["hatch"], edgecolor="#444444"
                       if src["hatch"] else src["colour"], linewidth=0.5)
                if mx > mn:
                    ax.errorbar(x, med, yerr=[[med - mn], [mx - med]],
                                color="black", capsize=1.8, elinewidth=0.8,
                                linestyle="none")
                ax.text(x, mx * 1.06, fmt_ratio(med), rotation=90,
                        ha="center", va="bottom", fontsize=6.5, clip_on=True)
                table.append((src["label"], src["emulated"], wl, keys, c[0],
                              c[1], name, src["col"], med, mn, mx, n, vm,
                              vi))
        ax.axhline(1.0, color="black", linewidth=1.0)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, rotation=30, ha="right")
        ax.set_xlim(-0.6, len(names) - 0.4)
        ax.set_title(f"{wl} · {fmt_keys(keys)} keys", fontsize=12)
        ax.set_ylabel("ratio to idr (log; 1 = idr)")
        ax.set_axisbelow(True)
    if not table:
        plt_close(fig)
        info("skipping ratio_to_idr: no index has a ratio to idr")
        return
    for ax in axes:
        log_axis(ax)
        ax.set_ylim(min(lo, 1.0) / 1.5, max(hi, 1.0) * 2.6)
        ax.grid(True, axis="y", which="major", alpha=0.35)
    handles = [mpatches.Patch(facecolor=src["colour"], hatch=src["hatch"],
                              edgecolor="#444444" if src["hatch"] else
                              src["colour"], label=src["label"])
               for src in sources]
    handles.append(Line2D([], [], color="black", linewidth=1.0,
                          label="1 = idr"))
    # which configuration each source's bars are
    foot = []
    for si, src in enumerate(sources):
        c = {f"{wl} {m}, {n} CPU{'s' if n != 1 else ''}"
             for (i, wl), (m, n) in cfg.items() if i == si}
        foot.append(f"{src['label']}: {'; '.join(sorted(c))} "
                    f"[{src['run'].name}]")
    if floors:
        foot.append("not drawn, idr's count per op below "
                    f"{RATIO_FLOOR}: " + "; ".join(floors))
    if negatives:
        foot.append("not drawn, a per-op value or ratio <= 0: "
                    + "; ".join(negatives))
    import textwrap
    wrap = max(60, int(fig.get_size_inches()[0] * 12.5))
    foot = [part for line in foot for part in textwrap.wrap(
        line, wrap, subsequent_indent="    ")]
    notes = []
    if any(src["emulated"] for src in sources):
        notes.append(TCG_RATIO_NOTE)
    if any(src["col"] != "ns_per_op" for src in sources):
        notes.append("cachegrind: counts on a model (D1 32 KiB, LL 1 MiB) "
                     "of the whole process, the engine's share (the null "
                     "row) included")
    rep = repeats_text(counts).replace("median of ", "").replace(
        "repeats, bars min-max", "paired repeats, whiskers min-max")
    # where each run's rows ran: a user sweep beside a VM's ran on the host
    head = []
    for i, r in enumerate(runs):
        subs = r.substrates()
        for sub in subs:
            d = (r.view(sub) if len(subs) > 1 else r).describe()
            head.append(("with: " if i else "")
                        + (f"{sub} rows: " if len(subs) > 1 else "") + d)
    finish_figure(fig, runs, "ratio to idr: in the kernel, in user space, "
                  "and in cachegrind's counts",
                  f"bars: median over {rep}; cachegrind: one counted run "
                  "per configuration",
                  handles, os.path.join(out, "ratio_to_idr"), written,
                  run_notes=False, notes=notes, foot=foot, head=head)
    path = os.path.join(out, "ratio_to_idr.csv")
    try:
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["source", "emulated", "workload", "keys", "mode",
                        "ncpus", "index", "metric", "ratio", "ratio_min",
                        "ratio_max", "n", "value", "idr_value"])
            for t in table:
                w.writerow([t[0], "yes" if t[1] else "no"] + list(t[2:8]) +
                           [f"{v:.4g}" for v in t[8:11]] + [t[11]] +
                           [f"{v:.6g}" for v in t[12:]])
    except OSError as e:
        raise PlotError(f"{path}: {e.strerror}")
    written.append(path)


def plt_close(fig):
    import matplotlib.pyplot as plt
    plt.close(fig)


def prefix(runs):
    return ("compare_" if len(runs) > 1 else "") + runs[0].fig_prefix


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


# ------------------------------------------------------------------ main

def main(argv):
    ap = ArgParser(prog=PROG, description=__doc__.split("\n\n")[0],
                   formatter_class=argparse.RawDescriptionHelpFormatter,
                   epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--out", metavar="DIR",
                    help="output directory (default RESULTS_DIR/plots)")
    ap.add_argument("--compare", action="store_true",
                    help="overlay RESULTS_DIR2 (dashed) on RESULTS_DIR")
    ap.add_argument("--with", dest="with_dirs", action="append", default=[],
                    metavar="DIR",
                    help="another results directory whose rows join the "
                    "ratio_to_idr figure only (repeatable)")
    ap.add_argument("dirs", nargs="+", metavar="RESULTS_DIR")
    args = ap.parse_args(argv)
    if len(args.dirs) > 2:
        ap.error("at most two results directories")
    if args.compare and len(args.dirs) != 2:
        ap.error("--compare needs two results directories")
    if len(args.dirs) == 2 and not args.compare:
        ap.error("two results directories need --compare")
    if args.with_dirs and args.compare:
        ap.error("--with draws ratio_to_idr of one directory: not with "
                 "--compare")

    try:
        runs = [Run(d) for d in args.dirs]
        others = [Run(d) for d in args.with_dirs]
        out = args.out or os.path.join(args.dirs[0], "plots")
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            raise PlotError(f"{out}: cannot create: {e.strerror}")
    except PlotError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1

    for run in runs + others:
        if run.meta_missing:
            warn(f"{run.dir}/meta: missing; titles name the directory only")
        if run.failed:
            warn(f"{run.dir}: left out {run.failed} row(s) with "
                 f"verified=FAILED")
        if run.faulted:
            warn(f"{run.dir}: left out {run.faulted} row(s) run under "
                 f"fault injection (faults= in extra)")
        if run.other_dist:
            warn(f"{run.dir}: left out {run.other_dist} row(s) whose lookups "
                 f"another dist than uniform drew")
        bad = sum(1 for r in run.all_rows if (r.get("errors") or 0) > 0)
        if bad:
            warn(f"{run.dir}: {bad} row(s) report correctness errors "
                 f"(errors > 0); they are plotted")

    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({
        "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
        "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 10.5,
        "svg.fonttype": "none", "figure.dpi": 110,
    })
    sty = Styler(runs)
    written = []
    for tag, vruns in figure_sets(runs):
        VIEW["tag"] = tag
        plot_nsop(vruns, sty, out, written)
        plot_throughput(vruns, sty, out, written)
        plot_latency(vruns, sty, out, written)
        plot_memory(vruns, sty, out, written)
        plot_visits(vruns, sty, out, written)
        plot_numa(vruns, sty, out, written)
        plot_pmu(vruns, sty, out, written)
    VIEW["tag"] = ""
    if len(runs) == 1:
        plot_ratios(runs[0], others, sty, out, written)
    for p in written:
        print(p)
    if not written:
        warn("no figure drawn")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # stdout closed early (| head): not an error of the plots
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
