# SPDX-License-Identifier: GPL-2.0
"""Skewed and recorded traffic: the lookup distributions and the replays.

Three questions, each answered from the rows alone:
  gap      does the skip lists' ratio to idr shrink when lookups are skewed
           (zipf, recent) instead of uniform, and by how much;
  traces   which index is fastest replaying each recorded trace;
  hot set  how much of each index's uniform cost a skewed lookup's hot set
           hides: its cost under skew over its cost under uniform.

Configurations that differ only in `dist` are compared.  They ran at
different moments, so their repeats do not pair: a change between two
configurations is the quotient of their medians, and its bracket the
quotient of their intervals' far ends (skewed low over uniform high, and
skewed high over uniform low), wide on purpose.  "apart" says that bracket
leaves out 1.
"""

from . import targets as tg
from .data import fmt_keys
from .stats import Interval, fmt, fmt_interval, level_caption

SKIP_FAMILY = tg.SKIP_FAMILY
# what a substrate's comparison reads: time, or cachegrind's LL misses
METRIC = {"cachegrind": ("cg_ll_misses", "LL misses/op")}
TIME = ("ns_per_op", "ns/op")


def metric_of(sub):
    return METRIC.get(sub, TIME)


class Change:
    """b's median over a's, bracketed by their intervals' far ends."""

    def __init__(self, a, b):
        self.a, self.b = a, b
        ok = a and b and a.n and b.n and a.median and a.lo and a.hi
        self.median = b.median / a.median if ok else None
        self.lo = b.lo / a.hi if ok else None
        self.hi = b.hi / a.lo if ok else None

    def apart(self):
        return self.median is not None and (self.hi < 1 or self.lo > 1)

    def text(self):
        if self.median is None:
            return "n/a"
        if self.lo == self.hi:
            return fmt(self.median)
        return f"{fmt(self.median)} [{fmt(self.lo)}-{fmt(self.hi)}]"


def _span(lo, hi, unit=""):
    """'a to b', or 'a' when they are one value."""
    if fmt(lo) == fmt(hi):
        return f"{fmt(lo)}{unit}"
    return f"{fmt(lo)}{unit} to {fmt(hi)}{unit}"


def _pct(x):
    return f"{100 * x:.0f}%"


def _strip(settings, *names):
    return tuple(kv for kv in settings if kv[0] not in names)


def _label(cfg, diff):
    d = dict(cfg)
    parts = [fmt_keys(d["keys"])]
    # a replay's ops are the events each CPU ran: they follow from ncpus
    parts += [f"{k}={d[k]}" for k in dict.fromkeys(diff)
              if k not in ("keys", "dist", "ops")]
    return ", ".join(parts)


