# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# sysbench.sh: the system benchmark's checks on this host, sourced by
# tests/run-all.sh (with its pass, fail, section, WORK, SRC): pidx-sysbench
# built statically and run natively (every workload's line, nsfork's
# nesting, bad input, nothing left behind), and scripts/bench-system.sh's
# native part end to end at a small size, its rows and its report.  The
# program inside the system kernel is tests/guest/suite-system.sh's.
#   sysbench_tests      after user_tests (the native bound needs pidx-user)

# sysbench_line OUT WORKLOAD: OUT is one well-formed result line of WORKLOAD
# with ops > 0
sysbench_line() {
	echo "$1" | grep -qE "^workload=$2 ops_per_s=[0-9.]+ ops=[1-9][0-9]* seconds=[0-9.]+ procs=[0-9]+( arg=[0-9]+)? ns_per_op=[0-9.]+ ops_min=[0-9]+ ops_max=[0-9]+" &&
		[ "$(echo "$1" | wc -l)" = 1 ]
}

# the processes named pidx-sysbench on this host (procps may be absent)
sysbench_procs() {
	grep -lx pidx-sysbench /proc/[0-9]*/comm 2>/dev/null | wc -l
}

sysbench_tests() {
	section "system benchmark: pidx-sysbench natively, bench-system.sh's native part"
	local sb=$SRC/system/sysbench/pidx-sysbench out rc w name arg before after d n
	if out=$(make -s --no-print-directory -C "$SRC" sysbench 2>&1) && ! echo "$out" | grep -qE 'warning:|error:' &&
		[ "$(echo "$out" | tail -n 1)" = "$sb" ] && readelf -h "$sb" >/dev/null &&
		! readelf -l "$sb" | grep -q 'INTERP'; then
		pass "make sysbench builds pidx-sysbench statically, without a warning, and prints its path last"
	else
		fail "make sysbench" "a static build without warnings, its path last, saw: $(echo "$out" | grep -E 'warning:|error:|Error' | head -3) $(echo "$out" | tail -n 1)"
		return
	fi
	before=$(sysbench_procs)
	for w in threadspawn fork vfork nsfork:0 nsfork:2 procwalk:50 kill:50; do
		name=${w%%:*} arg=
		[ "$name" = "$w" ] || arg=${w#*:}
		# shellcheck disable=SC2086 # arg is one word or none
		out=$("$sb" "$name" $arg --seconds 0.1 --warmup 0.02 2>&1)
		rc=$?
		if [ "$rc" = 0 ] && sysbench_line "$out" "$name"; then
			pass "sysbench: $w natively: one line, ops counted ($(echo "$out" | cut -d' ' -f2))"
		else
			fail "sysbench: $w natively" "exit 0 and one result line, saw exit $rc: $(echo "$out" | head -2 | tr '\n' ' ')"
		fi
		case $w in
		nsfork:2)
			# its forks' PIDs have a number in each of the 3 levels
			if echo "$out" | grep -q ' nspid_levels=3$'; then
				pass "sysbench: nsfork 2 forks from a namespace nested 2 deep (3 numbers per PID)"
			else
				fail "sysbench: nsfork 2's nesting" "nspid_levels=3, saw: $out"
			fi
			;;
		procwalk:50)
			n=$(echo "$out" | sed -n 's/.* entries=\([0-9]*\).*/\1/p')
			if [ "${n:-0}" -gt 1 ]; then
				pass "sysbench: procwalk reads the /proc PIDs as ps does ($n entries a walk)"
			else
				fail "sysbench: procwalk's entries" "entries= above 1, saw: $out"
			fi
			;;
		esac
	done
	for bad in "fork 3" "nsfork" "nsfork 9" "procwalk -1" "kill 0" "fork --seconds 0" \
		"fork --seconds abc" "fork --procs 0" "bogus"; do
		# shellcheck disable=SC2086 # the words are the arguments
		out=$("$sb" $bad 2>&1 >/dev/null)
		rc=$?
		if [ "$rc" = 2 ] && [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q '^pidx-sysbench: '; then
			pass "sysbench: '$bad' refused with exit 2 and one line"
		else
			fail "sysbench: '$bad' refused" "exit 2 and one 'pidx-sysbench: ' line, saw exit $rc: $out"
		fi
	done
	after=$(sysbench_procs)
	if [ "$after" = "$before" ]; then
		pass "sysbench: no pidx-sysbench process left behind"
	else
		fail "sysbench: nothing left behind" "$before pidx-sysbench processes as before, saw $after"
	fi

	# bench-system.sh: usage errors, the plan, then its native part end to end
	for bad in "--repeat 0" "--workloads nosuch" "--workloads nsfork" "--parts bogus" "--seconds 0" \
		"--kernels maybe" "--indexes maple" "--indexes nosuch"; do
		# shellcheck disable=SC2086
		if "$SRC/scripts/bench-system.sh" $bad --out "$WORK/bs-bad" >/dev/null 2>&1; then rc=0; else rc=$?; fi
		if [ "$rc" = 2 ] && [ ! -e "$WORK/bs-bad" ]; then
			pass "bench-system.sh $bad: exit 2, nothing written"
		else
			fail "bench-system.sh $bad" "exit 2 and no directory, saw exit $rc"
		fi
	done
	# the system indexes, read from system/pidx_system.c's table, and the plan
	if out=$("$SRC/scripts/bench-system.sh" --dry-run --parts native 2>"$WORK/bs-dry.err") &&
		echo "$out" | grep -qE '^estimate_s=[1-9][0-9]*$' &&
		grep -q ' indexes idr,idr_onelock,skiplist,rbskip,hash,lazyskip,lfradix;' "$WORK/bs-dry.err"; then
		pass "bench-system.sh --dry-run: the estimate and the 7 system indexes, nothing run"
	else
		fail "bench-system.sh --dry-run" "estimate_s=N and the 7 system indexes, saw: $out $(cat "$WORK/bs-dry.err")"
	fi
	# each repeat boots the indexes in an order of its own (a seed that
	# shuf read too little of gave all five repeats one order)
	out=$("$SRC/scripts/bench-system.sh" --dry-run --parts system --repeat 5 2>/dev/null)
	n=$(echo "$out" | grep -c '^order_[1-5]=')
	rc=$(echo "$out" | sed -n 's/^order_[1-5]=//p' | sort -u | wc -l)
	if [ "$n" = 5 ] && [ "$rc" -ge 3 ] &&
		[ "$(echo "$out" | sed -n 's/^order_1=//p' | tr ',' '\n' | sort | paste -sd,)" = hash,idr,idr_onelock,lazyskip,lfradix,rbskip,skiplist,stock ]; then
		pass "bench-system.sh: 5 repeats, each boot order a shuffle of the 7 indexes and stock, $rc different"
	else
		fail "bench-system.sh's boot orders" "5 shuffles of the indexes and stock, 3 or more different, saw: $(echo "$out" | grep order | tr '\n' ' ')"
	fi
	d=$WORK/bench-system
	if "$SRC/scripts/bench-system.sh" --out "$d" --parts native --repeat 2 --seconds 0.1 \
		--workloads fork,nsfork:2,threadspawn,procwalk:50,kill:50 >"$WORK/bench-system.log" 2>&1; then
		rc=0
	else
		rc=$?
	fi
	n=$(awk -F, 'NR > 1 && $0 ~ /,system-native,/' "$d/results.csv" 2>/dev/null | wc -l)
	if [ "$rc" = 0 ] && [ "$n" = 10 ]; then
		pass "bench-system.sh --parts native: 5 workloads x 2 repeats, rows substrate=system-native"
	else
		fail "bench-system.sh --parts native" "exit 0 and 10 system-native rows, saw exit $rc, $n rows: $(tail -n 2 "$WORK/bench-system.log" | tr '\n' ' ')"
	fi
	# the bound: pidx-user's five storms for every index but null, verified
	n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["verified"] == "yes" { print $c["run"] }' "$d/bound.csv" 2>/dev/null | sort -u | paste -sd,)
	if [ "$n" = 1,2,3,4,5 ] && ! grep -q '^[0-9]*,null,' "$d/bound.csv"; then
		pass "bench-system.sh: the native bound's five pidx-user storms, verified, null left out"
	else
		fail "bench-system.sh: the native bound" "runs 1-5 verified in bound.csv without null, saw '$n'"
	fi
	if python3 "$SRC/scripts/report.py" "$d" >/dev/null 2>&1 &&
		grep -q '^### The native bound' "$d/REPORT.md" &&
		[ "$(grep -c '^| \(fork\|nsfork:2\|threadspawn\|procwalk:50\|kill:50\) | [0-9]' "$d/REPORT.md")" = 5 ] &&
		! grep -q 'no model' "$d/REPORT.md"; then
		pass "report.py: the native run's System view bounds all 5 workloads"
	else
		fail "report.py over the native run" "a native bound row per workload, saw: $(grep -A8 'native bound' "$d/REPORT.md" 2>/dev/null | tail -n 6 | tr '\n' ' ')"
	fi
}
