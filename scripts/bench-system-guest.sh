#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-system-guest.sh: one boot of the system benchmark, inside the guest
# (busybox sh), shipped by scripts/bench-system.sh through scripts/vm-run.sh.
# Runs each workload of /pidx/pidx-sysbench twice: once with the kernel's
# index timing off, for the rate, and once with it on, for the index's
# nanoseconds per operation from /sys/kernel/debug/pidx_system/stats (the
# timing's local_clock() calls would tax the rate).  A stock kernel has no
# pidx_system directory: its boots give rates only.  Writes $OUT/system.txt,
# one record a line (scripts/bench-system.sh parses it):
#   boot index=NAME kernel=RELEASE vcpus=N threads=N
#   rate <pidx-sysbench's line>
#   timed <pidx-sysbench's line> stats <the sum of stats' rows>
#   fidelity_header, fidelity_module <the module's results.csv: its idr's
#       and null's fork storms>
#   fidelity_kernel <pidx-sysbench fork's line> stats <the idr row>
#   error what=... rc=N
set -u

SYSBENCH=${PIDX_DIR:-/pidx}/pidx-sysbench
SYS=/sys/kernel/debug/pidx_system
MOD=/sys/kernel/debug/pidx
seconds=1
timed=0.5
workloads="threadspawn fork vfork nsfork:2 procwalk:1000 kill:1000"
fidelity=no
fid_ops=20000
fid_repeat=5
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift ;;
	--timed-seconds) timed=$2; shift ;;
	--workloads) workloads=$(echo "$2" | tr ',' ' '); shift ;;
	--fidelity) fidelity=$2; shift ;;
	--fidelity-ops) fid_ops=$2; shift ;;
	--fidelity-repeat) fid_repeat=$2; shift ;;
	*) echo "bench-system-guest: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

rec=$OUT/system.txt
: >"$rec"
ncpus=${PIDX_NCPUS:-$(grep -c '^processor' /proc/cpuinfo)}
threads() { awk '{ split($4, a, "/"); print a[2] }' /proc/loadavg; }

if [ -d "$SYS" ]; then
	self=$(cat "$SYS/self")
	idx=$(echo "$self" | sed -n 's/^index=\([^ ]*\).*/\1/p')
	# nsfork's namespaces get the boot's index too
	echo "$idx" >"$SYS/index" || echo "error what=index-write rc=1" >>"$rec"
	echo off >"$SYS/stats"
else
	idx=stock
fi
echo "boot index=$idx kernel=$(uname -r) vcpus=$ncpus threads=$(threads)" >>"$rec"

# The index timing is switched on and off only while no workload runs: the
# switch patches code (a static key), and QEMU's multi-threaded TCG before
# 8.1 may run a stale int3 of that patch on another vCPU, which oopses.
# pidx-sysbench zeroes the counts as its measured phase starts and copies
# them to /tmp/stats.snap as it ends (--stats, --stats-out).
timing() {
	echo "$1" >"$SYS/stats" && grep -q "^timing=$1 " "$SYS/stats"
}

# timed_sysbench ARGS...: pidx-sysbench ARGS with the timing on around it
# and its counts in /tmp/stats.snap; sets line, returns its status, or 125
# when the timing would not switch on (recorded, nothing run)
timed_sysbench() {
	timing on || { echo "error what=timing-on rc=1" >>"$rec"; return 125; }
	line=$("$SYSBENCH" "$@" --stats "$SYS/stats" --stats-out /tmp/stats.snap 2>/tmp/sb.err)
	tsb_rc=$?
	timing off || echo "error what=timing-off rc=1" >>"$rec"
	return "$tsb_rc"
}

# the sum over the snapshot's index rows of each key=value after index=
# (one index is in use in a boot: the others' counts are zero); %.0f, as
# busybox awk's %d stops at 2^31
stats_sum() {
	awk 'NR > 1 {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (!(kv[1] in s)) o[++n] = kv[1]
			s[kv[1]] += kv[2]
		}
	}
	END { for (i = 1; i <= n; i++) printf "%s%s=%.0f", (i > 1 ? " " : ""), o[i], s[o[i]]; print "" }' /tmp/stats.snap
}

# the rule of the benchmark: threadspawn one process per vCPU, as
# will-it-scale's threadspawn1; the others one process, as UnixBench's
# single-copy scores (the child of a fork runs on the other vCPU)
procs_of() {
	case $1 in threadspawn) echo "$ncpus" ;; *) echo 1 ;; esac
}

for w in $workloads; do
	name=${w%%:*}
	arg=
	[ "$name" = "$w" ] || arg=${w#*:}
	procs=$(procs_of "$name")
	# shellcheck disable=SC2086 # arg is one word or none
	if line=$("$SYSBENCH" "$name" $arg --procs "$procs" --seconds "$seconds" 2>/tmp/sb.err); then
		echo "rate $line" >>"$rec"
	else
		echo "error what=$w rc=$? $(tail -n 1 /tmp/sb.err)" >>"$rec"
		continue
	fi
	[ -d "$SYS" ] || continue
	# shellcheck disable=SC2086
	timed_sysbench "$name" $arg --procs "$procs" --seconds "$timed"
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "timed $line stats $(stats_sum)" >>"$rec"
	elif [ "$rc" != 125 ]; then
		echo "error what=timed-$w rc=$rc $(tail -n 1 /tmp/sb.err)" >>"$rec"
	fi
done

# The fidelity check (idr boots only): the module's idr, one PID's life in a
# fork storm at one level on one CPU, less null's (the engine's own work:
# the struct pid, the storm's rings), beside the kernel's own idr's time
# per fork from stats (alloc: reserve and publish; free), both at this
# machine's live set.
if [ "$fidelity" = yes ] && [ "$idx" = idr ]; then
	live=$(threads)
	if ! insmod "${PIDX_KO:-/pidx/pidx.ko}" 2>/tmp/ins.err; then
		echo "error what=insmod rc=1 $(tail -n 1 /tmp/ins.err)" >>"$rec"
	else
		ok=1
		for kv in indexes=idr,null workload=fork keys=$live pid_max=32768 levels=1 \
			cpus=0 mode=kthread ops=$fid_ops repeat=$fid_repeat fork_lookups=0; do
			echo "${kv#*=}" >"$MOD/${kv%%=*}" || { ok=0; echo "error what=set-$kv rc=1" >>"$rec"; }
		done
		if [ "$ok" = 1 ] && echo run >"$MOD/testcase"; then
			awk -F, 'NR == 1 { print "fidelity_header " $0; next }
				{ print "fidelity_module " $0 }' "$MOD/results.csv" >>"$rec"
		else
			echo "error what=fidelity-run rc=1 $(grep '^last:' "$MOD/testcase")" >>"$rec"
		fi
		rmmod pidx || echo "error what=rmmod rc=1" >>"$rec"
	fi
	# as many of the kernel's as of the module's, to pair them
	i=0
	while [ "$i" -lt "$fid_repeat" ]; do
		i=$((i + 1))
		timed_sysbench fork --procs 1 --seconds "$timed"
		rc=$?
		if [ "$rc" = 0 ]; then
			echo "fidelity_kernel $line threads=$live stats $(stats_sum)" >>"$rec"
		elif [ "$rc" != 125 ]; then
			echo "error what=fidelity-fork rc=$rc $(tail -n 1 /tmp/sb.err)" >>"$rec"
		fi
	done
fi
echo "end" >>"$rec"
