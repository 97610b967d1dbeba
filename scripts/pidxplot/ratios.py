# SPDX-License-Identifier: GPL-2.0
"""Every index's ratio to idr, one bar per source of rows (the kernel's,
EMULATED under QEMU TCG; user space's; cachegrind's counts), and
ratio_to_idr.csv."""

import csv
import math
import os
import statistics

from pidxreport.data import fmt_keys

from .common import CG, TCG_NOTE, PlotError, info, repeats_text, summary
from .rows import parse_number
from .style import (finish_figure, log_axis, new_figure, ordered_indexes,
                    plt_close)

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
