#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# SPDX-License-Identifier: GPL-2.0
#
# device-system.sh: the system benchmark's boots on a lent 16-core machine
# (../shared/device/README.md), in one prepared call.  That machine has no
# package registries and no usable KVM: everything goes in .lab/ (a QEMU
# bundle with the system kernel, the stock kernel, one initramfs with
# pidx-sysbench and the guest script, the plan, and lab-run.sh, which boots
# each index of each repeat under multi-threaded TCG at N vCPUs and keeps
# every console).  Back here, collect turns the consoles into the system
# benchmark's rows (scripts/bench-system.sh's format), whose ncpus column is
# N, so that the report can set each index's rate against vCPUs.
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
# shellcheck disable=SC2034 # PIDX_PROG names this script in lib.sh's messages
PIDX_PROG=device-system
# shellcheck source=lib.sh disable=SC1091
. "$SELF_DIR/lib.sh"

usage() {
	cat <<'EOF'
Usage: scripts/device-system.sh prepare [--smp N] [--repeat R] [--seconds S]
                                        [--workloads LIST] [--indexes LIST]
       scripts/device-system.sh run-local OUT_DIR     (the device's call, here)
       scripts/device-system.sh collect LOG_DIR --out DIR

prepare   builds .lab/ (the system and stock kernels must be built: make
          bench SYSTEM=1 or scripts/build-debug-kernel.sh --system/--stock)
          and prints the device tool's one call: carry [".lab"], and
          `bash .lab/lab-run.sh "$OUT"`.  Defaults: --smp 16, --repeat 3,
          --seconds 1, the workloads of bench-system.sh, the indexes the
          system kernel takes, in bench-system.sh's shuffled orders; it
          prints the estimate, which must fit the call's 600 s.
run-local runs .lab/lab-run.sh on this machine (the test of a prepared lab
          at this host's size: prepare with --smp 2).
collect   turns the consoles of a lab run (LOG_DIR/r*-*-*.log) into DIR's
          system.txt, meta and results.csv (substrate system-tcg, ncpus N).
EOF
}

LAB=$REPO/.lab
cmd=${1:-}
[ $# -gt 0 ] && shift
SMP=16 REPEAT=3 SECS=1
WORKLOADS=threadspawn,fork,vfork,nsfork:2,procwalk:1000,kill:1000
INDEXES=auto
OUTDIR=
needarg() { [ $# -ge 2 ] || die -c 2 "$1 needs a value (see --help)"; }
pos=()
while [ $# -gt 0 ]; do
	case $1 in
	--smp) needarg "$@"; SMP=$2; shift ;;
	--repeat) needarg "$@"; REPEAT=$2; shift ;;
	--seconds) needarg "$@"; SECS=$2; shift ;;
	--workloads) needarg "$@"; WORKLOADS=$2; shift ;;
	--indexes) needarg "$@"; INDEXES=$2; shift ;;
	--out) needarg "$@"; OUTDIR=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) die -c 2 "unknown option '$1' (see --help)" ;;
	*) pos+=("$1") ;;
	esac
	shift
done
isnum() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]; }

