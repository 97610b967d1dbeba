#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# SPDX-License-Identifier: GPL-2.0
#
# record-trace.sh: a PID trace of a real workload, in the format of
# docs/traces.md: the kernel's sched_process_fork, sched_process_exit,
# sched_process_wait and sched_process_free events while COMMAND runs, read
# from tracefs and written as "fork PARENT CHILD", "exit PID", "wait PID" and
# "free PID" lines.  Needs root.  Every tracefs setting it changes is put
# back when it exits.  See usage().
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # PIDX_PROG names this script in lib.sh's messages
PIDX_PROG=record-trace
# shellcheck source=lib.sh disable=SC1091 # followed with shellcheck -x
. "$SELF_DIR/lib.sh"

# The format's bound on events (docs/traces.md), the default of --max-events.
FORMAT_MAX_EVENTS=1000000
EVENTS=(fork exit wait free)

usage() {
	cat <<'EOF'
Usage: scripts/record-trace.sh [options] [--] COMMAND [ARG...]

Runs COMMAND and records the PID events of its run (fork, exit, wait, free)
from the kernel's sched tracepoints, in the trace format of docs/traces.md.
Needs root and tracefs (mounted at /sys/kernel/tracing for the run when no
tracefs is mounted).  Exits with COMMAND's status; the trace is written
either way, with a summary line on stderr.

  -o FILE            write the trace to FILE (xz-compressed when FILE ends
                     in .xz); default stdout, and COMMAND's stdout then goes
                     to stderr
  --only-command     record COMMAND and its descendants only (set_event_pid
                     with options/event-fork); default: the whole machine
                     while COMMAND runs
  --max-events N     write at most N events (default and most: 1000000, the
                     format's bound); the header counts those left out
  --buffer-kb N      ring-buffer size per CPU in KiB (default 4096)
  -h, --help         this text

Exit status: COMMAND's; 2 when nothing was recorded (usage, not root, no
tracefs or no sched_process_* events, another recording running) or when
the trace could not be written.
EOF
}

needarg() { [ $# -ge 2 ] || die -c 2 "$1 needs a value (see --help)"; }
# posint NAME VALUE MAX: VALUE is a decimal integer in [1, MAX]
posint() {
	if [[ ! $2 =~ ^[1-9][0-9]{0,9}$ ]] || [ "$2" -gt "$3" ]; then
		die -c 2 "$1 takes an integer from 1 to $3, not '$2' (see --help)"
	fi
}

# quote_words WORD...: the words as one shell command line on one line,
# each quoted only where it needs it ($'...' for a control character)
quote_words() {
	local w out=
	for w in "$@"; do
		if [[ $w == *[[:cntrl:]]* ]]; then
			printf -v w '%q' "$w"
		elif [[ ! $w =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
			w="'${w//\'/\'\\\'\'}'"
		fi
		out+="${out:+ }$w"
	done
	printf '%s' "$out"
}

ORIG_ARGS=("$@")
OUT=
ONLY=no
MAX_EVENTS=$FORMAT_MAX_EVENTS
BUF_KB=4096
while [ $# -gt 0 ]; do
	case $1 in
	-o) needarg "$@"; OUT=$2; shift ;;
	--only-command) ONLY=yes ;;
	--max-events) needarg "$@"; posint "$1" "$2" "$FORMAT_MAX_EVENTS"; MAX_EVENTS=$2; shift ;;
	--buffer-kb) needarg "$@"; posint "$1" "$2" 1048576; BUF_KB=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die -c 2 "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || die -c 2 "no command to record (see --help)"
[ -z "$OUT" ] || [ "$OUT" != - ] || OUT=

if ! is_root; then
	info "tracing needs root; run:"
	printf '  sudo %s\n' "$(quote_words "$0" "${ORIG_ARGS[@]}")" >&2
	exit 2
fi

# --- tracefs ---------------------------------------------------------------

# find_tracefs: the directory of a mounted tracefs, else the tracing/ of a
# mounted debugfs (which mounts tracefs there when entered)
find_tracefs() {
	local mnt fs d want
	for want in tracefs debugfs; do
		while read -r _ mnt fs _; do
			[ "$fs" = "$want" ] || continue
			d=$(printf '%b' "${mnt//\\/\\0}") # /proc/mounts escapes as \040
			[ "$want" = tracefs ] || d=$d/tracing
			if [ -e "$d/tracing_on" ]; then
				printf '%s\n' "$d"
				return 0
			fi
		done </proc/mounts
	done
	return 1
}

TR=
MOUNTED=no
if ! TR=$(find_tracefs); then
	TR=/sys/kernel/tracing
	mount -t tracefs nodev "$TR" 2>/dev/null ||
		die -c 2 "no tracefs mounted, and mounting one at $TR failed"
	MOUNTED=yes
fi
for e in "${EVENTS[@]}"; do
	if [ ! -e "$TR/events/sched/sched_process_$e/enable" ]; then
		[ $MOUNTED = no ] || umount "$TR" || true
		die -c 2 "this kernel has no sched:sched_process_$e event in $TR"
	fi
done

# one recording at a time: they would share the top-level buffer
LOCK=/run/lock/pidx-record-trace.lock
[ -d /run/lock ] || LOCK=/tmp/pidx-record-trace.lock
if ! { exec 9>>"$LOCK"; } 2>/dev/null || ! flock -n 9; then
	[ $MOUNTED = no ] || umount "$TR" || true
	die -c 2 "another record-trace.sh is recording, or $LOCK cannot be locked"
fi

# Everything changed is first saved here, in order, and written back in the
# reverse order by restore().
SAVED_FILES=()
SAVED_VALUES=()
SAVED_SET_EVENT=
SET_EVENT_CLEARED=no

# value FILE: FILE's setting in the form it is written back
value() {
	local v
	v=$(<"$1")
	case $1 in
	*/trace_clock) v=${v#*[}; v=${v%%]*} ;;
	# "7 (expanded: 1408)": the buffer's size once tracing first needs it
	*/buffer_size_kb) [[ $v =~ expanded:\ ([0-9]+) ]] && v=${BASH_REMATCH[1]} ;;
	*/enable) v=${v:0:1} ;;
	*/set_event_pid | */set_event_notrace_pid) v=${v//$'\n'/ } ;;
	esac
	printf '%s' "$v"
}

