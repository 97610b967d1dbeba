#!/bin/sh
# shellcheck shell=sh
# The guest half of `make check`: drives pidx.ko through debugfs exactly as a
# user does, inside a stock kernel booted by scripts/vm-run.sh.  Prints one
# line per test, "PASS name" or "FAIL name: expected ..., saw ...", and
# "GUEST-SUMMARY N passed, N failed" at the end; exits 1 on any failure.
# Results land in $OUT (results.csv of the workload matrix, test log).
#
# Usage: suite.sh [full|quick|matrix|smoke|broken|debug|failslab|numa|rt|kcsan|only t_name...]
#   full:  everything (the 2-vCPU boot)
#   debug: all but the long dense-allocation, busy and prefill storms (debug kernel),
#          with allocation failures injected (failslab)
#   failslab: load, selftest, the workload matrix and the failslab group
#   quick: load, selftest, the workload matrix and interleave on one node
#          (the 1- and 4-vCPU boots)
#   matrix: load, selftest, the workload matrix, bad input and load/unload
#          cycles (other Debian kernels)
#   smoke: load and the selftest of idr and skiplist (the DKMS-built module)
#   broken: smoke and the workload matrix (a deliberately broken index)
#   numa:  load, NUMA placement, interleave and every value of every
#          setting, the selftest under two of them (a guest with two nodes)
#   kcsan: load, the workload matrix, then the selftest's concurrent phases
#          and dense storms with KCSAN watching one access in 200, reporting
#          races on pidx's data, in its code or the lib/ helpers it calls
#          (the KCSAN debug kernel)
#   rt:    quick, the defaults, the lockref loop and cycles (PREEMPT_RT kernel)

LEVEL=${1:-full}
KO=${PIDX_KO:-/pidx/pidx.ko}
OUT=${OUT:-/tmp}
D=/sys/kernel/debug/pidx
NCPUS=$(grep -c '^processor' /proc/cpuinfo)
INDEXES="idr skiplist rbskip"
# PREEMPT_RT refuses ipi storms that write (spinlocks in hard IRQ): where a
# test means ipi for a writing storm, it takes WMODE
RT=
WMODE=ipi
case $(uname -v) in *PREEMPT_RT*) RT=1 WMODE=kthread ;; esac
passed=0
failed=0

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

# Rows of results.csv from the last run.
last_run_rows() {
	awk -F, 'NR > 1 { row[NR] = $0; run[NR] = $1; if ($1 > last) last = $1 }
		END { for (i in row) if (run[i] == last) print row[i] }' "$D/results.csv"
}

# How many rows of the last run are not verified=yes.
unverified_rows() {
	last_run_rows | awk -F, '$28 != "yes"' | wc -l
}

t_load() {
	if insmod "$KO" ops=500; then
		pass load
	else
		fail load "insmod $KO failed"
		echo "GUEST-SUMMARY $passed passed, $failed failed"
		exit 3
	fi
	expect "load: module parameter applied" 500 "$(cat $D/ops)"
	# every index the module has, but the null one, is under test
	all=$(awk -F'\t' '$1 != "null" { printf "%s%s", sep, $1; sep = "," }' $D/available)
	INDEXES=$(echo "$all" | tr , ' ')
	missing=
	for ix in idr skiplist rbskip null; do
		cut -f1 $D/available | grep -qx "$ix" || missing="$missing $ix"
	done
	expect "available lists idr, skiplist, rbskip and null" "" "$missing"
	expect "indexes default to all but null" "$all" "$(cat $D/indexes)"
}

# Under KCSAN: report only races on pidx's data.  The whole kernel is
# instrumented, and KCSAN_STRICT reports the core kernel's own intentional races
# too (hrtimer_active against __hrtimer_run_queues, seen at 4.8 s into boot in
# CI); those are not ours to judge.  So the guest boots with
# kcsan.early_enable=0 (run-all.sh) and KCSAN is switched on here, once the
# filter is in place.  KCSAN skips a report when either side's top frame is not
# on the list: the list holds pidx's functions and the lib/ helpers that pidx
# calls on its own data (vm-run.sh --kcsan-library, written to
# /pidx/kcsan-library), since a plain read in find_next_zero_bit() on pidx's
# bitmap is pidx's race (issue 30).  Other libraries' internals (lib/idr.c,
# lib/maple_tree.c) stay off the list.  A helper's report that the kernel's own
# callers cause has no pidx frame, and the runner (--kcsan-module) ignores it.
t_kcsan_filter() {
	k=/sys/kernel/debug/kcsan
	if [ ! -e $k ]; then
		fail "kcsan: debugfs" "$k present, saw none"
		return
	fi
	n=0
	bad=0
	echo whitelist >$k || bad=$((bad + 1))
	awk '$4 == "[pidx]" && ($2 == "t" || $2 == "T") { print $3 }' /proc/kallsyms >/tmp/pidx-text
	while read -r f; do
		echo "!$f" >$k 2>/dev/null || bad=$((bad + 1))
		n=$((n + 1))
	done </tmp/pidx-text
	expect "kcsan: report filter lists every pidx function ($n)" 0 "$bad"
	re=$(cat /pidx/kcsan-library 2>/dev/null)
	if [ -n "$re" ]; then
		awk -v re="$re" 'NF == 3 && ($2 == "t" || $2 == "T") && $3 ~ re { print $3 }' \
			/proc/kallsyms | sort -u >/tmp/pidx-lib
		m=0
		bad=0
		while read -r f; do
			echo "!$f" >$k 2>/dev/null || bad=$((bad + 1))
			m=$((m + 1))
		done </tmp/pidx-lib
		if [ "$m" -gt 0 ] && [ "$bad" = 0 ] && grep -qx _find_next_zero_bit /tmp/pidx-lib; then
			pass "kcsan: filter lists the library helpers pidx calls ($m, /$re/)"
		else
			fail "kcsan: library helpers" "_find_next_zero_bit among the kernel functions matching /$re/, all listed, saw $m, $bad refused"
		fi
	else
		fail "kcsan: library helpers" "a regex in /pidx/kcsan-library (vm-run.sh --kcsan-module pidx --kcsan-library RE), saw none"
	fi
	if [ "$n" -gt 50 ] && grep -q 'whitelisted' $k; then
		pass "kcsan: filter is a whitelist of pidx functions"
	else
		fail "kcsan: filter" "a whitelist of 50+ functions, saw $n: $(head -n 2 $k | tr '\n' ' ')"
	fi
	echo on >$k
	expect "kcsan: switched on after the filter" "enabled: 1" "$(grep '^enabled:' $k)"
}

# KCSAN set watchpoints while pidx ran: the pass was not a no-op.
t_kcsan_active() {
	w=$(sed -n 's/^setup_watchpoints: //p' /sys/kernel/debug/kcsan)
	if [ "${w:-0}" -gt 1000 ]; then
		pass "kcsan: watchpoints were set ($w)"
	else
		fail "kcsan: active" "over 1000 watchpoints set, saw '${w:-none}'"
	fi
}

# KCSAN watches one access in skip_watch (4000): a few storms at that rate set
# too few watchpoints to catch a race reliably (CI's control run missed the
# rbskip latch race it exists for).  One in 200 finds it within seconds.
kcsan_dense() {
	sw=/sys/module/kcsan/parameters/skip_watch
	old_sw=$(cat $sw)
	echo 200 >$sw
	"$@"
	echo "$old_sw" >$sw
}

# Writers and lockless readers of rbskip on every CPU, dense enough for KCSAN's
# watchpoints to catch an unannotated race in its latch; run-all.sh's control
# build removes the annotation and expects the report.
t_kcsan_storms() {
	set_all indexes=rbskip keys=512 ops=20000 repeat=2 pid_max=4096 cpus=all \
		workload=mixed mix=50/25/25 mode=kthread
	# a report needs the other vCPU to run inside a watchpoint's delay,
	# which a loaded host makes rarer: storm again until one comes
	for i in 1 2 3 4 5; do
		expect "kcsan: rbskip mixed 50/25/25 storm $i, dense watchpoints" ok "$(kcsan_dense wr testcase run)"
		dmesg | grep -q 'BUG: KCSAN: data-race in pidx_rbskip' && break
	done
}

# The PID bitmap of lazyskip and lfradix in a nearly full space: words fill and
# empty all the time, so claims and releases write the summary of full words
# while searches read it.  run-all.sh's library control build reads the
# summary with find_next_zero_bit() again, as before issue 30, and expects
# the runner to report that race (it stands in lib/, called from pidx).
t_kcsan_pidmap() {
	ixs=
	for ix in lazyskip lfradix lfradix_pc; do
		cut -f1 $D/available | grep -qx "$ix" && ixs="$ixs${ixs:+,}$ix"
	done
	if [ -z "$ixs" ]; then
		fail "kcsan: pidmap storm" "lazyskip or lfradix in available, saw none"
		return
	fi
	# 900 numbers prefilled (they stay), and forks that keep all but 8 of
	# the 123 numbers above them live: the last two bitmap words fill and
	# empty at every few forks, and the searches pass them by the summary
	set_all "indexes=$ixs" keys=900 pid_max=1024 fork_window=$(((123 - 8) / NCPUS)) \
		ops=20000 repeat=1 cpus=all workload=fork mode=kthread
	for i in 1 2 3; do
		expect "kcsan: $ixs fork storm $i in a full space, dense watchpoints" ok \
			"$(kcsan_dense wr testcase run)"
		expect "kcsan: $ixs fork storm $i rows all verified" 0 "$(unverified_rows)"
		dmesg | grep -q 'BUG: KCSAN: data-race in .*_find_next' && break
	done
	set_all indexes=all fork_window=64 pid_max=32768
}

# Every index's writers against its readers and each other, same-key inserts
# and removes included (fork reuses freed numbers), at the dense rate.
t_kcsan_dense() {
	for m in kthread ipi; do
		for w in mixed fork; do
			# a fork batch (ops / 16 forks and their exits) of maple
			# under dense watchpoints once took 5004 ms, past the 5 s
			# bound: half the ops, half the batch
			ops=5000
			[ $w = fork ] && ops=2500
			set_all indexes=all keys=512 ops=$ops repeat=1 pid_max=4096 cpus=all \
				workload=$w mix=40/30/30 mode=$m
			r=$(kcsan_dense wr testcase run)
			expect "kcsan: dense $w/$m storm" ok "$r"
			rows=$(last_run_rows)
			for ix in $INDEXES; do
				v=$(echo "$rows" | awk -F, -v ix="$ix" '$2 == ix { print $28 }')
				if [ "$v" = yes ]; then
					pass "kcsan: dense $w/$m $ix verified"
				elif [ -z "$v" ] && [ $m = ipi ] && grep -q "^skipped: $ix:" $D/test_result; then
					pass "kcsan: dense $w/$m $ix skipped, as test_result says"
				else
					fail "kcsan: dense $w/$m $ix" "verified=yes, saw '$v'"
				fi
			done
		done
	done
}

# t_selftest [racetest [MIN]]: every index passes all its checks, and more
# than MIN (100) of them
t_selftest() {
	c=${1:-selftest}
	r=$(wr testcase "$c")
	expect "$c returns success" ok "$r"
	for ix in $INDEXES; do
		line=$(grep "^selftest $ix:" $D/test_result)
		n=$(echo "$line" | awk '{ print $3 }')
		m=$(echo "$line" | awk '{ print $5 }')
		if [ -n "$n" ] && [ "$n" = "$m" ] && [ "$n" -gt "${2:-100}" ]; then
			pass "$c $ix ($n of $m checks)"
		else
			fail "$c $ix" "all checks passed, saw '$line'"
			grep -A3 "FAIL $ix" $D/test_result | head -20
		fi
	done
}

# t_selftest_of LIST: the selftest of those indexes alone, where the whole
# one adds nothing (the DKMS-built module, the broken index)
t_selftest_of() {
	saved=$INDEXES
	set_all "indexes=$1"
	INDEXES=$(echo "$1" | tr , ' ')
	t_selftest
	INDEXES=$saved
	set_all indexes=all
}

