#!/usr/bin/env bash
# check-matrix.sh (`make check-matrix`): "a stock kernel" on three Debian series.
# For each release: its own toolchain and kernel headers (bookworm: this host;
# bullseye and trixie: a debootstrap chroot, built once and cached), and for each
# of its two stock kernel flavours (cloud, and rt: PREEMPT_RT) a W=1 build of
# pidx.ko that must be warning-free, then that kernel booted under QEMU with the
# module, running tests/guest/suite.sh's matrix level on cloud (load, selftest of
# every index, every workload x mode, the bad-input battery, load/unload cycles)
# and its rt level on rt (the same storms with ipi writers refused, the defaults
# after a fresh insmod, the lockref loop, load/unload cycles); vm-run.sh fails
# the boot on any kernel warning in the log.
# Prints "PASS name" or "FAIL name: expected ..., saw ..." per release and step,
# a compatibility table, and "N passed, N failed" last; exits 1 on any failure.
#
# Usage: scripts/check-matrix.sh [--releases LIST] [--flavours LIST] [--refresh] [--keep DIR]
#   --releases LIST  comma list out of bullseye,bookworm,trixie (default: all three)
#   --flavours LIST  comma list out of cloud,rt (default: both)
#   --refresh        rebuild the cached chroots (new point release, changed packages)
#   --keep DIR       copy the work directory (build logs, consoles) to DIR
# Needs root (debootstrap, chroot).  Chroots live in
# ${PIDX_CACHE:-$HOME/.cache/pidx}/matrix/<release>/; PIDX_DEBIAN_MIRROR overrides the
# mirror (default: the Debian one this host's apt uses, else deb.debian.org).
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
# shellcheck disable=SC2034 # read by lib.sh's messages
PIDX_PROG=check-matrix
# shellcheck source=lib.sh
. "$SELF_DIR/lib.sh"

RELEASES=bullseye,bookworm,trixie
FLAVOURS=cloud,rt
REFRESH=no
KEEP=
while [ $# -gt 0 ]; do
	case $1 in
	--releases) [ $# -ge 2 ] || die -c 2 "--releases needs a value"; RELEASES=$2; shift ;;
	--refresh) REFRESH=yes ;;
	--keep) [ $# -ge 2 ] || die -c 2 "--keep needs a value"; KEEP=$2; shift ;;
	--flavours) [ $# -ge 2 ] || die -c 2 "--flavours needs a value"; FLAVOURS=$2; shift ;;
	-h | --help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die -c 2 "unknown option $1 (see --help)" ;;
	esac
	shift
done
for r in ${RELEASES//,/ }; do
	case $r in bullseye | bookworm | trixie) ;; *) die -c 2 "unknown release '$r' (bullseye, bookworm, trixie)" ;; esac
done
for f in ${FLAVOURS//,/ }; do
	case $f in cloud | rt) ;; *) die -c 2 "unknown flavour '$f' (cloud, rt)" ;; esac
done

is_root || die -c 2 "needs root (debootstrap, chroot, reading /boot/vmlinuz-*)"
# The host's own toolchain and kernel are bookworm's; the chroots need debootstrap.
ensure_pkgs make gcc libc6-dev libelf-dev kmod linux-image-cloud-amd64 linux-headers-cloud-amd64 \
	linux-image-rt-amd64 linux-headers-rt-amd64 \
	debootstrap debian-archive-keyring qemu-system-x86 busybox-static cpio
host_codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
case " ${RELEASES//,/ } " in
*" bookworm "*)
	[ "$host_codename" = bookworm ] ||
		die -c 2 "bookworm is tested on the host itself, and this host is '${host_codename:-unknown}', not Debian 12"
	;;
esac