class Traffic:
    def __init__(self, res):
        self.res = res
        self.indexes = [n for n in res.indexes() if n != "idr"]
        self._lookups()
        self._replays()

    # ------------------------------------------------------------ analysis
    def _per_index(self, rows, metric):
        """{index: Interval of its values}, {index: Interval of its paired
        ratios to idr}"""
        vals = tg.by_index(rows, metric, self.res)
        idr = vals.get("idr", {})
        own = {n: Interval(list(v.values())) for n, v in vals.items()}
        ratio = {n: Interval(tg.paired(v, idr)) for n, v in vals.items()
                 if idr and n != "idr" and tg.paired(v, idr)}
        return own, ratio

    def _lookups(self):
        """self.groups: [(sub, label, {dist: (own, ratio)})] of the lookup
        configurations that ran under uniform and at least one other
        dist, alike in every other setting."""
        by_base = {}
        for r in self.res.rows:
            if r["wl"] != "lookup":
                continue
            base = (r["substrate"], _strip(r["settings"], "dist"))
            by_base.setdefault(base, {}).setdefault(r["dist"], []).append(r)
        bases = [b for b, d in by_base.items()
                 if "uniform" in d and len(d) > 1]
        self.dists = sorted({d for b in bases for d in by_base[b]
                             if d != "uniform"})
        self.groups = []
        for sub in self.res.substrates():
            mine = [b for b in bases if b[0] == sub]
            diff = tg.differing([b[1] for b in mine])
            for b in sorted(mine, key=lambda b: (dict(b[1]).get("shape", ""),
                                                 dict(b[1])["keys"],
                                                 b[1])):
                metric = metric_of(sub)[0]
                per = {d: self._per_index(rows, metric)
                       for d, rows in by_base[b].items()}
                self.groups.append((sub, _label(b[1], diff), per,
                                    dict(b[1])))

    def _replays(self):
        """self.replays: [(sub, trace, label, rows)]"""
        groups = {}
        for r in self.res.rows:
            if r["wl"].startswith("replay") and \
                    r["substrate"] != "cachegrind":
                groups.setdefault((r["substrate"], r["wl"],
                                   r["settings"]), []).append(r)
        self.replays = []
        for sub in self.res.substrates():
            mine = [g for g in groups if g[0] == sub]
            diff = tg.differing([_strip(g[2], "wl") for g in mine])
            for g in sorted(mine, key=lambda g: (g[1], dict(g[2])["ncpus"],
                                                 dict(g[2]).get("shape", ""),
                                                 dict(g[2])["keys"])):
                self.replays.append((sub, g[1][len("replay "):],
                                     _label(g[2], diff + ["ncpus"]),
                                     groups[g]))

    def empty(self):
        return not self.groups and not self.replays

    # --------------------------------------------------------- the gap
    def gap_rows(self):
        """[(sub, label, dist, best uniform, its ratio, best skewed, its
        ratio, Change)]: the skip family's best ratio to idr under
        uniform and under each skewed dist."""
        out = []
        for sub, label, per, _ in self.groups:
            uni = per["uniform"][1]
            fam = [n for n in SKIP_FAMILY if n in uni]
            if not fam:
                continue
            bu = min(fam, key=lambda n: uni[n].median)
            for d in self.dists:
                if d not in per:
                    continue
                skw = per[d][1]
                famd = [n for n in SKIP_FAMILY if n in skw]
                if not famd:
                    continue
                bs = min(famd, key=lambda n: skw[n].median)
                out.append((sub, label, d, bu, uni[bu], bs, skw[bs],
                            Change(uni[bu], skw[bs])))
        return out

    def gap_md(self):
        rows = self.gap_rows()
        if not rows:
            return ""
        ns = [iv.n for r in rows for iv in (r[4], r[6])]
        lines = [f"The best of the skip family ({', '.join(SKIP_FAMILY)}) "
                 "against idr, per configuration: its ratio to idr under "
                 "uniform lookups and under each skewed distribution, and "
                 "the change, skewed over uniform (below 1: the gap "
                 "shrinks). Ratios are medians of paired repeats; the "
                 "change's bracket is the quotient of the two intervals' "
                 "far ends. " + level_caption(ns), "",
                 "| substrate | configuration | dist | best under uniform "
                 "| ratio to idr | best under the dist | ratio to idr | "
                 "change | |",
                 "|---|---|---|---|---|---|---|---|---|"]
        for sub, label, d, bu, iu, bs, isk, ch in rows:
            what = ("shrinks" if ch.hi < 1 else "grows") if ch.apart() \
                else "not apart"
            lines.append(f"| {sub} | {label} | {d} | {bu} "
                         f"| {fmt_interval(iu)} | {bs} | "
                         f"{fmt_interval(isk)} | {ch.text()} | {what} |")
        return "\n".join(lines)

    def gap_answer(self):
        """One sentence per substrate and dist, from gap_rows()."""
        out = []
        rows = self.gap_rows()
        for sub in self.res.substrates():
            for d in self.dists:
                sel = [r for r in rows if r[0] == sub and r[2] == d]
                if not sel:
                    continue
                sh = [r for r in sel if r[7].apart() and r[7].hi < 1]
                gr = [r for r in sel if r[7].apart() and r[7].lo > 1]
                meds = sorted(r[7].median for r in sel)
                text = (f"{sub}, {d}: the skip family's "
                        f"gap to idr shrinks in {len(sh)} of {len(sel)} "
                        f"configurations, grows in {len(gr)}, the rest not "
                        f"apart; the ratio to idr, skewed over uniform: "
                        f"{_span(meds[0], meds[-1])}")
                if sel:
                    lo = min(sel, key=lambda r: r[7].median)
                    text += (f" (lowest at {lo[1]}: {fmt(lo[4].median)}x "
                             f"idr under uniform, {fmt(lo[6].median)}x "
                             f"under {d})")
                out.append(text + ".")
        return out

    # ------------------------------------------------------- the traces
    def trace_rows(self):
        """[(sub, trace, label, fastest, its ratio to idr, runner-up,
        margin Interval, best skip, its ratio)]"""
        out = []
        for sub, trace, label, rows in self.replays:
            own, ratio = self._per_index(rows, "ns_per_op")
            names = [n for n in own if n != "null"]
            if len(names) < 2:
                continue
            ranked = sorted(names, key=lambda n: own[n].median)
            w, second = ranked[0], ranked[1]
            vals = tg.by_index(rows, "ns_per_op", self.res)
            margin = Interval(tg.paired(vals[second], vals[w]))
            fam = [n for n in SKIP_FAMILY if n in ratio]
            bs = min(fam, key=lambda n: ratio[n].median) if fam else None
            out.append((sub, trace, label, w, ratio.get(w), second, margin,
                        bs, ratio.get(bs) if bs else None))
        return out

    def trace_md(self):
        rows = self.trace_rows()
        if not rows:
            return ""
        lines = ["Each trace replayed (`workload=replay`): the fastest "
                 "index by median ns per event (null left out), its ratio "
                 "to idr, the runner-up's paired ratio to it (\"not "
                 "apart\" when its interval reaches 1), and the best of "
                 "the skip family against idr. " +
                 level_caption(iv.n for r in rows for iv in (r[4], r[6])
                               if iv), "",
                 "| substrate | trace | configuration | fastest | ratio to "
                 "idr | runner-up | runner-up / fastest | best skip | "
                 "ratio to idr |", "|---|---|---|---|---|---|---|---|---|"]
        for sub, trace, label, w, rw, second, margin, bs, rb in rows:
            m = fmt_interval(margin)
            if margin.n > 1 and margin.lo <= 1.0:
                m += ", not apart"
            rw_t = "1" if w == "idr" else fmt_interval(rw)
            lines.append(f"| {sub} | {trace} | {label} | "
                         f"{w} | {rw_t} | {second} | {m} | {bs or '-'} | "
                         f"{fmt_interval(rb)} |")
        return "\n".join(lines)

    def trace_answer(self):
        out = []
        rows = self.trace_rows()
        for sub in self.res.substrates():
            for trace in sorted({r[1] for r in rows if r[0] == sub}):
                sel = [r for r in rows if r[0] == sub and r[1] == trace]
                wins = {}
                for r in sel:
                    wins[r[3]] = wins.get(r[3], 0) + 1
                order = sorted(wins, key=lambda n: (-wins[n], n))
                sure = sum(1 for r in sel if r[6].n > 1 and r[6].lo > 1.0)
                skip = sorted(r[8].median for r in sel if r[8])
                text = (f"{sub}, trace {trace}: fastest "
                        + ", ".join(f"{n} in {wins[n]}" for n in order)
                        + f" of {len(sel)} configurations ({sure} apart "
                        f"from the runner-up)")
                if skip:
                    text += (f"; the best skip-family index at "
                             f"{_span(skip[0], skip[-1], 'x')} idr")
                out.append(text + ".")
        return out

    # ------------------------------------------------------ the hot set
    def hot_md(self):
        if not self.groups:
            return ""
        out = ["Each index's cost under a skewed distribution over its "
               "cost under uniform lookups, in the same configuration "
               "otherwise (median over repeats, ns/op natively, LL misses "
               "per op under cachegrind; below 1: what the hot set hides, "
               "1 minus it). null draws the same keys and looks nothing "
               "up: its change is the sampler's own. Each bracket is the "
               "quotient of the two intervals' far ends: " +
               level_caption([iv.n for g in self.groups
                              for d in g[2].values() for iv in
                              d[0].values()], "repeats").rstrip(".") +
               " each."]
        for sub in self.res.substrates():
            mine = [(lab, per) for s, lab, per, _ in self.groups if s == sub]
            if not mine:
                continue
            cols = [(lab, d) for lab, per in mine for d in self.dists
                    if d in per]
            out += ["", f"{sub} "
                    f"({metric_of(sub)[1]}, skewed over uniform):", "",
                    "| index | " + " | ".join(f"{lab}, {d}" for lab, d in
                                               cols) + " |",
                    "|---|" + "---|" * len(cols)]
            for name in ["idr"] + self.indexes:
                cells = []
                for lab, d in cols:
                    per = dict(mine)[lab]
                    a = per["uniform"][0].get(name)
                    b = per[d][0].get(name)
                    cells.append(Change(a, b).text() if a and b else "")
                if any(cells):
                    out.append(f"| {name} | " + " | ".join(cells) + " |")
        return "\n".join(out)

    def hot_answer(self):
        """Per substrate and dist, the configuration most like a real
        machine's (an aged set, the most keys)."""
        out = []
        for sub in self.res.substrates():
            for d in self.dists:
                cands = []
                for s, lab, per, cfg in self.groups:
                    if s != sub or d not in per:
                        continue
                    ch = {n: Change(per["uniform"][0][n], per[d][0][n])
                          for n in per[d][0] if n in per["uniform"][0]
                          and n != "null"}
                    # a count per op below zero is no count: cachegrind's
                    # per-op numbers are the difference of two counted
                    # runs, which background work (a resize, RCU) can tip
                    # when the true count is near zero
                    below = sorted(n for n, c in ch.items()
                                   if c.median is not None and c.median < 0)
                    ch = {n: c for n, c in ch.items() if c.median and
                          c.median > 0}
                    if ch:
                        cands.append(((cfg.get("shape") == "aged",
                                       cfg["keys"]), lab, ch, below))
                if not cands:
                    continue
                _, lab, ch, below = max(cands, key=lambda c: c[0])
                lo = min(ch, key=lambda n: ch[n].median)
                hi = max(ch, key=lambda n: ch[n].median)
                a, b = ch[lo].median, ch[hi].median
                text = (f"{sub}, {d}, {lab}: an index's "
                        f"{metric_of(sub)[1]} is {fmt(a)}x ({lo}) to "
                        f"{fmt(b)}x ({hi}) its uniform one")
                if b < 1:
                    text += f": a hot set hides {_pct(1 - b)} to {_pct(1 - a)}"
                elif a < 1:
                    text += f": a hot set hides up to {_pct(1 - a)}"
                else:
                    text += ": the hot set hides nothing"
                if below:
                    text += (f" ({', '.join(below)} left out: its count "
                             "under the skew came out below zero, the "
                             "difference of two counted runs that "
                             "background work tipped)")
                out.append(text + ".")
        return out

    # ------------------------------------------------------------ whole
    def answers(self):
        return self.gap_answer() + self.trace_answer() + self.hot_answer()

    def markdown(self):
        if self.empty():
            return ""
        parts = ["## Skewed and recorded traffic", "",
                 "Lookups drawn from a distribution other than uniform "
                 "(`dist`), and replays of recorded fork/exit traces "
                 "(results/traces/; docs/traces.md). Under QEMU TCG a "
                 "cache miss costs what a hit costs: a hot set hides no "
                 "miss there, so the cache questions are judged natively "
                 "and under cachegrind.", "",
                 "Answers, from the tables below:", ""]
        parts += [f"- {a}" for a in self.answers()]
        parts.append("")
        gap = self.gap_md()
        if gap:
            parts += ["### The skip family's gap to idr, uniform against "
                      "skewed", "", gap, ""]
        tr = self.trace_md()
        if tr:
            parts += ["### Recorded traces", "", tr, ""]
        hot = self.hot_md()
        if hot:
            parts += ["### What a hot set hides", "", hot, ""]
        return "\n".join(parts)
