# SPDX-License-Identifier: GPL-2.0
"""The answer in words: at most five sentences from a report's own numbers.

What wins lookups and forks, by how much, where the skip family stands,
what a whole fork spends in the index, and how sure the numbers are: each
sentence carries its number and its interval, taken from the tables the
report prints (Report.winners(), its headline cells, its verdicts and the
System view), so that the words can never say what the tables do not.
The configurations are those the targets judge: the cache-true substrate
that has rows, dependent lookups, the aged set, 32K and 1M keys where the
run has them.
"""

import textwrap

from . import targets as tg
from .data import fmt_keys
from .stats import fmt, fmt_interval, level_for, pct_level
from .system import share_iv

# the first that has rows answers: cache-true times before emulated ones
SUBSTRATES = ("kernel-native", "user-native", "kernel-kvm", "kernel-tcg")
SIZES = (32768, 1048576)
WORKLOAD_WORDS = {"lookup": "lookups", "fork": "forks"}


def _settings(extra):
    """{setting: value} of a headline configuration's label."""
    return dict(kv.split("=", 1) for kv in extra.split(", ") if "=" in kv)


def chosen(rep, wl):
    """(substrate, [Winner]) of workload @wl at the configurations the
    answer speaks of, one per keys size; (None, []) without any."""
    ws = [w for w in rep.winners() if w.key[0] == wl]
    for sub in SUBSTRATES:
        mine = [w for w in ws if w.sub == sub]
        if mine:
            break
    else:
        return None, []

    def score(w):
        d = _settings(w.key[2])
        return (d.get("dependent") == "1", d.get("shape") == "aged")
    top = max(score(w) for w in mine)
    mine = [w for w in mine if score(w) == top]
    keys = sorted({w.key[1] for w in mine})
    want = [k for k in SIZES if k in keys] or keys[-2:]
    out = []
    for k in want:
        # one configuration per size: the first in the report's order
        out.append(next(w for w in mine if w.key[1] == k))
    return sub, out


def _where(rep, sub, wl, ws):
    """'dependent lookups (user-native, aged keys, 1 CPU)'."""
    d = _settings(ws[0].key[2])
    if wl == "lookup" and "dependent" not in d:
        # a run of one setting does not tell its configurations apart by it
        deps = {r.get("dependent") for r in rep.res.rows
                if r["substrate"] == sub and r["wl"] == "lookup"}
        if len(deps) == 1:
            d["dependent"] = deps.pop()
    what = WORKLOAD_WORDS.get(wl, wl)
    if wl == "lookup" and d.get("dependent") == "1":
        what = "dependent lookups"
    elif wl == "lookup" and d.get("dependent") == "0":
        what = "batched lookups"
    bits = [sub]
    if d.get("shape"):
        bits.append(f"{d['shape']} keys")
    n = rep.head_cfg.get((sub, wl), ("", 1))[1]
    bits.append(f"{n} CPU{'s' if n > 1 else ''}")
    return f"{what} ({', '.join(bits)})"


def _against_idr(iv):
    """' (not apart from idr)' when the ratio's interval reaches 1."""
    if iv.n >= 2 and iv.lo <= 1 <= iv.hi:
        return ", not apart from idr"
    return ""


def winner_sentence(rep, wl):
    sub, ws = chosen(rep, wl)
    if not ws:
        return None, []
    parts = []
    for w in ws:
        parts.append(f"{w.fastest} at {fmt_keys(w.key[1])} keys, "
                     f"{fmt_interval(w.ratio)} times idr's time"
                     f"{_against_idr(w.ratio)}, with {w.second} next at "
                     f"{fmt(w.margin)} times its time "
                     f"({w.apart().split(' (')[0]})")
    text = (f"On {_where(rep, sub, wl, ws)} the fastest index is " +
            "; and ".join(parts) + ".")
    return text[0].upper() + text[1:], [w.ratio for w in ws]


