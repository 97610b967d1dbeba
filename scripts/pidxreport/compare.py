# SPDX-License-Identifier: GPL-2.0
"""The report's comparisons across runs: each target's verdicts beside the
previous reference's, the ratios that moved since it, and the ratios at 1
against 3 namespace levels.  Report (render.py) takes these as a base, so
that they read its rows, previous run and helpers as its own methods do.
"""

import re

from .data import fmt_keys
from .stats import fmt

# what the headline shows of each substrate
HEAD_METRIC = {"cachegrind": ("cache_misses_per_op", "D1 misses/op")}
TIME_METRIC = ("ns_per_op", "ns/op")


def metric_of(sub):
    return HEAD_METRIC.get(sub, TIME_METRIC)


class Comparisons:
    def previous_md(self):
        """Each target's verdicts here beside the previous reference's."""
        if not self.previous:
            return ""
        name, prev = self.previous

        def by_name(verdicts):
            out, words = {}, {}
            for v in verdicts:
                key = (v.target["name"], v.substrate or "-")
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
        out = [f"#### {sub} ({metric_of(sub)[1]})", "",
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
               "pairing cancels, so a host's drift is in it. Medians "
               "only: no intervals in these tables (each median's "
               "interval is in its run's own tables).", ""]
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
               "its median at one: what the levels cost the reference. "
               "Medians only: no intervals in these tables (each median's "
               "interval is in the tables above).", ""]
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
                    f"{fmt_keys(k[1])} ({sub}, " \
                    f"{metric_of(sub)[1]})"
                out.append(f"{what}: " + "; ".join(pairs))
        return out
