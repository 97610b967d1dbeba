# SPDX-License-Identifier: GPL-2.0
"""Bytes per key each index held."""

import os

from pidxreport.data import fmt_keys, workload_key

from .common import NULL, group, info, repeats_text
from .style import (errbar, finish_figure, keys_axis, new_figure,
                    ordered_indexes, prefix)


def memory_rows(run):
    rows = [r for r in run.rows if r["index"] != NULL
            and r["bytes_per_key"] is not None and r["bytes_per_key"] > 0]
    wls = {}
    for r in rows:
        wls.setdefault(r["wl"], set()).add(r["keys"])
    if not wls:
        return None, []
    wl = "lookup" if "lookup" in wls else max(
        wls, key=lambda w: (len(wls[w]), -workload_key(w)[0]))
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
        keys_axis([ax], all_keys)
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
