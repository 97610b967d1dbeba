#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh: the pidx benchmark job (`make bench`).  Picks where to run
# (natively when this kernel can load pidx.ko, else a stock kernel under
# QEMU through scripts/vm-run.sh), runs the sweep of scripts/bench-guest.sh,
# writes OUT/meta and draws the plots with scripts/plot.py.  See usage().
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
# shellcheck disable=SC2034 # PIDX_PROG names this script in lib.sh's messages
PIDX_PROG=bench
# shellcheck source=lib.sh disable=SC1091 # followed with shellcheck -x
. "$SELF_DIR/lib.sh"

usage() {
	cat <<'EOF'
Usage: scripts/bench.sh [options]        (make bench [FULL=1])

Builds pidx.ko, runs the benchmark sweep, writes OUT/results.csv and
OUT/meta, and draws OUT/plots/*.png and *.svg.  Runs natively when this
kernel can load modules (root, /proc/sys/kernel/modules_disabled = 0,
CAP_SYS_MODULE, headers in /lib/modules/$(uname -r)/build, and insmod of
the built module works); otherwise boots a stock Debian kernel under QEMU
(scripts/vm-run.sh) and says why.  Environment equivalents in brackets.

Sweep (scripts/bench-guest.sh: every configuration runs all indexes, with
interleaved repeats, in one `run`):
  --full              full sweep [FULL=1]: keys 1K,4K,32K,256K,1M, ops 100000,
                      repeat 5.  Default, quick: keys 1K,32K,256K, ops 20000,
                      repeat 3 (a few minutes on 2 cores under QEMU TCG)
  --quick             the quick sweep (the default) [FULL=0]
  --indexes LIST      comma list, "all" (module: all but null) or "auto"
                      (every compiled index, null included) [INDEXES=auto]
  --workloads LIST    [WORKLOADS] default lookup,insert,delete,mixed:90/5/5,
                      mixed:50/25/25,fork,iterate
  --modes LIST        modes of the CPU sweep; the keys sweep uses the first
                      [MODES=ipi,kthread]
  --cpus LIST         CPU counts of the CPU sweep [CPUS]; default 1,2,4,...
                      and all CPUs
  --keys LIST         keys sizes of the keys sweep (at all CPUs); K = 1024,
                      M = 1048576 [KEYS]
  --cpu-sweep-keys N  keys size of the CPU sweep [CPU_SWEEP_KEYS=32K]
  --ops N             operations per CPU per storm [OPS]
  --repeat N          storms per index per configuration [REPEAT]
  --seed N            PRNG seed [SEED=1]
  --set NAME=VALUE    debugfs setting written once first (sl_p, rb_level,
                      sl_max_level, fork_window); repeatable [PIDX_SET]
  --visits yes|no     the visits sweep: trace_visits=1, lookup and fork on
                      one CPU at every keys size [VISITS=yes]
  --numa auto|yes|no  the numa sweep: lookups on node 0 with the index on
                      node 0, node 1, interleaved; auto: natively when the
                      machine has 2+ nodes, and the VM (2+ vCPUs) is booted
                      with two emulated nodes [NUMA=auto]
Where:
  --native            run natively, fail if this kernel cannot load pidx.ko
  --vm                run under QEMU even if native would work
  --user              run the sweep in user space with user/pidx-user (built
                      with make user): the index files and the kernel's
                      lib/ files natively, the same plan in kthread mode only
                      (no IPIs, no numa sweep), rows with substrate=user
  --smp N             VM vCPUs [SMP]; default the host's core count (nproc)
  --mem MB            VM memory [MEM]; default 2048, 4096 with --full
  --accel A           VM accelerator auto|tcg|kvm [ACCEL=auto]
  --kernel IMAGE      VM kernel image (with --headers DIR) [KERNEL, HEADERS]
  --headers DIR       headers to build pidx.ko for --kernel
  --release REL       VM kernel /boot/vmlinuz-REL (installed if missing)
                      [RELEASE]; default: newest installed *-cloud-amd64
  --timeout S         VM timeout [TIMEOUT]; default 4 x the estimate + 600 s
Output:
  --out DIR           results directory [BENCH_OUT]; default
                      results/<UTC date>-<host>-<native|vm>
  --no-plot           do not run scripts/plot.py
  --dry-run           print the environment choice, the plan and the
                      estimate; build and run nothing
  -h, --help          this text

Files in OUT: results.csv (one row per index, configuration and repeat),
meta (key=value: kernel, env, accel, cpu_model, vcpus, mem_mb,
module_version, commit, date, the sweep), guest-info, sweep.conf,
plan.txt, available.txt, memory.txt, test_result.txt, bench.log (native)
or console.log and dmesg.txt (VM), plots/.
Prerequisites (installed with apt-get as root, else the command is
printed and the exit status is 2): make gcc kmod python3-matplotlib, and
for the VM qemu-system-x86 busybox-static cpio linux-image-cloud-amd64
linux-headers-cloud-amd64.
Exit status: 0 all well; 1 a write, a run or the plot failed (results are
kept); 2 usage or prerequisites; VM runner statuses 124 (timeout), 125
(kernel warning), 126 (guest crashed) pass through.
EOF
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
NUMA=${NUMA:-auto}
force=
plot=1
dry=0
gargs=()
# sweep settings given in the environment go to the guest script as options
for v in INDEXES:--indexes WORKLOADS:--workloads MODES:--modes CPUS:--cpus \
	KEYS:--keys CPU_SWEEP_KEYS:--cpu-sweep-keys OPS:--ops REPEAT:--repeat \
	SEED:--seed VISITS:--visits; do
	name=${v%%:*}
	if [ -n "${!name:-}" ]; then gargs+=("${v#*:}" "${!name}"); fi
done
for s in ${PIDX_SET:-}; do gargs+=(--set "$s"); done

needarg() { [ $# -ge 2 ] || die -c 2 "$1 needs a value (see --help)"; }
while [ $# -gt 0 ]; do
	case $1 in
	--full) FULL=1 ;;
	--quick) FULL=0 ;;
	--indexes | --workloads | --modes | --cpus | --keys | --cpu-sweep-keys | \
		--ops | --repeat | --seed | --set | --visits)
		needarg "$@"
		gargs+=("$1" "$2")
		shift
		;;
	--numa) needarg "$@"; NUMA=$2; shift ;;
	--native) force=native ;;
	--vm) force=vm ;;
	--user) force=user ;;
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
isnum() { [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ]; }
isnum "$SMP" || die -c 2 "--smp wants a positive number, not '$SMP'"
[ -z "$MEM" ] || isnum "$MEM" || die -c 2 "--mem wants megabytes, not '$MEM'"
[ -z "$TIMEOUT" ] || isnum "$TIMEOUT" || die -c 2 "--timeout wants seconds, not '$TIMEOUT'"
case $ACCEL in auto | tcg | kvm) ;; *) die -c 2 "--accel is auto, tcg or kvm, not '$ACCEL'" ;; esac
case $NUMA in auto | yes | no) ;; *) die -c 2 "--numa is auto, yes or no, not '$NUMA'" ;; esac
gargs+=(--numa "$NUMA")
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

env=
why=
if [ "$force" = vm ]; then
	env=vm why="requested with --vm"
elif [ "$force" = user ]; then
	env=user why="requested with --user: user/pidx-user, the index files built natively (README: User-space build)"
	gargs+=(--user "$REPO/user/pidx-user")
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

# ------------------------------------------------------------ the estimate

estimate() { # ENV: runs the guest script's planner on this host
	local online slow
	if [ "$1" = native ] || [ "$1" = user ]; then
		online=$(nproc) slow=1
	else
		online=$SMP
		if [ "$ACCEL" = kvm ]; then slow=1; else
			# TCG; vCPUs beyond the host's cores share them
			slow=$((10 * ((SMP + $(nproc) - 1) / $(nproc))))
		fi
	fi
	sh "$GUEST" --dry-run --online "$online" --slowdown "$slow" "${gargs[@]}" 2>/dev/null |
		grep -v '^plan='
}

conf_get() { # KEY FILE: value of KEY= in a key=value file
	sed -n "s/^$1=//p" "$2" 2>/dev/null | head -n 1
}

print_choice() {
	local est=$1 s m
	info "environment: ${env^^}: $why"
	s=$(conf_get estimate_s "$est")
	[ "$env" = vm ] && s=$((s + 30)) # boot, module build, initramfs
	m=$(((s + 59) / 60))
	info "sweep: $(conf_get configs "$est") configurations x $(conf_get nindexes "$est") indexes x $(conf_get repeat "$est") repeats = $(conf_get storms "$est") storms; expected duration about $m min (${s}s; rough model$([ "$env" = vm ] && [ "$ACCEL" != kvm ] && echo ", assuming QEMU TCG"))"
	info "  keys sweep: keys $(conf_get keys "$est") at $(conf_get keys_sweep_cpus "$est") CPUs; CPU sweep: CPUs $(conf_get cpus "$est"), modes $(conf_get modes "$est"), keys $(conf_get cpu_sweep_keys "$est"); ops $(conf_get ops "$est") per CPU"
}

tmp=$(mktemp -d -t pidx-bench.XXXXXX)
loaded_here=0
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ "$loaded_here" = 1 ]; then rmmod pidx 2>/dev/null || warn "rmmod pidx failed"; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

estimate "$env" >"$tmp/est" || die -c 2 "the sweep plan failed: $(sh "$GUEST" --dry-run "${gargs[@]}" 2>&1 >/dev/null | tail -n 1)"
if [ "$dry" = 1 ]; then
	print_choice "$tmp/est"
	sh "$GUEST" --dry-run --online "$(conf_get keys_sweep_cpus "$tmp/est")" \
		--slowdown "$(conf_get slowdown "$tmp/est")" "${gargs[@]}" 2>/dev/null |
		sed -n 's/^plan=/  /p'
	exit 0
fi

# ---------------------------------------------------------- prerequisites

ensure_pkgs make gcc kmod python3-matplotlib
ko=$REPO/pidx.ko
if [ "$env" = user ]; then
	ensure_pkgs liburcu-dev linux-source-6.1 xz-utils linux-headers-cloud-amd64
	info "building user/pidx-user"
	make -C "$REPO" user >&2 || die "building user/pidx-user failed"
fi
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
	estimate vm >"$tmp/est" || true
fi
print_choice "$tmp/est"

# ------------------------------------------------------------------- run

if [ -z "$OUTDIR" ]; then
	OUTDIR=$REPO/results/$(date -u +%Y%m%d-%H%M%S)-$(hostname -s 2>/dev/null || uname -n)-$env
fi
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
info "results in $OUTDIR"
est_s=$(conf_get estimate_s "$tmp/est")
start=$(date +%s)
rc=0
if [ "$env" = native ] || [ "$env" = user ]; then
	# the guest script's progress goes to the terminal and to bench.log
	OUT=$OUTDIR PIDX_KO=$ko sh "$GUEST" --out "$OUTDIR" --slowdown 1 \
		"${gargs[@]}" 2> >(tee "$OUTDIR/bench.log" >&2) || rc=$?
	wait # for tee
else
	vmargs=(--smp "$SMP" --mem "$MEM" --accel "$ACCEL" --out "$OUTDIR"
		--timeout "${TIMEOUT:-$((4 * ${est_s:-600} + 600))}")
	[ -z "$KERNEL" ] || vmargs+=(--kernel "$KERNEL")
	[ -z "$HEADERS" ] || vmargs+=(--headers "$HEADERS")
	[ -z "$RELEASE" ] || vmargs+=(--release "$RELEASE")
	# two emulated nodes: no cost to the other sweeps, which allocate locally
	if [ "$NUMA" != no ] && [ "$SMP" -ge 2 ]; then vmargs+=(--numa); fi
	"$SELF_DIR/vm-run.sh" "${vmargs[@]}" "$GUEST" -- "${gargs[@]}" || rc=$?
fi
took=$(($(date +%s) - start))
[ "$rc" = 0 ] || warn "the sweep ended with status $rc"

# ------------------------------------------------------------------ meta

gi=$OUTDIR/guest-info
host_cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
first() { # first non-empty argument
	local a
	for a in "$@"; do
		if [ -n "$a" ]; then
			echo "$a"
			return
		fi
	done
}
accel=none
if [ "$env" = vm ]; then
	accel=$(first "$(conf_get accel "$gi")" "$([ "$ACCEL" != auto ] && echo "$ACCEL")" unknown)
fi
sweep=$OUTDIR/sweep.conf
[ -s "$sweep" ] || sweep=$tmp/est
{
	echo "# pidx benchmark run, written by scripts/bench.sh"
	echo "kernel=$(first "$(conf_get kernel "$gi")" "$([ "$env" = native ] && uname -r)" "$RELEASE" unknown)"
	echo "env=$env"
	echo "accel=$accel"
	echo "substrate=$([ "$env" = user ] && echo user || echo kernel)"
	echo "why=$why"
	echo "cpu_model=$(first "$(conf_get cpu_model "$gi")" "$host_cpu")"
	echo "host_cpu_model=$host_cpu"
	echo "host=$(hostname 2>/dev/null || uname -n)"
	echo "host_kernel=$(uname -r)"
	echo "host_cpus=$(nproc)"
	if [ "$env" = vm ]; then n=$SMP; else n=$(nproc); fi
	echo "vcpus=$(first "$(conf_get vcpus "$gi")" "$n")"
	echo "mem_mb=$(first "$(conf_get mem_mb "$gi")" "$([ "$env" = vm ] && echo "$MEM")" \
		"$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)")"
	echo "module_version=$(git -C "$REPO" describe --always --dirty 2>/dev/null || echo unknown)"
	echo "commit=$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)"
	echo "date=$(date -u -d "@$start" +%Y-%m-%dT%H:%M:%SZ)"
	echo "duration_s=$took"
	echo "status=$rc"
	grep -v -e '^#' -e '^$' "$sweep" | grep -v -e '^estimate_s=' -e '^slowdown='
	echo "estimate_s=$est_s"
	if [ "$env" = vm ]; then
		echo "vm_smp=$SMP"
		echo "vm_mem_mb=$MEM"
	fi
} >"$OUTDIR/meta"
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

info "files:"
(cd "$OUTDIR" && find . -type f -printf '%P\t%s bytes\n' | sort) | sed 's/^/  /' >&2
est_total=${est_s:-0}
[ "$env" = vm ] && est_total=$((est_total + 30))
info "done in ${took}s (estimate was ${est_total}s); exit status $rc"
exit "$rc"
