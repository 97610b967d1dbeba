#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: the pidx benchmark job (`make bench`).  Picks where to run
# (natively when this kernel can load pidx.ko, else a stock kernel under
# QEMU through scripts/vm-run.sh), runs the sweep of scripts/bench-guest.sh;
# where the module ran under QEMU, also the same sweep natively in user space
# (user/pidx-user) and a cachegrind sweep; merges their rows into one
# results.csv, writes OUT/meta (both in scripts/bench-results.sh) and draws
# the plots with scripts/plot.py.  See usage().
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
# shellcheck disable=SC2034 # PIDX_PROG names this script in lib.sh's messages
PIDX_PROG=bench
# shellcheck source=lib.sh disable=SC1091 # followed with shellcheck -x
. "$SELF_DIR/lib.sh"
# shellcheck source=bench-results.sh
. "$SELF_DIR/bench-results.sh"

# the options, the parts and the files: scripts/bench-usage.txt, beside this
# script, so that the job's code reads apart from its manual
usage() {
	cat "$SELF_DIR/bench-usage.txt"
}

# ------------------------------------------------------------------ options

FULL=${FULL:-0}
SMP=${SMP:-$(nproc)}
MEM=${MEM:-}
ACCEL=${ACCEL:-auto}
KERNEL=${KERNEL:-}
HEADERS=${HEADERS:-}
RELEASE=${RELEASE:-}
TIMEOUT=${TIMEOUT:-}
OUTDIR=${BENCH_OUT:-}
NUMA=${NUMA:-}
USER_SWEEP=${USER_SWEEP:-auto}
CG_SWEEP=${CG_SWEEP:-auto}
CG_KEYS=${CG_KEYS:-}
CG_WORKLOADS=${CG_WORKLOADS:-}
CG_OPS=${CG_OPS:-20000}
CG_INDEXES=${CG_INDEXES:-}
CG_REPEAT=${CG_REPEAT:-1}
CG_SHAPES=${CG_SHAPES:-}
case ${REFERENCE:-0} in 1 | yes | true) REFERENCE=1 ;; *) REFERENCE=0 ;; esac
CG_DISTS=${CG_DISTS:-}
TRACES=${TRACES:-}
case ${SYSTEM:-auto} in 1 | yes) SYSTEM=yes ;; 0 | no) SYSTEM=no ;; *) SYSTEM=auto ;; esac
SYS_PARTS='' SYS_REPEAT='' SYS_SECONDS=''
# The native user sweep is cheap: it also runs 1M keys, and its keys sweep runs
# on one CPU, where the lookup targets are judged (results/targets.toml).
# auto: by sweep, below.
USER_KEYS=${USER_KEYS-auto}
USER_KEYS_CPUS=${USER_KEYS_CPUS-1}
[ -z "${KEYS:-}" ] || USER_KEYS=
[ -z "${KEYS_CPUS:-}" ] || USER_KEYS_CPUS=
# the kernel sweep's --dependent; empty: by where it runs (kernel_dependent)
KERNEL_DEPENDENT=${DEPENDENT:-}
USER_DEPENDENT=${USER_DEPENDENT:-${DEPENDENT:-auto}}
WL_GIVEN=${WORKLOADS:-}
VISITS_GIVEN=${VISITS:-}
# --shapes as given (SHAPES or the option); empty: by sweep (kernel_shapes)
SHAPES_GIVEN=${SHAPES:-}
command_line="scripts/bench.sh${*:+ $*}"
force=
plot=1
dry=0
gargs=()
# what the cachegrind sweep shares with the others: indexes, seed, settings
cargs=()
# sweep settings given in the environment go to the guest script as options
for v in INDEXES:--indexes WORKLOADS:--workloads MODES:--modes CPUS:--cpus \
	KEYS:--keys CPU_SWEEP_KEYS:--cpu-sweep-keys OPS:--ops REPEAT:--repeat \
	SEED:--seed VISITS:--visits KEYS_CPUS:--keys-cpus PID_MAX:--pid-max SHAPES:--shapes \
	DISTS:--dists LEVELS:--levels; do
	name=${v%%:*}
	if [ -n "${!name:-}" ]; then
		gargs+=("${v#*:}" "${!name}")
		case $name in INDEXES | SEED | PID_MAX | SHAPES | DISTS | LEVELS) cargs+=("${v#*:}" "${!name}") ;; esac
	fi
done
for s in ${PIDX_SET:-}; do gargs+=(--set "$s"); cargs+=(--set "$s"); done

