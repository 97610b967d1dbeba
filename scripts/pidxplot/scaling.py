# SPDX-License-Identifier: GPL-2.0
"""The sweeps: ns/op against keys, aggregate throughput against CPUs."""

import math
import os

from pidxreport.data import fmt_keys

from .common import (NULL, group, info, keys_pref, pick_most_distinct,
                     preferred_mode, repeats_text, workloads_of)
from .style import (MODE_MARKERS, errbar, finish_figure, log_axis,
                    new_figure, no_minor_x, ordered_indexes, prefix)


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
