#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-guest.sh: the pidx benchmark sweep.  POSIX sh (busybox ash is
# enough); runs as root inside the QEMU guest (scripts/vm-run.sh sets
# OUT=/out) or natively (scripts/bench.sh gives --out).  See usage() or
# --help.
#
# Every configuration is one `run` of all the indexes (their repeats are
# interleaved by the module), so index ratios always come from one boot and
# one moment.  The sweeps:
#   keys sweep: every workload x every keys size, all online CPUs (or
#               --keys-cpus), first mode
#   CPU sweep:  every workload x every mode x every CPU count, at one keys
#               size (--cpu-sweep-keys, 32K); the point both sweeps share
#               is run once.
#   visits:     trace_visits=1, lookup and fork, one CPU, every keys size:
#               nodes and cache lines per operation (times not comparable)
#   numa:       with two NUMA nodes or more, lookups on a CPU of node 0 with
#               the index on node 0 (local), node 1 (remote), interleaved,
#               at the CPU sweep's keys size
# The lookup and mixed configurations of the keys and CPU sweeps run once
# per value of --dependent; the other workloads and sweeps with dependent=0.
# With --cachegrind (and --user) the plan is instead every workload x every
# keys size on one CPU, each storm counted by pidx-user --cachegrind.
# The plan and its time model are scripts/bench-plan.sh's, which goes
# where this script goes.

set -u

PROG=bench-guest