# selftest and racetest check the indexes selected, as run does; with none
# selected that has contents there is nothing to check, and that is refused
t_selftest_indexes() {
	set_all indexes=idr,skiplist,null
	expect "selftest of indexes idr,skiplist,null" ok "$(wr testcase selftest)"
	expect "selftest: lines of idr and skiplist only" "idr: skiplist:" \
		"$(awk '$1 == "selftest" { printf "%s%s", sep, $2; sep = " " }' $D/test_result)"
	before=$(cat $D/test_result)
	set_all indexes=null
	expect "selftest with indexes null: refused" EINVAL "$(wr testcase selftest)"
	expect "racetest with indexes null: refused" EINVAL "$(wr testcase racetest)"
	expect "refused racetest: testcase says why" \
		"last: racetest -22 indexes holds no index with contents to check" \
		"$(grep '^last:' $D/testcase)"
	expect "refused selftest: test_result unchanged" "$before" "$(cat $D/test_result)"
	set_all indexes=all
}

# The concurrent phases at KCSAN's dense rate (CI's default-rate pass once
# caught the selftest's own unmarked inflight store, once not)
t_kcsan_racetest() {
	kcsan_dense t_racetest
}

# The concurrent phases alone: under the checkers' kernels at 1 and 4 vCPUs
t_racetest() {
	t_selftest racetest 30
	expect "racetest: testcase names it" "racetest 0" \
		"$(awk '/^last:/ { print $2, $3 }' $D/testcase)"
}

