# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# suite-system.sh: sourced by tests/guest/suite.sh (the runner), uses
# suite-lib.sh's helpers; not a guest script of its own.  pidx's indexes as
# the kernel's own PID index (system/, docs/system.md), in a checker kernel
# that carries the series: pidx-systest (system/systest/, shipped as
# /pidx/pidx-systest) puts every index into a PID namespace of its own and
# checks the kernel's rules there; allocations fail under it (failslab); and
# the boot's own index, chosen with pidx.index=, is the initial namespace's.

SYS=/sys/kernel/debug/pidx_system
SYSTEST=${PIDX_DIR:-/pidx}/pidx-systest
SYSBENCH=${PIDX_DIR:-/pidx}/pidx-sysbench

# system_ready: the series' debugfs and the test program are there
system_ready() {
	if [ ! -d $SYS ]; then
		fail "system: $SYS" "present (a kernel with system/patches/), saw none"
		return 1
	fi
	if [ ! -x "$SYSTEST" ]; then
		fail "system: $SYSTEST" "present (tests/run-all.sh ships it), saw none"
		return 1
	fi
}

# system_run ARGS...: pidx-systest's PASS and FAIL lines counted as the
# suite's own, and its summary line required
system_run() {
	"$SYSTEST" "$@" >/tmp/systest.out 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"PASS "*)
			passed=$((passed + 1))
			echo "$line"
			;;
		"FAIL "*)
			failed=$((failed + 1))
			echo "$line"
			;;
		*) echo "$line" ;;
		esac
	done </tmp/systest.out
	grep -q '^SYSTEST-SUMMARY' /tmp/systest.out ||
		fail "system: pidx-systest $*" "its SYSTEST-SUMMARY line, saw exit $rc: $(tail -n 2 /tmp/systest.out | tr '\n' ' ')"
}

# Every index in a namespace of its own, each through the whole list of
# rules (pidx-systest --help).
t_system() {
	system_ready || return
	system_run --index all --quick
}

# The refusals at run time: an unknown name and each refused index get
# EINVAL and leave index as it was; a refused one says why in dmesg.
t_system_refusals() {
	system_ready || return
	was=$(cat $SYS/index)
	for ix in maple ccskip lfradix_pc null nosuch ''; do
		expect "system: index <- '$ix' gives EINVAL" EINVAL "$(wr_sys index "$ix")"
	done
	expect "system: index unchanged by the refusals" "$was" "$(cat $SYS/index)"
	if dmesg | grep -q 'maple refused as a PID namespace.s index: its writers need interrupts on'; then
		pass "system: a refused index's reason is in dmesg"
	else
		fail "system: refusal message" "maple's reason in dmesg, saw: $(dmesg | grep pidx_system | tail -n 2 | tr '\n' ' ')"
	fi
	expect "system: stats <- 'x' gives EINVAL" EINVAL "$(wr_sys stats x)"
}

# wr_sys FILE VALUE: wr's answer for a file of the series' debugfs
wr_sys() {
	# echo, not printf: busybox's printf does not report a failed write
	err=$( (echo "$2" >"$SYS/$1") 2>&1)
	case "$err" in
	'') echo ok ;;
	*"Invalid argument"*) echo EINVAL ;;
	*) echo "$err" ;;
	esac
}

# t_system_boot NAME WHY: the initial namespace's index is NAME after this
# boot's pidx.index= (WHY says what the parameter was), and dmesg says so.
t_system_boot() {
	system_ready || return
	expect "system: initial namespace's index is $1 ($2)" "index=$1 level=0" "$(cat $SYS/self)"
	if dmesg | grep -q "pidx_system: the initial PID namespace's index is $1\$"; then
		pass "system: dmesg names the initial namespace's index ($1)"
	else
		fail "system: boot message" "'the initial PID namespace's index is $1' in dmesg, saw: $(dmesg | grep pidx_system | head -n 2 | tr '\n' ' ')"
	fi
}

# The fallback of a bad pidx.index=: idr, with the reason in dmesg.
t_system_boot_fallback() {
	t_system_boot idr "pidx.index=$1"
	if dmesg | grep -q "pidx_system: .*$1.*the initial PID namespace keeps idr"; then
		pass "system: pidx.index=$1 falls back to idr and says so"
	else
		fail "system: fallback message" "'... keeps idr' naming $1 in dmesg, saw: $(dmesg | grep pidx_system | head -n 2 | tr '\n' ' ')"
	fi
}