usage() {
	cat <<'EOF'
usage: bench-guest.sh [options]
Runs the pidx sweep through /sys/kernel/debug/pidx and copies results.csv
to $OUT.  Every option has an environment equivalent (in brackets).

  --full              the full sweep [FULL=1]; default is the quick one
  --indexes LIST      comma list, "all" (module: all but null) or "auto":
                      every compiled index including null [INDEXES=auto]
  --workloads LIST    comma list of lookup insert delete fork iterate mixed
                      and mixed:L/I/D [WORKLOADS]
                      quick lookup,insert,delete,fork; full also
                      mixed:90/5/5,mixed:50/25/25,iterate
  --modes LIST        modes of the CPU sweep; the keys sweep uses the first
                      [MODES=ipi,kthread]
  --cpus LIST         CPU counts of the CPU sweep [CPUS]
                      default 1,2,4,... and the number of online CPUs
  --keys LIST         keys sizes of the keys sweep; K and M suffixes are
                      1024 and 1048576 [KEYS]
                      quick 32K; full 1K,4K,32K,256K,1M
  --cpu-sweep-keys N  keys size of the CPU sweep [CPU_SWEEP_KEYS=32K]
  --pid-max LIST      pid_max values each keys size runs at [PID_MAX=auto]:
                      auto is the machine's: 32768 (the kernel's default)
                      for keys up to 16K, 4194304 (systemd's on 64-bit)
                      from 32K keys; fit is the smallest power of two from
                      32768 up that holds 2 x keys + ops x CPUs; a number
                      runs the keys sizes that fit under it
  --shapes LIST       live sets, each a configuration of its own: dense,
                      spread, aged [SHAPES=dense]; a shape that does not
                      fit a pid_max is left out there.  The keys sweep runs
                      every workload under the first shape and lookup and
                      fork under the others; the CPU sweep the first only
  --keys-cpus N       CPUs of the keys sweep [KEYS_CPUS]; default all online
  --ops N             operations per CPU per storm [OPS]
                      quick 20000; full 100000; delete storms get at most
                      keys/cpus and insert storms what fits in pid_max
  --repeat N          storms per index per configuration [REPEAT]
                      5 (order statistics over 5 paired repeats give a
                      93.75% interval for a median)
  --seed N            PRNG seed [SEED=1]
  --dists LIST        lookup distributions (uniform, zipf:S, recent:H,
                      sequential): the keys sweep's lookup storms run once
                      per dist, in the cachegrind sweep too; the other
                      workloads and the CPU sweep draw uniform
                      [DISTS=uniform]
  --traces LIST       comma list of trace files (docs/traces.md, plain
                      text): each is a `replay` configuration of its own,
                      at every keys size and shape of the keys sweep and at
                      every CPU count of the CPU sweep's first mode; the
                      module loads each through debugfs `trace` [TRACES]
  --dependent LIST    0, 1 or 0,1: the lookup and mixed storms of the keys
                      and CPU sweeps run once per value, 1 with each
                      lookup waiting for the previous one's result; the
                      other workloads, the visits, numa and cachegrind
                      sweeps run with 0 (they count the same either way)
                      [DEPENDENT=0]
  --levels LIST       namespace levels, 1 to 3: the keys sweep's lookup and
                      fork storms (the cachegrind sweep's too) run once per
                      value, each PID numbered in every level; the other
                      workloads and sweeps run at 1 [LEVELS=1]
  --visits yes|no|lookup
                      the visits sweep: lookup and fork, or lookup
                      only [VISITS=yes]
  --numa auto|yes|no  the numa sweep; auto: when 2+ NUMA nodes are online
                      [NUMA=auto]
  --set NAME=VALUE    also write VALUE to debugfs file NAME once before the
                      sweep (sl_p, sl_max_level, rb_level, fork_window);
                      repeatable [PIDX_SET="NAME=VALUE ..."]
  --out DIR           where results.csv and guest-info go [OUT]
  --ko PATH           module to insmod when pidx is not loaded
                      [PIDX_KO=/pidx/pidx.ko]
  --user PATH         run the sweep with user/pidx-user at PATH instead of
                      the module: the same plan in kthread mode only (user
                      space has no IPIs), no numa sweep; rows say
                      substrate=user [PIDX_USER]
  --cachegrind        with --user: the cachegrind sweep instead, every
                      workload x every keys size on one CPU, each storm
                      also counted under valgrind (pidx-user --cachegrind,
                      rows pmu=cachegrind); no CPU, visits or numa sweep;
                      a workload given as WORKLOAD@MAX (fork@32K) runs at
                      the keys sizes up to MAX only [CACHEGRIND=1]
  --slowdown N        time factor for the estimate: 1 native or KVM, about
                      10 under QEMU TCG [SLOWDOWN; guessed from dmesg]
  --dry-run           print the plan and the estimate, touch nothing
  --online N          with --dry-run: plan for N online CPUs
  -h, --help          this text
  PIDX_DEBUGFS        the debugfs directory [/sys/kernel/debug/pidx]

Progress, one line per configuration on stderr:
  [done/total] elapsed Ns, ETA Ns: index=... workload=... cpus=N keys=N
  pid_max=N shape=S mode=M
Exit status: 0 when every write and run succeeded, 1 when any failed (the
sweep goes on with the other configurations), 2 on a usage error.
EOF
}

say() { echo "$PROG: $*" >&2; }
err() { echo "$PROG: error: $*" >&2; errors=$((errors + 1)); }
die() { echo "$PROG: error: $1" >&2; exit "${2:-1}"; }

errors=0
D=${PIDX_DEBUGFS:-/sys/kernel/debug/pidx}
PIDX_KO=${PIDX_KO:-/pidx/pidx.ko}
PIDX_USER=${PIDX_USER:-}
FULL=${FULL:-0}
INDEXES=${INDEXES:-auto}
WORKLOADS=${WORKLOADS:-}
MODES=${MODES:-ipi,kthread}
CPUS=${CPUS:-}
KEYS=${KEYS:-}
KEYS_CPUS=${KEYS_CPUS:-}
CACHEGRIND=${CACHEGRIND:-0}
CPU_SWEEP_KEYS=${CPU_SWEEP_KEYS:-32K}
PID_MAX=${PID_MAX:-auto}
SHAPES=${SHAPES:-dense}
OPS=${OPS:-}
REPEAT=${REPEAT:-}
SEED=${SEED:-1}
DEPENDENT=${DEPENDENT:-0}
LEVELS=${LEVELS:-1}
DISTS=${DISTS:-uniform}
PIDX_SET=${PIDX_SET:-}
VISITS=${VISITS:-yes}
NUMA=${NUMA:-auto}
OUT=${OUT:-}
SLOWDOWN=${SLOWDOWN:-}
DRY=0
ONLINE_N=

need_arg() { [ $# -ge 2 ] || die "$1 needs a value (see --help)" 2; }
# the options that set one variable each: NAME:VARIABLE for --NAME VALUE
VALUE_OPTS='indexes:INDEXES workloads:WORKLOADS modes:MODES cpus:CPUS keys:KEYS
	cpu-sweep-keys:CPU_SWEEP_KEYS pid-max:PID_MAX shapes:SHAPES keys-cpus:KEYS_CPUS
	ops:OPS repeat:REPEAT seed:SEED dependent:DEPENDENT levels:LEVELS dists:DISTS
	traces:TRACES visits:VISITS numa:NUMA out:OUT ko:PIDX_KO user:PIDX_USER
	slowdown:SLOWDOWN online:ONLINE_N'
opt_var() { # OPTION: its variable in VALUE_OPTS; fails for any other word
	for ov in $VALUE_OPTS; do
		if [ "--${ov%%:*}" = "$1" ]; then
			echo "${ov#*:}"
			return 0
		fi
	done
	return 1
}
while [ $# -gt 0 ]; do
	case $1 in
	--full) FULL=1 ;;
	--quick) FULL=0 ;;
	--cachegrind) CACHEGRIND=1 ;;
	--set) need_arg "$@"; PIDX_SET="$PIDX_SET $2"; shift ;;
	--dry-run) DRY=1 ;;
	-h | --help) usage; exit 0 ;;
	--) ;;
	*)
		ov=$(opt_var "$1") || die "unknown argument '$1' (see --help)" 2
		need_arg "$@"
		eval "$ov=\$2"
		shift
		;;
	esac
	shift
