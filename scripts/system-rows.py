#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a system benchmark directory's records (DIR/system.txt, written by
scripts/bench-system.sh) into DIR/results.csv rows (substrates system-tcg
and system-native).

usage: system-rows.py DIR
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pidxreport.data import ReportError  # noqa: E402
from pidxreport.sysrows import Records  # noqa: E402


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    d = argv[0]
    try:
        rec = Records(os.path.join(d, "system.txt"))
    except ReportError as e:
        print(f"system-rows.py: {e}", file=sys.stderr)
        return 1
    rec.write_csv(os.path.join(d, "results.csv"))
    print(f"system-rows.py: {len(rec.rows)} rows, {len(rec.errors)} "
          f"errors recorded, {len(rec.fid_module)} fidelity pairs",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
