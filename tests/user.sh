# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# user.sh: the user-space build's checks, sourced by tests/run-all.sh (its
# pass, fail, section, REPO, SRC, WORK): pidx-user built warning-free, every
# index through every workload natively, the shapes' statistics from
# --dump-keys, the dist walks' from --dump-dist and every index under
# each dist, dependent lookups slower than batched ones, cachegrind, a
# broken index caught, the race replays; the replay workload's checks are
# tests/user-replay.sh's and hash's resizes tests/user-hash.sh's, sourced
# here.  Apart, so that run-all.sh stays a list of the parts a reader can
# hold.
#   user_tests         everything above (also `run-all.sh --user-only`)

# shellcheck source=user-replay.sh
. "$REPO/tests/user-replay.sh"
# shellcheck source=user-hash.sh
. "$REPO/tests/user-hash.sh"

# shape_aged_stats PIDX-USER DIR: prints the statistics of an aged set of
# 32K keys in a space of 4194304 and fails (status 1) when one is off:
#  - the simulation wrapped the cursor twice at least;
#  - every key once, in [1, pid_max);
#  - the boot-time daemons below the floor of 300, where nothing is
#    allocated again after a wrap: at least the daemons' count (keys / 16,
#    at most 256) of PIDs there;
#  - long-lived PIDs spread over the space: at least 5% of the set in its
#    upper half, and the set spanning 90% of it.
shape_aged_stats() {
	local bin=$1 d=$2
	mkdir -p "$d"
	"$bin" --shape aged --keys 32K --pid-max 4194304 --seed 1 --dump-keys >"$d/aged.txt" 2>&1 ||
		{ echo "pidx-user --dump-keys failed: $(head -c 200 "$d/aged.txt")"; return 1; }
	awk 'NR == 1 {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); h[kv[1]] = kv[2] }
		P = h["pid_max"]; next
	}
	{
		k = $1 + 0; n++
		if (k < 1 || k >= P || seen[k]++) bad++
		if (min == "" || k < min) min = k
		if (k > max) max = k
		if (k < 300) floor++
		if (k >= P / 2) upper++
	}
	END {
		printf "wraps %d, keys %d (bad %d), below 300: %d (daemons %d), upper half %.1f%%, span %.1f%%\n",
			h["wraps"], n, bad, floor, h["daemons"], 100 * upper / n, 100 * (max - min) / P
		exit !(h["wraps"] >= 2 && n == h["keys"] && !bad && floor >= h["daemons"] &&
			h["daemons"] > 0 && upper >= n / 20 && max - min >= P * 0.9)
	}' "$d/aged.txt"
}

