#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Checks of the System view (scripts/pidxreport/sysrows.py and system.py,
scripts/system-rows.py) on synthetic records of known answer: each check
writes a system benchmark directory (system.txt, bound.csv, meta) whose
rates, stats and costs give a known ratio, share, verdict and fidelity,
and prints "PASS name" or "FAIL name: why".
"""

import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "scripts")
sys.path.insert(0, SCRIPTS)
# pylint: disable=wrong-import-position
from pidxreport.sysrows import Records  # noqa: E402
from pidxreport.system import SystemView  # noqa: E402
from reportkit import check  # noqa: E402
import reportkit  # noqa: E402



def sysline(kind, wl, rate, arg=None, procs=1, stats=None, extra=""):
    secs = 1.0
    ops = int(rate * secs)
    s = (f"{kind} workload={wl} ops_per_s={rate:.1f} ops={ops} "
         f"seconds={secs:.6f} procs={procs}")
    if arg is not None:
        s += f" arg={arg}"
    s += f" ns_per_op={secs * 1e9 * procs / ops:.1f} ops_min={ops} " \
         f"ops_max={ops}{extra}"
    if stats:
        s += " stats namespaces=1 " + " ".join(
            f"{k}_calls={ops} {k}_ns={int(v * ops)}"
            for k, v in stats.items())
    return s


def boot(rep, order, index, rates, index_ns=None, fidelity=None):
    """The records of one boot: rates {workload: ops/s}; index_ns
    {workload: ns of alloc per op} for its timed runs."""
    out = [f"run repeat={rep} order={order} substrate=system-tcg "
           f"fidelity={'yes' if fidelity else 'no'}",
           f"boot index={index} kernel=6.1.192-pidx-system vcpus=2 "
           "threads=40"]
    for wl, rate in rates.items():
        name, _, arg = wl.partition(":")
        out.append(sysline("rate", name, rate, arg or None))
        if index_ns is not None:
            out.append(sysline("timed", name, rate, arg or None,
                               stats={"alloc": index_ns[wl], "free": 0,
                                      "find": 0, "find_ge": 0}))
    if fidelity:
        mod, ker = fidelity
        hdr = "run,index,workload,ns_per_op,verified,repeat"
        out.append(f"fidelity_header {hdr}")
        for i, v in enumerate(mod):
            out.append(f"fidelity_module 1,idr,fork,{v},yes,{i}")
            out.append(f"fidelity_module 1,null,fork,{v / 5},n/a,{i}")
        for v in ker:
            # 1000 forks whose alloc and free took v ns together
            out.append("fidelity_kernel workload=fork ops_per_s=1000.0 "
                       "ops=1000 seconds=1.000000 procs=1 ns_per_op=1e6 "
                       f"threads=40 stats alloc_calls=2000 "
                       f"alloc_ns={int(v * 600)} free_calls=1000 "
                       f"free_ns={int(v * 400)} find_calls=0 find_ns=0")
    out.append("end")
    return out


def native(rep, rates):
    out = [f"run repeat={rep} order=0 substrate=system-native",
           "boot index=host kernel=6.18 vcpus=2 threads=100"]
    for wl, (rate, extra) in rates.items():
        name, _, arg = wl.partition(":")
        out.append(sysline("rate", name, rate, arg or None, extra=extra))
    return out + ["end"]


def bound_csv(path, costs):
    """costs {run: {index: [ns by repeat]}} as pidx-user's rows."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["run", "index", "workload", "repeat", "ns_per_op",
                    "verified"])
        for run, per in costs.items():
            for index, vals in per.items():
                for r, v in enumerate(vals):
                    w.writerow([run, index, "fork", r, v, "yes"])


def make_dir(lines, costs=None, meta="repeat=5\nseconds=1\nvcpus=2\n"):
    d = tempfile.mkdtemp(prefix="pidx-system-test.")
    with open(os.path.join(d, "system.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(d, "meta"), "w") as f:
        f.write(meta + "parts=native,system\nstock=1\n")
    if costs:
        bound_csv(os.path.join(d, "bound.csv"), costs)
    r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "system-rows.py"),
                        d], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"system-rows.py: {r.stderr}")
    return d


def standard(gain=1.05, stock_over_idr=1.01, fid=None):
    """Five repeats: idr at 1000 fork/s, skiplist and rbskip at gain
    times it (each repeat its own host speed), stock at stock_over_idr."""
    lines = []
    for r in range(1, 6):
        speed = 1 + r / 10
        wl = {"fork": 1000 * speed, "vfork": 2000 * speed,
              "nsfork:2": 500 * speed, "threadspawn": 4000 * speed}
        ns = {"fork": 800.0, "vfork": 400.0, "nsfork:2": 2400.0,
              "threadspawn": 300.0}
        lines += boot(r, 1, "idr", wl, ns,
                      fid if r == 1 else None)
        lines += boot(r, 2, "skiplist", {k: v * gain for k, v in wl.items()},
                      ns)
        lines += boot(r, 3, "rbskip", {k: v * gain for k, v in wl.items()},
                      ns)
        lines += boot(r, 4, "stock",
                      {k: v * stock_over_idr for k, v in wl.items()})
    return lines


