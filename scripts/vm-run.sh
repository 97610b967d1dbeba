#!/usr/bin/env bash
# vm-run.sh: run a guest script against a kernel module inside a stock Debian kernel booted
# under QEMU, for hosts whose own kernel cannot load modules (containers, CI runners).
# It packs a busybox initramfs (scripts/guest-init.sh as /init), boots it, streams the
# serial console, pulls the guest's result files out of the console framing, and fails on
# any kernel warning, oops, lockup or stall seen on the console or in the guest's dmesg,
# telling a host pause (the vCPU had no host CPU) from a guest fault (vm-host-pause.sh).
# See usage() for options, exit statuses and the guest-side contract.
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
# shellcheck disable=SC2034 # read by lib.sh's messages (plain shellcheck does not follow it)
PIDX_PROG=vm-run
# shellcheck source=lib.sh disable=SC1091 # followed with shellcheck -x
. "$SELF_DIR/lib.sh"
# shellcheck source=vm-initramfs.sh
. "$SELF_DIR/vm-initramfs.sh"
# shellcheck source=vm-host-pause.sh
. "$SELF_DIR/vm-host-pause.sh"

usage() {
	cat <<'EOF'
Usage: scripts/vm-run.sh [options] GUEST_SCRIPT [-- ARGS for the guest script]
       scripts/vm-run.sh --extract CONSOLE_LOG [--out DIR] [--quiet] [--no-kcheck]
                         [--kcsan-module M [--kcsan-library RE] [--kcsan-builtin FILE]]

Boots a stock kernel under QEMU with a busybox initramfs, runs GUEST_SCRIPT (busybox sh,
as root; it loads the module itself from $PIDX_KO) and copies the guest's /out to OUT.

Kernel (default: newest /boot/vmlinuz-*-cloud-amd64 that has headers; installs
linux-image-cloud-amd64 + linux-headers-cloud-amd64 when there is none):
  --kernel IMAGE      boot this bzImage
  --headers DIR       build the module against these headers
  --release REL       /boot/vmlinuz-REL and /lib/modules/REL/build (installed if missing)
Machine:
  --smp N             vCPUs (default 2)
  --mem MB            memory (default 2048)
  --numa              two NUMA nodes, CPUs and memory split in halves (needs --smp >= 2)
  --accel A           auto|tcg|kvm (default auto: tcg unless a cached probe saw KVM boot)
  --append STR        extra kernel command line
  --timeout S         kill the guest after S seconds (default 600)
Payload:
  --ko PATH           module to ship as /pidx/pidx.ko (default: make -C REPO KDIR=HEADERS)
  --file SRC          extra file (or directory) copied into the guest's /pidx/ (repeatable)
                      (REPO/tests/guest/*.sh are always copied there too)
Output:
  --out DIR           where result files land (default: a new mktemp dir, printed)
  --quiet             console only to OUT/console.log, not to stdout
  --progress          a second serial port, the guest's /dev/ttyS1 (PIDX_PROGRESS), whose
                      host end is a file: each line the guest writes there is printed to
                      stderr as it arrives, as "vm-run: guest: LINE"
  --no-kcheck         do not fail on kernel warnings/oopses/stalls
  --kcsan-module M    a KCSAN report is a kernel problem only when one side's access is in
                      module M's code, or in a library function matching --kcsan-library
                      called from M's code; the others (the kernel's own races) are
                      ignored and listed in OUT/kcsan-ignored.txt
  --kcsan-library RE  the library functions (an extended regex on the name, e.g.
                      '^_find_next_bit') that count for M; also written to the guest's
                      /pidx/kcsan-library (with M in /pidx/kcsan-module), whence the
                      guest suite adds them to KCSAN's report whitelist
  --kcsan-builtin FILE  function names, one a line, of M's code built into the kernel
                      itself (pidx's system series: kernel/pidx/ and its hooks): a frame
                      of one of them, without a module tag, counts as M's; also
                      written to the guest's /pidx/kcsan-builtin for the whitelist
  --initrd-only PATH  write the initramfs to PATH and exit (to boot it elsewhere)
  --extract LOG       no boot: take the files and verdict from a console log captured
                      elsewhere (e.g. a guest booted from --initrd-only on another machine)

Guest side: busybox sh as root, cwd /pidx; OUT=/out PIDX_DIR=/pidx PIDX_KO=/pidx/pidx.ko
PIDX_ACCEL PIDX_KERNEL PIDX_NCPUS (PIDX_PROGRESS too, with --progress); debugfs at
/sys/kernel/debug; /pidx holds guest.sh, pidx.ko, args (one argument per line), accel,
kernel and the extra files.  Files written
under /out come back to OUT with their relative paths, plus OUT/dmesg.txt (the guest's
dmesg) and OUT/console.log (the whole console, frames included).  The guest script should
not print the kernel-problem words (WARNING:, BUG:, Call Trace, ...) itself.

Exit status: the guest script's, when the guest finished cleanly; otherwise
  1 runner error (build failed, file corrupted in transfer, ...)   2 usage or prerequisites
  123 host pause suspected: the run failed (any of the below, or the guest script's own
      failure) with evidence that the host starved or stopped the guest and none of a
      guest fault; each piece of evidence is printed as "vm-run: host pause: ..."; boot
      again, once (tests/run-all.sh does)
  122 the kernel faulted in its own boot: a kernel problem on the console before /init
      started (its "pidx-init:" line), so before any module or guest code ran, and no
      exit marker; boot again, once (tests/run-all.sh does)
  124 timeout   125 kernel problem (WARNING, BUG, Oops, lockup, stall, ...)
  126 the guest stopped without its exit marker (panic, crash, qemu failure)
Evidence of a host pause: a vCPU thread that got no host CPU for 1 s or more, qemu
stopped, the runner itself held up (sampled on the host, listed in OUT/host-pauses.txt);
"hrtimer: interrupt took N ns" over a second; the clocksource watchdog marking a clock
unstable; a stall or soft lockup outside every pidx run (the module marks them in dmesg)
with no pidx code in it and its CPUs idle or serving user space.
EOF
}

# Console/dmesg lines that mean the kernel is unhappy.  Matched as fixed strings.
KPATTERNS=("WARNING:" "BUG:" "Oops" "Kernel panic" "soft lockup" "hard LOCKUP" "rcu: INFO"
	"self-detected stall" "detected stalls" "Objects remaining" "general protection fault"
	"Call Trace" "UBSAN" "KASAN" "list_add corruption" "list_del corruption"
	"possible recursive locking" "circular locking" "suspicious RCU usage"
	"sleeping function called from invalid context" "scheduling while atomic"
	"hung_task" "blocked for more than")

kernel='' headers='' release='' smp=2 mem=2048 accel=auto timeout_s=600 out='' ko='' numa=0
quiet=0 kcheck=1 initrd_only='' extract='' append='' guest='' progress=0
kcsan_module='' kcsan_library='' kcsan_builtin=''
files=() gargs=()

needarg() { [ $# -ge 2 ] || die -c 2 "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) needarg "$@"; kernel=$2; shift 2 ;;
	--headers) needarg "$@"; headers=$2; shift 2 ;;
	--release) needarg "$@"; release=$2; shift 2 ;;
	--smp) needarg "$@"; smp=$2; shift 2 ;;
	--mem) needarg "$@"; mem=$2; shift 2 ;;
	--accel) needarg "$@"; accel=$2; shift 2 ;;
	--timeout) needarg "$@"; timeout_s=$2; shift 2 ;;
	--out) needarg "$@"; out=$2; shift 2 ;;
	--ko) needarg "$@"; ko=$2; shift 2 ;;
	--file) needarg "$@"; files+=("$2"); shift 2 ;;
	--append) needarg "$@"; append=$2; shift 2 ;;
	--initrd-only) needarg "$@"; initrd_only=$2; shift 2 ;;
	--extract) needarg "$@"; extract=$2; shift 2 ;;
	--numa) numa=1; shift ;;
	--quiet) quiet=1; shift ;;
	--progress) progress=1; shift ;;
	--no-kcheck) kcheck=0; shift ;;
	--kcsan-module) needarg "$@"; kcsan_module=$2; shift 2 ;;
	--kcsan-library) needarg "$@"; kcsan_library=$2; shift 2 ;;
	--kcsan-builtin) needarg "$@"; kcsan_builtin=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die -c 2 "unknown option $1 (see --help)" ;;
	*) guest=$1; shift; break ;;
	esac
done
# "-- GUEST_SCRIPT ARGS" works too; whatever follows GUEST_SCRIPT (after an optional --)
# is for the guest script.
if [ -z "$guest" ] && [ $# -gt 0 ]; then guest=$1; shift; fi
if [ -n "$guest" ] && [ "${1:-}" = -- ]; then shift; fi
gargs=("$@")

isnum() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]; }
isnum "$smp" || die -c 2 "--smp wants a positive number, not '$smp'"
isnum "$mem" || die -c 2 "--mem wants megabytes, not '$mem'"
isnum "$timeout_s" || die -c 2 "--timeout wants seconds, not '$timeout_s'"
case $accel in auto | tcg | kvm) ;; *) die -c 2 "--accel is auto, tcg or kvm, not '$accel'" ;; esac
if [ "$numa" = 1 ] && [ "$smp" -lt 2 ]; then die -c 2 "--numa needs --smp 2 or more"; fi
if [ -n "$kcsan_library" ]; then
	[ -n "$kcsan_module" ] || die -c 2 "--kcsan-library needs --kcsan-module"
	# awk takes it as a dynamic regex; a bad one must not pass as matching nothing
	awk -v re="$kcsan_library" 'BEGIN { if ("" ~ re) exit 1 }' </dev/null 2>/dev/null ||
		die -c 2 "--kcsan-library '$kcsan_library' is not a regex that names functions"
fi
case $kcsan_module in *[!A-Za-z0-9_]*) die -c 2 "--kcsan-module wants a module name, not '$kcsan_module'" ;; esac
if [ -n "$kcsan_builtin" ]; then
	[ -n "$kcsan_module" ] || die -c 2 "--kcsan-builtin needs --kcsan-module"
	[ -s "$kcsan_builtin" ] || die -c 2 "--kcsan-builtin $kcsan_builtin is missing or empty"
fi
if [ -z "$extract" ]; then
	[ -n "$guest" ] || { usage >&2; exit 2; }
	[ -f "$guest" ] || die -c 2 "guest script $guest not found"
	for a in ${gargs[@]+"${gargs[@]}"}; do
		case $a in *$'\n'*) die -c 2 "guest arguments cannot contain newlines" ;; esac
	done
fi

tmp=$(mktemp -d -t pidx-vm.XXXXXX)
monitor='' follower=''
trap '[ -z "$monitor" ] || kill "$monitor" 2>/dev/null; [ -z "$follower" ] || kill "$follower" 2>/dev/null; rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- kernel and headers

# The release string of a bzImage, read from its setup header ("HdrS" at 0x202, the
# kernel_version field at 0x20E: an offset from 0x200), so that any image names itself.
image_release() {
	local off
	[ "$(dd if="$1" bs=1 skip=$((0x202)) count=4 status=none 2>/dev/null | tr -d '\0')" = HdrS ] || return 1
	off=$(od -An -tu2 -j $((0x20E)) -N2 "$1" 2>/dev/null | tr -d ' ') || return 1
	[ -n "$off" ] && [ "$off" -gt 0 ] || return 1
	dd if="$1" bs=1 skip=$((off + 0x200)) count=128 status=none 2>/dev/null |
		tr '\0' '\n' | head -n1 | cut -d' ' -f1
}

# Newest Debian cloud kernel in /boot whose headers are installed.
newest_cloud_kernel() {
	local img rel best=
	for img in /boot/vmlinuz-*-cloud-amd64; do
		[ -e "$img" ] || continue
		rel=${img#/boot/vmlinuz-}
		[ -d "/lib/modules/$rel/build" ] && best+="$rel"$'\n'
	done
	[ -n "$best" ] && printf '%s' "$best" | sort -V | tail -n1
}

# headers are needed only when we build the module ourselves
need_headers=1
[ -n "$ko" ] && need_headers=0

resolve_kernel() {
	if [ -n "$kernel" ]; then
		[ -f "$kernel" ] || die -c 2 "kernel image $kernel not found"
		[ -r "$kernel" ] || die -c 2 "cannot read $kernel (Debian installs images mode 0600): run as root"
		release=$(image_release "$kernel") || release=''
		if [ -z "$release" ]; then
			release=$(basename "$kernel" | sed 's/^vmlinuz-//')
			warn "$kernel has no bzImage header: calling its release $release"
		fi
		if [ -z "$headers" ] && [ "$need_headers" = 1 ]; then
			headers=/lib/modules/$release/build
			[ -d "$headers" ] || die -c 2 "no headers for $release at $headers: give --headers or --ko"
		fi
		return
	fi
	if [ -n "$headers" ]; then
		# Debian's headers say only the upstream version in include/config/kernel.release,
		# so the release comes from the directory's name.
		local real
		real=$(readlink -f "$headers")
		[ -d "$real" ] || die -c 2 "headers directory $headers not found"
		case $real in
		*/linux-headers-*) release=${real##*/linux-headers-} ;;
		/lib/modules/*/build) release=${real#/lib/modules/}; release=${release%/build} ;;
		*) die -c 2 "cannot tell the release of $headers: give --kernel too" ;;
		esac
		kernel=/boot/vmlinuz-$release
		[ -f "$kernel" ] || die -c 2 "no $kernel for headers $headers: give --kernel"
		[ -r "$kernel" ] || die -c 2 "cannot read $kernel (Debian installs images mode 0600): run as root"
		return
	fi
	if [ -n "$release" ]; then
		local pk=()
		[ -f "/boot/vmlinuz-$release" ] || pk+=("linux-image-$release")
		[ "$need_headers" = 0 ] || [ -d "/lib/modules/$release/build" ] || pk+=("linux-headers-$release")
		[ ${#pk[@]} -eq 0 ] || ensure_pkgs "${pk[@]}"
	else
		release=$(newest_cloud_kernel) || release=
		if [ -z "$release" ]; then
			ensure_pkgs linux-image-cloud-amd64 linux-headers-cloud-amd64
			release=$(newest_cloud_kernel) ||
				die -c 2 "no /boot/vmlinuz-*-cloud-amd64 with headers even after installing them"
		fi
	fi
	kernel=/boot/vmlinuz-$release
	[ -f "$kernel" ] || die -c 2 "$kernel missing"
	[ -r "$kernel" ] || die -c 2 "cannot read $kernel (Debian installs images mode 0600): run as root"
	[ -n "$headers" ] || headers=/lib/modules/$release/build
	if [ "$need_headers" = 1 ] && [ ! -d "$headers" ]; then die -c 2 "headers $headers missing"; fi
}

# ---------------------------------------------------------------- accelerator

# KVM here can hang at boot, so auto uses it only after a quick probe boot printed a marker;
# the verdict is cached per kernel image (release + checksum) so the probe costs once.
accel_why=
choose_accel() {
	case $accel in
	tcg) accel_why="tcg: requested"; return ;;
	kvm)
		if ! { [ -r /dev/kvm ] && [ -w /dev/kvm ]; }; then die -c 2 "--accel kvm but /dev/kvm is not usable"; fi
		accel_why="kvm: requested"
		return
		;;
	esac
	if [ -n "$initrd_only" ]; then accel=tcg accel_why="tcg: default for --initrd-only"; return; fi
	if ! { [ -r /dev/kvm ] && [ -w /dev/kvm ]; }; then
		accel=tcg accel_why="tcg: no usable /dev/kvm"
		return
	fi
	local cache=${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/pidx sum verdict
	sum=$(md5sum <"$kernel" | cut -c1-12)
	local cf=$cache/kvm-probe-$release-$sum
	if [ -f "$cf" ]; then
		verdict=$(cat "$cf")
	else
		info "probing KVM with $release (20 s at most; cached in $cf)"
		verdict=fail
		kvm_probe && verdict=ok
		if ! { mkdir -p "$cache" && echo "$verdict" >"$cf"; }; then warn "cannot write $cf"; fi
	fi
	if [ "$verdict" = ok ]; then
		accel=kvm accel_why="kvm: probe booted"
	else
		accel=tcg accel_why="tcg: KVM probe failed"
	fi
}

kvm_probe() {
	local st=$tmp/probe
	stage_skeleton "$st"
	printf '#!/bin/busybox sh\n/bin/busybox echo PIDX-KVM-PROBE-OK\n/bin/busybox poweroff -f\n' >"$st/init"
	chmod 755 "$st/init"
	pack "$st" "$tmp/probe.gz"
	timeout -k 2 20 "$qemu" -enable-kvm -cpu host -smp 1 -m 256 -kernel "$kernel" \
		-initrd "$tmp/probe.gz" -append "console=ttyS0 panic=-1 loglevel=1" \
		-nodefaults -display none -serial stdio -monitor none -no-reboot -net none \
		</dev/null >"$tmp/probe.log" 2>&1 || true
	grep -q PIDX-KVM-PROBE-OK "$tmp/probe.log"
}

# ---------------------------------------------------------------- console parsing

# The result files come over the emulated UART, about 200 KB/s under TCG on the loaded
# 2-core host.  A virtio-serial port took 0.1 s for 2.8 MB, but the cloud kernel has
# virtio_console as a module (with five more under it), and loading them in the guest
# cost 2.3 s per boot: more than the UART takes for make check's outputs (under 0.1 MB,
# about 0.4 s) or for the largest reference sweep's (0.44 MB of base64, about 2.2 s).

# Reads the console on stdin.  Every line, carriage returns stripped, goes to
# $out/console.log (frames included, so --extract can read it again).  Plain lines go to
# stdout (unless quiet) and to $tmp/frames/plain.log (what the kernel check scans);
# frame bodies go to numbered .b64
# files listed in $tmp/frames/manifest as "N<TAB>md5<TAB>path".  A non-base64 line inside a
# frame is a stray console line: it is treated as plain, and the md5 check judges the file.
parse_console() {
	mkdir -p "$tmp/frames"
	: >"$tmp/frames/manifest"
	# shellcheck disable=SC2016 # awk program, not shell
	awk -v quiet="$quiet" -v dir="$tmp/frames" -v consolef="$out/console.log" '
	function plain(l) {
		print l > plainf
		fflush(consolef)
		if (!quiet) { print l; fflush() }
	}
	BEGIN { plainf = dir "/plain.log"; printf "" > plainf; printf "" > consolef; inf = 0; n = 0 }
	{
		sub(/\r+$/, "")
		print > consolef
		if ($0 ~ /^==PIDX-FILE-BEGIN .+==$/) {
			if (inf) { close(body); print "broken frame: " path > (dir "/broken") }
			path = substr($0, 19, length($0) - 20)
			n++; body = dir "/" n ".b64"; printf "" > body
			inf = 1; bytes = 0
			next
		}
		if (inf && $0 ~ /^==PIDX-FILE-END .+ [0-9a-f]+==$/) {
			rest = substr($0, 17, length($0) - 18)
			sum = rest; sub(/.* /, "", sum)
			p = rest; sub(/ [^ ]*$/, "", p)
			close(body); inf = 0
			if (p != path) { print "frame end does not match its start: " path > (dir "/broken"); next }
			print n "\t" sum "\t" p > (dir "/manifest")
			if (!quiet) { print "vm-run: received " p " (" bytes " bytes)"; fflush() }
			next
		}
		if (inf && $0 ~ /^[A-Za-z0-9+\/=]*$/) {
			print > body
			pad = $0; bytes += length($0) / 4 * 3 - gsub(/=/, "", pad)
			next
		}
		plain($0)
	}
	END { if (inf) print "frame never ended: " path > (dir "/broken") }
	'
}

# Moves the received files into $out and checks them; prints problems, returns 1 if any.
collect_files() {
	local n sum path dst got bad=0 count=0
	while IFS=$'\t' read -r n sum path; do
		case /$path/ in
		*/../* | *//* | */./*)
			warn "refusing file with unsafe path '$path'"
			bad=1
			continue
			;;
		esac
		if [ "$path" = console.log ]; then
			warn "guest file console.log would overwrite the console log: skipped"
			continue
		fi
		dst=$out/$path
		mkdir -p "$(dirname "$dst")"
		if ! base64 -d <"$tmp/frames/$n.b64" >"$dst" 2>/dev/null; then
			warn "$path: base64 does not decode (console corruption)"
			bad=1
			continue
		fi
		got=$(md5sum <"$dst" | cut -d' ' -f1)
		if [ "$got" != "$sum" ]; then
			warn "$path: md5 $got, guest said $sum (console corruption)"
			bad=1
			continue
		fi
		count=$((count + 1))
		echo "$path" >>"$tmp/received"
	done <"$tmp/frames/manifest"
	if [ -s "$tmp/frames/broken" ]; then
		while IFS= read -r l; do warn "$l"; done <"$tmp/frames/broken"
		bad=1
	fi
	[ "$quiet" = 1 ] && [ "$count" -gt 0 ] && info "received $count file(s)"
	return "$bad"
}

# --kcsan-module: the KCSAN reports of LOG (from "BUG: KCSAN:" to the closing "===" line)
# that stand in the module, on stdout with every other line; each other one goes to
# IGNORED, whole, and its header line to IGNORED.heads.  A side of a report (its access
# and stack) stands in the module when its top frame is the module's ("... [M]"), or
# when its top frames are library functions matching --kcsan-library and the first frame
# below them is the module's.  With --kcsan-builtin, a frame without a module tag of a
# function it names is the module's too.  A weak-memory report's "reordered to:" line is
# a frame.
kcsan_sift() { # LOG IGNORED
	# shellcheck disable=SC2016 # awk program, not shell
	awk -v mod="[$kcsan_module]" -v re="$kcsan_library" -v ign="$2" -v bfile="$kcsan_builtin" '
	BEGIN { if (bfile != "") while ((getline l < bfile) > 0) builtin[l] = 1 }
	function bare(l) { sub(/^\[ *[0-9]+\.[0-9]+\] /, "", l); sub(/^\[ *[CT][0-9]+\] /, "", l); return l }
	function done_report(   i) {
		if (stands) {
			for (i = 1; i <= n; i++) print buf[i]
		} else {
			for (i = 1; i <= n; i++) print buf[i] > ign
			print head > (ign ".heads")
		}
		inrep = 0
	}
	function frame(f,   fn, inmod) {
		inmod = substr(f, length(f) - length(mod) + 1) == mod
		fn = f; sub(/[+ ].*/, "", fn)
		if (!inmod && f !~ /\]$/ && (fn in builtin)) inmod = 1
		if (!lib) return
		if (inmod) { stands = 1; lib = 0 }
		else if (re == "" || fn !~ re) lib = 0
	}
	{
		s = bare($0)
		if (index(s, "BUG: KCSAN: ")) {
			if (inrep) done_report()
			inrep = 1; n = 0; stands = 0; head = s; side = 0
		}
		if (!inrep) { print; next }
		buf[++n] = $0
		if (n > 1 && s ~ /^=+$/) { done_report(); next }
		if (s ~ /^(read|write|assert)/ && s ~ / on cpu [0-9]+:$/) { side = 1; lib = 1; next }
		if (!side) next
		if (s == "") { side = 0; next }
		sub(/^[ |]*(\+-> reordered to: )?/, "", s)
		if (s ~ /^[A-Za-z_.][A-Za-z0-9_.$]*\+0x[0-9a-f]+\/0x[0-9a-f]+( \[[A-Za-z0-9_]+\])?$/) frame(s)
	}
	END { if (inrep) done_report() }
	' "$1"
}

