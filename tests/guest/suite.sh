#!/bin/sh
# shellcheck shell=sh
# The guest half of `make check`: drives pidx.ko through debugfs exactly as a
# user does, inside a stock kernel booted by scripts/vm-run.sh.  Prints one
# line per test, "PASS name" or "FAIL name: expected ..., saw ...", one
# "TIME t_name N.N s" per test run, and "GUEST-SUMMARY N passed, N failed" at
# the end; exits 3 on any failure of its own (2 when a part of it is missing).
# Results land in $OUT (results.csv of the workload matrix, test log).
#
# Usage: suite.sh [full|quick|matrix|smoke|broken|debug|failslab|numa|rt|kcsan|own INDEX|only t_name...]
#   full:  everything (the 2-vCPU boot, on two NUMA nodes: with two, the
#          selftest runs under the shaping settings of t_settings only)
#   debug: all but the long dense-allocation, busy and prefill storms (debug kernel),
#          with allocation failures injected (failslab)
#   failslab: load, selftest, the workload matrix and the failslab group
#   quick: load, selftest, the workload matrix and interleave on one node
#          (the 1-vCPU boot)
#   matrix: load, selftest, the workload matrix, bad input and load/unload
#          cycles (other Debian kernels)
#   smoke: load and the selftest of idr and skiplist (the DKMS-built module)
#   broken: smoke and the workload matrix (a deliberately broken index)
#   numa:  load, NUMA placement, interleave and every value of every
#          setting, the selftest under two of them (a guest with two nodes)
#   kcsan: load, then the selftest's concurrent phases
#          and dense storms with KCSAN watching one access in 200, reporting
#          races on pidx's data, in its code or the lib/ helpers it calls
#          (the KCSAN debug kernel)
#   rt:    quick, the defaults, the lockref loop and cycles (PREEMPT_RT kernel)
#   own INDEX: a boot with pidx.index=INDEX: the initial namespace's index is
#          INDEX, and the module's selftest runs beside pidx-systest
# debug and kcsan also run the system tests (suite-system.sh): their kernels
# carry the series, and run-all.sh boots them with a refused and an unknown
# pidx.index= (the fallback to idr).
#
# This file is the runner: it takes the level, sources the suite's parts and
# runs the tests each level names (the dispatch at the end).  The parts are
# tests/guest/suite-*.sh, libraries with no #! line that only define functions
# and the run's shared state; none of them runs on its own, and none is a guest
# script for vm-run.sh (those are suite.sh, recipe.sh and stall.sh):
#   suite-lib.sh       the run's state and the helpers every test uses (pass, fail,
#                      expect, wr, set_all, bad, col, within, timed, ...)
#   suite-core.sh      load, selftest, the workload matrix, bad input, the
#                      lockref loop, test_result against selftests, load cycles
#   suite-settings.sh  every value of every setting, concurrent settings writers,
#                      reset
#   suite-storms.sh    the storm tests: busy, dependent, shape, dense, fork
#                      settings, repeats, visits, pmu, the long prefill
#   suite-hotplug.sh   CPU hotplug under the selftest and under a prefill
#   suite-numa.sh      NUMA placement and node=interleave
#   suite-faults.sh    failed allocations: fail_remove_alloc and failslab
#   suite-kcsan.sh     the KCSAN report filter and the dense-watchpoint storms
#   suite-rt.sh        PREEMPT_RT: the defaults and the refused ipi writers
#   suite-system.sh    pidx's indexes as the kernel's PID index (pidx-systest)
# vm-run.sh copies every tests/guest/*.sh into the guest's /pidx/ and this file as
# /pidx/guest.sh, so the parts lie beside it: they are sourced from this file's
# own directory.  A new test goes into the part of its purpose (or a new
# suite-*.sh, sourced below) and into the levels that run it, at the end.

LEVEL=${1:-full}
passed=0
failed=0

# The parts, from this file's directory (the guest's /pidx/, or tests/guest/).
SUITE_DIR=$(dirname "$0")
for part in lib core settings storms hotplug numa faults kcsan rt system; do
	if [ ! -r "$SUITE_DIR/suite-$part.sh" ]; then
		echo "FAIL suite: $SUITE_DIR/suite-$part.sh missing (vm-run.sh copies tests/guest/*.sh beside guest.sh)"
		echo "GUEST-SUMMARY 0 passed, 1 failed"
		exit 2
	fi
