# shellcheck shell=sh
# suite-rt.sh: sourced by tests/guest/suite.sh (the runner), uses suite-lib.sh's
# helpers (rt_refusal among them, which the matrix and dependent storms use
# too); not a guest script of its own.  PREEMPT_RT only (the rt level): the
# defaults right after insmod, ipi storms that read running and ipi storms that
# write refused, saying why.
# The runner has sourced suite-lib.sh before this part; sourced here too so
# that shellcheck, which lints each file alone, sees the state and helpers
# this part uses (a second time changes nothing, before the tests run).
# shellcheck source=suite-lib.sh
. "$SUITE_DIR/suite-lib.sh"

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
