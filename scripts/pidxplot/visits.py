# SPDX-License-Identifier: GPL-2.0
"""Index nodes and cache lines per operation, from the trace_visits=1
rows."""

import os

from pidxreport.data import workload_key

from .common import (NULL, group, info, pick_most_distinct, preferred_mode,
                     repeats_text)
from .style import (compare_skip, errbar, finish_figure, keys_axis,
                    new_figure, ordered_indexes, prefix)


def plot_visits(runs, sty, out, written):
    from matplotlib.lines import Line2D
    if compare_skip(runs, "visits", "visit_rows"):
        return
    rows = [r for r in runs[0].visit_rows if r["index"] != NULL
            and r["visits_per_op"] is not None]
    if not rows:
        info("skipping visits: no trace_visits=1 rows")
        return
    wls = sorted({r["wl"] for r in rows}, key=workload_key)
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