def skip_sentence(rep):
    """The best of the skip family at the lookup configurations chosen,
    and the verdicts of the targets that judge the family there."""
    sub, ws = chosen(rep, "lookup")
    parts, ivs = [], []
    for w in ws:
        cells = rep.head[w.key][sub]
        fam = [n for n in tg.SKIP_FAMILY if n in cells and cells[n].iv
               and cells[n].iv.n]
        if not fam:
            continue
        best = min(fam, key=lambda n: cells[n].iv.median)
        ivs.append(cells[best].iv)
        text = (f"{best} at {fmt_keys(w.key[1])}, "
                f"{fmt_interval(cells[best].iv)} times idr's time")
        verdict = _family_verdict(rep, w, sub)
        if verdict:
            text += f" (target {verdict})"
        parts.append(text)
    if not parts:
        return None, []
    return (f"The best of the skip family ({', '.join(tg.SKIP_FAMILY)}) on "
            f"those lookups is " + "; ".join(parts) + "."), ivs


def _family_verdict(rep, w, sub):
    """'at most 1.00: missed' of the target that judges the skip family
    at @w's configuration, or None."""
    shape = _settings(w.key[2]).get("shape")
    for t in rep.doc.get("target", []):
        if t["baseline"] != "idr" or not set(t["subjects"]) <= \
                set(tg.SKIP_FAMILY) or t["where"].get("keys") != w.key[1] \
                or t["where"].get("workload") != w.key[0]:
            continue
        vs = [v for v in tg.judge(t, rep.res) if v.substrate == sub]
        pick = [v for v in vs if shape and f"shape={shape}" in v.setting] \
            or vs
        if pick:
            word = "at most" if t["op"] == "<=" else "at least"
            return f"{word} {fmt(t['threshold'])}: {pick[0].verdict}"
    return None


def system_sentence(rep):
    sysv = rep.system
    b = sysv.bound("fork") if sysv else None
    if not b:
        return None, []
    share = b[0]
    return (f"A whole fork on the host (system-native) spends "
            f"{share_iv(share)} of its time in idr's work, so no index "
            f"can make a fork faster by more than that."), [share]


def sure_sentence(rep, ivs):
    ns = [iv.n for iv in ivs if iv is not None and iv.n >= 2]
    verdicts = [v.verdict for v in rep.verdicts()]
    counts = [(w, verdicts.count(w)) for w in
              ("met", "missed", "inconclusive", "not measured")]
    tally = ", ".join(f"{n} {w}" for w, n in counts if n)
    if ns:
        n = max(set(ns), key=ns.count)
        text = (f"Each bracket is a {pct_level(level_for(n))} interval: "
                f"order statistics over {n} paired repeats, each an "
                f"index's time over idr's in the same round")
    else:
        text = "A single repeat gives no interval, so nothing above is sure"
    if verdicts:
        text += f"; of {len(verdicts)} target verdicts, {tally}"
    return text + "."


def sentences(rep):
    """At most five sentences: lookups, forks, the skip family, a whole
    fork, and how sure."""
    out, ivs = [], []
    for make in (lambda: winner_sentence(rep, "lookup"),
                 lambda: winner_sentence(rep, "fork"),
                 lambda: skip_sentence(rep),
                 lambda: system_sentence(rep)):
        text, got = make()
        if text:
            out.append(text)
            ivs += got
    out.append(sure_sentence(rep, ivs))
    return out[:5]


def terminal(rep, width=78):
    """What the end of a run prints: the targets table, then the answer."""
    rows, caption = rep.target_rows()
    head = ("verdict", "value [interval]", "threshold", "on", "target")
    # the verdict first, the long name last
    rows = [(r[4], r[2], r[3], r[1], r[0]) for r in rows]
    out = []
    if rows:
        wide = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
        out += ["Targets. " + caption, ""]
        for r in [head] + rows:
            out.append("  ".join(c.ljust(wide[i]) for i, c in
                                 enumerate(r)).rstrip())
        out.append("")
    out.append("The answer:")
    for s in sentences(rep):
        out += textwrap.wrap(s, width, initial_indent="- ",
                             subsequent_indent="  ")
    return "\n".join(out)