needarg() { [ $# -ge 2 ] || die -c 2 "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--full) FULL=1 ;;
	--quick) FULL=0 ;;
	--reference) REFERENCE=1 ;;
	--indexes | --workloads | --modes | --cpus | --keys | --cpu-sweep-keys | \
		--ops | --repeat | --seed | --set | --visits | --keys-cpus | --pid-max | --shapes | --dists)
		needarg "$@"
		gargs+=("$1" "$2")
		case $1 in --indexes | --seed | --set | --pid-max | --shapes | --dists) cargs+=("$1" "$2") ;; esac
		# the sweep's keys, given here, are the user sweep's too
		case $1 in
		--keys) USER_KEYS= ;;
		--keys-cpus) USER_KEYS_CPUS= ;;
		--shapes) SHAPES_GIVEN=$2 ;;
		--workloads) WL_GIVEN=$2 ;;
		--visits) VISITS_GIVEN=$2 ;;
		esac
		shift
		;;
	--user-keys) needarg "$@"; USER_KEYS=$2; shift ;;
	--dependent) needarg "$@"; KERNEL_DEPENDENT=$2 USER_DEPENDENT=$2; shift ;;
	--levels) needarg "$@"; gargs+=("$1" "$2"); cargs+=("$1" "$2"); shift ;;
	--user-dependent) needarg "$@"; USER_DEPENDENT=$2; shift ;;
	--user-keys-cpus) needarg "$@"; USER_KEYS_CPUS=$2; shift ;;
	--numa) needarg "$@"; NUMA=$2; shift ;;
	--native) force=native ;;
	--vm) force=vm ;;
	--user) force=user ;;
	--cachegrind) force=cachegrind ;;
	--system) SYSTEM=yes ;;
	--no-system) SYSTEM=no ;;
	--system-parts) needarg "$@"; SYS_PARTS=$2; shift ;;
	--system-repeat) needarg "$@"; SYS_REPEAT=$2; shift ;;
	--system-seconds) needarg "$@"; SYS_SECONDS=$2; shift ;;
	--user-sweep) needarg "$@"; USER_SWEEP=$2; shift ;;
	--cachegrind-sweep) needarg "$@"; CG_SWEEP=$2; shift ;;
	--cg-keys) needarg "$@"; CG_KEYS=$2; shift ;;
	--cg-workloads) needarg "$@"; CG_WORKLOADS=$2; shift ;;
	--cg-ops) needarg "$@"; CG_OPS=$2; shift ;;
	--cg-indexes) needarg "$@"; CG_INDEXES=$2; shift ;;
	--cg-repeat) needarg "$@"; CG_REPEAT=$2; shift ;;
	--cg-shapes) needarg "$@"; CG_SHAPES=$2; shift ;;
	--cg-dists) needarg "$@"; CG_DISTS=$2; shift ;;
	--traces) needarg "$@"; TRACES=$2; shift ;;
	--smp) needarg "$@"; SMP=$2; shift ;;
	--mem) needarg "$@"; MEM=$2; shift ;;
	--accel) needarg "$@"; ACCEL=$2; shift ;;
	--kernel) needarg "$@"; KERNEL=$2; shift ;;
	--headers) needarg "$@"; HEADERS=$2; shift ;;
	--release) needarg "$@"; RELEASE=$2; shift ;;
	--timeout) needarg "$@"; TIMEOUT=$2; shift ;;
	--out) needarg "$@"; OUTDIR=$2; shift ;;
	--no-plot) plot=0 ;;
	--dry-run) dry=1 ;;
	-h | --help) usage; exit 0 ;;
	*) die -c 2 "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[ "$FULL" = 1 ] && gargs=(--full "${gargs[@]}")
# what the user sweep runs beyond the others' plan (later options win there)
uargs=()
# The quick sweep holds what the targets and the answer are judged on: the
# user sweep's lookups (dependent, one CPU) and forks (1 and 2 threads) at
# 32K and 1M keys, dense and aged, and its lookups' node visits; the kernel
# sweep runs the module's storms at 32K.  The rest decides nothing there.
if [ "$FULL" = 1 ]; then
	[ "$USER_KEYS" != auto ] || USER_KEYS=1K,32K,1M
	[ "$USER_DEPENDENT" != auto ] || USER_DEPENDENT=0,1
	NUMA=${NUMA:-auto}
