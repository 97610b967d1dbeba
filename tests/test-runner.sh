#!/usr/bin/env bash
# The VM runner's verdicts on console logs, without booting: scripts/vm-run.sh --extract
# on the host-pause fixture (tests/fixtures/host-pause) and on variants made from it.
# A host pause (exit 123) needs evidence of one and none of a guest fault; a stall inside
# a pidx run, one that cannot be placed against the runs, one showing pidx code, and any
# other kernel problem are real; a problem before /init, with no exit marker, is a boot
# fault (122).  Then the KCSAN report filter (--kcsan-module,
# --kcsan-library) on tests/fixtures/kcsan: a report counts when one side's access is in
# pidx or in a library helper pidx called; the kernel's own are ignored and listed.
# Prints "PASS name" or "FAIL name: ..." per case.
set -uo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
FIX=$SELF_DIR/fixtures/host-pause/console.log
VMRUN=$REPO/scripts/vm-run.sh
# shellcheck source=../scripts/lib.sh
. "$REPO/scripts/lib.sh"
T=$(mktemp -d /tmp/pidx-test-runner.XXXXXX)
trap 'rm -rf "$T"' EXIT

# case NAME WANT_RC WANT_GREP LOG: --extract LOG must exit WANT_RC and print WANT_GREP
# (an extended regex) on its stderr
case_() {
	local name=$1 want=$2 pat=$3 log=$4 rc
	shift 4
	"$VMRUN" --extract "$log" --out "$T/$name" --quiet "$@" >"$T/$name.out" 2>&1
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -E -- "$pat" "$T/$name.out"; then
		echo "PASS $name (exit $rc)"
	else
		echo "FAIL $name: exit $want and /$pat/, saw exit $rc: $(grep 'vm-run: ' "$T/$name.out" | tail -n 2 | tr '\n' ' ')"
	fi
}

# the stall of the fixture spans 7.2 .. 45.4 s; the run markers are at 5.6 and 5.6 s
case_ "host pause - user-space stall and hrtimer line outside any run" 123 \
	'host pause: .*hrtimer: interrupt took 37987284988 ns' "$FIX"
case_ "host pause - the stall is named as evidence" 123 \
	'host pause: .*soft lockup - CPU#0 stuck for 38s.*CPU serving user space.*no pidx run' "$FIX"

sed 's/pidx: run 1 ends (0)/pidx: run 1 ends (0)\n[   30.000000] pidx: run 2 begins\n[   46.000000] pidx: run 2 ends (0)/' \
	"$FIX" >"$T/in-run.log"
case_ "not a host pause - the same stall inside a pidx run" 125 \
	'real fault: .*soft lockup.*during a pidx run' "$T/in-run.log"
if grep -q 'host pause suspected' "$T/not a host pause - the same stall inside a pidx run.out"; then
	echo "FAIL stall inside a run is never 'host pause suspected': saw it"
else
	echo "PASS stall inside a run is never 'host pause suspected'"
fi
sed 's/pidx: run 1 ends (0)/pidx: run 1 ends (0)\n[   44.000000] pidx: run 2 begins/' "$FIX" >"$T/open-run.log"
case_ "not a host pause - a run still open at the stall" 125 'during a pidx run' "$T/open-run.log"

grep -v 'pidx: run 1' "$FIX" >"$T/unplaced.log"
case_ "not a host pause - no run markers and no dmesg.txt to place the stall" 125 \
	'no complete kernel log' "$T/unplaced.log"

sed 's/^\[   45.414897\]  ret_from_fork+0x8\/0x30$/&\n[   45.414900]  pidx_result_show+0x10\/0x90 [pidx]/' "$FIX" >"$T/pidx-frame.log"
case_ "not a host pause - pidx code in the report" 125 'pidx code or a pidx thread' "$T/pidx-frame.log"

sed 's/^\[   45.824782\] hrtimer.*/&\n[   46.000000] WARNING: CPU: 1 PID: 99 at lib\/list_debug.c:59 __list_del_entry_valid+0x5f\/0x80/' \
	"$FIX" >"$T/warning.log"
case_ "not a host pause - a WARNING beside the host pause" 125 'real fault: .*WARNING' "$T/warning.log"

# without the stall report (45.26 .. 45.42 s): a failed guest (exit 3) whose only kernel
# line of note is a long hrtimer interrupt
nostall() { awk '{ t = $0; sub(/^\[ */, "", t); t += 0 } !(t >= 45.2 && t < 45.5)' "$FIX"; }
nostall | sed 's/PIDX-GUEST-EXIT 0/PIDX-GUEST-EXIT 3/' >"$T/hrtimer-only.log"
case_ "host pause - a failed guest with a 38 s hrtimer interrupt" 123 'not 3\): guest script exited 3' "$T/hrtimer-only.log"
sed 's/took 37987284988 ns/took 217120430 ns/' "$T/hrtimer-only.log" >"$T/hrtimer-short.log"
case_ "not a host pause - a 0.2 s hrtimer interrupt" 3 'guest script exited 3' "$T/hrtimer-short.log"
nostall >"$T/clean.log"
case_ "a clean guest with a host pause stays a pass" 0 'host pause seen, no harm done' "$T/clean.log"

