# SPDX-License-Identifier: GPL-2.0
"""Medians of paired ratios and their distribution-free intervals.

A repeat of a storm runs every index in one round, so an index's repeat r
and idr's repeat r saw the same moment of the host: their ratio cancels
what the host did to both.  The median of n such ratios is bracketed by
the order statistics x(k) and x(n+1-k) with probability
1 - 2 P(Binomial(n, 1/2) <= k-1), whatever their distribution.
"""

import math
import statistics

# the interval the report aims for; fewer repeats give less, said so
WANTED_LEVEL = 0.90


def coverage(n, k):
    """P(x(k) <= median <= x(n+1-k)) for n samples, 1 <= k <= n/2."""
    tail = sum(math.comb(n, i) for i in range(k)) / 2 ** n
    return 1 - 2 * tail


class Interval:
    """median [lo, hi] of n values, hi and lo at confidence `level`."""

    def __init__(self, values):
        v = sorted(values)
        self.n = len(v)
        self.values = v
        self.median = statistics.median(v) if v else float("nan")
        self.min = v[0] if v else float("nan")
        self.max = v[-1] if v else float("nan")
        # the narrowest k whose coverage still reaches WANTED_LEVEL; with
        # too few values, k = 1 (min..max) and the level it gives
        k = 1
        while k + 1 <= self.n // 2 and coverage(self.n, k + 1) >= WANTED_LEVEL:
            k += 1
        self.k = k
        if self.n >= 2:
            self.lo, self.hi = v[k - 1], v[self.n - k]
            self.level = coverage(self.n, k)
        else:
            self.lo = self.hi = self.median
            self.level = 0.0

    def level_text(self):
        if self.n < 2:
            return "one value, no interval"
        return pct_level(self.level)


def pct_level(level):
    """0.9375 -> '93.8%', 0.75 -> '75%'."""
    text = f"{100 * level:.1f}"
    return (text[:-2] if text.endswith(".0") else text) + "%"


def level_for(n):
    """The level of the interval that Interval gives n values: the one
    the report states, by computation, never typed."""
    return Interval(list(range(n))).level if n >= 2 else 0.0


def level_caption(ns, what="paired repeats"):
    """What a table's intervals are, from the value counts @ns it holds:
    '75% intervals: order statistics over 3 paired repeats'.  Several
    counts are each named; a single value is said to have no interval."""
    ns = sorted({n for n in ns if n})
    if not ns:
        return "No intervals: no repeated values."
    parts = []
    for n in ns:
        if n < 2:
            parts.append(f"a single value has no interval ({INCONCLUSIVE_ONE})")
        else:
            parts.append(f"{pct_level(level_for(n))} intervals: order "
                         f"statistics over {n} {what}")
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


# the rule for one timed value, said wherever a verdict may rest on one
INCONCLUSIVE_ONE = ("a target judged on one timed value is inconclusive: one "
                    "repeat gives no interval to set against the threshold")


def fmt(v):
    """A ratio or a count, to three significant figures."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    a = abs(v)
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_interval(iv):
    """'1.23 [1.10-1.40]'; a single value without brackets."""
    if iv is None or iv.n == 0:
        return "n/a"
    if iv.n == 1 or iv.lo == iv.hi:
        return fmt(iv.median)
    return f"{fmt(iv.median)} [{fmt(iv.lo)}-{fmt(iv.hi)}]"