else
	[ "$USER_KEYS" != auto ] || USER_KEYS=32K,1M
	[ "$USER_DEPENDENT" != auto ] || USER_DEPENDENT=1
	NUMA=${NUMA:-no}
	[ -n "$WL_GIVEN" ] || uargs+=(--workloads "lookup,fork")
	if [ "$REFERENCE" = 1 ]; then
		[ -n "$VISITS_GIVEN" ] || { gargs+=(--visits no); uargs+=(--visits lookup); }
		[ -n "$WL_GIVEN" ] || gargs+=(--workloads "lookup,insert,delete,mixed:90/5/5,fork")
		CG_SHAPES=${CG_SHAPES:-${SHAPES_GIVEN:-dense,aged}}
	else
		[ -n "$VISITS_GIVEN" ] || gargs+=(--visits no)
		CG_SHAPES=${CG_SHAPES:-${SHAPES_GIVEN:-dense}}
	fi
fi
[ -z "$USER_KEYS" ] || uargs+=(--keys "$USER_KEYS")
[ -z "$USER_KEYS_CPUS" ] || uargs+=(--keys-cpus "$USER_KEYS_CPUS")
uargs+=(--dependent "$USER_DEPENDENT" --shapes "${SHAPES_GIVEN:-dense,aged}")
# kernel_shapes ENV: the kernel sweep's --shapes: dense and aged natively;
# dense under QEMU, where TCG's missing cache model hides what the shape
# changes (the user and cachegrind sweeps run both)
kernel_shapes() {
	if [ -n "$SHAPES_GIVEN" ]; then
		echo "$SHAPES_GIVEN"
	elif [ "$1" = native ]; then
		echo dense,aged
	else
		echo dense
	fi
}
# kernel_dependent ENV: the kernel sweep's --dependent natively (native) or
# under QEMU (vm), where both settings cost the same
kernel_dependent() {
	if [ -n "$KERNEL_DEPENDENT" ]; then
		echo "$KERNEL_DEPENDENT"
	elif [ "$1" = native ]; then
		echo 0,1
	else
		echo 0
	fi
}
isnum() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]; }
isnum "$SMP" || die -c 2 "--smp wants a positive number, not '$SMP'"
[ -z "$MEM" ] || isnum "$MEM" || die -c 2 "--mem wants megabytes, not '$MEM'"
[ -z "$TIMEOUT" ] || isnum "$TIMEOUT" || die -c 2 "--timeout wants seconds, not '$TIMEOUT'"
case $ACCEL in auto | tcg | kvm) ;; *) die -c 2 "--accel is auto, tcg or kvm, not '$ACCEL'" ;; esac
case $NUMA in auto | yes | no) ;; *) die -c 2 "--numa is auto, yes or no, not '$NUMA'" ;; esac
case $USER_SWEEP in auto | yes | no) ;; *) die -c 2 "--user-sweep is auto, yes or no, not '$USER_SWEEP'" ;; esac
case $CG_SWEEP in auto | yes | no) ;; *) die -c 2 "--cachegrind-sweep is auto, yes or no, not '$CG_SWEEP'" ;; esac
if ! isnum "$CG_OPS" || [ "$CG_OPS" -lt 2 ]; then
	die -c 2 "--cg-ops wants a number of 2 or more, not '$CG_OPS'"
fi
isnum "$CG_REPEAT" || die -c 2 "--cg-repeat wants a positive number, not '$CG_REPEAT'"
if [ -z "$CG_WORKLOADS" ]; then
	if [ "$FULL" = 1 ]; then CG_WORKLOADS=lookup,fork@32K; else CG_WORKLOADS=lookup; fi
fi
if [ -z "$CG_KEYS" ]; then
	if [ "$FULL" = 1 ]; then CG_KEYS=32K,1M; else CG_KEYS=32K; fi
fi
gargs+=(--numa "$NUMA")
# later options win in the guest script: --cg-indexes over --indexes
[ -z "$CG_INDEXES" ] || cargs+=(--indexes "$CG_INDEXES")
cgargs=("${cargs[@]}" --keys "$CG_KEYS" --workloads "$CG_WORKLOADS"
	--ops "$CG_OPS" --repeat "$CG_REPEAT" --visits no --numa no --cachegrind
	--shapes "${CG_SHAPES:-${SHAPES_GIVEN:-dense,aged}}")