# shape_stats PIDX-USER DIR: the statistics of the shapes, each a test
shape_stats() {
	local bin=$1 d=$2 out
	if out=$(shape_aged_stats "$bin" "$d"); then
		pass "user: aged set: $out"
	else
		fail "user: aged set statistics" "2+ wraps, daemons below the floor, 5% in the upper half, 90% span; saw: $out"
	fi
	"$bin" --shape aged --keys 32K --pid-max 4194304 --seed 1 --dump-keys >"$d/aged-again.txt" 2>&1
	"$bin" --shape aged --keys 32K --pid-max 4194304 --seed 2 --dump-keys >"$d/aged-seed2.txt" 2>&1
	if cmp -s "$d/aged.txt" "$d/aged-again.txt" && ! cmp -s "$d/aged.txt" "$d/aged-seed2.txt"; then
		pass "user: aged set: one seed gives one set, another seed another"
	else
		fail "user: aged set determinism" "equal dumps for seed 1, different for seed 2"
	fi
	# the floor, where it shows: in a small space the wraps come while
	# many live; in allocation order each drop of the number is a wrap, and
	# after the first nothing below 300 may come (a floor of 1 gave 138)
	if out=$("$bin" --shape aged --keys 1000 --pid-max 1400 --dump-keys 2>&1 |
		awk 'NR == 1 { split($4, w, "="); wraps = w[2]; next }
		{ k = $1 + 0; if (NR > 2 && k < prev) laps++; if (laps && k < 300) low++; prev = k }
		END { printf "%d wraps, %d drops in allocation order, %d PIDs below 300 after one", wraps, laps, low
		      exit !(wraps >= 2 && laps == wraps && !low) }'); then
		pass "user: aged set keeps the floor: $out"
	else
		fail "user: aged set's floor" "2+ wraps, as many drops, none below 300 after the first, saw: $out"
	fi
	# spread: ascending, every gap 2 or more, from 1 to near pid_max
	if out=$("$bin" --shape spread --keys 16383 --pid-max 32768 --dump-keys 2>&1 |
		awk 'NR == 1 { next }
		{ k = $1 + 0; if (NR > 2 && k - prev < gap || NR == 3) gap = k - prev; prev = k; n++
		  if (NR == 2) first = k }
		END { printf "%d keys, %d..%d, min gap %d", n, first, prev, gap
		      exit !(n == 16383 && first == 1 && prev >= 32768 - 3 && gap >= 2) }'); then
		pass "user: spread set: $out"
	else
		fail "user: spread set" "16383 keys from 1 to 32765+, gaps 2 or more, saw: $out"
	fi
	# the shapes that do not fit are refused, naming the rule
	out=$("$bin" --shape spread --keys 16384 --pid-max 32768 --quiet 2>&1)
	if [ $? = 1 ] && echo "$out" | grep -q 'spread needs pid_max - 1 >= 2 x keys'; then
		pass "user: spread refused where 2 x keys exceed pid_max - 1"
	else
		fail "user: spread that does not fit" "exit 1 naming the rule, saw: $out"
	fi
	out=$("$bin" --shape aged --keys 32468 --pid-max 32768 --quiet 2>&1)
	if [ $? = 1 ] && echo "$out" | grep -q 'aged needs keys <= pid_max - 1 - 300'; then
		pass "user: aged refused where the keys do not fit above the floor"
	else
		fail "user: aged that does not fit" "exit 1 naming the rule, saw: $out"
	fi
	out=$("$bin" --shape bent --quiet 2>&1)
	if [ $? = 2 ] && echo "$out" | grep -q 'shape wants dense, spread or aged'; then
		pass "user: --shape refuses an unknown shape"
	else
		fail "user: --shape bent" "exit 2 naming the shapes, saw: $out"
	fi
}

# dist_stats PIDX-USER DIR: the statistics of the dist setting's walks
# (--dump-dist: a line of facts, then the keys lookups read in turn), each
# against what the distribution predicts, computed here in floating point
dist_stats() {
	local bin=$1 d=$2 out bad why
	mkdir -p "$d"
	# zipf:0.99 over 1M dense keys: the walk is 1M keys of the set, and the
	# 1% most looked-up keys take the share the top 1% of ranks has,
	# sum(r^-s, r <= n/100) / sum(r^-s, r <= n), to within 0.002
	if out=$("$bin" --dist zipf:0.99 --keys 1M --pid-max 4194304 --dump-dist 2>&1 | awk '
		NR == 1 { for (i = 1; i <= NF; i++) { split($i, kv, "="); h[kv[1]] = kv[2] }; next }
		{ k = $1 + 0; if (k < 1 || k > h["keys"]) bad++; c[k]++; len++ }
		END { for (k in c) print c[k]; print "facts", h["keys"], h["len"], len, bad + 0 }' |
		sort -k1,1nr | awk '
		$1 == "facts" { n = $2; L = $3; got = $4; bad = $5; next }
		{ v[++m] = $1 }
		END {
			s = 0.99; top = int(n / 100)
			for (r = 1; r <= n; r++) { w = exp(-s * log(r)); all += w; if (r <= top) want += w }
			want /= all
			for (i = 1; i <= top && i <= m; i++) share += v[i]
			share /= L
			printf "zipf:0.99 over %d keys, walk %d: top 1%% of keys %.4f of lookups, zipf predicts %.4f; hottest %.4f (%.4f)", n, got, share, want, v[1] / L, 1 / all
			exit !(got == L && L == n && !bad && share - want < 0.002 && want - share < 0.002 &&
			       v[1] / L - 1 / all < 0.001 && 1 / all - v[1] / L < 0.001)
		}'); then
		pass "user: dist $out"
	else
		fail "user: dist zipf statistics" "top 1% share within 0.002 of zipf's, saw: $out"
	fi
	# recent:1000 over 1M dense keys: PID keys - r is the r-th newest; half
	# the lookups within the 1000 newest, three quarters within 2000, and
	# the median rank 1000 (to within 1%)
	"$bin" --dist recent:1000 --keys 1M --pid-max 4194304 --dump-dist 2>&1 |
		awk 'NR == 1 { split($3, kv, "="); n = kv[2]; next } { print n - $1 }' |
		sort -n >"$d/recent-ranks.txt"
	if out=$(awk '{ r = $1 + 0; v[NR] = r; if (r < 0 || r >= 1048576) bad++; if (r < 1000) a++; if (r < 2000) b++ }
		END { n = NR; med = v[int(n / 2) + 1]
		      printf "recent:1000 over 1M keys: %.4f of lookups within the 1000 newest (0.5), %.4f within 2000 (0.75), median rank %d", a / n, b / n, med
		      exit !(n == 1048576 && !bad && a / n > 0.498 && a / n < 0.502 && b / n > 0.748 && b / n < 0.752 && med >= 990 && med <= 1010) }' \
		"$d/recent-ranks.txt"); then
		pass "user: dist $out"
	else
		fail "user: dist recent statistics" "half within H, 3/4 within 2H, median rank H, saw: $out"
	fi
	rm -f "$d/recent-ranks.txt"
	# sequential: every key once, ascending (the aged set sorted)
	"$bin" --shape aged --keys 32K --pid-max 4194304 --dist sequential --dump-dist >"$d/seq.txt" 2>&1
	"$bin" --shape aged --keys 32K --pid-max 4194304 --dump-keys 2>&1 | tail -n +2 | sort -n >"$d/seq-want.txt"
	if [ -s "$d/seq-want.txt" ] && tail -n +2 "$d/seq.txt" | cmp -s - "$d/seq-want.txt"; then
		pass "user: dist sequential walks the aged set's $(wc -l <"$d/seq-want.txt") keys once each, ascending"
	else
		fail "user: dist sequential" "the aged set's keys ascending, saw: $(head -c 120 "$d/seq.txt" | tr '\n' ' ')"
	fi
	# one seed one walk, another seed another; uniform has no walk at all
	"$bin" --dist zipf:0.99 --keys 2K --seed 1 --dump-dist >"$d/z1.txt" 2>&1
	"$bin" --dist zipf:0.99 --keys 2K --seed 1 --dump-dist >"$d/z1b.txt" 2>&1
	"$bin" --dist zipf:0.99 --keys 2K --seed 2 --dump-dist >"$d/z2.txt" 2>&1
	out=$("$bin" --dump-dist --pid-max 32768 2>&1)
	if cmp -s "$d/z1.txt" "$d/z1b.txt" && ! cmp -s "$d/z1.txt" "$d/z2.txt" &&
		[ "$(head -1 "$d/z1.txt")" = "dist=zipf:0.99 shape=dense keys=2048 pid_max=32768 len=65536" ] &&
		[ "$out" = "dist=uniform shape=dense keys=1024 pid_max=32768 len=0" ]; then
		pass "user: dist walks: one seed one walk, another another; uniform makes none"
	else
		fail "user: dist walk determinism" "equal walks for one seed, another for seed 2, none for uniform, saw: $(head -1 "$d/z1.txt") / $out"
	fi
	# refused values: exit 2, naming the forms; the accepted ones read back
	bad=
	for v in zipf:0 zipf:5.001 zipf:1.2345 zipf: zipf:-1 zipf:1e3 recent:0 recent:4194305 \
		recent:1.5 recent: uniform:1 sequential:2 ZIPF:1 zipf recent bent ""; do
		"$bin" --dist "$v" --dump-dist >/dev/null 2>&1
		[ $? = 2 ] || bad="$bad '$v'"
	done
	out=$(for v in zipf:5 zipf:0.001 zipf:0.990 zipf:1.50 recent:4194304 recent:1 sequential uniform; do
		"$bin" --dist "$v" --keys 64 --dump-dist 2>&1 | head -1 | sed 's/ .*//'
	done | paste -sd' ')
	# (run-all.sh's pipefail: pidx-user's exit 2 would fail a pipe)
	why=$("$bin" --dist zipf:9 2>&1)
	if [ -z "$bad" ] && [ "$out" = "dist=zipf:5 dist=zipf:0.001 dist=zipf:0.99 dist=zipf:1.5 dist=recent:4194304 dist=recent:1 dist=sequential dist=uniform" ] &&
		echo "$why" | grep -q 'dist wants uniform, zipf:S'; then
		pass "user: --dist refuses 16 bad values (exit 2) and reads the good ones back: $out"
	else
		fail "user: --dist values" "every bad one exit 2 naming the forms, the good ones read back; saw accepted:${bad:- none}; read back: $out; zipf:9: $why"
	fi
}

# user/pidx-user: the index files and the kernel's lib/ built natively
user_tests() {
	section "user space: make user, every index x workload natively, cachegrind, a broken index"
	local u=$WORK/user out f w wl mix cpus c ok n nidx shape
	if make -C "$SRC" user KDIR="$KDIR" >"$WORK/user-build.log" 2>&1 &&
		! grep -E 'warning:|error:' "$WORK/user-build.log"; then
		pass "make user builds user/pidx-user without a warning"
	else
		fail "make user" "no warning, saw: $(grep -E 'warning:|error:|Error' "$WORK/user-build.log" | head -3)"
		return
	fi
	mkdir -p "$u"
	c="0"
	[ "$(nproc)" -ge 2 ] && c="0 0-1"
	# every index of the registry's table, null included (--indexes auto)
	nidx=$(grep -c '^	&pidx_[a-z_]*_ops,$' "$SRC/pidx_registry.c")
	for w in lookup insert delete mixed mixed:50/25/25 fork iterate; do
		wl=${w%%:*} mix=
		[ "$wl" != "$w" ] && mix=${w#*:}
		for cpus in $c; do
			f=$u/$(echo "$w-$cpus" | tr ':/' '__').csv
			out=$("$SRC/user/pidx-user" --indexes auto --workload "$wl" ${mix:+--mix "$mix"} \
				--keys 2K --ops 1000 --cpus "$cpus" --quiet --csv "$f" 2>&1)
			ok=$?
			n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["substrate"] == "user" && $c["shape"] == "dense" && ($28 == "yes" || ($2 == "null" && $28 == "n/a"))' "$f" 2>/dev/null | wc -l)
			if [ "$ok" = 0 ] && [ "$n" = "$nidx" ]; then
				pass "user: $w on cpus $cpus: $nidx indexes verified"
			else
				fail "user: $w on cpus $cpus" "exit 0 and $nidx verified rows, saw exit $ok, $n rows: $(echo "$out" | head -2 | tr '\n' ' ')$(awk -F, '$28 == "FAILED" { print $2 ": " $29 }' "$f" 2>/dev/null | head -1 | cut -c1-160)"
			fi
		done
	done
	dependent_tests "$u" "$c" "$nidx"
	levels_tests "$u" "${c##* }" "$nidx"
	failslab_tests "$u" "${c##* }" "$nidx"
	fork_remote_tests "$u"
	# the two IDR references side by side, 6.1's first; natively every
	# take may sleep, so idr_onelock's fork rows say their -ENOMEM retries
	after=$("$SRC/user/pidx-user" --list 2>/dev/null | cut -f1 | grep -A1 -x idr | tail -n 1)
	x=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["index"] == "idr_onelock" { print $c["extra"]; exit }' "$u/fork-0.csv" 2>/dev/null)
	case "$after $x" in
	"idr_onelock "*";retry=preload;retries=0"*)
		pass "user: --list names idr_onelock right after idr; its fork rows say retry=preload" ;;
	*) fail "user: idr_onelock listed and described" "idr_onelock after idr, extra with retry=preload;retries=0, saw '$after', '$x'" ;;
	esac
	# every index under the spread and aged shapes: prefill by insert in
	# the shape's order, the cursor set, the oracle on the shape's keys
	cpus=${c##* }
	for shape in spread aged; do
		for w in lookup insert delete mixed:50/25/25 fork iterate; do
			wl=${w%%:*} mix=
			[ "$wl" != "$w" ] && mix=${w#*:}
			f=$u/shape-$shape-$(echo "$w" | tr ':/' '__').csv
			out=$("$SRC/user/pidx-user" --indexes auto --shape "$shape" --workload "$wl" \
				${mix:+--mix "$mix"} --keys 2K --ops 1000 --cpus "$cpus" --quiet --csv "$f" 2>&1)
			ok=$?
			n=$(awk -F, -v s="$shape" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["substrate"] == "user" && $c["shape"] == s &&
				($c["shape_wraps"] >= 2 || s != "aged") &&
				($28 == "yes" || ($2 == "null" && $28 == "n/a"))' "$f" 2>/dev/null | wc -l)
			if [ "$ok" = 0 ] && [ "$n" = "$nidx" ]; then
				pass "user: shape $shape, $w on cpus $cpus: $nidx indexes verified"
			else
				fail "user: shape $shape, $w on cpus $cpus" "exit 0 and $nidx verified rows, saw exit $ok, $n rows: $(echo "$out" | head -2 | tr '\n' ' ')$(awk -F, '$28 == "FAILED" { print $2 ": " $29 }' "$f" 2>/dev/null | head -1 | cut -c1-160)"
			fi
		done
	done
	shape_stats "$SRC/user/pidx-user" "$u/stats"
	dist_stats "$SRC/user/pidx-user" "$u/dist"
	dist_storms "$u" "$cpus" "$nidx"
	replay_tests "$u" "$c" "$nidx"
	hash_tests "$u" "$c"
	# races a review found, replayed step by step (user/replay/): each
	# exits 0 only with the index consistent and its memory back
	if make -C "$SRC/user" replays KDIR="$KDIR" >"$WORK/replays-build.log" 2>&1 &&
		! grep -E 'warning:|error:' "$WORK/replays-build.log"; then
		for f in "$SRC"/user/replay/*.c; do
			f=$(basename "$f" .c)
			[ "$f" != replay_main ] || continue
			if out=$(timeout 60 "$SRC/user/build/replay/$f" 2>&1); then
				pass "user: replay $f: $(echo "$out" | grep '^verify' | head -1)"
			else
				fail "user: replay $f" "exit 0, saw: $(echo "$out" | tail -3 | tr '\n' ' ')"
			fi
		done
	else
		fail "make replays" "no warning, saw: $(grep -E 'warning:|error:|Error' "$WORK/replays-build.log" | head -3)"
	fi
	# an aged set's lookups cost what dense ones do at a size the branch
	# predictor could learn a repeating walk of (it once made skiplist's
	# aged lookups at 64 keys about a third of the dense ones' cost).  The
	# two shapes alternate and each pair gives a ratio, the median of 5
	# the verdict: this runs beside the KASAN guest, whose load changes
	# over seconds, and five dense runs then five aged ones once read 0.53.
	r=$(for i in 1 2 3 4 5; do
		for sh in dense aged; do
			"$SRC/user/pidx-user" --indexes skiplist --shape $sh --keys 64 --ops 200000 \
				--repeat 1 --seed "$i" --quiet --csv "$u/small-$sh-$i.csv" >/dev/null 2>&1
			awk -F, 'NR == 2 { print $17 }' "$u/small-$sh-$i.csv" 2>/dev/null
		done | paste -sd' ' | awk 'NF == 2 && $1 > 0 { printf "%.4f\n", $2 / $1 }'
	done | sort -n | awk '{ v[NR] = $1 } END { if (NR == 5) printf "%.2f", v[3] }')
	if awk -v r="$r" 'BEGIN { exit !(r != "" && r >= 0.7) }'; then
		pass "user: skiplist lookups of a 64-key aged set cost what dense ones do (aged/dense $r, median of 5 alternated pairs)"
	else
		fail "user: small aged set" "aged/dense skiplist lookup >= 0.7, saw '$r'"
	fi
	# spread and aged sets leave the cursor past the floor: an insert storm
	# that needs the numbers below 300 is refused whole, and one that fits
	# runs without a failed insert (it once failed 9% of them, verified)
	for sh in spread aged; do
		"$SRC/user/pidx-user" --workload insert --shape $sh --keys 1000 --pid-max 4096 \
			--ops 3095 --indexes idr --quiet >/dev/null 2>&1
		refused=$?
		rm -f "$u/ins-$sh.csv"
		"$SRC/user/pidx-user" --workload insert --shape $sh --keys 1000 --pid-max 4096 \
			--ops 2795 --indexes idr,skiplist,lfradix_pc --quiet --csv "$u/ins-$sh.csv" >/dev/null 2>&1
		ok=$?
		fails=$(awk -F, 'NR > 1 && ($14 != 0 || $28 != "yes")' "$u/ins-$sh.csv" 2>/dev/null | wc -l)
		if [ "$refused" = 1 ] && [ "$ok" = 0 ] && [ "$fails" = 0 ]; then
			pass "user: $sh insert storms past the floor's reach refused; one that fits fails no insert"
		else
			fail "user: $sh insert storms" "refused (exit 1), then exit 0 with no fails; saw exit $refused, exit $ok, $fails rows with fails"
		fi
	done
	# fork as the kernel forks: lookups of the new PID, and who frees it
	for e in remote local; do
		for l in 0 3; do
			f=$u/fork-$e-$l.csv
			"$SRC/user/pidx-user" --indexes all --workload fork --fork-exit $e --fork-lookups $l \
				--pid-max 4096 --keys 1K --ops 4000 --fork-window 16 --cpus 0-1 --quiet --csv "$f" >/dev/null 2>&1
			ok=$?
			n=$(awk -F, -v l=$l -v e=$e 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
				$c["verified"] == "yes" && $c["fork_lookups"] == l && $c["fork_exit"] == e' "$f" 2>/dev/null | wc -l)
			if [ "$ok" = 0 ] && [ "$n" = "$((nidx - 1))" ]; then
				pass "user: fork, fork_exit $e, fork_lookups $l, cursor wrapping: $n indexes verified"
			else
				fail "user: fork, fork_exit $e, fork_lookups $l" "exit 0 and $((nidx - 1)) verified rows naming the settings, saw exit $ok, $n rows"
			fi
		done
	done
	for bad in "--fork-lookups 4" "--fork-exit far" "--fork-lookups -1"; do
		# shellcheck disable=SC2086 # an option and its value
		"$SRC/user/pidx-user" --workload fork $bad --quiet >/dev/null 2>&1
		expect_rc=$?
		if [ "$expect_rc" = 2 ]; then
			pass "user: $bad refused (exit 2)"
		else
			fail "user: $bad" "exit 2, saw $expect_rc"
		fi
	done
	# each repeat its own seed (the run's plus the repeat) and its own
	# order of indexes, drawn from that seed: the same twice
	for n in 1 2; do
		"$SRC/user/pidx-user" --indexes idr,skiplist,rbskip,hash,maple --keys 1K --ops 500 \
			--repeat 4 --seed 5 --quiet --csv "$u/order$n.csv" >/dev/null 2>&1
	done
	seeds=$(awk -F, 'NR > 1 && $11 != 5 + $12 { print $12 ": " $11 }' "$u/order1.csv" | head -1)
	orders=$(awk -F, 'NR > 1 { o[$12] = o[$12] " " $2 } END { for (r in o) print o[r] }' \
		"$u/order1.csv" | sort -u | wc -l)
	if [ "$(awk -F, 'NR > 1' "$u/order1.csv" 2>/dev/null | wc -l)" = 20 ] && [ -z "$seeds" ] &&
		[ "$orders" -gt 1 ] && cmp -s <(cut -d, -f2,11,12 "$u/order1.csv") <(cut -d, -f2,11,12 "$u/order2.csv"); then
		pass "user: repeat r runs seed + r, each in its own order of indexes ($orders orders in 4 repeats), the same for one seed"
	else
		fail "user: repeats' seeds and orders" "20 rows, seed 5 + repeat, more than one order, the same twice; saw $(awk -F, 'NR > 1' "$u/order1.csv" 2>/dev/null | wc -l) rows, ${seeds:-seeds right}, $orders orders"
	fi
	# deterministic counts: one seed, two runs, the same numbers
	for n in 1 2; do
		"$SRC/user/pidx-user" --cachegrind --indexes idr,skiplist --keys 1K --ops 2000 \
			--quiet --csv "$u/cg$n.csv" >"$u/cg$n.log" 2>&1
	done
	if [ -s "$u/cg1.csv" ] && [ -s "$u/cg2.csv" ] &&
		[ "$(awk -F, 'NR > 1 && $35 == "cachegrind" && $37 > 0' "$u/cg1.csv" | wc -l)" = 2 ] &&
		[ "$(cut -d, -f2,35-40 "$u/cg1.csv")" = "$(cut -d, -f2,35-40 "$u/cg2.csv")" ]; then
		pass "user: cachegrind counts per op identical over two runs of one seed ($(awk -F, '$2 == "idr" { print "idr " $37 " instr" }' "$u/cg1.csv"))"
	else
		fail "user: cachegrind counts" "two equal rows per run with pmu=cachegrind, saw: $(cut -d, -f2,35-40 "$u/cg1.csv" "$u/cg2.csv" 2>/dev/null | tr '\n' ' ' | cut -c1-200) $(tail -n 2 "$u/cg1.log" | tr '\n' ' ')"
	fi
	# the broken idr lookup of broken_index_test, caught natively; the
	# same build's aged simulation stops before the cursor wraps, which
	# the statistics of the shapes must catch
	cp -a "$SRC" "$u/broken"
	sed -i 's/\treturn idr_find(&r->idr, pid);/\treturn pid % 97 ? idr_find(\&r->idr, pid) : NULL;/' \
		"$u/broken/pidx_idr_ref.c"
	sed -i 's/^#define PIDX_AGED_WRAPS\t\t2$/#define PIDX_AGED_WRAPS\t\t0/' "$u/broken/pidx_shape.h"
	# an exit that frees every level but the first (one level runs apart)
	sed -i 's/^\t\tif (!pid->numbers\[i\].nr)$/\t\tif (!pid->numbers[i].nr || !i)/' \
		"$u/broken/pidx_workload_fork.c"
	if grep -q 'pid % 97' "$u/broken/pidx_idr_ref.c" &&
		grep -q 'PIDX_AGED_WRAPS		0' "$u/broken/pidx_shape.h" &&
		grep -q 'if (!pid->numbers\[i\].nr || !i)' "$u/broken/pidx_workload_fork.c" &&
		make -C "$u/broken" user KDIR="$KDIR" >"$u/broken.log" 2>&1; then
		"$u/broken/user/pidx-user" --indexes idr,skiplist --keys 2K --ops 1000 \
			--csv "$u/broken.csv" >"$u/broken.out" 2>&1
		ok=$?
		if [ "$ok" = 1 ] && grep -q '^idr .*FAILED (.*lookup' "$u/broken.out" &&
			awk -F, '$2 == "idr" && $28 == "FAILED"' "$u/broken.csv" | grep -q . &&
			awk -F, '$2 == "skiplist" && $28 == "yes"' "$u/broken.csv" | grep -q .; then
			pass "user: a broken idr lookup fails natively, naming lookup; skiplist verified"
		else
			fail "user: broken idr lookup" "exit 1, idr FAILED naming lookup, skiplist yes, saw exit $ok: $(grep -E '^(idr|skiplist) ' "$u/broken.out" | cut -c1-200 | tr '\n' ' ')"
		fi
		# under the aged shape, where a miss looks its key up in the
		# bitmap of the keys nobody deletes (mixed storms delete)
		"$u/broken/user/pidx-user" --indexes idr,skiplist --shape aged --workload mixed \
			--mix 50/25/25 --keys 2K --ops 1000 --cpus 0 >"$u/broken-aged.out" 2>&1
		ok=$?
		if [ "$ok" = 1 ] && grep -q '^idr .*FAILED (.*lookup missed a key present' "$u/broken-aged.out" &&
			grep -q '^skiplist .* yes$' "$u/broken-aged.out"; then
			pass "user: the broken idr lookup fails an aged mixed storm too; skiplist verified"
		else
			fail "user: broken idr lookup, aged mixed" "exit 1, idr FAILED naming lookup, skiplist yes, saw exit $ok: $(grep -E '^(idr|skiplist) ' "$u/broken-aged.out" | cut -c1-200 | tr '\n' ' ')"
		fi
		# the per-level oracle: level 0 keeps the numbers of PIDs that
		# exited; at one level the exit is one call and stays right
		"$u/broken/user/pidx-user" --indexes skiplist --workload fork --levels 2 \
			--keys 2K --ops 1000 --cpus 0 >"$u/broken-levels.out" 2>&1
		ok=$?
		"$u/broken/user/pidx-user" --indexes skiplist --workload fork --levels 1 \
			--keys 2K --ops 1000 --cpus 0 >"$u/broken-level1.out" 2>&1
		if [ "$ok" = 1 ] && grep -q '^skiplist .*FAILED (.*present but should not be at level 0' "$u/broken-levels.out" &&
			grep -q '^skiplist .* yes$' "$u/broken-level1.out"; then
			pass "user: an exit that leaves level 0's number fails a 2-level fork storm, naming level 0; verified at 1 level"
		else
			fail "user: broken exit at level 0" "exit 1, skiplist FAILED naming level 0 at 2 levels, yes at 1, saw exit $ok: $(grep -E '^skiplist ' "$u/broken-levels.out" "$u/broken-level1.out" | cut -c1-200 | tr '\n' ' ')"
		fi
		# a fork's lookups under a dist: the walk's prefilled keys must hit
		"$u/broken/user/pidx-user" --indexes idr,skiplist --workload fork --fork-lookups 1 \
			--dist sequential --keys 2K --ops 1000 --cpus 0 >"$u/broken-dist.out" 2>&1
		ok=$?
		if [ "$ok" = 1 ] && grep -q '^idr .*FAILED (.*lookup missed a key present' "$u/broken-dist.out" &&
			grep -q '^skiplist .* yes$' "$u/broken-dist.out"; then
			pass "user: the broken idr lookup fails a fork storm's dist lookups; skiplist verified"
		else
			fail "user: broken idr lookup, fork under dist sequential" "exit 1, idr FAILED naming lookup, skiplist yes, saw exit $ok: $(grep -E '^(idr|skiplist) ' "$u/broken-dist.out" | cut -c1-200 | tr '\n' ' ')"
		fi
		# lookup and mixed storms read the dist's walk: recent:1 over
		# 2030 keys looks up only 1991..2030, none a multiple of 97, so
		# the storm misses nothing and only the oracle's check after it
		# fails; uniform's storm misses
		for wl in lookup mixed; do
			"$u/broken/user/pidx-user" --indexes idr --workload $wl --dist recent:1 \
				--keys 2030 --ops 2000 --cpus 0 >"$u/broken-recent-$wl.out" 2>&1
			"$u/broken/user/pidx-user" --indexes idr --workload $wl \
				--keys 2030 --ops 2000 --cpus 0 >"$u/broken-uniform-$wl.out" 2>&1
			if grep -q '^idr .*FAILED (.*expected but lookup misses it' "$u/broken-recent-$wl.out" &&
				! grep -q 'lookup missed a key present for the whole storm' "$u/broken-recent-$wl.out" &&
				grep -q '^idr .*FAILED (.*lookup missed a key present for the whole storm' "$u/broken-uniform-$wl.out"; then
				pass "user: $wl storms under recent:1 read the walk: the broken idr misses no key of it (the oracle's lookups do), and does under uniform"
			else
				fail "user: $wl storm under recent:1" "idr FAILED by the oracle only, and by the storm under uniform, saw: $(grep -h '^idr ' "$u/broken-recent-$wl.out" "$u/broken-uniform-$wl.out" | cut -c1-160 | tr '\n' ' ')"
			fi
		done
		if out=$(shape_aged_stats "$u/broken/user/pidx-user" "$u/broken-stats"); then
			fail "user: aged set of a simulation that never wraps" "its statistics fail, saw: $out"
		else
			pass "user: the aged statistics fail a simulation that never wraps ($(echo "$out" | tr '\n' ' ' | cut -c1-120))"
		fi
	else
		fail "user: broken index build" "a pidx-user with a broken idr lookup, saw: $(tail -n 2 "$u/broken.log" | tr '\n' ' ')"
	fi
	# null hands out numbers without end: its ring must take every insert of a
	# mixed storm, more than the PID space holds (capping it by the space,
	# tried in c49b6cf, failed this with "engine ring overflow")
	"$SRC/user/pidx-user" --indexes null --workload mixed --mix 0/100/0 --keys 2K \
		--ops 40000 --cpus 0 --quiet --csv "$u/null-ring.csv" >"$u/null-ring.out" 2>&1
	ok=$?
	if [ "$ok" = 0 ] && awk -F, '$2 == "null" && $28 == "n/a"' "$u/null-ring.csv" | grep -q .; then
		pass "user: null takes 40000 inserts of a mixed storm in a 32768-number space"
	else
		fail "user: null ring" "exit 0 and null n/a, saw exit $ok: $(awk -F, '$2 == "null" { print $28 ": " $29 }' "$u/null-ring.csv" 2>/dev/null | cut -c1-160)"
	fi
	# an alloc that hands out a number past pid_max: the fork storm must name
	# it, not set that bit in the oracle's pid_max-bit bitmap (a heap overrun)
	cp -a "$SRC" "$u/badalloc"
	perl -0pi -e 's/(idr_ref_take\(r, 0, gfp\);\n\n\tidr_ref_visits\(r, nr\);\n\treturn) nr;/$1 nr > 2100 && !(nr % 7) ? nr + r->pid_max : nr;/' \
		"$u/badalloc/pidx_idr_ref.c"
	if grep -q 'nr + r->pid_max' "$u/badalloc/pidx_idr_ref.c" &&
		make -C "$u/badalloc" user KDIR="$KDIR" >"$u/badalloc.log" 2>&1; then
		"$u/badalloc/user/pidx-user" --indexes idr,skiplist --workload fork --keys 2K \
			--ops 2000 --cpus 0 --csv "$u/badalloc.csv" >"$u/badalloc.out" 2>&1
		ok=$?
		if [ "$ok" = 1 ] && grep -q '^idr .*FAILED (.*outside \[1, pid_max)' "$u/badalloc.out" &&
			awk -F, '$2 == "skiplist" && $28 == "yes"' "$u/badalloc.csv" | grep -q .; then
			pass "user: a fork storm names an alloc past pid_max; skiplist verified"
		else
			fail "user: alloc past pid_max" "exit 1, idr FAILED naming 'outside [1, pid_max)', skiplist yes, saw exit $ok: $(grep -E '^(idr|skiplist) ' "$u/badalloc.out" | cut -c1-200 | tr '\n' ' ')"
		fi
	else
		fail "user: broken alloc build" "a pidx-user whose idr alloc returns numbers past pid_max, saw: $(tail -n 2 "$u/badalloc.log" | tr '\n' ' ')"
	fi
}

# dist_storms DIR CPUS NIDX: every index verified under each dist other
# than uniform, in the storms whose lookups it draws; uniform's rows say
# uniform and are those of no --dist at all
dist_storms() {
	local u=$1 cpus=$2 nidx=$3 dist w wl mix dep f out ok n want
	for dist in zipf:0.99 recent:100 sequential; do
		for w in lookup lookup-dep mixed:50/25/25 mixed-dep:90/5/5 fork; do
			wl=${w%%:*} dep=0 mix=
			[ "$wl" != "$w" ] && mix=${w#*:}
			[ "$wl" != "${wl%-dep}" ] && { wl=${wl%-dep}; dep=1; }
			f=$u/dist-$(echo "$dist-$w" | tr ':/.' '___').csv
			out=$("$SRC/user/pidx-user" --indexes auto --workload "$wl" ${mix:+--mix "$mix"} \
				--dependent "$dep" --fork-lookups 2 --dist "$dist" --keys 2K --ops 1000 \
				--cpus "$cpus" --quiet --csv "$f" 2>&1)
			ok=$?
			want=$nidx
			[ "$wl" = fork ] && want=$((nidx - 1))
			n=$(csv_count "$f" "v(\"dist\") == \"$dist\" && (v(\"verified\") == \"yes\" || (v(\"index\") == \"null\" && v(\"verified\") == \"n/a\"))")
			# fork's null row, whose alloc is no real one, is not verified
			[ "$wl" = fork ] && n=$(csv_count "$f" "v(\"dist\") == \"$dist\" && v(\"verified\") == \"yes\"")
			if [ "$ok" = 0 ] && [ "$n" = "$want" ]; then
				pass "user: dist $dist, $w on cpus $cpus: $want indexes verified, dist column $dist"
			else
				fail "user: dist $dist, $w on cpus $cpus" "exit 0 and $want verified rows naming the dist, saw exit $ok, $n rows: $(echo "$out" | head -2 | tr '\n' ' ')"
			fi
		done
	done
	# where no lookup is drawn the column is n/a
	f=$u/dist-na.csv
	for w in insert delete iterate fork; do
		"$SRC/user/pidx-user" --indexes idr --workload $w --fork-lookups 0 --dist zipf:0.99 \
			--keys 2K --ops 500 --cpus "$cpus" --quiet --csv "$f" >/dev/null 2>&1
	done
	# nor with no key to draw, nor a mix without lookups
	"$SRC/user/pidx-user" --indexes idr --workload fork --fork-lookups 2 --dist zipf:0.99 \
		--keys 0 --ops 500 --cpus "$cpus" --quiet --csv "$f" >/dev/null 2>&1
	"$SRC/user/pidx-user" --indexes idr --workload mixed --mix 0/50/50 --dist zipf:0.99 \
		--keys 2K --ops 500 --cpus "$cpus" --quiet --csv "$f" >/dev/null 2>&1
	n=$(csv_count "$f" 'v("dist") == "n/a" && v("verified") == "yes"')
	if [ "$n" = 6 ]; then
		pass "user: dist n/a in insert, delete, iterate, fork_lookups=0, keys=0 and mix 0/50/50 rows"
	else
		fail "user: dist n/a" "6 verified rows with dist n/a, saw $n"
	fi
	# uniform is the default, and its storms are those of before the setting
	"$SRC/user/pidx-user" --indexes idr,skiplist,hash --keys 2K --ops 2000 --cpus "$cpus" \
		--quiet --csv "$u/dist-default.csv" >/dev/null 2>&1
	"$SRC/user/pidx-user" --indexes idr,skiplist,hash --keys 2K --ops 2000 --cpus "$cpus" \
		--dist uniform --quiet --csv "$u/dist-uniform.csv" >/dev/null 2>&1
	if [ "$(csv_count "$u/dist-default.csv" 'v("dist") == "uniform" && v("verified") == "yes"')" = 3 ] &&
		cmp -s <(cut -d, -f2,11-15,26,28 "$u/dist-default.csv") <(cut -d, -f2,11-15,26,28 "$u/dist-uniform.csv"); then
		pass "user: dist uniform is the default, and --dist uniform runs the same storms"
	else
		fail "user: dist uniform" "3 verified rows with dist uniform, equal to --dist uniform's, saw: $(cut -d, -f2,28,52 "$u/dist-default.csv" 2>/dev/null | tr '\n' ' ')"
	fi
	# cachegrind's children run the row's dist
	"$SRC/user/pidx-user" --cachegrind --indexes idr --dist zipf:0.99 --keys 1K --ops 2000 \
		--quiet --csv "$u/dist-cg.csv" >"$u/dist-cg.log" 2>&1
	if [ "$(csv_count "$u/dist-cg.csv" 'v("dist") == "zipf:0.99" && v("pmu") == "cachegrind" && v("instructions_per_op") > 0')" = 1 ]; then
		pass "user: cachegrind counts a zipf:0.99 storm"
	else
		fail "user: cachegrind under a dist" "a pmu=cachegrind row with dist zipf:0.99, saw: $(tail -n 2 "$u/dist-cg.log" | tr '\n' ' ')"
	fi
}

# levels natively: fork storms (with a lookup of each new PID), mixed
# storms and chained lookups at 2 and 3 namespace levels, every index
# verified at every level with the levels column set; a replay and the
# spread shape at 3; a default row says 1; bad values refused
levels_tests() {
	local u=$1 cpus=$2 nidx=$3 f out ok n l w wl mix bad v
	for l in 2 3; do
		for w in fork mixed:50/25/25 lookup; do
			wl=${w%%:*} mix=
			[ "$wl" != "$w" ] && mix=${w#*:}
			f=$u/levels-$l-$wl.csv
			out=$("$SRC/user/pidx-user" --indexes auto --workload "$wl" ${mix:+--mix "$mix"} \
				--levels "$l" --fork-lookups 1 --dependent 1 --keys 2K --ops 1000 \
				--cpus "$cpus" --quiet --csv "$f" 2>&1)
			ok=$?
			n=$(csv_count "$f" "v(\"levels\") == $l && v(\"workload\") == \"$wl\" && (v(\"verified\") == \"yes\" || (v(\"index\") == \"null\" && v(\"verified\") == \"n/a\"))")
			if [ "$ok" = 0 ] && [ "$n" = "$nidx" ]; then
				pass "user: $l levels, $w on cpus $cpus: $nidx indexes verified at every level"
			else
				fail "user: $l levels, $w on cpus $cpus" "exit 0 and $nidx verified rows with levels=$l, saw exit $ok, $n rows: $(echo "$out" | head -2 | tr '\n' ' ')$(awk -F, '$28 == "FAILED" { print $2 ": " $29 }' "$f" 2>/dev/null | head -1 | cut -c1-160)"
			fi
		done
	done
	f=$u/levels-3-spread-replay.csv
	"$SRC/user/pidx-user" --indexes auto --workload fork --shape spread --pid-max 4194304 \
		--levels 3 --keys 2K --ops 1000 --cpus "$cpus" --quiet --csv "$f" >/dev/null 2>&1 &&
	"$SRC/user/pidx-user" --indexes auto --workload replay --trace "$SRC/tests/fixtures/trace-small.txt" \
		--levels 3 --keys 2K --cpus "$cpus" --quiet --csv "$f" >/dev/null 2>&1
	ok=$?
	n=$(csv_count "$f" 'v("levels") == 3 && (v("verified") == "yes" || (v("index") == "null" && v("verified") == "n/a"))')
	if [ "$ok" = 0 ] && [ "$n" = "$((2 * nidx))" ]; then
		pass "user: 3 levels, spread fork storms and the fixture's replay: $nidx indexes verified each"
	else
		fail "user: 3 levels, spread and replay" "exit 0 and $((2 * nidx)) verified rows, saw exit $ok, $n"
	fi
	# a space nearly full: most forks fail to reserve, and each frees its
	# object into the cache of its level count (the free reads the level)
	out=$("$SRC/user/pidx-user" --indexes auto --workload fork --levels 3 --keys 330 \
		--pid-max 400 --ops 300 --cpus "$cpus" --quiet --csv "$u/levels-full.csv" 2>&1)
	ok=$?
	n=$(csv_count "$u/levels-full.csv" 'v("fails") > 0 && (v("verified") == "yes" || (v("index") == "null" && v("verified") == "n/a"))')
	if [ "$ok" = 0 ] && [ "$n" -ge "$((nidx - 1))" ] && ! echo "$out" | grep -qi 'slab'; then
		pass "user: 3 levels in a nearly full space: forks refused ($n rows with fails), every object freed to its own cache"
	else
		fail "user: 3 levels, nearly full space" "exit 0, $((nidx - 1))+ verified rows with fails, no slab message, saw exit $ok, $n rows: $(echo "$out" | grep -i slab | head -2 | tr '\n' ' ')"
	fi
	n=$(csv_count "$u/fork-0.csv" 'v("levels") == 1')
	if [ "$n" = "$nidx" ]; then
		pass "user: a run without --levels says levels 1 in each row"
	else
		fail "user: default levels" "$nidx rows with levels 1 in fork-0.csv, saw $n"
	fi
	bad=
	for v in 0 4 -1 x 1x ""; do
		out=$("$SRC/user/pidx-user" --levels "$v" --indexes null --quiet 2>&1)
		ok=$?
		[ "$ok" = 2 ] && case "$out" in *"--levels wants a number in [1, 3]"*) continue ;; esac
		bad="$bad '$v'($ok)"
	done
	if [ -z "$bad" ]; then
		pass "user: --levels refuses 0, 4, -1, x, 1x and the empty word with exit 2"
	else
		fail "user: --levels bad values" "exit 2 naming [1, 3], saw$bad"
	fi
}

# --failslab natively: half the storm threads' slab allocations fail.  Every
# index's writing storms at 1 level and its fork and mixed storms at 3
# verify, each row labelled faults=failslab with the failures injected.
# ccskip's 3-level forks that fail after a reservation, whose unwind its
# removal refuses (remove_may_fail), keep the reservation on the CPU's
# stranded list until its next fork: its storms FAILED ("unwind of a
# reservation failed") while the unwind gave up after 8 refusals instead.
failslab_tests() {
	local u=$1 cpus=$2 nidx=$3 f out ok n w wl l cc bad v
	for w in insert:1 mixed:1 fork:1 fork:3 mixed:3; do
		wl=${w%%:*} l=${w#*:}
		f=$u/failslab-$wl-$l.csv
		out=$("$SRC/user/pidx-user" --indexes auto --workload "$wl" --mix 40/30/30 --levels "$l" \
			--failslab 50 --keys 2K --ops 4000 --cpus "$cpus" --quiet --csv "$f" 2>&1)
		ok=$?
		n=$(csv_count "$f" "v(\"levels\") == $l && v(\"extra\") ~ /faults=failslab;injected=[0-9]/ && (v(\"verified\") == \"yes\" || (v(\"index\") == \"null\" && v(\"verified\") == \"n/a\"))")
		cc=$(csv_count "$f" 'v("index") == "ccskip" && v("fails") > 0 && v("extra") ~ /injected=[1-9]/')
		if [ "$ok" = 0 ] && [ "$n" = "$nidx" ] && [ "$cc" = 1 ]; then
			pass "user: failslab 50%, $wl at $l level(s) on cpus $cpus: $nidx indexes verified, ccskip's refusals counted in fails"
		else
			fail "user: failslab 50%, $wl at $l level(s)" "exit 0, $nidx verified labelled rows, ccskip with fails, saw exit $ok, $n rows, ccskip $cc: $(echo "$out" | head -2 | tr '\n' ' ')$(awk -F, '$28 == "FAILED" { print $2 ": " $29 }' "$f" 2>/dev/null | head -1 | cut -c1-160)"
		fi
	done
	bad=
	for v in 101 -1 x ""; do
		out=$("$SRC/user/pidx-user" --failslab "$v" --indexes null --quiet 2>&1)
		ok=$?
		[ "$ok" = 2 ] && case "$out" in *"--failslab wants a number in [0, 100]"*) continue ;; esac
		bad="$bad '$v'($ok)"
	done
	out=$("$SRC/user/pidx-user" --failslab 10 --cachegrind --indexes null --quiet 2>&1)
	ok=$?
	case "$ok $out" in "2 "*"without --failslab"*) ;; *) bad="$bad cachegrind($ok)" ;; esac
	if [ -z "$bad" ]; then
		pass "user: --failslab refuses 101, -1, x, the empty word and --cachegrind with exit 2"
	else
		fail "user: --failslab bad values" "exit 2 naming [0, 100], and --cachegrind refused, saw$bad"
	fi
}

# fork_remote_tests DIR: a 2-thread fork storm's exits stay remote when one
# thread runs ahead.  A shell loop pinned to CPU 1 halves its storm thread
# there, as a 2-core host does when it runs something else; the thread on
# CPU 0 then fills its window faster than CPU 1 frees it, and once freed
# its own oldest PIDs (local_exits): 6% to 62% of the operations in the
# reference's native 2-thread fork rows, which the report leaves out above
# 10%.  A full window now waits for the CPU that frees it: at most 1% of
# the forks may exit locally, every row verified (null's, whose alloc is no
# real one, n/a).
fork_remote_tests() {
	local u=$1 f=$1/fork-remote-hog.csv out ok hog bad
	if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
		echo "SKIP user: fork remote beside a CPU hog: needs 2 CPUs and taskset"
		return
	fi
	rm -f "$f"
	# bounded, should this shell die before it kills the loop
	taskset -c 1 timeout 600 sh -c 'while :; do :; done' &
	hog=$!
	out=$("$SRC/user/pidx-user" --indexes idr,null,maple --workload fork --fork-exit remote \
		--keys 32K --pid-max 4194304 --ops 20000 --repeat 3 --cpus 0-1 --quiet --csv "$f" 2>&1)
	ok=$?
	kill "$hog" 2>/dev/null
	wait "$hog" 2>/dev/null
	bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ le = 0
		  if (match($c["extra"], /local_exits=[0-9]+/))
			le = substr($c["extra"], RSTART + 12, RLENGTH - 12) + 0
		  ok = $c["ncpus"] == 2 && $c["fork_exit"] == "remote" && le <= $c["total_ops"] / 100 &&
			($c["verified"] == "yes" || ($c["index"] == "null" && $c["verified"] == "n/a"))
		  n++
		  if (!ok) printf "%s %s local_exits %d of %d, ", $c["index"], $c["verified"], le, $c["total_ops"] }
		END { if (n != 9) printf "%d rows of 9", n }' "$f" 2>/dev/null)
	[ -f "$f" ] || bad="no $f"
	if [ "$ok" = 0 ] && [ -z "$bad" ]; then
		pass "user: fork remote on 2 threads beside a CPU hog: idr, null, maple x3 verified, local exits <= 1% of forks"
	else
		fail "user: fork remote beside a CPU hog" "exit 0, 9 verified rows with local_exits <= 1% of total_ops, saw exit $ok: $bad$(echo "$out" | head -2 | tr '\n' ' ')"
	fi
}

# median of the ns_per_op column of a results.csv's rows
csv_median_nsop() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ns_per_op") c = i; next }
		c { print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}

# dependent=1 natively: every index verified with chained lookups, and the
# chain seen in the time it costs
dependent_tests() {
	local u=$1 c=$2 nidx=$3 wl cpus f out ok n r b d
	for wl in lookup mixed; do
		for cpus in $c; do
			f=$u/dependent-$wl-$cpus.csv
			out=$("$SRC/user/pidx-user" --indexes auto --workload "$wl" --dependent 1 \
				--keys 2K --ops 1000 --cpus "$cpus" --quiet --csv "$f" 2>&1)
			ok=$?
			n=$(csv_count "$f" 'v("substrate") == "user" && v("dependent") == 1 && (v("verified") == "yes" || (v("index") == "null" && v("verified") == "n/a"))')
			if [ "$ok" = 0 ] && [ "$n" = "$nidx" ]; then
				pass "user: dependent=1 $wl on cpus $cpus: $nidx indexes verified, dependent column 1"
			else
				fail "user: dependent=1 $wl on cpus $cpus" "exit 0 and $nidx verified rows with dependent=1, saw exit $ok, $n rows: $(echo "$out" | head -2 | tr '\n' ' ')"
			fi
		done
	done
	if "$SRC/user/pidx-user" --dependent 2 --indexes null --quiet >/dev/null 2>&1; then
		fail "user: --dependent 2" "refused with exit 2"
	else
		pass "user: --dependent 2 refused"
	fi
	# idr at 1M keys, one thread, the modes alternating, the median of 9
	# storms each: lookups that wait for each other cost 2.3 to 3.2 times as
	# much as batched ones on this 2-core host beside a running make check,
	# about 1.0 when the chain is gone (the flag ignored, or the compiler
	# left to fold it); a single storm of each saw 1.5x from noise alone
	rm -f "$u/dep-b.csv" "$u/dep-d.csv"
	for n in 1 2 3; do
		for d in 0 1; do
			f=$u/dep-b.csv
			[ $d = 1 ] && f=$u/dep-d.csv
			"$SRC/user/pidx-user" --indexes idr --keys 1M --pid-max 4194304 --ops 200000 \
				--repeat 3 --cpus 0 --dependent $d --quiet --csv "$f" >/dev/null 2>&1
		done
	done
	b=$(csv_median_nsop "$u/dep-b.csv")
	d=$(csv_median_nsop "$u/dep-d.csv")
	r=$(awk -v b="$b" -v d="$d" 'BEGIN { printf "%.2f", (b > 0 ? d / b : 0) }')
	if awk -v r="$r" 'BEGIN { exit !(r >= 1.3) }'; then
		pass "user: idr at 1M keys, dependent lookups cost ${r}x batched ones ($d vs $b ns, >= 1.3x)"
	else
		fail "user: dependent lookups slower" "idr at 1M keys dependent >= 1.3x batched, saw $d vs $b ns (${r}x)"
	fi
}
