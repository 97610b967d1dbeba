# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-results.sh: what scripts/bench.sh leaves in OUT once its parts have
# run, sourced by it: the parts' rows in one results.csv, each part's row
# count, and OUT/meta, the run's key=value facts (where and on what it ran,
# the sweep, where each part's rows come from).  Apart, so that bench.sh
# reads as the job itself: options, where to run, the estimate, the parts,
# the plots.  The functions read bench.sh's state (env, why, primary, the
# parts' statuses and times, ...); nothing here runs at source time.

# merge_csv OUT SUBSTRATES FILE...: the rows of every FILE in one CSV,
# columns matched by name (the first file's order, then each later file's
# new names): another branch may add columns in another order.  A cell a
# file lacks is n/a; its substrate the one SUBSTRATES (a comma list, one
# per FILE) names.  `extra` is free text: its commas are rejoined.
merge_csv() {
	local out=$1 subs=$2
	shift 2
	awk -F, -v subs="$subs" '
	BEGIN { split(subs, sb, ","); nh = 0; nr = 0; bad = 0 }
	FNR == 1 {
		fi++
		gsub(/\r/, "")
		nf[fi] = NF
		ex[fi] = 0
		for (i = 1; i <= NF; i++) {
			name[fi, i] = $i
			if ($i == "extra") ex[fi] = i
			if (!($i in pos)) { pos[$i] = ++nh; hdr[nh] = $i }
		}
		next
	}
	{ gsub(/\r/, "") }
	$0 == "" { next }
	{
		n = nf[fi]
		for (i = 1; i <= NF; i++) f[i] = $i
		if (NF > n && ex[fi]) {
			e = ex[fi]
			k = NF - n
			for (i = 1; i <= k; i++) f[e] = f[e] "," f[e + i]
			for (i = e + 1; i <= n; i++) f[i] = f[i + k]
		} else if (NF != n) {
			printf "%s line %d: %d fields, its header has %d\n", FILENAME, FNR, NF, n > "/dev/stderr"
			bad++
			next
		}
		nr++
		for (i = 1; i <= n; i++) cell[nr, pos[name[fi, i]]] = f[i]
		rs[nr] = sb[fi]
	}
	END {
		if (!("substrate" in pos)) { pos["substrate"] = ++nh; hdr[nh] = "substrate" }
		for (i = 1; i <= nh; i++) printf "%s%s", hdr[i], (i < nh ? "," : "\n")
		for (r = 1; r <= nr; r++)
			for (i = 1; i <= nh; i++) {
				if ((r, i) in cell) v = cell[r, i]
				else v = (hdr[i] == "substrate" ? rs[r] : "n/a")
				printf "%s%s", v, (i < nh ? "," : "\n")
			}
		exit bad > 0
	}' "$@" >"$out"
}

# rows_of WHAT: rows of results.csv from one part (columns by name)
rows_of() {
	awk -F, -v what="$1" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{
		s = ("substrate" in c) ? $c["substrate"] : "kernel"
		p = ("pmu" in c) ? $c["pmu"] : "n/a"
		if (what == "system" && s ~ /^system-/) n++
		else if (s ~ /^system-/) next
		else if (what == "kernel" && s != "user") n++
		else if (what == "user" && s == "user" && p != "cachegrind") n++
		else if (what == "cachegrind" && s == "user" && p == "cachegrind") n++
	}
	END { print n + 0 }' "$OUTDIR/results.csv" 2>/dev/null || echo 0
}

first() { # first non-empty argument
	local a
	for a in "$@"; do
		if [ -n "$a" ]; then
			echo "$a"
			return
		fi
	done
}

# write_meta FILE: the run's facts, key=value, into FILE.  The accelerator
# the guest reports (guest-info) becomes ACCEL, for the part texts after it.
# shellcheck disable=SC2154 # bench.sh's state, set before the parts ran
write_meta() {
	local gi=$OUTDIR/guest-info host_cpu accel=none sweep substrates n commit p r t
	host_cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	if [ "$env" = vm ]; then
		accel=$(first "$(conf_get accel "$gi")" "$([ "$ACCEL" != auto ] && echo "$ACCEL")" unknown)
		[ "$accel" = kvm ] && ACCEL=kvm
		[ "$accel" = tcg ] && ACCEL=tcg
	fi
	sweep=$OUTDIR/sweep.conf
	[ -s "$sweep" ] || sweep=$tmp/est.$primary
	substrates=
	[ "$(rows_of kernel)" -gt 0 ] && substrates=kernel
	[ "$(rows_of user)" -gt 0 ] || [ "$(rows_of cachegrind)" -gt 0 ] && substrates=${substrates:+$substrates,}user
	[ "$(rows_of system)" -gt 0 ] && substrates=${substrates:+$substrates,}system
	{
		echo "# pidx benchmark run, written by scripts/bench.sh"
		echo "kernel=$(first "$(conf_get kernel "$gi")" "$([ "$env" != vm ] && uname -r)" "$RELEASE" unknown)"
		echo "env=$env"
		echo "accel=$accel"
		echo "substrate=${substrates:-$([ "$env" = user ] && echo user || echo kernel)}"
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
		echo "module_version=$(cat "$REPO/VERSION" 2>/dev/null || echo unknown)"
		commit=$(git -C "$REPO" rev-parse HEAD 2>/dev/null || echo unknown)
		if [ "$commit" != unknown ] && [ -n "$(git -C "$REPO" status --porcelain -- . ':!results' 2>/dev/null)" ]; then
			commit=$commit-dirty
		fi
		echo "commit=$commit"
		echo "command=$command_line"
		echo "date=$(date -u -d "@$start" +%Y-%m-%dT%H:%M:%SZ)"
		echo "duration_s=$took"
		echo "status=$rc"
		grep -v -e '^#' -e '^$' "$sweep" | grep -v -e '^estimate_s=' -e '^slowdown='
		echo "estimate_s=$est_s"
		[ -z "$TRACES" ] || echo "trace_files=$TRACES"
		if [ "$env" = vm ]; then
			echo "vm_smp=$SMP"
			echo "vm_mem_mb=$MEM"
		fi
		# where every row comes from
		echo "parts=$(parts_list)"
		for p in $(parts_list | tr ',' ' '); do
			r=part_rc_$p t=took_$p
			echo "part_$p=$(part_text "$p")"
			echo "rows_$p=$(rows_of "$p")"
			echo "${p}_duration_s=${!t:-0}"
			echo "${p}_status=${!r:-unknown}"
			if [ "$p" != "$primary" ] && [ -s "$OUTDIR/$p/sweep.conf" ]; then
				# the settings that apply to the part
				grep -v -e '^#' -e '^$' -e '^slowdown=' -e '^online_cpus=' -e '^numa_nodes=' \
					"$OUTDIR/$p/sweep.conf" | if [ "$p" = cachegrind ]; then
					grep -v -e '^cpus=' -e '^cpu_sweep_keys=' -e '^modes=' -e '^cachegrind=' -e '^full='
				else cat; fi | sed "s/^/${p}_/"
			fi
		done
		[ -z "$skipped" ] || echo "skipped=$skipped"
		if [ "$primary" = cachegrind ] || [ "$do_cg" = 1 ]; then
			echo "cachegrind_model=I1 32768,8,64 D1 32768,8,64 LL 1048576,16,64 (valgrind --tool=cachegrind --cache-sim=yes --branch-sim=yes)"
			echo "cachegrind_valgrind=$(valgrind --version 2>/dev/null || echo unknown)"
		fi
	} >"$1"
}