[ -z "$CG_DISTS" ] || cgargs+=(--dists "$CG_DISTS")
# --traces: every file readable, every name its own (a row names its trace)
trace_srcs=()
if [ -n "$TRACES" ]; then
	IFS=, read -r -a trace_srcs <<<"$TRACES"
	for t in "${trace_srcs[@]}"; do
		if [ ! -f "$t" ] || [ ! -r "$t" ]; then die -c 2 "--traces: cannot read '$t'"; fi
	done
	dup=$(for t in "${trace_srcs[@]}"; do basename "$t"; done | sed 's/\.xz$//; s/\.trace$//' | sort | uniq -d)
	[ -z "$dup" ] || die -c 2 "--traces: two traces named '$dup'"
fi
if [ -z "$MEM" ]; then
	if [ "$FULL" = 1 ]; then MEM=4096; else MEM=2048; fi
fi
GUEST=$REPO/scripts/bench-guest.sh

# ------------------------------------------------------- where to run, why

# Reasons this kernel cannot load pidx.ko natively; none: native is possible.
native_blockers() {
	local md=/proc/sys/kernel/modules_disabled cap
	is_root || echo "not root"
	if [ ! -e "$md" ]; then
		echo "this kernel has no module support ($md absent)"
	elif [ "$(cat "$md")" != 0 ]; then
		echo "module loading is disabled (modules_disabled=$(cat "$md"))"
	fi
	# CAP_SYS_MODULE is capability 16 of the effective set
	cap=$(awk '/^CapEff:/ { print $2 }' /proc/self/status 2>/dev/null)
	if [ -n "$cap" ] && [ $(((16#$cap >> 16) & 1)) = 0 ]; then
		echo "no CAP_SYS_MODULE (container?)"
	fi
	[ -d "/lib/modules/$(uname -r)/build" ] ||
		echo "no headers for the running kernel (/lib/modules/$(uname -r)/build)"
	return 0
}

# The parts: kernel (the module, natively or in the VM), user (the same
# sweep with user/pidx-user), cachegrind (counted storms, pidx-user too).
# primary: the part whose files are at the top of OUT; the others go in
# OUT/user and OUT/cachegrind, their rows merged into OUT/results.csv.
env=
why=
primary=kernel
if [ "$force" = vm ]; then
	env=vm why="requested with --vm"
elif [ "$force" = user ]; then
	env=user primary=user
	why="requested with --user: user/pidx-user, the index files built natively (README: User-space build)"
elif [ "$force" = cachegrind ]; then
	env=user primary=cachegrind
	why="requested with --cachegrind: user/pidx-user --cachegrind, storms counted under valgrind (README: User-space build)"
else
	blockers=$(native_blockers)
	if [ -z "$blockers" ]; then
		env=native why="this kernel ($(uname -r)) can load modules"
	elif [ "$force" = native ]; then
		die -c 2 "--native, but this kernel cannot load pidx.ko: $(paste -sd';' <<<"$blockers" | sed 's/;/; /g')"
	else
		env=vm why="this kernel cannot load modules: $(paste -sd';' <<<"$blockers" | sed 's/;/; /g')"
	fi
fi
PIDX_USER_BIN=$REPO/user/pidx-user

# which parts run beside the primary one, once env is final
do_user=0
do_cg=0
do_sys=0
decide_parts() {
	do_user=0 do_cg=0 do_sys=0
	[ "$primary" != kernel ] || [ "$SYSTEM" = no ] || do_sys=1
	case $primary in
	kernel)
		case $USER_SWEEP in yes) do_user=1 ;; auto) [ "$env" = vm ] && do_user=1 ;; esac
		case $CG_SWEEP in yes) do_cg=1 ;; auto) [ "$env" = vm ] && do_cg=1 ;; esac
		;;
	user) [ "$CG_SWEEP" = no ] || do_cg=1 ;;
	esac
	return 0
}
parts_list() {
	local p=
	[ "$primary" = kernel ] && p=kernel
	[ "$primary" = user ] || [ "$do_user" = 1 ] && p=${p:+$p,}user
	[ "$primary" = cachegrind ] || [ "$do_cg" = 1 ] && p=${p:+$p,}cachegrind
	[ "$do_sys" = 0 ] || p=${p:+$p,}system
	echo "$p"
}
# the directory of a part's files
part_dir() {
	if [ "$1" = "$primary" ]; then echo "$OUTDIR"; else echo "$OUTDIR/$1"; fi
}

# ------------------------------------------------------------ the estimate