done

# The quick sweep is what the targets and the answer are judged on: fewer
# repeats than 5 leave a median's interval below 93.75%.
if [ "$FULL" = 1 ]; then
	: "${KEYS:=1K,4K,32K,256K,1M}" "${OPS:=100000}" "${REPEAT:=5}"
	: "${WORKLOADS:=lookup,insert,delete,mixed:90/5/5,mixed:50/25/25,fork,iterate}"
else
	: "${KEYS:=32K}" "${OPS:=20000}" "${REPEAT:=5}"
	: "${WORKLOADS:=lookup,insert,delete,fork}"
fi

# ------------------------------------------------------------- helpers

# the plan, its time model and the sweep's record: bench-plan.sh, beside
# this script (in the guest, /pidx/ holds both)
BENCH_PLAN=$(dirname "$0")/bench-plan.sh
[ -r "$BENCH_PLAN" ] || die "no $BENCH_PLAN: it goes where this script goes (vm-run.sh --file)"
# shellcheck source=bench-plan.sh
. "$BENCH_PLAN"

commas() { echo "$1" | tr ' ' ','; }

is_uint() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }

# 32K -> 32768, 1M -> 1048576, 1000 -> 1000
to_num() {
	case $1 in
	*[kK]) n=${1%?}; m=1024 ;;
	*[mM]) n=${1%?}; m=1048576 ;;
	*) n=$1; m=1 ;;
	esac
	is_uint "$n" || return 1
	echo $((n * m))
}

# comma list -> space list of numbers
num_list() {
	out=
	for x in $(echo "$1" | tr ',' ' '); do
		v=$(to_num "$x") || die "'$x' in '$1' is not a number" 2
		out="$out $v"
	done
	[ -n "$out" ] || die "empty list '$1'" 2
	echo "${out# }"
}

# expand a cpulist ("0-3,8") into one number per line
expand_cpulist() {
	echo "$1" | tr ',' '\n' | awk -F- 'NF == 1 && $1 != "" { print $1 }
		NF == 2 { for (i = $1; i <= $2; i++) print i }'
}

# the first N online CPUs as a compact cpulist ("0-3", "0,2-3")
cpulist_of() {
	echo "$ONLINE_LIST" | head -n "$1" | awk '
		NR == 1 { s = $1; p = $1; next }
		$1 == p + 1 { p = $1; next }
		{ printf "%s%s,", s, (s == p ? "" : "-" p); s = $1; p = $1 }
		END { if (NR) printf "%s%s\n", s, (s == p ? "" : "-" p) }'
}

# write VALUE to debugfs FILE; on failure one error line naming both
wr() {
	if ! printf '%s\n' "$2" 2>/dev/null >"$D/$1"; then
		err "writing '$2' to $D/$1 failed"
		return 1
	fi
}

# ------------------------------------------------------------ validate

if ! is_uint "$OPS" || [ "$OPS" -eq 0 ]; then
	die "--ops '$OPS' is not a positive number" 2
fi
if ! is_uint "$REPEAT" || [ "$REPEAT" -lt 1 ] || [ "$REPEAT" -gt 1000 ]; then
	die "--repeat '$REPEAT' is not in 1..1000" 2
fi
is_uint "$SEED" || die "--seed '$SEED' is not a number" 2
DIST_L=$(echo "$DISTS" | tr ',' ' ')
[ -n "$DIST_L" ] || die "empty --dists" 2
for d in $DIST_L; do
	# the module and pidx-user check the values themselves; this catches typos
	# before a long sweep starts
	echo "$d" | grep -Eqx 'uniform|sequential|zipf:[0-9]+(\.[0-9]+)?|recent:[0-9]+' ||
		die "--dists is a list of uniform, zipf:S, recent:H and sequential, not '$d'" 2
done
# the traces, one a line: a path may hold spaces, not commas or newlines
TRACE_L=$(echo "${TRACES:-}" | tr ',' '\n' | grep . || true)
NTRACE=$(echo "$TRACE_L" | grep -c . || true)
echo "$TRACE_L" | while IFS= read -r t; do
	[ -z "$t" ] || [ -r "$t" ] || die "--traces: cannot read '$t'" 2
