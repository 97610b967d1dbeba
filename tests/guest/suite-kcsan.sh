# shellcheck shell=sh
# suite-kcsan.sh: sourced by tests/guest/suite.sh (the runner), uses
# suite-lib.sh's helpers; not a guest script of its own.  The kcsan level and
# the KCSAN controls of tests/run-all.sh (suite.sh only t_kcsan_...): the report
# filter that limits KCSAN to pidx's code and the lib/ helpers it calls, the
# racetest and storms under dense watchpoints (kcsan_dense), and the check that
# KCSAN was watching at all.  Only the KCSAN debug kernel runs them.
# The runner has sourced suite-lib.sh before this part; sourced here too so
# that shellcheck, which lints each file alone, sees the state and helpers
# this part uses (a second time changes nothing, before the tests run).
# shellcheck source=suite-lib.sh
. "$SUITE_DIR/suite-lib.sh"

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
	# by module: a kernel that carries the series has functions of the
	# same names in kernel/pidx/, and a bare name would be looked up there
	while read -r f; do
		echo "!pidx:$f" >$k 2>/dev/null || bad=$((bad + 1))
		n=$((n + 1))
	done </tmp/pidx-text
	expect "kcsan: report filter lists every pidx function ($n)" 0 "$bad"
	# the series' own: kernel/pidx/ and the hooks in kernel/pid.c, named by
	# run-all.sh from the built objects (vm-run.sh --kcsan-builtin)
	if [ -s /pidx/kcsan-builtin ]; then
		m=0
		bad=0
		while read -r f; do
			echo "!$f" >$k 2>/dev/null || bad=$((bad + 1))
			m=$((m + 1))
		done </pidx/kcsan-builtin
		expect "kcsan: report filter lists the series' functions in the kernel ($m)" 0 "$bad"
	fi
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
		# fork3: forks at 3 namespace levels, the IDR's shared lock
		for w in mixed fork fork3; do
			# a fork batch (ops / 16 forks and their exits) of maple
			# under dense watchpoints once took 5004 ms, past the 5 s
			# bound: half the ops, half the batch
			ops=5000 lv=1
			[ $w != mixed ] && ops=2500
			[ $w = fork3 ] && lv=3
			set_all indexes=all keys=512 ops=$ops repeat=1 pid_max=4096 cpus=all \
				workload=${w%3} levels=$lv mix=40/30/30 mode=$m
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
	set_all levels=1
}

# The concurrent phases at KCSAN's dense rate (CI's default-rate pass once
# caught the selftest's own unmarked inflight store, once not)
t_kcsan_racetest() {
	kcsan_dense t_racetest
}
