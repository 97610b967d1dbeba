#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# SPDX-License-Identifier: GPL-2.0
#
# bench-system.sh: the system benchmark (`make bench` runs it as its system
# part; docs/measuring.md, "The system view").  Two parts:
#   native  pidx-sysbench's workloads natively on this host (its own kernel:
#           rows substrate=system-native, index=host), and pidx-user's costs
#           of the index work those workloads make (OUT/bound.csv): together
#           the native bound;
#   system  the system kernel under QEMU, booted once per index as the
#           initial namespace's index, and the same tree without the series
#           (stock), in an order shuffled in each repeat: every workload's
#           rate, and the index's own time from pidx_system/stats (rows
#           substrate=system-tcg).  The first idr boot also runs the
#           fidelity check: the module's idr beside the kernel's.
# The rows go to OUT/results.csv; scripts/report.py renders them.
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
# shellcheck disable=SC2034 # PIDX_PROG names this script in lib.sh's messages
PIDX_PROG=bench-system
# shellcheck source=lib.sh disable=SC1091
. "$SELF_DIR/lib.sh"

usage() {
	cat <<'EOF'
Usage: scripts/bench-system.sh [options]          (make bench SYSTEM=1)

Options:
  --out DIR            results directory (required unless --dry-run)
  --parts LIST         native, system or native,system [native,system]
  --kernels auto|yes   the system part's kernels: auto uses them where
                       they are built and cached and otherwise skips the
                       system part saying how to add it; yes builds them
                       (scripts/build-debug-kernel.sh --system and --stock,
                       about 4 minutes each on 2 cores) [auto]
  --repeat N           repeats; each boots every index once, in an order
                       shuffled per repeat, paired by repeat [5]
  --seconds S          each workload's measured seconds [1]
  --timed-seconds S    each workload's run with the kernel's index timing
                       on, for its share from stats [0.5]
  --workloads LIST     pidx-sysbench workloads, NAME or NAME:ARG
                       [threadspawn,fork,vfork,nsfork:2,procwalk:1000,kill:1000]
  --indexes LIST       system indexes, or auto: every one that
                       system/pidx_system.c does not refuse [auto]
  --no-stock           no stock boots
  --smp N              vCPUs of the guests [the host's CPU count]
  --mem MB             guest memory [1024]
  --seed N             the shuffle's seed [1]
  --dry-run            print the plan and the estimate (estimate_s=) only
  -h, --help           this text

Under QEMU TCG a cache miss costs what a hit does: the system-tcg rows show
instruction-bound costs.  The native part measures this host's own kernel;
pidx-user's rows beside it are cache-true user-space costs of the indexes.
Exit status: 0 all ran; 1 a boot or a workload failed (its rows are left
out, the others kept); 2 usage or prerequisites.
EOF
}

OUTDIR=
PARTS=native,system
KERNELS=auto
REPEAT=5
SECS=1
TIMED=0.5
WORKLOADS=threadspawn,fork,vfork,nsfork:2,procwalk:1000,kill:1000
INDEXES=auto
STOCK=1
SMP=$(nproc)
MEM=1024
SEED=1
DRY=0
needarg() { [ $# -ge 2 ] || die -c 2 "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--out) needarg "$@"; OUTDIR=$2; shift ;;
	--parts) needarg "$@"; PARTS=$2; shift ;;
	--kernels) needarg "$@"; KERNELS=$2; shift ;;
	--repeat) needarg "$@"; REPEAT=$2; shift ;;
	--seconds) needarg "$@"; SECS=$2; shift ;;
	--timed-seconds) needarg "$@"; TIMED=$2; shift ;;
	--workloads) needarg "$@"; WORKLOADS=$2; shift ;;
	--indexes) needarg "$@"; INDEXES=$2; shift ;;
	--no-stock) STOCK=0 ;;
	--smp) needarg "$@"; SMP=$2; shift ;;
	--mem) needarg "$@"; MEM=$2; shift ;;
	--seed) needarg "$@"; SEED=$2; shift ;;
	--dry-run) DRY=1 ;;
	-h | --help) usage; exit 0 ;;
	*) die -c 2 "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
isnum() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]; }
isdec() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v s="$1" 'BEGIN { exit !(s > 0 && s <= 600) }'; }
isnum "$REPEAT" || die -c 2 "--repeat wants a positive number, not '$REPEAT'"
isnum "$SMP" || die -c 2 "--smp wants a positive number, not '$SMP'"
isnum "$MEM" || die -c 2 "--mem wants megabytes, not '$MEM'"
isnum "$SEED" || die -c 2 "--seed wants a positive number, not '$SEED'"
isdec "$SECS" || die -c 2 "--seconds wants seconds in (0, 600], not '$SECS'"
isdec "$TIMED" || die -c 2 "--timed-seconds wants seconds in (0, 600], not '$TIMED'"
case $KERNELS in auto | yes) ;; *) die -c 2 "--kernels is auto or yes, not '$KERNELS'" ;; esac
do_native=0 do_system=0
for p in ${PARTS//,/ }; do
	case $p in
	native) do_native=1 ;;
	system) do_system=1 ;;
	*) die -c 2 "--parts: unknown part '$p' (native, system)" ;;
	esac