estimate() { # ENV: runs the guest script's planner on this host
	local online slow uarg=(--dependent "$(kernel_dependent "$1")" --shapes "$(kernel_shapes "$1")")
	[ "$1" = user ] && uarg=(--user "$PIDX_USER_BIN" ${uargs[@]+"${uargs[@]}"})
	if [ "$1" = native ] || [ "$1" = user ]; then
		online=$(nproc) slow=1
	else
		online=$SMP
		if [ "$ACCEL" = kvm ]; then slow=1; else
			# TCG; vCPUs beyond the host's cores share them
			slow=$((10 * ((SMP + $(nproc) - 1) / $(nproc))))
		fi
	fi
	CACHEGRIND=0 sh "$GUEST" --dry-run --online "$online" --slowdown "$slow" "${gargs[@]}" \
		${uarg[@]+"${uarg[@]}"} 2>/dev/null |
		grep -v '^plan='
}

estimate_cg() { # the cachegrind sweep's plan on this host
	sh "$GUEST" --dry-run --online "$(nproc)" --slowdown 1 --user "$PIDX_USER_BIN" \
		"${cgargs[@]}" 2>/dev/null | grep -v '^plan='
}

conf_get() { # KEY FILE: value of KEY= in a key=value file
	sed -n "s/^$1=//p" "$2" 2>/dev/null | head -n 1
}

# part_text PART: where the part's numbers come from, one line
part_text() {
	case $1 in
	kernel)
		if [ "$env" = vm ]; then
			if [ "$ACCEL" = kvm ]; then
				echo "pidx.ko in a stock kernel under QEMU/KVM: rows substrate=kernel"
			else
				echo "pidx.ko in a stock kernel under QEMU TCG: EMULATED (no cache model), in-kernel behaviour only, not hardware times: rows substrate=kernel"
			fi
		else
			echo "pidx.ko in this kernel ($(uname -r)), natively: rows substrate=kernel"
		fi
		;;
	user) echo "user/pidx-user natively on this host (the index files and the kernel's lib/ in user space; kthread storms): cache-true times, but user space's (README: User-space build): rows substrate=user, pmu=off${primary:+$([ "$primary" != user ] && echo "; files in user/")}" ;;
	system) echo "scripts/bench-system.sh: pidx-sysbench natively on this host and pidx-user's index costs (the native bound: rows substrate=system-native, files in system/), and $([ "$SYSTEM" = yes ] || echo "where the system and stock kernels are cached (make bench SYSTEM=1 builds them) ")the system kernel under QEMU TCG, EMULATED, once per index and stock: rows substrate=system-tcg" ;;
	cachegrind) echo "user/pidx-user --cachegrind: each storm counted under valgrind on one CPU (D1 32 KiB 8-way, LL 1 MiB 16-way, a model, not this CPU): instructions, D1/LL misses, mispredicts per op, counted, not timed; the rows' times are a native run's: rows substrate=user, pmu=cachegrind$([ "$primary" != cachegrind ] && echo "; files in cachegrind/")" ;;
	esac
}

print_part() { # PART EST_FILE
	local est=$2 s m
	s=$(conf_get estimate_s "$est")
	if [ "$1" = system ]; then
		info "system part: $(part_text system); expected duration about $(((s + 59) / 60)) min"
		total_s=$((total_s + s))
		return
	fi
	[ "$1" = kernel ] && [ "$env" = vm ] && s=$((s + 30)) # boot, module build, initramfs
	m=$(((s + 59) / 60))
	info "${1} sweep: $(part_text "$1")"
	info "  $(conf_get configs "$est") configurations x $(conf_get nindexes "$est") indexes x $(conf_get repeat "$est") repeats = $(conf_get storms "$est") storms; expected duration about $m min (${s}s; rough model$([ "$1" = kernel ] && [ "$env" = vm ] && [ "$ACCEL" != kvm ] && echo ", assuming QEMU TCG"))"
	if [ "$1" = cachegrind ]; then
		info "  keys $(conf_get keys "$est"), workloads $(conf_get workloads "$est"), 1 CPU; ops $(conf_get ops "$est") (runs ops/2 and ops under valgrind)"
	else
		info "  keys sweep: keys $(conf_get keys "$est") at $(conf_get keys_sweep_cpus "$est") CPUs; CPU sweep: CPUs $(conf_get cpus "$est"), modes $(conf_get modes "$est"), keys $(conf_get cpu_sweep_keys "$est"); ops $(conf_get ops "$est") per CPU"
	fi
	total_s=$((total_s + s))
}

print_choice() {
	local p
	total_s=0
	info "environment: ${env^^}: $why"
	info "parts: $(parts_list)"
	for p in $(parts_list | tr ',' ' '); do
		print_part "$p" "$tmp/est.$p"
	done
	info "expected duration in all: about $(((total_s + 59) / 60)) min (${total_s}s)"
}

