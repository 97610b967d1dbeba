# shellcheck shell=sh
# suite-storms.sh: sourced by tests/guest/suite.sh (the runner), uses
# suite-lib.sh's helpers; not a guest script of its own.  The storm tests of
# the full level (most of them in the debug level too): a run in flight
# refusing what it must (busy), dependent lookups, live-set shapes, lookup
# distributions, allocation in a dense space, the fork settings, repeats and
# their seeds, visits per op, the CPU counters, and a prefill of millions of
# keys that outlasts the hung-task timeout and a kill -9.  Kept together
# because each checks what one knob does to a storm's rows, and they are the
# suite's long runs.
# The runner has sourced suite-lib.sh before this part; sourced here too so
# that shellcheck, which lints each file alone, sees the state and helpers
# this part uses (a second time changes nothing, before the tests run).
# shellcheck source=suite-lib.sh
. "$SUITE_DIR/suite-lib.sh"

t_busy() {
	set_all indexes=all workload=lookup mode=kthread pid_max=65536 keys=32768 ops=1000000 repeat=2
	(
		if echo run >$D/testcase; then rc=0; else rc=1; fi
		echo "$rc" >/tmp/bg-run.rc
	) &
	bgpid=$!
	wait_running
	expect "run in flight shows state running" running "$(awk '/^state:/ { print $2 }' $D/testcase)"
	bad keys 100 EBUSY
	bad workload fork EBUSY
	bad fork_lookups 1 EBUSY
	bad fork_exit local EBUSY
	bad dependent 1 EBUSY
	bad levels 3 EBUSY
	bad shape aged EBUSY
	bad dist zipf:0.99 EBUSY
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

# levels=N: a number per namespace level for each PID, one index instance
# per level.  Fork storms (each new PID looked up, at the deepest level)
# at 1, 2 and 3 levels in both modes, and mixed storms at 3, every index
# verified at every level with the setting in its row; test_result says
# so; a fork's -ENOMEM unwinds every level under failslab (t_failslab);
# bad values refused, the module parameter applied.  Under KASAN (debug)
# the 3-level storms only.
t_levels() {
	expect "levels defaults to 1" 1 "$(cat $D/levels)"
	nix=$(echo "$INDEXES" | wc -w)
	set_all indexes=all keys=2048 ops=1000 repeat=1 pid_max=32768 cpus=all mix=50/25/25 \
		fork_lookups=1 fork_window=16
	lv=$(colno levels)
	runs="1:fork 2:fork 3:fork 3:mixed"
	[ "$LEVEL" = debug ] && runs="3:fork 3:mixed"
	for r in $runs; do
		l=${r%%:*} wl=${r#*:}
		for mode in ipi kthread; do
			name="levels $l: $wl/$mode"
			set_all levels="$l" workload="$wl" mode=$mode
			res=$(wr testcase run)
			if [ "$RT" = 1 ] && [ "$mode" = ipi ]; then
				rt_refusal "$name" "$res"
				continue
			fi
			got=$(last_run_rows | awk -F, -v l="$l" -v lv="$lv" '$28 == "yes" && $lv == l' | wc -l)
			# maple's writers need interrupts on: it sits out ipi writes
			skipped=$(grep -c '^skipped: ' $D/test_result)
			expect "$name: every index verified at every level, the row says $l" \
				"ok $((nix - skipped))" "$res $got"
			[ "$res $got" = "ok $((nix - skipped))" ] ||
				last_run_rows | awk -F, '$28 != "yes" { print "  " $2 ": " $29 }' | head -3
		done
	done
	expect "levels 3: test_result says so" 1 \
		"$(grep -c '^pidx run .*, 3 namespace levels (lookups read the deepest)' $D/test_result)"
	for v in "" 0 4 -1 bogus 99999999999 1x 0x4; do bad levels "$v" EINVAL; done
	set_all levels=1 workload=lookup mode=ipi mix=90/5/5 fork_lookups=0 fork_window=64
	rmmod pidx
	insmod "$KO" levels=3
	expect "module parameter levels=3 applied" 3 "$(cat $D/levels 2>/dev/null)"
	rmmod pidx
	if insmod "$KO" levels=4 2>/dev/null; then
		fail "module parameter levels=4" "the load refused"
		rmmod pidx
	else
		pass "module parameter levels=4 refused"
	fi
	insmod "$KO" ops=500
	set_all indexes=all keys=1024 ops=500
}

# Live sets by shape: every index verified under each, in both modes, the
# setting in each row and test_result; shapes that do not fit are refused
# whole, and bad words change nothing.
t_shape() {
	set_all indexes=all mix=50/25/25 keys=1024 pid_max=32768 ops=2000 repeat=1 cpus=all seed=3
	shapes="dense spread aged"
	# under KASAN the dense storms are t_matrix's (lookup, mixed 50/25/25
	# and fork in both modes), and a shape's own code runs in the prefill
	# and set_cursor(), whatever the storm's length
	if [ "$LEVEL" = debug ]; then
		shapes="spread aged"
		set_all ops=500
	fi
	for sh in $shapes; do
		for m in kthread ipi; do
			for wl in lookup mixed fork; do
				set_all shape="$sh" mode=$m workload=$wl
				r=$(wr testcase run)
				cs=$(head -n 1 $D/results.csv | tr , '\n' | grep -nx shape | cut -d: -f1)
				rows=$(last_run_rows | awk -F, -v s="$sh" -v cs="$cs" \
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

# Lookup distributions: every index verified under each dist other than
# uniform, in the storms whose lookups it draws, both modes, the setting in
# each row and test_result; the text read back; bad values refused with
# the setting unchanged; the module parameter.  (The samplers' statistics
# are user space's: tests/user.sh, dist_stats.)
t_dist() {
	expect "dist defaults to uniform" uniform "$(cat $D/dist)"
	set_all indexes=all mix=50/25/25 keys=4096 pid_max=32768 ops=1000 repeat=1 cpus=all \
		fork_lookups=2 seed=3
	for d in zipf:0.99 recent:100 sequential; do
		for m in kthread ipi; do
			for wl in lookup mixed fork; do
				name="dist $d, $m $wl"
				set_all dist="$d" mode=$m workload=$wl
				r=$(wr testcase run)
				case $RT/$m/$wl in
				1/ipi/mixed | 1/ipi/fork) rt_refusal "$name" "$r"; continue ;;
				esac
				cd=$(colno dist)
				rows=$(last_run_rows | awk -F, -v d="$d" -v cd="$cd" '$cd == d' | wc -l)
				n=$(last_run_rows | wc -l)
				v=$(unverified_rows)
				if [ "$r" = ok ] && [ "$v" = 0 ] && [ "$rows" = "$n" ] && [ "$n" -gt 0 ]; then
					pass "$name: $n rows verified, dist in each"
				else
					fail "$name" "ok, every row verified with dist $d, saw $r, $v unverified, $rows of $n rows with the dist ($(last_run_rows | awk -F, '$28 != "yes" { print $2 ": " $29 }' | head -1))"
				fi
			done
		done
	done
	# zipf's ranks through the aged set's order; the header names the dist
	set_all shape=aged dist=zipf:0.99 workload=lookup mode=kthread
	r=$(wr testcase run)
	expect "dist zipf:0.99 over the aged set: run verified" "ok 0" "$r $(unverified_rows)"
	h=$(grep -m1 '^pidx run' $D/test_result)
	case $h in
	*", dist zipf:0.99"*) pass "test_result names the dist: ${h##*, }" ;;
	*) fail "test_result header" "', dist zipf:0.99', saw '$h'" ;;
	esac
	# where no lookup is drawn the column is n/a
	set_all shape=dense workload=insert
	wr testcase run >/dev/null
	expect "dist n/a in an insert storm's row" n/a "$(col idr dist)"
	set_all dist=zipf:0.990
	expect "zipf:0.990 reads back without trailing zeros" zipf:0.99 "$(cat $D/dist)"
	for v in "" zipf:0 zipf:5.001 zipf:1.2345 zipf: zipf:-1 recent:0 recent:4194305 \
		recent:1.5 recent: uniform:1 sequential:2 ZIPF:1 bogus; do
		bad dist "$v" EINVAL
	done
	rmmod pidx
	insmod "$KO" dist=recent:1000
	expect "module parameter dist=recent:1000 applied" recent:1000 "$(cat $D/dist 2>/dev/null)"
	rmmod pidx
	if insmod "$KO" dist=zipf:0 2>/dev/null; then
		fail "module parameter dist=zipf:0" "the load refused"
		rmmod pidx
	else
		pass "module parameter dist=zipf:0 refused"
	fi
	insmod "$KO" ops=500
	set_all indexes=all keys=1024 ops=500 mix=90/5/5 fork_lookups=0 seed=1 mode=ipi \
		workload=lookup
}

# trace_sum FIELD: FIELD of the trace file's summary
trace_sum() {
	awk -v f="$1:" '$1 == f { print $2 }' $D/trace
}

# trace_wr TEXT: TEXT appended to trace (O_APPEND); "ok" or the error, as
# wr.  Through cat: the shell's builtin printf does not report a refused write
trace_wr() {
	err=$( (printf '%b' "$1" | cat >>$D/trace) 2>&1)
	case "$err" in
	"") echo ok ;;
	*"Invalid argument"*) echo EINVAL ;;
	*"Device or resource busy"*) echo EBUSY ;;
	*"File too large"*) echo EFBIG ;;
	*) echo "other: $err" ;;
	esac
}