# Every workload x mode x index at small sizes, each verified.
t_matrix() {
	# under the checkers' kernels (KASAN, KCSAN: 5-10x slower; the failslab
	# level runs on the KASAN one) a smaller storm still takes every writer
	# and reader path of every index
	mops=1000
	case $LEVEL in debug | failslab | kcsan) mops=300 ;; esac
	set_all indexes=all keys=4096 ops=$mops repeat=1 pid_max=32768 cpus=all fork_window=32
	for wl in lookup insert delete mixed:90/5/5 mixed:50/25/25 fork iterate; do
		for mode in ipi kthread; do
			name="$wl/$mode"
			set_all "workload=${wl%%:*}" "mode=$mode"
			case $wl in mixed:*) set_all "mix=${wl#*:}" ;; esac
			r=$(wr testcase run)
			case $RT/$mode/$wl in
			1/ipi/lookup | 1/ipi/iterate) ;;
			1/ipi/*) rt_refusal "storm $name" "$r"; continue ;;
			esac
			if [ "$r" != ok ]; then
				fail "storm $name" "run gave $r: $(cat $D/testcase | grep last)"
				continue
			fi
			rows=$(last_run_rows)
			for ix in $INDEXES; do
				v=$(echo "$rows" | awk -F, -v ix="$ix" '$2 == ix { print $28 }')
				ops=$(echo "$rows" | awk -F, -v ix="$ix" '$2 == ix { print $13 }')
				if [ "$v" = yes ] && [ "$ops" = $((NCPUS * mops)) ]; then
					pass "storm $name $ix verified"
				elif [ -z "$v" ] && [ "$mode" = ipi ] && grep -q "^skipped: $ix:" $D/test_result; then
					# an index whose writers need interrupts on (maple) sits out ipi writes
					pass "storm $name $ix skipped, as test_result says"
				else
					fail "storm $name $ix" "verified=yes and $((NCPUS * mops)) ops, saw verified='$v' ops='$ops'"
					grep "^$ix " $D/test_result
				fi
			done
		done
	done
	set_all workload=mixed mix=90/5/5 indexes=null mode=$WMODE
	r=$(wr testcase run)
	v=$(last_run_rows | awk -F, '{ print $2 "=" $28 }')
	expect "null index runs and is not verified" "ok null=n/a" "$r $v"
	# what follows (the kcsan level's racetest) checks the indexes selected
	set_all indexes=all
	cp $D/results.csv "$OUT/results.csv"
}

# The lockref seed's loop: run, read, reset, 100 times.
t_lockref_loop() {
	# under KASAN a round takes a second: 20 of them still take every path
	# of run/read/reset that a leak or use-after-free would lie on
	rounds=100
	[ "$LEVEL" = debug ] && rounds=20
	set_all indexes=all workload=lookup mode=ipi keys=256 ops=200 repeat=1
	bad=0
	i=0
	while [ $i -lt $rounds ]; do
		[ "$(wr testcase run)" = ok ] || bad=$((bad + 1))
		grep -q "verified" $D/test_result || bad=$((bad + 1))
		grep -q FAILED $D/test_result && bad=$((bad + 1))
		[ "$(wr testcase reset)" = ok ] || bad=$((bad + 1))
		i=$((i + 1))
	done
	expect "lockref loop: $rounds x run/cat/reset" 0 "$bad"
	expect "reset empties results.csv" 1 "$(wc -l <$D/results.csv)"
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

# PREEMPT_RT: the defaults right after a fresh insmod run and verify; the
# mode parameter still selects ipi, whose storms that read run and whose
# storms that write are refused, saying why in testcase and in dmesg.
t_rt_defaults() {
	expect "the kernel is PREEMPT_RT" 1 "$RT"
	rmmod pidx
	if ! insmod "$KO"; then
		fail "fresh insmod" "insmod $KO failed"
		return
	fi
	expect "mode defaults to kthread on PREEMPT_RT" kthread "$(cat $D/mode)"
	expect "run with the defaults right after insmod" ok "$(wr testcase run)"
	n=$(last_run_rows | wc -l)
	v=$(last_run_rows | awk -F, '$28 == "yes"' | wc -l)
	k=$(echo "$INDEXES" | wc -w)
	expect "default run verified every index" "$k $k" "$n $v"
	if grep -q verified $D/test_result && ! grep -q FAILED $D/test_result; then
		pass "test_result of the default run reads verified"
	else
		fail "test_result of the default run" "verified and no FAILED, saw '$(head -n 3 $D/test_result | tr '\n' ' ')'"
	fi
	rmmod pidx
	insmod "$KO" mode=ipi ops=500
	expect "module parameter mode=ipi applied" ipi "$(cat $D/mode)"
	for wl in lookup iterate; do
		set_all workload=$wl
		expect "ipi $wl storm runs on PREEMPT_RT" ok "$(wr testcase run)"
		v=$(unverified_rows)
		expect "ipi $wl rows all verified" 0 "$v"
	done
	before=$(dmesg | grep -c 'run refused (-22): .*PREEMPT_RT.*echo kthread > mode')
	set_all workload=insert
	rt_refusal "ipi insert storm" "$(wr testcase run)"
	after=$(dmesg | grep -c 'run refused (-22): .*PREEMPT_RT.*echo kthread > mode')
	expect "the refusal and its reason are in dmesg" $((before + 1)) "$after"
	set_all mode=kthread
	expect "the refused storm runs in kthread mode" ok "$(wr testcase run)"
	set_all workload=lookup
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

t_bad_input() {
	set_all keys=1024 pid_max=32768 ops=500
	long=$(awk 'BEGIN { while (i++ < 700) printf "9" }')
	for f in indexes workload mix keys ops mode cpus pid_max repeat seed fork_window fork_lookups fork_exit sl_p sl_max_level rb_level dependent shape testcase; do
		bad $f "" EINVAL
		bad $f "   " EINVAL
		bad $f "garbage!" EINVAL
		bad $f "$long" EINVAL
	done
	for f in keys ops pid_max repeat seed fork_window fork_lookups sl_p sl_max_level rb_level dependent; do
		bad $f -1 EINVAL
		bad $f 12abc EINVAL
		bad $f 99999999999999999999999 EINVAL
	done
	bad keys 0 EINVAL
	bad keys 32768 EINVAL
	bad keys 4194304 EINVAL
	bad pid_max 300 EINVAL
	bad pid_max 4194305 EINVAL
	bad pid_max 1000 EINVAL
	bad ops 0 EINVAL
	bad ops 10000001 EINVAL
	bad repeat 0 EINVAL
	bad repeat 1001 EINVAL
	bad fork_window 0 EINVAL
	bad fork_lookups 4 EINVAL
	bad fork_exit remotex EINVAL
	bad fork_exit "remote local" EINVAL
	bad sl_p 3 EINVAL
	bad sl_p 32 EINVAL
	bad sl_max_level 17 EINVAL
	bad rb_level 17 EINVAL
	bad dependent 2 EINVAL
	bad mix 50/50/1 EINVAL
	bad mix 50/50 EINVAL
	bad mix 50/25/25/0 EINVAL
	bad mix 101/0/0 EINVAL
	bad mix -10/60/50 EINVAL
	bad workload lookupx EINVAL
	bad mode ipix EINVAL
	for v in dense1 Dense 0 1 spread,aged; do bad shape "$v" EINVAL; done
	bad indexes idr,bogus EINVAL
	bad indexes idr,,rbskip EINVAL
	bad cpus "$NCPUS" EINVAL
	bad cpus 0-4095 EINVAL
	bad cpus 5000 EINVAL
	bad cpus "0,$((NCPUS + 7))" EINVAL
	bad testcase runx EINVAL
	# stall_test stays below the kernel's hard-lockup threshold (10 s)
	for v in 9001 60000 -1 "garbage!" "" 99999999999999999999999; do
		bad stall_test "$v" EINVAL
	done
	expect "good write accepted: stall_test 9000, then 0" "ok 9000 ok 0" \
		"$(wr stall_test 9000) $(cat $D/stall_test) $(wr stall_test 0) $(cat $D/stall_test)"
	expect "good write accepted: cpus 0" ok "$(wr cpus 0)"
	expect "good write accepted: cpus all" ok "$(wr cpus all)"
	expect "good write accepted: seed 0x10" "ok 16" "$(wr seed 0x10) $(cat $D/seed)"
	# a storm that cannot fit in the PID space is refused whole
	set_all pid_max=2048 keys=2000 workload=insert ops=100 indexes=all
	csv_before=$(wc -l <$D/results.csv)
	expect "insert storm beyond the PID space gives ENOSPC" ENOSPC "$(wr testcase run)"
	expect "refused run adds no rows" "$csv_before" "$(wc -l <$D/results.csv)"
	set_all workload=delete keys=100 ops=100
	expect "delete storm with keys < cpus x ops gives EINVAL" EINVAL "$(wr testcase run)"
	set_all pid_max=32768 keys=1024 ops=500 workload=lookup
}

t_busy() {
	set_all indexes=all workload=lookup mode=kthread pid_max=65536 keys=32768 ops=1000000 repeat=2
	(
		if echo run >$D/testcase; then rc=0; else rc=1; fi
		echo "$rc" >/tmp/bg-run.rc
	) &
	bgpid=$!
	i=0
	while ! grep -q 'state: running' $D/testcase && [ $i -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	expect "run in flight shows state running" running "$(awk '/^state:/ { print $2 }' $D/testcase)"
	bad keys 100 EBUSY
	bad workload fork EBUSY
	bad fork_lookups 1 EBUSY
	bad fork_exit local EBUSY
	bad dependent 1 EBUSY
	bad shape aged EBUSY
	bad stall_test 100 EBUSY
	expect "second concurrent run gives EBUSY" EBUSY "$(wr testcase run)"
	expect "reset during a run gives EBUSY" EBUSY "$(wr testcase reset)"
	expect "selftest during a run gives EBUSY" EBUSY "$(wr testcase selftest)"
	if rmmod pidx 2>/dev/null; then
		fail "rmmod during a run" "refused while the run holds the module, but it unloaded"
	else
		pass "rmmod during a run is refused"
	fi
	wait $bgpid
	expect "the background run completed" 0 "$(cat /tmp/bg-run.rc)"
	v=$(unverified_rows)
	expect "background run rows all verified" 0 "$v"
	expect "module still loaded after refused rmmod" 1 "$(grep -c '^pidx ' /proc/modules)"
	set_all mode=ipi keys=1024 pid_max=32768 ops=500 repeat=1
}

# dependent=1: each lookup's key waits for the previous lookup's result.
# Every index verified so, in lookup and mixed storms and both modes; the
# setting in every row, in test_result and as a module parameter; bad values
# refused.  (That the chain costs what it should is a native check: under
# TCG both settings cost the same.)
t_dependent() {
	expect "dependent defaults to 0" 0 "$(cat $D/dependent)"
	set_all indexes=all keys=4096 ops=1000 repeat=1 pid_max=32768 cpus=all mix=90/5/5 dependent=1
	for wl in lookup mixed; do
		for mode in ipi kthread; do
			name="dependent: $wl/$mode"
			set_all workload=$wl mode=$mode
			r=$(wr testcase run)
			case $RT/$mode/$wl in
			1/ipi/mixed) rt_refusal "$name" "$r"; continue ;;
			esac
			if [ "$r" != ok ]; then
				fail "$name" "run gave $r: $(grep last $D/testcase)"
				continue
			fi
			for ix in $INDEXES; do
				v="$(col "$ix" verified) $(col "$ix" dependent) $(col "$ix" total_ops)"
				if [ "$v" = "yes 1 $((NCPUS * 1000))" ]; then
					pass "$name $ix verified, dependent=1 in its row"
				elif [ "$v" = "  " ] && [ "$mode" = ipi ] && grep -q "^skipped: $ix:" $D/test_result; then
					pass "$name $ix skipped, as test_result says"
				else
					fail "$name $ix" "'yes 1 $((NCPUS * 1000))' (verified, dependent, ops), saw '$v'"
				fi
			done
		done
	done
	expect "dependent=1: test_result says so" 1 "$(grep -c '^pidx run .*, dependent lookups$' $D/test_result)"
	for v in "" 2 -1 bogus 99999999999 1x 0x2; do bad dependent "$v" EINVAL; done
	set_all dependent=0 workload=lookup mode=ipi
	expect "dependent=0: run succeeds" ok "$(wr testcase run)"
	expect "dependent=0: the column and test_result" "0 0" \
		"$(col idr dependent) $(grep -c 'dependent lookups' $D/test_result)"
	rmmod pidx
	insmod "$KO" dependent=1
	expect "module parameter dependent=1 applied" 1 "$(cat $D/dependent 2>/dev/null)"
	rmmod pidx
	if insmod "$KO" dependent=2 2>/dev/null; then
		fail "module parameter dependent=2" "the load refused"
		rmmod pidx
	else
		pass "module parameter dependent=2 refused"
	fi
	insmod "$KO" ops=500
	set_all indexes=all keys=1024 ops=500
}

# Live sets by shape: every index verified under each, in both modes, the
# setting in each row and test_result; shapes that do not fit are refused
# whole, and bad words change nothing.
t_shape() {
	set_all indexes=all mix=50/25/25 keys=1024 pid_max=32768 ops=2000 repeat=1 cpus=all seed=3
	for sh in dense spread aged; do
		for m in kthread ipi; do
			for wl in lookup mixed fork; do
				set_all shape=$sh mode=$m workload=$wl
				r=$(wr testcase run)
				cs=$(head -n 1 $D/results.csv | tr , '\n' | grep -nx shape | cut -d: -f1)
				rows=$(last_run_rows | awk -F, -v s=$sh -v cs="$cs" \
					'$cs == s && ($(cs + 1) >= 2 || s != "aged")' | wc -l)
				n=$(last_run_rows | wc -l)
				v=$(unverified_rows)
				if [ "$r" = ok ] && [ "$v" = 0 ] && [ "$rows" = "$n" ] && [ "$n" -gt 0 ]; then
					pass "shape $sh, $m $wl: $n rows verified, shape in each"
				else
					fail "shape $sh, $m $wl" "ok, every row verified with shape $sh, saw $r, $v unverified, $rows of $n rows with the shape ($(last_run_rows | awk -F, '$28 != "yes" { print $2 ": " $29 }' | head -1))"
				fi
			done
		done
	done
	set_all shape=aged workload=lookup mode=kthread
	wr testcase run >/dev/null
	h=$(grep -m1 '^pidx run' $D/test_result)
	case $h in
	*", shape aged ("[2-9]" wraps)"*) pass "test_result names the shape and its wraps: ${h##*, }" ;;
	*) fail "test_result header" "', shape aged (N wraps)' with N >= 2, saw '$h'" ;;
	esac
	csv_before=$(wc -l <$D/results.csv)
	set_all shape=spread keys=16384
	expect "spread with 2 x keys > pid_max - 1 gives ENOSPC" ENOSPC "$(wr testcase run)"
	expect "refused run says why" yes \
		"$(grep -q '^last:.*spread needs pid_max - 1 >= 2 x keys' $D/testcase && echo yes)"
	set_all keys=16383
	expect "spread with 2 x keys = pid_max - 2 runs" ok "$(wr testcase run)"
	csv_before=$(wc -l <$D/results.csv)
	set_all shape=aged keys=32468
	expect "aged with keys > pid_max - 301 gives ENOSPC" ENOSPC "$(wr testcase run)"
	expect "refused runs add no rows" "$csv_before" "$(wc -l <$D/results.csv)"
	for v in "" garbage! dense1 1; do bad shape "$v" EINVAL; done
	set_all shape=dense keys=1024 ops=500 mode=ipi workload=lookup mix=90/5/5 seed=1
}

# Settings writers wait for each other: -EBUSY means a run or selftest is in
# flight, never another write (each write once took the run lock by trylock).
t_setting_writers() {
	set_all mode=kthread
	n=2000
	(
		i=0 bad=0
		while [ $i -lt $n ]; do
			echo $((1000 + i % 7)) 2>/dev/null >$D/ops || bad=$((bad + 1))
			i=$((i + 1))
		done
		echo $bad >/tmp/sw-ops.bad
	) &
	p1=$!
	(
		i=0 bad=0
		while [ $i -lt $n ]; do
			echo $((1 + i % 3)) 2>/dev/null >$D/repeat || bad=$((bad + 1))
			i=$((i + 1))
		done
		echo $bad >/tmp/sw-repeat.bad
	) &
	p2=$!
	i=0 bad=0
	while [ $i -lt $n ]; do
		echo $((i % 5)) 2>/dev/null >$D/stall_test || bad=$((bad + 1))
		echo $((i % 2 ? 64 : 32)) 2>/dev/null >$D/fork_window || bad=$((bad + 1))
		i=$((i + 1))
	done
	wait $p1 $p2
	expect "$((4 * n)) settings writes from three writers at once, none refused" "0 0 0" \
		"$(cat /tmp/sw-ops.bad) $(cat /tmp/sw-repeat.bad) $bad"
	set_all ops=500 repeat=1 fork_window=64 stall_test=0 mode=ipi
}

# A reset forgets the last run whole, its "skipped" lines too: maple's writers
# need interrupts on, so an ipi storm that writes skips it.
t_reset_skipped() {
	set_all indexes=idr,maple workload=mixed mix=90/5/5 mode=ipi keys=1024 ops=500 repeat=1
	expect "ipi mixed storm with maple runs" ok "$(wr testcase run)"
	expect "test_result names maple as skipped" 1 "$(grep -c '^skipped: maple' $D/test_result)"
	expect "reset accepted" ok "$(wr testcase reset)"
	expect "after reset test_result is empty, no skipped line" "no results: write run to testcase" \
		"$(cat $D/test_result)"
	set_all indexes=all workload=lookup
}

# hotplug_start NAME: CPU 1 goes off and on line in a loop from now, the
# cycles counted in /tmp/hp.cycles at hotplug_stop; false (and a failure of
# NAME) without a second CPU that can go offline
hotplug_start() {
	if [ "$NCPUS" -lt 2 ] || [ ! -w /sys/devices/system/cpu/cpu1/online ]; then
		fail "$1" "a second CPU that can go offline, saw $NCPUS CPUs"
		return 1
	fi
	echo 0 >/tmp/hp.stop
	(
		i=0
		while [ "$(cat /tmp/hp.stop)" = 0 ]; do
			taskset -c 0 sh -c "echo 0 >/sys/devices/system/cpu/cpu1/online; echo 1 >/sys/devices/system/cpu/cpu1/online" &&
				i=$((i + 1))
		done
		echo "$i" >/tmp/hp.cycles
	) &
	hp=$!
}

# hotplug_stop: the loop ends, and CPU 1 is online again
hotplug_stop() {
	echo 1 >/tmp/hp.stop
	wait "$hp"
	echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
}

# CPU hotplug during the selftest's concurrent phases, of every index: the
# phases split and bind to the CPUs online when each starts.  The hard-irq
# readers of maple (a reader may wait for a writer) keep off its writers'
# CPU, and a timer CPU taken offline hands its pinned timer to the CPU that
# takes it down: from the writers' CPU, onto them (the phase now holds
# cpus_read_lock; the hang this could cause was not seen before it did).
t_hotplug_racetest() {
	hotplug_start "hotplug racetest" || return
	set_all indexes=all
	r1=$(wr testcase racetest)
	# maple's irq phase skips when CPU 1 is offline as it starts: again
	# until one ran with its timers on CPU 1 (CPU 1 is online about half
	# the time: 8 tries missed in 1 run of 250, 40 in 1 of 10^12)
	set_all indexes=maple
	i=0 r2='' ran=0
	while [ $i -lt 40 ] && [ "$ran" = 0 ]; do
		r2="$r2$(wr testcase racetest) "
		ran=$(grep -c '^  irq readers: .*, timers on 1:' $D/test_result)
		i=$((i + 1))
	done
	hotplug_stop
	echo "hotplug cycles during the racetests: $(cat /tmp/hp.cycles); maple racetests: $i"
	grep -E '^(selftest:|  irq readers:|  FAIL)' $D/test_result
	# shellcheck disable=SC2086 # r2: one word per racetest
	expect "racetests of all indexes, then maple, with CPU 1 going off and on line" "ok 0 refused" \
		"$r1 $(for r in $r2; do echo "$r"; done | grep -vc '^ok$') refused"
	expect "a maple irq phase ran with its timers on CPU 1 meanwhile" 1 "$ran"
	expect "CPU 1 taken offline during them" yes \
		"$([ "$(cat /tmp/hp.cycles)" -gt 0 ] && echo yes)"
	expect "CPU 1 online again" 1 "$(cat /sys/devices/system/cpu/cpu1/online)"
	set_all indexes=all
}

# A CPU that goes offline under a prefill pinned to it sends the prefill to
# another CPU (and a pin to a CPU going offline may not take, then a balance
# moves it).  An index whose numbers come from per-CPU ranges (lfradix_pc)
# then hands out another CPU's numbers: the run must fail naming the move
# (-EAGAIN), not blame the index (before, -EUCLEAN: "returned 512").  CPU 1
# goes off and on line all along, so that however fast the prefill, some
# run meets it; a run may also start while CPU 1 is offline (-EINVAL) or
# miss it (ok).
t_hotplug_prefill() {
	hotplug_start "hotplug prefill" || return
	set_all indexes=lfradix_pc workload=lookup mode=kthread pid_max=4194304 \
		keys=4194303 ops=100 repeat=1
	# runs, not writes: a write of cpus while CPU 1 is offline is refused
	# at once, and one offline spell could use up a bound on writes; and
	# a run that CPU 1's going offline refused (-EINVAL, some 4 in 10)
	# never prefilled, so it does not count against the 10 runs either
	moved=0 bad='' outcomes='' runs=0 w=0
	while [ $runs -lt 10 ] && [ $w -lt 400 ] && [ $moved = 0 ]; do
		w=$((w + 1))
		# the prefill runs on the first storm CPU: 1 here
		if [ "$(wr cpus 1)" != ok ]; then
			sleep 0.05
			continue
		fi
		r=$(wr testcase run)
		last=$(grep '^last:' $D/testcase)
		outcomes="$outcomes $r"
		case "$r $last" in
		"EAGAIN last: run -11 prefill of lfradix_pc left CPU "*) moved=1 ;;
		"EINVAL "*) continue ;;
		"ok "*) ;;
		*) bad="$bad [$r $last]" ;;
		esac
		runs=$((runs + 1))
	done
	hotplug_stop
	echo "hotplug prefill: runs$outcomes; the last: $last"
	expect "hotplug prefill: a run failed with EAGAIN naming the move" 1 "$moved"
	expect "hotplug prefill: no run failed otherwise" "" "$bad"
	expect "hotplug prefill: CPU 1 online again" 1 "$(cat /sys/devices/system/cpu/cpu1/online)"
	expect "hotplug prefill: index memory all freed" 0 "$(awk '/^bytes/ { print $2 }' $D/memory)"
	set_all cpus=all keys=1024 pid_max=32768 ops=500 mode=ipi indexes=all
	expect "after a hotplug prefill: a run succeeds" ok "$(wr testcase run)"
}

# nsop INDEX: ns/op of INDEX in the last run (first repeat)
nsop() {
	last_run_rows | awk -F, -v ix="$1" '$2 == ix && $12 == 0 { print int($17) }'
}

# Allocation must not probe number by number: with 90% of the space live and
# the cursor wrapping onto the dense run, a fork storm may cost a few times
# more per op than in an empty space, not the thousands of times that a
# linear probe over ~29000 taken numbers would.  And a full space answers
# -ENOSPC promptly.
t_dense() {
	set_all indexes=all workload=fork mode=kthread pid_max=32768 fork_window=16 ops=20000 repeat=1
	set_all keys=1024
	wr testcase run >/dev/null
	expect "sparse fork storm rows all verified" 0 "$(unverified_rows)"
	for ix in $INDEXES; do eval "sparse_$ix=\$(nsop \"$ix\")"; done
	set_all keys=29491
	wr testcase run >/dev/null
	expect "dense fork storm rows all verified" 0 "$(unverified_rows)"
	for ix in $INDEXES; do
		eval "s=\$sparse_$ix"
		d=$(nsop "$ix")
		echo "dense-alloc $ix: fork ns/op 3% live $s, 90% live $d"
		if [ -n "$s" ] && [ -n "$d" ] && [ "$d" -le $((s * 10)) ]; then
			pass "fork with 90% of PIDs live costs < 10x empty ($ix: $s -> $d ns/op)"
		else
			fail "dense alloc $ix" "under 10x of $s ns/op, saw $d"
		fi
	done
	# a full space: every alloc fails, each quickly; the median op (p50),
	# since a search of the whole space slows every op while a host stall
	# in a 15 ms storm only moves the mean
	set_all workload=mixed mix=0/100/0 keys=32700 ops=2000
	wr testcase run >/dev/null
	for ix in $INDEXES; do
		row=$(last_run_rows | awk -F, -v ix="$ix" '$2 == ix { print $14, int($21), $28 }')
		echo "full-space $ix: fails, ns/op, verified = $row"
		f=$(echo "$row" | cut -d' ' -f1)
		n=$(echo "$row" | cut -d' ' -f2)
		v=$(echo "$row" | cut -d' ' -f3)
		if [ "${f:-0}" -ge $((NCPUS * 2000 - 67)) ] && [ "${n:-999999}" -lt 100000 ] && [ "$v" = yes ]; then
			pass "alloc in a full space fails promptly with ENOSPC ($ix: median $n ns/op)"
		else
			fail "full space $ix" "fails >= $((NCPUS * 2000 - 67)), median ns/op < 100000, verified, saw '$row'"
		fi
	done
	set_all keys=1024 workload=lookup mix=90/5/5 ops=500 fork_window=64 mode=ipi
}

# col INDEX NAME: column NAME of INDEX's first-repeat row in the last run
# colno NAME: the number of results.csv's column NAME
colno() {
	head -n 1 $D/results.csv | tr , '\n' | grep -nx "$1" | cut -d: -f1
}

col() {
	n=$(head -n 1 $D/results.csv | tr , '\n' | grep -nx "$2" | cut -d: -f1)
	[ -n "$n" ] && last_run_rows | awk -F, -v ix="$1" -v c="$n" '$2 == ix && $12 == 0 { print $c }'
}

# within X LO HI: LO <= X <= HI, all decimals
within() {
	awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x != "" && x + 0 >= lo && x + 0 <= hi) }'
}

# Fork as the kernel forks: fork_lookups lookups of each new PID (0-3),
# and fork_exit remote (the next storm CPU frees a CPU's oldest PIDs) or
# local.  Every index stays verified in both modes while the cursor wraps
# (8000+ allocations in a 4096-number space), the row names both settings,
# and with one CPU a remote exit has no other CPU: its exits are its own.
t_fork_settings() {
	set_all indexes=all workload=fork pid_max=4096 keys=1024 ops=4000 cpus=all repeat=1 fork_window=16
	nix=$(echo "$INDEXES" | wc -w)
	fl=$(colno fork_lookups)
	fe=$(colno fork_exit)
	for m in ipi kthread; do
		for e in remote local; do
			for l in 0 3; do
				set_all mode=$m fork_exit=$e fork_lookups=$l
				r=$(wr testcase run)
				want=$e
				got=$(last_run_rows | awk -F, -v l=$l -v e=$want -v fl="$fl" -v fe="$fe" '$28 == "yes" && $fl == l && $fe == e' | wc -l)
				# an index whose writers need interrupts on (maple) sits out ipi writes
				skipped=$(grep -c '^skipped: ' $D/test_result)
				expect "fork $m, fork_exit $e, fork_lookups $l: every index verified, the row says so" \
					"ok $((nix - skipped))" "$r $got"
			done
		done
	done
	# a space the windows can fill: a fork that finds no number still
	# exits, so the storm does not stall on -ENOSPC (it once failed 98%
	# of its forks here, every row verified)
	set_all pid_max=4096 keys=1024 fork_window=1024 ops=20000 fork_exit=remote fork_lookups=0
	for m in ipi kthread; do
		set_all mode=$m
		wr testcase run >/dev/null
		worst=$(last_run_rows | awk -F, '$28 == "yes" { f = $14 / $13; if (f > w) w = f } END { printf "%.3f", w }')
		if awk -v w="$worst" 'BEGIN { exit !(w < 0.10) }' && [ "$(unverified_rows)" = 0 ]; then
			pass "fork $m in a space the windows fill: every index verified, at most $worst of forks failed"
		else
			fail "fork $m in a full space" "under 10% of forks failed, all verified; saw $worst, $(unverified_rows) unverified"
		fi
	done
	set_all pid_max=4096 keys=1024 fork_window=16 ops=4000
	set_all cpus=0 fork_exit=remote fork_lookups=1 mode=kthread
	wr testcase run >/dev/null
	expect "fork on one CPU: fork_exit=remote runs (its exits its own) and reads remote" \
		"$nix" "$(last_run_rows | awk -F, -v fl="$fl" -v fe="$fe" '$28 == "yes" && $fl == 1 && $fe == "remote" && $29 !~ /local_exits/' | wc -l)"
	set_all workload=lookup
	wr testcase run >/dev/null
	expect "a lookup row leaves the fork settings n/a" \
		"$nix" "$(last_run_rows | awk -F, -v fl="$fl" -v fe="$fe" '$fl == "n/a" && $fe == "n/a"' | wc -l)"
	expect "fork settings read back" "0 remote" "$(wr fork_lookups 0 >/dev/null; cat $D/fork_lookups) $(cat $D/fork_exit)"
	set_all cpus=all mode=ipi pid_max=32768 keys=1024 ops=500 fork_window=64 fork_exit=remote fork_lookups=0
}

# Repeat r runs with seed + r and storms the indexes in an order drawn
# from that seed: the spread over repeats samples structures, and no index
# always runs first.  One seed gives the same orders twice.
t_repeats() {
	set_all indexes=all workload=lookup mode=ipi cpus=all keys=256 ops=32 pid_max=32768 repeat=4 seed=5
	for n in 1 2; do
		wr testcase run >/dev/null
		# in file order, which is the order the storms ran in
		awk -F, 'NR > 1 && $1 > last { last = $1 } NR > 1 { r[NR] = $0; run[NR] = $1 }
			END { for (i = 2; i <= NR; i++) if (run[i] == last) print r[i] }' \
			$D/results.csv | cut -d, -f2,11,12 >/tmp/repeats$n
	done
	expect "repeats: 4 rows per index, all verified" "$((4 * $(echo "$INDEXES" | wc -w))) 0" \
		"$(wc -l </tmp/repeats1) $(unverified_rows)"
	expect "repeats: repeat r's row has seed 5 + r" "" \
		"$(awk -F, '$2 != 5 + $3 { print $1 " repeat " $3 " seed " $2 }' /tmp/repeats1 | head -2 | tr '\n' ' ')"
	orders=$(awk -F, '{ o[$3] = o[$3] " " $1 } END { for (r in o) print o[r] }' /tmp/repeats1 | sort -u | wc -l)
	if [ "$orders" -gt 1 ] && cmp -s /tmp/repeats1 /tmp/repeats2; then
		pass "repeats: $orders orders of indexes in 4 repeats, the same for one seed"
	else
		fail "repeats: orders" "more than one order in 4 repeats, the same twice; saw $orders, $(diff /tmp/repeats1 /tmp/repeats2 | head -2 | tr '\n' ' ')"
	fi
	set_all repeat=1 seed=1 ops=500 keys=1024
}

# Visits per op: what each structure predicts, and the same for one seed.
t_visits() {
	set_all indexes=all trace_visits=1 workload=lookup mode=ipi cpus=0 ops=4000 repeat=1 pid_max=65536 seed=7
	# the counts are the same code under KASAN: it takes the small size only
	vkeys="1024 32768"
	[ "$LEVEL" = debug ] && vkeys=1024
	for k in $vkeys; do
		set_all keys="$k"
		wr testcase run >/dev/null
		# nodes are fixed by the seed (lines also depend on where the slab put
		# them); but hash resizes from a worker, so whether a lookup meets a
		# resize in flight, and walks two tables, depends on timing
		first=$(for ix in $INDEXES; do echo "$ix $(col "$ix" visits_per_op) $(col "$ix" visits_max)"; done)
		wr testcase run >/dev/null
		again=$(for ix in $INDEXES; do echo "$ix $(col "$ix" visits_per_op) $(col "$ix" visits_max)"; done)
		echo "visits lookup keys=$k (index mean max): $(echo "$first" | tr '\n' ' ')"
		expect "visits: one seed, one CPU, same node counts twice (keys $k, hash aside)" \
			"$(echo "$first" | grep -v '^hash ')" "$(echo "$again" | grep -v '^hash ')"
		h1=$(echo "$first" | awk '$1 == "hash" { print $2 }')
		h2=$(echo "$again" | awk '$1 == "hash" { print $2 }')
		if [ -z "$h1" ] || within "$h2" "$(awk -v h="$h1" 'BEGIN { print h * 0.98 }')" "$(awk -v h="$h1" 'BEGIN { print h * 1.02 }')"; then
			pass "visits: hash within 2% twice (keys $k: $h1, $h2)"
		else
			fail "visits: hash twice (keys $k)" "within 2% of '$h1', saw '$h2'"
		fi
		# L = log4(keys) levels for p = 1/4 (busybox awk has no log())
		l4=$(awk -v k="$k" 'BEGIN { while (k >= 4) { k /= 4; l++ } print l + (k - 1) / 3 }')
		# the IDR's height for ids below 2^12 is 2, below 2^18 is 3
		h=2
		[ "$k" -gt 4096 ] && h=3
		for ix in $INDEXES; do
			m=$(col "$ix" visits_per_op)
			x=$(col "$ix" visits_max)
			l=$(col "$ix" lines_per_op)
			case $ix in
			idr) lo=$h hi=$h ;;
			# Pugh: at least one node per level, at most (L + 1)/p + 1/(1-p) (one
			# level above L is in use), plus the head
			skiplist|lazyskip) lo=$l4 hi=$(awk -v l="$l4" 'BEGIN { print 4 * (l + 1) + 2.34 }') ;;
			# a chain of about one object, plus the table
			hash) lo=1 hi=4 ;;
			*) lo=1 hi=$(awk -v l="$l4" 'BEGIN { print 8 * l + 4 }') ;;
			esac
			if within "$m" "$lo" "$hi" && within "$x" "$m" 100000 && within "$l" 1 100000; then
				pass "visits per lookup $ix keys=$k: $m (max $x, lines $l) in [$lo, $hi]"
			else
				fail "visits per lookup $ix keys=$k" "mean in [$lo, $hi], max >= mean, lines >= 1, saw mean '$m' max '$x' lines '$l'"
			fi
		done
	done
	# every workload reports, writers included, for every index
	set_all keys=1024 mode=kthread cpus=all ops=$((1024 / NCPUS / 2))
	for wl in insert delete mixed fork iterate; do
		set_all workload=$wl
		expect "visits: $wl storm runs" ok "$(wr testcase run)"
		for ix in $INDEXES; do
			m=$(col "$ix" visits_per_op)
			v=$(col "$ix" verified)
			if within "$m" 1 100000 && [ "$v" = yes ]; then
				pass "visits per $wl op $ix: $m"
			else
				fail "visits per $wl op $ix" ">= 1 and verified, saw '$m' '$v'"
			fi
		done
	done
	set_all ops=4000
	set_all trace_visits=0
	wr testcase run >/dev/null
	expect "trace_visits=0: the visit columns read n/a" "n/a" "$(col idr visits_per_op)"
	expect "trace_visits=0: test_result has no visits table" 0 "$(grep -c '^visits per op' $D/test_result)"
	set_all workload=lookup mode=ipi pid_max=32768 seed=1
}

# CPU counters: n/a without a PMU, numbers with one; the path is proven with
# the software clock standing in for every counter.
t_pmu() {
	set_all indexes=all workload=lookup mode=kthread cpus=all keys=1024 ops=20000 repeat=1 pmu=auto
	expect "pmu=auto: run succeeds" ok "$(wr testcase run)"
	v=$(unverified_rows)
	expect "pmu=auto: every row verified" 0 "$v"
	if grep -q 'no PMU' $D/test_result; then
		na=0
		for ix in $INDEXES; do
			for c in cycles_per_op instructions_per_op cache_refs_per_op cache_misses_per_op llc_load_misses_per_op; do
				[ "$(col "$ix" $c)" = n/a ] || na=$((na + 1))
			done
		done
		expect "pmu=auto without a PMU: every counter column reads n/a" 0 "$na"
	else
		c=$(col idr cycles_per_op)
		if within "$c" 1 100000000; then
			pass "pmu=auto with a PMU: idr cycles per op $c"
		else
			fail "pmu=auto with a PMU" "a cycles count per op, saw '$c'"
		fi
	fi
	set_all pmu=sw
	expect "pmu=sw: run succeeds" ok "$(wr testcase run)"
	for ix in $INDEXES; do
		c=$(col "$ix" cycles_per_op)
		i=$(col "$ix" llc_load_misses_per_op)
		n=$(col "$ix" ns_per_op)
		# cpu-clock ns per op over the worker's whole loop: ns/op plus the sampled batches
		hi=$(awk -v n="$n" 'BEGIN { print n * 4 + 1000 }')
		lo=$(awk -v n="$n" 'BEGIN { print n / 2 }')
		if within "$c" "$lo" "$hi" && within "$i" "$lo" "$hi"; then
			pass "pmu=sw: $ix cpu-clock per op $c ns, ns/op $n"
		else
			fail "pmu=sw $ix" "cpu-clock ns per op in [$lo, $hi] in every column, saw '$c' and '$i'"
		fi
	done
	set_all mode=ipi
	expect "pmu=sw in ipi mode: run succeeds" ok "$(wr testcase run)"
	c=$(col idr cycles_per_op)
	if within "$c" 1 10000000; then pass "pmu=sw ipi: idr cpu-clock per op $c ns"; else fail "pmu=sw ipi" "a number, saw '$c'"; fi
	set_all pmu=off
	wr testcase run >/dev/null
	expect "pmu=off: pmu column and counters" "off n/a" "$(col idr pmu) $(col idr cycles_per_op)"
	set_all pmu=auto
	for v in "" bogus 1 hw; do bad pmu "$v" EINVAL; done
	for v in "" 2 -1 bogus 99999999999 1x; do bad trace_visits "$v" EINVAL; done
	for v in "" -3 1024 999999 bogus anyx; do bad node "$v" EINVAL; done
	expect "node any accepted" "ok any" "$(wr node any) $(cat $D/node)"
}

# Placement: in a two-node guest the index objects land where node says.
t_numa() {
	expect "two NUMA nodes online" 2 "$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)"
	set_all indexes=all workload=lookup mode=ipi cpus=all keys=8192 ops=2000 repeat=1 pid_max=32768
	for n in 0 1 interleave; do
		set_all node=$n
		expect "node $n: run succeeds" ok "$(wr testcase run)"
		expect "node $n: recorded" "$n" "$(col idr node)"
		expect "node $n: storm CPUs and their nodes recorded" "0:0;1:1" "$(col idr cpu_nodes)"
		for ix in $INDEXES; do
			m=$(col "$ix" mem_nodes)
			share=$(echo "$m" | tr ';' '\n' | awk -F: -v n=$n '
				{ t += $2; if ($1 == n) on += $2; if ($1 == 0) z += $2 }
				END { if (n == "interleave") print (t ? z / t : -1); else print (t ? on / t : -1) }')
			case $n/$ix in
			# The kernel allocates the IDR's and maple tree's nodes without
			# a node; SLUB then serves the prefill CPU from its per-CPU
			# partial slabs first, which can hold another node's objects
			# freed there earlier (a node 0 prefill once got idr
			# 0:21;1:112): their placement is best effort, so only the
			# counting is checked (a share in [0, 1] of a non-empty count)
			*/idr | */maple) lo=0 hi=1 ;;
			interleave/*) lo=0.3 hi=0.7 ;;
			*) lo=0.95 hi=1 ;;
			esac
			if within "$share" $lo $hi; then
				pass "node $n: $ix objects placed ($m)"
			else
				fail "node $n: $ix placement" "share in [$lo, $hi], saw $share of '$m'"
			fi
		done
	done
	set_all node=any
	expect "node any: run succeeds" ok "$(wr testcase run)"
}

# node=interleave on a one-node guest: accepted, runs as any and says so
# (the prefill used to move itself to cpumask_of_node(NUMA_NO_NODE) and oops);
# on two nodes it is recorded as interleave.
t_node_interleave() {
	nn=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)
	set_all indexes=all workload=lookup cpus=all keys=1000 ops=200 repeat=1 pid_max=32768
	expect "node interleave accepted" "ok interleave" "$(wr node interleave) $(cat $D/node)"
	for mode in ipi kthread; do
		set_all mode=$mode
		expect "node interleave ($nn node(s), $mode): run succeeds" ok "$(wr testcase run)"
		v=$(unverified_rows)
		expect "node interleave ($mode): every row verified" 0 "$v"
	done
	if [ "$nn" = 1 ]; then
		expect "interleave on 1 node: the node column says any" any "$(col idr node)"
		n=$(last_run_rows | grep -c 'numa=interleave on 1 node: ran as any')
		expect "interleave on 1 node: every row's extra says it ran as any" "$(last_run_rows | wc -l)" "$n"
		expect "interleave on 1 node: test_result says it ran as any" 1 \
			"$(grep -c '^NUMA: node any (interleave on 1 node: ran as any)' $D/test_result)"
	else
		expect "interleave on $nn nodes: recorded as interleave" interleave "$(col idr node)"
		expect "interleave on $nn nodes: no note in extra" 0 "$(last_run_rows | grep -c 'numa=')"
	fi
	set_all node=any mode=ipi keys=1024 ops=500
}

# test_result read over and over while selftests and resets replace and free
# the log it shows: every read must be one whole text (a finished selftest's
# log, the results, or "no results"), never a log being written or freed,
# and none may wait behind the selftest: a read that did would take the rest
# of it, so every read must take under half a selftest (one of idr alone
# lasts its 4.4 s of time boxes or more, 15 s under KASAN; the slowest read
# seen took 1.2 s, under KASAN on a loaded host).
t_result_race() {
	rm -f /tmp/rr.stop /tmp/rr.n
	# one index: the race is on the log, which every selftest frees and
	# replaces (all seven under KASAN took 9 minutes)
	set_all indexes=idr
	(
		n=0 bad=0 max=0
		while [ ! -e /tmp/rr.stop ]; do
			t0=$(now10)
			out=$(cat $D/test_result)
			t=$(($(now10) - t0))
			[ $t -gt $max ] && max=$t
			n=$((n + 1))
			case $out in
			*"checks passed: "*) ;;
			"no results: write run to testcase"*) ;;
			"pidx run "*) ;;
			*)
				bad=$((bad + 1))
				[ $bad -le 3 ] && echo "$out" | head -n 2 | sed 's/^/  read: /'
				;;
			esac
		done
		echo "$n $bad $max" >/tmp/rr.n
	) &
	bg=$!
	t0=$(now10)
	expect "result race: selftest" ok "$(wr testcase selftest)"
	t1=$(now10)
	# the second one frees the first one's log while it is being read
	expect "result race: selftest again" ok "$(wr testcase selftest)"
	t=$(($(now10) - t1))
	[ $((t1 - t0)) -lt $t ] && t=$((t1 - t0))
	expect "result race: reset right after the selftest" ok "$(wr testcase reset)"
	i=0
	while [ $i -lt 50 ]; do
		wr testcase reset >/dev/null
		i=$((i + 1))
	done
	touch /tmp/rr.stop
	wait $bg
	set_all indexes=all
	read -r n bad max </tmp/rr.n
	echo "result race: $n reads of test_result, the slowest $((max / 10)).$((max % 10)) s; the shorter selftest $((t / 10)).$((t % 10)) s"
	expect "result race: every read was one whole text ($n reads)" 0 "$bad"
	if [ $((max * 2)) -lt "$t" ]; then
		pass "result race: no read waited behind a selftest (slowest $((max / 10)).$((max % 10)) s, under half of $((t / 10)).$((t % 10)) s)"
	else
		fail "result race: a read waited behind a selftest" "every read under half the shorter selftest ($((t / 10)).$((t % 10)) s), saw one of $((max / 10)).$((max % 10)) s"
	fi
	if [ "$t" -ge 40 ]; then
		pass "result race: a selftest took $((t / 10)).$((t % 10)) s or more, so a read waiting behind one would show"
	else
		fail "result race: selftests" "4 s or more each, so that a read waiting behind one stands out, saw $((t / 10)).$((t % 10)) s"
	fi
	expect "result race: after reset" "no results: write run to testcase" "$(cat $D/test_result)"
}

# A removal that cannot get memory (fail_remove_alloc, a test-only module
# parameter, fails every Nth node allocation of a removal: ccskip's) must leave
# the PID with its owner: the storm counts a failed operation and still
# verifies, instead of losing the PID and reporting FAILED.  ccskip's
# removal alone allocates, so its storms alone (the selftest's remove-fault
# phase checks that every other index ignores the hook; under KASAN the
# storms of all nine took 48 s).
t_remove_nomem() {
	P=/sys/module/pidx/parameters/fail_remove_alloc
	expect "remove fault hook present" yes "$([ -w $P ] && echo yes)"
	echo 3 >$P
	set_all indexes=ccskip keys=4096 ops=500 repeat=1 pid_max=32768 cpus=all fork_window=16
	for wl in delete mixed:40/20/40 fork; do
		for mode in ipi kthread; do
			set_all "workload=${wl%%:*}" "mode=$mode"
			case $wl in mixed:*) set_all "mix=${wl#*:}" ;; esac
			expect "remove fault $wl/$mode: run succeeds" ok "$(wr testcase run)"
			v=$(col ccskip verified)
			f=$(col ccskip fails)
			if [ "$v" != yes ]; then
				fail "remove fault $wl/$mode ccskip" "verified, saw '$v' ($(grep "^ccskip " $D/test_result))"
			elif [ "${f:-0}" -eq 0 ]; then
				fail "remove fault $wl/$mode ccskip" "failed removals counted in fails, saw '$f'"
			else
				pass "remove fault $wl/$mode ccskip verified (fails $f)"
			fi
		done
	done
	echo 0 >$P
	set_all workload=delete mode=kthread
	expect "remove fault off: run succeeds" ok "$(wr testcase run)"
	expect "remove fault off: ccskip delete has no fails" "yes 0" "$(col ccskip verified) $(col ccskip fails)"
	set_all indexes=all workload=lookup mix=90/5/5 mode=ipi keys=1024 fork_window=64
}

# setrun NAME=VALUE [WANT]: writes VALUE, which must be accepted and read back,
# then runs; WANT is what the run answers (ok, or the error of a refusal,
# which testcase must explain).  A run that succeeds has no FAILED row.
setrun() {
	k=${1%%=*}
	v=${1#*=}
	want=${2:-ok}
	r=$(wr "$k" "$v")
	back=$(cat "$D/$k")
	if [ "$r" != ok ] || [ "$back" != "${READBACK:-$v}" ]; then
		fail "settings: $k <- '$v'" "accepted and read back as '${READBACK:-$v}', saw $r and '$back'"
		return
	fi
	[ "$want" = none ] && { pass "settings: $k <- '$v' accepted"; return; }
	r=$(wr testcase run)
	last=$(grep '^last:' $D/testcase)
	if [ "$r" != "$want" ]; then
		fail "settings: run with $k=$v" "$want, saw $r ($last)"
	elif [ "$r" != ok ]; then
		why=$(echo "$last" | cut -d' ' -f4-)
		if [ -n "$why" ]; then
			pass "settings: run with $k=$v refused with $r: $why"
		else
			fail "settings: run with $k=$v" "refused with a reason, saw '$last'"
		fi
	elif last_run_rows | grep -q ',FAILED,'; then
		fail "settings: run with $k=$v" "no FAILED row, saw $(last_run_rows | grep ',FAILED,' | cut -d, -f2 | tr '\n' ' ')"
	else
		pass "settings: run with $k=$v ($(last_run_rows | wc -l) rows)"
	fi
}

# settings_selftest WHAT: the selftest passes under the settings just made;
# if not, the checks that failed are shown
settings_selftest() {
	r=$(wr testcase selftest)
	expect "settings: selftest with $1" ok "$r"
	[ "$r" = ok ] || grep -B1 -A3 'FAIL' $D/test_result | head -n 20
}

# Every accepted value of every setting, each followed by a short run (and, with two
# nodes, selftests under the settings that shape the indexes), on whatever CPUs and
# nodes the guest has: each write and run answers ok or a clear error.
t_settings() {
	nn=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' | wc -l)
	base="indexes=all workload=lookup mix=90/5/5 keys=256 pid_max=32768 ops=32 mode=ipi cpus=all repeat=1 seed=1 fork_window=16 sl_p=4 sl_max_level=0 rb_level=0 trace_visits=0 node=any pmu=auto dependent=0 fork_lookups=0 fork_exit=remote shape=dense"
	# shellcheck disable=SC2086 # words on purpose
	set_all $base
	for ix in all $(cut -f1 $D/available) idr,maple; do
		case $ix in
		all) READBACK=$(awk -F'\t' '$1 != "null" { printf "%s%s", sep, $1; sep = "," }' $D/available) ;;
		idr,maple) grep -q '^maple' $D/available || continue; READBACK= ;;
		*) READBACK= ;;
		esac
		setrun "indexes=$ix"
	done
	READBACK=
	set_all indexes=all mode=kthread
	for wl in lookup insert delete mixed fork iterate; do setrun workload=$wl; done
	for mx in 100/0/0 0/100/0 0/0/100 0/50/50 90/5/5; do setrun mix=$mx; done
	set_all workload=fork
	for fw in 1 65536 16; do setrun fork_window=$fw; done
	for l in 3 1 0; do setrun fork_lookups=$l; done
	for e in local remote; do setrun fork_exit=$e; done
	set_all workload=lookup mode=ipi
	for m in kthread ipi; do
		set_all workload=mixed
		setrun mode=$m
	done
	set_all workload=lookup
	set_all keys=100
	setrun pid_max=301
	set_all workload=insert
	setrun keys=300 ENOSPC
	set_all workload=lookup
	setrun keys=300
	setrun keys=1
	set_all workload=delete keys=256
	setrun ops=1
	set_all workload=lookup keys=100
	setrun pid_max=4194304
	setrun keys=4194303 none
	setrun keys=256
	setrun pid_max=32768
	setrun keys=32767
	set_all keys=256 workload=delete ops=32
	setrun keys=1 EINVAL
	set_all keys=256 workload=lookup
	setrun ops=10000000 none
	setrun ops=2000
	setrun ops=32
	for c in all $(seq 0 $((NCPUS - 1))) "0-$((NCPUS - 1))"; do
		case $c in
		all) READBACK="0-$((NCPUS - 1))"; [ "$NCPUS" = 1 ] && READBACK=0 ;;
		0-0) READBACK=0 ;;
		*) READBACK= ;;
		esac
		setrun "cpus=$c"
	done
	READBACK=
	set_all cpus=all
	setrun repeat=1000 none
	setrun repeat=3
	setrun repeat=1
	setrun seed=0
	setrun seed=18446744073709551615
	READBACK=16
	setrun seed=0x10
	READBACK=
	set_all seed=1 workload=mixed mix=50/25/25 mode=kthread
	for p in 2 8 16 4; do setrun sl_p=$p; done
	for l in 1 16 8 0; do setrun sl_max_level=$l; done
	for l in 1 16 0; do setrun rb_level=$l; done
	for t in 1 0; do setrun trace_visits=$t; done
	for t in 1 0; do setrun dependent=$t; done
	for p in off sw auto; do setrun pmu=$p; done
	for sh in spread aged dense; do setrun shape=$sh; done
	for n in 0 1 interleave any; do
		if [ "$n" = 1 ] && [ "$nn" -lt 2 ]; then
			bad node 1 EINVAL
			continue
		fi
		setrun node=$n
	done
	set_all workload=lookup mix=90/5/5 mode=ipi
	# the settings that shape the indexes, all at once, under the selftest:
	# with two nodes, so that interleave and node 1 place objects (the numa
	# boot; with one node the same selftest took 50 s and told nothing new)
	if [ "$nn" -ge 2 ]; then
		set_all sl_p=16 sl_max_level=8 rb_level=1 seed=18446744073709551615 node=interleave
		settings_selftest "sl_p 16, sl_max_level 8, rb_level 1, seed max, node interleave"
		set_all sl_p=2 sl_max_level=16 rb_level=16 seed=0 node=1
		settings_selftest "sl_p 2, sl_max_level 16, rb_level 16, seed 0, node 1"
	else
		echo "settings: the selftests under shaping settings run in the numa boot (one node here)"
	fi
	# shellcheck disable=SC2086
	set_all $base
	set_all keys=1024 ops=500
}

# The same with the kernel's own fault injection (the debug kernel's
# failslab): the storm kthreads' allocations that cannot sleep fail.  A
# removal must still succeed (maple allocates with __GFP_NOFAIL) or, in ccskip
# (remove_may_fail), count as a failed operation: never a FAILED row.
t_remove_failslab() {
	F=/sys/kernel/debug/failslab
	if [ ! -d $F ]; then
		pass "remove under failslab: skipped, this kernel has no failslab"
		return
	fi
	echo 0 >$F/verbose
	echo Y >$F/task-filter
	echo Y >$F/ignore-gfp-wait
	echo 1 >$F/interval
	echo 25 >$F/probability
	for ix in maple ccskip; do
		grep -q "^$ix" $D/available || continue
		set_all indexes=$ix workload=delete mode=kthread cpus=all pid_max=131072 keys=65536 \
			ops=$((32768 / NCPUS)) repeat=1
		echo 100000000 >$F/times
		(echo run >$D/testcase) 2>/dev/null &
		bg=$!
		# only the storm kthreads, not the prefill's (pidx-fill)
		while kill -0 $bg 2>/dev/null; do
			for p in $(ps | awk '$NF ~ /^\[pidx\/[0-9]+\]$/ { print $1 }'); do
				echo 1 >/proc/"$p"/make-it-fail 2>/dev/null
			done
			sleep 0.1
		done
		wait $bg
		injected=$((100000000 - $(cat $F/times)))
		v=$(col "$ix" verified)
		f=$(col "$ix" fails)
		echo "remove under failslab: $ix: $injected allocations failed, verified $v, fails $f"
		if [ "$injected" -eq 0 ]; then
			fail "remove under failslab $ix" "some failed allocations in the storm, saw none (kthreads not marked in time)"
		elif [ "$v" != yes ]; then
			fail "remove under failslab $ix" "verified, saw '$v' ($(grep "^$ix " $D/test_result))"
		elif [ "$ix" = maple ] && [ "$f" != 0 ]; then
			fail "remove under failslab maple" "no failed removal (__GFP_NOFAIL), saw fails $f"
		else
			pass "remove under failslab $ix: verified, fails $f, $injected allocations failed"
		fi
	done
	echo 0 >$F/probability
	echo N >$F/task-filter
	set_all indexes=all workload=lookup keys=1024 pid_max=32768 ops=500 mode=ipi
}

# failslab, the debug kernel's slab fault injection (Documentation/
# fault-injection): fs_on PERCENT TASK_FILTER IGNORE_GFP_WAIT.  TASK_FILTER Y
# fails only tasks marked make-it-fail (the module marks its own contexts
# under its test-only fault_inject mask: 1 storm kthreads, 2 the prefill,
# 4 the selftest's phase under faults, 8 init and exit); N fails any task,
# interrupted ones included.  IGNORE_GFP_WAIT Y fails only allocations that
# cannot sleep.  verbose 0: failslab would report every failure with a
# stack dump, which the runner reads as a kernel problem ("Call Trace").
# `times` counts down once per failure injected: fs_injected says how many
# since fs_on (failslab has no other counter, and none per caller).
FS=/sys/kernel/debug/failslab
FI=/sys/module/pidx/parameters/fault_inject
FS_TIMES=1000000000

fs_on() {
	echo 0 >$FS/verbose
	echo 1 >$FS/interval
	echo 0 >$FS/space
	echo "$2" >$FS/task-filter
	echo "$3" >$FS/ignore-gfp-wait
	echo $FS_TIMES >$FS/times
	echo "$1" >$FS/probability
}

fs_off() {
	echo 0 >$FS/probability
	echo N >$FS/task-filter
	echo Y >$FS/ignore-gfp-wait
}

fs_injected() {
	read -r left <$FS/times
	echo $((FS_TIMES - left))
}

# fs_row INDEX: sets ROW_RUN, ROW_V (verified), ROW_F (fails), ROW_E (errors),
# LABEL (1 if extra has faults=failslab), NOMEM and PNOMEM (extra's nomem=
# and prefill_nomem=) from INDEX's row of the
# newest run in results.csv, empty when it has none; then RUNS (testcase's
# runs) and MEM (index bytes outstanding).  One awk for it all: a process
# costs a tenth of a second in the debug guest, and the group runs 170 storms.
fs_row() {
	eval "$(awk -F, -v ix="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 >= run && $(c["index"]) == ix && $(c["repeat"]) == 0 {
			run = $1; v = $(c["verified"]); f = $(c["fails"]); e = $(c["errors"])
			x = $(c["extra"])
		}
		END {
			nm = pn = ""
			lb = 0
			n = split(x, kv, ";")
			for (i = 1; i <= n; i++) {
				if (kv[i] == "faults=failslab") lb = 1
				if (kv[i] ~ /^nomem=/) nm = substr(kv[i], 7)
				if (kv[i] ~ /^prefill_nomem=/) pn = substr(kv[i], 15)
			}
			printf "ROW_RUN=%s ROW_V=%s ROW_F=%s ROW_E=%s LABEL=%s NOMEM=%s PNOMEM=%s\n", \
				run, v, f, e, lb, nm, pn
		}' $D/results.csv)"
	while read -r k val _; do
		case $k in runs:) RUNS=$val ;; esac
	done <$D/testcase
	while read -r k val; do
		case $k in bytes) MEM=$val ;; esac
	done <$D/memory
}

# add VAR N: VAR += N (per-index totals of the failslab group)
add() {
	eval "$1=\$((\${$1:-0} + $2))"
}

# fs_storm INDEX WORKLOAD MODE PERCENT: one index's storm under failslab
fs_storm() {
	name="failslab $3 $2 $4% $1"
	set_all "indexes=$1"
	echo 1 >$FI
	if [ "$3" = ipi ]; then fs_on "$4" N Y; else fs_on "$4" Y N; fi
	r=$(wr testcase run)
	fs_off
	echo 0 >$FI
	n=$(fs_injected)
	add "inj_$1" "$n"
	fs_row "$1"
	if [ "$ROW_RUN" != "$RUNS" ]; then
		# no row from this run: maple sits out ipi writes, as test_result
		# says; otherwise only the prefill may have given up, cleanly: a
		# reason and no memory left
		last=
		while read -r k val; do
			case $k in last:) last=$val ;; esac
		done <$D/testcase
		if [ "$r" = ok ] && [ "$3" = ipi ] && grep -q "^skipped: $1:" $D/test_result; then
			pass "$name: skipped, as test_result says"
		elif [ "$r" = ENOMEM ] && [ "$MEM" = 0 ] && [ "$3 $4" = "ipi 50" ] &&
			case "$last" in *"prefill of $1: no memory"*) true ;; *) false ;; esac; then
			# an unrestricted failslab fails the prefill's allocations that
			# cannot sleep: ccskip's, made under its lock, at 50% often
			add "refused_$1" 1
			pass "$name: prefill gave up cleanly ($n failed allocations): $last"
		else
			fail "$name" "a verified row, or the prefill giving up cleanly, saw $r, '$last', memory $MEM"
		fi
		return
	fi
	add "nomem_$1" "${NOMEM:-0}"
	add "fails_$1" "${ROW_F:-0}"
	add "pnomem_$1" "${PNOMEM:-0}"
	add "storms_$1" 1
	echo "$name: $n allocations failed, $NOMEM ops refused with -ENOMEM, fails $ROW_F, prefill -ENOMEM $PNOMEM"
	if [ "$r" != ok ] || [ "$ROW_V" != yes ] || [ "$ROW_E" != 0 ]; then
		fail "$name" "run ok, verified yes, errors 0, saw $r, '$ROW_V', '$ROW_E' ($(grep "^$1 " $D/test_result))"
	elif [ "$LABEL" != 1 ] || [ -z "$NOMEM" ]; then
		fail "$name" "extra labelled faults=failslab with nomem=, saw '$(col "$1" extra)'"
	elif [ "$NOMEM" -gt "$ROW_F" ]; then
		fail "$name" "every -ENOMEM counted in fails, saw nomem $NOMEM > fails $ROW_F"
	elif [ "$2" != mixed ] && [ "$NOMEM" != "$ROW_F" ]; then
		# only mixed may also fail a delete with nothing left to delete
		fail "$name" "fails = ops refused with -ENOMEM, saw fails $ROW_F, nomem $NOMEM"
	elif [ "$MEM" != 0 ]; then
		fail "$name" "index memory back to 0 after the run, saw $MEM bytes"
	else
		pass "$name: verified, fails $ROW_F = $NOMEM refused"
	fi
}

# Storms under failslab: every index, every writing workload, both modes, at
# 1, 10 and 50%.  ipi callbacks run in whatever task an IPI interrupts, with
# interrupts off: failslab reaches them only unrestricted (task-filter N), and
# with ignore-gfp-wait Y it then fails only allocations that cannot sleep,
# anywhere in the guest for the run.  The prefill's GFP_KERNEL ones pass, but
# ccskip allocates under its lock with GFP_ATOMIC, so its prefill may give up
# at 50%: only there is a run without a row accepted.  kthread storms:
# task-filter Y and the module marks its storm kthreads (fault_inject 1)
# alone, with ignore-gfp-wait N so that their GFP_KERNEL allocations fail
# too.  Every row verifies, counts each -ENOMEM in fails and is labelled
# faults=failslab.
t_failslab_storms() {
	# 200 operations in all, so that a delete storm finds its keys
	set_all keys=256 "ops=$((200 / NCPUS))" pid_max=4096 repeat=1 cpus=all fork_window=16 \
		mix=20/40/40 seed=1
	for mode in ipi kthread; do
		for wl in insert delete mixed fork; do
			set_all "workload=$wl" "mode=$mode"
			for p in 1 10 50; do
				for ix in $INDEXES; do
					fs_storm "$ix" "$wl" "$mode" "$p"
				done
			done
		done
	done
	# the IDR takes a radix tree node once in 64 numbers, and from a per-CPU
	# pool where it may (not in an IPI): only a longer insert storm runs it
	# out of nodes, and its storms above refuse some 3 ops in all, none in
	# 1 CI run of 1000: the long storm again while none was refused
	set_all workload=insert mode=ipi "ops=$((2000 / NCPUS))"
	i=0
	while [ $i = 0 ] || { [ "${nomem_idr:-0}" = 0 ] && [ $i -lt 5 ]; }; do
		fs_storm idr insert ipi 50
		i=$((i + 1))
	done
	set_all "ops=$((200 / NCPUS))"
	for ix in $INDEXES; do
		[ "$ix" = maple ] && [ "$(eval echo "\${storms_$ix:-0}")" = 0 ] && continue
		n=$(eval echo "\${inj_$ix:-0}")
		case $ix in
		lfradix*)
			# a leaf comes from the CPU's spare, refilled before each
			# operation while it is missing: a failed refill is tried
			# again by the next one, long before the spare is needed
			if [ "$n" -gt 0 ]; then
				pass "failslab storms $ix: $n allocations failed, each storm verified"
			else
				fail "failslab storms $ix" "some of its allocations failed, saw none"
			fi
			continue ;;
		esac
		if [ "$(eval echo "\${nomem_$ix:-0}")" -gt 0 ]; then
			pass "failslab storms $ix: some operations refused with -ENOMEM"
		else
			fail "failslab storms $ix" "some of its operations refused, saw none"
		fi
	done
}

# The prefill under failslab (fault_inject 2: the prefill kthread alone): at
# 10% it retries and the storm runs on the whole prefill; at 100% every
# index's run fails before any storm, testcase says why, and nothing is left.
# The IDR allocates its nodes from a per-CPU pool that idr_preload() tops
# up: it runs out only after some 21 nodes (1300 keys), so 2048 keys, and
# at 10% it may well never run out.
t_failslab_prefill() {
	set_all keys=2048 ops=100 pid_max=4096 repeat=1 cpus=all workload=insert mode=kthread seed=1
	for ix in $INDEXES; do
		set_all "indexes=$ix"
		echo 2 >$FI
		# lfradix makes a leaf per 64 numbers, some 36 allocations in
		# this prefill: at 10% none fails in 1 run of 40, so a run
		# that saw no fault proves nothing and is run again, 5 at most
		try=0
		while :; do
			try=$((try + 1))
			fs_on 10 Y N
			r=$(wr testcase run)
			fs_off
			n=$(fs_injected)
			add "inj_$ix" "$n"
			fs_row "$ix"
			add "pnomem_$ix" "${PNOMEM:-0}"
			# the faults this run had to survive: the IDR may
			# not run out of its pool at all; lfradix tries a
			# failed refill of its spare again before the next leaf
			# is needed, so it retries nothing
			seen=
			case $ix in
			idr) seen=y ;;
			lfradix*) [ "$n" -gt 0 ] && seen=y ;;
			*) [ "${PNOMEM:-0}" -gt 0 ] && seen=y ;;
			esac
			if [ "$r" != ok ] || [ "$ROW_RUN $ROW_V $ROW_F" != "$RUNS yes 0" ] ||
				[ -n "$seen" ] || [ $try -ge 5 ]; then
				break
			fi
		done
		if [ "$r" = ok ] && [ "$ROW_RUN $ROW_V $ROW_F" = "$RUNS yes 0" ] && [ -n "$seen" ]; then
			pass "failslab prefill 10% $ix: retried $PNOMEM times, verified ($n allocations failed, try $try of 5)"
		else
			fail "failslab prefill 10% $ix" "ok, verified, fails 0, some retries, saw $r, run $ROW_RUN of $RUNS, '$ROW_V' '$ROW_F', prefill_nomem '$PNOMEM', $n allocations failed in try $try of 5"
		fi
		rows=$(wc -l <$D/results.csv)
		runs=$(awk '/^runs:/ { print $2 }' $D/testcase)
		fs_on 100 Y N
		r=$(wr testcase run)
		fs_off
		echo 0 >$FI
		n=$(fs_injected)
		add "inj_$ix" "$n"
		last=$(awk '/^last:/ { $1 = ""; print substr($0, 2) }' $D/testcase)
		# every index fails at its first key, but the IDR after its pool,
		# and lfradix at the first number past the leaf that its spare,
		# allocated at create, gave it
		key=1
		[ "$ix" = idr ] && key=$(echo "$last" | sed -n 's/.*no memory for key \([0-9]*\) of.*/\1/p')
		case $ix in lfradix*) key=64 ;; esac
		expect "failslab prefill 100% $ix: refused with a reason ($n allocations failed)" \
			"ENOMEM run -12 prefill of $ix: no memory for key $key of 2048 in 8 tries: not stormed; $((runs + 1)) runs, $rows rows, 0 bytes" \
			"$r $last; $(awk '/^runs:/ { print $2 }' $D/testcase) runs, $(wc -l <$D/results.csv) rows, $(awk '/^bytes/ { print $2 }' $D/memory) bytes"
	done
}

