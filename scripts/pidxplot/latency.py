# SPDX-License-Identifier: GPL-2.0
"""p50 and p99 of the sampled single operations, as bars."""

import os

from pidxreport.data import fmt_keys

from .common import (NULL, group, info, keys_pref, pick_most_distinct,
                     preferred_mode, repeats_text, workloads_of)
from .style import (finish_figure, log_axis, new_figure, ordered_indexes,
                    prefix)


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
