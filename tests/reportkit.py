# SPDX-License-Identifier: GPL-2.0
"""What the report tests share: their PASS/FAIL lines, counted, and a
results directory made from rows."""

import os
import tempfile

failed = 0


def check(name, ok, why):
    """Prints PASS name, or FAIL name: why and counts it."""
    global failed
    if ok:
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {why}")


def run_dir(rows, header, meta="env=vm\naccel=tcg\n"):
    """A temporary results directory: results.csv of @rows under @header,
    and meta."""
    d = tempfile.mkdtemp(prefix="pidx-report-test.")
    with open(os.path.join(d, "results.csv"), "w") as f:
        f.write(header + "\n")
        for r in rows:
            f.write(",".join(str(x) for x in r) + "\n")
    with open(os.path.join(d, "meta"), "w") as f:
        f.write(meta)
    return d
