# SPDX-License-Identifier: GPL-2.0
"""REPORT.md, the terminal's headline table and the README's blocks.

Everything here is a function of the results directory and the targets
file alone: no clock, no host, no absolute path, so that the same data
always gives the same text and `make check` can regenerate a committed
report to see whether it drifted.
"""

import os

from . import answer, targets as tg
from .data import SUBSTRATE_TEXT, fmt_keys, workload_key
from .glossary import FROM_RESULTS_DIR, link_terms
from .stats import (INCONCLUSIVE_ONE, Interval, fmt, fmt_interval,
                    level_caption)
from .traffic import Traffic
from .compare import Comparisons, metric_of

CAVEAT = {
    "kernel-tcg": "QEMU TCG emulates the CPU: absolute times are not "
                  "hardware times, and a cache miss costs what a hit "
                  "costs, so cache effects are hidden. Its ratios describe "
                  "in-kernel behaviour (instruction-bound costs), not how "
                  "fast a cache-bound index is.",
    "kernel-kvm": "A QEMU/KVM guest: times include virtualisation.",
    "kernel-native": "The module in the host's own kernel: hardware times.",
    "user-native": "The index files and the kernel's lib/ built natively "
                   "in user space (user/pidx-user): cache-true times, but "
                   "user space's (no IRQ-off sections, liburcu for RCU).",
    "cachegrind": "Counted under valgrind's cachegrind (D1 32 KiB 8-way, "
                  "LL 1 MiB 16-way): deterministic instruction and miss "
                  "counts of a model cache, not timed.",
}
def headline_config(rows):
    """The (mode, ncpus) of a substrate's rows of one workload: the one
    run at the most keys sizes (the keys sweep); ties go to fewer CPUs,
    then to ipi."""
    seen = {}
    for r in rows:
        seen.setdefault((r.get("mode", ""), r["ncpus"]), set()).add(r["keys"])
    if not seen:
        return None
    return max(seen, key=lambda c: (len(seen[c]), -c[1], c[0] == "ipi"))


class Cell:
    """An index's ratio to idr in one configuration, its own value (as
    idr_value, read for idr's cell) and its values by pair key."""

    def __init__(self, iv, idr_value, n_idr, values=None):
        self.iv = iv
        self.idr_value = idr_value
        self.n_idr = n_idr
        self.values = values or {}


class Winner:
    """The fastest index of a configuration by the ratio column's own
    statistic, the median of its paired ratios to idr, and the runner-up:
    margin, the runner-up's median ratio over the fastest's, is >= 1 by
    construction; direct pairs their repeats with each other, a
    comparison of its own, which an order by ratios to idr need not
    agree with (a ratio is not transitive over medians)."""

    def __init__(self, key, sub, cells):
        self.key, self.sub = key, sub
        names = sorted((n for n in cells if n != "null" and cells[n].iv and
                        cells[n].iv.n), key=lambda n: (cells[n].iv.median, n))
        self.ok = len(names) >= 2
        if not self.ok:
            return
        self.fastest, self.second = names[0], names[1]
        self.ratio, self.ratio2 = cells[names[0]].iv, cells[names[1]].iv
        self.margin = self.ratio2.median / self.ratio.median \
            if self.ratio.median else float("nan")
        self.direct = Interval(tg.paired(cells[names[1]].values,
                                         cells[names[0]].values))

    def apart(self):
        """'apart' when the direct pairing's interval lies above 1."""
        d = self.direct
        if d.n < 2:
            return "not apart (one value)"
        if d.lo > 1:
            return "apart"
        if d.hi < 1:
            return "not apart (paired directly, the runner-up is faster)"
        return "not apart"


