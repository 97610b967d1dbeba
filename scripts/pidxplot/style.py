# SPDX-License-Identifier: GPL-2.0
"""The look every figure shares: one colour and marker per index, the
frame of a figure (title, legend, notes, PNG and SVG), its axes and bars."""

from pidxreport.data import fmt_keys

from .common import NULL, info

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


def keys_axis(axes, all_keys):
    """Log x axis with a tick at each keys size."""
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xticks(all_keys)
        ax.set_xticklabels([fmt_keys(k) for k in all_keys])
        no_minor_x(ax)
        ax.set_xlim(all_keys[0] / 1.6, all_keys[-1] * 1.6)
        ax.set_xlabel("keys prefilled (log scale)")


def errbar(ax, xs, stats, **kw):
    med = [s[0] for s in stats]
    lo = [s[0] - s[1] for s in stats]
    hi = [s[2] - s[0] for s in stats]
    ax.errorbar(xs, med, yerr=[lo, hi], capsize=3, elinewidth=1.1, **kw)


def compare_skip(runs, fig_name, attr):
    """True (after saying so) when --compare: the figures of the extra
    sweeps are drawn for one directory at a time."""
    if len(runs) == 1:
        return False
    if any(getattr(run, attr) for run in runs):
        info(f"skipping {fig_name}: not drawn with --compare (plot each "
             f"results directory alone)")
    return True


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


def plt_close(fig):
    import matplotlib.pyplot as plt
    plt.close(fig)


def prefix(runs):
    return ("compare_" if len(runs) > 1 else "") + runs[0].fig_prefix


def use_agg():
    """matplotlib without a display, in the sizes every figure is laid out
    for; before the first figure."""
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({
        "font.size": 11, "axes.titlesize": 12, "axes.labelsize": 11,
        "xtick.labelsize": 10, "ytick.labelsize": 10, "legend.fontsize": 10.5,
        "svg.fonttype": "none", "figure.dpi": 110,
    })
