#!/usr/bin/env bash
# The whole pidx test suite (`make check`): host checks (W=1, sparse, the
# module's layers, checkpatch, shellcheck, pyflakes), the real module in
# Debian's stock kernel under QEMU with 2 vCPUs on two NUMA nodes, 1 and 4
# vCPUs, and in its PREEMPT_RT kernel, a deliberately broken index and a
# round past the module's bound that must be caught, DKMS, plot.py, the
# bench plumbing and the guest suite again under a KASAN + lockdep kernel
# and a KCSAN kernel, each built once and cached.  Each test prints
# "PASS name" or "FAIL name: ..."; a boot that the VM runner calls a host
# pause is booted again once ("RETRY name: host pause: ...").  The
# user-space checks are tests/user.sh's, the checker kernels'
# tests/checkers.sh's, the documents' tests/docs.sh's.
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
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
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
	make -C "$dir" -j"$(nproc)" KDIR="$kdir" "$@" >"$dir/build.log" 2>&1
}

# rebuild_module DIR KDIR [make args]: make again in a tree just built with
# the same KDIR and compiler flags: Kbuild compiles nothing again (C=2 still
# runs sparse over every file)
rebuild_module() {
	local dir=$1 kdir=$2
	shift 2
	make -C "$dir" -j"$(nproc)" KDIR="$kdir" "$@" >"$dir/build.log" 2>&1
}

# layer_control DIR OBJ SYMBOL WHO WHAT LINE: the objects built, copied to
# DIR, with OBJ replaced by one that calls SYMBOL, must be reported with LINE.
layer_control() {
	local c=$1 obj=$2 sym=$3 who=$4 what=$5 want=$6 out
	printf 'int %s(void *st);\nint pidx_layer_bad(void) { return %s(0); }\n' "$sym" "$sym" >"$c/upward.c"
	if gcc -c -o "$c/$obj" "$c/upward.c" &&
		out=$(/usr/bin/python3 "$REPO/scripts/check-layers.py" --layers "$REPO/layers.txt" "$c" 2>&1); then
		fail "layers control" "$who calling $sym reported, saw exit 0: $(echo "$out" | tail -n 1)"
	elif echo "$out" | grep -q "^$want"; then
		pass "layers control: $what is reported"
	else
		fail "layers control" "a LAYER line for $obj using $sym, saw: $(echo "$out" | head -n 3 | tr '\n' ' ')"
	fi
	cp "$SRC/$obj" "$c/$obj"
}

