# shellcheck shell=bash disable=SC2154 # vm-run.sh's state, set before the verdict
# SPDX-License-Identifier: GPL-2.0
#
# vm-host-pause.sh: how scripts/vm-run.sh tells a host pause from a guest fault, sourced
# by it: the host's side sampled while qemu runs (host_monitor), the kernel's log read for
# the signs of one (classify), and the failure that a pause explains (fail_or_pause).
# Apart, so that vm-run.sh reads as the run: kernel, boot, console, verdict.  The
# functions read vm-run.sh's state (tmp, out, release, headers, KPATTERNS, ...) and call
# its tail_console and fail; nothing here runs at source time but the two constants.

# A vCPU that gets no host CPU for a while (a busy or paused host) looks to the guest like
# a CPU that stopped: the clocks jump, and the RCU stall and soft-lockup detectors may
# speak although no guest code misbehaved.  The runner tells such a host pause from a
# guest fault by evidence, and exits HOST_PAUSE_RC (the caller may boot again, once)
# when a failed run has evidence of a host pause and none of a real fault.
HOST_PAUSE_RC=123
# A stretch without a host CPU that counts as a pause: the module's own bound on a round.
HOST_PAUSE_MIN_US=1000000

# The host's side, sampled every half second while qemu runs: how long each vCPU thread
# waited for a host CPU (run_delay, the second field of /proc/PID/task/TID/schedstat)
# while it ran (almost) not at all, whether qemu was stopped (state T, e.g. SIGSTOP), and
# how late this loop itself woke (the whole host held up: steal time, a suspended VM).
# Each stretch of HOST_PAUSE_MIN_US or more becomes one line of LOG, timed from qemu's
# start (about the guest's uptime: the firmware takes under a second).
host_monitor() { # PIDFILE LOG DONEFILE (the caller creates DONEFILE once qemu is gone)
	local pidfile=$1 log=$2 done=$3 pid='' t0 now last dt d tid comm run wait st steal steal0 x
	local -A prun=() pwait=() pcomm=() ep=() epw=()
	while [ ! -e "$done" ]; do
		if [ -s "$pidfile" ] && read -r pid <"$pidfile" && [ -d "/proc/$pid" ]; then break; fi
		pid=''
		sleep 0.1
	done
	[ -n "$pid" ] || return 0
	t0=${EPOCHREALTIME/./}
	last=$t0
	hm_secs() { awk -v u="$1" 'BEGIN { printf "%.1f", u / 1e6 }'; }
	hm_flush() { # KEY WHAT: report KEY's stretch if long enough, then forget it
		if [ -n "${ep[$1]:-}" ] && [ "${epw[$1]}" -ge "$HOST_PAUSE_MIN_US" ]; then
			echo "host pause: $2 for $(hm_secs "${epw[$1]}") s, from +$(hm_secs "${ep[$1]}") s after qemu started" >>"$log"
		fi
		unset "ep[$1]" "epw[$1]"
	}
	read -r x _ _ _ _ _ _ _ steal0 _ </proc/stat || steal0=0
	while [ -d "/proc/$pid" ] && [ ! -e "$done" ]; do
		sleep 0.5
		now=${EPOCHREALTIME/./}
		dt=$((now - last))
		read -r x _ _ _ _ _ _ _ steal _ </proc/stat || steal=$steal0
		if [ "$dt" -ge $((HOST_PAUSE_MIN_US + 500000)) ]; then
			echo "host pause: the runner's own monitor did not run for $(hm_secs $((dt - 500000))) s (host steal time meanwhile $(hm_secs $(((steal - steal0) * 10000))) s), from +$(hm_secs $((last - t0))) s after qemu started" >>"$log"
		fi
		steal0=$steal
		st=''
		if read -r st 2>/dev/null <"/proc/$pid/stat"; then st=${st##*) }; st=${st%% *}; fi
		if [ "$st" = T ] || [ "$st" = t ]; then
			[ -n "${ep[stopped]:-}" ] || ep[stopped]=$((last - t0))
			epw[stopped]=$((${epw[stopped]:-0} + dt))
		else
			hm_flush stopped "qemu was stopped"
		fi
		for d in "/proc/$pid/task/"*; do
			comm=''
			read -r comm 2>/dev/null <"$d/comm" || continue
			case $comm in "CPU "*) ;; *) continue ;; esac # -name ...,debug-threads=on
			read -r run wait _ 2>/dev/null <"$d/schedstat" || continue
			tid=${d##*/}
			if [ -n "${pwait[$tid]:-}" ]; then
				# ns over us: waited 80% of the interval and ran under 5% of it
				if [ $(((wait - pwait[$tid]) / 100)) -ge $((dt * 8)) ] &&
					[ $(((run - prun[$tid]) / 50)) -le "$dt" ]; then
					[ -n "${ep[$tid]:-}" ] || ep[$tid]=$((last - t0))
					epw[$tid]=$((${epw[$tid]:-0} + (wait - pwait[$tid]) / 1000))
				else
					hm_flush "$tid" "vCPU thread '$comm' got no host CPU"
				fi
			fi
			prun[$tid]=$run
			pwait[$tid]=$wait
			pcomm[$tid]=$comm
		done
		last=$now
	done
	for x in "${!ep[@]}"; do
		if [ "$x" = stopped ]; then hm_flush stopped "qemu was stopped"; else hm_flush "$x" "vCPU thread '${pcomm[$x]}' got no host CPU"; fi
	done
}