done || exit 2
# the name a trace's rows and progress lines give it
trace_path() { echo "$TRACE_L" | sed -n "${1}p"; }
trace_name() { basename "$(trace_path "$1")" | sed 's/\.trace$//; s/\.txt$//'; }
DEP_L=$(echo "$DEPENDENT" | tr ',' ' ')
[ -n "$DEP_L" ] || die "empty --dependent" 2
for d in $DEP_L; do
	case $d in 0 | 1) ;; *) die "--dependent is a list of 0 and 1, not '$DEPENDENT'" 2 ;; esac
done
LEV_L=$(echo "$LEVELS" | tr ',' ' ')
[ -n "$LEV_L" ] || die "empty --levels" 2
for l in $LEV_L; do
	case $l in 1 | 2 | 3) ;; *) die "--levels is a list of 1, 2 and 3, not '$LEVELS'" 2 ;; esac
done
KEYS_L=$(num_list "$KEYS") || exit 2
SWEEP_K=$(to_num "$CPU_SWEEP_KEYS") || die "--cpu-sweep-keys '$CPU_SWEEP_KEYS' is not a number" 2
MODES_L=$(echo "$MODES" | tr ',' ' ')
PIDMAX_L=
for p in $(echo "$PID_MAX" | tr ',' ' '); do
	case $p in
	auto | fit) ;;
	*)
		p=$(to_num "$p") || die "--pid-max: '$p' is not auto, fit or a number" 2
		if [ "$p" -lt 301 ] || [ "$p" -gt 4194304 ]; then
			die "--pid-max: $p is not in 301..4194304" 2
		fi
		;;
	esac
	PIDMAX_L="$PIDMAX_L $p"
done
PIDMAX_L=${PIDMAX_L# }
[ -n "$PIDMAX_L" ] || die "empty --pid-max" 2
SHAPES_L=$(echo "$SHAPES" | tr ',' ' ')
[ -n "$SHAPES_L" ] || die "empty --shapes" 2
for sh in $SHAPES_L; do
	case $sh in dense | spread | aged) ;; *) die "unknown shape '$sh' (dense, spread, aged)" 2 ;; esac
done
# pidx-user has the kthread mode only: threads, no on_each_cpu()
if [ -n "$PIDX_USER" ]; then
	case " $MODES_L " in
	*" kthread "*) ;;
	*) die "--user runs kthread storms only; --modes '$MODES' has none" 2 ;;
	esac
	MODES_L=kthread
	NUMA=no
fi
if [ "$CACHEGRIND" = 1 ]; then
	[ -n "$PIDX_USER" ] || die "--cachegrind counts pidx-user's storms: give --user too" 2
	VISITS=no
fi
[ -n "$MODES_L" ] || die "empty --modes" 2
for m in $MODES_L; do
	case $m in ipi | kthread) ;; *) die "unknown mode '$m' (ipi, kthread)" 2 ;; esac
