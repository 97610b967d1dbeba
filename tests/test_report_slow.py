#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of the report and plot.py's rows on slow rows: a storm that
verified but ran past one of the module's time bounds (verified=slow) is
left out of every comparison with a reason of its own, never counted as a
failed verification, and listed with the bound and the time; a FAILED row
stays a failed verification.

Prints "PASS name" or "FAIL name: why" per check; exits 1 on a failure.
"""

import contextlib
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scripts"))
# pylint: disable=wrong-import-position
from pidxplot.rows import Run  # noqa: E402
from pidxreport.data import SLOW_REASON, Results  # noqa: E402
from pidxreport.render import Report  # noqa: E402
from reportkit import check  # noqa: E402
import reportkit  # noqa: E402

HEADER = ("run,index,workload,mode,mix,cpus,ncpus,keys,ops,pid_max,seed,"
          "repeat,ns_per_op,mops,p50_ns,p99_ns,bytes_per_key,verified,extra,"
          "trace_visits,pmu,node,round_max_ns,irqs_off_max_ns,substrate,"
          "levels")
KBATCH = "CPU 10 took 5041 ms over one kthread batch (bound 5000 ms)"
IPI = "CPU 1 kept interrupts off 5552 ms in one ipi round (bound 5000 ms)"


def row(index, rep, ns, verified="yes", extra="n/a", wl="fork", mode="kthread",
        round_ns=900000000, irqs="n/a", levels=3):
    return [1, index, wl, mode, "90/5/5", "0-15", 16, 1024, 10000, 32768, 1,
            rep, ns, 1.0, 100, 200, 40, verified, extra, 0, "off", "any",
            round_ns, irqs, "kernel", levels]


def main():
    rows = []
    for rep in range(3):
        rows.append(row("idr", rep, 100.0))
        rows.append(row("maple", rep, 120.0))
    # maple's third repeat ran past the kthread bound; the module's words in extra
    rows[5] = row("maple", 2, 900.0, "slow", f"nodes=12;slow={KBATCH}",
                  round_ns=5041000000)
    # an ipi row from before slow= was written: its figures name the bound
    rows.append(row("skiplist", 0, 80.0, "slow", "n/a", wl="lookup",
                    mode="ipi", round_ns=5600000000, irqs=5552000000,
                    levels=1))
    # a wrong result stays FAILED, slow or not
    rows.append(row("rbskip", 0, 90.0, "FAILED", f"slow={KBATCH}"))
    res = Results(reportkit.run_dir(rows, HEADER))

    check("slow rows are left out with a reason of their own",
          res.left_out.get(SLOW_REASON) == 2 and
          res.left_out["verification failed"] == 1,
          f"{SLOW_REASON}: 2, verification failed: 1, saw {res.left_out}")
    check("no slow row is in any comparison",
          not any(r["verified"] == "slow" for r in res.rows) and
          sorted((r["index"], r["repeat"]) for r in res.rows
                 if r["index"] == "maple") == [("maple", 0), ("maple", 1)],
          f"maple repeats 0 and 1 only, saw "
          f"{[(r['index'], r['repeat'], r['verified']) for r in res.rows]}")
    whys = {r["index"]: r.get("slow_why") for r in res.slow}
    check("a slow row is listed with the module's bound and time",
          whys.get("maple") == KBATCH, f"'{KBATCH}', saw {whys}")
    check("a slow row without slow= in extra: bound and time from its figures",
          whys.get("skiplist") ==
          "interrupts off in one ipi round took 5552 ms (bound 5000 ms)",
          f"the ipi figure, saw {whys}")
    check("a FAILED row that also ran slow is a failed verification only",
          [r["index"] for r in res.failed] == ["rbskip"] and
          "rbskip" not in whys,
          f"failed [rbskip], not slow, saw failed "
          f"{[r['index'] for r in res.failed]}, slow {list(whys)}")
    md = Report(res, []).left_out_md()
    check("the report's Rows section counts the slow rows",
          f"{SLOW_REASON}: 2" in md, f"'{SLOW_REASON}: 2' in '{md}'")
    check("the report's Rows section lists each slow row with bound and time",
          "Rows that ran past a time bound: " in md and KBATCH in md,
          f"maple's '{KBATCH}' listed, saw '{md}'")

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        run = Run(res.dir)
    check("plot.py's rows leave slow rows out and say so",
          run.slow == 2 and run.failed == 1 and
          not any(r["verified"] == "slow" for r in run.all_rows) and
          "left out 2 row(s) with verified=slow (ran past a time bound)"
          in err.getvalue(),
          f"2 slow left out with a warning, saw {run.slow}, "
          f"'{err.getvalue().strip()}'")
    return 1 if reportkit.failed else 0


if __name__ == "__main__":
    sys.exit(main())
