# SPDX-License-Identifier: GPL-2.0
"""CPU counters per operation of the lookup keys sweep (cachegrind's
counts for pmu=cachegrind rows)."""

import os

from pidxreport.data import fmt_keys

from .common import (group, info, pick_most_distinct, preferred_mode,
                     repeats_text)
from .style import (bar_group, compare_skip, finish_figure, new_figure,
                    ordered_indexes, prefix)

# CPU counter columns and their labels, in the order drawn
PMU_COLUMNS = [("cycles_per_op", "cycles"),
               ("instructions_per_op", "instructions"),
               ("cache_refs_per_op", "cache references"),
               ("cache_misses_per_op", "cache misses"),
               ("llc_load_misses_per_op", "LLC load misses")]


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