# The console (frames excluded) and the received dmesg.txt as the kernel check reads
# them: with --kcsan-module, less the KCSAN reports that do not stand in the module,
# which go to OUT/kcsan-ignored.txt (those of the console; dmesg.txt repeats them).
kscan_console=$tmp/frames/plain.log
kscan_dmesg=
kcsan_prepare() {
	kscan_dmesg=$out/dmesg.txt
	[ -n "$kcsan_module" ] || return 0
	rm -f "$tmp/kcsan-ign" "$tmp/kcsan-ign.heads" "$tmp/kcsan-dign" "$tmp/kcsan-dign.heads"
	kcsan_sift "$tmp/frames/plain.log" "$tmp/kcsan-ign" >"$tmp/plain.kcsan"
	kscan_console=$tmp/plain.kcsan
	if grep -qx dmesg.txt "$tmp/received" 2>/dev/null; then
		kcsan_sift "$out/dmesg.txt" "$tmp/kcsan-dign" >"$tmp/dmesg.kcsan"
		kscan_dmesg=$tmp/dmesg.kcsan
		# the console shows KCSAN's reports (KERN_ERR) as dmesg.txt holds them; should
		# only dmesg.txt hold some, list those
		if [ ! -s "$tmp/kcsan-ign.heads" ] && [ -s "$tmp/kcsan-dign.heads" ]; then
			mv "$tmp/kcsan-dign" "$tmp/kcsan-ign"
			mv "$tmp/kcsan-dign.heads" "$tmp/kcsan-ign.heads"
		fi
	fi
	if [ -s "$tmp/kcsan-ign.heads" ]; then
		cp "$tmp/kcsan-ign" "$out/kcsan-ignored.txt"
		info "KCSAN: $(wc -l <"$tmp/kcsan-ign.heads") report(s) outside $kcsan_module ignored (OUT/kcsan-ignored.txt): $(head -n 1 "$tmp/kcsan-ign.heads")"
	fi
}

