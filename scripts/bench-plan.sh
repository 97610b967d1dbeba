# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
#
# bench-plan.sh: the plan of scripts/bench-guest.sh's sweep and its time
# model, sourced by it (POSIX sh too: it runs in the guest's busybox ash).
# From the settings bench-guest.sh has resolved (KEYS_L, SHAPES_L, MODES_L,
# ...): the configurations, one line each; each one's estimated cost, the
# plan's total and the ETA of the progress lines; the sweep's summary and
# its key=value record.  Apart, so that bench-guest.sh reads as the sweep's
# run: options, setup, one configuration after another, results.  It
# travels beside bench-guest.sh: bench.sh gives it to vm-run.sh with
# --file, whence it lies in the guest's /pidx/ beside /pidx/guest.sh.
# Nothing here runs at source time.

# ---------------------------------------------------------------- plan
# one line per configuration:
#   MODE NCPUS KEYS PID_MAX SHAPE WORKLOAD(:MIX) [visits|node=N|cachegrind|dependent]
# PID_MAX is a number, or fit (chosen when the configuration runs, from its
# ops and CPUs).

# the pid_max values of KEYS, one "PID_MAX SHAPE" line per shape that fits
spaces() { # KEYS
	for p in $PIDMAX_L; do
		case $p in
		auto) if [ "$1" -le 16384 ]; then p=32768; else p=4194304; fi ;;
		fit) ;;
		*)
			if [ "$1" -ge "$p" ]; then
				say "note: keys $1 do not fit pid_max $p: left out there"
				continue
			fi
			;;
		esac
		for sh in $SHAPES_L; do
			# the module's rules (pidx_shape_check()); fit always has room
			if [ "$p" != fit ]; then
				if [ "$sh" = spread ] && [ $((2 * $1)) -gt $((p - 1)) ]; then
					say "note: spread needs pid_max - 1 >= 2 x keys: keys $1 at pid_max $p left out"
					continue
				fi
				if [ "$sh" = aged ] && [ "$1" -gt $((p - 301)) ]; then
					say "note: aged needs keys <= pid_max - 301: keys $1 at pid_max $p left out"
					continue
				fi
			fi
			echo "$p $sh"
		done
	done
}

# the workload tokens of WORKLOAD under --dists: a lookup once per dist
# (lookup+DIST, plain lookup for uniform), any other workload as it is
wl_dists() { # WORKLOAD
	if [ "$1" != lookup ]; then
		echo "$1"
		return
	fi
	for wd in $DIST_L; do
		if [ "$wd" = uniform ]; then echo lookup; else echo "lookup+$wd"; fi
	done
}

# WORKLOAD once per --levels value where the keys sweep runs it at more
# than one (lookup, fork): WORKLOAD~N at N levels
wl_levels() { # WORKLOAD
	for l in $LEV_L; do
		if [ "$l" = 1 ]; then
			echo "$1"
		else
			case $1 in lookup | lookup+* | fork) echo "$1~$l" ;; esac
		fi
	done
}

# a keys or CPU sweep configuration, once per --dependent value where the
# setting changes the storm
sweep_line() { # MODE NCPUS KEYS PID_MAX SHAPE WORKLOAD
	case $6 in
	lookup | lookup+* | lookup~* | mixed | mixed:*)
		for d in $DEP_L; do
			if [ "$d" = 1 ]; then echo "$* dependent"; else echo "$*"; fi
		done
		;;
	*) echo "$*" ;;
	esac
}

# a point's replay configurations, one per trace
replay_lines() { # MODE NCPUS KEYS PID_MAX SHAPE
	rl=1
	while [ "$rl" -le "$NTRACE" ]; do
		echo "$* replay=$rl"
		rl=$((rl + 1))
	done
}

