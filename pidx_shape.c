// SPDX-License-Identifier: GPL-2.0
/*
 * pidx live-set shapes (see pidx_shape.h), and the simulated uptime that
 * makes the aged one.
 *
 * The aged set is what a machine holds after its PID cursor has gone round
 * the space: a few daemons from boot at the bottom, long-lived processes
 * anywhere, short-lived ones just below the cursor.  Churning every index
 * until it got there would cost each index minutes under emulation; the set
 * is simulated once per run instead, on a bitmap with alloc_pid()'s cyclic
 * search and floor, and its survivors are inserted into each index in the
 * order they were allocated.  A review found that the memory layout such
 * churn leaves moves cachegrind's counts by under 2% (docs/design.md).
 *
 * Lifetime model (docs/design.md, "The aged set"): the live population
 * stays at keys.  Boot forks keys processes (PIDs 1..keys); the first
 * keys / 16 (at most PIDX_AGED_DAEMONS_MAX) are daemons and never exit.
 * The rest fall in PIDX_AGED_CLASSES classes of equal size, class c's
 * processes living PIDX_AGED_RATIO^c times as long as class 0's.  Each step
 * one process exits, drawn with probability proportional to its class's
 * exit rate, and a fork takes its place in its class at the cursor.  Equal
 * survivors per class with geometric lifetimes is a Pareto lifetime tail
 * of exponent 1 cut into classes: a live population with such lifetimes
 * holds as many processes per factor of age as per any other.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/math64.h>
/* kvmalloc_array(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "pidx_shape.h"

int pidx_shape_check(const struct pidx_config *cfg, const char **why)
{
	u32 space = cfg->pid_max - 1, keys = pidx_live_keys(cfg);

	if (cfg->shape == PIDX_SHAPE_SPREAD && space / 2 < keys) {
		*why = "shape spread needs pid_max - 1 >= 2 x keys";
		return -ENOSPC;
	}
	if (cfg->shape == PIDX_SHAPE_AGED &&
	    (space <= PIDX_RESERVED_PIDS || keys > space - PIDX_RESERVED_PIDS)) {
		*why = "shape aged needs keys <= pid_max - 1 - 300";
		return -ENOSPC;
	}
	/*
	 * The set leaves the cursor past the floor: a number below 300 that
	 * is not in the set is never allocated again, so an insert storm has
	 * what lies above the floor, less the set, whose keys may all lie
	 * there.  Refused whole, rather than run into -ENOSPC part way.
	 */
	if (cfg->shape != PIDX_SHAPE_DENSE && cfg->workload == PIDX_WL_INSERT &&
	    (space <= PIDX_RESERVED_PIDS ||
	     cfg->keys + (u64)cfg->ops * cpumask_weight(&cfg->cpus) >
	     space - PIDX_RESERVED_PIDS)) {
		*why = "spread and aged inserts need keys + cpus x ops <= pid_max - 1 - 300";
		return -ENOSPC;
	}
	return 0;
}

struct pidx_aged_sim {
	unsigned long *taken;	/* the simulated pidmap */
	u64 *slot;		/* each live process: wraps at its birth << 32 | PID */
	u32 pid_max;
	u32 cursor;
	u32 wraps;
};

/* alloc_pid(): the first free number from the cursor, else from the floor */
static int pidx_aged_fork(struct pidx_aged_sim *sim)
{
	u32 floor = pidx_alloc_floor(sim->cursor);
	u32 start = max(sim->cursor, floor);
	unsigned long pid;

	pid = find_next_zero_bit(sim->taken, sim->pid_max, start);
	if (pid >= sim->pid_max) {
		pid = find_next_zero_bit(sim->taken, sim->pid_max, floor);
		if (pid >= sim->pid_max)
			return -ENOSPC;
		if (start > floor)
			sim->wraps++;
	}
	__set_bit(pid, sim->taken);
	sim->cursor = pid + 1;
	return pid;
}