# The layers of layers.txt over the objects just built, and controls: the
# same objects with pidx_verify.o (a helper, the lowest layer) replaced by
# one that calls the run, and with the selftest's kit replaced by one that
# calls a phase above it, each of which must be reported.
layer_tests() {
	local out c=$WORK/layers-control
	if out=$(/usr/bin/python3 "$REPO/scripts/check-layers.py" --layers "$REPO/layers.txt" "$SRC" 2>&1); then
		pass "layers: every use across files goes down ($(echo "$out" | tail -n 1))"
	else
		fail "layers" "no use of a file in the same or a higher layer, saw: $(echo "$out" | head -n 3 | tr '\n' ' ')"
	fi
	mkdir -p "$c"
	(cd "$SRC" && cp --parents ./*.o selftest/*.o pidx.mod "$c/") 2>/dev/null
	layer_control "$c" pidx_verify.o pidx_run "a helper" "a helper that calls the run" \
		'LAYER pidx_verify.o (helpers) uses pidx_run of pidx_run.o (commands)'
	layer_control "$c" selftest/kit.o pidx_st_basic "the selftest's kit" \
		"the selftest's kit that calls a phase" \
		'LAYER selftest/kit.o (checkkit) uses pidx_st_basic of selftest/seq.o (checks)'
}

host_tests() {
	section "host: build, sparse, checkpatch, linters against $REL"
	if build_module "$SRC" "$KDIR" W=1 && ! grep -E 'warning:|error:' "$SRC/build.log"; then
		pass "build W=1 against $REL without a warning"
	else
		fail "build W=1" "no warning, saw: $(grep -E 'warning:|error:' "$SRC/build.log" | head -3)"
	fi
	# sparse over every file (C=2) of the build just made: the same
	# compiler flags, so nothing is compiled twice
	if rebuild_module "$SRC" "$KDIR" W=1 C=2 && ! grep -E 'warning:|error:' "$SRC/build.log" &&
		[ "$(grep -c '^  CHECK ' "$SRC/build.log")" -gt 20 ]; then
		pass "sparse (C=2) without a warning ($(grep -c '^  CHECK ' "$SRC/build.log") files checked)"
	else
		fail "sparse (C=2)" "no warning, saw: $(grep -E 'warning:|error:' "$SRC/build.log" | head -3)"
	fi
	cp "$SRC/pidx.ko" "$WORK/pidx.ko"
	layer_tests

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
	# the module's files; user/, system/systest/ and system/sysbench/ are user space (user's
	# compat headers must define typedefs and glibc-style code that checkpatch
	# rightly flags in a kernel patch, the test program's signal flags are
	# volatile), built -Wall -Wextra warning-free by user_tests and the system
	# tests instead
	# one checkpatch per file, as many at once as the host has CPUs, each
	# into its own file, then read in order
	local lint=$WORK/lint
	mkdir -p "$lint"
	# shellcheck disable=SC2016 # the inner sh expands them
	(cd "$REPO" && git ls-files --cached --others --exclude-standard '*.c' '*.h' ':!:user/' ':!:system/systest/' ':!:system/sysbench/') |
		xargs -P "$(nproc)" -I{} sh -c '"$1" --strict --no-tree -q -f "$2/$3" >"$4/$(echo "$3" | tr / _).cp" 2>&1' \
			sh "$cp_dir/scripts/checkpatch.pl" "$REPO" {} "$lint"
	for f in $(cd "$REPO" && git ls-files --cached --others --exclude-standard '*.c' '*.h' ':!:user/' ':!:system/systest/' ':!:system/sysbench/'); do
		out=$(cat "$lint/$(echo "$f" | tr / _).cp" 2>/dev/null || echo "no checkpatch output file")
		if [ -z "$out" ]; then
			pass "checkpatch --strict $f"
		else
			fail "checkpatch --strict $f" "nothing, saw: $(echo "$out" | head -4 | tr '\n' ' ')"
		fi
	done
	# the system kernel's series, as patches; each adds or changes files that
	# no MAINTAINERS entry of this tree covers, and says so once
	for f in "$REPO"/system/patches/*.patch; do
		out=$("$cp_dir/scripts/checkpatch.pl" --strict --no-tree -q --ignore FILE_PATH_CHANGES "$f" 2>&1)
		if [ -z "$out" ]; then
			pass "checkpatch --strict ${f#"$REPO"/}"
		else
			fail "checkpatch --strict ${f#"$REPO"/}" "nothing, saw: $(echo "$out" | head -4 | tr '\n' ' ')"
		fi
	done
	# shellcheck disable=SC2016 # the inner sh expands them
	for f in "$REPO"/scripts/*.sh "$REPO"/tests/*.sh "$REPO"/tests/guest/*.sh "$REPO"/.ci/run; do
		[ -f "$f" ] && echo "$f"
	done | xargs -P "$(nproc)" -I{} sh -c 'shellcheck -x -P SCRIPTDIR "$1" >"$2/$(echo "$1" | tr / _).sc" 2>&1; echo $? >"$2/$(echo "$1" | tr / _).sc.rc"' \
		sh {} "$lint"
	for f in "$REPO"/scripts/*.sh "$REPO"/tests/*.sh "$REPO"/tests/guest/*.sh "$REPO"/.ci/run; do
		[ -f "$f" ] || continue
		out=$(cat "$lint/$(echo "$f" | tr / _).sc" 2>/dev/null)
		if [ "$(cat "$lint/$(echo "$f" | tr / _).sc.rc" 2>/dev/null)" = 0 ]; then
			pass "shellcheck ${f#"$REPO"/}"
		else
			fail "shellcheck ${f#"$REPO"/}" "no finding, saw: $(echo "$out" | head -3 | tr '\n' ' ')"
		fi
	done
	for f in "$REPO"/scripts/plot.py "$REPO"/scripts/report.py "$REPO"/scripts/pidxreport/*.py "$REPO"/scripts/pidxplot/*.py \
		"$REPO"/scripts/check-trace.py "$REPO"/scripts/system-rows.py "$REPO"/tests/test_report.py \
		"$REPO"/tests/test_report_slow.py "$REPO"/tests/test_system_report.py "$REPO"/tests/reportkit.py; do
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
	section "report.py on slow rows: left out of every comparison, listed with bound and time"
	/usr/bin/python3 "$REPO/tests/test_report_slow.py" >"$WORK/test-report-slow.log" 2>&1
	count_lines "report: " "$WORK/test-report-slow.log"
	grep -q '^PASS' "$WORK/test-report-slow.log" ||
		fail "report: test_report_slow.py" "PASS lines, saw: $(tail -n 3 "$WORK/test-report-slow.log" | tr '\n' ' ')"
	section "the System view's rows, ratios and verdicts on synthetic records of known answer"
	/usr/bin/python3 "$REPO/tests/test_system_report.py" >"$WORK/test-system-report.log" 2>&1
	count_lines "report: " "$WORK/test-system-report.log"
	grep -q '^PASS' "$WORK/test-system-report.log" ||
		fail "report: test_system_report.py" "PASS lines, saw: $(tail -n 3 "$WORK/test-system-report.log" | tr '\n' ' ')"
	section "the VM runner's verdicts on the host-pause and KCSAN fixtures (no boot)"
	bash "$REPO/tests/test-runner.sh" >"$WORK/test-runner.log" 2>&1
	count_lines "runner: " "$WORK/test-runner.log"
	section "the PID trace recorder and validator on this kernel's tracefs"
	bash "$REPO/tests/test-record-trace.sh" >"$WORK/test-record-trace.log" 2>&1
	count_lines "trace: " "$WORK/test-record-trace.log"
	grep '^SKIP' "$WORK/test-record-trace.log" || true
	grep -q -e '^PASS' -e '^SKIP' "$WORK/test-record-trace.log" ||
		fail "trace: test-record-trace.sh" "PASS or SKIP lines, saw: $(tail -n 3 "$WORK/test-record-trace.log" | tr '\n' ' ')"
	# results/traces/README.md is what traces-readme.sh writes from the traces
	rm -rf "$WORK/traces" && cp -a "$REPO/results/traces" "$WORK/traces"
	if bash "$REPO/scripts/traces-readme.sh" "$WORK/traces" >"$WORK/traces-readme.log" 2>&1 &&
		cmp -s "$WORK/traces/README.md" "$REPO/results/traces/README.md"; then
		pass "trace: results/traces/README.md is traces-readme.sh's output"
	else
		fail "trace: results/traces/README.md" "traces-readme.sh's output, saw: $(diff "$REPO/results/traces/README.md" "$WORK/traces/README.md" 2>&1 | head -n 4 | tr '\n' ' ')"
	fi
	for f in "$REPO"/results/traces/*.trace.xz; do
		if out=$(/usr/bin/python3 "$REPO/scripts/check-trace.py" "$f" 2>&1); then
			pass "trace: ${f#"$REPO"/} is valid ($(echo "$out" | head -n 1))"
		else
			fail "trace: ${f#"$REPO"/}" "check-trace.py accepts it, saw: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
		fi
	done
}

# plot.py's tests on its fixtures need neither a guest nor a quiet host
# (verified, not timed against a bound): they run beside the 1-vCPU guest,
# which leaves the host a core, into a log counted when the guest is done
# (host_side_end).
host_side_start() {
	(
		section "plot.py on the committed fixture"
		bash "$REPO/tests/test-plot.sh" >"$WORK/test-plot.log" 2>&1
		sed -n 's/^\(PASS\|FAIL\) /\1 plot: /p' "$WORK/test-plot.log"
	) >"$WORK/host-side.log" 2>&1 &
	HOST_SIDE_PID=$!
}

host_side_end() {
	wait "$HOST_SIDE_PID"
	grep '^== ' "$WORK/host-side.log"
	count_lines "" "$WORK/host-side.log"
	grep -q '^PASS plot: ' "$WORK/host-side.log" ||
		fail "plot: test-plot.sh" "PASS lines, saw: $(tail -n 3 "$WORK/test-plot.log" | tr '\n' ' ')"
}

# beside_start FUNCTION ARGS...: FUNCTION in the background, its output into
# a log and its counts and failures kept apart, for beside_end to print and
# add (one at a time)
beside_start() {
	BESIDE_LOG=$WORK/beside-$1-$2
	# shellcheck disable=SC2030 # the subshell's own counts, written out below
	(
		passed=0
		failed=0
		failures=()
		"$@"
		echo "$passed $failed" >"$BESIDE_LOG.counts"
		printf '%s\n' ${failures[@]+"${failures[@]}"} >"$BESIDE_LOG.failures"
	) >"$BESIDE_LOG.log" 2>&1 &
	BESIDE_PID=$!
}

beside_end() {
	local p f name
	[ -n "${BESIDE_PID:-}" ] || return 0
	wait "$BESIDE_PID"
	BESIDE_PID=
	cat "$BESIDE_LOG.log"
	if ! read -r p f <"$BESIDE_LOG.counts" 2>/dev/null; then
		fail "beside: ${BESIDE_LOG##*/beside-}" "its counts, saw none: $(tail -n 2 "$BESIDE_LOG.log" | tr '\n' ' ')"
		return
	fi
	# shellcheck disable=SC2031 # the parent's counts, which beside_start's subshell never touched
	passed=$((passed + p))
	# shellcheck disable=SC2031
	failed=$((failed + f))
	while IFS= read -r name; do
		# shellcheck disable=SC2031
		[ -z "$name" ] || failures+=("$name")
	done <"$BESIDE_LOG.failures"
}

