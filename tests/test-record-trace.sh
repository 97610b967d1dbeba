#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The PID trace recorder and validator (docs/traces.md) on this machine's own
# kernel, no boot: scripts/record-trace.sh --only-command on a shell that
# runs /bin/true five times (its forks, exits and frees, the header's counts),
# a command's exit status kept and an xz trace, tracefs's settings and mounts
# as they were before, bad usage refused (exit 2), and scripts/check-trace.py
# accepting the traces and rejecting a malformed line and a PID out of range
# by line number; a user without root told to use sudo (run as user 65534),
# also from a copy of the checkout in a directory only root can enter.
# Needs root and tracefs with the sched_process_* events; without them prints
# one "SKIP ..." line and exits 0.  Prints "PASS name" or "FAIL name: ..."
# per case; exits 1 when a case fails.  About 3 s.
# --other-user-only: only the cases run as another user (that copy's run).
set -uo pipefail

OTHER_USER_ONLY=no
[ "${1:-}" != --other-user-only ] || OTHER_USER_ONLY=yes

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
REC=$REPO/scripts/record-trace.sh
CHECK=$REPO/scripts/check-trace.py
EVENTS=(fork exit wait free)
T=$(mktemp -d /tmp/pidx-test-record-trace.XXXXXX)
PROBE=
U=
cleanup() {
	[ -z "$PROBE" ] || umount "$PROBE" 2>/dev/null
	rm -rf "$T" ${U:+"$U"}
}
trap cleanup EXIT