static int pidx_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int pidx_aged_make(const struct pidx_config *cfg, struct pidx_shape_set *set)
{
	struct pidx_aged_sim sim = { .pid_max = cfg->pid_max, .cursor = 0 };
	u32 n = pidx_live_keys(cfg), start[PIDX_AGED_CLASSES], size[PIDX_AGED_CLASSES];
	u32 weight[PIDX_AGED_CLASSES], total = 0, churn, target, i, c;
	u64 rng = pidx_rand_seed(cfg->seed, 0xfffe);
	/* far past what 2 wraps take: each fork moves the cursor 1 at least */
	u64 limit = 8ULL * cfg->pid_max + pidx_live_keys(cfg);
	int pid, ret = -ENOMEM;

	sim.taken = bitmap_zalloc(cfg->pid_max, GFP_KERNEL);
	sim.slot = kvmalloc_array(n, sizeof(u64), GFP_KERNEL);
	set->order = kvmalloc_array(n, sizeof(u32), GFP_KERNEL);
	set->walk = kvmalloc_array(n, sizeof(u32), GFP_KERNEL);
	if (!sim.taken || !sim.slot || !set->order || !set->walk)
		goto out;
	__set_bit(0, sim.taken);

	set->daemons = min_t(u32, n / 16, PIDX_AGED_DAEMONS_MAX);
	churn = n - set->daemons;
	for (c = 0; c < PIDX_AGED_CLASSES; c++) {
		size[c] = churn / PIDX_AGED_CLASSES;
		/* class c exits 1/RATIO^c as often as class 0, per process */
		weight[c] = 1;
		for (i = c; i < PIDX_AGED_CLASSES - 1; i++)
			weight[c] *= PIDX_AGED_RATIO;
	}
	size[0] += churn % PIDX_AGED_CLASSES;
	start[0] = set->daemons;
	for (c = 0; c < PIDX_AGED_CLASSES; c++) {
		if (c)
			start[c] = start[c - 1] + size[c - 1];
		if (!size[c])
			weight[c] = 0;
		total += weight[c];
	}

	/* boot: 1..n, daemons first */
	for (i = 0; i < n; i++)
		sim.slot[i] = pidx_aged_fork(&sim);
	set->forks = n;
	/* the set is taken at a cursor drawn anywhere above the floor */
	target = PIDX_RESERVED_PIDS + pidx_rand_below(&rng, cfg->pid_max - PIDX_RESERVED_PIDS);
	while (total && (sim.wraps < PIDX_AGED_WRAPS || sim.cursor <= target)) {
		u32 r = pidx_rand_below(&rng, total);

		for (c = 0; r >= weight[c]; c++)
			r -= weight[c];
		i = start[c] + pidx_rand_below(&rng, size[c]);
		__clear_bit((u32)sim.slot[i], sim.taken);
		pid = pidx_aged_fork(&sim);
		if (pid < 0 || ++set->forks > limit) {
			/* pidx_shape_check() leaves room above the floor: cannot happen */
			ret = pid < 0 ? pid : -ELOOP;
			goto out;
		}
		sim.slot[i] = (u64)sim.wraps << 32 | pid;
		if (!(set->forks & 0xffff))
			cond_resched();
	}
	/* within a lap the cursor only rises: (wraps, PID) is allocation order */
	sort(sim.slot, n, sizeof(u64), pidx_cmp_u64, NULL);
	for (i = 0; i < n; i++)
		set->order[i] = (u32)sim.slot[i];
	memcpy(set->walk, set->order, n * sizeof(u32));
	/* Fisher-Yates: the lookups' walk visits the set in a random order */
	for (i = n - 1; i > 0; i--) {
		u32 j = pidx_rand_below(&rng, i + 1), t = set->walk[i];

		set->walk[i] = set->walk[j];
		set->walk[j] = t;
	}
	set->cursor = sim.cursor;
	set->wraps = sim.wraps;
	ret = 0;
out:
	bitmap_free(sim.taken);
	kvfree(sim.slot);
	return ret;
}

/*
 * The run's live set, once for all its storms; a set that pidx_shape_check()
 * refuses is not made.  Process context (it allocates with GFP_KERNEL).
 */
int pidx_shape_make(const struct pidx_config *cfg, struct pidx_shape_set *set)
{
	const char *why;
	int ret;

	memset(set, 0, sizeof(*set));
	set->shape = cfg->shape;
	set->nkeys = pidx_live_keys(cfg);
	set->seed = cfg->seed;
	ret = pidx_shape_check(cfg, &why);
	if (ret || !set->nkeys)
		return ret;
	switch (cfg->shape) {
	case PIDX_SHAPE_SPREAD:
		set->scale = div64_u64((u64)(cfg->pid_max - 1) << 32, set->nkeys);
		set->cursor = pidx_shape_key(set, set->nkeys - 1) + 1;
		break;
	case PIDX_SHAPE_AGED:
		ret = pidx_aged_make(cfg, set);
		if (ret)
			pidx_shape_free(set);
		break;
	default:
		/* dense: the prefill's own allocations leave the cursor */
		break;
	}
	return ret;
}

void pidx_shape_free(struct pidx_shape_set *set)
{
	kvfree(set->order);
	kvfree(set->walk);
	kvfree(set->dist_walk);
	set->order = NULL;
	set->walk = NULL;
	set->dist_walk = NULL;
}