# Timestamped lines are the kernel's; the console and dmesg.txt hold the same ones (the
# console only those of loglevel < 5), so they are merged without repeats, oldest first.
# Other lines keep their place at the front with time -1.
merged_log() {
	local f
	for f in "$kscan_console" "$kscan_dmesg"; do
		[ "$f" = "$kscan_dmesg" ] && ! grep -qx dmesg.txt "$tmp/received" 2>/dev/null && continue
		[ -f "$f" ] && cat "$f"
	done | awk '
		# a kernel line that landed after unfinished user output starts mid-line
		match($0, /\[ *[0-9]+\.[0-9]+\] /) { $0 = substr($0, RSTART) }
		seen[$0]++ { next }
		/^\[ *[0-9]+\.[0-9]+\] / { t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t); print t "\t" $0; next }
		{ print "-1\t" $0 }' | sort -s -n -k1,1
}

# Reads merged_log's output twice; prints "PAUSE<TAB>evidence" for each sign of a host
# pause and "REAL<TAB>line" for each kernel problem that a host pause does not explain.
#  - a host pause: "hrtimer: interrupt took N ns" with N over a second; the clocksource
#    watchdog marking a clocksource unstable; a stall or soft-lockup report (the reports
#    printed within 10 s of each other form one episode) that lies wholly outside every
#    pidx run (the module marks each in dmesg: "pidx: run N begins" ... "ends"), shows
#    no pidx code or thread, and whose CPUs were idle (Comm: swapper) or serving user
#    space (a user-mode RIP: 0033 in the dump);
#  - everything else that kernel_problem() would match is real, and so is any stall when
#    there is no dmesg.txt to place it against the runs (the guest did not finish).
classify() { # MERGED_LOG HAVE_DMESG HZ
	# shellcheck disable=SC2016 # awk program, not shell
	awk -v have_dmesg="$2" -v hz="$3" -v pats="$(printf '%s\034' "${KPATTERNS[@]}")" '
	function min(a, b) { return a < b ? a : b }
	function max(a, b) { return a > b ? a : b }
	function num_after(s, rx,   t) {	# the first number in the match of rx in s
		if (!match(s, rx)) return -1
		t = substr(s, RSTART, RLENGTH); sub(/^[^0-9]*/, "", t)
		return t + 0
	}
	function close_ep(   i, why, run) {
		if (!ep) return
		if (pend >= 0) lo = min(lo, pend - 300)
		run = 0
		for (i = 1; i <= nr && !run; i++)
			if (rb[i] <= hi && (re[i] < 0 || re[i] >= lo)) run = i
		why = ""
		if (!placed) why = "no complete kernel log to place it against pidx runs"
		else if (run) why = sprintf("during a pidx run, %.1f..%s s", rb[run], re[run] < 0 ? "end" : sprintf("%.1f", re[run]))
		else if (pidx) why = "pidx code or a pidx thread in the report"
		else if (!allidle && !user) why = "its CPU was in the kernel, neither idle nor serving user space"
		if (why != "") print "REAL\t" head " (" why ")"
		else print "PAUSE\t" head " (" (allidle ? "CPUs idle" : "CPU serving user space") ", stalled " sprintf("%.1f..%.1f", lo, hi) " s, no pidx run then)"
		ep = 0
	}
	function section(comm) {
		if (comm !~ /^swapper/) allidle = 0
		if (comm ~ /^pidx/) pidx = 1
	}
	BEGIN { npat = split(pats, pat, "\034") - 1 }
	FNR == NR {
		if ($0 ~ /\] pidx: run [0-9]+ begins/) { rb[++nr] = $1 + 0; re[nr] = -1; marks = 1 }
		else if ($0 ~ /\] pidx: run [0-9]+ ends/ && nr && re[nr] < 0) { re[nr] = $1 + 0; marks = 1 }
		next
	}
	FNR == 1 { placed = have_dmesg || marks }
	{
		t = $1 + 0; s = substr($0, index($0, "\t") + 1)
		if (ep && t > ep_end) close_ep()
		if (t >= 0 && (s ~ /rcu: INFO: rcu_[a-z_]+ (self-detected stall|detected stalls|detected expedited stalls)/ ||
		    s ~ /watchdog: BUG: soft lockup - CPU#[0-9]+ stuck for [0-9]+s!/)) {
			if (!ep) { ep = 1; head = s; lo = t; hi = t; pend = -1; allidle = 1; user = 0; pidx = 0 }
			ep_end = t + 10; hi = max(hi, t)
			if (s ~ /soft lockup/) {
				lo = min(lo, t - num_after(s, "stuck for [0-9]+s"))
				c = s; sub(/.*\[/, "", c); sub(/:[0-9]+\].*/, "", c); section(c)
			} else if (s ~ /expedited stalls.*\} [0-9]+ jiffies/) {
				lo = min(lo, t - num_after(s, "\\} [0-9]+ jiffies") / hz)
			} else {
				if (pend >= 0) lo = min(lo, pend - 300)
				pend = t
			}
		}
		if (ep) {
			if (pend >= 0 && s ~ /t=[0-9]+ jiffies/) { lo = min(lo, pend - num_after(s, "t=[0-9]+ jiffies") / hz); pend = -1 }
			if (s ~ /CPU: [0-9]+ PID: [0-9]+ Comm: /) { c = s; sub(/.* Comm: /, "", c); sub(/ .*/, "", c); section(c) }
			if (s ~ /RIP: 0033:/) user = 1
			if (index(s, "[pidx]")) pidx = 1
		}
		if (s ~ /hrtimer: interrupt took [0-9]+ ns/ && num_after(s, "took [0-9]+ ns") >= 1e9) print "PAUSE\t" s
		if (s ~ /clocksource: timekeeping watchdog on CPU|Marking clocksource .* as unstable|tsc: Marking TSC unstable/) print "PAUSE\t" s
		if (tolower(s) ~ /command line/) next
		for (i = 1; i <= npat; i++) if (index(s, pat[i])) break
		if (i > npat) next
		if (ep && t >= 0 && (index(s, "rcu: INFO") || index(s, "stall") || index(s, "soft lockup") || index(s, "Call Trace"))) next
		print "REAL\t" s
	}
	END { close_ep() }
	' "$1" "$1"
}