# estimates of every part into $tmp/est.PART
estimate_parts() {
	case $primary in
	kernel) estimate "$env" >"$tmp/est.kernel" || return 1 ;;
	user) estimate user >"$tmp/est.user" || return 1 ;;
	esac
	if [ "$do_user" = 1 ]; then estimate user >"$tmp/est.user" || return 1; fi
	if [ "$primary" = cachegrind ] || [ "$do_cg" = 1 ]; then
		estimate_cg >"$tmp/est.cachegrind" || return 1
	fi
	if [ "$do_sys" = 1 ]; then
		"$SELF_DIR/bench-system.sh" --dry-run "${sysargs[@]}" >"$tmp/est.system" 2>/dev/null || return 1
	fi
}
# the system part's options: with --system its kernels are built, and it
# runs its full seconds; by default half, where they are cached
sysargs=(--smp "$SMP")
if [ -n "$SYS_SECONDS" ]; then
	sysargs+=(--seconds "$SYS_SECONDS" --timed-seconds "$(awk -v s="$SYS_SECONDS" 'BEGIN { print s / 2 }')")
elif [ "$SYSTEM" != yes ]; then
	sysargs+=(--seconds 0.5 --timed-seconds 0.25)
fi
[ "$SYSTEM" != yes ] || sysargs+=(--kernels yes)
[ -z "$SYS_PARTS" ] || sysargs+=(--parts "$SYS_PARTS")
[ -z "$SYS_REPEAT" ] || sysargs+=(--repeat "$SYS_REPEAT")

tmp=$(mktemp -d -t pidx-bench.XXXXXX)
loaded_here=0
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ "$loaded_here" = 1 ]; then rmmod pidx 2>/dev/null || warn "rmmod pidx failed"; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
# the traces unpacked into $tmp/traces/NAME.trace: the host's sweeps read
# them there, the VM's in /pidx/traces/
host_traces=''
vm_traces=''
if [ ${#trace_srcs[@]} -gt 0 ]; then
	case ",$TRACES" in *.xz,* | *.xz) command -v xz >/dev/null || ensure_pkgs xz-utils ;; esac
	mkdir -p "$tmp/traces"
	for t in "${trace_srcs[@]}"; do
		n=$(basename "$t" | sed 's/\.xz$//; s/\.trace$//')
		case $t in
		*.xz) xz -dc -- "$t" >"$tmp/traces/$n.trace" || die "--traces: cannot unpack '$t'" ;;
		*) cp -- "$t" "$tmp/traces/$n.trace" || die "--traces: cannot copy '$t'" ;;
		esac
		host_traces=${host_traces:+$host_traces,}$tmp/traces/$n.trace
		vm_traces=${vm_traces:+$vm_traces,}/pidx/traces/$n.trace
	done
	gargs+=(--traces "$host_traces")
fi
trap 'exit 130' INT
trap 'exit 143' TERM

decide_parts
estimate_parts || die -c 2 "the sweep plan failed: $(sh "$GUEST" --dry-run "${gargs[@]}" 2>&1 >/dev/null | tail -n 1)"
if [ "$dry" = 1 ]; then
	print_choice
	for p in $(parts_list | tr ',' ' '); do
		info "plan of the $p sweep:"
		if [ "$p" = system ]; then
			"$SELF_DIR/bench-system.sh" --dry-run "${sysargs[@]}" 2>&1 >/dev/null |
				sed 's/^bench-system: /plan=/'
		elif [ "$p" = cachegrind ]; then
			sh "$GUEST" --dry-run --online "$(nproc)" --user "$PIDX_USER_BIN" "${cgargs[@]}" 2>/dev/null
		else
			uarg=(--dependent "$(kernel_dependent "$env")" --shapes "$(kernel_shapes "$env")")
			[ "$p" = user ] && uarg=(--user "$PIDX_USER_BIN" ${uargs[@]+"${uargs[@]}"})
			CACHEGRIND=0 sh "$GUEST" --dry-run --online "$(conf_get online_cpus "$tmp/est.$p")" \
				--slowdown "$(conf_get slowdown "$tmp/est.$p")" "${gargs[@]}" \
				${uarg[@]+"${uarg[@]}"} 2>/dev/null
		fi | sed -n 's/^plan=/  /p'
	done
	exit 0
fi

# ---------------------------------------------------------- prerequisites