# Allocations fail under pidx-systest --faults: namespaces and forks are
# refused (ENOMEM, EAGAIN) and nothing else; afterwards every namespace is
# gone and the indexes hold what they held before.  failslab fails only the
# tasks marked make-it-fail: the program marks itself, and its children
# inherit the mark.
t_system_failslab() {
	system_ready || return
	fs=/sys/kernel/debug/failslab
	if [ ! -d $fs ]; then
		fail "system: failslab" "$fs present (the KASAN kernel), saw none"
		return
	fi
	echo 0 >$fs/verbose
	echo 1 >$fs/interval
	echo 0 >$fs/space
	echo Y >$fs/task-filter
	echo N >$fs/ignore-gfp-wait
	echo 1000000000 >$fs/times
	echo 5 >$fs/probability
	system_run --index all --faults
	echo 0 >$fs/probability
	echo N >$fs/task-filter
	echo Y >$fs/ignore-gfp-wait
	read -r left <$fs/times
	n=$((1000000000 - left))
	if [ "$n" -gt 0 ]; then
		pass "system: failslab injected $n allocation failures under pidx-systest"
	else
		fail "system: failslab" "some injected failures, saw none"
	fi
}

# The boot whose own index (OWN) is not idr: the module's selftest of OWN
# and idr runs beside pidx-systest's tests of OWN, in the same machine,
# while every fork, kthread and /proc walk goes through that index.  pid-max comes after: it
# lowers the machine's pid_max to 301, and the selftest's kthreads would
# find no number.
t_system_own() {
	system_ready || return
	set_all "indexes=$1,idr"
	(wr testcase selftest >/tmp/selftest-beside.out 2>&1) &
	st=$!
	# every index's own namespaces are t_system's, in the same kernel: here
	# the program's namespaces take OWN too, at levels 1 to 3 above level 0's
	system_run --index "$1" --quick --skip pid-max
	wait $st
	expect "system: the module's selftest of $1 and idr beside pidx-systest returns success" ok \
		"$(cat /tmp/selftest-beside.out)"
	saved=$INDEXES
	INDEXES="$1 idr"
	selftest_lines selftest 100
	INDEXES=$saved
	set_all indexes=all
	system_run --index "$1" --quick --only pid-max
}

# stats_of INDEX KEY: KEY's value on INDEX's row of pidx-sysbench's copy of
# pidx_system/stats
stats_of() {
	sed -n "s/^index=$1 .* $2=\([0-9]*\).*/\1/p" /tmp/stats.snap
}

# The system benchmark's program at a small size, in the boot's own index
# (its nsfork's namespaces too), each workload with the index timing on,
# the counts zeroed as its measured phase starts and copied as it ends
# (--stats): the line it prints, and the calls stats counted for the
# operations it says it made (a fork's PID is reserved and published, one
# alloc call each, at every level, and freed once it is reaped).  An
# operation in flight at either end of the phase is counted on one side
# only: 4 of slack, two for each of the two processes.  The timing is
# switched while nothing runs (scripts/bench-system-guest.sh says why).
t_system_bench() {
	system_ready || return
	if [ ! -x "$SYSBENCH" ]; then
		fail "system: $SYSBENCH" "present (tests/run-all.sh ships it), saw none"
		return
	fi
	own=$(sed -n 's/^index=\([^ ]*\).*/\1/p' $SYS/self)
	was=$(cat $SYS/index)
	echo "$own" >$SYS/index
	for w in threadspawn fork vfork "nsfork 2" "procwalk 50" "kill 50"; do
		echo on >$SYS/stats
		# shellcheck disable=SC2086 # the workload and its argument
		out=$("$SYSBENCH" $w --seconds 0.2 --warmup 0 --procs 2 --stats $SYS/stats \
			--stats-out /tmp/stats.snap 2>&1)
		rc=$?
		echo off >$SYS/stats
		ops=$(echo "$out" | sed -n 's/.* ops=\([0-9]*\) .*/\1/p')
		if [ "$rc" != 0 ] || [ -z "$ops" ] || [ "$ops" = 0 ]; then
			fail "system: pidx-sysbench $w in $own" "exit 0 and ops, saw exit $rc: $out"
			continue
		fi
		a=$(stats_of "$own" alloc_calls)
		f=$(stats_of "$own" free_calls)
		lk=$(stats_of "$own" find_calls)
		ge=$(stats_of "$own" find_ge_calls)
		n=$((ops - 4))
		case $w in
		threadspawn | fork | vfork) ok=$([ "$a" -ge $((2 * n)) ] && [ "$f" -ge "$n" ] && echo yes) ;;
		nsfork*) ok=$([ "$a" -ge $((6 * n)) ] && [ "$f" -ge $((3 * n)) ] &&
			echo "$out" | grep -q ' nspid_levels=3$' && echo yes) ;;
		procwalk*) ok=$([ "$ge" -ge $((50 * n)) ] && echo yes) ;;
		kill*) ok=$([ "$lk" -ge "$n" ] && echo yes) ;;
		esac
		if [ "$ok" = yes ]; then
			pass "system: pidx-sysbench $w in $own: $ops ops, stats counted alloc $a, free $f, find $lk, find_ge $ge"
		else
			fail "system: pidx-sysbench $w in $own" "stats' calls for $ops ops, saw alloc $a, free $f, find $lk, find_ge $ge: $out"
		fi
	done
	echo "$was" >$SYS/index
}
