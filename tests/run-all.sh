#!/usr/bin/env bash
# The whole pidx test suite (`make check`): host checks (W=1, sparse,
# checkpatch, shellcheck, pyflakes), the real module in Debian's stock kernel
# under QEMU with 2, 1 and 4 vCPUs and in its PREEMPT_RT kernel, a
# deliberately broken index that must be caught, DKMS, plot.py, the bench
# plumbing and the guest suite again under a KASAN + lockdep kernel built
# once and cached.  Each test prints
# "PASS name" or "FAIL name: ..."; the last line is "N passed, N failed".
#
# Usage: tests/run-all.sh [--no-debug-kernel | --debug-kernel-only] [--keep DIR]
set -uo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
export PIDX_PROG=check
# shellcheck source=../scripts/lib.sh
. "$REPO/scripts/lib.sh"

DEBUG_KERNEL=yes
HOST_AND_STOCK=yes
KEEP=
while [ $# -gt 0 ]; do
	case $1 in
	--no-debug-kernel) DEBUG_KERNEL=no ;;
	--debug-kernel-only) HOST_AND_STOCK=no ;;
	--keep) KEEP=$2; shift ;;
	-h|--help) sed -n '2,11p' "$0"; exit 0 ;;
	*) die -c 2 "unknown option $1" ;;
	esac
	shift
done

PKGS=(make gcc libc6-dev libelf-dev qemu-system-x86 busybox-static cpio kmod
      linux-image-cloud-amd64 linux-headers-cloud-amd64 dkms sparse
      python3-matplotlib shellcheck pyflakes3 linux-source-6.1 xz-utils)
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

# Counts the PASS/FAIL lines a sub-test printed; prints the FAIL lines.
count_lines() {
	local prefix=$1 file=$2 line
	while IFS= read -r line; do
		case $line in
		"PASS "*) pass "$prefix${line#PASS }" ;;
		"FAIL "*) line=${line#FAIL }; fail "$prefix${line%%: *}" "${line#*: }" ;;
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
	for f in $(cd "$REPO" && git ls-files --cached --others --exclude-standard '*.c' '*.h'); do
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
	if out=$(pyflakes3 "$REPO/scripts/plot.py" 2>&1); then
		pass "pyflakes3 scripts/plot.py"
	else
		fail "pyflakes3 scripts/plot.py" "no finding, saw: $out"
	fi
	section "plot.py on the committed fixture"
	bash "$REPO/tests/test-plot.sh" >"$WORK/test-plot.log" 2>&1
	count_lines "plot: " "$WORK/test-plot.log"
}

# guest NAME OUTDIR VMRUN-ARGS... -- SUITE-ARGS: boot, count the guest's own tests
guest() {
	local name=$1 out=$2 rc
	shift 2
	mkdir -p "$out"
	"$REPO/scripts/vm-run.sh" --quiet --out "$out" "$@" >"$out/vm-run.log" 2>&1
	rc=$?
	count_lines "$name: " "$out/console.log"
	# the suite exits 3 on its own failures; anything else is the kernel or the runner
	if [ $rc = 0 ] || [ $rc = 3 ]; then
		pass "$name: guest exited cleanly, no kernel warning in its log"
	else
		fail "$name: guest run" "exit 0 with a clean kernel log, saw exit $rc: $(tail -n 3 "$out/vm-run.log" | tr '\n' ' ')"
	fi
	grep -q 'GUEST-SUMMARY' "$out/console.log" ||
		fail "$name: guest summary" "a GUEST-SUMMARY line, saw none"
}