def cut_repeats(lines, keep):
    """The records of the first `keep` repeats only."""
    out, on = [], True
    for ln in lines:
        if ln.startswith("run repeat="):
            on = int(ln.split()[1].split("=")[1]) <= keep
        if on:
            out.append(ln)
    return out


def main():
    # rows: one per rate line, nsfork:2 at three levels, stats per op
    d = make_dir(standard())
    rec = Records(os.path.join(d, "system.txt"))
    rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
    ns = [r for r in rows if r["workload"] == "nsfork:2"]
    check("system-rows: a row per rate line, nsfork:2 at 3 levels",
          len(rows) == 5 * 4 * 4 and len(ns) == 20 and
          all(r["levels"] == "3" for r in ns) and
          all(r["substrate"] == "system-tcg" for r in rows),
          f"{len(rows)} rows, {len(ns)} nsfork, "
          f"{set(r['levels'] for r in ns)}")
    fork = [r for r in rec.rows if r["workload"] == "fork"
            and r["index"] == "idr"]
    x = fork[0]["extra"]
    check("system-rows: the index's ns per op and its share from stats",
          x.get("index_ns_per_op") == "800.0" and
          abs(float(x["index_share"]) - 800 / (1e9 / 1100)) < 1e-4,
          f"{x}")
    sv = SystemView(d)
    iv = sv.ratio("fork", "skiplist")
    check("system: skiplist's rate over idr's, paired by repeat: 1.05 at 93.8%",
          iv.n == 5 and abs(iv.median - 1.05) < 1e-3 and
          abs(iv.lo - 1.05) < 2e-3 and sv.level() == "93.8%",
          f"n={iv.n} median={iv.median} lo={iv.lo} level={sv.level()}")
    v, ivs, shares = sv.seed_verdict()
    check("system: idr's share under TCG alone (0.1%) does not refute the "
          "seed's +10%: no native share", v == "inconclusive" and
          len(ivs) == 4 and len(shares) == 2, f"{v}, {len(ivs)} intervals, "
          f"{shares}")
    nat = []
    for r in range(1, 6):
        nat += native(r, {"fork": (10000.0, ""), "vfork": (20000.0, "")})
    # idr 1000 ns of a 100 us fork (1%) and of a 50 us vfork (2%)
    small = {1: {"idr": [1000] * 5, "lfradix": [800] * 5}}
    v, _, shares = SystemView(make_dir(standard() + nat, small)) \
        .seed_verdict()
    check("system: idr's shares under 9.1%, in the guest and natively, "
          "refute it", v == "refuted" and len(shares) == 4,
          f"{v} {shares}")
    big = {1: {"idr": [10000] * 5, "lfradix": [8000] * 5}}
    v, _, _ = SystemView(make_dir(standard() + nat, big)).seed_verdict()
    check("system: a native share of 10% of a fork (20% of a vfork) "
          "leaves it open", v == "inconclusive", f"{v}")
    v, _, _ = SystemView(make_dir(cut_repeats(standard(gain=1.2), 3) + nat,
                                  small)).seed_verdict()
    check("system: 3 repeats (a 75% interval) decide nothing",
          v == "inconclusive", f"{v}")
    v, _, _ = SystemView(make_dir(standard(gain=1.2))).seed_verdict()
    check("system: +20% confirms it", v == "confirmed", f"{v}")
    # one repeat's skiplist at +0%: its interval then reaches below 1.10
    rec_lines = standard(gain=1.2)
    cut = rec_lines.index("run repeat=3 order=2 substrate=system-tcg "
                          "fidelity=no")
    slow = boot(3, 2, "skiplist", {"fork": 1300.0, "vfork": 2600.0,
                                   "nsfork:2": 650.0, "threadspawn": 5200.0},
                {"fork": 800.0, "vfork": 400.0, "nsfork:2": 2400.0,
                 "threadspawn": 300.0})
    rec_lines[cut:cut + len(slow)] = slow
    v, _, _ = SystemView(make_dir(rec_lines)).seed_verdict()
    check("system: an interval across 1.10 is inconclusive",
          v == "inconclusive", f"{v}")
    # the dispatch: idr over stock
    d1 = SystemView(make_dir(standard(stock_over_idr=1.01))).dispatch()
    d3 = SystemView(make_dir(standard(stock_over_idr=1.05))).dispatch()
    check("system: idr at 0.99 of stock meets the 2% dispatch target, "
          "at 0.95 misses it",
          abs(d1["fork"].median - 1 / 1.01) < 1e-3 and
          "**met**" in SystemView(make_dir(standard(stock_over_idr=1.01)))
          .markdown() and
          "**missed**" in SystemView(make_dir(standard(stock_over_idr=1.05)))
          .markdown(),
          f"{d1['fork'].median} {d3['fork'].median}")
    # fidelity: the module's idr over the kernel's, paired
    sv = SystemView(make_dir(standard(fid=([500, 600, 700],
                                           [1000, 1000, 1000]))))
    f = sv.fidelity()
    check("system: fidelity is the module's idr less null over the "
          "kernel's, bracketed by the far ends",
          f and abs(f[0] - 0.48) < 1e-9 and "**0.480 [0.360-0.600]**" in
          sv.markdown(), f"{f}")
    # the native bound: idr's share and the fastest and slowest change
    nat = []
    for r in range(1, 6):
        nat += native(r, {"fork": (10000.0, ""),
                          "procwalk:100": (1000.0, " entries=50"),
                          "vfork": (20000.0, "")})
    costs = {1: {"idr": [1000] * 5, "skiplist": [1500] * 5,
                 "lfradix": [800] * 5, "null": [10] * 5},
             4: {"idr": [100] * 5, "skiplist": [300] * 5,
                 "lfradix": [100] * 5},
             5: {"idr": [10] * 5, "skiplist": [20] * 5, "lfradix": [5] * 5}}
    sv = SystemView(make_dir(nat, costs))
    share, (fi, fc), (si, sc) = sv.bound("fork")
    check("system: the native bound: idr 1000 ns of a 100 us fork is 1%; "
          "lfradix -0.2%, skiplist +0.5%, null left out",
          abs(share.median - 0.01) < 1e-9 and fi == "lfradix" and
          abs(fc.median + 0.002) < 1e-9 and si == "skiplist" and
          abs(sc.median - 0.005) < 1e-9,
          f"{share.median} {fi} {fc.median} {si} {sc.median}")
    share, _, (si, sc) = sv.bound("procwalk:100")
    # a walk: (100 live + 100 parked) find_ge steps; idr's return the
    # entry, the others' look it up after
    want = 200 * 10 / 1e6
    check("system: procwalk's bound: a find_ge step per task, and a lookup "
          "after it but for idr",
          abs(sc.median - 200 * (20 + 300 - 10) / 1e6) < 1e-9 and
          abs(share.median - want) < 1e-9 and si == "skiplist",
          f"{share.median} want {want}, slowest {si}")
    check("system: the README's sentence says the native share and the "
          "change", sv.sentence().startswith(
              "Natively idr's work is 1.0% of a fork (pidx-user's cost over "
              "the host's fork), and the other system indexes change a fork "
              "by -0.20% (lfradix) to +0.50% (skiplist)"),
          sv.sentence())
    # a boot whose kernel fell back to another index must not pair twice
    dup = standard() + boot(1, 5, "idr", {"fork": 1.0})
    try:
        make_dir(dup)
        ok, why = False, "system-rows.py took it"
    except RuntimeError as e:
        ok, why = "a second fork of idr in repeat 1" in str(e), str(e)
    check("system-rows: a second row of one index, workload and repeat is "
          "refused, naming it", ok, why)
    # rows at another vCPU count (a lent machine's): a table of their own
    more = [ln.replace("vcpus=2", "vcpus=16") for ln in standard(gain=1.0)]
    sv = SystemView(make_dir(standard() + more))
    md = sv.markdown()
    # idr's threadspawn at 4000 x (1 + r/10): median 5200 at both counts;
    # skiplist's 5460 at 2 vCPUs (gain 1.05), 5200 at 16 (gain 1.0)
    check("system: rows at 2 and 16 vCPUs: the tables take the 2-vCPU "
          "rows, a table sets threadspawn against vCPUs",
          "| index | 2 vCPUs | 16 vCPUs |" in md and
          "| skiplist | 5.46k [4.62k-6.30k] | 5.20k [4.40k-6.00k] |" in md and
          abs(sv.ratio("fork", "skiplist").median - 1.05) < 1e-3,
          md[md.find("### threadspawn"):][:300])
    # report.py over a directory of system rows alone
    r = subprocess.run([sys.executable, os.path.join(SCRIPTS, "report.py"),
                        d], capture_output=True, text=True)
    text = open(os.path.join(d, "REPORT.md")).read() if not r.returncode \
        else ""
    check("report.py: a system-only directory gets a report of its System "
          "view", r.returncode == 0 and "## System view" in text and
          "system-tcg" in text, f"exit {r.returncode}: {r.stderr[-300:]}")
    print(f"{reportkit.failed} failed")
    return 1 if reportkit.failed else 0


if __name__ == "__main__":
    sys.exit(main())
