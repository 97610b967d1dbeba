# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# user-replay.sh: the replay workload's checks in user space, sourced by
# tests/user.sh (with run-all.sh's pass, fail, csv_count, SRC): every index
# replays the fixture trace and the committed real ones, verified; a space
# too small for the trace's forks; bad traces refused naming the line; the
# trace format's edge cases against docs/traces.md.  Apart, so that user.sh
# stays the list of the user-space checks.
#   replay_tests       called by user_tests

# replay_bad NAME TEXT LINE: a trace of TEXT (printf %b) refused with exit
# 2 before anything is built, naming line LINE
replay_bad() {
	local out ok
	out=$(printf '%b' "$2" | "$SRC/user/pidx-user" --workload replay --trace - --indexes idr --quiet 2>&1)
	ok=$?
	case "$ok $out" in
	"2 "*"--trace -: line $3: "*) pass "user: replay refuses $1 with exit 2, naming line $3" ;;
	*) fail "user: replay of $1" "exit 2 naming line $3, saw exit $ok: $(echo "$out" | head -2 | tr '\n' ' ')" ;;
	esac
}

# trace_format_tests DIR: docs/traces.md's edge cases, each case's text
# after a valid "wait 1" line, fed to pidx-user's parser (exit 0 or 2) and
# to scripts/check-trace.py (exit 0 or 1): both must give the expected
# verdict.  Each case: VERDICT|NAME|TEXT (printf %b, without '|').
trace_format_tests() {
	local u=$1 c127 c128 v name text want f got1 got2 n=0 bad=0
	c127="# $(printf '%0125d' 0)"
	c128="# $(printf '%0126d' 0)"
	while IFS='|' read -r want name text; do
		[ -n "$want" ] || continue
		f=$u/format-$n.trace
		n=$((n + 1))
		printf '%b' "wait 1\\n$text" >"$f"
		"$SRC/user/pidx-user" --workload replay --trace "$f" --indexes idr --ops 10 --quiet \
			>/dev/null 2>&1
		v=$?
		case $v in 0) got1=ok ;; 2) got1=bad ;; *) got1="exit $v" ;; esac
		python3 "$SRC/scripts/check-trace.py" "$f" >/dev/null 2>&1
		v=$?
		case $v in 0) got2=ok ;; 1) got2=bad ;; *) got2="exit $v" ;; esac
		if [ "$got1" != "$want" ] || [ "$got2" != "$want" ]; then
			fail "user: trace format: $name" "$want from both, saw pidx-user $got1, check-trace.py $got2"
			bad=$((bad + 1))
		fi
	done <<EOF