done
# shellcheck source=suite-lib.sh
. "$SUITE_DIR/suite-lib.sh"
# shellcheck source=suite-core.sh
. "$SUITE_DIR/suite-core.sh"
# shellcheck source=suite-settings.sh
. "$SUITE_DIR/suite-settings.sh"
# shellcheck source=suite-storms.sh
. "$SUITE_DIR/suite-storms.sh"
# shellcheck source=suite-hotplug.sh
. "$SUITE_DIR/suite-hotplug.sh"
# shellcheck source=suite-numa.sh
. "$SUITE_DIR/suite-numa.sh"
# shellcheck source=suite-faults.sh
. "$SUITE_DIR/suite-faults.sh"
# shellcheck source=suite-kcsan.sh
. "$SUITE_DIR/suite-kcsan.sh"
# shellcheck source=suite-rt.sh
. "$SUITE_DIR/suite-rt.sh"
# shellcheck source=suite-system.sh
. "$SUITE_DIR/suite-system.sh"

t_load
if [ "$LEVEL" = only ]; then
	# suite.sh only t_name...: those tests alone, for debugging
	# (t_load has run already: a second insmod would fail)
	shift
	for t in "$@"; do [ "$t" = t_load ] || timed "$t"; done
	LEVEL=none
else
	# own INDEX in the KCSAN kernel (run-all.sh ships the filter's module)
	if [ "$LEVEL" = kcsan ] || { [ "$LEVEL" = own ] && [ -e /pidx/kcsan-module ]; }; then
		timed t_kcsan_filter
	fi
	case $LEVEL in
	debug|failslab) timed t_failslab_selftest ;;
	smoke|broken) timed t_selftest_of idr,skiplist ;;
	# kcsan: its concurrent phases at the dense rate come below (KCSAN finds
	# nothing in the others, which took 100 of its 144 s); numa: t_settings
	# runs the whole selftest twice, under node=interleave and a node; so
	# does full on two nodes (make check's 2-vCPU boot), where a third
	# selftest under the defaults would repeat the same phases on the same
	# kernel: the defaults' selftest is the 1-, 4-vCPU and rt boots'
	kcsan | numa | own) ;;
	full) [ "$(nnodes)" -ge 2 ] ||
		timed t_selftest ;;
	*) timed t_selftest ;;
	esac
fi
# kcsan: its dense mixed and fork storms of every index in both modes
# (t_kcsan_dense) run the writers and readers the matrix would, at a denser
# watch rate
case $LEVEL in smoke|none|numa|kcsan|own) ;; *) timed t_matrix ;; esac
case $LEVEL in
full)
	timed t_lockref_loop
	timed t_bad_input
	timed t_visits
	timed t_repeats
	timed t_fork_settings
	timed t_pmu
	timed t_dependent
	timed t_levels
	timed t_shape
	timed t_dist
	timed t_replay
	timed t_dense
	timed t_busy
	timed t_setting_writers
	timed t_reset_skipped
	timed t_hotplug_racetest
	timed t_hotplug_prefill
	# placement where the guest has two nodes (make check boots it so)
	[ "$(nnodes)" -lt 2 ] ||
		timed t_numa
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
	timed t_levels
	timed t_shape
	timed t_replay
	timed t_node_interleave
	timed t_result_race
	timed t_remove_nomem
	timed t_remove_failslab
	timed t_failslab
	timed t_cycles
	timed t_system_boot_fallback maple
	timed t_system
	timed t_system_refusals
	timed t_system_bench
	timed t_system_failslab
	;;
failslab)
	timed t_failslab
	;;
quick)
	# every value of every setting is the 2-vCPU boot's
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
# a storm past the bound: slow when it verified (skiplist), FAILED when it
# did not (the broken idr)
broken)
	timed t_slow_verdict
	;;
matrix)
	timed t_bad_input
	timed t_cycles
	;;
kcsan)
	timed t_kcsan_racetest
	timed t_kcsan_dense
	timed t_kcsan_pidmap
	timed t_system_boot_fallback nosuch
	timed t_system
	timed t_kcsan_active
	;;
own)
	timed t_system_boot "$2" "pidx.index=$2"
	timed t_system_own "$2"
	timed t_system_bench
	[ ! -e /pidx/kcsan-module ] || timed t_kcsan_active
	;;
esac
rmmod pidx || fail unload "rmmod failed"
echo "GUEST-SUMMARY $passed passed, $failed failed"
# 3, not 1: the runner tells the suite's own failures from its own errors
[ "$failed" = 0 ] || exit 3
