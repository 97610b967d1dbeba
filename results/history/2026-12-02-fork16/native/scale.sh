#!/bin/bash
# Issue 16 item 3, natively: fork storms on 1 thread, then on 2 threads pinned
# to CPUs 0 and 1, in interleaved rounds (every index in each storm run, its
# repeats interleaved); lookups at 32K and 1M on 1 thread in the same rounds.
# null in every run is the control: it shares nothing, so its 2-thread gain is
# what this host's two vCPUs give at most.
set -u
B=${B:-user/pidx-user}
OUT=${OUT:-results/2026-12-02-fork16/native}
ROUNDS=${ROUNDS:-5}
IDX=${IDX:-idr,hash,lazyskip,lfradix,lfradix_pc,null}
mkdir -p "$OUT"
for r in $(seq 1 "$ROUNDS"); do
	for cpus in 0 0,1; do
		"$B" --indexes "$IDX" --workload fork --keys 32768 --pid-max 262144 \
			--ops "${FORK_OPS:-200000}" --repeat 3 --cpus "$cpus" --seed "$r" --run "$r" --quiet \
			--csv "$OUT/fork.csv" || echo "round $r cpus $cpus: exit $?"
	done
	"$B" --indexes "$IDX" --workload lookup --keys 32768 --pid-max 262144 \
		--ops 200000 --repeat 3 --cpus 0 --seed "$r" --run "$r" --quiet \
		--csv "$OUT/lookup.csv" || echo "round $r lookup 32K: exit $?"
	"$B" --indexes "$IDX" --workload lookup --keys 1048576 --pid-max 4194304 \
		--ops 200000 --repeat 3 --cpus 0 --seed "$r" --run "$r" --quiet \
		--csv "$OUT/lookup1m.csv" || echo "round $r lookup 1M: exit $?"
done