done
FIRST_MODE=${MODES_L%% *}
case $VISITS in yes | no | lookup) ;; *) die "--visits is yes, no or lookup, not '$VISITS'" 2 ;; esac
case $NUMA in auto | yes | no) ;; *) die "--numa is auto, yes or no, not '$NUMA'" 2 ;; esac
# traced storms are slow and their counts do not depend on the length
VOPS=$((OPS < 4000 ? OPS : 4000))
WL_L=$(echo "$WORKLOADS" | tr ',' ' ')
[ -n "$WL_L" ] || die "empty --workloads" 2
# with --cachegrind, WORKLOAD@MAX runs that workload at the keys sizes up
# to MAX only (fork@32K: valgrind's 1M fork storms cost minutes each)
WL_ALL=
WL_AT=
for w in $WL_L; do
	case $w in
	*@*)
		[ "$CACHEGRIND" = 1 ] || die "'$w': WORKLOAD@MAX is for --cachegrind only" 2
		k=$(to_num "${w#*@}") || die "'$w': '${w#*@}' is not a keys size" 2
		w=${w%%@*}
		WL_AT="$WL_AT $w@$k"
		;;
	*) WL_ALL="$WL_ALL $w" ;;
	esac
	case $w in
	lookup | insert | delete | fork | iterate | mixed) ;;
	mixed:*/*/*) ;;
	*) die "unknown workload '$w' (lookup insert delete fork iterate mixed mixed:L/I/D)" 2 ;;
	esac
done

if [ -n "$ONLINE_N" ]; then
	if ! is_uint "$ONLINE_N" || [ "$ONLINE_N" -lt 1 ]; then
		die "--online '$ONLINE_N' is not a CPU count" 2
	fi
	ONLINE_LIST=$(expand_cpulist "0-$((ONLINE_N - 1))")
elif [ -r /sys/devices/system/cpu/online ]; then
	ONLINE_LIST=$(expand_cpulist "$(cat /sys/devices/system/cpu/online)")
else
	ONLINE_LIST=$(expand_cpulist "0-$(($(grep -c '^processor' /proc/cpuinfo) - 1))")
fi
NONLINE=$(echo "$ONLINE_LIST" | grep -c .)
# CPUs of the keys sweep: all online unless --keys-cpus
if [ -z "$KEYS_CPUS" ]; then
	KCPUS=$NONLINE
elif ! is_uint "$KEYS_CPUS" || [ "$KEYS_CPUS" -lt 1 ] || [ "$KEYS_CPUS" -gt "$NONLINE" ]; then
	die "--keys-cpus '$KEYS_CPUS' is not in 1..$NONLINE (CPUs online)" 2
else
	KCPUS=$KEYS_CPUS
fi
[ "$CACHEGRIND" = 1 ] && KCPUS=1

# NUMA: nodes with memory, and the first CPU of node 0
NNODES=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' 2>/dev/null | grep -c .)
NODE0_CPU=$(cut -d, -f1 /sys/devices/system/node/node0/cpulist 2>/dev/null | cut -d- -f1)
case $NUMA in
auto) if [ "$NNODES" -ge 2 ] && [ -n "$NODE0_CPU" ]; then NUMA_RUN=yes; else NUMA_RUN=no; fi ;;
yes)
	[ "$NNODES" -ge 2 ] && [ -n "$NODE0_CPU" ] ||
		[ -n "$ONLINE_N" ] || die "--numa yes, but $NNODES NUMA node(s) online" 2
	NUMA_RUN=yes
	;;
*) NUMA_RUN=no ;;
esac
: "${NODE0_CPU:=0}"

# CPU counts: default 1,2,4,... and all online
if [ -z "$CPUS" ]; then
	n=1
	CPUS_L=
	while [ "$n" -lt "$NONLINE" ]; do
		CPUS_L="$CPUS_L $n"
		n=$((n * 2))
	done
	CPUS_L="$CPUS_L $NONLINE"
else
	CPUS_L=
	for n in $(num_list "$CPUS"); do
		if [ "$n" -lt 1 ] || [ "$n" -gt "$NONLINE" ]; then
			say "warning: skipping CPU count $n: $NONLINE CPUs online"
			continue
		fi
		CPUS_L="$CPUS_L $n"
	done
	[ -n "$CPUS_L" ] || die "no usable CPU count in '$CPUS' ($NONLINE online)" 2
fi
CPUS_L=${CPUS_L# }

[ -n "$SLOWDOWN" ] || SLOWDOWN=$(guess_slowdown)
if ! is_uint "$SLOWDOWN" || [ "$SLOWDOWN" -lt 1 ]; then
	die "--slowdown '$SLOWDOWN' is not a positive integer" 2
fi

# ---------------------------------------------------------------- plan

# the module's indexes, a comma list, from debugfs `available`
available_indexes() {
	awk '/^[ \t]*(#|$)/ { next }
		{ n = $1; sub(/:$/, "", n); printf "%s%s", sep, n; sep = "," }' \
		"$D/available" 2>/dev/null
}

# the index list to write
if [ "$INDEXES" = auto ] && [ -n "$PIDX_USER" ]; then
	IDX_W=$("$PIDX_USER" --list 2>/dev/null | awk '{ printf "%s%s", sep, $1; sep = "," }')
elif [ "$INDEXES" = auto ]; then
	IDX_W=
	if [ -r "$D/available" ]; then
		IDX_W=$(available_indexes)
	fi
else
	IDX_W=$INDEXES
fi
if [ -n "$IDX_W" ] && [ "$IDX_W" != all ]; then
	NIDX=$(echo "$IDX_W" | tr ',' '\n' | grep -c .)
else
	# "all" of pidx_index_table[]: idr idr_onelock skiplist rbskip hash
	# ccskip lazyskip lfradix lfradix_pc maple (null is not in it)
	NIDX=10
fi


PLAN=$(plan)
NCFG=$(echo "$PLAN" | grep -c .)
plan_totals


if [ "$DRY" = 1 ]; then
	summary
	sweep_conf
	echo "$PLAN" | sed 's/^/plan=/'
	exit 0
fi

# --------------------------------------------------------------- setup

[ -n "$OUT" ] || die "no output directory: set OUT or give --out" 2
mkdir -p "$OUT" || die "cannot create $OUT"

# what the results will be read against
{
	echo "kernel=$(uname -r)"
	echo "vcpus=$NONLINE"
	echo "online=$(cpulist_of "$NONLINE")"
	echo "mem_mb=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)"
	echo "cpu_model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
	[ -n "${PIDX_ACCEL:-}" ] && echo "accel=$PIDX_ACCEL"
	if dmesg 2>/dev/null | grep -q 'Hypervisor detected: KVM'; then
		echo "hypervisor=KVM"
	elif grep -qw hypervisor /proc/cpuinfo; then
		echo "hypervisor=none-detected (QEMU TCG?)"
	else
		echo "hypervisor=none"
	fi
} >"$OUT/guest-info" 2>/dev/null || err "cannot write $OUT/guest-info"

if [ -n "$PIDX_USER" ]; then
	[ -x "$PIDX_USER" ] || die "--user $PIDX_USER: no such program (make user)"
	: "${IDX_W:=all}"
elif [ ! -d "$D" ]; then
	dbg=${D%/pidx}
	if ! grep -q " $dbg debugfs " /proc/mounts 2>/dev/null; then
		mount -t debugfs debugfs "$dbg" 2>/dev/null || say "warning: cannot mount debugfs on $dbg"
	fi
fi
if [ -z "$PIDX_USER" ] && [ ! -d "$D" ] && [ ! -d /sys/module/pidx ]; then
	[ -r "$PIDX_KO" ] || die "pidx is not loaded and $PIDX_KO is missing (set PIDX_KO or --ko)"
	say "insmod $PIDX_KO"
	insmod "$PIDX_KO" || die "insmod $PIDX_KO failed"
fi
[ -n "$PIDX_USER" ] || [ -d "$D" ] || die "$D missing after loading pidx (debugfs mounted?)"

# the index list again now that `available` is readable
if [ "$INDEXES" = auto ] && [ -z "$IDX_W" ]; then
	IDX_W=$(available_indexes)
	if [ -z "$IDX_W" ]; then
		say "warning: cannot read $D/available; using indexes=all (no null baseline)"
		IDX_W=all
	fi
fi

# the plan's index count now that the list is known (the estimate assumed 8)
if [ "$IDX_W" != all ]; then
	NIDX=$(echo "$IDX_W" | tr ',' '\n' | grep -c .)
	plan_totals
fi
summary
sweep_conf >"$OUT/sweep.conf" 2>/dev/null || err "cannot write $OUT/sweep.conf"
T0=$(date +%s)
[ -n "${PIDX_ACCEL:-}" ] && say "in the VM, progress goes to $OUT/progress.log (returned with the results)"

# pidx-user takes the settings as options: the same names, dashes for _
USER_SET=
if [ -n "$PIDX_USER" ]; then
	rm -f "$OUT/results.csv"
	for s in $PIDX_SET; do
		case $s in
		*=*) USER_SET="$USER_SET --$(echo "${s%%=*}" | tr _ -)=${s#*=}" ;;
		*) err "--set '$s' is not NAME=VALUE" ;;
		esac
	done
else
	wr testcase reset
	wr indexes "$IDX_W"
	wr repeat "$REPEAT"
	wr seed "$SEED"
	wr dependent 0
	for s in $PIDX_SET; do
		case $s in
		*=*) wr "${s%%=*}" "${s#*=}" ;;
		*) err "--set '$s' is not NAME=VALUE" ;;
		esac
	done
fi

# one configuration through pidx-user: its rows go to $OUT/results.csv
user_run() { # OPS WORKLOAD MIX CPUS KEYS PID_MAX SHAPE VISITS CACHEGRIND DEPENDENT (and $lv)
	# shellcheck disable=SC2086 # USER_SET is a list of options
	"$PIDX_USER" --quiet --csv "$OUT/results.csv" --run "$((done_n + 1))" \
		--indexes "$IDX_W" --repeat "$REPEAT" --seed "$SEED" --ops "$1" \
		--workload "$2" ${3:+--mix "$3"} --cpus "$4" --keys "$5" --pid-max "$6" \
		--shape "$7" ${8:+--trace-visits} ${9:+--cachegrind} --dependent "${10:-0}" \
		--levels "$lv" --dist "$dist" ${trace:+--trace "$trace"} $USER_SET \
		>>"$OUT/pidx-user.log" 2>&1
}

# ---------------------------------------------------------------- sweep

done_n=0
done_ms=0
loaded_trace=
# RUN=NAME of every replay configuration: the rows' run column names the
# trace the module or pidx-user knew only as text (see name_traces)
trace_runs=
failed_cfgs=
echo "$PLAN" >"$OUT/plan.txt" 2>/dev/null || true
# Under vm-run.sh --progress, PIDX_PROGRESS is a serial port whose lines the
# host prints as they come.  Held open on fd 4 for the whole sweep: a tty's
# first open and last close start and shut down the UART, and a close waits
# for its output to drain.
prog=
if [ -n "${PIDX_PROGRESS:-}" ] && command exec 4>"$PIDX_PROGRESS"; then
	prog=1
fi
# read from a file descriptor so that nothing in the loop eats the plan
exec 3<<EOF
$PLAN
EOF
while read -r mode n keys pm shape w extra <&3; do
	[ -n "$mode" ] || continue
	plan_workload "$w"
	cpus=$(cpulist_of "$n")
	case $extra in node=*) cpus=$NODE0_CPU ;; esac

	[ "$pm" != fit ] || pm=$(fit_pid_max "$keys" "$n")

	# the module refuses a delete storm with fewer keys than cpus x ops
	# and an insert storm whose PIDs cannot fit: fewer ops for those
	ops=$OPS
	[ "$extra" = visits ] && ops=$VOPS
	case $workload in
	delete) lim=$((keys / n)) ;;
	insert)
		# spread and aged sets leave the cursor past the floor (300)
		if [ "$shape" = dense ]; then lim=$(((pm - 1 - keys) / n)); else lim=$(((pm - 301 - keys) / n)); fi
		;;
	*) lim=$OPS ;;
	esac
	if [ "$lim" -lt "$ops" ]; then
		ops=$lim
		say "note: $w with $keys keys on $n CPUs: $ops ops per CPU, not $OPS"
	fi

	ok=1
	if [ -n "$PIDX_USER" ]; then
		if [ "$ops" -lt 1 ]; then
			err "$w with $keys keys on $n CPUs: no room for a single operation"
			ok=0
		elif ! user_run "$ops" "$workload" "$mix" "$cpus" "$keys" "$pm" "$shape" \
			"$([ "$extra" = visits ] && echo 1)" \
			"$([ "$extra" = cachegrind ] && echo 1)" \
			"$([ "$extra" = dependent ] && echo 1)"; then
			err "pidx-user failed: workload=$w cpus=$cpus keys=$keys pid_max=$pm shape=$shape (see $OUT/pidx-user.log)"
			ok=0
		fi
	else
		if [ "$ops" -lt 1 ]; then
			err "$w with $keys keys on $n CPUs: no room for a single operation"
			ok=0
		else
			wr ops "$ops" || ok=0
		fi
		wr workload "$workload" || ok=0
		if [ -n "$mix" ]; then
			wr mix "$mix" || ok=0
		fi
		wr mode "$mode" || ok=0
		wr cpus "$cpus" || ok=0
		wr shape "$shape" || ok=0
		wr dist "$dist" || ok=0
		# a trace is loaded when it differs from the one installed; the
		# load's outcome is testcase's last: line
		if [ -n "$trace" ] && [ "$trace" != "$loaded_trace" ]; then
			loaded_trace=
			if cat "$trace" 2>/dev/null >"$D/trace" &&
				grep -q '^last: trace 0' "$D/testcase" 2>/dev/null; then
				loaded_trace=$trace
			else
				err "loading $trace into $D/trace failed: $(grep '^last:' "$D/testcase" 2>/dev/null)"
				ok=0
			fi
		fi
		case $extra in
		visits) wr trace_visits 1 || ok=0 ;;
		node=*) wr node "${extra#node=}" || ok=0 ;;
		dependent) wr dependent 1 || ok=0 ;;
		esac
		[ "$lv" = 1 ] || wr levels "$lv" || ok=0
		# keys must fit the PID space at every step: grow the space first,
		# shrink it last
		cur=$(tr -cd '0-9' 2>/dev/null <"$D/pid_max")
		if is_uint "$cur" && [ "$pm" -lt "$cur" ]; then
			wr keys "$keys" || ok=0
			wr pid_max "$pm" || ok=0
		else
			wr pid_max "$pm" || ok=0
			wr keys "$keys" || ok=0
		fi
		if [ "$ok" = 1 ]; then
			if ! printf 'run\n' 2>/dev/null >"$D/testcase"; then
				err "writing 'run' to $D/testcase failed: workload=$w mode=$mode cpus=$cpus keys=$keys pid_max=$pm shape=$shape ($(head -n 3 "$D/testcase" 2>/dev/null | tr '\n' ' '))"
				ok=0
			fi
			# should `run` ever return before the storms end, wait for them
			while grep -q '^state: running' "$D/testcase" 2>/dev/null; do
				sleep 1
			done
		else
			err "skipped the run of workload=$w mode=$mode cpus=$n keys=$keys: a setting was refused"
		fi
		case $extra in
		visits) wr trace_visits 0 ;;
		node=*) wr node any ;;
		dependent) wr dependent 0 ;;
		esac
		[ "$lv" = 1 ] || wr levels 1
	fi
	[ "$ok" = 1 ] || failed_cfgs="$failed_cfgs $w,$mode,cpus=$n,keys=$keys,pid_max=$pm,shape=$shape,dist=$dist,levels=$lv${extra:+,$extra};"
	if [ "$ok" = 1 ] && [ -n "$trace" ]; then
		if [ -n "$PIDX_USER" ]; then
			r=$((done_n + 1))
		else
			r=$(sed -n 's/^runs: *//p' "$D/testcase" 2>/dev/null)
		fi
		trace_runs="$trace_runs $r=${w#replay:}"
	fi

	done_n=$((done_n + 1))
	done_ms=$((done_ms + $(cost_ms "$n" "$keys" "$w~$lv")))
	el=$(($(date +%s) - T0))
	eta=$(eta_s "$el" "$done_ms")
	line="[$done_n/$NCFG] elapsed ${el}s, ETA ${eta}s: index=$IDX_W workload=$w cpus=$n keys=$keys pid_max=$pm shape=$shape dist=$dist mode=$mode${extra:+ $extra}"
	echo "$line" >>"$OUT/progress.log"
	# In the VM the progress lines stay off the serial console: three
	# bench guests whose progress went there (QEMU -serial stdio, read
	# through a pipe) stalled for good, one vCPU spinning, each after about
	# 4 KB of console output; cause not found.  The progress port cannot
	# stall a guest: its host end is a plain file, which QEMU writes each
	# byte to at once, so the UART's transmit register is always empty
	# again, and the tty is raw with no flow control (guest-init.sh).
	# Without that port only the last line goes to the console.
	if [ -n "$prog" ]; then
		echo "$line" >&4 2>/dev/null || prog=
	elif [ -z "${PIDX_ACCEL:-}" ] || [ "$done_n" = "$NCFG" ]; then
		echo "$line" >&2
	fi