done
[ $((do_native + do_system)) -gt 0 ] || die -c 2 "--parts names no part"
wls=()
IFS=, read -r -a wls <<<"$WORKLOADS"
for w in "${wls[@]}"; do
	case ${w%%:*} in
	threadspawn | fork | vfork) [ "$w" = "${w%%:*}" ] || die -c 2 "--workloads: ${w%%:*} takes no argument" ;;
	nsfork | procwalk | kill) [[ $w =~ ^[a-z]+:[0-9]+$ ]] || die -c 2 "--workloads: ${w%%:*} wants NAME:N, not '$w'" ;;
	*) die -c 2 "--workloads: unknown workload '$w'" ;;
	esac
done
[ "$DRY" = 1 ] || [ -n "$OUTDIR" ] || die -c 2 "--out is required"
# the indexes the system kernel takes: its table's rows without a refusal
# (one line each; a refused one goes on to its reason)
SYSTEM_INDEXES=$(sed -n 's/^\t{ \.name = "\([a-z_]*\)".*},$/\1/p' "$REPO/system/pidx_system.c" | paste -sd,)
[ -n "$SYSTEM_INDEXES" ] || die "no index found in system/pidx_system.c's table"
if [ "$INDEXES" = auto ]; then
	INDEXES=$SYSTEM_INDEXES
else
	for i in ${INDEXES//,/ }; do
		case ",$SYSTEM_INDEXES," in *",$i,"*) ;; *) die -c 2 "--indexes: '$i' is no system index ($SYSTEM_INDEXES)" ;; esac
	done
fi

# the kernels' paths, if built (or built now with --kernels yes)
kernel_paths() { # FLAVOUR
	if [ "$KERNELS" = yes ] && [ "$DRY" = 0 ]; then
		"$SELF_DIR/build-debug-kernel.sh" "--$1"
	else
		"$SELF_DIR/build-debug-kernel.sh" "--$1" --print 2>/dev/null
	fi
}
sys_kernel='' stock_kernel='' sys_headers=''
want_system=$do_system
if [ "$do_system" = 1 ]; then
	if paths=$(kernel_paths system); then
		sys_kernel=$(sed -n 's/^KERNEL=//p' <<<"$paths")
		sys_headers=$(sed -n 's/^HEADERS=//p' <<<"$paths")
	fi
	if [ "$STOCK" = 1 ] && [ -n "$sys_kernel" ] && paths=$(kernel_paths stock); then
		stock_kernel=$(sed -n 's/^KERNEL=//p' <<<"$paths")
	fi
	if [ -z "$sys_kernel" ] || { [ "$STOCK" = 1 ] && [ -z "$stock_kernel" ]; }; then
		[ "$KERNELS" = auto ] || die "building the system or the stock kernel failed"
		info "the system part is skipped: its kernels are not built; add it with: make bench SYSTEM=1 (builds them first, about 8 minutes on 2 cores)"
		do_system=0
	fi
fi
[ $((do_native + do_system)) -gt 0 ] || [ "$DRY" = 1 ] || { info "no part to run"; exit 0; }

