# SPDX-License-Identifier: GPL-2.0
"""REPORT.md, the terminal's headline table and the README's blocks.

Everything here is a function of the results directory and the targets
file alone: no clock, no host, no absolute path, so that the same data
always gives the same text and `make check` can regenerate a committed
report to see whether it drifted.
"""

import os
import re

from . import targets as tg
from .data import (SUBSTRATE_SHORT, SUBSTRATE_TEXT, fmt_keys, workload_key)
from .stats import Interval, fmt, fmt_interval
from .traffic import Traffic

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
# the terminal table's column names, five characters at most
ABBR = {"idr_onelock": "idr1", "skiplist": "skip", "rbskip": "rbskp",
        "ccskip": "ccskp", "lazyskip": "lazy", "lfradix": "lfrdx",
        "lfradix_pc": "lf_pc"}
# what the headline shows of each substrate
HEAD_METRIC = {"cachegrind": ("cache_misses_per_op", "D1 misses/op")}
TIME_METRIC = ("ns_per_op", "ns/op")


def metric_of(sub):
    return HEAD_METRIC.get(sub, TIME_METRIC)


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
    """An index's ratio to idr in one configuration, and idr's value."""

    def __init__(self, iv, idr_value, n_idr):
        self.iv = iv
        self.idr_value = idr_value
        self.n_idr = n_idr