plan() {
	if [ "$CACHEGRIND" = 1 ]; then
		for k in $KEYS_L; do
			spaces "$k" | while read -r p sh; do
				for w in $WL_ALL; do
					for d in $(wl_dists "$w"); do
						for l in $(wl_levels "$d"); do
							echo "kthread 1 $k $p $sh $l cachegrind"
						done
					done
				done
				for a in $WL_AT; do
					[ "$k" -le "${a#*@}" ] || continue
					for l in $(wl_levels "${a%@*}"); do
						echo "kthread 1 $k $p $sh $l cachegrind"
					done
				done
			done
		done
		return
	fi
	for k in $KEYS_L; do
		spaces "$k" | while read -r p sh; do
			for w in $WL_L; do
				# shapes after the first: the storms the targets judge
				# (lookups, forks), so that a second shape does not
				# double the sweep; make check runs every workload
				# under every shape
				if [ "$sh" != "${SHAPES_L%% *}" ]; then
					case $w in lookup | fork) ;; *) continue ;; esac
				fi
				for d in $(wl_dists "$w"); do
					for l in $(wl_levels "$d"); do
						sweep_line "$FIRST_MODE" "$KCPUS" "$k" "$p" "$sh" "$l"
					done
				done
			done
			replay_lines "$FIRST_MODE" "$KCPUS" "$k" "$p" "$sh"
		done
	done
	# the CPU sweep: every workload under the first shape, and as in the
	# keys sweep lookup and fork under the others (a fork's gain from 1 to
	# 2 threads is a target in each shape)
	spaces "$SWEEP_K" | while read -r p sh; do
		for m in $MODES_L; do
			for n in $CPUS_L; do
				for w in $WL_L; do
					if [ "$sh" != "${SHAPES_L%% *}" ]; then
						case $w in lookup | fork) ;; *) continue ;; esac
					fi
					if [ "$m" = "$FIRST_MODE" ] && [ "$n" = "$KCPUS" ]; then
						case " $KEYS_L " in *" $SWEEP_K "*) continue ;; esac
					fi
					sweep_line "$m" "$n" "$SWEEP_K" "$p" "$sh" "$w"
				done
				# the traces at every CPU count of the first mode, first shape
				[ "$sh" = "${SHAPES_L%% *}" ] || continue
				[ "$m" = "$FIRST_MODE" ] || continue
				if [ "$n" = "$KCPUS" ]; then
					case " $KEYS_L " in *" $SWEEP_K "*) continue ;; esac
				fi
				replay_lines "$m" "$n" "$SWEEP_K" "$p" "$sh"
			done
		done
	done
	if [ "$VISITS" != no ]; then
		for k in $KEYS_L; do
			spaces "$k" | while read -r p sh; do
				echo "kthread 1 $k $p $sh lookup visits"
				[ "$VISITS" = lookup ] || echo "kthread 1 $k $p $sh fork visits"
			done
		done
	fi
	if [ "$NUMA_RUN" = yes ]; then
		spaces "$SWEEP_K" | head -n 1 | while read -r p sh; do
			for n in 0 1 interleave; do
				echo "ipi 1 $SWEEP_K $p $sh lookup node=$n"
			done
		done
	fi
}

# a plan line's WORKLOAD token (WORKLOAD[+DIST][~LEVELS] or replay=N, as
# plan() writes them) into the settings of its run: workload, mix, dist, lv
# (levels), trace (the file) and w (the name in messages: WORKLOAD,
# mixed:MIX or replay:NAME)
# shellcheck disable=SC2034 # set for the sweep's loop in bench-guest.sh
plan_workload() { # TOKEN
	w=$1
	lv=1
	case $w in *~*) lv=${w##*~} w=${w%~*} ;; esac
	dist=uniform
	case $w in *+*) dist=${w#*+} w=${w%%+*} ;; esac
	trace=
	case $w in
	replay=*)
		trace=$(trace_path "${w#replay=}")
		w=replay:$(trace_name "${w#replay=}")
		workload=replay; mix=
		;;
	mixed:*) workload=mixed; mix=${w#mixed:} ;;
	*) workload=$w; mix= ;;
	esac
	if [ "$workload" = mixed ] && [ -z "$mix" ]; then mix=90/5/5; fi
}

# fit: the space of the sweeps before pid_max became a setting of its own,
# the smallest power of two from 32768 that holds 2 x keys + ops x CPUs
fit_pid_max() { # KEYS NCPUS
	fp=32768
	while [ "$fp" -lt $((2 * $1 + OPS * $2)) ] && [ "$fp" -lt 4194304 ]; do
		fp=$((fp * 2))
	done
	echo "$fp"
}

# ---------------------------------------------------------- the time model

# the time model's factor, unless --slowdown gives it: QEMU TCG runs
# kernel code ~10x slower (vm-run.sh tells the guest its accelerator in
# PIDX_ACCEL; without it, a hypervisor that is not KVM is taken for TCG)
guess_slowdown() {
	case ${PIDX_ACCEL:-} in
	tcg) echo 10 ;;
	kvm) echo 1 ;;
	*)
		if grep -qw hypervisor /proc/cpuinfo 2>/dev/null &&
			! dmesg 2>/dev/null | grep -q 'Hypervisor detected: KVM'; then
			echo 10
		else
			echo 1
		fi
		;;
	esac
}