# The replay workload (issue 29 item 2): tests/fixtures/trace-small.txt
# (406 events: 112 forks, 110 exits, 111 waits, 73 frees; 4 PIDs live
# from the start, one orphan, cpu=0 and cpu=1) loaded through debugfs in
# one and in many writes, replayed by every index in both modes, each row
# verified against the oracle and naming the trace; bad traces refused
# with the line number in testcase and the trace kept; a write during a run
# refused with -EBUSY; 1,000,000 events the bound; rmmod frees the trace.
t_replay() {
	T=$SUITE_DIR/trace-small.txt
	expect "trace empty at load" 0 "$(trace_sum events)"
	cat "$T" >$D/trace
	sum="$(trace_sum events) $(trace_sum forks) $(trace_sum exits) $(trace_sum waits)"
	sum="$sum $(trace_sum frees) $(trace_sum initial) $(trace_sum orphans) $(trace_sum cpus)"
	expect "trace summary of the fixture" "406 112 110 111 73 4 1 2" "$sum"
	before=$(cat $D/trace)
	# 100-byte writes without O_TRUNC: lines split across writes, one load
	# installed at close
	: >$D/trace
	expect ": > trace clears" 0 "$(trace_sum events)"
	dd if="$T" of=$D/trace bs=100 conv=notrunc 2>/dev/null
	expect "trace loaded in 100-byte writes: the same summary" "$before" "$(cat $D/trace)"
	expect "O_APPEND adds an event" "ok 407" "$(trace_wr 'fork 700 6000 cpu=1\n') $(trace_sum events)"
	echo >$D/trace
	expect "echo > trace (an empty trace) clears the trace" 0 "$(trace_sum events)"
	set_all indexes=all keys=1024 pid_max=32768 repeat=1 cpus=all seed=5 fork_lookups=0 \
		dist=uniform shape=dense workload=replay
	r=$(wr testcase run)
	case "$r $(grep '^last:' $D/testcase)" in
	"EINVAL last: run -22 "*"no trace loaded"*) pass "replay with no trace refused, testcase says why" ;;
	*) fail "replay with no trace" "EINVAL and 'no trace loaded' in last:, saw $r, $(grep '^last:' $D/testcase)" ;;
	esac
	cat "$T" >$D/trace
	nix=$(grep -cv '^null' $D/available)
	for m in kthread ipi; do
		for sh in dense aged; do
			name="replay $m $sh"
			set_all mode=$m shape=$sh
			r=$(wr testcase run)
			case $RT/$m in 1/ipi) rt_refusal "$name" "$r"; continue ;; esac
			n=$(last_run_rows | wc -l)
			v=$(unverified_rows)
			tr=$(last_run_rows | grep -c ',replay,.*,trace=406;pids=mapped;initial=4;orphans=1;cpu_events=')
			ops=$(last_run_rows | awk -F, '{ s += $13 } END { print s / NR }')
			if [ "$r" = ok ] && [ "$v" = 0 ] && [ "$tr" = "$n" ] && [ "$n" -gt 0 ] &&
				[ "$ops" = 405 ] && { [ $m = ipi ] || [ "$n" = "$nix" ]; }; then
				pass "$name: $n rows verified, each replayed 405 events and names the trace"
			else
				fail "$name" "ok, $nix rows verified naming the trace, 405 ops each; saw $r, $n rows, $v unverified, $tr naming it, ops $ops ($(last_run_rows | awk -F, '$28 != "yes" { print $2 ": " $29 }' | head -1))"
			fi
		done
	done
	# fork's lookups from the dist's walk over the keys
	set_all mode=kthread shape=spread fork_lookups=2 dist=zipf:0.99
	r=$(wr testcase run)
	expect "replay, fork_lookups 2 under zipf:0.99 over spread keys: verified" "ok 0 zipf:0.99" \
		"$r $(unverified_rows) $(col idr dist)"
	set_all fork_lookups=0 dist=uniform shape=dense
	# the keys and the trace's 4 initially-live PIDs must fit in the space
	set_all keys=32765
	r=$(wr testcase run)
	case "$r $(grep '^last:' $D/testcase)" in
	"ENOSPC last: run -28 keys + the trace's initially-live PIDs exceed pid_max - 1") pass "replay of 32765 keys + 4 in 32767 numbers refused with ENOSPC" ;;
	*) fail "replay that does not fit" "ENOSPC naming the initially-live PIDs, saw $r, $(grep '^last:' $D/testcase)" ;;
	esac
	set_all keys=1024
	# a malformed line: the whole write refused, the trace as before it
	before=$(cat $D/trace)
	err=$( (printf 'wait 1\nexit 700\nexit 5 cpu=x\n' | cat >$D/trace) 2>&1)
	case "$err $(grep '^last:' $D/testcase)" in
	*"Invalid argument"*"last: trace -22 trace line 3: cpu="*) pass "malformed line 3 refused with EINVAL, testcase names line 3" ;;
	*) fail "malformed line" "EINVAL, last: naming trace line 3, saw '$err', $(grep '^last:' $D/testcase)" ;;
	esac
	expect "trace kept after a refused write" "$before" "$(cat $D/trace)"
	lines=$(wc -l <"$T")
	expect "an appended bad line refused" EINVAL "$(trace_wr 'wait 700\nbogus 5\n')"
	case "$(grep '^last:' $D/testcase)" in
	*"trace line $((lines + 2)): not fork"*) pass "testcase names the appended bad line, $((lines + 2))" ;;
	*) fail "appended bad line" "line $((lines + 2)) in last:, saw $(grep '^last:' $D/testcase)" ;;
	esac
	expect "trace kept after a refused append" "$before" "$(cat $D/trace)"
	# a load of many writes (cat's 128 KiB, dd's 4 KiB) whose last line is
	# bad: installed whole or not at all, the old trace kept
	yes 'wait 5' | head -n 43000 >/tmp/trace-big.txt
	echo 'bogus 5' >>/tmp/trace-big.txt
	for how in cat dd; do
		if [ $how = cat ]; then
			err=$( (cat /tmp/trace-big.txt >$D/trace) 2>&1)
		else
			err=$(dd if=/tmp/trace-big.txt of=$D/trace bs=4096 2>&1)
		fi
		case "$err $(grep '^last:' $D/testcase) $(cat $D/trace)" in
		*"Invalid argument"*"last: trace -22 trace line 43001: not fork"*"$before")
			pass "a $how load of 301 KB in many writes, bad line 43001: refused, the old trace kept" ;;
		*) fail "a $how load of many writes with a bad last line" "EINVAL naming line 43001, the trace kept, saw '$err', $(grep '^last:' $D/testcase), events $(trace_sum events)" ;;
		esac
	done
	# a truncating open that wrote nothing does not clear a load made since
	exec 3>$D/trace
	cat "$T" >$D/trace
	exec 3>&-
	expect "exec 3>trace; cat f >trace; exec 3>&-: f's trace kept" "$before" "$(cat $D/trace)"
	# an O_APPEND load during which another load replaced the trace: dropped
	exec 3>>$D/trace
	printf 'wait 1\n' >&3
	printf 'wait 2\n' >$D/trace
	exec 3>&-
	case "$(trace_sum events) $(grep '^last:' $D/testcase)" in
	"1 last: trace -11 "*"replaced the trace during this O_APPEND one"*) pass "an O_APPEND load outrun by another load: dropped, testcase says so" ;;
	*) fail "O_APPEND load outrun by another" "1 event and last: saying the load was dropped, saw $(trace_sum events) events, $(grep '^last:' $D/testcase)" ;;
	esac
	cat "$T" >$D/trace
	# one write() of 10 KB, parsed in 4 KB pieces, its last line bad: the
	# pieces before it are taken back, whether it adds or replaces (added
	# without t=, which may not go back)
	{ cat "$T"; echo 'bogus 5'; } >/tmp/trace-bad.txt
	{ sed 's/ t=[0-9]*//' "$T"; echo 'bogus 5'; } >/tmp/trace-bad-not.txt
	for how in append replace; do
		flag=oflag=append
		tb=/tmp/trace-bad-not.txt
		[ $how = append ] || { flag= && tb=/tmp/trace-bad.txt; }
		err=$(dd if=$tb of=$D/trace bs=1M $flag conv=notrunc 2>&1)
		want=$((lines + 1))
		[ $how = append ] && want=$((lines + lines + 1))
		case "$err $(grep '^last:' $D/testcase)" in
		*"Invalid argument"*"trace line $want: not fork"*)
			expect "one 10 KB write ($how), bad last line $want: refused whole, trace kept" \
				"$before" "$(cat $D/trace)" ;;
		*) fail "one 10 KB write ($how) with a bad last line" "EINVAL naming line $want, saw '$err', $(grep '^last:' $D/testcase)" ;;
		esac
	done
	long=$(printf 'wait 7 t=%0120d' 1)
	expect "a line over 128 bytes refused" EINVAL "$(trace_wr "$long\n")"
	for v in 'wait 0' 'wait 4194304' 'wait  5' 'exit' 'exit 5 t=1 cpu=1' 'exit 5 cpu=8192' \
		'exit 5 level=33' 'exit 5 6' 'exit -5' 'Fork 1 2'; do
		r=$(trace_wr "$v\n")
		if [ "$r" = EINVAL ] && [ "$before" = "$(cat $D/trace)" ]; then
			pass "bad trace line '$v' refused, trace kept"
		else
			fail "bad trace line '$v'" "EINVAL and the trace kept, saw $r"
		fi
	done
	expect "workload kept" replay "$(cat $D/workload)"
	# a write during a run: -EBUSY, at write and at a truncating open
	set_all workload=lookup indexes=idr pid_max=65536 keys=32768 ops=10000000 repeat=1
	# a load written before the run and closed during it: dropped
	exec 3>$D/trace
	printf 'wait 9\n' >&3
	(echo run >$D/testcase) 2>/dev/null 3>&- &
	bgpid=$!
	wait_running
	exec 3>&-
	case "$(grep '^last:' $D/testcase)" in
	"last: trace -16 trace: a run was in flight at close: the load dropped") pass "a load closed during a run: dropped, testcase says so" ;;
	*) fail "a load closed during a run" "last: saying it was dropped, saw $(grep '^last:' $D/testcase)" ;;
	esac
	expect "trace append during a run refused" EBUSY "$(trace_wr 'wait 1\n')"
	err=$( (cat "$T" >$D/trace) 2>&1)
	case "$err" in
	*"Device or resource busy"*) pass "trace load (O_TRUNC) during a run refused with EBUSY" ;;
	*) fail "trace load during a run" "EBUSY, saw '$err'" ;;
	esac
	kill -9 $bgpid 2>/dev/null
	wait $bgpid 2>/dev/null
	expect "trace kept after the refusals during a run" "$before" "$(cat $D/trace)"
	set_all workload=replay indexes=all keys=1024 pid_max=32768 ops=500
	# the bound: 1,000,000 events, then one more refused with EFBIG
	yes 'wait 5' | head -n 1000000 >$D/trace
	expect "a trace of 1000000 events loads" 1000000 "$(trace_sum events)"
	expect "event 1000001 refused" EFBIG "$(trace_wr 'wait 5\n')"
	expect "trace kept at the bound" 1000000 "$(trace_sum events)"
	# rmmod frees it: its 16 MB of vmalloc'ed events go back
	v0=$(awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo)
	rmmod pidx
	v1=$(awk '/^VmallocUsed:/ { print $2 }' /proc/meminfo)
	if [ $((v0 - v1)) -ge 15000 ]; then
		pass "rmmod freed the trace: VmallocUsed fell $((v0 - v1)) kB"
	else
		fail "rmmod and the trace" "VmallocUsed to fall 15000 kB at least, $v0 -> $v1"
	fi
	insmod "$KO" ops=500
	expect "trace empty after a reload" 0 "$(trace_sum events)"
	set_all indexes=all keys=1024 ops=500 mix=90/5/5 fork_lookups=0 seed=1 mode=ipi \
		workload=lookup shape=dense dist=uniform
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