class Report(Comparisons):
    def __init__(self, res, targets_doc):
        self.res = res
        self.doc = targets_doc
        # set by report.py: the directory's own targets.toml was used, and
        # (name, Report) of the reference before this one
        self.own_targets = False
        self.previous = None
        # the System view (system.py), of this run or of the one it names
        self.system = None
        # docs/glossary.md from the directory of the document written
        self.glossary = FROM_RESULTS_DIR
        self.subs = res.substrates()
        self.indexes = res.indexes()
        self._headline()
        self.traffic = Traffic(res)

    # ------------------------------------------------------------ analysis
    def _headline(self):
        """self.head[(wl, keys, extra)][sub] = (config label, {index: Cell})"""
        self.head = {}
        self.head_cfg = {}
        for sub in self.subs:
            rows = [r for r in self.res.rows if r["substrate"] == sub]
            metric = metric_of(sub)[0]
            for wl in sorted({r["wl"] for r in rows}, key=workload_key):
                wrows = [r for r in rows if r["wl"] == wl]
                mode, ncpus = headline_config(wrows)
                self.head_cfg[(sub, wl)] = (mode, ncpus)
                wrows = [r for r in wrows if r.get("mode", "") == mode
                         and r["ncpus"] == ncpus]
                groups = {}
                for r in wrows:
                    groups.setdefault(r["settings"], []).append(r)
                by_keys = {}
                for cfg in groups:
                    by_keys.setdefault(dict(cfg)["keys"], []).append(cfg)
                for keys, cfgs in by_keys.items():
                    diff = [d for d in tg.differing(cfgs)]
                    for cfg in cfgs:
                        extra = tg.label(cfg, diff)
                        cells = self._cells(groups[cfg], metric)
                        self.head.setdefault((wl, keys, extra), {})[sub] = \
                            cells

    def _cells(self, rows, metric):
        vals = tg.by_index(rows, metric, self.res)
        idr = vals.get("idr", {})
        out = {}
        for name, v in vals.items():
            iv = Interval(tg.paired(v, idr)) if idr else None
            out[name] = Cell(iv, Interval(list(v.values())), len(idr), v)
        return out

    def keys_order(self):
        return sorted(self.head, key=lambda k: (workload_key(k[0]), k[2],
                                                k[1]))

    # ------------------------------------------------------------- pieces
    def environment(self):
        m = self.res.meta
        lines = ["| | |", "|---|---|"]

        def row(k, v):
            if v:
                lines.append(f"| {k} | {v} |")
        row("pidx version", m.get("module_version"))
        row("commit", m.get("commit"))
        row("date (UTC)", m.get("date"))
        row("host CPU", m.get("host_cpu_model") or m.get("cpu_model"))
        row("host CPUs", m.get("host_cpus"))
        row("host kernel", m.get("host_kernel"))
        if any(s.startswith("kernel") for s in self.subs):
            row("module's kernel", m.get("kernel"))
            if m.get("env") == "vm":
                row("guest", f"{m.get('vcpus', '?')} vCPUs, "
                    f"{m.get('mem_mb', '?')} MB, accel "
                    f"{m.get('accel', '?')}")
        row("seed", m.get("seed"))
        row("command", m.get("command"))
        for sub in self.subs:
            row(f"substrate {sub}", SUBSTRATE_TEXT[sub])
        parts = m.get("parts", "")
        for p in parts.split(","):
            if not p:
                continue
            pre = "" if p == "kernel" or m.get("env") == "user" and \
                p == "user" else f"{p}_"
            if p == "kernel" or (p == "user" and m.get("env") == "user") \
                    or (p == "cachegrind" and m.get("env") == "user" and
                        "user" not in parts.split(",")):
                pre = ""
            sweep = [f"keys {m.get(pre + 'keys', '?')}",
                     f"workloads {m.get(pre + 'workloads', '?')}",
                     f"CPUs {m.get(pre + 'cpus', '?')}",
                     f"modes {m.get(pre + 'modes', '?')}",
                     f"ops {m.get(pre + 'ops', '?')}",
                     f"repeats {m.get(pre + 'repeat', '?')}"]
            if p == "cachegrind":
                sweep = sweep[:2] + sweep[4:]
            row(f"{p} sweep", "; ".join(sweep) +
                f"; {m.get(p + '_duration_s', '?')} s")
        return "\n".join(lines)

    def caveats(self):
        return "\n".join(f"- **{s}**: {CAVEAT[s]}"
                         for s in self.subs)

    def repeats_note(self):
        return ("Ratios are medians of paired ratios: each repeat of an "
                "index over idr's repeat from the same round, so that what "
                "the host did to both cancels. The brackets are the "
                "interval of that median from order statistics; its level "
                "follows from the number of repeats, and each table "
                "states it.")

    def headline_caption(self, wl):
        """The level of a workload's table, from the cells it holds."""
        ns, counted = [], False
        for key, subs in self.head.items():
            for sub, cells in subs.items():
                if key[0] != wl:
                    continue
                if sub in tg.DETERMINISTIC:
                    counted = True
                    continue
                ns += [c.iv.n for n, c in cells.items()
                       if c.iv and n != "idr"]
        text = level_caption(ns) if ns else ""
        if counted:
            text += (" " if text else "") + ("cachegrind's columns: one "
                                             "count each, no interval; "
                                             "the count decides.")
        return text

    def headline_md(self):
        cols = [s for s in self.subs]
        out = []
        for wl in sorted({k[0] for k in self.head}, key=workload_key):
            hdr = ["keys", "index"]
            for s in cols:
                cfg = self.head_cfg.get((s, wl))
                if not cfg:
                    continue
                what = metric_of(s)[1]
                hdr.append(f"{s} ({what}; {cfg[0]}, "
                           f"{cfg[1]} CPU{'s' if cfg[1] > 1 else ''})")
            subs = [s for s in cols if (s, wl) in self.head_cfg]
            out.append(f"#### {wl}\n")
            out.append(self.headline_caption(wl) + "\n")
            out.append("| " + " | ".join(hdr) + " |")
            out.append("|" + "---|" * len(hdr))
            for key in self.keys_order():
                if key[0] != wl:
                    continue
                klab = self._keys_label(key)
                for name in self.indexes:
                    cells = []
                    seen = False
                    for s in subs:
                        c = self.head[key].get(s, {}).get(name)
                        if c is None:
                            cells.append("")
                            continue
                        seen = True
                        if name == "idr":
                            cells.append(f"1 = {fmt(c.idr_value.median)} "
                                         f"{metric_of(s)[1]}")
                        else:
                            cells.append(fmt_interval(c.iv))
                    if seen:
                        out.append(f"| {klab} | {name} | " +
                                   " | ".join(cells) + " |")
            out.append("")
        return "\n".join(out)

    def winners(self):
        """[Winner] of each headline configuration and timed substrate."""
        out = []
        for key in self.keys_order():
            for sub in self.subs:
                cells = self.head[key].get(sub)
                if sub == "cachegrind" or not cells or "idr" not in cells:
                    continue
                w = Winner(key, sub, cells)
                if w.ok:
                    out.append(w)
        return out

    def winners_md(self):
        ws = self.winners()
        if not ws:
            return "No configuration with two indexes and idr."
        ivs = [w.ratio for w in ws] + [w.ratio2 for w in ws] + \
            [w.direct for w in ws]
        lines = [level_caption(iv.n for iv in ivs), "",
                 "| workload | keys | substrate | fastest | ratio to idr "
                 "| runner-up | its ratio to idr | runner-up / fastest "
                 "| paired directly: runner-up / fastest | |",
                 "|---|---|---|---|---|---|---|---|---|---|"]
        for w in ws:
            lines.append(f"| {w.key[0]} | {self._keys_label(w.key)} | "
                         f"{w.sub} | {w.fastest} | {fmt_interval(w.ratio)} "
                         f"| {w.second} | {fmt_interval(w.ratio2)} | "
                         f"{fmt(w.margin)} | {fmt_interval(w.direct)} | "
                         f"{w.apart()} |")
        return "\n".join(lines)

    def verdicts(self):
        out = []
        for t in self.doc.get("target", []):
            out.extend(tg.judge(t, self.res))
        return out

    def targets_caption(self, verdicts):
        """The level of the targets' intervals, and the rules of the
        verdicts, where the report uses them."""
        ns = [v.iv.n for v in verdicts if v.iv and v.iv.n and
              v.substrate not in tg.DETERMINISTIC]
        text = level_caption(ns) if ns else ""
        if any(v.substrate in tg.DETERMINISTIC for v in verdicts):
            text += " cachegrind's counts are deterministic: the count " \
                "decides."
        return text.strip()

    @staticmethod
    def verdict_rules():
        return ("Verdicts: **met** or **missed** when the whole interval is "
                "on one side of the threshold, **inconclusive** when it "
                f"crosses it; {INCONCLUSIVE_ONE}. **not measured** when the "
                "run has no rows at the target's settings. A target over "
                "several subjects judges the one with the best median.")

    def retired_md(self):
        """The retired targets, each with why, and its evidence computed
        from the rows."""
        out = []
        for t in self.doc.get("retired_target", []):
            text = f"- **{t['name']}** (retired). {t['text'].strip()}"
            ev = t.get("evidence")
            if ev:
                sub, got = tg.judge_evidence(ev, self.res)
                if got:
                    text += (f" Evidence, {ev['what']} ({sub}, "
                             f"`{ev['metric']}`, paired by repeat): " +
                             "; ".join(f"{fmt_interval(iv)} at {lab}" +
                                       ("" if len(ev["subjects"]) < 2 else
                                        f" ({s})") for lab, s, iv in got) +
                             ". " + level_caption(iv.n for _, _, iv in got))
                else:
                    text += (f" Evidence, {ev['what']}: not measured in "
                             "this run (no rows at its settings).")
            out.append(text)
        return "\n".join(out)

    def targets_md(self):
        verdicts = self.verdicts()
        lines = [self.targets_caption(verdicts), "",
                 "| target | at | substrate | judged | value [interval] | "
                 "threshold | level | verdict |",
                 "|---|---|---|---|---|---|---|---|"]
        for v in verdicts:
            t = v.target
            where = ", ".join(f"{k}={val}" for k, val in t["where"].items())
            if t["kind"] == "gain":
                where += f", ncpus {t['from_ncpus']}->{t['to_ncpus']}"
            if v.setting:
                where += f"; {v.setting}"
            judged = f"{v.subject} / {t['baseline']}" if v.subject else \
                v.why
            if t["kind"] == "gain" and v.subject:
                judged = f"gain of {v.subject} / gain of {t['baseline']}"
            level = v.iv.level_text() if v.iv and v.iv.n else ""
            if v.substrate in tg.DETERMINISTIC:
                level = "counted"
            lines.append(f"| {t['name']} | {where} | "
                         f"{v.substrate or '-'} | "
                         f"{judged} | {fmt_interval(v.iv)} | "
                         f"{t['op']} {fmt(t['threshold'])} | {level} | "
                         f"**{v.verdict}** |")
        return "\n".join(lines)

    def memory_md(self):
        """Bytes per key after a lookup storm: a table per substrate and
        live-set shape, a column per keys size and its pid_max."""
        out = ["Bytes per key the index held after a lookup storm (median "
               "over repeats; no intervals), by substrate and live set."]
        for sub in [s for s in self.subs if s != "cachegrind"]:
            rows = [r for r in self.res.rows if r["substrate"] == sub
                    and r["wl"] == "lookup"]
            for shape in sorted({r.get("shape") or "dense" for r in rows}):
                srows = [r for r in rows if (r.get("shape") or "dense") ==
                         shape]
                cols = sorted({(r["keys"], r.get("pid_max", "")) for r in
                               srows}, key=lambda c: (c[0], str(c[1])))
                if not cols:
                    continue
                out += ["", f"{sub}, {shape} keys:", "",
                        "| index | " + " | ".join(
                            f"{fmt_keys(k)} (pid_max {p})" for k, p in cols)
                        + " |", "|---|" + "---|" * len(cols)]
                for name in self.indexes:
                    if name == "null":
                        continue
                    cells = []
                    for k, p in cols:
                        v = [self.res.value(r, "bytes_per_key") for r in srows
                             if r["index"] == name and r["keys"] == k and
                             r.get("pid_max", "") == p]
                        v = [x for x in v if x is not None]
                        cells.append(fmt(Interval(v).median) if v else "")
                    out.append(f"| {name} | " + " | ".join(cells) + " |")
        return "\n".join(out) if len(out) > 1 else ""

    def cachegrind_md(self):
        rows = [r for r in self.res.rows if r["substrate"] == "cachegrind"]
        if not rows:
            return ""
        lines = ["Per operation, one CPU; in brackets the ratio to idr. "
                 "Counted, not timed: one count each, no interval (a "
                 "seed's counts do not vary).", "",
                 "| workload | keys | index | instructions | D1 misses | "
                 "LL misses |", "|---|---|---|---|---|---|"]
        cols = ("instructions_per_op", "cache_misses_per_op",
                "cg_ll_misses")
        for wl in sorted({r["wl"] for r in rows}, key=workload_key):
            for k in sorted({r["keys"] for r in rows if r["wl"] == wl}):
                sel = [r for r in rows if r["wl"] == wl and r["keys"] == k]
                med = {}
                for name in self.indexes:
                    for c in cols:
                        v = [self.res.value(r, c) for r in sel
                             if r["index"] == name]
                        v = [x for x in v if x is not None]
                        if v:
                            med[name, c] = Interval(v).median
                for name in self.indexes:
                    if (name, cols[0]) not in med:
                        continue
                    cells = []
                    for c in cols:
                        v, b = med.get((name, c)), med.get(("idr", c))
                        s = fmt(v)
                        if name != "idr" and v is not None and b:
                            s += f" ({fmt(v / b)}x)"
                        cells.append(s)
                    lines.append(f"| {wl} | {fmt_keys(k)} | {name} | " +
                                 " | ".join(cells) + " |")
        return "\n".join(lines)

    def scaling_md(self):
        """Mops/s at each CPU count of the CPU sweep, lookup and fork."""
        lines = []
        for sub in self.subs:
            if sub == "cachegrind":
                continue
            rows = [r for r in self.res.rows if r["substrate"] == sub
                    and r["wl"] in ("lookup", "fork")]
            cfgs = sorted({(r["wl"], r["keys"], r.get("mode", ""),
                            r["ncpus"]) for r in rows})
            sweep = {}
            for wl, k, mode, n in cfgs:
                sweep.setdefault((wl, k, mode), set()).add(n)
            sweep = {c: sorted(n) for c, n in sweep.items() if len(n) > 1}
            for (wl, k, mode), ns in sorted(sweep.items()):
                if not lines:
                    lines = ["Aggregate Mops/s (median over repeats; "
                             "no intervals) at each CPU count of the CPU "
                             "sweep.", "",
                             "| substrate | workload | keys | mode | index | "
                             "CPUs: Mops/s |", "|---|---|---|---|---|---|"]
                for name in self.indexes:
                    vals = []
                    for n in ns:
                        v = [self.res.value(r, "mops") for r in rows
                             if r["index"] == name and r["wl"] == wl
                             and r["keys"] == k and r.get("mode") == mode
                             and r["ncpus"] == n]
                        v = [x for x in v if x is not None]
                        if v:
                            vals.append(f"{n}: {fmt(Interval(v).median)}")
                    if vals:
                        lines.append(f"| {sub} | {wl} | "
                                     f"{fmt_keys(k)} | {mode} | {name} | "
                                     + ", ".join(vals) + " |")
        return "\n".join(lines)

    def figures_md(self):
        d = os.path.join(self.res.dir, "plots")
        if not os.path.isdir(d):
            return "No figures: plots/ is missing (scripts/plot.py DIR)."
        names = sorted(f for f in os.listdir(d) if f.endswith(".png"))
        return "\n\n".join(f"![{n[:-4]}](plots/{n})" for n in names)

    def left_out_md(self):
        lo = {k: v for k, v in self.res.left_out.items() if v}
        if not lo:
            return "Every row of results.csv is in the tables above."
        s = "; ".join(f"{k}: {v}" for k, v in lo.items())
        out = f"Rows left out of the comparison: {s}."
        if any("slow" in k for k in lo):
            out += (" A slow row's storm verified but ran past the "
                    "module's time bound: its time is no comparison.")
        if self.res.failed:
            out += " Rows that failed verification: " + ", ".join(
                sorted({f"{r['index']} {r['wl']} {fmt_keys(r['keys'])}"
                        for r in self.res.failed})) + "."
        if getattr(self.res, "slow", None):
            out += " Rows that ran past a time bound: " + "; ".join(
                sorted({f"{r['index']} {r['wl']} {fmt_keys(r['keys'])}: "
                        f"{r['slow_why']}" for r in self.res.slow})) + "."
        return out

    # -------------------------------------------------------------- whole
    def markdown(self, name):
        m = self.res.meta
        sentences = answer.sentences(self)
        parts = [
            f"# pidx report: {name}",
            "",
            " ".join(sentences),
            "",
            "Generated by `scripts/report.py` from `results.csv` and `meta` "
            "in this directory and "
            + ("`targets.toml` in this directory (the targets it was judged "
               "by when it was the reference)" if self.own_targets else
               "`results/targets.toml`") +
            "; do not edit by "
            "hand (`make check` regenerates it and fails on a difference).",
            "",
            "## Run",
            "",
            self.environment(),
            "",
            "What each substrate can say:",
            "",
            self.caveats(),
            "",
            "## Targets",
            "",
            self.doc.get("retired", "").strip(),
            "",
            self.retired_md(),
            "",
            self.targets_md(),
            "",
            self.verdict_rules(),
            "",
            self.previous_md(),
            "## Which index is fastest, by median paired ratio to idr",
            "",
            "At each workload and keys size of the headline (null left "
            "out), the indexes ranked by the statistic the ratio column "
            "shows: the median of each index's paired ratios to idr. "
            "\"runner-up / fastest\" is the runner-up's median ratio over "
            "the fastest's, at least 1 by this order. The two indexes "
            "paired directly, repeat by repeat, are a comparison of their "
            "own: \"apart\" when that interval lies above 1, \"not apart\" "
            "otherwise (a median of ratios need not follow the order of "
            "the medians to idr).",
            "",
            self.winners_md(),
            "",
            "## Every index against idr",
            "",
            self.repeats_note(),
            "",
            self.headline_md(),
            self.moved_md(),
            self.levels_md(),
            "## Memory",
            "",
            self.memory_md(),
            "",
        ]
        cg = self.cachegrind_md()
        if cg:
            parts += ["## cachegrind counts", "", cg, ""]
        sc = self.scaling_md()
        if sc:
            parts += ["## CPU sweep", "", sc, ""]
        parts += [self.traffic.markdown(), ""]
        if self.system:
            parts += [self.system.markdown(), ""]
        parts += ["## Figures", "", self.figures_md(), "",
                  "## Rows", "", self.left_out_md(), ""]
        del m
        text = "\n".join(parts)
        while "\n\n\n" in text:
            text = text.replace("\n\n\n", "\n\n")
        return link_terms(text, self.glossary)

    def _from_line(self, dir_label):
        m = self.res.meta
        return (f"From `{dir_label}` (pidx "
                f"{m.get('module_version', '?')}, "
                f"{(m.get('date') or '?')[:10]}, "
                f"{m.get('host_cpus', '?')}-CPU "
                f"{m.get('host_cpu_model') or m.get('cpu_model', '?')}); "
                f"every table and figure: [REPORT.md]"
                f"({dir_label}/REPORT.md).")

    def traffic_block(self, dir_label):
        """A README block of the traffic answers alone."""
        answers = self.traffic.answers()
        return "\n".join([self._from_line(dir_label), ""] +
                         ([f"- {x}" for x in answers] or
                          ["No lookups under a skewed dist, no replay."]))

    def target_rows(self):
        """The targets' short table: [(target, substrate, value
        [interval], threshold, verdict)], and its caption."""
        verdicts = self.verdicts()
        rows = [(v.target["name"] + (f" ({v.setting})" if v.setting
                                     else ""), v.substrate or "-",
                 fmt_interval(v.iv),
                 f"{v.target['op']} {fmt(v.target['threshold'])}",
                 v.verdict) for v in verdicts]
        return rows, self.targets_caption(verdicts)

    def fastest_lines(self):
        """The fastest index of lookup and fork on the cache-true
        substrates, a line per workload and configuration."""
        groups = {}
        for w in self.winners():
            if w.key[0] in ("lookup", "fork") and \
                    w.sub not in ("kernel-tcg", "kernel-kvm"):
                groups.setdefault((w.key[0], w.key[2], w.sub), []).append(
                    f"{fmt_keys(w.key[1])} {w.fastest} {fmt(w.ratio.median)}x")
        return [f"{wl}{', ' + extra if extra else ''} ({sub}): " +
                "; ".join(v) for (wl, extra, sub), v in groups.items()]

    def summary_block(self, dir_label, full=False, glossary=None):
        """The block the README carries: the answer in sentences, the
        targets and the link to the report; @full (results/README.md's)
        adds the fastest index of each configuration, the ratios before
        and now, and the traffic's answers."""
        rows, caption = self.target_rows()
        lines = [" ".join(answer.sentences(self)), "", caption, "",
                 "| target | on | value [interval] | threshold | verdict |",
                 "|---|---|---|---|---|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        lines.append("")
        if full:
            fast = self.fastest_lines()
            if fast:
                lines += ["Fastest index (by median paired ratio to idr, "
                          "the ratio shown):", ""]
                lines += [f"- {x}" for x in fast] + [""]
            if self.system and self.system.sentence():
                lines += [f"System view ([{self.system.name}]"
                          f"({self.system.link(dir_label)})): "
                          + self.system.sentence(), ""]
            moved = self.moved_lines()
            if moved:
                lines += [f"Median ratio to idr in `{self.previous[0]}`"
                          " → here, lookup and fork at the largest keys "
                          "size both measured, on the cache-true "
                          "substrates:", ""]
                lines += [f"- {x}" for x in moved] + [""]
            answers = self.traffic.answers()
            if answers:
                lines += ["Skewed and recorded traffic:", ""]
                lines += [f"- {x}" for x in answers] + [""]
        lines.append(self._from_line(dir_label))
        return link_terms("\n".join(lines), glossary or self.glossary)