ensure_pkgs make gcc kmod python3-matplotlib
ko=$REPO/pidx.ko
if [ "$env" = native ]; then
	info "building pidx.ko for $(uname -r)"
	if ! make -C "$REPO" >&2; then
		[ "$force" = native ] && die "building pidx.ko failed"
		env=vm why="building pidx.ko for the running kernel failed"
	fi
fi
if [ "$env" = native ]; then
	if [ -d /sys/module/pidx ]; then
		info "pidx is loaded already: unloading it to load this build"
		rmmod pidx || warn "rmmod pidx failed: the loaded module will be measured"
	fi
	if [ ! -d /sys/module/pidx ]; then
		if err=$(insmod "$ko" 2>&1); then
			loaded_here=1
		elif [ "$force" = native ]; then
			die "insmod $ko failed: $err"
		else
			env=vm why="insmod of the built module failed: $err"
		fi
	fi
fi
if [ "$env" = vm ]; then
	vmpk=(qemu-system-x86 busybox-static cpio)
	[ -n "$KERNEL$RELEASE" ] || vmpk+=(linux-image-cloud-amd64 linux-headers-cloud-amd64)
	ensure_pkgs "${vmpk[@]}"
fi
# env is final: which user parts run beside the kernel sweep
decide_parts
skipped=
if [ "$primary" != kernel ] || [ "$do_user" = 1 ] || [ "$do_cg" = 1 ]; then
	upk=(liburcu-dev linux-source-6.1 xz-utils linux-headers-cloud-amd64)
	[ "$primary" = user ] && [ "$do_cg" = 0 ] || upk+=(valgrind)
	ensure_pkgs "${upk[@]}"
	info "building user/pidx-user"
	if ! make -C "$REPO" user >&2; then
		# a part that auto chose is skipped; one asked for is an error
		if [ "$primary" != kernel ] || [ "$USER_SWEEP" = yes ] || [ "$CG_SWEEP" = yes ]; then
			die "building user/pidx-user failed"
		fi
		warn "building user/pidx-user failed: no user sweep, no cachegrind sweep"
		skipped="user and cachegrind sweeps: building user/pidx-user failed"
		do_user=0 do_cg=0
	fi
fi
estimate_parts || true
print_choice

# ------------------------------------------------------------------- run

if [ -z "$OUTDIR" ]; then
	OUTDIR=$REPO/results/$(date -u +%Y%m%d-%H%M%S)-$(hostname -s 2>/dev/null || uname -n)-$env
fi
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
info "results in $OUTDIR"
est_s=$(conf_get estimate_s "$tmp/est.$primary")
start=$(date +%s)
rc=0

# run_part PART: one part's sweep into its directory; sets part_rc_PART
# and took_PART
run_part() {
	local p=$1 d r=0 t0
	d=$(part_dir "$p")
	mkdir -p "$d" || { warn "cannot create $d"; return 1; }
	t0=$(date +%s)
	info "$p sweep: starting ($(date -u +%H:%M:%S) UTC)$([ "$d" != "$OUTDIR" ] && echo ", files in ${d#"$OUTDIR"/}/")"
	case $p in
	kernel)
		if [ "$env" = native ]; then
			# the guest script's progress goes to the terminal and to bench.log
			OUT=$d PIDX_KO=$ko CACHEGRIND=0 sh "$GUEST" --out "$d" --slowdown 1 \
				"${gargs[@]}" --dependent "$(kernel_dependent native)" \
				--shapes "$(kernel_shapes native)" \
				2> >(tee "$d/bench.log" >&2) || r=$?
			wait # for tee
		else
			# --progress: the guest's progress lines reach stderr as they come
			vmargs=(--smp "$SMP" --mem "$MEM" --accel "$ACCEL" --out "$d" --progress
				--timeout "${TIMEOUT:-$((4 * ${est_s:-600} + 600))}")
			[ -z "$KERNEL" ] || vmargs+=(--kernel "$KERNEL")
			# the guest script's plan goes beside it, into the guest's /pidx/
			vmargs+=(--file "$SELF_DIR/bench-plan.sh")
			[ -z "$vm_traces" ] || vmargs+=(--file "$tmp/traces")
			[ -z "$HEADERS" ] || vmargs+=(--headers "$HEADERS")
			[ -z "$RELEASE" ] || vmargs+=(--release "$RELEASE")
			# two emulated nodes: no cost to the other sweeps, which allocate locally
			if [ "$NUMA" != no ] && [ "$SMP" -ge 2 ]; then vmargs+=(--numa); fi
			"$SELF_DIR/vm-run.sh" "${vmargs[@]}" "$GUEST" -- "${gargs[@]}" \
				--dependent "$(kernel_dependent vm)" --shapes "$(kernel_shapes vm)" \
				${vm_traces:+--traces "$vm_traces"} || r=$?
		fi
		;;
	user)
		OUT=$d CACHEGRIND=0 sh "$GUEST" --out "$d" --slowdown 1 "${gargs[@]}" \
			--user "$PIDX_USER_BIN" ${uargs[@]+"${uargs[@]}"} 2> >(tee "$d/bench.log" >&2) || r=$?
		wait
		;;
	cachegrind)
		OUT=$d sh "$GUEST" --out "$d" --slowdown 1 --user "$PIDX_USER_BIN" \
			"${cgargs[@]}" 2> >(tee "$d/bench.log" >&2) || r=$?
		wait
		;;
	system)
		"$SELF_DIR/bench-system.sh" --out "$d" "${sysargs[@]}" 2> >(tee "$d/bench.log" >&2) || r=$?
		wait
		;;
	esac
	printf -v "part_rc_$p" %s "$r"
	printf -v "took_$p" %s "$(($(date +%s) - t0))"
	[ "$r" = 0 ] || warn "the $p sweep ended with status $r"
	return 0
}