prepare() {
	local sys stock kernel ko est nwl nidx
	isnum "$SMP" || die -c 2 "--smp wants a positive number"
	isnum "$REPEAT" || die -c 2 "--repeat wants a positive number"
	sys=$("$SELF_DIR/build-debug-kernel.sh" --system --print) ||
		die -c 2 "the system kernel is not built (make system-kernel)"
	stock=$("$SELF_DIR/build-debug-kernel.sh" --stock --print) ||
		die -c 2 "the stock kernel is not built (scripts/build-debug-kernel.sh --stock)"
	kernel=$(sed -n 's/^KERNEL=//p' <<<"$sys")
	need_cmds qemu-system-x86_64:qemu-system-x86 xz:xz-utils
	rm -rf "$LAB" && mkdir -p "$LAB"
	grep -qx '/.lab/' "$REPO/.git/info/exclude" 2>/dev/null ||
		echo '/.lab/' >>"$REPO/.git/info/exclude"
	make -s -C "$REPO/system/sysbench" >&2 || die "building pidx-sysbench failed"
	# the fidelity check is bench-system.sh's: this module only fills the slot
	ko=$LAB/pidx.ko
	: >"$ko"
	"$REPO/../shared/device/make-qemu-bundle.sh" "$LAB/qemu-bundle.tar.xz" "$kernel" >&2 ||
		die "making the QEMU bundle failed"
	cp "$(sed -n 's/^KERNEL=//p' <<<"$stock")" "$LAB/stock.bzImage"
	"$SELF_DIR/vm-run.sh" --kernel "$kernel" --ko "$ko" --smp "$SMP" --accel tcg \
		--file "$REPO/system/sysbench/pidx-sysbench" --initrd-only "$LAB/initrd.gz" \
		"$SELF_DIR/bench-system-guest.sh" -- --seconds "$SECS" --timed-seconds "$(awk -v s="$SECS" 'BEGIN { print s / 2 }')" \
		--workloads "$WORKLOADS" 2>/dev/null || die "writing the initramfs failed"
	# bench-system.sh's own plan: its indexes, each repeat's shuffled order
	"$SELF_DIR/bench-system.sh" --dry-run --parts system --repeat "$REPEAT" \
		--indexes "$INDEXES" --workloads "$WORKLOADS" 2>/dev/null |
		sed -n 's/^order_\([0-9]*\)=/\1 /p' |
		awk '{ n = split($2, w, ","); for (i = 1; i <= n; i++) print $1, i, w[i] }' \
			>"$LAB/plan.txt"
	[ -s "$LAB/plan.txt" ] || die -c 2 "bench-system.sh refused the plan (see its --dry-run)"
	cat >"$LAB/lab-run.sh" <<EOF
#!/bin/bash
# Written by scripts/device-system.sh prepare: boots each line of plan.txt
# (repeat, order, index) at $SMP vCPUs and keeps its console in OUT.
set -u
out=\${1:?usage: lab-run.sh OUT}
lab=\$(cd "\$(dirname "\$0")" && pwd)
mkdir -p "\$out" /tmp/pidx-lab
tar -xJf "\$lab/qemu-bundle.tar.xz" -C /tmp/pidx-lab
nproc >"\$out/host-cpus"
while read -r r k x; do
	kern=/tmp/pidx-lab/qemu-bundle/vmlinuz app="pidx.index=\$x"
	[ "\$x" = stock ] && kern=\$lab/stock.bzImage app=
	timeout 240 /tmp/pidx-lab/qemu-bundle/run-qemu -nodefaults -display none \\
		-serial stdio -monitor none -no-reboot -net none -m $((SMP * 256 + 1024)) \\
		-smp $SMP -accel tcg,thread=multi -kernel "\$kern" -initrd "\$lab/initrd.gz" \\
		-append "console=ttyS0 panic=-1 loglevel=5 log_buf_len=8M tsc=reliable rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30 \$app" \\
		</dev/null >"\$out/r\$r-\$k-\$x.log" 2>&1
	echo "r\$r-\$k-\$x: status \$?"
done <"\$lab/plan.txt"
EOF
	chmod +x "$LAB/lab-run.sh"
	nwl=$(tr ',' '\n' <<<"$WORKLOADS" | grep -c .)
	nidx=$(wc -l <"$LAB/plan.txt")
	est=$(awk -v n="$nidx" -v w="$nwl" -v s="$SECS" 'BEGIN { printf "%d", n * (6 + w * (2 * s + 1.5)) }')
	info "prepared $LAB ($(du -sh "$LAB" | cut -f1)): $nidx boots at $SMP vCPUs, about $est s"
	[ "$est" -le 540 ] || warn "the estimate passes 540 s: the device's call is cut at 600 s (fewer --repeat or --seconds)"
	info "the device call: carry [\".lab\"], command: bash .lab/lab-run.sh \"\$OUT\"; then: $0 collect FILES_AT --out DIR"
}

collect() {
	local logs=$1 f b r k d n=0
	[ -d "$logs" ] || die -c 2 "collect: no directory $logs"
	[ -n "$OUTDIR" ] || die -c 2 "collect needs --out DIR"
	mkdir -p "$OUTDIR"
	: >"$OUTDIR/system.txt"
	for f in "$logs"/r*-*-*.log; do
		[ -f "$f" ] || continue
		b=$(basename "$f" .log)
		IFS=- read -r r k _ <<<"${b#r}"
		d=$(mktemp -d)
		if "$SELF_DIR/vm-run.sh" --extract "$f" --out "$d" --quiet >/dev/null 2>&1 &&
			grep -qx end "$d/system.txt" 2>/dev/null; then
			echo "run repeat=$r order=$k substrate=system-tcg fidelity=no" >>"$OUTDIR/system.txt"
			cat "$d/system.txt" >>"$OUTDIR/system.txt"
			n=$((n + 1))
		else
			warn "$b: no complete records (kept out)"
		fi
		rm -rf "$d"
	done
	{
		echo "# the system benchmark on a lent machine, written by scripts/device-system.sh"
		echo "parts=system"
		echo "boots=$n"
		echo "vcpus=$(sed -n 's/^boot .* vcpus=\([0-9]*\).*/\1/p' "$OUTDIR/system.txt" | head -n 1)"
		echo "host_cpus=$(cat "$logs/host-cpus" 2>/dev/null || echo '?')"
		echo "repeat=$(awk '/^run / { split($2, a, "="); if (a[2] > m) m = a[2] } END { print m + 0 }' "$OUTDIR/system.txt")"
		echo "commit=$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)"
	} >"$OUTDIR/meta"
	python3 "$SELF_DIR/system-rows.py" "$OUTDIR"
	info "$n boots collected into $OUTDIR"
}

case $cmd in
prepare) prepare ;;
run-local)
	[ ${#pos[@]} = 1 ] || die -c 2 "run-local needs OUT_DIR"
	[ -x "$LAB/lab-run.sh" ] || die -c 2 "no prepared lab in $LAB (prepare first)"
	bash "$LAB/lab-run.sh" "${pos[0]}"
	;;
collect)
	[ ${#pos[@]} = 1 ] || die -c 2 "collect needs LOG_DIR"
	collect "${pos[0]}"
	;;
-h | --help | help) usage ;;
*) usage >&2; exit 2 ;;
esac
