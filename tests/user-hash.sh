# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# user-hash.sh: hash's checks in user space, sourced by tests/user.sh (with
# run-all.sh's pass, fail, SRC): a storm that adds a few PIDs to a prefilled
# set resizes no table.  Apart, so that user.sh stays the list of the
# user-space checks.
#   hash_tests         called by user_tests

# hash_resizes FILE: the resizes= of the extra column of FILE's first row
hash_resizes() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ n = split($c["extra"], kv, ";")
		  for (i = 1; i <= n; i++) if (kv[i] ~ /^resizes=/) { print substr(kv[i], 9); exit } }' \
		"$1" 2>/dev/null
}

# hash_storm_resizes DIR KEYS CPUS WORKLOAD...: each WORKLOAD's storm of
# hash at KEYS keys on CPUS resizes the table as often as a lookup storm,
# which adds nothing: the prefill's resizes and no more
hash_storm_resizes() {
	local u=$1 keys=$2 cpus=$3 wl f out ok r base
	shift 3
	for wl in lookup "$@"; do
		f=$u/$wl-$keys-$cpus.csv
		rm -f "$f"
		out=$("$SRC/user/pidx-user" --indexes hash --workload "$wl" --keys "$keys" \
			--pid-max 4194304 --ops 4000 --cpus "$cpus" --quiet --csv "$f" 2>&1)
		ok=$?
		r=$(hash_resizes "$f")
		if [ "$wl" = lookup ]; then
			base=$r
			[ "$ok" = 0 ] && [ -n "$r" ] && continue
		elif [ "$ok" = 0 ] && [ -n "$r" ] && [ "$r" = "$base" ]; then
			pass "user: hash's $wl storm at $keys keys on cpus $cpus resizes nothing (resizes=$r, the prefill's)"
			continue
		fi
		fail "user: hash's $wl storm at $keys keys on cpus $cpus" "exit 0 and the lookup storm's resizes ($base), saw exit $ok, resizes '$r'${out:+: $(echo "$out" | head -2 | tr '\n' ' ')}"
		[ "$wl" = lookup ] && return
	done
}

# hash_tests DIR CPUS: hash_storm_resizes at 1K keys (fork on the first CPU
# list of CPUS) and at 1M (fork and insert on each).  pid_hash was sized
# once at boot and never resized.  Tables grow by 4 from 64 buckets, so a
# prefill of 4^k keys (1K, 1M) fills its table to a load of exactly 1;
# growing past 1, a fork storm's first fork queued a resize of the whole
# table, and hash's fork at 1M keys cost 3-6 us an operation in the storms
# the resize ran in, 0.3 us in the others.  At 1K keys on two CPUs and more
# a fork storm's windows add half the set again: one resize then (of some
# 1.6K PIDs, tens of us) is the live set's, and not checked.
hash_tests() {
	local u=$1/hash cpus
	mkdir -p "$u"
	hash_storm_resizes "$u" 1K "${2%% *}" fork
	for cpus in $2; do
		hash_storm_resizes "$u" 1M "$cpus" fork insert
	done
}