stock_guest_tests() {
	section "guest: stock $REL, 2 vCPUs, full suite"
	guest "2cpu" "$WORK/g2" --smp 2 --ko "$WORK/pidx.ko" --release "$REL" \
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
		"$REPO/tests/guest/suite.sh" -- quick >"$b/vm-run.log" 2>&1
	if grep -q '^FAIL selftest idr' "$b/out/console.log" &&
		grep -q 'lookups disagreeing with the oracle' "$b/out/console.log" &&
		grep -q '^FAIL storm .* idr' "$b/out/console.log" &&
		! grep -q '^FAIL selftest skiplist' "$b/out/console.log"; then
		pass "broken idr lookup: selftest and storms fail, naming lookup"
	else
		fail "broken idr lookup" "FAIL lines for idr selftest (lookups) and storms only, saw: $(grep '^FAIL' "$b/out/console.log" | head -3 | tr '\n' ' ')"
	fi
}

dkms_tests() {
	section "DKMS against $REL"
	local ver name=pidx ko vm
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
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

bench_plumbing_test() {
	section "make bench plumbing at a tiny size (keys 1K, 2 workloads, 2 repeats)"
	local out=$WORK/bench
	if "$REPO/scripts/bench.sh" --vm --smp 2 --keys 1K --cpus 1,2 \
		--cpu-sweep-keys 1K --workloads lookup,fork --modes ipi,kthread --ops 2000 --repeat 2 \
		--out "$out" >"$WORK/bench.log" 2>&1 &&
		[ -s "$out/results.csv" ] && [ -s "$out/meta" ] &&
		[ "$(find "$out" -name '*.png' | wc -l)" -ge 3 ] &&
		! awk -F, 'NR > 1 && $28 == "FAILED"' "$out/results.csv" | grep -q .; then
		pass "bench --tiny: results.csv, meta and plots, nothing FAILED"
	else
		fail "bench --tiny" "results.csv, meta, 3+ PNGs, saw: $(tail -n 3 "$WORK/bench.log" | tr '\n' ' ')"
	fi
	if grep -q 'VM' "$WORK/bench.log" && grep -qi 'TCG\|emulat' "$out/meta" "$WORK/bench.log"; then
		pass "bench says it used the VM and why"
	else
		fail "bench environment line" "a line naming the VM and TCG, saw: $(head -n 3 "$WORK/bench.log" | tr '\n' ' ')"
	fi
}

debug_kernel_tests() {
	section "debug kernel (KASAN, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, DEBUG_LIST): build once, cached"
	local paths kernel headers d=$WORK/dbg
	if ! paths=$("$REPO/scripts/build-debug-kernel.sh" 2>"$WORK/debug-kernel.log"); then
		fail "debug kernel build" "a built kernel, saw: $(tail -n 3 "$WORK/debug-kernel.log" | tr '\n' ' ')"
		return
	fi
	kernel=$(echo "$paths" | sed -n 's/^KERNEL=//p')
	headers=$(echo "$paths" | sed -n 's/^HEADERS=//p')
	cp -a "$SRC" "$d"
	if build_module "$d" "$headers" W=1 && ! grep -E 'warning:|error:' "$d/build.log"; then
		pass "build W=1 against the debug kernel"
	else
		fail "build against the debug kernel" "no warning, saw: $(grep -E 'warning:|error:' "$d/build.log" | head -3)"
		return
	fi
	guest "debug" "$WORK/gdbg" --smp 2 --timeout 1500 --kernel "$kernel" --headers "$headers" \
		--ko "$d/pidx.ko" "$REPO/tests/guest/suite.sh" -- debug
	if grep -q 'KernelAddressSanitizer initialized' "$WORK/gdbg/dmesg.txt" 2>/dev/null &&
		grep -q 'Lock dependency validator' "$WORK/gdbg/dmesg.txt" 2>/dev/null; then
		pass "debug: KASAN and lockdep were active"
	else
		fail "debug: checkers active" "KASAN and lockdep banners in dmesg, saw none"
	fi
}

if [ $HOST_AND_STOCK = yes ]; then
	host_tests
	stock_guest_tests
	rt_tests
	broken_index_test
	dkms_tests
	bench_plumbing_test
fi
[ $DEBUG_KERNEL = yes ] && debug_kernel_tests

echo
echo "suite took $(( $(date +%s) - START )) s"
if [ $failed -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
