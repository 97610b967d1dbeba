# shellcheck shell=sh
# suite-core.sh: sourced by tests/guest/suite.sh (the runner), uses suite-lib.sh's
# helpers; not a guest script of its own.  The tests every kernel runs, or most
# levels: the load (t_load), the selftest and racetest (whole, of some indexes,
# of no index), the workload matrix of every workload in both modes, the
# lockref loop, bad input to every setting, test_result read against selftests
# and resets, and insmod/rmmod cycles.  Kept together because they are the
# module's basic contract, which the smoke, broken, matrix and quick levels
# check without the rest.
# The runner has sourced suite-lib.sh before this part; sourced here too so
# that shellcheck, which lints each file alone, sees the state and helpers
# this part uses (a second time changes nothing, before the tests run).
# shellcheck source=suite-lib.sh
. "$SUITE_DIR/suite-lib.sh"

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
	for ix in idr idr_onelock skiplist rbskip null; do
		cut -f1 $D/available | grep -qx "$ix" || missing="$missing $ix"
	done
	expect "available lists idr, idr_onelock, skiplist, rbskip and null" "" "$missing"
	# the two IDR references side by side, 6.1's first
	expect "available: idr_onelock right after idr" idr_onelock \
		"$(cut -f1 $D/available | grep -A1 -x idr | tail -n 1)"
	expect "indexes default to all but null" "$all" "$(cat $D/indexes)"
}

# t_selftest [racetest [MIN]]: every index passes all its checks, and more
# than MIN (100) of them
t_selftest() {
	c=${1:-selftest}
	r=$(wr testcase "$c")
	expect "$c returns success" ok "$r"
	selftest_lines "$c" "${2:-100}"
}

# The selftest under the tall settings that shape the indexes (towers up to
# 16 levels, each level half the one below, rbskip's tree holding only the
# towers of 16; seed 0), on node 1 where there is one.  Where make check runs it (4 vCPUs
# on two nodes), the defaults' selftest is the 1-vCPU and rt boots'.
t_selftest_tall() {
	node=any
	[ "$(nnodes)" -lt 2 ] || node=1
	set_all sl_p=2 sl_max_level=16 rb_level=16 seed=0 node=$node
	echo "selftest under sl_p 2, sl_max_level 16, rb_level 16, seed 0, node $node"
	t_selftest
	set_all sl_p=4 sl_max_level=0 rb_level=0 seed=1 node=any
}

# selftest_lines NAME MIN: each index's line in test_result says all its
# checks passed, and more than MIN of them
selftest_lines() {
	c=$1
	for ix in $INDEXES; do
		line=$(grep "^selftest $ix:" $D/test_result)
		n=$(echo "$line" | awk '{ print $3 }')
		m=$(echo "$line" | awk '{ print $5 }')
		if [ -n "$n" ] && [ "$n" = "$m" ] && [ "$n" -gt "$2" ]; then
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
			# each index's verdict and ops from one awk, not two per index
			# (a process costs milliseconds under KASAN); "-" for no row,
			# "twice" for two rows, "empty" for a row without a verdict
			while read -r ix v ops; do
				[ -n "$ix" ] || continue
				[ "$v" != - ] || v='' ops=''
				if [ "$v" = yes ] && [ "$ops" = $((NCPUS * mops)) ]; then
					pass "storm $name $ix verified"
				elif [ -z "$v" ] && [ "$mode" = ipi ] && grep -q "^skipped: $ix:" $D/test_result; then
					# an index whose writers need interrupts on (maple) sits out ipi writes
					pass "storm $name $ix skipped, as test_result says"
				else
					fail "storm $name $ix" "verified=yes and $((NCPUS * mops)) ops, saw verified='$v' ops='$ops'"
					grep "^$ix " $D/test_result
				fi
			done <<-EOF
			$(echo "$rows" | awk -F, -v list="$INDEXES" '
				{ t = ($2 in v) ? "twice" : ($28 == "" ? "empty" : $28); v[$2] = t; o[$2] = $13 }
				END { n = split(list, ix, " "); for (i = 1; i <= n; i++)
					print ix[i], (ix[i] in v) ? v[ix[i]] : "-", (ix[i] in o) ? o[ix[i]] : "-" }')
			EOF
			# idr_onelock's rows say whether an -ENOMEM could be retried:
			# not where an ipi storm's writers took numbers
			case " $INDEXES " in *" idr_onelock "*)
				want=retry=preload
				case $mode/$wl in ipi/insert | ipi/mixed* | ipi/fork) want="retry=none(atomic)" ;; esac
				e=$(echo "$rows" | awk -F, '$2 == "idr_onelock" { print $29 }' | head -n 1)
				case ";$e;" in
				*";$want;"*) pass "storm $name idr_onelock says $want" ;;
				*) fail "storm $name idr_onelock's retry" "$want in extra, saw '$e'" ;;
				esac
				;;
			esac
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
	# and on PREEMPT_RT, whose 20 take the same paths with its sleeping
	# locks: the stock kernel's 100 are the ones that hunt a rare leak
	case $LEVEL in debug | rt) rounds=20 ;; esac
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

