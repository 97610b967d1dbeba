# SPDX-License-Identifier: GPL-2.0
"""ns/op by memory placement, from the rows with a node other than any."""

import os

from pidxreport.data import fmt_keys, workload_key

from .common import (NULL, NUMA_TCG_NOTE, TCG_NOTE, group, info,
                     repeats_text)
from .style import (bar_group, compare_skip, finish_figure, new_figure,
                    ordered_indexes, prefix)


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
                    key=lambda p: (workload_key(p[0]), p[1]))
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
