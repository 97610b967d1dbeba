# shellcheck shell=sh
# suite-settings.sh: sourced by tests/guest/suite.sh (the runner), uses
# suite-lib.sh's helpers; not a guest script of its own.  The settings as such:
# every accepted value of every setting followed by a run (t_settings, with the
# selftest under two of them on two nodes; the full and numa levels), settings
# writers that must not refuse each other, and a reset that forgets the last run
# whole.  Kept apart from the storms, which test what a setting does to a run.
# The runner has sourced suite-lib.sh before this part; sourced here too so
# that shellcheck, which lints each file alone, sees the state and helpers
# this part uses (a second time changes nothing, before the tests run).
# shellcheck source=suite-lib.sh
. "$SUITE_DIR/suite-lib.sh"

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
	selftest_lines "settings: selftest with $1:" 100
}

# Every accepted value of every setting, each followed by a short run (and, with two
# nodes, selftests under the settings that shape the indexes), on whatever CPUs and
# nodes the guest has: each write and run answers ok or a clear error.
t_settings() {
	nn=$(nnodes)
	base="indexes=all workload=lookup mix=90/5/5 keys=256 pid_max=32768 ops=32 mode=ipi cpus=all repeat=1 seed=1 fork_window=16 sl_p=4 sl_max_level=0 rb_level=0 trace_visits=0 node=any pmu=auto dependent=0 fork_lookups=0 fork_exit=remote shape=dense levels=1"
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
	for l in 3 2 1; do setrun levels=$l; done
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
	# with two nodes, so that interleave places objects (with one node the
	# same selftest took 50 s and told nothing new).  The tall settings'
	# selftest, on node 1, is t_selftest_tall's (make check's 4-vCPU boot).
	if [ "$nn" -ge 2 ]; then
		set_all sl_p=16 sl_max_level=8 rb_level=1 seed=18446744073709551615 node=interleave
		settings_selftest "sl_p 16, sl_max_level 8, rb_level 1, seed max, node interleave"
	else
		echo "settings: the selftests under shaping settings run in the numa boot (one node here)"
	fi
	# shellcheck disable=SC2086
	set_all $base
	set_all keys=1024 ops=500
	settings_defaults_fit
}

# fit_row WORKLOAD [NAME=VALUE...]: a run of idr under the settings given,
# answering ok; sets FIT_OPS (the row's ops) and FIT_T (test_result's header)
fit_row() {
	wl=$1
	shift
	set_all indexes=idr "workload=$wl" "$@"
	r=$(wr testcase run)
	[ "$r" = ok ] || fail "defaults: $wl run" "ok, saw $r ($(grep '^last:' $D/testcase))"
	FIT_OPS=$(col idr ops)
	FIT_T=$(grep -m1 '^pidx run' $D/test_result)
}

# The defaults fit the machine (docs/interface.md, pid_max and ops): pid_max
# 1024 per possible CPU from 32 CPUs on, as the kernel's; ops, left alone
# since the load, fitted to the room a storm's PIDs have on its CPUs and
# said so; written, refused where it does not fit, naming the most that
# does.  The module is loaded again without parameters for it, then as
# t_load left it (ops=500).
settings_defaults_fit() {
	if ! rmmod pidx || ! insmod "$KO"; then
		fail "defaults: reload" "rmmod and insmod"
		return
	fi
	np=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-"); c += n == 2 ? r[2] - r[1] + 1 : 1 } }
		END { print c }' /sys/devices/system/cpu/possible)
	pm=$((np * 1024 > 32768 ? np * 1024 : 32768))
	expect "defaults: pid_max is 1024 per possible CPU ($np), at least 32768" "$pm" "$(cat $D/pid_max)"
	# a user's first insert storm on every CPU runs, its ops fitted where
	# 1024 keys + CPUs x 10000 do not fit
	fit=$(((pm - 1 - 1024) / NCPUS))
	[ $fit -lt 10000 ] || fit=10000
	fit_row insert
	expect "defaults: insert on $NCPUS CPUs runs $fit ops per CPU" "$fit" "$FIT_OPS"
	# made to fit here, on any CPU count: 100 ops per CPU of room
	keys=$((pm - 1 - 100 * NCPUS))
	fit_row insert "keys=$keys"
	if [ "$FIT_OPS" = 100 ] && echo "$FIT_T" | grep -q 'ops 100 per CPU (fitted: the default 10000 does not fit)' &&
		[ "$(col idr total_ops) $(col idr verified)" = "$((100 * NCPUS)) yes" ]; then
		pass "defaults: insert beside $keys keys fitted to 100 ops per CPU, test_result says so"
	else
		fail "defaults: insert beside $keys keys" "ops 100, fitted in test_result, verified, saw '$FIT_OPS' '$FIT_T' $(col idr total_ops) $(col idr verified)"
	fi
	# mixed draws its operations at random, so no ops bounds its inserts: not
	# fitted, it runs into the full space as fork() does; fork takes no room
	fit_row mixed "keys=$keys" mix=50/50/0
	expect "defaults: mixed 50/50/0 keeps 10000 ops, runs into the full space, verified" \
		"10000 yes yes" \
		"$FIT_OPS $([ "$(col idr fails)" -gt 0 ] && echo yes || echo no) $(col idr verified)"
	# not one insert fits: refused, naming the keys and pid_max, not an ops
	# nobody wrote
	set_all workload=insert "keys=$((pm - 1))"
	r=$(wr testcase run)
	expect "defaults: keys that fill pid_max refuse an insert storm, naming them" \
		"ENOSPC last: run -28 keys leave no room for an insert under pid_max $pm: fewer keys, or a larger pid_max" \
		"$r $(grep '^last:' $D/testcase)"
	fit_row fork keys=1024
	expect "defaults: fork keeps 10000 ops, not fitted" "10000 no" \
		"$FIT_OPS $(echo "$FIT_T" | grep -q fitted && echo yes || echo no)"
	fit_row delete keys=256
	expect "defaults: delete of 256 keys fitted to 256 / $NCPUS ops per CPU" "$((256 / NCPUS)) yes" \
		"$FIT_OPS $(col idr verified)"
	# written, even to the default's own value: refused, naming the most
	set_all workload=insert "keys=$keys" ops=10000
	r=$(wr testcase run)
	expect "defaults: a written ops that does not fit is refused" \
		"ENOSPC last: run -28 keys + cpus x ops exceed pid_max - 1: at most 100 ops per CPU fit" \
		"$r $(grep '^last:' $D/testcase)"
	if ! rmmod pidx || ! insmod "$KO" ops=500; then
		fail "defaults: reload" "rmmod and insmod ops=500"
	fi
}