# What classify() and host_monitor() found, split into $tmp/pause and $tmp/real.
host_pause_evidence() {
	local hz=250 have=0 c
	# the kernel's HZ turns an RCU stall's "t=N jiffies" into seconds
	for c in "/boot/config-$release" "${headers:-/nonexistent}/.config"; do
		if [ -n "$release" ] && [ -r "$c" ]; then
			hz=$(sed -n 's/^CONFIG_HZ=//p' "$c" | grep -E '^[0-9]+$' || echo 250)
			break
		fi
	done
	grep -qx dmesg.txt "$tmp/received" 2>/dev/null && have=1
	merged_log >"$tmp/merged.log"
	classify "$tmp/merged.log" "$have" "$hz" >"$tmp/classified"
	{
		sed -n 's/^PAUSE\t//p' "$tmp/classified"
		if [ -f "$tmp/host.log" ]; then cat "$tmp/host.log"; fi
	} >"$tmp/pause"
	sed -n 's/^REAL\t//p' "$tmp/classified" >"$tmp/real"
	if [ -s "$tmp/host.log" ]; then cp "$tmp/host.log" "$out/host-pauses.txt"; fi
}

# fail, unless a host pause explains the failure: evidence of one and of no real fault.
fail_or_pause() { # CODE REASON
	local l
	if [ -s "$tmp/pause" ] && [ ! -s "$tmp/real" ]; then
		tail_console
		while IFS= read -r l; do info "host pause: $l"; done <"$tmp/pause"
		info "FAIL: host pause suspected (exit $HOST_PAUSE_RC, not $1): $2"
		exit "$HOST_PAUSE_RC"
	fi
	if [ -s "$tmp/pause" ]; then
		while IFS= read -r l; do info "host pause seen, not the cause: $l"; done <"$tmp/pause"
		info "real fault: $(head -n1 "$tmp/real")"
	fi
	fail "$1" "$2"
}
