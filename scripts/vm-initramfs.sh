# shellcheck shell=bash disable=SC2154 # vm-run.sh's settings, set before it packs
# SPDX-License-Identifier: GPL-2.0
#
# vm-initramfs.sh: the initramfs of scripts/vm-run.sh, sourced by it: a busybox skeleton
# with scripts/guest-init.sh as /init, the guest scripts and their libraries, the module,
# the run's facts, packed as gzip'd newc cpio with /dev/console written by hand (no root
# needed).  Apart, so that vm-run.sh reads as the run: kernel, boot, console, verdict.
# The functions read vm-run.sh's settings (guest, ko, files, gargs, busybox, tmp, ...);
# nothing here runs at source time.

# A newc cpio entry written by hand: /dev/console must exist in the initramfs for the kernel
# to give /init a console, and making the device node for cpio would need root.
cpio_entry() { # NAME MODE(octal) RDEVMAJOR RDEVMINOR
	local name=$1 mode=$((8#$2)) ns=$((${#1} + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		1 "$mode" 0 0 1 0 0 0 0 "$3" "$4" "$ns" 0
	printf '%s\0' "$name"
	head -c $(((4 - (110 + ns) % 4) % 4)) /dev/zero
}
dev_console_cpio() {
	cpio_entry dev/console 20600 5 1
	cpio_entry TRAILER!!! 0 0 0
}

# The static busybox (a dynamic one would need its libraries in the initramfs).
find_busybox() {
	local b l
	for b in /bin/busybox /usr/bin/busybox; do
		[ -x "$b" ] || continue
		l=$(LC_ALL=C ldd "$b" 2>&1 || true) # ldd fails on static binaries, saying so
		if [[ $l == *"not a dynamic executable"* ]]; then
			echo "$b"
			return 0
		fi
	done
	return 1
}

# pack DIR OUTFILE: gzip'd newc of DIR's tree (root-owned) followed by the /dev/console
# archive; the kernel unpacks concatenated archives in order.
pack() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -6 >"$2"
	dev_console_cpio | gzip -n >>"$2"
}

stage_skeleton() { # DIR: busybox and the directories /init expects
	mkdir -p "$1"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,out,root,pidx}
	cp "$busybox" "$1/bin/busybox"
}

build_initramfs() { # DEST ACCEL
	local st=$tmp/root f
	rm -rf "$st"
	stage_skeleton "$st"
	install -m 0755 "$SELF_DIR/guest-init.sh" "$st/init"
	# Shell libraries the guest scripts source come first, so that GUEST_SCRIPT, the module
	# and the run facts below win any name clash.
	if [ -d "$REPO/tests/guest" ]; then
		for f in "$REPO"/tests/guest/*.sh; do
			if [ -e "$f" ]; then cp -L "$f" "$st/pidx/"; fi
		done
	fi
	# the replay tests' traces (tests/fixtures/trace-*.txt), beside the scripts
	for f in "$REPO"/tests/fixtures/trace-*.txt; do
		if [ -e "$f" ]; then cp -L "$f" "$st/pidx/"; fi
	done
	for f in ${files[@]+"${files[@]}"}; do
		[ -e "$f" ] || die -c 2 "--file $f not found"
		cp -rL "$f" "$st/pidx/"
	done
	cp -L "$guest" "$st/pidx/guest.sh"
	cp -L "$ko" "$st/pidx/pidx.ko"
	if [ ${#gargs[@]} -gt 0 ]; then printf '%s\n' "${gargs[@]}" >"$st/pidx/args"; else : >"$st/pidx/args"; fi
	echo "$2" >"$st/pidx/accel"
	echo "$release" >"$st/pidx/kernel"
	if [ "$progress" = 1 ]; then : >"$st/pidx/progress"; fi
	if [ -n "$kcsan_module" ]; then
		echo "$kcsan_module" >"$st/pidx/kcsan-module"
		echo "$kcsan_library" >"$st/pidx/kcsan-library"
		if [ -n "$kcsan_builtin" ]; then cp "$kcsan_builtin" "$st/pidx/kcsan-builtin"; fi
	fi
	pack "$st" "$1"
}
