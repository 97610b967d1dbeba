# SPDX-License-Identifier: GPL-2.0
"""The targets file and the verdict of each target over one run's rows.

A target names a comparison and the settings it is judged at:

  [[target]]
  name = "..."
  kind = "ratio"            # or "gain": the ratio of two CPU counts' rates
  subjects = ["skiplist", "rbskip"]   # several: the best of them is judged
  baseline = "idr"
  metric = "ns_per_op"      # any numeric column, or cg_ll_misses
  op = "<="                 # or ">="
  threshold = 1.0
  substrate = ["kernel-native", "user-native"]   # the first that has rows
  where = { workload = "lookup", keys = 32768, ncpus = 1 }
  # kind = "gain" only: from_ncpus = 1, to_ncpus = 2

`where` matches any setting column (or `workload`, which matches a mixed
workload's label too), so a setting added to results.csv later needs no
change here.  Where the rows hold several configurations that `where`
does not tell apart (two pid_max values, say), each gets its own verdict,
labelled by the settings that differ.  A `where` value that is a list
matches any of its values.

A target that has answered its question moves to the retired list, with
why, and may carry the evidence that retired it, evaluated from the rows
each time the report is made (never typed):

  [[retired_target]]
  name = "..."
  text = "why it is retired, and what changed"
  [retired_target.evidence]
  what = "node visits per lookup"
  metric = "visits_per_op"
  subjects = ["rbskip"]
  baseline = "skiplist"
  substrate = ["user-native"]          # the first that has rows
  where = { workload = "lookup", keys = [32768, 1048576], ncpus = 1 }
  traced = true       # the rows that traced visits, which comparisons
                      # of time leave out (their times include the tracing)
"""

import tomllib

import csv
import os

from .data import (MEASURED, SUBSTRATE_TEXT, ReportError, fmt_keys,
                   kernel_substrate, number, rejoin_extra, row_substrate,
                   workload_label)
from .stats import Interval

# every index built on a skip list's levels: the family a skip-family
# target, the traffic answers and the README's answer judge by its best
SKIP_FAMILY = ("skiplist", "rbskip", "ccskip", "lazyskip")
KINDS = ("ratio", "gain")
OPS = ("<=", ">=")
# a count that cachegrind made does not vary between runs of one seed
DETERMINISTIC = ("cachegrind",)