ok|a 127-byte comment and its newline (128 bytes)|$c127\\n
bad|a 128-byte comment and its newline (129 bytes)|$c128\\n
ok|a last line of 128 bytes without a newline|$c128
bad|a last line of 129 bytes without a newline|${c128}0
ok|t=2^63 - 1|wait 1 t=9223372036854775807\\n
bad|t=2^63|wait 1 t=9223372036854775808\\n
bad|t=2^64|wait 1 t=18446744073709551616\\n
ok|t=0|wait 1 t=0\\n
ok|cpu=8191, the cap less one|wait 1 cpu=8191\\n
bad|cpu=8192, the cap|wait 1 cpu=8192\\n
bad|cpu=65535|wait 1 cpu=65535\\n
ok|level=32|wait 1 level=32\\n
bad|level=33|wait 1 level=33\\n
ok|every field|free 4194303 cpu=0 t=9811 level=1\\n
ok|PID 4194303|wait 4194303\\n
bad|PID 4194304|wait 4194304\\n
bad|PID 0|wait 0\\n
bad|a PID with a leading zero|wait 01\\n
bad|cpu= with a leading zero|wait 1 cpu=01\\n
bad|t= with a leading zero|wait 1 t=00\\n
bad|a signed PID|wait +1\\n
bad|a tab between fields|wait\\t1\\n
bad|a trailing tab|wait 1\\t\\n
bad|two spaces between fields|wait  1\\n
bad|a carriage return before the newline|wait 1\\r\\n
bad|a trailing space|wait 1 \\n
bad|a leading space|\\040wait 1\\n
bad|an indented comment|\\040# a comment\\n
bad|a line of one space|\\040\\n
ok|an empty line|\\n
ok|a comment of any bytes|#\\t\\0377\\r x\\n
bad|a byte not ASCII|wait 1 cpu=\\0303\\0251\\n
bad|a NUL byte|wait 1\\0000\\n
bad|fields out of order|wait 1 t=5 cpu=1\\n
bad|a field repeated|wait 1 cpu=1 cpu=2\\n
bad|an unknown field|wait 1 pid=1\\n
bad|a field without its value|wait 1 cpu=\\n
bad|a field of two =|wait 1 cpu=1=2\\n
bad|a word after the PIDs|wait 1 2\\n
bad|a fork with one PID|fork 1\\n
bad|an exit without a PID|exit\\n
bad|an event in capitals|Fork 1 2\\n
ok|a fork by the PID itself (the format allows it)|fork 5 5\\n
bad|t= going back|wait 1 t=5\\nwait 1 t=4\\n
ok|t= level, with lines without t= between|wait 1 t=5\\nwait 1\\nwait 1 t=5\\n
ok|a header counting the events|# events recorded: 2\\nwait 2\\n
bad|a header miscounting the events|# events recorded: 3\\nwait 2\\n
ok|only the first header counts|# events recorded: 1\\n# events recorded: 5\\n
ok|a header's count with a leading zero and a tail|# events recorded: 01 (x)\\n
bad|a header's huge count|# events recorded: 99999999999999999999999\\n
EOF
	if [ "$bad" = 0 ]; then
		pass "user: trace format: $n edge cases, pidx-user and check-trace.py agree with docs/traces.md"
	fi
}

