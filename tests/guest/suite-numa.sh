# shellcheck shell=sh
# suite-numa.sh: sourced by tests/guest/suite.sh (the runner), uses
# suite-lib.sh's helpers; not a guest script of its own.  NUMA placement: the
# index objects land on the node the node setting names (a two-node guest,
# vm-run.sh --numa, the numa level), and node=interleave on one node and on two
# (the quick, full, debug and numa levels).
# The runner has sourced suite-lib.sh before this part; sourced here too so
# that shellcheck, which lints each file alone, sees the state and helpers
# this part uses (a second time changes nothing, before the tests run).
# shellcheck source=suite-lib.sh
. "$SUITE_DIR/suite-lib.sh"

# Placement: in a two-node guest the index objects land where node says.
t_numa() {
	expect "two NUMA nodes online" 2 "$(nnodes)"
	set_all indexes=all workload=lookup mode=ipi cpus=all keys=8192 ops=2000 repeat=1 pid_max=32768
	for n in 0 1 interleave; do
		set_all node=$n
		expect "node $n: run succeeds" ok "$(wr testcase run)"
		expect "node $n: recorded" "$n" "$(col idr node)"
		expect "node $n: storm CPUs and their nodes recorded" "0:0;1:1" "$(col idr cpu_nodes)"
		for ix in $INDEXES; do
			m=$(col "$ix" mem_nodes)
			share=$(echo "$m" | tr ';' '\n' | awk -F: -v n=$n '
				{ t += $2; if ($1 == n) on += $2; if ($1 == 0) z += $2 }
				END { if (n == "interleave") print (t ? z / t : -1); else print (t ? on / t : -1) }')
			case $n/$ix in
			# The kernel allocates the IDR's and maple tree's nodes without
			# a node; SLUB then serves the prefill CPU from its per-CPU
			# partial slabs first, which can hold another node's objects
			# freed there earlier (a node 0 prefill once got idr
			# 0:21;1:112): their placement is best effort, so only the
			# counting is checked (a share in [0, 1] of a non-empty count)
			*/idr | */idr_onelock | */maple) lo=0 hi=1 ;;
			interleave/*) lo=0.3 hi=0.7 ;;
			*) lo=0.95 hi=1 ;;
			esac
			if within "$share" $lo $hi; then
				pass "node $n: $ix objects placed ($m)"
			else
				fail "node $n: $ix placement" "share in [$lo, $hi], saw $share of '$m'"
			fi
		done
	done
	set_all node=any
	expect "node any: run succeeds" ok "$(wr testcase run)"
}

# node=interleave on a one-node guest: accepted, runs as any and says so
# (the prefill used to move itself to cpumask_of_node(NUMA_NO_NODE) and oops);
# on two nodes it is recorded as interleave.
t_node_interleave() {
	nn=$(nnodes)
	set_all indexes=all workload=lookup cpus=all keys=1000 ops=200 repeat=1 pid_max=32768
	expect "node interleave accepted" "ok interleave" "$(wr node interleave) $(cat $D/node)"
	for mode in ipi kthread; do
		set_all mode=$mode
		expect "node interleave ($nn node(s), $mode): run succeeds" ok "$(wr testcase run)"
		v=$(unverified_rows)
		expect "node interleave ($mode): every row verified" 0 "$v"
	done
	if [ "$nn" = 1 ]; then
		expect "interleave on 1 node: the node column says any" any "$(col idr node)"
		n=$(last_run_rows | grep -c 'numa=interleave on 1 node: ran as any')
		expect "interleave on 1 node: every row's extra says it ran as any" "$(last_run_rows | wc -l)" "$n"
		expect "interleave on 1 node: test_result says it ran as any" 1 \
			"$(grep -c '^NUMA: node any (interleave on 1 node: ran as any)' $D/test_result)"
	else
		expect "interleave on $nn nodes: recorded as interleave" interleave "$(col idr node)"
		expect "interleave on $nn nodes: no note in extra" 0 "$(last_run_rows | grep -c 'numa=')"
	fi
	set_all node=any mode=ipi keys=1024 ops=500
}