# vm-run.sh's exit status for a failed boot that a host pause explains: evidence of one
# (a vCPU without a host CPU, a long hrtimer interrupt, a stall outside every pidx run
# with its CPU idle or in user space) and none of a guest fault
HOST_PAUSE_RC=123
# and for a kernel that faulted in its own boot, before /init (so before pidx.ko)
BOOT_FAULT_RC=122

# boot NAME OUTDIR VMRUN-ARGS...: one vm-run.sh, booted again once if it says host pause
# or boot fault; prints "RETRY NAME: <why>: <evidence>" then, with the console around the
# fault, and leaves the first try in OUTDIR.try1.  Returns the status of the last boot;
# FIRST_RC is the first one's.
boot() {
	local name=$1 out=$2 rc ev
	shift 2
	mkdir -p "$out"
	"$REPO/scripts/vm-run.sh" --quiet --out "$out" "$@" >"$out/vm-run.log" 2>&1
	rc=$?
	FIRST_RC=$rc
	if [ $rc = $HOST_PAUSE_RC ] || [ $rc = $BOOT_FAULT_RC ]; then
		if [ $rc = $HOST_PAUSE_RC ]; then
			ev="host pause: $(sed -n 's/^vm-run: host pause: //p' "$out/vm-run.log" | head -n 1)"
		else
			ev="boot fault: $(sed -n 's/^vm-run: FAIL: //p' "$out/vm-run.log" | tail -n 1)"
		fi
		echo "RETRY $name: $ev"
		show_problem "$out"
		rm -rf "$out.try1"
		mv "$out" "$out.try1"
		mkdir -p "$out"
		"$REPO/scripts/vm-run.sh" --quiet --out "$out" "$@" >"$out/vm-run.log" 2>&1
		rc=$?
	fi
	return $rc
}

