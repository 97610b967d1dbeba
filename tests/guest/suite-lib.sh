# shellcheck shell=sh
# suite-lib.sh: sourced by tests/guest/suite.sh (the runner) before every other
# part; not a guest script of its own.  It holds the run's shared state (the
# module, the debugfs directory, the CPU count, the indexes under test,
# PREEMPT_RT and the mode writing storms take there) and the helpers that
# tests in several parts use: pass/fail/expect (the PASS and FAIL lines), wr
# and set_all (debugfs writes), bad (a write that must be refused),
# last_run_rows, unverified_rows and col/colno/within (results.csv),
# rt_refusal, now10 and timed (the TIME lines).  One place for them, so that
# every part writes, reads and counts results the same way.
# Each part sources this file too, so that shellcheck, which lints each file
# alone, sees what the part uses: sourcing it again before the tests run
# changes nothing (the PASS and FAIL counts are the runner's, and so is LEVEL,
# its argument).
# shellcheck disable=SC2034 # the state is read by the other parts

KO=${PIDX_KO:-/pidx/pidx.ko}
OUT=${OUT:-/tmp}
D=/sys/kernel/debug/pidx
# pidx slab caches before the module is loaded: a kernel with the system
# series (docs/system.md) keeps its indexes' caches, of the same names
KERNEL_SLABS=$(grep -c '^pidx' /proc/slabinfo 2>/dev/null)
NCPUS=$(grep -c '^processor' /proc/cpuinfo)
INDEXES="idr skiplist rbskip"
# PREEMPT_RT refuses ipi storms that write (spinlocks in hard IRQ): where a
# test means ipi for a writing storm, it takes WMODE
RT=
WMODE=ipi
case $(uname -v) in *PREEMPT_RT*) RT=1 WMODE=kthread ;; esac

pass() {
	passed=$((passed + 1))
	echo "PASS $1"
}

fail() {
	failed=$((failed + 1))
	echo "FAIL $1: $2"
}

# expect NAME WANT SAW
expect() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', saw '$3'"
	fi
}

# Writes VALUE to a pidx file; prints "ok" or the kernel's error text.
wr() {
	err=$( (echo "$2" >"$D/$1") 2>&1)
	if [ -z "$err" ]; then
		echo ok
	else
		case "$err" in
		*"Invalid argument"*) echo EINVAL ;;
		*"Device or resource busy"*) echo EBUSY ;;
		*"No space left"*) echo ENOSPC ;;
		*"File too large"*) echo EFBIG ;;
		*"Structure needs cleaning"*) echo EUCLEAN ;;
		*"Cannot allocate memory"*) echo ENOMEM ;;
		*"Resource temporarily unavailable"*) echo EAGAIN ;;
		*) echo "other: $err" ;;
		esac
	fi
}

set_all() {
	for kv in "$@"; do
		r=$(wr "${kv%%=*}" "${kv#*=}")
		[ "$r" = ok ] || fail "setting ${kv%%=*}" "write of '${kv#*=}' gave $r"
	done
}

# The helpers that read results.csv run one awk each: under KASAN and
# emulation a guest process costs milliseconds, and the suite reads the
# file thousands of times.  Runs append their rows, so the last run's rows
# are those of the highest run number, in the file's order.

# Rows of results.csv from the last run.
last_run_rows() {
	awk -F, 'NR > 1 { if ($1 > last) { last = $1; n = 0 } if ($1 == last) row[++n] = $0 }
		END { for (i = 1; i <= n; i++) print row[i] }' "$D/results.csv"
}

# How many rows of the last run are not verified=yes.
unverified_rows() {
	awk -F, 'NR > 1 { if ($1 > last) { last = $1; n = 0 } if ($1 == last && $28 != "yes") n++ }
		END { print n + 0 }' "$D/results.csv"
}

# rt_refusal NAME RESULT: a run refused on PREEMPT_RT, testcase naming the fix
rt_refusal() {
	why=$(grep '^last:' $D/testcase)
	case "$2 $why" in
	"EINVAL last: run -22 "*PREEMPT_RT*"echo kthread > mode")
		pass "$1 refused on PREEMPT_RT, testcase says why" ;;
	*) fail "$1 on PREEMPT_RT" "EINVAL, testcase naming PREEMPT_RT and 'echo kthread > mode', saw $2, '$why'" ;;
	esac
}

# bad NAME VALUE ERRNO: refused with ERRNO and the setting unchanged
bad() {
	before=$(cat "$D/$1")
	r=$(wr "$1" "$2")
	after=$(cat "$D/$1")
	if [ "$r" = "$3" ] && [ "$before" = "$after" ]; then
		pass "bad input: $1 <- '$(echo "$2" | cut -c1-24)' gives $3"
	else
		fail "bad input: $1 <- '$(echo "$2" | cut -c1-24)'" "$3 and '$before' kept, saw $r and '$after'"
	fi
}

# col INDEX NAME: column NAME of INDEX's first-repeat row in the last run
# colno NAME: the number of results.csv's column NAME
colno() {
	awk -F, -v name="$1" '{ for (i = 1; i <= NF; i++) if ($i == name) print i; exit }' $D/results.csv
}

col() {
	awk -F, -v ix="$1" -v name="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; if (!c) exit; next }
		{ if ($1 > last) { last = $1; n = 0 } if ($1 == last && $2 == ix && $12 == 0) v[++n] = $c }
		END { for (i = 1; i <= n; i++) print v[i] }' $D/results.csv
}

# within X LO HI: LO <= X <= HI, all decimals
within() {
	awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x + 0 >= lo && x + 0 <= hi) }'
}

# uptime in tenths of a second
now10() {
	awk '{ printf "%d\n", $1 * 10 }' /proc/uptime
}

# nnodes: how many NUMA nodes the guest has (vm-run.sh --numa gives two)
# wait_running: until testcase says a run (started in the background) is
# in flight, at most 10 s
wait_running() {
	i=0
	while ! grep -q 'state: running' $D/testcase && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
}

nnodes() {
	find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l
}

# timed t_name [args]: runs one test and says how long it took, so that the
# suite's time can be spent where it finds faults (the README's timings)
timed() {
	timed_t0=$(now10)
	"$@"
	timed_t=$(($(now10) - timed_t0))
	echo "TIME $1 $((timed_t / 10)).$((timed_t % 10)) s"
}
