#!/bin/sh
# shellcheck shell=sh
# The VM runner's own test (tests/run-all.sh): a storm whose first batch spins past
# the module's bound (PIDX_ROUND_BOUND_MS, 5 s; debugfs stall_test, in ms) must be
# caught: the storm verifies, so its row is slow, with the bound and the figure in
# test_result.  In ipi mode the spin keeps interrupts off; in kthread mode it holds
# the CPU without a scheduling point.  Prints "SLOW stall MODE: WHY" for each run
# caught as it should be (what this guest exists to produce), "NOT-SLOW stall MODE:
# ROW" for one that was not, and exits 3 like suite.sh does on failures, so that the
# runner's verdict on a guest that reports a problem is tested too.
#
# Usage: stall.sh [MS]   (default 8000)

MS=${1:-8000}
KO=${PIDX_KO:-/pidx/pidx.ko}
D=/sys/kernel/debug/pidx
bad=0

if ! insmod "$KO"; then
	echo "FAIL stall: insmod $KO failed"
	exit 1
fi
for mode in ipi kthread; do
	for kv in indexes=idr workload=lookup "mode=$mode" cpus=all ops=20000 repeat=1 "stall_test=$MS"; do
		echo "${kv#*=}" >"$D/${kv%%=*}" || echo "FAIL stall: write of ${kv#*=} to ${kv%%=*} refused"
	done
	if ! echo run >$D/testcase; then
		echo "FAIL stall: run refused: $(grep last $D/testcase)"
		exit 1
	fi
	row=$(grep -m1 '^idr ' $D/test_result)
	case $row in
	*FAILED*) echo "NOT-SLOW stall $mode: $row" ;;
	*" slow ("*"(bound "*)
		why=${row#* slow (}
		echo "SLOW stall $mode: ${why%)}"
		bad=$((bad + 1))
		;;
	*) echo "NOT-SLOW stall $mode: $row" ;;
	esac
	grep '^bounds:' $D/test_result
	v=$(awk -F, 'NR > 1 { v = $28 } END { print v }' $D/results.csv)
	echo "results.csv verified=$v round_max_ns=$(awk -F, 'NR > 1 { v = $(NF - 1) } END { print v }' $D/results.csv)"
done
echo "stall_test after the runs: $(cat $D/stall_test)"
rmmod pidx
echo "GUEST-SUMMARY stall: $bad runs slow as they should be"
[ "$bad" = 0 ] || exit 3
