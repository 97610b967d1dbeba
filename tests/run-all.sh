#!/usr/bin/env bash
# The whole pidx test suite (`make check`): host checks (W=1, sparse,
# checkpatch, shellcheck, pyflakes), the real module in Debian's stock kernel
# under QEMU with 2, 1 and 4 vCPUs and in its PREEMPT_RT kernel, a deliberately
# broken index and a round past the module's bound that must be caught, DKMS,
# plot.py, the bench plumbing and the guest suite again under a KASAN + lockdep
# kernel and a KCSAN kernel, each built once and cached.  Each test prints
# "PASS name" or "FAIL name: ..."; a boot that the VM runner calls a host pause
# is booted again once ("RETRY name: host pause: ...").
#
# Usage: tests/run-all.sh [--no-debug-kernel | --debug-kernel-only | --user-only] [--keep DIR]
set -uo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
export PIDX_PROG=check
# shellcheck source=../scripts/lib.sh
. "$REPO/scripts/lib.sh"

DEBUG_KERNEL=yes
HOST_AND_STOCK=yes
USER_ONLY=no
KEEP=
while [ $# -gt 0 ]; do
	case $1 in
	--no-debug-kernel) DEBUG_KERNEL=no ;;
	--debug-kernel-only) HOST_AND_STOCK=no ;;
	--user-only) USER_ONLY=yes HOST_AND_STOCK=no DEBUG_KERNEL=no ;;
	--keep) KEEP=$2; shift ;;
	-h|--help) sed -n '2,10p' "$0"; exit 0 ;;
	*) die -c 2 "unknown option $1" ;;
	esac
	shift
done

PKGS=(make gcc libc6-dev libelf-dev qemu-system-x86 busybox-static cpio kmod
      linux-image-cloud-amd64 linux-headers-cloud-amd64 dkms sparse
      python3-matplotlib shellcheck pyflakes3 linux-source-6.1 xz-utils
      liburcu-dev valgrind)
ensure_pkgs "${PKGS[@]}"
# Debian's stock PREEMPT_RT kernel, for the rt guest group
RT_PKGS=(linux-image-rt-amd64 linux-headers-rt-amd64)
[ $HOST_AND_STOCK = no ] || ensure_pkgs "${RT_PKGS[@]}"

WORK=$(mktemp -d /tmp/pidx-check.XXXXXX)
cleanup() { [ -n "$KEEP" ] && cp -a "$WORK/." "$KEEP/" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
CACHE=${PIDX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pidx}
mkdir -p "$CACHE"

passed=0
failed=0
failures=()
START=$(date +%s)

pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() {
	failed=$((failed + 1))
	failures+=("$1")
	echo "FAIL $1: $2"
}
section() { echo; echo "== $* ($(( $(date +%s) - START )) s)"; }

# The stock kernel: the newest cloud kernel whose headers are installed.
REL=$(find /lib/modules -maxdepth 2 -name build -path '*-cloud-amd64/*' 2>/dev/null |
	sed 's|/lib/modules/||; s|/build||' | sort -V | tail -n 1)
[ -n "$REL" ] || die -c 2 "no /lib/modules/*-cloud-amd64/build after installing linux-headers-cloud-amd64"
KDIR=/lib/modules/$REL/build

# The PREEMPT_RT kernel: the newest rt kernel whose headers are installed.
RT_REL=$(find /lib/modules -maxdepth 2 -name build -path '*-rt-amd64/*' 2>/dev/null |
	sed 's|/lib/modules/||; s|/build||' | sort -V | tail -n 1)

# A private copy of the tree to build in, so the working tree stays clean.
SRC=$WORK/src
mkdir -p "$SRC"
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$SRC" 2>/dev/null) ||
	cp -a "$REPO/." "$SRC/"

# Counts the PASS/FAIL lines a sub-test printed; prints the FAIL lines and
# the guest suite's time per test.
count_lines() {
	local prefix=$1 file=$2 line
	while IFS= read -r line; do
		case $line in
		"PASS "*) pass "$prefix${line#PASS }" ;;
		"FAIL "*) line=${line#FAIL }; fail "$prefix${line%%: *}" "${line#*: }" ;;
		"TIME "*) echo "time $prefix${line#TIME }" ;;
		esac
	done < <(tr -d '\r' <"$file")
}

build_module() { # DIR KDIR [make args]: a clean build, output in DIR/build.log
	local dir=$1 kdir=$2
	shift 2
	make -C "$dir" KDIR="$kdir" clean >/dev/null 2>&1
	make -C "$dir" KDIR="$kdir" "$@" >"$dir/build.log" 2>&1
}