def load(path):
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise ReportError(f"{path}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ReportError(f"{path}: {e}") from None
    targets = doc.get("target", [])
    for i, t in enumerate(targets):
        where = f"{path}: target {i + 1} ({t.get('name', 'unnamed')})"
        for need in ("name", "subjects", "baseline", "metric", "op",
                     "threshold", "substrate", "where"):
            if need not in t:
                raise ReportError(f"{where}: no '{need}'")
        t.setdefault("kind", "ratio")
        if t["kind"] not in KINDS:
            raise ReportError(f"{where}: kind is one of {', '.join(KINDS)}")
        if t["op"] not in OPS:
            raise ReportError(f"{where}: op is one of {', '.join(OPS)}")
        if t["kind"] == "gain" and not {"from_ncpus", "to_ncpus"} <= set(t):
            raise ReportError(f"{where}: a gain needs from_ncpus, to_ncpus")
        bad = [s for s in t["substrate"] if s not in SUBSTRATE_TEXT]
        if bad:
            raise ReportError(f"{where}: unknown substrate {bad[0]}")
    for i, t in enumerate(doc.get("retired_target", [])):
        where = f"{path}: retired target {i + 1} ({t.get('name', 'unnamed')})"
        for need in ("name", "text"):
            if need not in t:
                raise ReportError(f"{where}: no '{need}'")
        ev = t.get("evidence")
        if ev is None:
            continue
        for need in ("what", "metric", "subjects", "baseline", "where"):
            if need not in ev:
                raise ReportError(f"{where}: evidence has no '{need}'")
        ev.setdefault("substrate", ["user-native"])
        ev.setdefault("traced", False)
        bad = [s for s in ev["substrate"] if s not in SUBSTRATE_TEXT]
        if bad:
            raise ReportError(f"{where}: unknown substrate {bad[0]}")
    return doc


def matches(row, where):
    for k, want in where.items():
        if isinstance(want, list):
            if not any(matches(row, {k: w}) for w in want):
                return False
            continue
        if k == "workload":
            if want not in (row["wl"], row.get("workload")):
                return False
            continue
        have = row.get(k)
        if have is None:
            return False
        if isinstance(want, (int, float)) and not isinstance(want, bool):
            try:
                if float(have) != float(want):
                    return False
            except ValueError:
                return False
        elif str(have) != str(want):
            return False
    return True


def by_index(rows, metric, res, pair_by=("run", "repeat")):
    """{index: {pair key: value}} of the rows."""
    out = {}
    for r in rows:
        v = res.value(r, metric)
        if v is not None:
            out.setdefault(r["index"], {})[tuple(r[p] for p in pair_by)] = v
    return out


def paired(a, b):
    """The ratios a/b of the pair keys both have."""
    return [a[k] / b[k] for k in sorted(a) if k in b and b[k]]


def differing(configs):
    """The settings that differ between the configurations."""
    if len(configs) < 2:
        return []
    keys = sorted({k for c in configs for k, _ in c})
    out = []
    for k in keys:
        vals = {dict(c).get(k) for c in configs}
        if len(vals) > 1:
            out.append(k)
    return out


def label(config, keys):
    d = dict(config)
    return ", ".join(f"{k}={d.get(k)}" for k in keys)


def shape_label(config, keys):
    """label(), saying so when the verdict rests on dense keys alone: the
    IDR at its best (docs/measuring.md)."""
    text = label(config, keys)
    if "shape" in keys or dict(config).get("shape", "dense") not in \
            ("dense", "", None):
        return text
    return (text + ", " if text else "") + "dense keys only"


def decide(iv, op, threshold, deterministic):
    if iv is None or iv.n == 0:
        return "not measured"
    if deterministic or iv.n == 1:
        if iv.n == 1 and not deterministic:
            return "inconclusive"
        good = iv.median <= threshold if op == "<=" else \
            iv.median >= threshold
        return "met" if good else "missed"
    if op == "<=":
        if iv.hi <= threshold:
            return "met"
        if iv.lo > threshold:
            return "missed"
    else:
        if iv.lo >= threshold:
            return "met"
        if iv.hi < threshold:
            return "missed"
    return "inconclusive"


class Verdict:
    def __init__(self, target, substrate, setting, subject, iv, verdict,
                 why=""):
        self.target = target
        self.substrate = substrate
        self.setting = setting
        self.subject = subject
        self.iv = iv
        self.verdict = verdict
        self.why = why


def best(candidates, op):
    """(name, Interval) of the best median: lowest for <=, highest for >=."""
    cands = [(n, iv) for n, iv in candidates if iv.n]
    if not cands:
        return None, None
    pick = min if op == "<=" else max
    return pick(cands, key=lambda c: c[1].median)


def judge_ratio(t, rows, res):
    vals = by_index(rows, t["metric"], res)
    base = vals.get(t["baseline"])
    if not base:
        return None, None, f"no {t['baseline']} rows"
    cands = [(s, Interval(paired(vals[s], base)))
             for s in t["subjects"] if s in vals]
    name, iv = best(cands, t["op"])
    if name is None:
        return None, None, "no subject rows"
    return name, iv, ""


def judge_gain(t, rows_from, rows_to, res):
    # the two CPU counts ran in different runs: pair by repeat
    f = by_index(rows_from, t["metric"], res, ("repeat",))
    g = by_index(rows_to, t["metric"], res, ("repeat",))
    gains = {n: {k: g[n][k] / f[n][k] for k in f[n] if k in g[n] and f[n][k]}
             for n in f if n in g}
    base = gains.get(t["baseline"])
    if not base:
        return None, None, f"no {t['baseline']} rows at both CPU counts"
    cands = [(s, Interval(paired(gains[s], base)))
             for s in t["subjects"] if s in gains]
    name, iv = best(cands, t["op"])
    if name is None:
        return None, None, "no subject rows at both CPU counts"
    return name, iv, ""


def judge(t, res):
    """[Verdict] of one target: one per configuration it matches."""
    for sub in t["substrate"]:
        rows = [r for r in res.rows if r["substrate"] == sub]
        if t["kind"] == "gain":
            rf = [r for r in rows if matches(r, t["where"])
                  and r["ncpus"] == t["from_ncpus"]]
            rt = [r for r in rows if matches(r, t["where"])
                  and r["ncpus"] == t["to_ncpus"]]
            if not rf or not rt:
                continue
            groups = {}
            for r in rf + rt:
                key = tuple(kv for kv in r["settings"] if kv[0] != "ncpus")
                groups.setdefault(key, ([], []))[
                    0 if r["ncpus"] == t["from_ncpus"] else 1].append(r)
            out = []
            diff = differing(list(groups))
            for key in sorted(groups, key=str):
                a, b = groups[key]
                name, iv, why = judge_gain(t, a, b, res)
                out.append(Verdict(t, sub, shape_label(key, diff), name, iv,
                                   decide(iv, t["op"], t["threshold"],
                                          sub in DETERMINISTIC), why))
            return out
        rows = [r for r in rows if matches(r, t["where"])]
        if not rows:
            continue
        groups = {}
        for r in rows:
            groups.setdefault(r["settings"], []).append(r)
        diff = differing(list(groups))
        out = []
        for key in sorted(groups, key=str):
            name, iv, why = judge_ratio(t, groups[key], res)
            out.append(Verdict(t, sub, shape_label(key, diff), name, iv,
                               decide(iv, t["op"], t["threshold"],
                                      sub in DETERMINISTIC), why))
        return out
    return [Verdict(t, None, "", None, None, "not measured",
                    "no rows at these settings")]


# ------------------------------------------------------------ evidence
def traced_rows(res):
    """The rows of res's results.csv that traced visits, verified, not
    under fault injection nor placed on a node: the rows that Results
    leaves out of the comparisons of time, read for their counts."""
    out = []
    path = os.path.join(res.dir, "results.csv")
    ksub = kernel_substrate(res.meta)
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.reader(f)
        header = [h.strip() for h in next(reader, [])]
        cols = [c for c in header if c not in MEASURED]
        for cells in reader:
            cells = rejoin_extra(cells, header)
            if len(cells) != len(header):
                continue
            r = {h: c.strip() for h, c in zip(header, cells)}
            if r.get("trace_visits", "0") in ("0", "", "n/a") or \
                    r.get("verified", "").lower() in ("failed", "slow") or \
                    "faults=" in r.get("extra", "") or \
                    r.get("node", "any") not in ("any", "") or \
                    r.get("substrate", "").startswith("system-"):
                continue
            r["substrate"] = row_substrate(r, ksub)
            r["shape"] = r.get("shape") or "dense"
            r["wl"] = workload_label(r)
            for c in ("keys", "ncpus"):
                r[c] = number(r.get(c)) or 0
            r["settings"] = tuple(sorted((c, r.get(c, "")) for c in cols) +
                                  [("substrate", r["substrate"]), ("wl", r["wl"])])
            out.append(r)
    return out


def judge_evidence(ev, res):
    """(substrate, [(setting label, subject, Interval of the subject's
    paired ratios to the baseline)]) of a retired target's evidence: one
    entry per configuration and subject; (None, []) without rows."""
    rows = traced_rows(res) if ev["traced"] else res.rows
    for sub in ev["substrate"]:
        mine = [r for r in rows if r["substrate"] == sub and
                matches(r, ev["where"])]
        if not mine:
            continue
        groups = {}
        for r in mine:
            groups.setdefault(r["settings"], []).append(r)
        diff = [k for k in differing(list(groups)) if k != "keys"]
        out = []
        for key in sorted(groups, key=lambda k: (dict(k)["keys"], str(k))):
            vals = by_index(groups[key], ev["metric"], res)
            base = vals.get(ev["baseline"])
            lab = ", ".join([fmt_keys(dict(key)["keys"])] +
                            ([label(key, diff)] if diff else []))
            for s in ev["subjects"]:
                if base and s in vals:
                    out.append((lab, s, Interval(paired(vals[s], base))))
        return sub, out
    return None, []