# a kernel problem before /init started, and no exit marker: the kernel's own boot failed
# (122, booted again once); the same problem after /init is the guest's (126)
head -n 5 "$FIX" >"$T/boot-fault.log"
printf '%s\n' '[    2.126531] irq 4: nobody cared (try booting with the "irqpoll" option)' \
	'[    2.126600] Call Trace:' '[    2.126700]  <IRQ>' '[    2.130000] Kernel panic - not syncing: fatal' \
	>>"$T/boot-fault.log"
case_ "boot fault - a Call Trace before init, no exit marker" 122 \
	'faulted in its own boot, before /init started.*Call Trace' "$T/boot-fault.log"
{ head -n 8 "$FIX"; tail -n 4 "$T/boot-fault.log"; } >"$T/after-init.log"
case_ "not a boot fault - the same trace after init started" 126 \
	'stopped without its exit marker.*Call Trace' "$T/after-init.log"
{ head -n 5 "$FIX"; tail -n 4 "$T/boot-fault.log"; sed -n '6,$p' "$FIX"; } >"$T/marker.log"
case_ "not a boot fault - a trace before init in a guest that finished" 125 \
	'kernel problem: .*Call Trace' "$T/marker.log"

# KCSAN: the clean console of a KCSAN guest, with one report (or more) put in before the
# suite's summary
K=$SELF_DIR/fixtures/kcsan
KOPT=(--kcsan-module pidx --kcsan-library "$PIDX_KCSAN_LIBRARY")
with() { # NAME REPORT...: the fixture with the reports, as $T/NAME.log
	local name=$1 r
	shift
	for r in "$@"; do cat "$K/$r.txt"; done >"$T/$name.reports"
	sed "/^GUEST-SUMMARY/{
r $T/$name.reports
N
}" "$K/console.log" >"$T/$name.log"
	grep -q 'BUG: KCSAN' "$T/$name.log" || echo "FAIL fixture $name: no report put in"
}
case_ "kcsan - the clean fixture passes" 0 'guest script exited 0' "$K/console.log" "${KOPT[@]}"
with lib lib-from-pidx
case_ "kcsan - a read in _find_next_zero_bit called from pidx counts" 125 \
	'kernel problem: .*BUG: KCSAN: data-race in _find_next_zero_bit / pidx_pidmap_claim' "$T/lib.log" "${KOPT[@]}"
with both lib-both
case_ "kcsan - both sides in lib helpers called from pidx count" 125 \
	'kernel problem: .*BUG: KCSAN: data-race in __bitmap_clear / _find_next_bit' "$T/both.log" "${KOPT[@]}"
case_ "kcsan - without the library list, a race of two lib helpers is ignored" 0 \
	'KCSAN: 1 report\(s\) outside pidx ignored.*__bitmap_clear / _find_next_bit' "$T/both.log" --kcsan-module pidx
with own pidx-own
case_ "kcsan - a race in pidx's own code counts, reordered frame and all" 125 \
	'kernel problem: .*BUG: KCSAN: data-race in pidx_rbskip_lookup' "$T/own.log" "${KOPT[@]}"
with kern kernel-hrtimer lib-kernel maple-under-pidx
kern="kcsan - the kernel's own races (hrtimer, a helper for the kernel, maple internals) are ignored"
case_ "$kern" 0 \
	'KCSAN: 3 report\(s\) outside pidx ignored .*: BUG: KCSAN: data-race in __hrtimer_run_queues / hrtimer_active' \
	"$T/kern.log" "${KOPT[@]}"
n=$(grep -c 'BUG: KCSAN' "$T/$kern/kcsan-ignored.txt" 2>/dev/null)
if [ "$n" = 3 ] && [ "$(grep -c -e 'Reported by Kernel Concurrency' -e ' mas_walk+' -e ' hrtimer_active+' \
	"$T/$kern/kcsan-ignored.txt")" = 5 ]; then
	echo "PASS kcsan - the ignored reports are listed whole in kcsan-ignored.txt"
else
	echo "FAIL kcsan - ignored reports listed: 3 whole reports in kcsan-ignored.txt, saw ${n:-no file}"
fi
case_ "kcsan - without --kcsan-module every report is a kernel problem" 125 \
	'kernel problem: .*BUG: KCSAN: data-race in __hrtimer_run_queues' "$T/kern.log"
with mixed kernel-hrtimer lib-from-pidx
case_ "kcsan - a pidx report after an ignored one counts" 125 \
	'kernel problem: .*BUG: KCSAN: data-race in _find_next_zero_bit' "$T/mixed.log" "${KOPT[@]}"
case_ "kcsan - a library list without a module is refused" 2 'needs --kcsan-module' \
	"$K/console.log" --kcsan-library "$PIDX_KCSAN_LIBRARY"
