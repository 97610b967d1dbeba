#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot a pidx results directory (results.csv + meta), or compare two.

usage: plot.py [--out DIR] [--with DIR]... [--compare] RESULTS_DIR
       [RESULTS_DIR2]

Draws, as PNG and SVG, into --out (default RESULTS_DIR/plots):
  nsop_vs_keys        ns/op against keys, one panel per workload
  throughput_vs_cpus  aggregate Mops/s against storming CPUs
  latency             p50 and p99 of sampled single operations
  memory              bytes per key each index held
and, only when results.csv has such rows (not with --compare):
  visits              index nodes and cache lines per operation against
                      keys, from the trace_visits=1 rows
  numa                ns/op by memory placement, from the rows with a
                      node other than "any"
  pmu                 CPU counters per operation of the lookup keys sweep
                      (cachegrind's counts for pmu=cachegrind rows)
  ratio_to_idr        every index's ratio to idr side by side, one bar per
                      source of rows: the kernel's ns/op (under QEMU TCG:
                      emulated, said so), native user space's ns/op, and
                      cachegrind's instructions, D1 and LL misses per op;
                      a panel per workload (lookup, fork) and keys size;
                      drawn when there are two sources or cachegrind rows;
                      the numbers also go to ratio_to_idr.csv
Rows of two substrates (bench.sh under QEMU: substrate=kernel from the VM,
substrate=user from user/pidx-user) draw each figure once per substrate:
the kernel's as named above, user space's named user_*.  Rows with
pmu=cachegrind feed only the pmu and ratio_to_idr figures.  --with DIR
(repeatable) adds another results directory's rows to ratio_to_idr only
(e.g. a TCG sweep beside a native one).
With --compare the files are named compare_*.  Medians and min-max spread
are computed here from the individual repeats; rows with verified=FAILED,
rows with verified=slow (the storm verified but ran past the module's time
bound) and rows run under fault injection (faults= in extra) are left out
(with a warning).  The `null` index is drawn as a grey dashed
"engine cost" reference, never as an index.  Rows with trace_visits=1 (their
times include the tracing) and rows with node other than "any" are left out
of the time and memory figures.  Rows with dependent=1 (lookups that wait
for each other) appear only in ratio_to_idr, as bars of their own, and not
at all under cachegrind, which counts both settings alike.  Rows whose
lookups another dist than uniform drew (zipf:S, recent:H, sequential) are
left out of every figure, which compare uniform lookups (with a warning).
Replay rows (workload=replay) are a workload of their own per trace,
labelled with the trace's event count from extra (replay 406ev).
Rows with levels
above 1 (a number per namespace level) are a workload of their own
(fork (3 levels)).  A results.csv without those columns reads as
trace_visits=0, node=any, pmu n/a, dependent=0, dist=uniform, levels=1.

Runs with Debian's python3-matplotlib: use /usr/bin/python3.
"""

# the figures are drawn by pidxplot/ beside this script, a module per
# figure family (pidxplot/__init__.py lists them)
import argparse
import os
import sys

from pidxplot.common import PROG, VIEW, PlotError, warn
from pidxplot.latency import plot_latency
from pidxplot.memory import plot_memory
from pidxplot.numa import plot_numa
from pidxplot.pmu import plot_pmu
from pidxplot.ratios import plot_ratios
from pidxplot.rows import Run, figure_sets
from pidxplot.scaling import plot_nsop, plot_throughput
from pidxplot.style import Styler, use_agg
from pidxplot.visits import plot_visits


class ArgParser(argparse.ArgumentParser):
    def error(self, message):
        # one line, no usage dump
        print(f"{PROG}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(1)


def main(argv):
    ap = ArgParser(prog=PROG, description=__doc__.split("\n\n")[0],
                   formatter_class=argparse.RawDescriptionHelpFormatter,
                   epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("--out", metavar="DIR",
                    help="output directory (default RESULTS_DIR/plots)")
    ap.add_argument("--compare", action="store_true",
                    help="overlay RESULTS_DIR2 (dashed) on RESULTS_DIR")
    ap.add_argument("--with", dest="with_dirs", action="append", default=[],
                    metavar="DIR",
                    help="another results directory whose rows join the "
                    "ratio_to_idr figure only (repeatable)")
    ap.add_argument("dirs", nargs="+", metavar="RESULTS_DIR")
    args = ap.parse_args(argv)
    if len(args.dirs) > 2:
        ap.error("at most two results directories")
    if args.compare and len(args.dirs) != 2:
        ap.error("--compare needs two results directories")
    if len(args.dirs) == 2 and not args.compare:
        ap.error("two results directories need --compare")
    if args.with_dirs and args.compare:
        ap.error("--with draws ratio_to_idr of one directory: not with "
                 "--compare")

    try:
        runs = [Run(d) for d in args.dirs]
        others = [Run(d) for d in args.with_dirs]
        out = args.out or os.path.join(args.dirs[0], "plots")
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            raise PlotError(f"{out}: cannot create: {e.strerror}")
    except PlotError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1

    for run in runs + others:
        if run.meta_missing:
            warn(f"{run.dir}/meta: missing; titles name the directory only")
        if run.failed:
            warn(f"{run.dir}: left out {run.failed} row(s) with "
                 f"verified=FAILED")
        if run.faulted:
            warn(f"{run.dir}: left out {run.faulted} row(s) run under "
                 f"fault injection (faults= in extra)")
        if run.other_dist:
            warn(f"{run.dir}: left out {run.other_dist} row(s) whose lookups "
                 f"another dist than uniform drew")
        bad = sum(1 for r in run.all_rows if (r.get("errors") or 0) > 0)
        if bad:
            warn(f"{run.dir}: {bad} row(s) report correctness errors "
                 f"(errors > 0); they are plotted")

    use_agg()
    sty = Styler(runs)
    written = []
    for tag, vruns in figure_sets(runs):
        VIEW["tag"] = tag
        plot_nsop(vruns, sty, out, written)
        plot_throughput(vruns, sty, out, written)
        plot_latency(vruns, sty, out, written)
        plot_memory(vruns, sty, out, written)
        plot_visits(vruns, sty, out, written)
        plot_numa(vruns, sty, out, written)
        plot_pmu(vruns, sty, out, written)
    VIEW["tag"] = ""
    if len(runs) == 1:
        plot_ratios(runs[0], others, sty, out, written)
    for p in written:
        print(p)
    if not written:
        warn("no figure drawn")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # stdout closed early (| head): not an error of the plots
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