# The replay workload natively (issue 29 item 2): every index replays
# tests/fixtures/trace-small.txt (406 events, 4 PIDs live from the start,
# one orphan: docs/traces.md) on one CPU and two, over each shape, every
# row verified against the oracle with 405 events replayed and the trace
# named in extra; fork's lookups under a dist; a space too small for the
# trace's forks (-ENOSPC, their PIDs' later events orphans); bad traces
# refused naming the line.
replay_tests() {
	local u=$1 c=$2 nidx=$3 T=$SRC/tests/fixtures/trace-small.txt T2 f out out2 ok ok2 n cpus sh d
	for cpus in $c; do
		for sh in dense spread aged; do
			f=$u/replay-$sh-$cpus.csv
			out=$("$SRC/user/pidx-user" --indexes auto --workload replay --trace "$T" \
				--shape "$sh" --keys 2K --cpus "$cpus" --quiet --csv "$f" 2>&1)
			ok=$?
			# cpu_events: one CPU replays 405, two share them (cpu=0 and cpu=1)
			n=$(csv_count "$f" "v(\"workload\") == \"replay\" && v(\"shape\") == \"$sh\" &&
				v(\"total_ops\") == 405 && v(\"fails\") == 0 &&
				v(\"extra\") ~ /^trace=406;pids=mapped;initial=4;orphans=1;cpu_events=(405|2[0-9][0-9]\\/1[0-9][0-9])(;|$)/ &&
				(v(\"verified\") == \"yes\" || (v(\"index\") == \"null\" && v(\"verified\") == \"n/a\"))")
			if [ "$ok" = 0 ] && [ "$n" = "$nidx" ]; then
				pass "user: replay of the fixture, $sh set, cpus $cpus: $nidx indexes verified, 405 events each"
			else
				fail "user: replay, $sh set, cpus $cpus" "exit 0 and $nidx verified rows of 405 events naming the trace, saw exit $ok, $n rows: $(echo "$out" | head -2 | tr '\n' ' ')$(awk -F, '$28 == "FAILED" { print $2 ": " $29 }' "$f" 2>/dev/null | head -1 | cut -c1-160)"
			fi
		done
	done
	cpus=${c##* }
	# the committed real traces (results/traces/): every index replays each
	# verified, with as many events as check-trace.py counts and no orphan
	for T2 in "$SRC"/results/traces/*.trace.xz; do
		d=${T2##*/}
		xz -dc "$T2" >"$u/${d%.xz}"
		n=$(/usr/bin/python3 "$SRC/scripts/check-trace.py" "$T2" | sed -n 's/^events: //p')
		f=$u/replay-${d%%.*}.csv
		"$SRC/user/pidx-user" --indexes auto --workload replay --trace "$u/${d%.xz}" \
			--shape aged --keys 32K --pid-max 4194304 --cpus "$cpus" --quiet --csv "$f" >/dev/null 2>&1
		ok=$?
		ok2=$(csv_count "$f" "v(\"workload\") == \"replay\" && v(\"extra\") ~ /^trace=$n;pids=mapped;initial=[0-9]+;orphans=0;/ &&
			(v(\"verified\") == \"yes\" || (v(\"index\") == \"null\" && v(\"verified\") == \"n/a\"))")
		if [ "$ok" = 0 ] && [ -n "$n" ] && [ "$ok2" = "$nidx" ]; then
			pass "user: replay of results/traces/$d ($n events), aged 32K in 4M, cpus $cpus: $nidx indexes verified"
		else
			fail "user: replay of results/traces/$d" "exit 0 and $nidx verified rows of '$n' events, no orphan, saw exit $ok, $ok2 rows: $(awk -F, '$28 == "FAILED" { print $2 ": " $29 }' "$f" 2>/dev/null | head -1 | cut -c1-160)"
		fi
	done
	# fork's lookups: the new PID's, or the dist walk's over the keys
	for d in uniform zipf:0.99 recent:100; do
		f=$u/replay-lookups-$(echo "$d" | tr ':.' '__').csv
		"$SRC/user/pidx-user" --indexes auto --workload replay --trace - --fork-lookups 2 \
			--dist "$d" --keys 2K --cpus "$cpus" --quiet --csv "$f" <"$T" >/dev/null 2>&1
		ok=$?
		n=$(csv_count "$f" "v(\"dist\") == \"$d\" && v(\"fork_lookups\") == 2 &&
			(v(\"verified\") == \"yes\" || (v(\"index\") == \"null\" && v(\"verified\") == \"n/a\"))")
		if [ "$ok" = 0 ] && [ "$n" = "$nidx" ]; then
			pass "user: replay from stdin, fork_lookups 2 under $d: $nidx indexes verified"
		else
			fail "user: replay, fork_lookups 2 under $d" "exit 0 and $nidx verified rows, saw exit $ok, $n"
		fi
	done
	# 294 keys and 4 initially-live PIDs leave 2 of 300 numbers: most
	# forks fail (fails), and their PIDs' later events are orphans
	f=$u/replay-full.csv
	"$SRC/user/pidx-user" --indexes auto --workload replay --trace "$T" --keys 294 \
		--pid-max 301 --cpus "$cpus" --quiet --csv "$f" >/dev/null 2>&1
	ok=$?
	n=$(csv_count "$f" 'v("index") != "null" && v("verified") == "yes" && v("fails") >= 50 &&
		v("extra") ~ /;orphans=[0-9][0-9][0-9]+;/')
	if [ "$ok" = 0 ] && [ "$n" = $((nidx - 1)) ]; then
		pass "user: replay in a full space: forks fail, their PIDs' events orphans, $n indexes verified"
	else
		fail "user: replay in a full space" "exit 0, $((nidx - 1)) verified rows with fails and orphans, saw exit $ok, $n"
	fi
	out=$("$SRC/user/pidx-user" --workload replay --trace "$T" --indexes idr --keys 32765 --pid-max 32768 --quiet 2>&1)
	ok=$?
	case "$ok $out" in
	"1 "*"keys + 4 initially-live PIDs exceed pid_max - 1"*) pass "user: replay of 32765 keys + 4 initially-live PIDs in 32767 numbers refused" ;;
	*) fail "user: replay that does not fit" "exit 1 naming the initially-live PIDs, saw exit $ok: $out" ;;
	esac
	# a PID forked again before its older task's free (free lag, docs/traces.md):
	# each trace PID a FIFO of incarnations, nothing orphaned
	f=$u/replay-reuse.csv
	rm -f "$f"
	printf 'fork 1 10 cpu=0\nexit 10 cpu=0\nfork 1 10 cpu=1\nfree 10 cpu=0\nexit 10 cpu=1\nwait 10 cpu=1\nfree 10 cpu=1\nexit 1\n' >"$u/reuse.trace"
	"$SRC/user/pidx-user" --indexes auto --workload replay --trace "$u/reuse.trace" --cpus 0-1 \
		--quiet --csv "$f" >/dev/null 2>&1
	ok=$?
	n=$(csv_count "$f" 'v("workload") == "replay" && v("extra") ~ /^trace=8;pids=mapped;initial=1;orphans=0;cpu_events=[0-9]+\/[0-9]+(;|$)/ && (v("verified") == "yes" || (v("index") == "null" && v("verified") == "n/a"))')
	cs=$(python3 "$SRC/scripts/check-trace.py" "$u/reuse.trace" | grep -E '^(forks of a PID still live|uses of a PID after its free):' | tr '\n' ' ')
	if [ "$ok" = 0 ] && [ "$n" = "$nidx" ] && [ "$cs" = "forks of a PID still live: 1 uses of a PID after its free: 0 " ]; then
		pass "user: a PID forked again before its free: $nidx indexes verified, 8 events, orphans=0; check-trace.py counts the fork"
	else
		fail "user: a PID forked again before its free" "exit 0, $nidx verified rows of 8 events and orphans=0, check-trace.py counting it; saw exit $ok, $n rows, $cs$(awk -F, '$28 == "FAILED" { print $2 ": " $29 }' "$f" 2>/dev/null | head -1 | cut -c1-160)"
	fi
	replay_bad "a word not an event" 'fork 1 2\nexit 2\nkill 2\n' 3
	replay_bad "PID 0" '# a comment\n\nwait 0\n' 3
	replay_bad "PID 4194304" 'wait 4194304\n' 1
	replay_bad "fields out of order" 'wait 1 t=5 cpu=1\n' 1
	replay_bad "cpu=8192" 'wait 1\nwait 2 cpu=8192\n' 2
	replay_bad "level=33" 'wait 1 level=33\n' 1
	replay_bad "a third PID" 'wait 1\nexit 2 3\n' 2
	replay_bad "a missing PID" 'exit\n' 1
	trace_format_tests "$u"
	replay_bad "a bad last line without its newline" 'wait 1\nwait 1x' 2
	replay_bad "a line of 129 bytes, its newline included" "wait 1\n# $(printf '%0126d' 1)\n" 2
	out=$( (yes 'wait 5' | head -n 1000001) | "$SRC/user/pidx-user" --workload replay --trace - --quiet 2>&1)
	ok=$?
	case "$ok $out" in
	"2 "*"line 1000001: more than 1000000 events"*) pass "user: replay refuses event 1000001, naming its line" ;;
	*) fail "user: replay of 1000001 events" "exit 2 naming line 1000001, saw exit $ok: $out" ;;
	esac
	out=$("$SRC/user/pidx-user" --workload replay --quiet 2>&1)
	ok=$?
	out2=$("$SRC/user/pidx-user" --workload lookup --trace "$T" --quiet 2>&1)
	ok2=$?
	if [ "$ok" = 2 ] && [ "$ok2" = 2 ]; then
		pass "user: replay without --trace, and --trace without replay, refused with exit 2"
	else
		fail "user: --trace and --workload replay" "exit 2 for both, saw $ok ($out), $out2"
	fi
}