host_tests() {
	section "host: build, sparse, checkpatch, linters against $REL"
	if build_module "$SRC" "$KDIR" W=1 && ! grep -E 'warning:|error:' "$SRC/build.log"; then
		pass "build W=1 against $REL without a warning"
	else
		fail "build W=1" "no warning, saw: $(grep -E 'warning:|error:' "$SRC/build.log" | head -3)"
	fi
	if build_module "$SRC" "$KDIR" W=1 C=2 && ! grep -E 'warning:|error:' "$SRC/build.log"; then
		pass "sparse (C=2) without a warning"
	else
		fail "sparse (C=2)" "no warning, saw: $(grep -E 'warning:|error:' "$SRC/build.log" | head -3)"
	fi
	cp "$SRC/pidx.ko" "$WORK/pidx.ko"

	local out
	out=$(make -C "$SRC" KDIR=/nonexistent/headers 2>&1 >/dev/null)
	if [ "$(echo "$out" | grep -c .)" = 1 ] && echo "$out" | grep -q 'linux-headers'; then
		pass "make without headers says so in one line"
	else
		fail "make without headers" "one line naming linux-headers, saw: $out"
	fi

	local cp_dir=$CACHE/checkpatch f
	if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
		mkdir -p "$cp_dir"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cp_dir" --strip-components=1 \
			linux-source-6.1/scripts/checkpatch.pl linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch
	fi
	# the module's files; user/ is user space (its compat headers must define
	# typedefs and glibc-style code that checkpatch rightly flags in a kernel
	# patch), built -Wall -Wextra warning-free by user_tests instead
	for f in $(cd "$REPO" && git ls-files --cached --others --exclude-standard '*.c' '*.h' ':!:user/'); do
		out=$("$cp_dir/scripts/checkpatch.pl" --strict --no-tree -q -f "$REPO/$f" 2>&1)
		if [ -z "$out" ]; then
			pass "checkpatch --strict ${f##*/}"
		else
			fail "checkpatch --strict ${f##*/}" "nothing, saw: $(echo "$out" | head -4 | tr '\n' ' ')"
		fi
	done
	for f in "$REPO"/scripts/*.sh "$REPO"/tests/*.sh "$REPO"/tests/guest/*.sh "$REPO"/.ci/run; do
		[ -f "$f" ] || continue
		if out=$(shellcheck -x -P SCRIPTDIR "$f" 2>&1); then
			pass "shellcheck ${f#"$REPO"/}"
		else
			fail "shellcheck ${f#"$REPO"/}" "no finding, saw: $(echo "$out" | head -3 | tr '\n' ' ')"
		fi
	done
	for f in "$REPO"/scripts/plot.py "$REPO"/scripts/report.py "$REPO"/scripts/pidxreport/*.py \
		"$REPO"/tests/test_report.py; do
		if out=$(pyflakes3 "$f" 2>&1); then
			pass "pyflakes3 ${f#"$REPO"/}"
		else
			fail "pyflakes3 ${f#"$REPO"/}" "no finding, saw: $out"
		fi
	done
	section "report.py's verdicts on synthetic runs of known answer"
	/usr/bin/python3 "$REPO/tests/test_report.py" >"$WORK/test-report.log" 2>&1
	count_lines "report: " "$WORK/test-report.log"
	grep -q '^PASS' "$WORK/test-report.log" ||
		fail "report: test_report.py" "PASS lines, saw: $(tail -n 3 "$WORK/test-report.log" | tr '\n' ' ')"
	section "plot.py on the committed fixture"
	bash "$REPO/tests/test-plot.sh" >"$WORK/test-plot.log" 2>&1
	count_lines "plot: " "$WORK/test-plot.log"
	section "the VM runner's verdicts on the host-pause and KCSAN fixtures (no boot)"
	bash "$REPO/tests/test-runner.sh" >"$WORK/test-runner.log" 2>&1
	count_lines "runner: " "$WORK/test-runner.log"
}

# vm-run.sh's exit status for a failed boot that a host pause explains: evidence of one
# (a vCPU without a host CPU, a long hrtimer interrupt, a stall outside every pidx run
# with its CPU idle or in user space) and none of a guest fault
HOST_PAUSE_RC=123

# boot NAME OUTDIR VMRUN-ARGS...: one vm-run.sh, booted again once if it says host pause;
# prints "RETRY NAME: host pause: <evidence>" then, and leaves the first try in
# OUTDIR.try1.  Returns the status of the last boot; FIRST_RC is the first one's.
boot() {
	local name=$1 out=$2 rc ev
	shift 2
	mkdir -p "$out"
	"$REPO/scripts/vm-run.sh" --quiet --out "$out" "$@" >"$out/vm-run.log" 2>&1
	rc=$?
	FIRST_RC=$rc
	if [ $rc = $HOST_PAUSE_RC ]; then
		ev=$(sed -n 's/^vm-run: host pause: //p' "$out/vm-run.log" | head -n 1)
		echo "RETRY $name: host pause: $ev"
		rm -rf "$out.try1"
		mv "$out" "$out.try1"
		mkdir -p "$out"
		"$REPO/scripts/vm-run.sh" --quiet --out "$out" "$@" >"$out/vm-run.log" 2>&1
		rc=$?
	fi
	return $rc
}

# guest NAME OUTDIR VMRUN-ARGS... -- SUITE-ARGS: boot, count the guest's own tests
guest() {
	local name=$1 out=$2 rc
	shift 2
	boot "$name" "$out" "$@"
	rc=$?
	count_lines "$name: " "$out/console.log"
	# the suite exits 3 on its own failures; anything else is the kernel or the runner
	if [ $rc = 0 ] || [ $rc = 3 ]; then
		pass "$name: guest exited cleanly, no kernel warning in its log"
	elif [ $rc = $HOST_PAUSE_RC ]; then
		fail "$name: guest run" "a clean boot after one host-pause retry, saw a second failure: $(tail -n 3 "$out/vm-run.log" | tr '\n' ' ')"
	else
		fail "$name: guest run" "exit 0 with a clean kernel log, saw exit $rc: $(tail -n 3 "$out/vm-run.log" | tr '\n' ' ')"
	fi
	grep -q 'GUEST-SUMMARY' "$out/console.log" ||
		fail "$name: guest summary" "a GUEST-SUMMARY line, saw none"
}

stock_guest_tests() {
	section "guest: stock $REL, 2 vCPUs, full suite"
	# 281 s idle, 361 s beside two CPU loops: vm-run's default 600 s would
	# leave a host 2x slower than ours no room
	guest "2cpu" "$WORK/g2" --smp 2 --timeout 1800 --ko "$WORK/pidx.ko" --release "$REL" \
		"$REPO/tests/guest/suite.sh" -- full
	section "guest: 1 and 4 vCPUs, quick suite"
	guest "1cpu" "$WORK/g1" --smp 1 --ko "$WORK/pidx.ko" --release "$REL" \
		"$REPO/tests/guest/suite.sh" -- quick
	guest "4cpu" "$WORK/g4" --smp 4 --mem 3072 --ko "$WORK/pidx.ko" --release "$REL" \
		"$REPO/tests/guest/suite.sh" -- quick

	section "guest: two NUMA nodes, 2 vCPUs: placement"
	guest "numa" "$WORK/gnuma" --smp 2 --numa --ko "$WORK/pidx.ko" --release "$REL" \
		"$REPO/tests/guest/suite.sh" -- numa

	section "plot.py on the results the 2-vCPU guest just produced"
	local p=$WORK/plot-guest
	mkdir -p "$p"
	if [ -s "$WORK/g2/results.csv" ] && cp "$WORK/g2/results.csv" "$p/" &&
		printf 'kernel=%s\nenv=vm\naccel=tcg\n' "$REL" >"$p/meta" &&
		/usr/bin/python3 "$REPO/scripts/plot.py" --out "$p/plots" "$p" >"$p/log" 2>&1 &&
		[ -s "$p/plots/latency.png" ] && [ -s "$p/plots/memory.png" ] &&
		[ -s "$p/plots/latency.svg" ] && [ -s "$p/plots/memory.svg" ]; then
		# one keys size and one CPU count: the sweep plots have nothing to draw
		pass "plot.py draws latency and memory from the guest's results.csv"
	else
		fail "plot.py on guest results" "latency and memory PNG+SVG, saw: $(tail -n 2 "$p/log" 2>/dev/null)"
	fi
}

# The runner's own test: a storm whose first batch spins 8 s (stall_test), with interrupts
# off in ipi mode, must FAIL on the module's 5 s bound, through boot()'s host-pause retry
# and without it.  The kernel's detectors are made quick here (stall warnings after 3 s,
# soft lockups after 2 s) so that they speak too, inside the run: that must never read as
# a host pause.
stall_test() {
	section "a round past the module's bound must fail, and is no host pause"
	local o=$WORK/gstall rc
	boot stall "$o" --smp 2 --ko "$WORK/pidx.ko" --release "$REL" \
		--append "rcupdate.rcu_cpu_stall_timeout=3 watchdog_thresh=1" \
		"$REPO/tests/guest/stall.sh" -- 8000
	rc=$?
	if grep -q '^FAIL stall ipi: CPU [0-9]* kept interrupts off [0-9]* ms in one ipi round (bound [0-9]* ms)' "$o/console.log" &&
		grep -q '^FAIL stall kthread: CPU [0-9]* took [0-9]* ms over one kthread batch (bound [0-9]* ms)' "$o/console.log"; then
		pass "stall: ipi and kthread storms past the bound FAILED, naming the figure"
	else
		fail "stall: FAILED verdicts" "FAIL stall ipi/kthread lines with the figure, saw: $(grep 'stall' "$o/console.log" | grep -v '^\[' | head -3 | tr '\n' ' ')"
	fi
	if [ "$FIRST_RC" != 0 ] && [ "$FIRST_RC" != $HOST_PAUSE_RC ] && [ "$rc" != 0 ] && [ "$rc" != $HOST_PAUSE_RC ]; then
		pass "stall: the boot fails (exit $FIRST_RC), without a retry and with it, and is no host pause"
	else
		fail "stall: boot verdict" "a failure that is no host pause, saw exit $FIRST_RC, then $rc: $(tail -n 2 "$o/vm-run.log" | tr '\n' ' ')"
	fi
}

# Debian's stock PREEMPT_RT kernel: the module built against its headers,
# then the rt group (the defaults, every workload in both modes with ipi
# writers refused, the lockref loop, load/unload cycles, a clean log).
rt_tests() {
	section "PREEMPT_RT: build against $RT_REL and the rt guest group"
	if [ -z "$RT_REL" ]; then
		fail "rt: kernel headers" "a /lib/modules/*-rt-amd64/build after installing ${RT_PKGS[*]}, saw none"
		return
	fi
	local d=$WORK/rtsrc vm
	cp -a "$SRC" "$d"
	if build_module "$d" "/lib/modules/$RT_REL/build" W=1 C=2 && [ -f "$d/pidx.ko" ] &&
		! grep -E 'warning:|error:' "$d/build.log"; then
		pass "build W=1 C=2 against $RT_REL without a warning"
	else
		fail "build against $RT_REL" "no warning, saw: $(grep -E 'warning:|error:' "$d/build.log" | head -3)"
		return
	fi
	vm=$(modinfo -F vermagic "$d/pidx.ko" 2>/dev/null)
	case $vm in
	"$RT_REL "*preempt_rt*) pass "rt: module vermagic is $RT_REL preempt_rt" ;;
	*) fail "rt: module vermagic" "'$RT_REL ... preempt_rt', saw '$vm'" ;;
	esac
	guest "rt" "$WORK/grt" --smp 2 --ko "$d/pidx.ko" --release "$RT_REL" \
		"$REPO/tests/guest/suite.sh" -- rt
}

# A lookup that misses every 97th PID must be caught, and named.
broken_index_test() {
	section "a deliberately broken index must fail the suite"
	local b=$WORK/broken
	cp -a "$SRC" "$b"
	sed -i 's/return idr_find(&r->idr, pid) == xa_mk_value(pid);/return pid % 97 \&\& idr_find(\&r->idr, pid) == xa_mk_value(pid);/' \
		"$b/pidx_idr_ref.c"
	if ! grep -q 'pid % 97' "$b/pidx_idr_ref.c" || ! build_module "$b" "$KDIR"; then
		fail "broken index: build" "a module with a broken idr lookup"
		return
	fi
	"$REPO/scripts/vm-run.sh" --quiet --out "$b/out" --ko "$b/pidx.ko" --release "$REL" \
		"$REPO/tests/guest/suite.sh" -- broken >"$b/vm-run.log" 2>&1
	if grep -q '^FAIL selftest idr' "$b/out/console.log" &&
		grep -q 'lookups disagreeing with the oracle' "$b/out/console.log" &&
		grep -q '^FAIL storm .* idr' "$b/out/console.log" &&
		! grep -q '^FAIL selftest skiplist' "$b/out/console.log"; then
		pass "broken idr lookup: selftest and storms fail, naming lookup"
	else
		fail "broken idr lookup" "FAIL lines for idr selftest (lookups) and storms only, saw: $(grep '^FAIL' "$b/out/console.log" | head -3 | tr '\n' ' ')"
	fi
}

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
	# aged lookups at 64 keys about a third of the dense ones' cost)
	for sh in dense aged; do
		"$SRC/user/pidx-user" --indexes skiplist --shape $sh --keys 64 --ops 200000 --repeat 5 \
			--quiet --csv "$u/small-$sh.csv" >/dev/null 2>&1
	done
	r=$(for sh in dense aged; do
		awk -F, 'NR > 1 { print $17 }' "$u/small-$sh.csv" 2>/dev/null | sort -n | sed -n 3p
	done | paste -sd' ' | awk 'NF == 2 && $1 > 0 { printf "%.2f", $2 / $1 }')
	if awk -v r="$r" 'BEGIN { exit !(r != "" && r >= 0.7) }'; then
		pass "user: skiplist lookups of a 64-key aged set cost what dense ones do (aged/dense $r, medians of 5)"
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
	sed -i 's/return idr_find(&r->idr, pid) == xa_mk_value(pid);/return pid % 97 \&\& idr_find(\&r->idr, pid) == xa_mk_value(pid);/' \
		"$u/broken/pidx_idr_ref.c"
	sed -i 's/^#define PIDX_AGED_WRAPS\t\t2$/#define PIDX_AGED_WRAPS\t\t0/' "$u/broken/pidx_shape.h"
	if grep -q 'pid % 97' "$u/broken/pidx_idr_ref.c" &&
		grep -q 'PIDX_AGED_WRAPS		0' "$u/broken/pidx_shape.h" &&
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
	perl -0pi -e 's/idr_ref_visits\(r, nr\);\n\treturn nr;\n\}\n\nstatic int idr_ref_insert/idr_ref_visits(r, nr);\n\treturn nr > 2100 && !(nr % 7) ? nr + r->pid_max : nr;\n}\n\nstatic int idr_ref_insert/' \
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

dkms_tests() {
	section "DKMS against $REL"
	local ver name=pidx ko vm
	ver=$(cat "$REPO/VERSION")
	dkms remove "$name/$ver" --all >/dev/null 2>&1
	rm -rf "/usr/src/$name-$ver"
	if dkms add "$SRC" >"$WORK/dkms.log" 2>&1 &&
		dkms build "$name/$ver" -k "$REL" >>"$WORK/dkms.log" 2>&1 &&
		dkms install "$name/$ver" -k "$REL" --force >>"$WORK/dkms.log" 2>&1; then
		pass "dkms add, build and install"
	else
		fail "dkms add/build/install" "success, saw: $(tail -n 5 "$WORK/dkms.log" | tr '\n' ' ')"
	fi
	ko=$(find "/lib/modules/$REL/updates" -name 'pidx.ko*' 2>/dev/null | head -n 1)
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{ print $1 }')
	expect_eq "dkms module vermagic matches $REL" "$REL" "$vm"
	# one source: dkms.conf reads VERSION, and so does MODULE_VERSION
	expect_eq "dkms package and module version are VERSION's" "$ver $ver" \
		"$(dkms status "$name" 2>/dev/null | sed -n 's|^pidx/\([^,]*\),.*|\1|p' | head -n 1) $(modinfo -F version "$ko" 2>/dev/null)"
	if [ -n "$ko" ]; then
		cp "$ko" "$WORK/pidx-dkms.ko"
		guest "dkms" "$WORK/gdkms" --smp 2 --ko "$WORK/pidx-dkms.ko" --release "$REL" \
			"$REPO/tests/guest/suite.sh" -- smoke
	fi
	dkms remove "$name/$ver" --all >>"$WORK/dkms.log" 2>&1
	if [ -z "$(find "/lib/modules/$REL/updates" -name 'pidx.ko*' 2>/dev/null)" ] &&
		! dkms status 2>/dev/null | grep -q "^$name/"; then
		pass "dkms remove cleans up"
	else
		fail "dkms remove" "no pidx module or dkms entry left, saw: $(dkms status 2>&1 | head -2)"
	fi
	rm -rf "/usr/src/$name-$ver"
}

expect_eq() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected '$2', saw '$3'"; fi
}

# csv_count FILE AWK-CONDITION: rows of a results.csv the condition keeps,
# columns by name (c["verified"], c["substrate"], ...; a missing one is "")
csv_count() {
	awk -F, "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
		function v(n) { return (n in c) ? \$c[n] : \"\" }
		$2 { n++ } END { print n + 0 }" "$1" 2>/dev/null || echo 0
}

bench_plumbing_test() {
	section "make bench plumbing at a tiny size (keys 1K, 2 workloads, 2 repeats): VM, user and cachegrind sweeps"
	local out=$WORK/bench nk nu nc na nka nua
	if "$REPO/scripts/bench.sh" --vm --smp 2 --keys 1K --cpus 1,2 \
		--cpu-sweep-keys 1K --workloads lookup,fork --modes ipi,kthread --ops 2000 --repeat 2 \
		--cg-keys 1K --cg-workloads lookup --cg-indexes idr,skiplist,null --cg-ops 2000 \
		--out "$out" >"$WORK/bench.log" 2>&1 &&
		[ -s "$out/results.csv" ] && [ -s "$out/meta" ] &&
		[ "$(find "$out" -name '*.png' | wc -l)" -ge 3 ] &&
		[ "$(csv_count "$out/results.csv" 'v("verified") == "FAILED"')" = 0 ]; then
		pass "bench --tiny: results.csv, meta and plots, nothing FAILED"
	else
		fail "bench --tiny" "results.csv, meta, 3+ PNGs, saw: $(tail -n 3 "$WORK/bench.log" | tr '\n' ' ')"
	fi
	if grep -q 'VM' "$WORK/bench.log" && grep -qi 'TCG\|emulat' "$out/meta" "$WORK/bench.log"; then
		pass "bench says it used the VM and why"
	else
		fail "bench environment line" "a line naming the VM and TCG, saw: $(head -n 3 "$WORK/bench.log" | tr '\n' ' ')"
	fi
	# under QEMU the main job also runs the user sweep and cachegrind's
	nk=$(csv_count "$out/results.csv" 'v("substrate") == "kernel"')
	nu=$(csv_count "$out/results.csv" 'v("substrate") == "user" && v("pmu") == "off"')
	nc=$(csv_count "$out/results.csv" 'v("substrate") == "user" && v("pmu") == "cachegrind" && v("instructions_per_op") > 0')
	# the user and cachegrind sweeps run dense and aged sets by default,
	# the kernel sweep under QEMU dense only
	na=$(csv_count "$out/results.csv" 'v("substrate") == "user" && v("pmu") == "cachegrind" && v("shape") == "aged"')
	nka=$(csv_count "$out/results.csv" 'v("substrate") == "kernel" && v("shape") != "dense"')
	nua=$(csv_count "$out/results.csv" 'v("substrate") == "user" && v("pmu") == "off" && v("shape") == "aged"')
	if [ "$nk" -gt 0 ] && [ "$nu" -gt 0 ] && [ "$nc" = 6 ] && [ "$na" = 3 ] && [ "$nka" = 0 ] && [ "$nua" -gt 0 ]; then
		pass "bench under QEMU: kernel (dense), user and cachegrind (dense and aged) rows in one results.csv ($nk, $nu, $nc)"
	else
		fail "bench under QEMU: three parts" "kernel rows (dense only), user rows with aged ones, 6 cachegrind rows (3 aged); saw $nk ($nka not dense), $nu ($nua aged), $nc ($na aged)"
	fi
	if grep -qx 'parts=kernel,user,cachegrind' "$out/meta" && grep -q '^part_kernel=.*EMULATED' "$out/meta" &&
		grep -q '^part_cachegrind=.*pmu=cachegrind' "$out/meta" &&
		grep -q 'where the numbers come from' "$WORK/bench.log" &&
		[ -s "$out/user/results.csv" ] && [ -s "$out/cachegrind/results.csv" ]; then
		pass "bench: meta and output say where each part's rows come from"
	else
		fail "bench: where the rows come from" "parts= and part_*= in meta, the summary in the output, user/ and cachegrind/, saw: $(grep '^part' "$out/meta" | cut -c1-80 | tr '\n' ' ')"
	fi
	if [ -s "$out/plots/ratio_to_idr.png" ] && [ -s "$out/plots/user_latency.png" ] &&
		grep -qF 'EMULATED' "$out/plots/ratio_to_idr.svg"; then
		pass "bench: ratio_to_idr and the user rows' figures, the emulated bars named"
	else
		fail "bench: ratio_to_idr" "ratio_to_idr.png, user_latency.png, EMULATED in the SVG, saw: $(find "$out/plots" -name '*.png' -printf '%f ')"
	fi
	# --user alone, natively: seconds
	out=$WORK/bench-user
	if "$REPO/scripts/bench.sh" --user --keys 1K --cpus 1,2 --cpu-sweep-keys 1K \
		--workloads lookup,fork --ops 2000 --repeat 2 --visits no --cachegrind-sweep no \
		--out "$out" >"$WORK/bench-user.log" 2>&1 &&
		grep -qx 'env=user' "$out/meta" && grep -qx 'parts=user' "$out/meta" &&
		[ "$(csv_count "$out/results.csv" 'v("substrate") == "user" && v("verified") != "FAILED"')" -gt 0 ] &&
		[ "$(csv_count "$out/results.csv" 'v("substrate") != "user" || v("verified") == "FAILED"')" = 0 ] &&
		[ -s "$out/plots/latency.png" ]; then
		pass "bench --user: user rows only, verified, meta env=user, plots"
	else
		fail "bench --user" "env=user, parts=user, only verified user rows, plots, saw: $(tail -n 3 "$WORK/bench-user.log" | tr '\n' ' ')"
	fi
	# the user sweep's lookups run batched and dependent by default, the
	# other workloads batched only
	n=$(csv_count "$out/results.csv" 'v("workload") == "lookup" && v("dependent") == 1')
	if [ "$n" -gt 0 ] &&
		[ "$n" = "$(csv_count "$out/results.csv" 'v("workload") == "lookup" && v("dependent") == 0')" ] &&
		[ "$(csv_count "$out/results.csv" 'v("workload") == "fork" && v("dependent") == 1')" = 0 ] &&
		grep -qx 'dependent=0,1' "$out/meta"; then
		pass "bench --user: lookups batched and dependent ($n rows each), fork batched, meta says so"
	else
		fail "bench --user: dependent" "as many dependent=1 as dependent=0 lookup rows, no dependent fork row, dependent=0,1 in meta, saw $n dependent rows, $(grep dependent "$out/meta" | tr '\n' ' ')"
	fi
}

# debug_kernel_tests FLAVOUR: build the checker kernel (once, cached), build the module
# against it and run the guest suite's level of the same name in it.
#   kasan: KASAN, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, DEBUG_LIST, failslab
#   kcsan: KCSAN strict with weak-memory modelling (the concurrent selftest and storms)
debug_kernel_tests() {
	local fl=$1 paths kernel headers d=$WORK/dbg-$1 name opt=() t0 banner
	case $fl in
	kasan) name=debug banner='KernelAddressSanitizer initialized' ;;
	kcsan) name=kcsan opt=(--kcsan) banner='' ;;
	esac
	section "$name kernel (${fl^^}): build once, cached"
	t0=$SECONDS
	if ! paths=$("$REPO/scripts/build-debug-kernel.sh" ${opt[@]+"${opt[@]}"} 2>"$WORK/$name-kernel.log"); then
		fail "$name kernel build" "a built kernel, saw: $(tail -n 3 "$WORK/$name-kernel.log" | tr '\n' ' ')"
		return
	fi
	echo "$name kernel ready after $((SECONDS - t0)) s: $(grep -o 'built .* in [0-9]* s' "$WORK/$name-kernel.log" || echo cached)"
	kernel=$(echo "$paths" | sed -n 's/^KERNEL=//p')
	headers=$(echo "$paths" | sed -n 's/^HEADERS=//p')
	cp -a "$SRC" "$d"
	if build_module "$d" "$headers" W=1 && ! grep -E 'warning:|error:' "$d/build.log"; then
		pass "build W=1 against the $name kernel"
	else
		fail "build against the $name kernel" "no warning, saw: $(grep -E 'warning:|error:' "$d/build.log" | head -3)"
		return
	fi
	# KCSAN starts off: the guest suite switches it on once its report filter is
	# set, so that the core kernel's boot-time races are never reported; a report
	# counts when it stands in pidx or in a lib/ helper pidx called
	[ "$fl" = kcsan ] && opt=("${KCSAN_OPTS[@]}") || opt=()
	guest "$name" "$WORK/g$name" --smp 2 --timeout 2700 --kernel "$kernel" --headers "$headers" \
		${opt[@]+"${opt[@]}"} --ko "$d/pidx.ko" "$REPO/tests/guest/suite.sh" -- "$name"
	# the selftest's concurrent phases alone at 1 and 4 vCPUs (the full
	# level above runs at 2): one writer and a CPU shared, and more CPUs
	# than the host has (KCSAN first sets its filter and dense watchpoints)
	local smp only
	for smp in 1 4; do
		only=(t_racetest)
		# the dense storms are the 2-vCPU boot's: at 4 vCPUs on this 2-core
		# host their watchpoint delays stretched a maple fork batch past the
		# module's 5 s bound (6.7 s seen), which fails the run; at 1 vCPU
		# only an interrupt can meet a watchpoint, and the racetest's
		# hard-irq readers are the phase that makes them meet
		[ "$fl" = kcsan ] && only=(t_kcsan_filter t_kcsan_racetest t_kcsan_active)
		guest "$name ${smp}cpu" "$WORK/g$name$smp" --smp $smp --mem 3072 --timeout 1800 \
			--kernel "$kernel" --headers "$headers" ${opt[@]+"${opt[@]}"} \
			--ko "$d/pidx.ko" "$REPO/tests/guest/suite.sh" -- only "${only[@]}"
	done
	if [ "$fl" = kasan ]; then
		if grep -q "$banner" "$WORK/g$name/dmesg.txt" 2>/dev/null &&
			grep -q 'Lock dependency validator' "$WORK/g$name/dmesg.txt" 2>/dev/null; then
			pass "debug: KASAN and lockdep were active"
		else
			fail "debug: checkers active" "KASAN and lockdep banners in dmesg, saw none"
		fi
	else
		# the guest itself checks KCSAN was switched on and set watchpoints
		kcsan_control "$kernel" "$headers"
		kcsan_library_control "$kernel" "$headers"
	fi
}

# The KCSAN guests' runner options: KCSAN switched on by the suite once its filter is
# set, and the reports that count (scripts/lib.sh has the list of library helpers).
KCSAN_OPTS=(--append kcsan.early_enable=0 --kcsan-module pidx --kcsan-library "$PIDX_KCSAN_LIBRARY")

# The KCSAN pass must be able to fail: without the latch annotation of
# pidx_rbskip.c (KCSAN saw this race before it was added), rbskip's writers race
# its readers' marked loads, and the guest must report it.
kcsan_control() {
	local b=$WORK/kcsan-control
	cp -a "$SRC" "$b"
	sed -i '/^\tkcsan_nestable_atomic_\(begin\|end\)();$/d' "$b/pidx_rbskip.c"
	if grep -q kcsan_nestable_atomic "$b/pidx_rbskip.c" || ! build_module "$b" "$2"; then
		fail "kcsan control: build" "rbskip without its latch annotation"
		return
	fi
	"$REPO/scripts/vm-run.sh" --quiet --out "$b/out" --smp 2 --timeout 900 --kernel "$1" \
		--headers "$2" "${KCSAN_OPTS[@]}" --ko "$b/pidx.ko" \
		"$REPO/tests/guest/suite.sh" -- only t_kcsan_filter t_kcsan_storms \
		>"$b/vm-run.log" 2>&1
	if grep -q 'BUG: KCSAN: data-race in pidx_rbskip' "$b/out/console.log"; then
		pass "kcsan control: an unannotated rbskip latch is reported"
	else
		fail "kcsan control" "a KCSAN data-race report in pidx_rbskip, saw: $(tail -n 2 "$b/vm-run.log" | tr '\n' ' ')"
	fi
}

# The filter must also report a race on pidx's data whose plain access sits in lib/:
# the pidmap's search reads the summary of full words with find_next_zero_bit()
# again (as before issue 30) while other CPUs' claims and releases write it, and
# the runner must fail the boot on that report (kernel problem, exit 125).
kcsan_library_control() {
	local b=$WORK/kcsan-lib-control rc try
	cp -a "$SRC" "$b"
	sed -i -e 's/^\t\tw = pidmap_next_open(pm, w + 1);$/\t\tw = find_next_zero_bit(pm->full, pm->nwords, w + 1);/' \
		-e 's/^static unsigned int pidmap_next_open(/static unsigned int __maybe_unused pidmap_next_open(/' \
		"$b/pidx_pidmap.c"
	if ! grep -q 'find_next_zero_bit(pm->full' "$b/pidx_pidmap.c" || ! build_module "$b" "$2"; then
		fail "kcsan library control: build" "the pidmap scanning its summary with find_next_zero_bit()"
		return
	fi
	# a boot that stopped without its exit marker (126: it was seen once,
	# its log gone with the run) is booted again once, and says so
	for try in 1 2; do
		rm -rf "$b/out"
		"$REPO/scripts/vm-run.sh" --quiet --out "$b/out" --smp 2 --timeout 900 --kernel "$1" \
			--headers "$2" "${KCSAN_OPTS[@]}" --ko "$b/pidx.ko" \
			"$REPO/tests/guest/suite.sh" -- only t_kcsan_filter t_kcsan_pidmap \
			>"$b/vm-run.log" 2>&1
		rc=$?
		if [ $rc != 126 ] || [ $try = 2 ]; then break; fi
		echo "RETRY kcsan library control: the guest stopped without its exit marker: $(tail -n 1 "$b/vm-run.log")"
		cp "$b/vm-run.log" "$b/vm-run.first.log"
	done
	if [ $rc = 125 ] && grep -q 'kernel problem: .*BUG: KCSAN: data-race in .*_find_next_zero_bit' "$b/vm-run.log"; then
		pass "kcsan control: an unmarked read of pidx's bitmap in lib/ is reported"
	else
		fail "kcsan library control" "exit 125 on a KCSAN report in _find_next_zero_bit, saw exit $rc: $(tail -n 2 "$b/vm-run.log" | tr '\n' ' ')"
	fi
}

# shellcheck source=docs.sh
. "$SELF_DIR/docs.sh"

if [ $HOST_AND_STOCK = yes ]; then
	host_tests
	docs_drift_tests
	user_tests
	stock_guest_tests
	docs_recipe_tests
	stall_test
	rt_tests
	broken_index_test
	dkms_tests
	bench_plumbing_test
fi
if [ $DEBUG_KERNEL = yes ]; then
	debug_kernel_tests kasan
	debug_kernel_tests kcsan
fi
[ $USER_ONLY = yes ] && user_tests

echo
echo "suite took $(( $(date +%s) - START )) s"
if [ $failed -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