# set_file FILE VALUE: save FILE's value (the first time), then write VALUE
set_file() {
	local f=$1 i
	for i in "${SAVED_FILES[@]}"; do
		[ "$i" != "$f" ] || { printf '%s\n' "$2" >"$f"; return; }
	done
	SAVED_VALUES+=("$(value "$f")")
	SAVED_FILES+=("$f")
	printf '%s\n' "$2" >"$f"
}

T=$(mktemp -d /tmp/pidx-record-trace.XXXXXX)
INST=
CMD_PID=
READERS=()
RESTORED=no

# restore: stop the readers, put every setting back, unmount what was
# mounted; safe to call twice
restore() {
	local i f l
	[ $RESTORED = no ] || return 0
	RESTORED=yes
	printf '0\n' >"$TR/tracing_on" 2>/dev/null || true
	for i in "${READERS[@]}"; do
		kill "$i" 2>/dev/null || true
		wait "$i" 2>/dev/null || true
	done
	if [ -n "$INST" ]; then
		printf '0\n' >"$INST/tracing_on" 2>/dev/null || true
		rmdir "$INST" 2>/dev/null || warn "could not remove the tracing instance $INST"
	fi
	if [ $SET_EVENT_CLEARED = yes ]; then
		: >"$TR/set_event" 2>/dev/null || true
		while IFS= read -r l; do
			[ -z "$l" ] || printf '%s\n' "$l" >>"$TR/set_event" 2>/dev/null ||
				warn "could not enable $l again"
		done <<<"$SAVED_SET_EVENT"
	fi
	for ((i = ${#SAVED_FILES[@]} - 1; i >= 0; i--)); do
		f=${SAVED_FILES[i]}
		printf '%s\n' "${SAVED_VALUES[i]}" >"$f" 2>/dev/null ||
			warn "could not restore ${f#"$TR"/} to '${SAVED_VALUES[i]}'"
	done
	if [ $MOUNTED = yes ]; then
		umount "$TR" 2>/dev/null || warn "could not unmount $TR"
	fi
}
trap 'restore; rm -rf "$T"' EXIT
trap 'exit 130' INT
trap '[ -z "$CMD_PID" ] || kill -TERM "$CMD_PID" 2>/dev/null; exit 143' TERM

# Fail here, before the run, if the trace cannot be written.
if [ -n "$OUT" ]; then
	: >"$OUT" || die -c 2 "cannot write $OUT"
fi

for f in "$TR"/events/sched/sched_process_{fork,exit,wait,free}/filter; do
	[ "$(<"$f")" = none ] || warn "${f#"$TR"/} is set ($(<"$f")): its events are filtered"
done

# The header's facts, taken now, before tracing starts.
DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
KREL=$(uname -r)
NCPU=$(getconf _NPROCESSORS_ONLN)
RECORDER="scripts/record-trace.sh"
[ $ONLY = no ] || RECORDER+=" --only-command"
[ "$MAX_EVENTS" = "$FORMAT_MAX_EVENTS" ] || RECORDER+=" --max-events $MAX_EVENTS"
[ "$BUF_KB" = 4096 ] || RECORDER+=" --buffer-kb $BUF_KB"

set_file "$TR/tracing_on" 0
[ "$(<"$TR/current_tracer")" = nop ] || set_file "$TR/current_tracer" nop
# only the four events: the others are switched off for the run
SAVED_SET_EVENT=$(<"$TR/set_event")
SET_EVENT_CLEARED=yes
: >"$TR/set_event"
for e in "${EVENTS[@]}"; do
	set_file "$TR/events/sched/sched_process_$e/enable" 1
done
# the line layout the converter reads
for o in raw hex bin fields latency-format; do
	f=$TR/options/$o
	[ ! -e "$f" ] || [ "$(<"$f")" = 0 ] || set_file "$f" 0
done
[ "$(<"$TR/options/context-info")" = 1 ] || set_file "$TR/options/context-info" 1
# one clock for every CPU (and for the instance below)
[ "$(value "$TR/trace_clock")" = global ] || set_file "$TR/trace_clock" global
if [ "$(<"$TR/buffer_size_kb")" = X ]; then # per-CPU sizes differ
	for f in "$TR"/per_cpu/cpu*/buffer_size_kb; do set_file "$f" "$BUF_KB"; done
else
	set_file "$TR/buffer_size_kb" "$BUF_KB"
fi
[ -z "$(value "$TR/set_event_pid")" ] || set_file "$TR/set_event_pid" ""
if [ -e "$TR/set_event_notrace_pid" ] && [ -n "$(value "$TR/set_event_notrace_pid")" ]; then
	set_file "$TR/set_event_notrace_pid" ""
fi
: >"$TR/trace" # clear the buffer

# --only-command: set_event_pid keeps the events of the command's tasks, but
# sched_process_free fires in whoever frees the task (an RCU callback, on
# <idle> or ksoftirqd), so the filter drops nearly all of them.  A tracing
# instance of its own records every free on the machine; the converter keeps
# those of the command's tasks.
if [ $ONLY = yes ]; then
	INST=$TR/instances/pidx-record-trace-$$
	mkdir "$INST" || die -c 2 "cannot create the tracing instance $INST"
	printf '0\n' >"$INST/tracing_on"
	printf '%s\n' "$BUF_KB" >"$INST/buffer_size_kb"
	printf 'global\n' >"$INST/trace_clock"
	printf '1\n' >"$INST/events/sched/sched_process_free/enable"
fi

# --- the converter -----------------------------------------------------------

# Pass 1, while the command runs: each trace_pipe line to "SEC.USEC CPU KIND
# A [B]", KIND fork, exit, wait or free (freeall for the instance's frees).
# Any-child waits are counted, not written.  With --only-command the few
# frees of the filtered stream are dropped: the instance has them all.  On
# the main stream, past MAX events it writes no more and counts them (the
# instance's frees are the whole machine's: pass 2 keeps the command's).
# Lines it cannot read: "0 0 bad".  A comm is at most 15 bytes, so the first
# match of each pattern below is the real field even when a comm holds
# spaces or "pid=".
# shellcheck disable=SC2016 # awk's $ fields
PASS1='
function out(kind, a, b) {
	if (kind == "wait" && a + 0 <= 0) { anywait++; return }
	if (only && kind == "free") return
	if (src == "main" && n >= max) { over++; return }
	n++
	print ts, cpu, kind, a (b == "" ? "" : " " b)
}
/^#/ || /^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]/ { next }
{
	if (!match($0, /\[[0-9]+\] [^ ]* *[0-9]+\.[0-9]+: sched_process_[a-z]+: /)) {
		if (NF) { bad++; print "0 0 bad" }
		next
	}
	h = substr($0, RSTART, RLENGTH); f = substr($0, RSTART + RLENGTH)
	k = split(h, w, " ")
	cpu = substr(w[1], 2, length(w[1]) - 2) + 0
	ts = substr(w[k - 1], 1, length(w[k - 1]) - 1)
	ev = substr(w[k], 15, length(w[k]) - 15)
	if (ev == "fork") {
		if (!match(f, / pid=-?[0-9]+ child_comm=/)) { bad++; print "0 0 bad"; next }
		p = substr(f, RSTART + 5, RLENGTH - 17)
		if (!match(f, / child_pid=-?[0-9]+$/)) { bad++; print "0 0 bad"; next }
		out("fork", p, substr(f, RSTART + 11))
		next
	}
	if (ev == "exit")
		ok = match(f, / pid=-?[0-9]+ prio=-?[0-9]+( group_dead=[a-z]+)?$/)
	else if (ev == "wait" || ev == "free")
		ok = match(f, / pid=-?[0-9]+ prio=-?[0-9]+$/)
	else
		next
	if (!ok) { bad++; print "0 0 bad"; next }
	p = substr(f, RSTART + 5); p = substr(p, 1, index(p, " ") - 1)
	if (ev == "free" && src == "instance") ev = "freeall"
	out(ev, p, "")
}
END { printf "%.0f %.0f %.0f\n", over, anywait, bad > statfile }
'

# Pass 2, after the run, on both streams merged by time: the trace's lines
# and the counts for the header.  --only-command keeps the frees of the
# command's tasks (its PID and every child forked in the trace) from the
# instance's.
# shellcheck disable=SC2016 # awk's $ fields
PASS2='
BEGIN { if (only) tree[cmd] = 1 }
$3 == "bad" { next }
{
	kind = $3
	if (only) {
		if (kind == "freeall") {
			if (!($4 in tree)) next
			delete tree[$4]
			kind = "free"
		} else if (kind == "fork")
			tree[$5] = 1
	}
	if (n >= max) { over++; next }
	split($1, s, ".")
	if (n == 0) { s0 = s[1]; u0 = s[2] }
	t = (s[1] - s0) * 1000000 + (s[2] - u0)
	if (kind == "fork")
		printf "fork %s %s cpu=%s t=%.0f\n", $4, $5, $2, t
	else
		printf "%s %s cpu=%s t=%.0f\n", kind, $4, $2, t
	n++; count[kind]++
	if (kind == "exit") exited[$4] = 1
	else if (kind == "free") delete exited[$4]
}
END {
	for (p in exited) nofree++
	printf "%.0f %.0f %.0f %.0f %.0f %.0f %.0f\n", n, count["fork"], count["exit"], \
		count["wait"], count["free"], over, nofree > statfile
}
'

# start_reader NAME DIR: stream DIR/trace_pipe through pass 1 into $T/NAME.ev
start_reader() {
	mkfifo "$T/$1.fifo"
	cat "$2/trace_pipe" >"$T/$1.fifo" &
	READERS+=("$!")
	READER_CAT[$1]=$!
	awk -v max="$MAX_EVENTS" -v only="$ONLY_N" -v src="$1" -v statfile="$T/$1.stat1" "$PASS1" <"$T/$1.fifo" >"$T/$1.ev" &
	READERS+=("$!")
	READER_AWK[$1]=$!
}
declare -A READER_CAT=() READER_AWK=()
ONLY_N=0
[ $ONLY = no ] || ONLY_N=1
start_reader main "$TR"
[ -z "$INST" ] || start_reader instance "$INST"

# --- the run -----------------------------------------------------------------

# a sleep without a fork (a fork would be recorded): read on a FIFO no one
# writes to
mkfifo "$T/idle"
exec 8<>"$T/idle"
pause() { read -r -t "$1" -u 8 _ || true; }

# COMMAND's stdout is stderr when the trace goes to stdout
if [ -z "$OUT" ]; then exec 7>&2; else exec 7>&1; fi
RC=0
if [ $ONLY = yes ]; then
	mkfifo "$T/go"
	# the child waits until its PID is in set_event_pid, then becomes COMMAND
	(
		read -r _ <"$T/go"
		exec "$@" >&7 7>&- 8<&- 9>&-
	) <&0 &
	CMD_PID=$!
	set_file "$TR/set_event_pid" "$CMD_PID"
	[ "$(<"$TR/options/event-fork")" = 1 ] || set_file "$TR/options/event-fork" 1
	printf '1\n' >"$INST/tracing_on"
	printf '1\n' >"$TR/tracing_on"
	printf 'go\n' >"$T/go"
else
	printf '1\n' >"$TR/tracing_on"
	"$@" <&0 >&7 7>&- 8<&- 9>&- &
	CMD_PID=$!
fi
wait "$CMD_PID" || RC=$?
ROOT_PID=$CMD_PID
CMD_PID=

# The tasks reaped last are freed an RCU grace period later: their last
# context switch puts the last reference, then rcu_barrier() (the
# rcutree.do_rcu_barrier parameter, Linux 6.6 and later) runs every pending
# callback, so that their sched_process_free events are in the buffer.
pause 0.05
BARRIER=/sys/module/rcutree/parameters/do_rcu_barrier
if [ -w "$BARRIER" ] && printf '1\n' >"$BARRIER" 2>/dev/null; then :; else pause 1; fi
printf '0\n' >"$TR/tracing_on"
[ -z "$INST" ] || printf '0\n' >"$INST/tracing_on"

# Drain: a buffer is read out when it holds no entries and its reader sleeps
# in trace_pipe's wait for data (not in the middle of a read or a write).
# stats DIR FIELD: the sum of FIELD over DIR's per-CPU stats
stats() {
	local f k v sum=0
	for f in "$1"/per_cpu/cpu*/stats; do
		while IFS=: read -r k v; do
			[ "$k" != "$2" ] || sum=$((sum + ${v// /}))
		done <"$f"
	done
	printf '%s' "$sum"
}
reader_asleep() {
	local w='' s=''
	kill -0 "$1" 2>/dev/null || return 0
	read -r w <"/proc/$1/wchan" || true
	read -r s _ <"/proc/$1/syscall" || true
	[ "$s" = 0 ] && [[ $w =~ ring_buffer_wait|wait_on_pipe ]]
}
drain() { # NAME DIR
	local i
	for ((i = 0; i < 200; i++)); do
		if [ "$(stats "$2" entries)" = 0 ] && reader_asleep "${READER_CAT[$1]}"; then
			break
		fi
		pause 0.05
	done
	[ "$i" -lt 200 ] || warn "the $1 buffer did not drain in 10 s: the trace may lack its last events"
	kill "${READER_CAT[$1]}" 2>/dev/null || true
	wait "${READER_CAT[$1]}" 2>/dev/null || true
	wait "${READER_AWK[$1]}" || die -c 2 "the converter failed on the $1 stream"
}
DROPPED=0
drain main "$TR"
for s in overrun "commit overrun" "dropped events"; do
	DROPPED=$((DROPPED + $(stats "$TR" "$s")))
done
if [ -n "$INST" ]; then
	drain instance "$INST"
	for s in overrun "commit overrun" "dropped events"; do
		DROPPED=$((DROPPED + $(stats "$INST" "$s")))
	done
fi
READERS=()
restore
trap - INT TERM

# --- the trace -----------------------------------------------------------------

trap 'rm -rf "$T"' EXIT
read -r OVER1 ANYWAIT BAD <"$T/main.stat1"
if [ -n "$INST" ]; then
	read -r _ _ BAD2 <"$T/instance.stat1"
	BAD=$((BAD + BAD2))
fi
LC_ALL=C sort -s -n -k1,1 "$T/main.ev" ${INST:+"$T/instance.ev"} |
	awk -v max="$MAX_EVENTS" -v only="$ONLY_N" -v cmd="$ROOT_PID" \
		-v statfile="$T/stat2" "$PASS2" >"$T/body"
read -r N NFORK NEXIT NWAIT NFREE OVER2 NOFREE <"$T/stat2"

# hline TEXT: one header line, cut to the format's 128 bytes (newline
# included), a control character in it written as "?"
hline() {
	local LC_ALL=C l="# $1"
	l=${l//[[:cntrl:]]/?}
	[ ${#l} -le 127 ] || l="${l:0:124}..."
	printf '%s\n' "$l"
}
header() {
	hline "pidx PID trace (format: docs/traces.md)"
	hline "command: $(quote_words "$@")"
	hline "directory: $PWD"
	hline "recorder: $RECORDER"
	hline "date: $DATE"
	hline "kernel: $KREL"
	hline "cpus: $NCPU"
	if [ $ONLY = yes ]; then
		hline "scope: the command and its descendants"
	else
		hline "scope: the whole machine while the command ran"
	fi
	hline "events recorded: $N (fork $NFORK, exit $NEXIT, wait $NWAIT, free $NFREE)"
	hline "events dropped: $DROPPED (ring-buffer overruns)"
	hline "events past --max-events $MAX_EVENTS, not written: $((OVER1 + OVER2))"
	hline "wait events of any child left out: $ANYWAIT"
	hline "exits without a recorded free: $NOFREE"
	hline "trace lines not understood: $BAD"
	hline "command exit status: $RC"
}
{
	header "$@"
	cat "$T/body"
} >"$T/trace"
case $OUT in
'') cat "$T/trace" ;;
*.xz) xz -c -T1 "$T/trace" >"$OUT" || die -c 2 "cannot write $OUT" ;;
*) cat "$T/trace" >"$OUT" || die -c 2 "cannot write $OUT" ;;
esac
info "$N events (fork $NFORK, exit $NEXIT, wait $NWAIT, free $NFREE) to ${OUT:-stdout}; $DROPPED dropped, $((OVER1 + OVER2)) past --max-events, $ANYWAIT any-child waits left out; command exited $RC"
exit "$RC"