# First kernel-problem line in the console (frames excluded) or the received dmesg.txt.
kernel_problem() {
	local pat=() p f hit
	for p in "${KPATTERNS[@]}"; do pat+=(-e "$p"); done
	for f in "$kscan_console" "$kscan_dmesg"; do
		[ "$f" = "$kscan_dmesg" ] && ! grep -qx dmesg.txt "$tmp/received" 2>/dev/null && continue
		[ -f "$f" ] || continue
		# The kernel echoes its command line (and unknown parameters), which may name
		# hung_task_* and such options.
		hit=$(grep -a -v -i 'command line' "$f" | grep -a -F -m1 "${pat[@]}" || true)
		if [ -n "$hit" ]; then
			printf '%s (in %s)\n' "$hit" "$([ "$f" = "$kscan_dmesg" ] && echo dmesg.txt || echo console)"
			return 0
		fi
	done
	return 1
}

# Whether the console's first kernel problem came before /init started (guest-init.sh's
# first "pidx-init:" line): the kernel's own boot failed, whatever the module does.
boot_fault() {
	grep -a -v -i 'command line' "$tmp/frames/plain.log" |
		awk 'BEGIN { np = ARGC - 1; for (i = 1; i <= np; i++) pat[i] = ARGV[i]; ARGC = 1; r = 1 }
			/^pidx-init: / { exit }
			{ for (i = 1; i <= np; i++) if (index($0, pat[i])) { r = 0; exit } }
			END { exit r }' "${KPATTERNS[@]}"
}