# The estimate, from the first runs on a 2-core host: a boot about 4 s
# under TCG; a workload its warmup and seconds, and in the system kernel its
# timed seconds too, plus about 0.3 s to start and end; the native bound's
# pidx-user storms about 20 s.
nwl=${#wls[@]}
nidx=$(tr ',' '\n' <<<"$INDEXES" | grep -c .)
est=$(awk -v r="$REPEAT" -v w="$nwl" -v s="$SECS" -v t="$TIMED" -v n="$nidx" \
	-v st="$STOCK" -v nat="$do_native" -v sy="$do_system" 'BEGIN {
	e = 0
	if (nat) e += r * w * (s + 0.4) + 20
	if (sy) e += r * ((n + st) * 4 + n * w * (s + t + 0.4) + st * w * (s + 0.4)) + 10
	printf "%d", e + 0.5 }')
info "parts: $([ "$do_native" = 1 ] && echo "native (this host's kernel, $(uname -r), and pidx-user's bound) ")$([ "$do_system" = 1 ] && echo "system (the system kernel under QEMU TCG, EMULATED: instruction-bound times, no cache model; $nidx indexes$([ "$STOCK" = 1 ] && echo " and stock") x $REPEAT repeats)")"
info "workloads ${wls[*]}, $SECS s each; indexes $INDEXES; expected duration about $(((est + 59) / 60)) min"
# shuffled SEED LIST: LIST's words in an order that SEED alone decides (shuf
# --random-source reads too few of its bytes to tell seeds 1.1 and 1.2 apart)
shuffled() {
	python3 -c 'import random, sys
w = sys.argv[2].split(",")
random.Random(sys.argv[1]).shuffle(w)
print("\n".join(w))' "$1" "$2"
}
if [ "$DRY" = 1 ]; then
	echo "estimate_s=$est"
	# the boots' order, whether or not the kernels are built
	if [ "$want_system" = 1 ]; then
		for r in $(seq 1 "$REPEAT"); do
			echo "order_$r=$(shuffled "$SEED.$r" "$INDEXES$([ "$STOCK" = 0 ] || echo ,stock)" | paste -sd,)"
		done
	fi
	exit 0
fi

ensure_pkgs make gcc python3
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
tmp=$(mktemp -d -t pidx-bench-system.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
start=$(date +%s)
rc=0
RECORDS=$OUTDIR/system.txt
: >"$RECORDS"

info "building system/sysbench/pidx-sysbench"
make -s -C "$REPO/system/sysbench" >&2 || die "building pidx-sysbench failed"
SYSBENCH=$REPO/system/sysbench/pidx-sysbench

# the rule of the guest (bench-system-guest.sh): threadspawn one process per
# CPU, the others one
procs_of() { case $1 in threadspawn) echo "$2" ;; *) echo 1 ;; esac; }

host_threads() { awk '{ split($4, a, "/"); print a[2] }' /proc/loadavg; }