for p in $(parts_list | tr ',' ' '); do
	run_part "$p"
	r=part_rc_$p
	[ "$rc" != 0 ] || rc=${!r}
done
took=$(($(date +%s) - start))

# ------------------------------------------------------------ one results.csv

csvs=() subs=
for p in $(parts_list | tr ',' ' '); do
	f=$(part_dir "$p")/results.csv
	[ -s "$f" ] || continue
	csvs+=("$f")
	case $p in
	kernel) subs=${subs:+$subs,}kernel ;;
	system) subs=${subs:+$subs,}system-tcg ;;
	*) subs=${subs:+$subs,}user ;;
	esac
done
if [ ${#csvs[@]} -gt 1 ] || { [ ${#csvs[@]} = 1 ] && [ "${csvs[0]}" != "$OUTDIR/results.csv" ]; }; then
	if merge_csv "$tmp/merged.csv" "$subs" "${csvs[@]}"; then
		mv "$tmp/merged.csv" "$OUTDIR/results.csv"
		info "results.csv: the rows of $(parts_list | sed 's/,/, /g'), columns matched by name"
	else
		warn "merging the parts' results.csv failed (see above): OUT/results.csv holds the $primary rows only"
		[ "$rc" != 0 ] || rc=1
	fi
fi

# ------------------------------------------------------------------ meta

write_meta "$OUTDIR/meta"
info "wrote $OUTDIR/meta"

# ------------------------------------------------------------------ plots

if [ "$plot" = 1 ]; then
	if [ ! -s "$OUTDIR/results.csv" ]; then
		warn "no results.csv: nothing to plot"
		[ "$rc" != 0 ] || rc=1
	elif ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
		warn "/usr/bin/python3 cannot import matplotlib (apt-get install python3-matplotlib): no plots"
		[ "$rc" != 0 ] || rc=1
	else
		# plot.py's own messages (skipped figures, warnings), not its list
		# of files: the list of all files follows
		prc=0
		/usr/bin/python3 "$REPO/scripts/plot.py" "$OUTDIR" >"$tmp/plot.out" || prc=$?
		grep -v "^$OUTDIR/" "$tmp/plot.out" >&2 || true
		if [ "$prc" != 0 ]; then
			warn "plot.py failed (status $prc)"
			[ "$rc" != 0 ] || rc=1
		fi
	fi
fi

info "where the numbers come from (results.csv):"
for p in $(parts_list | tr ',' ' '); do
	t=took_$p
	info "  $p: $(rows_of "$p") rows in ${!t:-0}s; $(part_text "$p")"
done
# the answer last: the targets table and the sentences (report.py --terminal)
if [ -s "$OUTDIR/results.csv" ]; then
	if /usr/bin/python3 "$REPO/scripts/report.py" --terminal "$OUTDIR" >"$tmp/report.out" 2>&1; then
		cat "$tmp/report.out"
	else
		cat "$tmp/report.out" >&2
		warn "report.py failed: no REPORT.md"
		[ "$rc" != 0 ] || rc=1
	fi
fi
[ -z "$skipped" ] || warn "skipped: $skipped"
info "done in ${took}s (estimate was ${total_s}s); exit status $rc"
[ ! -s "$OUTDIR/REPORT.md" ] || info "the report, with every target's verdict: $OUTDIR/REPORT.md"
exit "$rc"