# t_selftest under failslab (fault_inject 4, task-filter Y, ignore-gfp-wait
# N), in place of the plain one (the debug kernel's selftest takes minutes):
# its oracle phases run unmarked, so a -ENOMEM there is a real failure, and
# they check what they always do; one more phase per index runs with the
# selftest's allocations failing and accepts only the refusals the contract
# allows, counting them.
t_failslab_selftest() {
	if [ ! -d $FS ]; then
		t_selftest
		return
	fi
	echo 4 >$FI
	fs_on 10 Y N
	t_selftest
	fs_off
	echo 0 >$FI
	n=$(fs_injected)
	for ix in $INDEXES; do
		refused=$(st_refused "$ix")
		# lfradix refuses an op only when its spare's refill failed
		# and the key has no leaf: some 5 in a selftest, none in 1 of
		# 100; that index's selftest again while it refused none
		try=1 r=ok
		while [ "${refused:-0}" = 0 ] && [ "$ix" != idr ] && [ "$r" = ok ] && [ $try -lt 5 ]; do
			try=$((try + 1))
			set_all "indexes=$ix"
			echo 4 >$FI
			fs_on 10 Y N
			r=$(wr testcase selftest)
			fs_off
			echo 0 >$FI
			n=$((n + $(fs_injected)))
			set_all indexes=all
			line=$(grep "^selftest $ix:" $D/test_result)
			if [ "$r" != ok ] || [ "$(echo "$line" | awk '{ print $3 }')" != "$(echo "$line" | awk '{ print $5 }')" ]; then
				fail "failslab selftest $ix, try $try" "ok, all checks passed, saw $r, '$line'"
			fi
			refused=$(st_refused "$ix")
		done
		add "stnomem_$ix" "${refused:-0}"
		# the IDR's per-CPU node pool, refilled by every idr_preload()
		# that gets memory, lets it ride out 10%
		if [ "${refused:-0}" -gt 0 ] || [ "$ix" = idr ]; then
			pass "failslab selftest $ix: $refused ops refused with -ENOMEM in its phase under faults (try $try of 5)"
		else
			fail "failslab selftest $ix" "some ops refused in its phase under faults, saw '$refused' in try $try of 5"
		fi
	done
	echo "failslab selftest: $n allocations failed"
}