# show_problem OUTDIR: the console lines around a failed boot's first kernel problem,
# indented, for a log that CI keeps when the run's directory is gone
show_problem() {
	local n
	n=$(grep -a -n -F -m1 -e 'WARNING:' -e 'BUG:' -e 'Oops' -e 'Kernel panic' -e 'Call Trace' \
		-e 'rcu: INFO' -e 'soft lockup' -e 'hung_task' "$1/console.log" 2>/dev/null | cut -d: -f1)
	[ -n "$n" ] || return 0
	echo "  console of $1 around its first kernel problem (line $n):"
	sed -n "$((n > 12 ? n - 12 : 1)),$((n + 30))p" "$1/console.log" | grep -a -v '^[A-Za-z0-9+/=]\{60,\}$' |
		sed 's/^/  | /'
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
	elif [ $rc = $HOST_PAUSE_RC ] || [ $rc = $BOOT_FAULT_RC ]; then
		fail "$name: guest run" "a clean boot after one retry, saw a second failure: $(tail -n 3 "$out/vm-run.log" | tr '\n' ' ')"
		show_problem "$out"
	else
		fail "$name: guest run" "exit 0 with a clean kernel log, saw exit $rc: $(tail -n 3 "$out/vm-run.log" | tr '\n' ' ')"
		show_problem "$out"
	fi
	grep -q 'GUEST-SUMMARY' "$out/console.log" ||
		fail "$name: guest summary" "a GUEST-SUMMARY line, saw none"
}

