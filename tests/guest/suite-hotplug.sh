# shellcheck shell=sh
# suite-hotplug.sh: sourced by tests/guest/suite.sh (the runner), uses
# suite-lib.sh's helpers; not a guest script of its own.  CPU hotplug: CPU 1
# going off and on line in a loop (hotplug_start/hotplug_stop) under the
# selftest's concurrent phases and under a prefill pinned to it.  Needs a
# second CPU (the 2-vCPU full level); kept apart as the tests that change
# which CPUs exist.
# The runner has sourced suite-lib.sh before this part; sourced here too so
# that shellcheck, which lints each file alone, sees the state and helpers
# this part uses (a second time changes nothing, before the tests run).
# shellcheck source=suite-lib.sh
. "$SUITE_DIR/suite-lib.sh"

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