failed=0
pass() { echo "PASS $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
skip() { echo "SKIP record-trace: $1"; exit 0; }

# the mounted tracefs, as record-trace.sh finds it (a tracefs, else a
# debugfs's tracing/)
tracefs_dir() {
	local mnt fs want
	for want in tracefs debugfs; do
		while read -r _ mnt fs _; do
			[ "$fs" = "$want" ] || continue
			[ "$want" = tracefs ] || mnt=$mnt/tracing
			[ ! -e "$mnt/tracing_on" ] || { echo "$mnt"; return 0; }
		done </proc/mounts
	done
	return 1
}
# open_tracefs: $TR, a mounted tracefs, mounted at $T/probe for the test's
# reads when none is; close_tracefs unmounts that one
open_tracefs() {
	TR=$(tracefs_dir) && return 0
	mkdir -p "$T/probe"
	mount -t tracefs nodev "$T/probe" 2>/dev/null || return 1
	PROBE=$T/probe
	TR=$PROBE
}
close_tracefs() {
	[ -z "$PROBE" ] || umount "$PROBE"
	PROBE=
}
# settings: what record-trace.sh changes and must put back; a buffer never
# expanded reads "7 (expanded: 1408)", and after the recorder's run its size
# is the expanded one, so the expanded size is compared
settings() {
	local f v
	for f in tracing_on buffer_size_kb current_tracer trace_clock set_event \
		set_event_pid options/event-fork events/sched/sched_process_{fork,exit,wait,free}/enable; do
		v=$(tr '\n' ' ' <"$TR/$f")
		[[ ! $v =~ expanded:\ ([0-9]+) ]] || v=${BASH_REMATCH[1]}
		echo "$f: $v"
	done
	echo "instances: $(find "$TR/instances" -mindepth 1 -maxdepth 1 -printf '%f ')"
}
tracefs_mounts() { awk '$3 == "tracefs" { print $2 }' /proc/mounts; }

# other_user_cases: the cases that run the recorder as user 65534.  The
# checkout may sit where only root can enter (/root, a 0700 home), so that
# user runs a copy of the recorder and what it sources, in a directory of
# their own that anyone can enter; where it cannot run even that copy (a
# noexec /tmp), one "SKIP" line
other_user_cases() {
	command -v setpriv >/dev/null || return 0
	local u=(setpriv --reuid=65534 --regid=65534 --clear-groups) rec
	if ! U=$(mktemp -d /tmp/pidx-test-record-trace-user.XXXXXX) ||
		! mkdir "$U/scripts" || ! cp "$REC" "$REPO/scripts/lib.sh" "$U/scripts/" ||
		! chmod -R a+rX "$U"; then
		fail "not root" "a copy of the recorder in $U"
		return
	fi
	rec=$U/scripts/record-trace.sh
	# shellcheck disable=SC2016 # the inner sh expands them
	if ! (cd / && "${u[@]}" sh -c '[ -x "$1" ] && [ -r "$1" ] && [ -r "$2" ]' sh "$rec" "$U/scripts/lib.sh"); then
		echo "SKIP record-trace: not root: user 65534 cannot run a copy of the recorder in $U"
		return
	fi
	(cd "$U" && "${u[@]}" "$rec" -- true) >"$T/user.out" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q '^  sudo .*record-trace.sh -- true$' "$T/user.out"; then
		pass "not root: exit 2 and the command to run with sudo"
	else
		fail "not root" "exit 2 and a sudo line, saw exit $rc: $(cat "$T/user.out")"
	fi
}

[ "$(id -u)" = 0 ] || skip "not root: tracing needs it"
if [ "$OTHER_USER_ONLY" = yes ]; then
	other_user_cases
	[ $failed = 0 ]
	exit
fi
MOUNTS_BEFORE=$(tracefs_mounts)
open_tracefs || skip "tracefs is not mounted and cannot be mounted here"
for e in "${EVENTS[@]}"; do
	[ -e "$TR/events/sched/sched_process_$e/enable" ] ||
		{ close_tracefs; skip "this kernel has no sched:sched_process_$e event"; }
done
settings >"$T/settings.before"
close_tracefs

# --- the five /bin/true children ----------------------------------------------

LOOP='for i in 1 2 3 4 5; do /bin/true; done'
"$REC" --only-command -o "$T/loop.trace" -- sh -c "$LOOP" >"$T/loop.out" 2>&1
rc=$?
if [ $rc = 0 ] && [ -s "$T/loop.trace" ] && grep -q '^record-trace: .* events (fork' "$T/loop.out"; then
	pass "record --only-command: exit 0, a trace, a summary on stderr"
else
	fail "record --only-command" "exit 0, a trace and a summary, saw exit $rc: $(tail -n 3 "$T/loop.out" | tr '\n' ' ')"
fi
forks=$(grep -c '^fork ' "$T/loop.trace")
children=$(awk '$1 == "fork" { print $3 }' "$T/loop.trace")
if [ "$forks" -ge 5 ]; then
	pass "the five forks of /bin/true are in the trace ($forks forks)"
else
	fail "the five forks of /bin/true" "at least 5 fork lines, saw $forks"
fi
missing_exit=
missing_free=
for c in $children; do
	grep -q "^exit $c " "$T/loop.trace" || missing_exit+=" $c"
	grep -q "^free $c " "$T/loop.trace" || missing_free+=" $c"
done
if [ -n "$children" ] && [ -z "$missing_exit" ]; then
	pass "each forked child has an exit"
else
	fail "each forked child has an exit" "an exit line for each of:$(echo " $children" | tr '\n' ' '), none for:${missing_exit:- (no children)}"
fi
# sched_process_free fires in whoever frees the task, outside the command's
# PIDs: the recorder takes the frees from an instance of its own
if [ -n "$children" ] && [ -z "$missing_free" ]; then
	pass "each forked child has a free, though set_event_pid filters the frees' context"
else
	fail "each forked child has a free" "a free line for each child, none for:${missing_free:- (no children)}"
fi
if out=$("$CHECK" "$T/loop.trace" 2>&1); then
	pass "check-trace.py accepts the trace ($(echo "$out" | grep '^events:'))"
else
	fail "check-trace.py accepts the trace" "exit 0, saw: $out"
fi
missing=
for h in "command: sh -c '$LOOP'" "date: [0-9-]+T" "kernel: $(uname -r)" "cpus: [0-9]+" \
	"events recorded: $(grep -c '^[a-z]' "$T/loop.trace") \(fork $forks, " \
	"events dropped: [0-9]+ " "wait events of any child left out: [0-9]+" \
	"exits without a recorded free: 0"; do
	grep -q -E "^# $h" "$T/loop.trace" || missing+=" [$h]"
done
if [ -z "$missing" ]; then
	pass "the header: command, date, kernel, CPUs, events recorded and dropped, any-child waits"
else
	fail "the header" "lines matching$missing, saw: $(grep '^#' "$T/loop.trace" | tr '\n' ' ' | cut -c1-300)"
fi

# --- a failing command, the whole machine, xz ----------------------------------

"$REC" -o "$T/exit3.trace.xz" -- sh -c '/bin/true; exit 3' >"$T/exit3.out" 2>&1
rc=$?
if [ $rc = 3 ] && out=$("$CHECK" "$T/exit3.trace.xz" 2>&1) &&
	xz -dc "$T/exit3.trace.xz" | grep -q '^# command exit status: 3$'; then
	pass "whole machine: the command's exit status 3 kept, the .xz trace written and valid"
else
	fail "whole machine, exit status 3, xz" "exit 3 and a valid trace, saw exit $rc: $out $(tail -n 2 "$T/exit3.out" | tr '\n' ' ')"
fi

# --- tracefs as it was -----------------------------------------------------------

MOUNTS_AFTER=$(tracefs_mounts)
if [ "$MOUNTS_AFTER" = "$MOUNTS_BEFORE" ]; then
	pass "tracefs mounts as before (${MOUNTS_BEFORE:-none})"
else
	fail "tracefs mounts as before" "'$MOUNTS_BEFORE', saw '$MOUNTS_AFTER'"
fi
if open_tracefs; then
	settings >"$T/settings.after"
	close_tracefs
	# a buffer never expanded reads "7 (expanded: N)"; written back, N is
	# expanded in the kernel's sub-buffer pages, whose payload is a few
	# bytes short of 4 KB: a newer kernel then reads N + 2
	kb_before=$(sed -n 's/^buffer_size_kb: \([0-9]*\).*/\1/p' "$T/settings.before")
	kb_after=$(sed -n 's/^buffer_size_kb: \([0-9]*\).*/\1/p' "$T/settings.after")
	if cmp -s <(grep -v '^buffer_size_kb:' "$T/settings.before") \
		<(grep -v '^buffer_size_kb:' "$T/settings.after") &&
		[ -n "$kb_before" ] && [ -n "$kb_after" ] &&
		[ "$kb_after" -ge "$kb_before" ] && [ "$kb_after" -le $((kb_before + 4)) ]; then
		pass "tracefs settings as before (tracing_on, the events, set_event_pid, ...; buffer_size_kb $kb_before, now $kb_after)"
	else
		fail "tracefs settings as before" "$(diff "$T/settings.before" "$T/settings.after" | grep '^[<>]' | tr '\n' ' ')"
	fi
else
	fail "tracefs settings as before" "tracefs could be mounted again to read them"
fi

# --- usage --------------------------------------------------------------------------

"$REC" >"$T/usage1.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q 'no command' "$T/usage1.out"; then
	pass "no command: exit 2"
else
	fail "no command" "exit 2, saw exit $rc: $(cat "$T/usage1.out")"
fi
"$REC" --no-such-option -- true >"$T/usage2.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q 'unknown option --no-such-option' "$T/usage2.out"; then
	pass "an unknown option: exit 2"
else
	fail "an unknown option" "exit 2, saw exit $rc: $(cat "$T/usage2.out")"
fi
other_user_cases

# --- from a checkout only root can enter ---------------------------------------

# a clone in /root or a 0700 home: the cases run as another user, by a copy
# of this test beside copies of what they run, in $T (mktemp's, 0700)
if command -v setpriv >/dev/null; then
	C=$T/checkout
	mkdir -p "$C/scripts" "$C/tests"
	chmod 700 "$C"
	cp "$REC" "$REPO/scripts/lib.sh" "$C/scripts/"
	cp "$SELF_DIR/test-record-trace.sh" "$C/tests/"
	bash "$C/tests/test-record-trace.sh" --other-user-only >"$T/checkout.out" 2>&1
	rc=$?
	if grep '^SKIP' "$T/checkout.out"; then
		:
	elif [ $rc = 0 ] && grep -q '^PASS not root' "$T/checkout.out" && ! grep -q '^FAIL' "$T/checkout.out"; then
		pass "not root, from a checkout in a 0700 directory: user 65534 runs a copy it can reach"
	else
		fail "not root, from a checkout in a 0700 directory" "exit 0 and PASS not root, saw exit $rc: $(tr '\n' ' ' <"$T/checkout.out")"
	fi
fi

# --- the validator ----------------------------------------------------------------------

# reject NAME LINE TEXT: check-trace.py exits 1 naming line LINE of TEXT
reject() {
	printf '%b' "$3" >"$T/bad.trace"
	out=$("$CHECK" "$T/bad.trace" 2>&1)
	rc=$?
	if [ $rc = 1 ] && echo "$out" | grep -q "bad.trace:$2: "; then
		pass "check-trace.py rejects $1 (line $2)"
	else
		fail "check-trace.py rejects $1" "exit 1 naming line $2, saw exit $rc: $out"
	fi
}
reject "a fork with one PID" 3 '# a comment\nfork 1 2 cpu=0 t=0\nfork 12\nexit 2\n'
reject "a PID out of range" 2 'fork 1 2\nexit 4194304\n'
reject "a line over 128 bytes" 1 "exit 5 t=$(printf '%0130d' 0)\n"

[ $failed = 0 ]