class Report:
    def __init__(self, res, targets_doc):
        self.res = res
        self.doc = targets_doc
        # set by report.py: the directory's own targets.toml was used, and
        # (name, Report) of the reference before this one
        self.own_targets = False
        self.previous = None
        # the System view (system.py), of this run or of the one it names
        self.system = None
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
            out[name] = Cell(iv, Interval(list(v.values())), len(idr))
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
            row(f"substrate {SUBSTRATE_SHORT[sub]}", SUBSTRATE_TEXT[sub])
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
        return "\n".join(f"- **{SUBSTRATE_SHORT[s]}**: {CAVEAT[s]}"
                         for s in self.subs)

    def repeats_note(self):
        ns = sorted({c.iv.n for subs in self.head.values()
                     for cells in subs.values() for c in cells.values()
                     if c.iv and c.iv.n > 1 and True})
        if not ns:
            return ""
        parts = []
        for n in ns:
            iv = Interval(list(range(n)))
            parts.append(f"{n} paired repeats give a {iv.level_text()} "
                         f"interval")
        return ("Ratios are medians of paired repeats (an index and idr "
                "from the same round); the brackets are the interval from "
                "order statistics: " + "; ".join(parts) + ".")

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
                hdr.append(f"{SUBSTRATE_SHORT[s]} ({what}; {cfg[0]}, "
                           f"{cfg[1]} CPU{'s' if cfg[1] > 1 else ''})")
            subs = [s for s in cols if (s, wl) in self.head_cfg]
            out.append(f"#### {wl}\n")
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
        """[(wl, keys, extra, sub, winner, ratio iv, margin iv, second)]"""
        out = []
        for key in self.keys_order():
            for sub in self.subs:
                if sub == "cachegrind":
                    continue
                cells = self.head[key].get(sub)
                if not cells:
                    continue
                rows = [r for r in self.res.rows if r["substrate"] == sub
                        and r["wl"] == key[0] and r["keys"] == key[1]
                        and (r.get("mode", ""), r["ncpus"]) ==
                        self.head_cfg[(sub, key[0])]]
                if key[2]:
                    rows = [r for r in rows if tg.label(
                        r["settings"], [kv.split("=")[0] for kv in
                                        key[2].split(", ")]) == key[2]]
                vals = tg.by_index(rows, "ns_per_op", self.res)
                names = [n for n in vals if n != "null"]
                if len(names) < 2:
                    continue
                med = {n: Interval(list(vals[n].values())).median
                       for n in names}
                ranked = sorted(names, key=lambda n: med[n])
                w, second = ranked[0], ranked[1]
                margin = Interval(tg.paired(vals[second], vals[w]))
                ratio = cells[w].iv if w in cells else None
                out.append((key, sub, w, ratio, margin, second))
        return out

    def winners_md(self):
        lines = ["| workload | keys | substrate | fastest | ratio to idr "
                 "| runner-up | runner-up / fastest | interval level |",
                 "|---|---|---|---|---|---|---|---|"]
        for key, sub, w, ratio, margin, second in self.winners():
            klab = self._keys_label(key)
            sure = ""
            if margin.n > 1:
                sure = margin.level_text()
                if margin.lo <= 1.0:
                    sure += ", not apart"
            lines.append(f"| {key[0]} | {klab} | {SUBSTRATE_SHORT[sub]} | "
                         f"{w} | {fmt_interval(ratio)} | {second} | "
                         f"{fmt_interval(margin)} | {sure} |")
        return "\n".join(lines)

    def verdicts(self):
        out = []
        for t in self.doc.get("target", []):
            out.extend(tg.judge(t, self.res))
        return out

    def targets_md(self):
        lines = ["| target | at | substrate | judged | value [interval] | "
                 "threshold | level | verdict |",
                 "|---|---|---|---|---|---|---|---|"]
        for v in self.verdicts():
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
                         f"{SUBSTRATE_SHORT.get(v.substrate, '-')} | "
                         f"{judged} | {fmt_interval(v.iv)} | "
                         f"{t['op']} {fmt(t['threshold'])} | {level} | "
                         f"**{v.verdict}** |")
        return "\n".join(lines)

    def previous_md(self):
        """Each target's verdicts here beside the previous reference's."""
        if not self.previous:
            return ""
        name, prev = self.previous

        def by_name(verdicts):
            out, words = {}, {}
            for v in verdicts:
                key = (v.target["name"], SUBSTRATE_SHORT.get(v.substrate, "-"))
                text = v.verdict + (f" ({v.setting})" if v.setting else "")
                out.setdefault(key, []).append(text)
                words.setdefault(key, set()).add(v.verdict)
            return out, words
        (now, now_w), (before, before_w) = by_name(self.verdicts()), \
            by_name(prev.verdicts())
        lines = [f"## Against the previous reference, {name}", "",
                 f"Each target's verdicts here and in `{name}` (under the "
                 "targets that run was judged by, with its settings: see "
                 "its report); **changed** where the verdicts differ, "
                 "whatever the settings they were judged at.", "",
                 "| target | substrate | before | now | |",
                 "|---|---|---|---|---|"]
        for key in list(now) + [k for k in before if k not in now]:
            b = "; ".join(before.get(key, ["not a target then"]))
            n = "; ".join(now.get(key, ["not a target now"]))
            changed = before_w.get(key) != now_w.get(key)
            lines.append(f"| {key[0]} | {key[1]} | {b} | {n} | "
                         f"{'**changed**' if changed else ''} |")
        return "\n".join(lines) + "\n"

    def _both(self, k, sub):
        """(now, then): the cells of configuration k on sub here and in the
        previous reference, or None where either run lacks it."""
        then = self.previous[1].head.get(k, {}).get(sub)
        now = self.head[k].get(sub)
        return (now, then) if now and then else None

    @staticmethod
    def _moved(now, then, name):
        """An index's median ratio to idr then and now, 'b → c', or None."""
        c, b = now.get(name), then.get(name)
        if not (c and b and c.iv and b.iv):
            return None
        return f"{fmt(b.iv.median)} → {fmt(c.iv.median)}"

    def _moved_table(self, sub, heads, rows):
        """One substrate's table of each index's median ratio to idr then
        and now, 'b → c', with idr's own now / then: @heads the leading
        columns' names, @rows [(leading cells, now, then)] of headline
        cells.  [] where no index but idr has a ratio in both."""
        names = [n for n in self.indexes if n != "idr" and any(
            self._moved(now, then, n) for _, now, then in rows)]
        if not rows or not names:
            return []
        out = [f"#### {SUBSTRATE_SHORT[sub]} ({metric_of(sub)[1]})", "",
               "| " + " | ".join(heads + names) + " |",
               "|" + "---|" * (len(heads) + len(names))]
        for lead, now, then in rows:
            idr = ""
            if "idr" in now and "idr" in then:
                idr = fmt(now["idr"].idr_value.median /
                          then["idr"].idr_value.median)
            cells = [self._moved(now, then, n) or "" for n in names]
            out.append("| " + " | ".join(lead + [idr] + cells) + " |")
        return out + [""]

    @staticmethod
    def _keys_label(k):
        """A headline configuration's keys size, its other settings in
        brackets."""
        return fmt_keys(k[1]) + (f" ({k[2]})" if k[2] else "")

    def moved_md(self):
        """Each index's median ratio to idr in the previous reference and
        here, at every headline configuration both runs measured: how a
        change of the engine or the contract moved the comparison."""
        if not self.previous:
            return ""
        name = self.previous[0]
        out = [f"## Ratios to idr against {name}", "",
               f"Each index's median ratio to idr in `{name}` and here "
               "(before → now), where both runs have the configuration on "
               "the same substrate; idr's own column is its median now "
               "over its median then, runs of different days that no "
               "pairing cancels, so a host's drift is in it.", ""]
        seen = False
        for sub in [s for s in self.subs if s in self.previous[1].subs]:
            table = self._moved_table(
                sub, ["workload", "keys", "idr now / then"],
                [([k[0], self._keys_label(k)], *self._both(k, sub))
                 for k in self.keys_order() if self._both(k, sub)])
            seen |= bool(table)
            out += table
        return "\n".join(out) if seen else ""

    def _levels_pairs(self):
        """[(sub, k1, kn, levels)]: each headline configuration run at
        more than one namespace level (workload 'fork (3 levels)') beside
        the same configuration at one level, on the same substrate."""
        out = []
        for kn in self.keys_order():
            m = re.fullmatch(r"(.*) \(([0-9]+) levels\)", kn[0])
            if not m:
                continue
            k1 = (m.group(1), kn[1], kn[2])
            for sub in self.subs:
                if self.head.get(k1, {}).get(sub) and self.head[kn].get(sub):
                    out.append((sub, k1, kn, m.group(2)))
        return out

    def levels_md(self):
        """Each index's median ratio to idr at one namespace level and at
        more, in this run: what numbering each PID in every level (one
        index instance per level, each fork reserving and each exit
        freeing a number in all) does to the comparison."""
        pairs = self._levels_pairs()
        if not pairs:
            return ""
        out = ["## Namespace levels", "",
               "Each index's median ratio to idr at one level and at more "
               "(1 → N), in this run and configuration: every PID numbered "
               "in each level, one index instance per level, lookups of the "
               "deepest. idr's own column is its median at N levels over "
               "its median at one: what the levels cost the reference.", ""]
        for sub in self.subs:
            out += self._moved_table(
                sub, ["workload", "keys", "levels", "idr N / 1"],
                [([k1[0], self._keys_label(k1), f"1 → {lv}"],
                  self.head[kn][sub], self.head[k1][sub])
                 for psub, k1, kn, lv in pairs if psub == sub])
        return "\n".join(out)

    def moved_lines(self):
        """moved_md() in short, for the README: lookup and fork on the
        cache-true substrates at the largest keys size of each
        configuration that both runs measured."""
        if not self.previous:
            return []
        best = {}
        for sub in ("kernel-native", "user-native", "cachegrind"):
            for k in self.keys_order():
                if k[0] not in ("lookup", "fork") or not self._both(k, sub):
                    continue
                g = (sub, k[0], k[2])
                if g not in best or k[1] > best[g][1]:
                    best[g] = k
        out = []
        for (sub, wl, extra), k in best.items():
            now, then = self._both(k, sub)
            pairs = [f"{n} {self._moved(now, then, n)}"
                     for n in self.indexes
                     if n != "idr" and self._moved(now, then, n)]
            if pairs:
                what = f"{wl}{', ' + extra if extra else ''}, " \
                    f"{fmt_keys(k[1])} ({SUBSTRATE_SHORT[sub]}, " \
                    f"{metric_of(sub)[1]})"
                out.append(f"{what}: " + "; ".join(pairs))
        return out

    def memory_md(self):
        """Bytes per key after a lookup storm: a table per substrate and
        live-set shape, a column per keys size and its pid_max."""
        out = ["Bytes per key the index held after a lookup storm (median "
               "over repeats), by substrate and live set."]
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
                out += ["", f"{SUBSTRATE_SHORT[sub]}, {shape} keys:", "",
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
        lines = ["Per operation, one CPU; in brackets the ratio to idr.", "",
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
                    lines = ["Aggregate Mops/s (median over repeats) at each "
                             "CPU count of the CPU sweep.", "",
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
                        lines.append(f"| {SUBSTRATE_SHORT[sub]} | {wl} | "
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
        if self.res.failed:
            out += " Rows that failed verification: " + ", ".join(
                sorted({f"{r['index']} {r['wl']} {fmt_keys(r['keys'])}"
                        for r in self.res.failed})) + "."
        return out

    # -------------------------------------------------------------- whole
    def markdown(self, name):
        m = self.res.meta
        parts = [
            f"# pidx report: {name}",
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
            self.targets_md(),
            "",
            "Verdicts: **met** or **missed** when the whole interval is on "
            "one side of the threshold, **inconclusive** when it crosses "
            "it, **not measured** when the run has no rows at the target's "
            "settings. A target over several subjects judges the one with "
            "the best median. cachegrind's counts are deterministic: the "
            "count decides.",
            "",
            self.previous_md(),
            "## Which index is fastest",
            "",
            "At each workload and keys size of the headline, by median "
            "ns/op (null left out); the runner-up's paired ratio to the "
            "fastest tells the margin, and \"not apart\" when its interval "
            "reaches 1.",
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
        return text

    def terminal(self, width=100):
        """The headline as fixed-width text: one line per workload, keys
        and substrate; a column per index, its median ratio to idr."""
        names = [n for n in self.indexes if n != "idr"]
        w = 5
        head = f"{'workload':<15}{'keys':>5} {'where':<10}{'idr':>7} " + \
            "".join(f"{ABBR.get(n, n)[:w]:>{w + 1}}" for n in names)
        out = ["ratio to idr (median of paired repeats; idr's own ns/op, "
               "or D1 misses/op under cachegrind)", head]
        shown = None
        for key in self.keys_order():
            # the settings that tell this workload's configurations apart
            # (shape, dependent, ...) head the lines they hold for
            if key[2] and (key[0], key[2]) != shown:
                shown = (key[0], key[2])
                out.append(f"  {key[0]}, {key[2]}:"[:width])
            elif not key[2]:
                shown = None
            for sub in self.subs:
                cells = self.head[key].get(sub)
                if not cells or "idr" not in cells:
                    continue
                wl = key[0][:14]
                line = f"{wl:<15}{fmt_keys(key[1]):>5} " \
                    f"{SUBSTRATE_SHORT[sub]:<10}" \
                    f"{fmt(cells['idr'].idr_value.median):>7} "
                for n in names:
                    c = cells.get(n)
                    line += f"{fmt(c.iv.median) if c and c.iv else '-':>{w + 1}}"
                out.append(line)
        out.append("columns: " + ", ".join(
            f"{ABBR[n]}={n}" for n in names if ABBR.get(n, n) != n))
        if "kernel-tcg" in self.subs:
            out.append("TCG: emulated, cache effects hidden; native: user "
                       "space on this host's CPU.")
        return "\n".join(out)

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

    def summary_block(self, dir_label):
        """The block the README and results/README.md carry."""
        lines = [self._from_line(dir_label), ""]
        fast = [x for x in self.winners() if x[0][0] in ("lookup", "fork")
                and x[1] not in ("kernel-tcg", "kernel-kvm")]
        if fast:
            # one line per workload and configuration, its sizes in a row
            groups = {}
            for k, s, w, r, _, _ in fast:
                groups.setdefault((k[0], k[2]), []).append(
                    f"{fmt_keys(k[1])} {w} {fmt(r.median) if r else '?'}x")
            lines += ["Fastest index (median ns/op, ratio to idr):", ""]
            lines += [f"- {wl}{', ' + extra if extra else ''}: "
                      + "; ".join(v) for (wl, extra), v in groups.items()]
            lines.append("")
        if self.system and self.system.sentence():
            lines += [f"System view ([{self.system.name}]"
                      f"({self.system.link(dir_label)})): "
                      + self.system.sentence(), ""]
        lines.append("| target | on | value [interval] | threshold "
                     "| verdict |")
        lines.append("|---|---|---|---|---|")
        for v in self.verdicts():
            t = v.target
            name = t["name"] + (f" ({v.setting})" if v.setting else "")
            lines.append(f"| {name} | "
                         f"{SUBSTRATE_SHORT.get(v.substrate, '-')} | "
                         f"{fmt_interval(v.iv)} | {t['op']} "
                         f"{fmt(t['threshold'])} | {v.verdict} |")
        moved = self.moved_lines()
        if moved:
            lines += ["", f"Median ratio to idr in `{self.previous[0]}`"
                      " → here, lookup and fork at the largest keys size "
                      "both measured, on the cache-true substrates:", ""]
            lines += [f"- {x}" for x in moved]
        answers = self.traffic.answers()
        if answers:
            lines += ["", "Skewed and recorded traffic:", ""]
            lines += [f"- {x}" for x in answers]
        return "\n".join(lines)