t_bad_input() {
	set_all keys=1024 pid_max=32768 ops=500
	long=$(awk 'BEGIN { while (i++ < 700) printf "9" }')
	for f in indexes workload mix keys ops mode cpus pid_max repeat seed fork_window fork_lookups fork_exit sl_p sl_max_level rb_level dependent levels shape testcase; do
		bad $f "" EINVAL
		bad $f "   " EINVAL
		bad $f "garbage!" EINVAL
		bad $f "$long" EINVAL
	done
	for f in keys ops pid_max repeat seed fork_window fork_lookups sl_p sl_max_level rb_level dependent levels; do
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

t_cycles() {
	bad=0
	i=0
	# KASAN finds a leak or a use after free in the first cycle that has
	# it, each cycle taking the same paths; the stock kernel's 20 hunt a
	# rare one (each cycle cost 2.5 s under KASAN)
	n=20
	[ "$LEVEL" != debug ] || n=5
	while [ $i -lt $n ]; do
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
	expect "$n insmod/rmmod cycles with runs" 0 "$bad"
	rmmod pidx
	leaks=$(dmesg | grep -c 'pidx: leak')
	freed=$(dmesg | grep -c 'pidx: unloaded; .* all freed')
	expect "every unload returned all memory" "0 yes" "$leaks $([ "$freed" -ge "$n" ] && echo yes)"
	left=$(grep -c '^pidx' /proc/slabinfo 2>/dev/null)
	expect "no pidx slab cache left after unload" "${KERNEL_SLABS:-0}" "${left:-0}"
	insmod "$KO"
}

# slow_row MODE MS INDEX: one lookup storm of INDEX on CPU 0 whose first batch
# spins MS ms (stall_test); sets SLOW_V (verified), SLOW_E (extra) and SLOW_T
# (its test_result row)
slow_row() {
	set_all indexes="$3" workload=lookup "mode=$1" cpus=0 keys=256 ops=2000 repeat=1 "stall_test=$2"
	r=$(wr testcase run)
	[ "$r" = ok ] || fail "slow: run of $3 in $1 mode" "ok, saw $r ($(grep '^last:' $D/testcase))"
	SLOW_V=$(col "$3" verified)
	SLOW_E=$(col "$3" extra)
	SLOW_T=$(grep -m1 "^$3 " $D/test_result)
}

# A storm past the module's 5 s bound (PIDX_ROUND_BOUND_MS) that verified is
# slow, naming the bound and its figure in test_result and in extra (slow=),
# and its run is no refused one; a wrong result is FAILED, bound or not.  On
# a module whose idr is broken (run-all.sh's broken index) idr's stalled row
# must be FAILED for its lookups, and skiplist's, sound, slow.
t_slow_verdict() {
	kb='CPU 0 took [0-9]* ms over one kthread batch (bound 5000 ms)'
	ib='CPU 0 kept interrupts off [0-9]* ms in one ipi round (bound 5000 ms)'
	set_all indexes=idr workload=lookup mode=kthread cpus=0 keys=256 ops=2000 repeat=1 stall_test=0
	wr testcase run >/dev/null
	broken=$(col idr verified)
	for m in kthread ipi; do
		pat=$kb
		[ $m = ipi ] && pat=$ib
		slow_row $m 5500 skiplist
		if [ "$SLOW_V" = slow ] && echo "$SLOW_T" | grep -q " slow ($pat)\$" &&
			echo ";$SLOW_E;" | grep -q ";slow=$pat;"; then
			pass "slow: $m storm past the bound is slow, naming bound and time ($(echo "$SLOW_T" | sed 's/.* slow (//; s/)$//'))"
		else
			fail "slow: $m storm past the bound" "verified=slow, '$pat' in test_result and slow= in extra, saw '$SLOW_V', '$SLOW_T', '$SLOW_E'"
		fi
		expect "slow: the $m run that was slow is no refused run" "last: run 0" \
			"$(grep '^last:' $D/testcase | cut -d' ' -f1-3)"
	done
	slow_row kthread 0 skiplist
	expect "slow: the same storm within the bound verifies, no slow= in extra" "yes" \
		"$SLOW_V$(echo ";$SLOW_E;" | grep -o ';slow=')"
	slow_row kthread 5500 idr
	if [ "$broken" = FAILED ]; then
		if [ "$SLOW_V" = FAILED ] && echo "$SLOW_T" | grep -q ' FAILED (' &&
			! echo "$SLOW_T$SLOW_E" | grep -q 'bound 5000 ms'; then
			pass "slow: a wrong result past the bound is FAILED, for what was wrong ($(echo "$SLOW_T" | sed 's/.* FAILED (//; s/)$//'))"
		else
			fail "slow: the broken idr past the bound" "FAILED for its lookups, no bound, saw '$SLOW_V', '$SLOW_T', '$SLOW_E'"
		fi
	else
		expect "slow: idr (sound here) past the bound is slow too" "yes slow" "$broken $SLOW_V"
	fi
	set_all cpus=all mode=ipi stall_test=0 indexes=all
}