run_native() {
	local r w name arg line ncpu live
	ncpu=$(nproc)
	live=$(host_threads)
	info "native: pidx-sysbench on this host ($(uname -r), $ncpu CPUs, $live threads live)"
	for r in $(seq 1 "$REPEAT"); do
		echo "run repeat=$r order=0 substrate=system-native" >>"$RECORDS"
		echo "boot index=host kernel=$(uname -r) vcpus=$ncpu threads=$(host_threads)" >>"$RECORDS"
		for w in "${wls[@]}"; do
			name=${w%%:*} arg=
			[ "$name" = "$w" ] || arg=${w#*:}
			# shellcheck disable=SC2086 # arg is one word or none
			if line=$("$SYSBENCH" "$name" $arg --procs "$(procs_of "$name" "$ncpu")" \
				--seconds "$SECS" 2>"$tmp/sb.err"); then
				echo "rate $line" >>"$RECORDS"
			else
				warn "native $w failed: $(tail -n 1 "$tmp/sb.err")"
				echo "error what=$w" >>"$RECORDS"
				rc=1
			fi
		done
		echo "end" >>"$RECORDS"
	done
	run_bound "$live"
}

# pidx-user's cost of each workload's index work, at this host's live set,
# for the indexes the system kernel takes, as the guests' stats count it: a
# fork (alloc, publish, the wait's lookup, the exit's remove) at 1 and 3
# levels; a thread (no lookup), on every CPU as threadspawn runs, so that
# the lock's contention is in it; the lookup of a kill and the find_ge step
# of a /proc walk among their parked threads.
run_bound() { # LIVE
	local live=$1 parked=1000 w u
	for w in "${wls[@]}"; do
		case $w in procwalk:* | kill:*) [ "${w#*:}" -le "$parked" ] || parked=${w#*:} ;; esac
	done
	if [ ! -x "$REPO/user/pidx-user" ]; then
		info "building user/pidx-user for the native bound"
		ensure_pkgs liburcu-dev linux-source-6.1 xz-utils linux-headers-cloud-amd64
		make -C "$REPO" user >&2 || { warn "building user/pidx-user failed: no native bound"; rc=1; return; }
	fi
	rm -f "$OUTDIR/bound.csv"
	u=("$REPO/user/pidx-user" --indexes "$SYSTEM_INDEXES" --ops 20000 --repeat "$REPEAT"
		--pid-max 32768 --csv "$OUTDIR/bound.csv" --quiet)
	info "native bound: pidx-user at the live set ($live threads; $((live + parked)) with the parked ones)"
	if ! { "${u[@]}" --cpus 0 --run 1 --workload fork --keys "$live" --levels 1 --fork-lookups 1 &&
		"${u[@]}" --cpus 0 --run 2 --workload fork --keys "$live" --levels 3 --fork-lookups 1 &&
		"${u[@]}" --cpus "0-$(($(nproc) - 1))" --run 3 --workload fork --keys "$live" --fork-lookups 0 &&
		"${u[@]}" --cpus 0 --run 4 --workload lookup --keys $((live + parked)) &&
		"${u[@]}" --cpus 0 --run 5 --workload iterate --keys $((live + parked)); }; then
		warn "pidx-user's bound storms failed"
		rc=1
	fi
}

# one boot: the guest's records, after a line that says which boot it was
boot() { # REPEAT ORDER NAME
	local r=$1 k=$2 x=$3 d kernel app=() fid=no brc=0
	d=$OUTDIR/boots/r$r-$k-$x
	rm -rf "$d"
	kernel=$sys_kernel
	if [ "$x" = stock ]; then kernel=$stock_kernel; else app=(--append "pidx.index=$x"); fi
	[ "$x" = idr ] && [ "$fidelity_done" = 0 ] && fid=yes
	"$SELF_DIR/vm-run.sh" --kernel "$kernel" --ko "$ko" --smp "$SMP" --mem "$MEM" \
		${app[@]+"${app[@]}"} --file "$SYSBENCH" --quiet --out "$d" --timeout 900 \
		"$SELF_DIR/bench-system-guest.sh" -- --seconds "$SECS" --timed-seconds "$TIMED" \
		--workloads "$WORKLOADS" --fidelity "$fid" >/dev/null 2>"$tmp/vm.err" || brc=$?
	if [ "$brc" != 0 ] || ! grep -qx end "$d/system.txt" 2>/dev/null; then
		warn "boot $x (repeat $r) failed with status $brc: $(tail -n 2 "$tmp/vm.err" | tr '\n' ' ') (files in $d)"
		rc=1
		return
	fi
	# a kernel that fell back to idr (an index it refused) would pair idr with idr
	if ! grep -q "^boot index=$x " "$d/system.txt"; then
		warn "boot $x (repeat $r) ran another index: $(grep '^boot ' "$d/system.txt") (its rows left out)"
		rc=1
		return
	fi
	[ "$fid" = no ] || fidelity_done=1
	echo "run repeat=$r order=$k substrate=system-tcg fidelity=$fid" >>"$RECORDS"
	cat "$d/system.txt" >>"$RECORDS"
	grep -q '^error' "$d/system.txt" && { warn "boot $x (repeat $r): $(grep '^error' "$d/system.txt" | head -n 2 | tr '\n' ' ')"; rc=1; }
	# the console is kept where the boot failed; here it only repeats system.txt
	rm -f "$d/console.log"
}

run_system() {
	local r k x order
	ensure_pkgs qemu-system-x86 busybox-static cpio
	info "building pidx.ko for the system kernel (the fidelity check)"
	mkdir -p "$tmp/mod"
	(cd "$REPO" && cp -a Kbuild Makefile ./*.c ./*.h selftest "$tmp/mod/")
	make -s -C "$tmp/mod" KDIR="$sys_headers" >"$tmp/mod.log" 2>&1 ||
		die "building pidx.ko against $sys_headers failed: $(tail -n 3 "$tmp/mod.log")"
	ko=$tmp/mod/pidx.ko
	info "system: indexes $INDEXES$([ "$STOCK" = 1 ] && echo ", and stock"); $REPEAT repeats of $SMP-vCPU boots"
	fidelity_done=0
	for r in $(seq 1 "$REPEAT"); do
		order=$(shuffled "$SEED.$r" "$INDEXES$([ "$STOCK" = 0 ] || echo ,stock)")
		info "repeat $r of $REPEAT: $(paste -sd' ' <<<"$order")"
		k=0
		for x in $order; do
			k=$((k + 1))
			boot "$r" "$k" "$x"
		done
	done
}

[ "$do_native" = 0 ] || run_native
[ "$do_system" = 0 ] || run_system
took=$(($(date +%s) - start))

{
	echo "# the system benchmark, written by scripts/bench-system.sh"
	echo "date=$(date -u -d "@$start" +%Y-%m-%dT%H:%M:%SZ)"
	echo "duration_s=$took"
	echo "status=$rc"
	echo "parts=$([ "$do_native" = 1 ] && echo native)$([ "$do_native$do_system" = 11 ] && echo ,)$([ "$do_system" = 1 ] && echo system)"
	echo "repeat=$REPEAT"
	echo "seconds=$SECS"
	echo "timed_seconds=$TIMED"
	echo "workloads=$WORKLOADS"
	echo "indexes=$INDEXES"
	echo "stock=$STOCK"
	echo "vcpus=$SMP"
	echo "host_kernel=$(uname -r)"
	echo "host_cpus=$(nproc)"
	echo "host_cpu_model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	echo "seed=$SEED"
	echo "commit=$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)"
} >"$OUTDIR/meta"
python3 "$SELF_DIR/system-rows.py" "$OUTDIR" || { warn "system-rows.py could not turn the records into rows"; rc=1; }
info "done in ${took}s: $OUTDIR/results.csv; exit status $rc"
exit "$rc"