tail_console() {
	{
		echo "--- last 40 console lines ---"
		tail -n 40 "$tmp/frames/plain.log" 2>/dev/null || true
		echo "--- end of console (full log: $out/console.log) ---"
	} >&2
}

fail() { # CODE REASON: the console's end, then the reason as the last line
	tail_console
	info "FAIL: $2"
	exit "$1"
}

# Verdict from what parse_console left behind; QST is qemu's (or timeout's) exit status.
verdict() {
	local qst=$1 marker rc problem=
	local xfer_ok=1
	collect_files || xfer_ok=0
	kcsan_prepare
	marker=$(grep -a -E '^==PIDX-GUEST-EXIT [0-9]+==$' "$tmp/frames/plain.log" | tail -n1 || true)
	if [ "$kcheck" = 1 ]; then problem=$(kernel_problem) || problem=; fi
	host_pause_evidence
	if [ -z "$marker" ]; then
		if [ "$qst" = 124 ] || [ "$qst" = 137 ]; then
			fail_or_pause 124 "timeout: the guest did not finish within $timeout_s s (qemu killed)${problem:+; kernel problem: $problem}"
		fi
		[ -s "$tmp/qemu.err" ] && sed 's/^/qemu: /' "$tmp/qemu.err" >&2
		local how="qemu status $qst"
		[ -z "$extract" ] || how="the log has no exit marker"
		if [ -n "$problem" ] && boot_fault; then
			fail_or_pause 122 "the kernel faulted in its own boot, before /init started (no module or guest code had run; $how): $problem"
		fi
		fail_or_pause 126 "the guest stopped without its exit marker (panic, crash or qemu failure; $how)${problem:+; kernel problem: $problem}"
	fi
	rc=${marker#==PIDX-GUEST-EXIT }
	rc=${rc%==}
	[ -z "$problem" ] || fail_or_pause 125 "kernel problem: $problem (guest script exit status $rc)"
	[ "$xfer_ok" = 1 ] || fail 1 "result files were damaged in transfer (guest script exit status $rc)"
	# a guest script's own failures may come of a host pause too (a round past the
	# module's bound, a timing ratio)
	[ "$rc" = 0 ] || [ ! -s "$tmp/pause" ] || fail_or_pause "$rc" "guest script exited $rc"
	local l
	if [ -s "$tmp/pause" ]; then
		while IFS= read -r l; do info "host pause seen, no harm done: $l"; done <"$tmp/pause"
	fi
	info "guest script exited $rc; results in $out"
	exit "$rc"
}

# ---------------------------------------------------------------- progress

# --progress: the guest's second serial port (/dev/ttyS1) is a plain file on the host, so
# that what the guest reports while it runs reaches the user at once, beside the console
# that carries the results.  QEMU's file backend takes every byte as it is written, so the
# emulated UART's transmit register is empty again at once and the guest never waits on
# the host, however slowly this side reads.
# Follows FILE (tail -F style, by polling) until DONEFILE exists, then reads what is left:
# every complete line goes to stderr as "vm-run: guest: LINE"; an unfinished last line
# is dropped.
follow_progress() { # FILE DONEFILE
	local fd l part='' last=0
	exec {fd}<"$1"
	while :; do
		if IFS= read -r -u "$fd" l; then
			l=$part$l part=''
			info "guest: ${l%$'\r'}"
			continue
		fi
		# read took the unfinished line's text too: kept for when its newline comes
		part+=$l
		[ "$last" = 0 ] || break
		if [ -e "$2" ]; then last=1; else sleep 0.5; fi
	done
	exec {fd}<&-
}

# ---------------------------------------------------------------- main

prep_out() {
	if [ -z "$out" ]; then
		out=$(mktemp -d -t pidx-vm-out.XXXXXX)
	else
		mkdir -p "$out"
	fi
	out=$(cd "$out" && pwd)
}

if [ -n "$extract" ]; then
	[ -f "$extract" ] || die -c 2 "console log $extract not found"
	prep_out
	info "extracting from $extract into $out"
	# The log may be the very console.log in $out: read it before that is rewritten.
	cp "$extract" "$tmp/console.in"
	parse_console <"$tmp/console.in"
	verdict 0
fi

need_cmds qemu-system-x86_64:qemu-system-x86 cpio:cpio gzip:gzip timeout:coreutils
busybox=$(find_busybox) || {
	ensure_pkgs busybox-static
	busybox=$(find_busybox) || die -c 2 "no static busybox even after installing busybox-static"
}
qemu=$(command -v qemu-system-x86_64)

resolve_kernel

if [ -z "$ko" ]; then
	need_cmds make:make gcc:gcc
	info "building pidx.ko against $headers"
	make -C "$REPO" KDIR="$headers" >&2 || die "building pidx.ko failed (make -C $REPO KDIR=$headers)"
	ko=$REPO/pidx.ko
fi
[ -f "$ko" ] || die -c 2 "module $ko not found"

choose_accel

# console=ttyS0: everything on the one serial line we parse.  loglevel=5: the console shows
# KERN_WARNING and worse (a message shows when its level is below the console loglevel, and
# WARN() and its call trace are KERN_WARNING), so a guest that then hangs still shows why,
# while KERN_NOTICE/INFO boot chatter stays in dmesg.  panic=-1 with -no-reboot: a panic
# ends qemu at once instead of hanging until the timeout.  log_buf_len: a long run's dmesg
# must still hold the boot when the guest saves it.  Warnings deliberately do not panic
# (no oops=panic, panic_on_warn): the guest finishes, and the scan fails the run.
# tsc=reliable: under TCG the kernel distrusts the TSC and falls back to the HPET, whose
# emulated reads made one ktime_get_ns() pair cost about 355 ns instead of about 94 ns
# (measured in one guest each); the benchmark reads the clock around every sampled op.
# rcu_cpu_stall_timeout=60 watchdog_thresh=30 (soft lockups after 60 s): a host pause of
# tens of seconds (38 s seen) no longer sets off the stall detectors, while a round that
# never ends or a lock never released is still reported, after a minute; the module
# bounds its own rounds at 5 s.  Measured with qemu stopped (SIGSTOP) for 38 s, two
# CPU-bound loops beside it: with the defaults (21 s, 20 s) a soft lockup (and an RCU
# stall) in user space, and one during a storm, which no retry may excuse; with these,
# nothing in user space, and during the storm only the module's own FAILED, which the
# runner's host-pause evidence explains.  An expedited grace period in flight (one was,
# at boot) still warns after 21 s: its timeout cannot go higher.  --append comes last
# and wins.
cmdline="console=ttyS0 panic=-1 loglevel=5 log_buf_len=8M tsc=reliable"
cmdline+=" rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30${append:+ $append}"
initrd=$tmp/initrd.gz
progress_file=$tmp/progress.ser
if [ -n "$initrd_only" ]; then initrd=$initrd_only progress_file=progress.ser; fi
# -nodefaults: no VGA, floppy, CD-ROM or NIC to probe (about 1 s of a 3-4 s TCG boot), so
# the serial port is declared explicitly.
# -name ...,debug-threads=on names the vCPU threads ("CPU 0/TCG"), for host_monitor().
# shellcheck disable=SC2054 # the commas are QEMU option syntax, inside single words
qargs=(-nodefaults -display none -serial stdio -monitor none -no-reboot -net none
	-name pidx,debug-threads=on -m "$mem" -kernel "$kernel" -initrd "$initrd" -append "$cmdline")
[ "$numa" = 1 ] || qargs+=(-smp "$smp")
if [ "$accel" = kvm ]; then
	qargs+=(-enable-kvm -cpu host)
else
	qargs+=(-accel 'tcg,thread=multi')
fi
numa_desc=''
if [ "$numa" = 1 ]; then
	# One socket per node, so that no last-level cache spans two nodes (the kernel WARNs in
	# topology_sane() otherwise): two sockets of smp/2 cores, or, for an odd count, one
	# socket per CPU.  Node 0 gets the first half of the CPUs and of the memory.
	h=$((smp / 2)) m0=$((mem / 2))
	if [ $((smp % 2)) = 0 ]; then spc=$h; else spc=1; fi
	# shellcheck disable=SC2054 # the commas are QEMU option syntax, inside single words
	qargs+=(-smp "$smp,sockets=$((smp / spc)),cores=$spc,threads=1"
		-object "memory-backend-ram,id=ram0,size=${m0}M" -object "memory-backend-ram,id=ram1,size=$((mem - m0))M"
		-numa node,nodeid=0,memdev=ram0 -numa node,nodeid=1,memdev=ram1)
	for ((sk = 0; sk < smp / spc; sk++)); do
		qargs+=(-numa "cpu,node-id=$((sk * spc < h ? 0 : 1)),socket-id=$sk")
	done
	numa_desc=", 2 NUMA nodes (CPUs 0-$((h - 1)) | $h-$((smp - 1)))"
fi
# The second -serial is the guest's ttyS1 (0x2f8, IRQ 3); a comma in a path is doubled.
# shellcheck disable=SC2054 # the commas are QEMU option syntax, inside single words
[ "$progress" = 0 ] || qargs+=(-chardev "file,id=progress,path=${progress_file//,/,,}" -serial chardev:progress)

if [ -n "$initrd_only" ]; then
	mkdir -p "$(dirname "$initrd_only")"
	build_initramfs "$tmp/initrd.gz" "$accel"
	cp "$tmp/initrd.gz" "$initrd_only"
	info "wrote $initrd_only ($(stat -c %s "$initrd_only") bytes) for $release, accel $accel"
	# The exact command this run would have used, for the machine the initramfs goes to.
	info "boot it with: qemu-system-x86_64 $(printf '%q ' "${qargs[@]}")</dev/null | tee console.log"
	info "then: $0 --extract console.log --out DIR"
	exit 0
fi

prep_out
build_initramfs "$initrd" "$accel"

info "kernel $release ($kernel), accel $accel ($accel_why), $smp vCPUs, $mem MB$numa_desc; output in $out"

start=$(date +%s.%N)
host_monitor "$tmp/qemu.pid" "$tmp/host.log" "$tmp/qemu.done" </dev/null &
monitor=$!
if [ "$progress" = 1 ]; then
	# created here so that it can be opened now; QEMU truncates the same file
	: >"$progress_file"
	follow_progress "$progress_file" "$tmp/qemu.done" </dev/null &
	follower=$!
fi
# stdin from /dev/null: qemu must not take the terminal (raw mode would swallow Ctrl-C).
# timeout --foreground keeps qemu in our process group so Ctrl-C still reaches it.
set +e
timeout --foreground -k 5 "$timeout_s" "$qemu" "${qargs[@]}" -pidfile "$tmp/qemu.pid" \
	</dev/null 2>"$tmp/qemu.err" | parse_console
st=("${PIPESTATUS[@]}")
touch "$tmp/qemu.done"
wait "$monitor"
monitor=
if [ -n "$follower" ]; then wait "$follower"; fi
follower=
set -e
info "qemu ran $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
if [ "${st[1]}" != 0 ]; then die "console capture failed (awk status ${st[1]})"; fi
verdict "${st[0]}"
