#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# build-debug-kernel.sh: build (once) and cache a kernel from Debian's linux-source-6.1
# with pidx's patch series (system/patches/, docs/system.md) -- KASAN with lockdep,
# PROVE_RCU and failslab, or (--kcsan) KCSAN with weak-memory modelling, or (--system)
# no checker at all -- so that pidx can be built against it and booted with
# scripts/vm-run.sh.  The stock Debian kernels have none of these checkers, and they are
# what catches the memory, locking, RCU and data-race bugs a concurrent index is prone to.
# Every flavour carries the series, so that one kernel per checker tests both the module
# and pidx's indexes as the kernel's own PID index.
#
# stdout carries exactly two lines, KERNEL=<bzImage> and HEADERS=<tree for KDIR=>, so that
# callers can eval or parse them; everything else goes to stderr.  See usage().
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # read by lib.sh's messages (plain shellcheck does not follow it)
PIDX_PROG=build-debug-kernel
# shellcheck source=lib.sh disable=SC1091 # followed with shellcheck -x
. "$SELF_DIR/lib.sh"

SRC_PKG=linux-source-6.1
TARBALL=/usr/src/$SRC_PKG.tar.xz
CACHE_ROOT=${PIDX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pidx}
# Absolute, because the printed paths are used from other directories.
case $CACHE_ROOT in /*) ;; *) CACHE_ROOT=$PWD/$CACHE_ROOT ;; esac

usage() {
	cat <<EOF
Usage: scripts/build-debug-kernel.sh [--kcsan | --system | --stock] [--print] [--help]

Builds Debian's $SRC_PKG with pidx's patch series (system/patches/: a PID namespace's
index chosen at boot with pidx.index= and in /sys/kernel/debug/pidx_system/; the index
files are copied from this tree into kernel/pidx/) and caches it: x86_64_defconfig +
kvm_guest.config, trimmed to what the test guest uses (no networking, graphics, sound,
USB or disk drivers), DEBUG_ATOMIC_SLEEP, DEBUG_LIST, DEBUG_FS, the lockup and hung-task
detectors, modules unsigned, no debug info, and then one checker flavour:
  (default)  KASAN generic inline, PROVE_LOCKING + PROVE_RCU, DEBUG_OBJECTS_RCU_HEAD,
             SLUB_DEBUG, FAILSLAB with its debugfs; release <version>-pidx-debug
  --kcsan    KCSAN strict with weak-memory modelling (excludes KASAN);
             release <version>-pidx-kcsan
  --system   no checker, and neither DEBUG_ATOMIC_SLEEP nor DEBUG_LIST: the system
             kernel that \`make system-kernel\` builds; release <version>-pidx-system
  --stock    the system kernel's config without the series: the system benchmark's
             stock, beside which the series' dispatch is measured; release
             <version>-pidx-stock
Each flavour has its own cache directory, so all can be kept.  A later run with the same
source package version, config fragment and compiler does nothing and prints the paths;
an interrupted build is resumed incrementally.  First build: 15 minutes to over an hour
on 2 cores (KASAN-instrumented compiles are slow, and the time grows with the host's load).

On stdout, and nothing else there:
  KERNEL=<path to bzImage>        for scripts/vm-run.sh --kernel
  HEADERS=<path to built tree>    for make KDIR=... and scripts/vm-run.sh --headers
Progress and the build output go to stderr (the latter also to the cache's build.log).

Options:
  --print   print the paths if a complete cached build exists (exit 0), else exit 1;
            never builds or installs anything
  --help    this text

Cache: \${PIDX_CACHE:-\${XDG_CACHE_HOME:-\$HOME/.cache}/pidx}/debug-kernel[-kcsan]
       (now $CACHE_ROOT/debug-kernel[-kcsan]); delete it to force a clean build.
Needs (installed as root via apt, else the command is printed and the exit status is 2):
  $SRC_PKG build-essential bc bison flex libelf-dev libssl-dev xz-utils cpio kmod

Typical use:
  eval "\$(scripts/build-debug-kernel.sh)"
  make KDIR="\$HEADERS" W=1
  scripts/vm-run.sh --kernel "\$KERNEL" --headers "\$HEADERS" --ko pidx.ko GUEST_SCRIPT
EOF
}

print_only=0
flavour=kasan
while [ $# -gt 0 ]; do
	case $1 in
	--print) print_only=1; shift ;;
	--kcsan) flavour=kcsan; shift ;;
	--system) flavour=system; shift ;;
	--stock) flavour=stock; shift ;;
	-h | --help) usage; exit 0 ;;
	*) die -c 2 "unknown argument $1 (see --help)" ;;
	esac
done

# The changes applied to defconfig + kvm_guest.config, one scripts/config operation a
# line.  Its hash is part of the stamp, so editing it here rebuilds (incrementally).
# Every --enable/--disable is checked after olddefconfig, because Kconfig silently drops
# a symbol whose dependencies are not met and we would otherwise boot a kernel that
# lacks the very checker we asked for.
# What the guest needs and nothing more: x86_64_defconfig builds graphics, sound, USB,
# networking and disk drivers that a busybox initramfs on a serial console never touches,
# and with KASAN or KCSAN every one of those objects is an instrumented compile.  The
# guest keeps: SMP, NUMA with ACPI (QEMU describes its nodes in SRAT), the 8250 console,
# virtio (PCI, console, blk), initramfs, proc/sys/devtmpfs/tmpfs/debugfs, modules, perf
# events (the pmu setting), the lockup, stall and hung-task detectors, and
# CHECKPOINT_RESTORE for ns_last_pid (the system tests write it).
TRIM_FRAGMENT='--disable NET
--disable DRM
--disable FB
--disable SOUND
--disable USB_SUPPORT
--disable HID
--disable INPUT_MOUSE
--disable INPUT_JOYSTICK
--disable INPUT_TABLET
--disable INPUT_TOUCHSCREEN
--disable AGP
--disable ATA
--disable SCSI
--disable MD
--disable PCCARD
--disable I2C
--disable EXT4_FS
--disable ISO9660_FS
--disable MSDOS_FS
--disable VFAT_FS
--disable QUOTA
--disable EFI
--disable HIBERNATION
--disable SUSPEND
--disable SECURITY
--disable AUDIT
--disable KPROBES
--disable FTRACE
--disable X86_MCE
--disable MICROCODE
--disable 9P_FS
--disable DRM_VIRTIO_GPU
--disable VIRTIO_INPUT
--enable VIRTIO_PCI
--enable VIRTIO_CONSOLE
--enable VIRTIO_BLK
--enable NUMA
--enable ACPI
--enable ACPI_NUMA
--enable PERF_EVENTS
--enable DETECT_HUNG_TASK
--enable SOFTLOCKUP_DETECTOR
--enable DEBUG_KERNEL
--enable DEBUG_FS
--enable MODULES
--enable MODULE_UNLOAD
--disable MODULE_SIG
--disable MODULE_SIG_FORCE
--enable KALLSYMS
--enable KALLSYMS_ALL
--enable DEBUG_INFO_NONE
--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT
--disable DEBUG_INFO_DWARF4
--disable DEBUG_INFO_DWARF5
--enable SERIAL_8250
--enable SERIAL_8250_CONSOLE
--enable BLK_DEV_INITRD
--enable RD_GZIP
--enable DEVTMPFS
--enable TMPFS
--enable CHECKPOINT_RESTORE
--enable DEBUG_ATOMIC_SLEEP
--enable DEBUG_LIST
--disable LOCALVERSION_AUTO'

# The memory and locking checkers, and fault injection for allocations.
KASAN_FRAGMENT='--enable KASAN
--enable KASAN_GENERIC
--enable KASAN_INLINE
--disable KASAN_OUTLINE
--enable PROVE_LOCKING
--enable PROVE_RCU
--enable DEBUG_OBJECTS
--enable DEBUG_OBJECTS_RCU_HEAD
--enable SLUB_DEBUG
--enable FAULT_INJECTION
--enable FAILSLAB
--enable FAULT_INJECTION_DEBUG_FS
--set-str LOCALVERSION -pidx-debug'

# The data-race detector with the strictest rules: plain writes are not assumed atomic,
# every racing pair is reported (not only value changes), interrupts can race a watched
# access, and weak memory is modelled, so a missing barrier or READ_ONCE shows on x86.
# KCSAN excludes KASAN; lockdep stays in the KASAN kernel (both together are too slow).
KCSAN_FRAGMENT='--enable KCSAN
--enable KCSAN_STRICT
--enable KCSAN_WEAK_MEMORY
--enable KCSAN_INTERRUPT_WATCHER
--disable KCSAN_SELFTEST
--disable KCSAN_REPORT_VALUE_CHANGE_ONLY
--disable KCSAN_ASSUME_PLAIN_WRITES_ATOMIC
--disable KASAN
--set-str LOCALVERSION -pidx-kcsan'
# The system kernel: the guest's trim, without the two list and sleep checks that a
# fork pays for on every call.
SYSTEM_FRAGMENT='--set-str LOCALVERSION -pidx-system'
# the system kernel's config, without its series: the benchmark's stock
SYSTEM_CONFIG="$(grep -v -e DEBUG_ATOMIC_SLEEP -e DEBUG_LIST <<<"$TRIM_FRAGMENT")"$'\n'"--disable DEBUG_ATOMIC_SLEEP
--disable DEBUG_LIST"
if [ "$flavour" = kcsan ]; then
	CACHE=$CACHE_ROOT/debug-kernel-kcsan
	CONFIG_FRAGMENT="$TRIM_FRAGMENT"$'\n'"$KCSAN_FRAGMENT"
elif [ "$flavour" = system ]; then
	CACHE=$CACHE_ROOT/system-kernel
	CONFIG_FRAGMENT="$SYSTEM_CONFIG"$'\n'"$SYSTEM_FRAGMENT"
elif [ "$flavour" = stock ]; then
	CACHE=$CACHE_ROOT/stock-kernel
	CONFIG_FRAGMENT="$SYSTEM_CONFIG"$'\n'"--set-str LOCALVERSION -pidx-stock"
else
	CACHE=$CACHE_ROOT/debug-kernel
	CONFIG_FRAGMENT="$TRIM_FRAGMENT"$'\n'"$KASAN_FRAGMENT"
fi
TREE=$CACHE/linux           # the extracted source, built in place (so it is also KDIR)
STAMP=$CACHE/stamp          # written last: present and matching == complete build
EXTRACTED=$TREE/.pidx-source-version # written after a complete extraction
LOG=$CACHE/build.log
KERNEL=$TREE/arch/x86/boot/bzImage

# How the fragment is used; part of the hash too, so changing the recipe also rebuilds.
RECIPE='x86_64_defconfig kvm_guest.config scripts/config olddefconfig; bzImage modules'

# pidx's side of the kernel: the series, then what kernel/pidx/ is made of
# (system/Kbuild.kernel names the index files it builds).
REPO=$(cd "$SELF_DIR/.." && pwd)
PATCHES=("$REPO"/system/patches/*.patch)
pidx_files() {
	echo "$REPO/system/pidx_system.c"
	grep -o 'pidx_[a-z_]*\.o' "$REPO/system/Kbuild.kernel" | grep -vx pidx_system.o |
		sed "s|^|$REPO/|; s|\.o\$|.c|"
	# every header of the top: fewer would need the includes followed
	printf '%s\n' "$REPO"/pidx*.h
}
# The series' and the copied files' contents: a change to either rebuilds (incrementally).
pidx_sources_hash() {
	if [ "$flavour" = stock ]; then
		echo none
		return
	fi
	{
		cat "${PATCHES[@]}" "$REPO/system/Kbuild.kernel"
		pidx_files | sort | xargs cat
	} | sha256sum | cut -c1-16
}

# The cache key: the source package version, what we do to it, and the compiler (an
# external module must be built with the compiler the tree was built with, and kbuild
# would rebuild everything after a compiler change anyway).
fragment_hash() {
	printf '%s\n%s\n' "$RECIPE" "$CONFIG_FRAGMENT" | sha256sum | cut -c1-16
}
# sed, not head: head may exit before gcc is done writing, and pipefail would then fail.
compiler_id() { gcc --version 2>/dev/null | sed -n 1p; }
source_version() { dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || true; }

# stamp_ok VERSION: the stamp says a build of VERSION with this fragment and compiler is
# complete, and its two outputs are still there.
stamp_ok() {
	[ -f "$STAMP" ] && [ -f "$KERNEL" ] && [ -f "$TREE/Module.symvers" ] &&
		grep -qxF "source=$1" "$STAMP" &&
		grep -qxF "fragment=$(fragment_hash)" "$STAMP" &&
		grep -qxF "compiler=$(compiler_id)" "$STAMP" &&
		grep -qxF "pidx_sources=$(pidx_sources_hash)" "$STAMP"
}

print_paths() {
	printf 'KERNEL=%s\nHEADERS=%s\n' "$KERNEL" "$TREE"
}

if [ "$print_only" = 1 ]; then
	ver=$(source_version)
	# Without the source package the version cannot be compared: the cached build is
	# complete, so it is accepted as it is (it is what a build would have produced then).
	[ -n "$ver" ] || ver=$(sed -n 's/^source=//p' "$STAMP" 2>/dev/null || true)
	if [ -n "$ver" ] && stamp_ok "$ver"; then
		print_paths
		exit 0
	fi
	info "no complete cached debug kernel in $CACHE (run without --print to build it)"
	exit 1
fi

# Fast path, before the lock and the package check: a complete build of the installed
# source needs nothing installed or locked, and this answers in well under a second.
ver=$(source_version)
if [ -n "$ver" ] && stamp_ok "$ver"; then
	info "cached debug kernel $(cat "$TREE/include/config/kernel.release" 2>/dev/null || echo '?') ($SRC_PKG $ver) in $TREE"
	print_paths
	exit 0
fi

ensure_pkgs "$SRC_PKG" build-essential bc bison flex libelf-dev libssl-dev xz-utils cpio kmod patch
ver=$(source_version)
[ -n "$ver" ] || die -c 2 "$SRC_PKG is not installed"
[ -f "$TARBALL" ] || die -c 2 "$TARBALL missing although $SRC_PKG $ver is installed (reinstall it)"

mkdir -p "$CACHE"
# One builder at a time: two makes in one tree (parallel CI jobs, a second terminal) would
# corrupt it.  The second waits, then usually finds the first one's stamp.
exec 9>"$CACHE/lock"
if ! flock -n 9; then
	info "another build holds $CACHE/lock; waiting for it"
	flock 9
fi
if stamp_ok "$ver"; then
	info "another run just built it"
	print_paths
	exit 0
fi

# From here on the tree changes, so an old stamp would lie if we were interrupted.
rm -f "$STAMP"
t0=$SECONDS

# Extract into a scratch directory and move it into place when complete, so that a
# half-extracted tree is never mistaken for a source; a tree of another version is
# replaced.  A complete tree of this version is kept: make then rebuilds incrementally.
if [ "$(cat "$EXTRACTED" 2>/dev/null || true)" != "$ver" ]; then
	info "extracting $TARBALL ($SRC_PKG $ver) into $TREE"
	rm -rf "$TREE" "$CACHE/extract.tmp"
	mkdir -p "$CACHE/extract.tmp"
	tar -xf "$TARBALL" -C "$CACHE/extract.tmp"
	top=$(find "$CACHE/extract.tmp" -mindepth 1 -maxdepth 1 -type d)
	if [ -z "$top" ] || [ ! -f "$top/Makefile" ]; then die "unexpected layout in $TARBALL"; fi
	mv "$top" "$TREE"
	rmdir "$CACHE/extract.tmp"
	echo "$ver" >"$EXTRACTED"
	info "extracted in $((SECONDS - t0)) s"
fi

# LOCALVERSION= on the command line: an empty-but-set LOCALVERSION stops setlocalversion
# from appending a "+" and keeps a LOCALVERSION in the caller's environment out of the
# release string, which must be exactly <version>-pidx-debug (the module's vermagic).
kmake() { make -C "$TREE" LOCALVERSION= "$@"; }

# The series: a tree that carries another one (an older checkout's) has it reversed
# first, from the copy kept beside it.  Each file is only touched when its contents
# change, so that an unchanged series costs the incremental build nothing.
# The stock flavour wants none: its cache is its own, so a tree there never had one.
applied=$TREE/.pidx-applied
want=$(cat "${PATCHES[@]}" | sha256sum | cut -c1-16)
[ "$flavour" != stock ] || want=none
if [ "$(cat "$applied/hash" 2>/dev/null || echo none)" != "$want" ]; then
	if [ -d "$applied" ]; then
		info "reversing the pidx series the tree carries"
		for pt in $(find "$applied" -name '*.patch' | sort -r); do
			patch -d "$TREE" -p1 -R -s <"$pt" ||
				die "could not reverse $pt (delete $CACHE for a clean build)"
		done
		rm -rf "$applied"
	fi
	if [ "$flavour" != stock ]; then
		info "applying pidx's series (${#PATCHES[@]} patches)"
		for pt in "${PATCHES[@]}"; do
			patch -d "$TREE" -p1 -N -s <"$pt" ||
				die "$(basename "$pt") does not apply to $SRC_PKG $ver (delete $CACHE for a clean build)"
		done
		mkdir -p "$applied"
		cp "${PATCHES[@]}" "$applied/"
		echo "$want" >"$applied/hash"
	fi
fi
if [ "$flavour" != stock ]; then
	mkdir -p "$TREE/kernel/pidx"
	cmp -s "$REPO/system/Kbuild.kernel" "$TREE/kernel/pidx/Makefile" ||
		cp "$REPO/system/Kbuild.kernel" "$TREE/kernel/pidx/Makefile"
	while IFS= read -r f; do
		[ -f "$f" ] || die "system/Kbuild.kernel needs $f, which is missing"
		cmp -s "$f" "$TREE/kernel/pidx/$(basename "$f")" || cp "$f" "$TREE/kernel/pidx/"
	done < <(pidx_files)
fi

info "configuring (x86_64_defconfig + kvm_guest.config + debug fragment)"
# Regenerated every time we get here (cheap): the fragment or the defconfigs may have
# changed.  Kconfig rewrites only the include/config files of symbols that changed, so an
# unchanged result costs the incremental build nothing.
kmake -s x86_64_defconfig >&2
kmake -s kvm_guest.config >&2
# One scripts/config call for the whole fragment (it takes any number of operations).
ops=()
while IFS= read -r line; do
	read -ra op <<<"$line"
	ops+=(${op[@]+"${op[@]}"})
done <<<"$CONFIG_FRAGMENT"
"$TREE/scripts/config" --file "$TREE/.config" "${ops[@]}"
kmake -s olddefconfig >&2

bad=()
while IFS= read -r line; do
	read -r how sym val <<<"$line"
	case $how in
	--enable) grep -qx "CONFIG_$sym=y" "$TREE/.config" || bad+=("$sym should be y") ;;
	--disable) ! grep -q "^CONFIG_$sym=" "$TREE/.config" || bad+=("$sym should be off") ;;
	--set-str) grep -qxF "CONFIG_$sym=\"$val\"" "$TREE/.config" || bad+=("$sym should be \"$val\"") ;;
	esac
done <<<"$CONFIG_FRAGMENT"
[ ${#bad[@]} -eq 0 ] || die "Kconfig did not take the debug fragment: ${bad[*]} (see $TREE/.config)"

jobs=$(nproc)
info "building bzImage and modules with -j$jobs (15-70 minutes on 2 cores the first time); log: $LOG"
t1=$SECONDS
# Modules too, not just bzImage: an external module build needs the tree's
# Module.symvers, which only the modules pass writes.  The output goes to stderr (stdout
# is for the paths) and to the log, whose tail is repeated if the build fails.
if ! kmake -j"$jobs" bzImage modules 2>&1 | tee "$LOG" >&2; then
	{
		echo "--- last 30 lines of $LOG ---"
		tail -n 30 "$LOG"
	} >&2
	die "kernel build failed (rerun to resume; delete $CACHE for a clean build)"
fi
if [ ! -f "$KERNEL" ] || [ ! -f "$TREE/Module.symvers" ]; then
	die "build finished without $KERNEL or $TREE/Module.symvers"
fi
release=$(cat "$TREE/include/config/kernel.release")
info "built $release in $((SECONDS - t1)) s (total with extract/config $((SECONDS - t0)) s)"

# Last: the stamp, written whole and renamed into place, is what makes the build count.
{
	echo "source=$ver"
	echo "fragment=$(fragment_hash)"
	echo "compiler=$(compiler_id)"
	echo "pidx_sources=$(pidx_sources_hash)"
	echo "release=$release"
	echo "build_seconds=$((SECONDS - t1))"
	echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$STAMP.tmp"
mv "$STAMP.tmp" "$STAMP"
print_paths