stock_guest_tests() {
	section "guest: 1 vCPU, quick suite, beside the host-side checks"
	host_side_start
	guest "1cpu" "$WORK/g1" --smp 1 --ko "$WORK/pidx.ko" --release "$REL" \
		"$REPO/tests/guest/suite.sh" -- quick
	host_side_end

	section "guest: stock $REL, 2 vCPUs on two NUMA nodes, full suite"
	# one boot for the full suite and the placement tests: every setting's
	# values, node 1 and interleave included, and the selftests under the
	# settings that shape the indexes need two nodes, and nothing in the
	# full level needs one (the 1- and 4-vCPU boots have one node).
	# 281 s idle, 361 s beside two CPU loops: vm-run's default 600 s would
	# leave a host 2x slower than ours no room
	guest "2cpu" "$WORK/g2" --smp 2 --numa --timeout 1800 --ko "$WORK/pidx.ko" --release "$REL" \
		"$REPO/tests/guest/suite.sh" -- full
	# the selftest here under the tall settings on node 1, which the 2-vCPU
	# boot's t_settings leaves to it: the defaults' is the 1-vCPU and rt
	# boots'; interleave on one node is the 1-vCPU boot's
	section "guest: 4 vCPUs on two NUMA nodes: the selftest under tall settings, the matrix"
	guest "4cpu" "$WORK/g4" --smp 4 --numa --mem 3072 --ko "$WORK/pidx.ko" --release "$REL" \
		"$REPO/tests/guest/suite.sh" -- only t_selftest_tall t_matrix

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
# off in ipi mode, must be caught by the module's 5 s bound (a row verified=slow, naming
# the bound and its figure: the storm itself verified), through boot()'s host-pause retry
# and without it.  The kernel's detectors are made quick here (stall warnings after 3 s,
# soft lockups after 2 s) so that they speak too, inside the run: that must never read as
# a host pause.
stall_test() {
	section "a round past the module's bound must be caught (slow), and is no host pause"
	local o=$WORK/gstall rc
	boot stall "$o" --smp 2 --ko "$WORK/pidx.ko" --release "$REL" \
		--append "rcupdate.rcu_cpu_stall_timeout=3 watchdog_thresh=1" \
		"$REPO/tests/guest/stall.sh" -- 8000
	rc=$?
	if grep -q '^SLOW stall ipi: CPU [0-9]* kept interrupts off [0-9]* ms in one ipi round (bound [0-9]* ms)' "$o/console.log" &&
		grep -q '^SLOW stall kthread: CPU [0-9]* took [0-9]* ms over one kthread batch (bound [0-9]* ms)' "$o/console.log" &&
		[ "$(grep -c '^results.csv verified=slow ' "$o/console.log")" = 2 ]; then
		pass "stall: ipi and kthread storms past the bound are slow, naming the bound and the figure"
	else
		fail "stall: slow verdicts" "slow rows of ipi and kthread storms with the figure, verified=slow twice, saw: $(grep 'stall' "$o/console.log" | grep -v '^\[' | head -3 | tr '\n' ' ')"
	fi
	if [ "$FIRST_RC" != 0 ] && [ "$FIRST_RC" != $HOST_PAUSE_RC ] && [ "$rc" != 0 ] && [ "$rc" != $HOST_PAUSE_RC ] &&
		[ "$rc" != $BOOT_FAULT_RC ]; then
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
	sed -i 's/\treturn idr_find(&r->idr, pid);/\treturn pid % 97 ? idr_find(\&r->idr, pid) : NULL;/' \
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
	# the same boot's storms past the module's bound (t_slow_verdict): slow when
	# they verified, FAILED, for what was wrong, when they did not
	if [ "$(grep -c '^PASS slow: ' "$b/out/console.log")" -ge 5 ] &&
		grep -q '^PASS slow: a wrong result past the bound is FAILED' "$b/out/console.log" &&
		! grep -q '^FAIL slow' "$b/out/console.log"; then
		pass "past the bound: a verified storm is slow, naming bound and time; a wrong one FAILED"
	else
		fail "past the bound" "PASS slow lines, FAILED for the broken idr, saw: $(grep 'slow' "$b/out/console.log" | grep -v '^\[' | head -4 | tr '\n' ' ')"
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

# traces_named DIR PART NAME COND: the rows of COND replayed trace NAME,
# none FAILED (null verifies nothing), with as many indexes as the part's lookup rows have, and the
# report has a row for NAME
traces_named() {
	local f=$1/results.csv n ni nl
	n=$(csv_count "$f" "$4 && v(\"workload\") == \"replay\" && index(v(\"extra\"), \"trace_name=$3;\") == 1 && v(\"verified\") != \"FAILED\"")
	ni=$(awk -F, -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["workload"] == "replay" && index($c["extra"], "trace_name=" name ";") == 1 { print $c["index"] }' "$f" | sort -u | wc -l)
	nl=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["workload"] == "lookup" && $c["substrate"] == part { print $c["index"] }' part="$2" "$f" | sort -u | wc -l)
	if [ "$n" -gt 0 ] && [ "$ni" = "$nl" ] &&
		[ "$(csv_count "$f" "$4 && v(\"workload\") == \"replay\" && v(\"verified\") == \"FAILED\"")" = 0 ] &&
		grep -q "| $3 |" "$1/REPORT.md"; then
		pass "bench --traces ($2): $3 replayed by all $ni indexes ($n rows, verified, named), in the report"
	else
		fail "bench --traces ($2)" "$3's replay rows verified for every index ($nl), in REPORT.md; saw $n rows, $ni indexes"
	fi
}

bench_plumbing_test() {
	section "make bench plumbing at a tiny size (keys 1K, 2 workloads, 2 repeats): VM, user and cachegrind sweeps"
	local out=$WORK/bench nk nu nc na nka nua
	if "$REPO/scripts/bench.sh" --vm --smp 2 --keys 1K --cpus 1,2 \
		--cpu-sweep-keys 1K --workloads lookup,fork --modes ipi,kthread --ops 2000 --repeat 2 \
		--cg-keys 1K --cg-workloads lookup --cg-indexes idr,skiplist,null --cg-ops 2000 --cg-shapes dense,aged \
		--traces "$REPO/tests/fixtures/trace-small.txt" \
		--system-parts native --system-repeat 2 --system-seconds 0.1 \
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
	# the user sweep runs dense and aged sets by default (cachegrind's here
	# as asked), the kernel sweep under QEMU dense only
	na=$(csv_count "$out/results.csv" 'v("substrate") == "user" && v("pmu") == "cachegrind" && v("shape") == "aged"')
	nka=$(csv_count "$out/results.csv" 'v("substrate") == "kernel" && v("shape") != "dense"')
	nua=$(csv_count "$out/results.csv" 'v("substrate") == "user" && v("pmu") == "off" && v("shape") == "aged"')
	if [ "$nk" -gt 0 ] && [ "$nu" -gt 0 ] && [ "$nc" = 6 ] && [ "$na" = 3 ] && [ "$nka" = 0 ] && [ "$nua" -gt 0 ]; then
		pass "bench under QEMU: kernel (dense), user and cachegrind (dense and aged) rows in one results.csv ($nk, $nu, $nc)"
	else
		fail "bench under QEMU: three parts" "kernel rows (dense only), user rows with aged ones, 6 cachegrind rows (3 aged); saw $nk ($nka not dense), $nu ($nua aged), $nc ($na aged)"
	fi
	# --traces: the trace loaded through debugfs in the VM, read from its
	# file by pidx-user; every index replays it, rows named, none in the
	# cachegrind sweep
	traces_named "$out" kernel trace-small 'v("substrate") == "kernel"'
	traces_named "$out" user trace-small 'v("substrate") == "user" && v("pmu") == "off"'
	if [ "$(csv_count "$out/results.csv" 'v("workload") == "replay" && v("pmu") == "cachegrind"')" = 0 ] &&
		grep -qx 'traces=trace-small' "$out/meta"; then
		pass "bench --traces: no replay under cachegrind, meta names the trace"
	else
		fail "bench --traces: meta" "traces=trace-small in meta, no cachegrind replay row, saw: $(grep trace "$out/meta" | tr '\n' ' ')"
	fi
	if grep -qx 'parts=kernel,user,cachegrind,system' "$out/meta" && grep -q '^part_kernel=.*EMULATED' "$out/meta" &&
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
	# the system part: its native bound, its rows in results.csv beside the
	# others' (and left out of theirs), the System view in REPORT.md
	n=$(csv_count "$out/results.csv" 'v("substrate") == "system-native"')
	if [ "$n" = $((2 * 6)) ] && [ -s "$out/system/bound.csv" ] &&
		grep -q '^part_system=.*system-native' "$out/meta" &&
		grep -q '^### The native bound' "$out/REPORT.md" &&
		! grep -q 'system-native' "$out/plots/ratio_to_idr.svg"; then
		pass "bench: the system part's native bound ($n rows), its files in system/, the System view in REPORT.md"
	else
		fail "bench: the system part" "12 system-native rows, system/bound.csv, part_system= in meta, a System view, saw $n rows: $(grep '^part_system' "$out/meta" | cut -c1-80)"
	fi
	# --user alone, natively: seconds
	out=$WORK/bench-user
	if "$REPO/scripts/bench.sh" --user --keys 1K --cpus 1,2 --cpu-sweep-keys 1K \
		--workloads lookup,fork --ops 2000 --repeat 2 --visits no --cachegrind-sweep no --dependent 0,1 \
		--dists uniform,zipf:0.99 --levels 1,3 --traces "$REPO/results/traces/make-j2-user.trace.xz" \
		--out "$out" >"$WORK/bench-user.log" 2>&1 &&
		grep -qx 'env=user' "$out/meta" && grep -qx 'parts=user' "$out/meta" &&
		[ "$(csv_count "$out/results.csv" 'v("substrate") == "user" && v("verified") != "FAILED"')" -gt 0 ] &&
		[ "$(csv_count "$out/results.csv" 'v("substrate") != "user" || v("verified") == "FAILED"')" = 0 ] &&
		[ -s "$out/plots/latency.png" ]; then
		pass "bench --user: user rows only, verified, meta env=user, plots"
	else
		fail "bench --user" "env=user, parts=user, only verified user rows, plots, saw: $(tail -n 3 "$WORK/bench-user.log" | tr '\n' ' ')"
	fi
	# --dependent 0,1 (the full sweep's default): the lookups run batched and
	# dependent, the other workloads batched only
	n=$(csv_count "$out/results.csv" 'v("workload") == "lookup" && v("dependent") == 1')
	if [ "$n" -gt 0 ] &&
		[ "$n" = "$(csv_count "$out/results.csv" 'v("workload") == "lookup" && v("dependent") == 0')" ] &&
		[ "$(csv_count "$out/results.csv" 'v("workload") == "fork" && v("dependent") == 1')" = 0 ] &&
		grep -qx 'dependent=0,1' "$out/meta"; then
		pass "bench --user: lookups batched and dependent ($n rows each), fork batched, meta says so"
	else
		fail "bench --user: dependent" "as many dependent=1 as dependent=0 lookup rows, no dependent fork row, dependent=0,1 in meta, saw $n dependent rows, $(grep dependent "$out/meta" | tr '\n' ' ')"
	fi
	traces_named "$out" user make-j2-user 'v("substrate") == "user"'
	# --levels: the keys sweep's lookups and forks once per value, the
	# rest at one level; the report sets 1 against 3
	n=$(csv_count "$out/results.csv" 'v("workload") == "fork" && v("levels") == 3 && v("verified") != "FAILED"')
	if [ "$n" -gt 0 ] &&
		[ "$(csv_count "$out/results.csv" 'v("workload") == "lookup" && v("levels") == 3')" -gt 0 ] &&
		[ "$(csv_count "$out/results.csv" 'v("workload") == "replay" && v("levels") != 1')" = 0 ] &&
		grep -qx 'levels=1,3' "$out/meta" &&
		grep -q '^| fork | 1K[^|]* | 1 → 3 | ' "$out/REPORT.md"; then
		pass "bench --user --levels 1,3: lookups and forks at 3 levels too ($n fork rows), replays at 1, meta and REPORT.md say so"
	else
		fail "bench --user --levels" "fork and lookup rows at levels 3, replays at 1, levels=1,3 in meta, the report's levels table, saw $n fork rows, $(grep levels "$out/meta" | tr '\n' ' ')"
	fi
	# --dists: the keys sweep's lookups once per dist, the rest uniform or n/a
	n=$(csv_count "$out/results.csv" 'v("workload") == "lookup" && v("dist") == "zipf:0.99" && v("verified") != "FAILED"')
	if [ "$n" -gt 0 ] &&
		[ "$(csv_count "$out/results.csv" 'v("workload") == "fork" && v("dist") != "n/a"')" = 0 ] &&
		[ "$(csv_count "$out/results.csv" 'v("workload") == "lookup" && v("dist") == "uniform"')" -gt "$n" ] &&
		grep -qx 'dists=uniform,zipf:0.99' "$out/meta"; then
		pass "bench --user --dists: the keys sweep's lookups also under zipf:0.99 ($n rows), fork n/a, meta says so"
	else
		fail "bench --user --dists" "zipf:0.99 lookup rows, fork rows n/a, more uniform lookup rows (the CPU sweep's), dists= in meta, saw $n zipf rows, $(grep dists "$out/meta" | tr '\n' ' ')"
	fi
}

# shellcheck source=user.sh
. "$SELF_DIR/user.sh"
# shellcheck source=sysbench.sh
. "$SELF_DIR/sysbench.sh"
# shellcheck source=checkers.sh
. "$SELF_DIR/checkers.sh"
# shellcheck source=docs.sh
. "$SELF_DIR/docs.sh"

# The KASAN guest, the longest boot, runs beside the stock kernel's last
# groups and the user-space tests, none of them timed against a bound: a
# 2-vCPU guest under a checker keeps one host core busy most of the time.
# The timed ones (the 2- and 4-vCPU boots' races and bounds, the stall)
# run before it, and the KCSAN guests after it, alone: its controls must
# see two vCPUs race.
if [ $HOST_AND_STOCK = yes ]; then
	host_tests
	docs_drift_tests
	stock_guest_tests
	stall_test
	if [ $DEBUG_KERNEL = yes ]; then
		checker_kernels
		beside_start debug_kernel_tests kasan
	fi
	docs_recipe_tests
	rt_tests
	broken_index_test
	dkms_tests
	bench_plumbing_test
	user_tests
	sysbench_tests
	beside_end
	[ $DEBUG_KERNEL = no ] || debug_kernel_tests kcsan
elif [ $DEBUG_KERNEL = yes ]; then
	debug_kernel_tests kasan
	debug_kernel_tests kcsan
fi
if [ $USER_ONLY = yes ]; then
	user_tests
	sysbench_tests
fi

echo
echo "suite took $(( $(date +%s) - START )) s"
if [ $failed -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