# Fork as the kernel forks: fork_lookups lookups of each new PID (0-3),
# and fork_exit remote (the next storm CPU frees a CPU's oldest PIDs) or
# local.  Every index stays verified in both modes while the cursor wraps
# (8000+ allocations in a 4096-number space), the row names both settings,
# and with one CPU a remote exit has no other CPU: its exits are its own.
# A kthread storm's full window waits for the CPU that frees it, so its
# remote rows exit locally for at most 1% of their forks (under TCG on a
# 2-core host most of their exits once were local; ipi rounds keep the
# CPUs in step, and free locally where they must).
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
				got=$(last_run_rows | awk -F, -v l=$l -v e=$want -v fl="$fl" -v fe="$fe" -v m=$m '
					{ le = 0; if (match($29, /local_exits=[0-9]+/)) le = substr($29, RSTART + 12, RLENGTH - 12) + 0 }
					$28 == "yes" && $fl == l && $fe == e && (m != "kthread" || le <= $13 / 100)' | wc -l)
				# an index whose writers need interrupts on (maple) sits out ipi writes
				skipped=$(grep -c '^skipped: ' $D/test_result)
				expect "fork $m, fork_exit $e, fork_lookups $l: every index verified, the row says so$([ $m$e = kthreadremote ] && echo ', local exits <= 1% of forks')" \
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
			idr|idr_onelock) lo=$h hi=$h ;;
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
	# the counters are opened and read once a storm: KASAN needs no long one
	pops=20000
	[ "$LEVEL" != debug ] || pops=2000
	set_all indexes=all workload=lookup mode=kthread cpus=all keys=1024 ops=$pops repeat=1 pmu=auto
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
