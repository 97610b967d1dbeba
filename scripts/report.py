#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Write a pidx results directory's REPORT.md from its data.

usage: report.py [--targets FILE] [--terminal] DIR
       report.py --update FILE...
       report.py --check [--repo DIR]

DIR/results.csv and DIR/meta (and the figures in DIR/plots/) give
DIR/REPORT.md: the run, the verdict of every target in
results/targets.toml, the fastest index of each workload and size, every
index's ratio to idr on each substrate, memory per key, cachegrind's
counts and the figures.  --terminal also prints what the end of a run
shows: the targets table, then the answer in at most five sentences.

--update fills the generated blocks of the markdown FILEs, between
    <!-- pidx-report:begin RESULTS_DIR -->  and  <!-- pidx-report:end -->
(RESULTS_DIR relative to the repository), from that directory's data;
"begin RESULTS_DIR traffic" gives only the answers on skewed and
recorded traffic; "begin RESULTS_DIR full" adds to the answer and the
targets the fastest index of each configuration, the ratios against the
previous reference and the traffic's answers.

--check regenerates every committed results/*/REPORT.md and every block
of README.md and results/README.md, and exits 1 with a diff when any of
them differs from what the data gives now.
"""

import argparse
import difflib
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
from pidxreport import answer, targets as tg  # noqa: E402
from pidxreport.data import ReportError, Results  # noqa: E402
from pidxreport.glossary import glossary_from  # noqa: E402
from pidxreport.render import Report  # noqa: E402
from pidxreport.system import SystemView  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"(<!-- pidx-report:begin (\S+)(?: (traffic|full))? -->\n)(.*?)"
                   r"(<!-- pidx-report:end -->)", re.S)
DOCS_WITH_BLOCKS = ("README.md", "results/README.md")


def targets_for(directory, default):
    """A directory's own targets.toml, the targets it was judged by when it
    was the reference, wins over results/targets.toml: history keeps its
    verdicts when the targets move on."""
    own = os.path.join(directory, "targets.toml")
    return (own, True) if os.path.isfile(own) else (default, False)


def sibling(directory, pointer):
    """(name, path) of the sibling results directory that the file
    DIR/pointer names, or None without the file."""
    ptr = os.path.join(directory, pointer)
    if not os.path.isfile(ptr):
        return None
    with open(ptr, encoding="utf-8") as f:
        name = f.read().strip()
    path = os.path.join(os.path.dirname(os.path.abspath(directory)), name)
    if not os.path.isfile(os.path.join(path, "results.csv")):
        raise ReportError(f"{ptr}: no results directory {name}")
    return name, path


def system_of(directory, res):
    """The System view of a run: its own system rows, or the system run
    that its file `system` names (a sibling directory)."""
    named = sibling(directory, "system")
    if named:
        return SystemView(named[1])
    if not res.system_rows:
        return None
    # make bench keeps the system part's own files in system/
    sub = os.path.join(directory, "system")
    return SystemView(sub if os.path.isdir(sub) else directory)


def make_report(directory, targets):
    path, own = targets_for(directory, targets)
    res = Results(directory)
    if not res.rows:
        return None
    rep = Report(res, tg.load(path))
    rep.own_targets = own
    rep.glossary = glossary_from(directory)
    rep.system = system_of(directory, res)
    # DIR/previous names the reference before this one (a sibling
    # directory): the report sets its verdicts beside this one's
    named = sibling(directory, "previous")
    if named:
        name, pdir = named
        ppath, _ = targets_for(pdir, targets)
        rep.previous = (name, Report(Results(pdir), tg.load(ppath)))
    return rep


def report_text(directory, targets):
    rep = make_report(directory, targets)
    if rep is None:
        # the system benchmark's directory alone
        return None, SystemView(directory).report()
    return rep, rep.markdown(os.path.basename(os.path.abspath(directory)))


def updated(path, repo, targets):
    """The text of the markdown file at path with its blocks regenerated."""
    with open(path, encoding="utf-8") as f:
        text = f.read()

    def fill(m):
        d = os.path.join(repo, m.group(2))
        rep = make_report(d, targets)
        rel = os.path.relpath(d, os.path.dirname(os.path.abspath(path)))
        if m.group(3) == "traffic":
            return m.group(1) + rep.traffic_block(rel) + "\n" + m.group(5)
        gl = glossary_from(os.path.dirname(os.path.abspath(path)))
        return m.group(1) + rep.summary_block(
            rel, full=m.group(3) == "full", glossary=gl) + "\n" + m.group(5)
    return text, BLOCK.sub(fill, text)


def show_diff(name, old, new):
    sys.stdout.writelines(difflib.unified_diff(
        old.splitlines(True), new.splitlines(True),
        f"{name} (committed)", f"{name} (from the data now)"))


def check(repo, targets):
    bad = 0
    seen = 0
    results = os.path.join(repo, "results")
    for d in sorted(os.listdir(results)):
        path = os.path.join(results, d, "REPORT.md")
        if not os.path.isfile(path):
            continue
        seen += 1
        with open(path, encoding="utf-8") as f:
            old = f.read()
        _, new = report_text(os.path.join(results, d), targets)
        if old != new:
            bad += 1
            show_diff(f"results/{d}/REPORT.md", old, new)
    for doc in DOCS_WITH_BLOCKS:
        path = os.path.join(repo, doc)
        old, new = updated(path, repo, targets)
        n = len(BLOCK.findall(old))
        seen += n
        if not n:
            bad += 1
            print(f"report.py: {doc}: no generated block")
        elif old != new:
            bad += 1
            show_diff(doc, old, new)
    print(f"report.py: {seen} generated documents and blocks, "
          f"{bad} differ from their data")
    return 1 if bad else 0


def main(argv):
    ap = argparse.ArgumentParser(prog="report.py", description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--targets",
                    default=os.path.join(REPO, "results", "targets.toml"))
    ap.add_argument("--terminal", action="store_true")
    ap.add_argument("--update", nargs="+", metavar="FILE")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--repo", default=REPO)
    a = ap.parse_args(argv)
    try:
        if a.check:
            return check(a.repo, a.targets)
        if a.update:
            for path in a.update:
                _, new = updated(path, a.repo, a.targets)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
            return 0
        if not a.dir:
            ap.error("a results directory, --update or --check")
        rep, text = report_text(a.dir, a.targets)
        out = os.path.join(a.dir, "REPORT.md")
        with open(out, "w", encoding="utf-8") as f:
            f.write(text)
        if a.terminal and rep:
            print(answer.terminal(rep))
        print(f"report.py: wrote {out}", file=sys.stderr)
        return 0
    except ReportError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
