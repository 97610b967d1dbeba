# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# checkers.sh: the guest suite under the checker kernels, sourced by
# tests/run-all.sh (its pass, fail, section, guest, build_module, REPO, SRC,
# WORK): each kernel built once and cached by scripts/build-debug-kernel.sh,
# the module built against it, its level booted, and the KCSAN controls
# that must be reported, so that the KCSAN pass can fail.
#   checker_kernels
#   debug_kernel_tests kasan|kcsan

# checker_kernels: both checker kernels built (once, cached) before a guest
# of theirs runs beside other groups, so that a first build's compiles never
# share the host with a timed boot; debug_kernel_tests reports a failed build
checker_kernels() {
	local fl t0 rc opt
	section "checker kernels (KASAN, KCSAN): build once, cached"
	for fl in kasan kcsan; do
		t0=$SECONDS
		opt=
		[ $fl = kasan ] || opt=--kcsan
		"$REPO/scripts/build-debug-kernel.sh" $opt >/dev/null 2>"$WORK/$fl-prebuild.log"
		rc=$?
		echo "$fl kernel after $((SECONDS - t0)) s, exit $rc: $(grep -o 'built .* in [0-9]* s' "$WORK/$fl-prebuild.log" || echo cached)"
	done
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
	system_payload "$headers" || return
	# KCSAN starts off: the guest suite switches it on once its report filter is
	# set, so that the core kernel's boot-time races are never reported; a report
	# counts when it stands in pidx, in a lib/ helper pidx called, or in the
	# series' kernel/pidx/.  The boot's pidx.index= is one the kernel must
	# refuse (KASAN) or does not know (KCSAN): the initial namespace stays idr,
	# and the suite checks that dmesg says so.
	if [ "$fl" = kcsan ]; then
		opt=("${KCSAN_OPTS[@]}" --kcsan-builtin "$WORK/kcsan-builtin"
			--append "$KCSAN_APPEND pidx.index=nosuch")
	else
		opt=(--append pidx.index=maple)
	fi
	guest "$name" "$WORK/g$name" --smp 2 --timeout 2700 --kernel "$kernel" --headers "$headers" \
		"${opt[@]}" --file "$WORK/systest/pidx-systest" --file "$WORK/sysbench/pidx-sysbench" --ko "$d/pidx.ko" \
		"$REPO/tests/guest/suite.sh" -- "$name"
	# One boot whose own index is one of the series' (skiplist under KASAN
	# and lockdep, lfradix, lockless, under KCSAN): init, the shell, the
	# module's selftest and pidx-systest all take their PIDs from it.
	local own=skiplist
	[ "$fl" = kcsan ] && own=lfradix
	[ "$fl" = kcsan ] && opt=("${KCSAN_OPTS[@]}" --kcsan-builtin "$WORK/kcsan-builtin"
		--append "$KCSAN_APPEND pidx.index=$own") || opt=(--append "pidx.index=$own")
	guest "$name-$own" "$WORK/g$name-$own" --smp 2 --timeout 1800 --kernel "$kernel" \
		--headers "$headers" "${opt[@]}" --file "$WORK/systest/pidx-systest" --file "$WORK/sysbench/pidx-sysbench" \
		--ko "$d/pidx.ko" "$REPO/tests/guest/suite.sh" -- own "$own"
	# The selftest's concurrent phases run at 2 vCPUs under each checker,
	# not again at 1 and 4: the same phases on the same kernel (the stock
	# kernel runs them at 1 and 4 vCPUs; docs/testing.md, "What make check
	# leaves out").
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
KCSAN_APPEND=kcsan.early_enable=0
KCSAN_OPTS=(--append "$KCSAN_APPEND" --kcsan-module pidx --kcsan-library "$PIDX_KCSAN_LIBRARY")

# system_payload HEADERS: what the system tests take into a checker guest (the
# kernel carries the series, system/patches/): pidx-systest, built statically
# once, and the names of the series' functions in the kernel, for KCSAN's
# report filter (vm-run.sh --kcsan-builtin)
system_payload() {
	if [ ! -x "$WORK/systest/pidx-systest" ]; then
		rm -rf "$WORK/systest"
		cp -a "$SRC/system/systest" "$WORK/systest"
		if make -s -C "$WORK/systest" >"$WORK/systest.log" 2>&1 &&
			! grep -E 'warning:|error:' "$WORK/systest.log"; then
			pass "system: pidx-systest builds statically, without a warning"
		else
			fail "system: pidx-systest build" "no warning, saw: $(grep -E 'warning:|error:|Error' "$WORK/systest.log" | head -3)"
			return 1
		fi
	fi
	# the system benchmark's program, run small by the guest's t_system_bench
	if [ ! -x "$WORK/sysbench/pidx-sysbench" ]; then
		rm -rf "$WORK/sysbench"
		cp -a "$SRC/system/sysbench" "$WORK/sysbench"
		make -s -C "$WORK/sysbench" clean >/dev/null 2>&1
		make -s -C "$WORK/sysbench" >"$WORK/sysbench.log" 2>&1 ||
			fail "system: pidx-sysbench build" "a built program, saw: $(tail -n 3 "$WORK/sysbench.log" | tr '\n' ' ')"
	fi
	# the series' kernel/pidx/ as this tree has it, W=1 and sparse, as objects
	# outside the kernel (obj-y: built as the kernel's, without MODULE)
	local k objs=() f
	k=$WORK/kpidx-$(basename "$(dirname "$1")")
	rm -rf "$k" && mkdir -p "$k"
	cp "$1"/kernel/pidx/*.[ch] "$k/"
	# shellcheck disable=SC2016 # make's variables, not the shell's
	sed 's|-I$(srctree)/$(src)|-I$(src)|' "$SRC/system/Kbuild.kernel" >"$k/Kbuild"
	for f in "$k"/*.c; do objs+=("$(basename "$f" .c).o"); done
	if make -C "$1" M="$k" W=1 C=2 "${objs[@]}" >"$k/build.log" 2>&1 &&
		! grep -E 'warning:|error:' "$k/build.log"; then
		pass "system: kernel/pidx/ builds with W=1 and sparse against $(basename "$(dirname "$1")") without a warning"
	else
		fail "system: kernel/pidx/ W=1 C=2" "no warning, saw: $(grep -E 'warning:|error:|Error' "$k/build.log" | head -3)"
	fi
	nm "$1"/kernel/pidx/*.o 2>/dev/null | awk '$2 == "t" || $2 == "T" { print $3 }' |
		sort -u >"$WORK/kcsan-builtin"
	if [ ! -s "$WORK/kcsan-builtin" ]; then
		fail "system: the series' functions" "kernel/pidx/*.o in $1 (a kernel with system/patches/), saw none"
		return 1
	fi
}

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
	boot "kcsan control" "$b/out" --smp 2 --timeout 900 --kernel "$1" \
		--headers "$2" "${KCSAN_OPTS[@]}" --ko "$b/pidx.ko" \
		"$REPO/tests/guest/suite.sh" -- only t_kcsan_filter t_kcsan_storms
	if grep -q 'BUG: KCSAN: data-race in pidx_rbskip' "$b/out/console.log"; then
		pass "kcsan control: an unannotated rbskip latch is reported"
	else
		fail "kcsan control" "a KCSAN data-race report in pidx_rbskip, saw: $(tail -n 2 "$b/out/vm-run.log" | tr '\n' ' ')"
		show_problem "$b/out"
	fi
}

# The filter must also report a race on pidx's data whose plain access sits in lib/:
# the pidmap's search reads the summary of full words with find_next_zero_bit()
# again (as before issue 30) while other CPUs' claims and releases write it, and
# the runner must fail the boot on that report (kernel problem, exit 125).
kcsan_library_control() {
	local b=$WORK/kcsan-lib-control rc
	cp -a "$SRC" "$b"
	sed -i -e 's/^\t\tw = pidmap_next_open(pm, w + 1);$/\t\tw = find_next_zero_bit(pm->full, pm->nwords, w + 1);/' \
		-e 's/^static unsigned int pidmap_next_open(/static unsigned int __maybe_unused pidmap_next_open(/' \
		"$b/pidx_pidmap.c"
	if ! grep -q 'find_next_zero_bit(pm->full' "$b/pidx_pidmap.c" || ! build_module "$b" "$2"; then
		fail "kcsan library control: build" "the pidmap scanning its summary with find_next_zero_bit()"
		return
	fi
	boot "kcsan library control" "$b/out" --smp 2 --timeout 900 --kernel "$1" \
		--headers "$2" "${KCSAN_OPTS[@]}" --ko "$b/pidx.ko" \
		"$REPO/tests/guest/suite.sh" -- only t_kcsan_filter t_kcsan_pidmap
	rc=$?
	if [ $rc = 125 ] && grep -q 'kernel problem: .*BUG: KCSAN: data-race in .*_find_next_zero_bit' "$b/out/vm-run.log"; then
		pass "kcsan control: an unmarked read of pidx's bitmap in lib/ is reported"
	else
		fail "kcsan library control" "exit 125 on a KCSAN report in _find_next_zero_bit, saw exit $rc: $(tail -n 2 "$b/out/vm-run.log" | tr '\n' ' ')"
		show_problem "$b/out"
	fi
}