done
exec 3<&-
[ -z "$prog" ] || exec 4>&-

# -------------------------------------------------------------- results

# name_traces CSV: every replay row of a run in trace_runs gets
# trace_name=NAME first in its extra (the engine's trace=N counts events)
name_traces() {
	[ -n "$trace_runs" ] && [ -s "$1" ] || return 0
	if awk -F, -v OFS=, -v map="$trace_runs" '
		BEGIN { n = split(map, m, " "); for (i = 1; i <= n; i++) {
			split(m[i], kv, "="); name[kv[1]] = kv[2] } }
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
		$c["workload"] == "replay" && ($c["run"] in name) &&
			$c["extra"] !~ /^trace_name=/ {
			$c["extra"] = "trace_name=" name[$c["run"]] ";" $c["extra"] }
		{ print }' "$1" >"$1.tmp"; then
		mv "$1.tmp" "$1"
	else
		rm -f "$1.tmp"
		err "cannot name the traces in $1"
	fi
}

# the rows written, and a warning for any verified=FAILED (a wrong result) and
# any verified=slow (a storm past the module's time bound, which the report
# leaves out)
rows_written() { # NOTE (after the count)
	name_traces "$OUT/results.csv"
	rows=$(($(grep -c . "$OUT/results.csv") - 1))
	say "wrote $OUT/results.csv ($rows rows$1)"
	# shellcheck disable=SC2046 # two counts, two words
	set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "verified") c = i; next }
		c && $c == "FAILED" { bad++ } c && $c == "slow" { slow++ }
		END { print bad + 0, slow + 0 }' "$OUT/results.csv")
	if [ "$1" -gt 0 ]; then say "warning: $1 row(s) have verified=FAILED"; fi
	if [ "$2" -gt 0 ]; then
		say "warning: $2 row(s) have verified=slow (ran past a time bound; the report leaves them out)"
	fi
}

if [ -n "$PIDX_USER" ] && [ -s "$OUT/results.csv" ]; then
	rows_written ", substrate=user"
elif [ -n "$PIDX_USER" ]; then
	err "pidx-user wrote no $OUT/results.csv"
elif cat "$D/results.csv" >"$OUT/results.csv"; then
	rows_written ""
else
	err "cannot copy $D/results.csv to $OUT/results.csv"
fi
if [ -n "$PIDX_USER" ]; then
	"$PIDX_USER" --list >"$OUT/available.txt" 2>/dev/null || rm -f "$OUT/available.txt"
else
	for f in available memory test_result; do
		cat "$D/$f" >"$OUT/$f.txt" 2>/dev/null || rm -f "$OUT/$f.txt"
	done
fi
say "done in $(($(date +%s) - T0))s; $errors error(s)${failed_cfgs:+; failed:$failed_cfgs}"
[ "$errors" -eq 0 ]