# st_refused INDEX: ops refused with -ENOMEM in INDEX's selftest phase under faults
st_refused() {
	awk -v ix="$1" '/^  faults: / { f = $4 } $1 == "selftest" && $2 == ix ":" { print f }' $D/test_result
}

# insmod and rmmod under failslab (fault_inject 8 marks init and exit): a load
# either fails with nothing left behind or gives every control file; every
# unload returns all memory.
# the number of entries in pidx's debugfs directory
nfiles() {
	set -- $D/*
	echo $#
}

# fs_load PERCENT: one insmod and rmmod with init and exit failing at PERCENT
fs_load() {
	fs_on "$1" Y N
	if insmod "$KO" fault_inject=8 ops=500 2>/dev/null; then
		ok=$((ok + 1))
		[ "$(nfiles)" = "$nf" ] || bad=$((bad + 1))
		rmmod pidx || bad=$((bad + 1))
	else
		refused=$((refused + 1))
		{ [ -e $D ] || [ -e /sys/module/pidx ]; } && bad=$((bad + 1))
	fi
	fs_off
	[ "$1" = 100 ] && [ -e $D ] && bad=$((bad + 1))
}

t_failslab_load() {
	nf=$(nfiles)
	rmmod pidx || fail "failslab load" "rmmod before the loads"
	ok=0
	refused=0
	bad=0
	for p in 2 2 2 2 2 2 10 10 10 10 10 10 100; do
		fs_load "$p"
	done
	# init makes some 21 allocations: a load gets through 2% two times
	# in three, 10% one in nine, and these 13 loads missed one outcome in
	# 1 CI run of 1000; more, until both were seen
	i=0
	while [ "$ok" = 0 ] && [ $i -lt 20 ]; do fs_load 2; i=$((i + 1)); done
	i=0
	while [ "$refused" -lt 2 ] && [ $i -lt 20 ]; do fs_load 10; i=$((i + 1)); done
	n=$(fs_injected)
	echo "failslab load: $ok loads, $refused refused"
	expect "failslab load: each insmod failed cleanly or gave all $nf files ($ok loaded, $refused refused)" 0 "$bad"
	if [ "$ok" -gt 0 ] && [ "$refused" -gt 1 ]; then
		pass "failslab load: both outcomes seen"
	else
		fail "failslab load" "some loads and some refusals, saw $ok and $refused"
	fi
	expect "failslab load: no unload leaked" 0 "$(dmesg | grep -c 'pidx: leak')"
	insmod "$KO" ops=500 || fail "failslab load" "insmod afterwards"
}

t_failslab() {
	if [ ! -d $FS ]; then
		pass "failslab: skipped, this kernel has no failslab"
		return
	fi
	expect "failslab: fault_inject parameter present" yes "$([ -w $FI ] && echo yes)"
	t0=$(now10)
	t_failslab_storms
	t_failslab_prefill
	t_failslab_load
	for ix in $INDEXES; do
		echo "failslab summary $ix: $(eval echo "\${inj_$ix:-0}") allocations failed in its runs;" \
			"storms: $(eval echo "\${storms_$ix:-0}") run, $(eval echo "\${refused_$ix:-0}") prefills gave up," \
			"$(eval echo "\${nomem_$ix:-0}") ops refused with -ENOMEM (fails $(eval echo "\${fails_$ix:-0}"));" \
			"prefill retries $(eval echo "\${pnomem_$ix:-0}"); selftest refusals $(eval echo "\${stnomem_$ix:-0}")"
	done
	t=$(($(now10) - t0))
	echo "failslab: the group took $((t / 10)).$((t % 10)) s"
	set_all indexes=all workload=lookup keys=1024 pid_max=32768 ops=500 mode=ipi mix=90/5/5 fork_window=64
}

# uptime in tenths of a second
now10() {
	awk '{ printf "%d\n", $1 * 10 }' /proc/uptime
}

# timed t_name [args]: runs one test and says how long it took, so that the
# suite's time can be spent where it finds faults (the README's timings)
timed() {
	timed_t0=$(now10)
	"$@"
	timed_t=$(($(now10) - timed_t0))
	echo "TIME $1 $((timed_t / 10)).$((timed_t % 10)) s"
}

# A prefill of millions of keys outlasts the hung-task timeout under emulation:
# the writer must wait where the detector does not report it (vm-run fails the
# boot on "blocked for more than"), and a fatal signal must stop the prefill
# early and leave nothing behind.
# prefill_timed TIMEOUT: one run with the hung-task timeout at TIMEOUT s;
# sets t, its tenths of a second
prefill_timed() {
	ht=$(cat /proc/sys/kernel/hung_task_timeout_secs)
	echo "$1" >/proc/sys/kernel/hung_task_timeout_secs
	t0=$(now10)
	expect "long prefill: run succeeds ($(cat $D/keys) keys, timeout $1 s)" ok "$(wr testcase run)"
	t=$(($(now10) - t0))
	echo "$ht" >/proc/sys/kernel/hung_task_timeout_secs
	echo "long prefill: skiplist, $(cat $D/keys) keys: run took $((t / 10)).$((t % 10)) s"
}

t_prefill_long() {
	# 3 s, three times the prefill's 1 s timed wait: a plain
	# wait_for_completion() is reported, a timed one never is (CI's host
	# filled 3M keys in 9 s); not 2 s, which a grace period or a vCPU
	# without a host CPU for a second can reach on a loaded host
	set_all indexes=skiplist workload=lookup mode=kthread cpus=all pid_max=4194304 keys=3145728 ops=100 repeat=1
	to=3
	prefill_timed $to
	# a faster host (KVM, or a faster CPU) fills 3M keys in 6 s or less:
	# there grace periods are short too, so a 1 s timeout, and every number
	if [ "$t" -le 60 ]; then
		to=1
		set_all keys=4194303
		prefill_timed $to
	fi
	# the detector reports a task blocked for one timeout within two
	if [ "$t" -gt $((to * 20)) ]; then
		pass "long prefill outlasted twice the $to s hung-task timeout ($((t / 10)) s)"
	else
		fail "long prefill" "a run over $((to * 2)) s, so that the test means something, saw $((t / 10)).$((t % 10)) s"
	fi
	expect "long prefill: row verified" yes "$(col skiplist verified)"
	runs=$(awk '/^runs:/ { print $2 }' $D/testcase)
	rows=$(wc -l <$D/results.csv)
	(echo run >$D/testcase) 2>/dev/null &
	bg=$!
	sleep 2
	expect "killed prefill: the run was in flight" running "$(awk '/^state:/ { print $2 }' $D/testcase)"
	t0=$(now10)
	kill -9 $bg
	while grep -q 'state: running' $D/testcase && [ $(($(now10) - t0)) -lt 600 ]; do
		sleep 0.2
	done
	t=$(($(now10) - t0))
	wait $bg 2>/dev/null
	if [ "$t" -le 80 ]; then
		pass "killed prefill: stopped $((t / 10)).$((t % 10)) s after kill -9"
	else
		fail "killed prefill" "stopped within 8 s of kill -9, saw $((t / 10)).$((t % 10)) s"
	fi
	expect "killed prefill: testcase says why" "run -4 a fatal signal stopped the run" \
		"$(awk '/^last:/ { print $2, $3, $4, $5, $6, $7, $8, $9 }' $D/testcase | sed 's/:$//')"
	expect "killed prefill: counted as a run" "$((runs + 1))" "$(awk '/^runs:/ { print $2 }' $D/testcase)"
	expect "killed prefill: no rows added" "$rows" "$(wc -l <$D/results.csv)"
	# shellcheck disable=SC2009 # busybox here has no pgrep
	expect "killed prefill: no pidx-fill kthread left" 0 "$(ps | grep -c '[p]idx-fill')"
	expect "killed prefill: index memory all freed" 0 "$(awk '/^bytes/ { print $2 }' $D/memory)"
	set_all keys=1024 pid_max=32768 ops=500 mode=ipi indexes=all
	expect "after a killed prefill: a run succeeds" ok "$(wr testcase run)"
}

t_cycles() {
	bad=0
	i=0
	while [ $i -lt 20 ]; do
		if [ -d $D ]; then
			set_all keys=512 ops=200 workload=fork mode=$WMODE
			[ "$(wr testcase run)" = ok ] || bad=$((bad + 1))
			b=$(awk '/^bytes/ { print $2 }' $D/memory)
			[ "$b" = 0 ] || bad=$((bad + 1))
			rmmod pidx || bad=$((bad + 1))
		fi
		insmod "$KO" || bad=$((bad + 1))
		i=$((i + 1))
	done
	expect "20 insmod/rmmod cycles with runs" 0 "$bad"
	rmmod pidx
	leaks=$(dmesg | grep -c 'pidx: leak')
	freed=$(dmesg | grep -c 'pidx: unloaded; .* all freed')
	expect "every unload returned all memory" "0 yes" "$leaks $([ "$freed" -ge 20 ] && echo yes)"
	left=$(grep -c '^pidx' /proc/slabinfo 2>/dev/null)
	expect "no pidx slab cache left after unload" 0 "${left:-0}"
	insmod "$KO"
}

t_load
if [ "$LEVEL" = only ]; then
	# suite.sh only t_name...: those tests alone, for debugging
	# (t_load has run already: a second insmod would fail)
	shift
	for t in "$@"; do [ "$t" = t_load ] || timed "$t"; done
	LEVEL=none
else
	[ "$LEVEL" = kcsan ] && timed t_kcsan_filter
	case $LEVEL in
	debug|failslab) timed t_failslab_selftest ;;
	smoke|broken) timed t_selftest_of idr,skiplist ;;
	# kcsan: its concurrent phases at the dense rate come below (KCSAN finds
	# nothing in the others, which took 100 of its 144 s); numa: t_settings
	# runs the whole selftest twice, under node=interleave and a node
	kcsan | numa) ;;
	*) timed t_selftest ;;
	esac
fi
case $LEVEL in smoke|none|numa) ;; *) timed t_matrix ;; esac
case $LEVEL in
full)
	timed t_lockref_loop
	timed t_bad_input
	timed t_visits
	timed t_repeats
	timed t_fork_settings
	timed t_pmu
	timed t_dependent
	timed t_shape
	timed t_dense
	timed t_busy
	timed t_setting_writers
	timed t_reset_skipped
	timed t_hotplug_racetest
	timed t_hotplug_prefill
	timed t_node_interleave
	timed t_settings
	timed t_result_race
	timed t_selftest_indexes
	timed t_remove_nomem
	timed t_prefill_long
	timed t_cycles
	;;
debug)
	# KASAN and lockdep under emulation run ~10x slower: the long storms
	# (t_dense, t_busy, t_prefill_long) stay in the stock-kernel pass
	timed t_lockref_loop
	timed t_bad_input
	timed t_visits
	timed t_pmu
	timed t_shape
	timed t_node_interleave
	timed t_result_race
	timed t_remove_nomem
	timed t_remove_failslab
	timed t_failslab
	timed t_cycles
	;;
failslab)
	timed t_failslab
	;;
quick)
	# every value of every setting is the 2-vCPU and the numa boots'
	timed t_node_interleave
	;;
numa)
	timed t_numa
	timed t_node_interleave
	timed t_settings
	;;
rt)
	timed t_rt_defaults
	timed t_lockref_loop
	timed t_cycles
	;;
matrix)
	timed t_bad_input
	timed t_cycles
	;;
kcsan)
	timed t_kcsan_racetest
	timed t_kcsan_dense
	timed t_kcsan_pidmap
	timed t_kcsan_active
	;;
esac
rmmod pidx || fail unload "rmmod failed"
echo "GUEST-SUMMARY $passed passed, $failed failed"
# 3, not 1: the runner tells the suite's own failures from its own errors
[ "$failed" = 0 ] || exit 3