# estimated milliseconds of one configuration (all indexes, all repeats):
# natively, per storm, prefill + check + teardown ~0.75 us per key and
# level (the map: an object per PID made, published, looked up by the
# oracle and freed), each operation ~0.3 us plus 1 us per 350K keys (a
# lookup's misses grow with the index: dependent lookups at 1M took about
# 3 us), each CPU doing OPS in parallel, ~3 ms fixed (measured with 11
# indexes x 7 repeats: 32K keys 3-4 s a configuration, 1M 60 s for
# replays to 105 s for aged lookups).  Under emulation (SLOWDOWN > 1) a
# miss costs what a hit costs: 0.4 us per key and level and 0.3 us per
# operation, times SLOWDOWN (the reference sweep's kernel part: 431 s
# measured, 558 estimated).
# A cachegrind configuration adds two runs under valgrind (ops/2 and ops),
# each about 50 times the native prefill and 40 times the storm, plus
# ~1.5 s to start (measured on a loaded 2-core host: lookup at 1M keys
# 48 s per index, at 32K 5 s; fork at 1M 108 s, at 32K 8 s)
cost_ms() { # NCPUS KEYS WORKLOAD (WORKLOAD~L: L namespace levels)
	cm_lv=1
	case $3 in *~[0-9]*) cm_lv=${3##*~} ;; esac
	if [ "$CACHEGRIND" = 1 ]; then
		echo $(((($2 * cm_lv * 400 * 100 + OPS * 300 * 61) / 1000000 + 3003) * NIDX * REPEAT))
		return
	fi
	if [ "$SLOWDOWN" = 1 ]; then
		cm_key=750 cm_op=$((300 + $2 / 350))
	else
		cm_key=400 cm_op=300
	fi
	echo $(((($2 * cm_lv * cm_key + OPS * cm_op) / 1000000 + 3) * NIDX * REPEAT * SLOWDOWN))
}

# the plan's estimated milliseconds: each line's CPUs, keys and workload
plan_ms() {
	pm_t=0
	for pm_k in $(echo "$PLAN" | awk '{ print $2 ":" $3 ":" $6 }'); do
		pm_w=${pm_k#*:}
		pm_t=$((pm_t + $(cost_ms "${pm_k%%:*}" "${pm_w%%:*}" "${pm_w#*:}")))
	done
	echo "$pm_t"
}

# the plan's totals from its NCFG lines and NIDX: STORMS, TOTAL_MS, EST_S
plan_totals() {
	STORMS=$((NCFG * NIDX * REPEAT))
	TOTAL_MS=$(plan_ms)
	EST_S=$(((TOTAL_MS + 999) / 1000))
}

# seconds left when DONE_MS of the plan's TOTAL_MS took ELAPSED_S: the
# time model's share still to run, at the pace seen so far
eta_s() { # ELAPSED_S DONE_MS
	if [ "$2" -gt 0 ]; then
		echo $(($1 * (TOTAL_MS - $2) / $2))
	else
		echo $(((TOTAL_MS - $2 + 999) / 1000))
	fi
}

# ---------------------------------------------------------- the record

# the sweep in four lines on stderr
summary() {
	say "sweep: $NCFG configurations x $NIDX indexes x $REPEAT repeats = $STORMS storms, estimated ${EST_S}s (slowdown x$SLOWDOWN)"
	if [ "$CACHEGRIND" = 1 ]; then
		say "  cachegrind sweep: keys $(commas "$KEYS_L"), 1 CPU, each storm also run twice under valgrind"
	else
		say "  keys sweep: keys $(commas "$KEYS_L"), $KCPUS CPUs, mode $FIRST_MODE; CPU sweep: CPUs $(commas "$CPUS_L"), modes $(commas "$MODES_L"), keys $SWEEP_K"
	fi
	say "  pid_max $(commas "$PIDMAX_L"); shapes $(commas "$SHAPES_L"); lookup dists $(commas "$DIST_L")${TRACES:+; replays of $NTRACE trace(s)}"
	say "  workloads $WORKLOADS; ops $OPS per CPU; seed $SEED; dependent $(commas "$DEP_L"); levels $(commas "$LEV_L"); indexes ${IDX_W:-$INDEXES}"
}

# the resolved sweep, key=value (bench.sh copies it into meta)
sweep_conf() {
	echo "full=$FULL"
	echo "indexes=${IDX_W:-$INDEXES}"
	echo "workloads=$WORKLOADS"
	echo "modes=$(commas "$MODES_L")"
	echo "cpus=$(commas "$CPUS_L")"
	echo "keys=$(commas "$KEYS_L")"
	echo "cpu_sweep_keys=$SWEEP_K"
	echo "pid_max=$(commas "$PIDMAX_L")"
	echo "shapes=$(commas "$SHAPES_L")"
	echo "keys_sweep_cpus=$KCPUS"
	echo "online_cpus=$NONLINE"
	echo "cachegrind=$CACHEGRIND"
	echo "ops=$OPS"
	echo "repeat=$REPEAT"
	echo "seed=$SEED"
	echo "dependent=$(commas "$DEP_L")"
	echo "levels=$(commas "$LEV_L")"
	echo "dists=$(commas "$DIST_L")"
	i=1 names=
	while [ "$i" -le "$NTRACE" ]; do
		names="${names:+$names,}$(trace_name "$i")"
		i=$((i + 1))
	done
	echo "traces=$names"
	echo "set=${PIDX_SET# }"
	echo "visits=$VISITS"
	echo "numa=$NUMA_RUN"
	echo "numa_nodes=$NNODES"
	echo "configs=$NCFG"
	echo "nindexes=$NIDX"
	echo "storms=$STORMS"
	echo "estimate_s=$EST_S"
	echo "slowdown=$SLOWDOWN"
}