CACHE=${PIDX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pidx}/matrix
mkdir -p "$CACHE"
WORK=$(mktemp -d /tmp/pidx-matrix.XXXXXX)
cleanup() {
	if [ -n "$KEEP" ]; then mkdir -p "$KEEP" && cp -a "$WORK/." "$KEEP/"; fi
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
START=$(date +%s)

passed=0
failed=0
failures=()
pass() { passed=$((passed + 1)); echo "PASS $1"; }
fail() {
	failed=$((failed + 1))
	failures+=("$1")
	echo "FAIL $1: $2"
}
section() { echo; echo "== $* ($(($(date +%s) - START)) s)"; }
oneline() { tr '\n' ' ' | sed 's/  */ /g; s/ $//'; }

# Packages of each chroot: the release's default gcc comes with "gcc" (gcc-10 on bullseye,
# gcc-14 on trixie: trixie's 6.12 headers pass -fmin-function-alignment, unknown to gcc-12);
# perl: W=1 runs scripts/kernel-doc on 6.12, which needs more than minbase's perl-base.
# Each series ships both flavours: bullseye 5.10, bookworm 6.1, trixie 6.12.
CHROOT_PKGS=make,gcc,libc6-dev,libelf-dev,perl,linux-headers-cloud-amd64,linux-image-cloud-amd64
CHROOT_PKGS+=,linux-headers-rt-amd64,linux-image-rt-amd64

# The Debian mirror the host's apt uses for its own release (not the security archive).
debian_mirror() {
	local m
	if [ -n "${PIDX_DEBIAN_MIRROR:-}" ]; then echo "$PIDX_DEBIAN_MIRROR"; return; fi
	# shellcheck disable=SC2016 # apt's format fields, not shell
	m=$(apt-get indextargets --format '$(LABEL) $(CODENAME) $(REPO_URI)' 2>/dev/null |
		awk -v c="$host_codename" '$1 == "Debian" && $2 == c { print $3; exit }')
	echo "${m:-http://deb.debian.org/debian/}"
}

# A private copy of the tree (tracked and untracked, not ignored build outputs) in DIR.
copy_tree() {
	rm -rf "$1"
	mkdir -p "$1"
	(cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$1") 2>/dev/null || cp -a "$REPO/." "$1/"
	rm -f "$1"/*.o "$1"/*.ko "$1"/*.mod "$1"/*.mod.c "$1"/.*.cmd "$1"/Module.symvers "$1"/modules.order \
		"$1"/selftest/*.o "$1"/selftest/.*.cmd
}

# Newest *-FLAVOUR-amd64 release in ROOT/boot that also has ROOT/lib/modules/REL/build
# (ROOT "" is the host).
newest_release() { # ROOT FLAVOUR
	local img rel best=
	for img in "$1"/boot/vmlinuz-*-"$2"-amd64; do
		[ -e "$img" ] || continue
		rel=${img##*/vmlinuz-}
		# build is an absolute link on bullseye: follow it inside the chroot
		if [ -n "$1" ]; then
			chroot "$1" test -e "/lib/modules/$rel/build/Makefile" || continue
		else
			[ -e "/lib/modules/$rel/build/Makefile" ] || continue
		fi
		best+="$rel"$'\n'
	done
	[ -n "$best" ] && printf '%s' "$best" | sort -V | tail -n 1
}

# make_chroot SUITE DIR: debootstrap once; the stamp (the package list and mirror it was
# made with) marks a finished chroot, so a broken one is made again next time.
make_chroot() {
	local suite=$1 root=$2/root stamp=$2/stamp want mirror
	mirror=$(debian_mirror)
	want="$suite $CHROOT_PKGS"
	if [ "$REFRESH" = no ] && [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$want" ]; then
		info "$suite: reusing the chroot in $root (made $(sed -n 2p "$stamp"); --refresh makes it again)"
		return 0
	fi
	rm -f "$stamp"
	if [ -e "$root" ]; then
		# an interrupted debootstrap can leave its /proc and /sys mounted inside
		findmnt -rn -o TARGET | grep -F "$root/" | sort -r | while IFS= read -r m; do umount -l "$m"; done || true
		rm -rf --one-file-system "$root"
	fi
	info "$suite: debootstrap from $mirror into $root (a few hundred MB; log $WORK/$suite/debootstrap.log)"
	debootstrap --variant=minbase --include="$CHROOT_PKGS" "$suite" "$root" "$mirror" \
		>"$WORK/$suite/debootstrap.log" 2>&1 || return 1
	printf '%s\n%s from %s\n' "$want" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$mirror" >"$stamp"
}

# The compiler Kbuild really ran for pidx_core.o: the first word of its command line.
compiler_of() { # SRCDIR
	# "cmd_/src/pidx_core.o :=  gcc-10 ..." (5.10, 6.1) or "savedcmd_..." (6.12)
	sed -n 's/^\(saved\)\{0,1\}cmd_[^ ]*pidx_core\.o := *\([^ ]*\) .*/\2/p' "$1/.pidx_core.o.cmd" 2>/dev/null | head -n 1
}

declare -A T_KREL T_KVER T_GCC T_BUILD T_GUEST

# test_release NAME ROOT FLAVOUR: ROOT is "" for the host, else the chroot.
test_release() {
	local name=$1 root=$2 flavour=$3 rel kdir src run=() img ko out rc=0 cc summary gf vm errs level=matrix
	T_KREL[$name]=- T_KVER[$name]=- T_GCC[$name]=- T_BUILD[$name]=- T_GUEST[$name]=-
	[ "$flavour" = cloud ] || level=$flavour
	rel=$(newest_release "$root" "$flavour") || rel=
	if [ -z "$rel" ]; then
		fail "$name: kernel image and headers" "a *-$flavour-amd64 vmlinuz with headers in ${root}/boot, saw none"
		return
	fi
	img=$root/boot/vmlinuz-$rel
	kdir=/lib/modules/$rel/build
	if [ -n "$root" ]; then run=(chroot "$root"); fi
	T_KREL[$name]=$rel
	# shellcheck disable=SC2016 # a dpkg-query format, not shell
	T_KVER[$name]=$("${run[@]}" dpkg-query -W -f='${Version}' "linux-image-$rel" 2>/dev/null || echo '?')
	pass "$name: kernel $rel (${T_KVER[$name]}) with its headers"

	# Build in a fresh copy: the chroot's /src, or the work directory on the host.
	if [ -n "$root" ]; then
		src=$root/src
		copy_tree "$src"
		T_BUILD[$name]=FAIL
		"${run[@]}" make -k -C /src KDIR="$kdir" W=1 >"$WORK/$name/build.log" 2>&1 || rc=$?
	else
		src=$WORK/$name/src
		copy_tree "$src"
		T_BUILD[$name]=FAIL
		make -k -C "$src" KDIR="$kdir" W=1 >"$WORK/$name/build.log" 2>&1 || rc=$?
	fi
	cc=$(compiler_of "$src")
	[ -z "$cc" ] || T_GCC[$name]=$("${run[@]}" "$cc" -dumpfullversion 2>/dev/null | sed "s/^/$cc /")
	if [ "$rc" != 0 ] || [ ! -f "$src/pidx.ko" ]; then
		errs=$(grep -E 'error:' "$WORK/$name/build.log" || true)
		fail "$name: build W=1" "a pidx.ko, saw make exit $rc, $(printf '%s' "$errs" | grep -c .) error(s): $(printf '%s' "$errs" | head -n 1)"
		# every failing file (make -k), indented so that they are not counted here
		[ -z "$errs" ] || printf '%s\n' "$errs" | head -n 20 | sed 's/^/    build: /'
		return
	fi
	if grep -qE 'warning:|error:' "$WORK/$name/build.log"; then
		T_BUILD[$name]=warnings
		fail "$name: build W=1 without a warning" "no warning, saw: $(grep -E 'warning:|error:' "$WORK/$name/build.log" | head -n 3 | oneline)"
	else
		T_BUILD[$name]=clean
		pass "$name: build W=1 without a warning (${T_GCC[$name]})"
	fi
	ko=$WORK/$name/pidx.ko
	cp "$src/pidx.ko" "$ko"
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null | awk '{ print $1 }')
	if [ "$vm" = "$rel" ]; then
		pass "$name: module vermagic is $rel"
	else
		fail "$name: module vermagic" "expected '$rel', saw '$vm'"
	fi

	out=$WORK/$name/guest
	info "$name: booting $rel under QEMU with the $level suite (minutes under TCG)"
	rc=0
	"$REPO/scripts/vm-run.sh" --kernel "$img" --ko "$ko" --smp 2 --timeout 1500 --quiet --out "$out" \
		"$REPO/tests/guest/suite.sh" -- "$level" >"$WORK/$name/vm-run.log" 2>&1 || rc=$?
	summary=$(grep -a -o 'GUEST-SUMMARY .*' "$out/console.log" 2>/dev/null | tail -n 1 | tr -d '\r')
	T_GUEST[$name]=${summary#GUEST-SUMMARY }
	[ -n "$summary" ] || T_GUEST[$name]="no summary (vm-run exit $rc)"
	if [ "$rc" = 0 ] && [[ $summary =~ ^GUEST-SUMMARY\ [0-9]+\ passed,\ 0\ failed$ ]]; then
		pass "$name: guest $level suite on $rel, clean kernel log (${summary#GUEST-SUMMARY })"
	else
		[ "$rc" = 0 ] || [ "$rc" = 3 ] || T_GUEST[$name]="${T_GUEST[$name]}; vm-run exit $rc"
		fail "$name: guest $level suite on $rel" "exit 0 and 0 failed with a clean kernel log, saw exit $rc, '${summary:-no GUEST-SUMMARY}': $(tail -n 2 "$WORK/$name/vm-run.log" | oneline)"
		# the guest's own failures, indented so that they are not counted here
		gf=$(grep -a '^FAIL ' "$out/console.log" 2>/dev/null | tr -d '\r' | head -n 20 || true)
		[ -z "$gf" ] || printf '%s\n' "$gf" | sed 's/^/    guest: /'
	fi
}

# The chroots first, all at once: debootstrap mostly waits on the network, and the guests
# that follow then have both CPUs to themselves (a starved TCG guest can report RCU stalls).
# Each chroot stays locked until this run ends: the build writes its /src.
declare -A CHROOT_PID
mirror=$(debian_mirror)
for name in ${RELEASES//,/ }; do
	mkdir -p "$WORK/$name"
	[ "$name" != bookworm ] || continue
	mkdir -p "$CACHE/$name"
	exec {lockfd}>"$CACHE/$name/lock"
	flock -n "$lockfd" || { info "$name: waiting for another run's lock on $CACHE/$name"; flock "$lockfd"; }
	make_chroot "$name" "$CACHE/$name" &
	CHROOT_PID[$name]=$!
done

declare -A CHROOT_OK
for name in "${!CHROOT_PID[@]}"; do
	CHROOT_OK[$name]=no
	if wait "${CHROOT_PID[$name]}"; then CHROOT_OK[$name]=yes; fi
done

# One name per release and flavour: "bookworm" (cloud), "bookworm-rt".
NAMES=()
for name in ${RELEASES//,/ }; do
	for f in ${FLAVOURS//,/ }; do
		if [ "$f" = cloud ]; then NAMES+=("$name"); else NAMES+=("$name-$f"); fi
	done
done
for name in ${RELEASES//,/ }; do
	root=
	if [ "$name" = bookworm ]; then
		section "$name: this host's toolchain and headers"
	else
		section "$name: chroot (debootstrap $name from $mirror, cached in $CACHE/$name)"
		if [ "${CHROOT_OK[$name]}" = yes ]; then
			pass "$name: chroot with $CHROOT_PKGS ($(sed -n 2p "$CACHE/$name/stamp"))"
			root=$CACHE/$name/root
		else
			fail "$name: chroot" "debootstrap success, saw: $(tail -n 3 "$WORK/$name/debootstrap.log" | oneline)"
		fi
	fi
	for f in ${FLAVOURS//,/ }; do
		n=$name
		[ "$f" = cloud ] || n=$name-$f
		mkdir -p "$WORK/$n"
		if [ "$name" = bookworm ] || [ -n "$root" ]; then
			[ "$f" = cloud ] || section "$n: the $f flavour"
			test_release "$n" "$root" "$f"
		else
			T_KREL[$n]=- T_KVER[$n]=- T_GCC[$n]=- T_BUILD[$n]="no chroot" T_GUEST[$n]=-
		fi
	done
done

section "compatibility"
{
	printf 'release\tkernel\tdebian version\tcompiler\tbuild W=1\tguest (matrix or rt suite)\n'
	for name in "${NAMES[@]}"; do
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${T_KREL[$name]}" "${T_KVER[$name]}" \
			"${T_GCC[$name]}" "${T_BUILD[$name]}" "${T_GUEST[$name]}"
	done
} | awk -F'\t' '{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } n = NF }
	END { for (r = 1; r <= NR; r++) { for (i = 1; i <= n; i++) printf "%-*s%s", w[i], c[r, i], i < n ? "  " : "\n" } }'

echo
echo "matrix took $(($(date +%s) - START)) s"
if [ "$failed" -gt 0 ]; then
	echo "failed:"
	printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
