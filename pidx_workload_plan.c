// SPDX-License-Identifier: GPL-2.0
/*
 * pidx workloads, what a storm is before it runs: the settings both
 * substrates start from, the order in which the storm takes the keys (and
 * so which of them nobody deletes), and each workload's plan of how many
 * keys each CPU owns.  Built into the module and, unchanged, into
 * user/pidx-user (see pidx_workload.h).
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include "pidx_registry.h"
#include "pidx_workload.h"

u32 pidx_space(u32 pid_max)
{
	return pid_max - 1;
}

/*
 * The settings both substrates start from; each caller then sets what is
 * its own: the mode, the CPUs and pmu.
 */
void pidx_config_defaults(struct pidx_config *cfg)
{
	cfg->workload = PIDX_WL_LOOKUP;
	cfg->mix[PIDX_MIX_LOOKUP] = 90;
	cfg->mix[PIDX_MIX_INSERT] = 5;
	cfg->mix[PIDX_MIX_DELETE] = 5;
	cfg->keys = 1024;
	/* where it does not fit the storm's CPUs, pidx_plan_ops() fits it */
	cfg->ops = 10000;
	cfg->pid_max = clamp_t(u32, PIDX_PIDS_PER_CPU * num_possible_cpus(),
			       PIDX_PID_MAX_DEFAULT, PIDX_PID_MAX_LIMIT);
	cfg->repeat = 1;
	cfg->seed = 1;
	cfg->fork_window = 64;
	/* fork() looks nothing up; a child exits wherever it last ran */
	cfg->fork_lookups = 0;
	cfg->fork_exit = PIDX_EXIT_REMOTE;
	cfg->sl_p = 4;
	cfg->levels = 1;
	cfg->node = NUMA_NO_NODE;
	cfg->indexes = pidx_indexes_all();
	memset(&cfg->written, 0, sizeof(cfg->written));
	cfg->ops_fitted = 0;
}

/* all of *@p: a member added to pidx_params is 0 here, not stack garbage */
void pidx_fill_params(const struct pidx_config *cfg, struct pidx_params *p)
{
	*p = (struct pidx_params){
		.pid_max	= cfg->pid_max,
		.sl_p		= cfg->sl_p,
		.sl_max_level	= cfg->sl_max_level,
		.rb_level	= cfg->rb_level,
		.seed		= cfg->seed,
		.node		= cfg->node,
		.group		= NULL,
	};
}

/* Position @j in the storm's order: the shape's index there. */
u32 pidx_shape_index_of(const struct pidx_storm *s, u32 j)
{
	u32 rem;

	div_u64_rem((u64)j * s->perm_mul + s->perm_add, s->nkeys, &rem);
	return rem;
}

/* Position @j in the storm's order: its PID, the shape's key there. */
u32 pidx_key_of(const struct pidx_storm *s, u32 j)
{
	return pidx_shape_key(s->shape, pidx_shape_index_of(s, j));
}

/* pidx_key_of() backwards for dense keys: where PID @key stands in the order. */
u32 pidx_pos_of(const struct pidx_storm *s, u32 key)
{
	u32 rem;

	div_u64_rem((u64)(key - 1 + s->nkeys - s->perm_add) * s->perm_inv,
		    s->nkeys, &rem);
	return rem;
}

/* The inverse of @a modulo @n (extended Euclid); 0 if they share a factor. */
static u32 pidx_inverse(u32 a, u32 n)
{
	s64 t = 0, nt = 1, q, tmp;
	u32 r = n, nr = a, rtmp;

	while (nr) {
		q = r / nr;
		tmp = t - q * nt;
		t = nt;
		nt = tmp;
		rtmp = r - q * nr;
		r = nr;
		nr = rtmp;
	}
	if (r != 1)
		return 0;
	return t < 0 ? t + n : t;
}

/*
 * Draws the storm's order: a multiplier prime to nkeys (so the map is a
 * permutation) and an offset, both from the storm's own stream, so the same
 * seed gives the same order, as the Fisher-Yates shuffle it replaces did.
 * Neighbours in the order are mul apart modulo nkeys: each CPU's slice of
 * deletable PIDs is spread over the whole range, not clustered.  Unlike a
 * shuffle it is a fixed stride, so the CPUs' deletes keep fixed distances
 * from each other for the whole storm (README, "The storm's order").
 */
void pidx_order_init(struct pidx_storm *s, u64 *rng)
{
	u32 n = s->nkeys, tries = 0;

	s->perm_mul = 1;
	s->perm_add = 0;
	s->perm_inv = 1;
	if (n < 2)
		return;
	for (;;) {
		s->perm_mul = 1 + pidx_rand_below(rng, n - 1);
		/*
		 * A stride under n/8 (mul near 1 or n-1) would make the
		 * deletes nearly sequential, hitting one node again and
		 * again; such a stride is kept only when 64 draws found no
		 * other (it cannot be avoided below 16 keys).
		 */
		if (n >= 16 && ++tries <= 64 &&
		    min(s->perm_mul, n - s->perm_mul) < n / 8)
			continue;
		s->perm_inv = pidx_inverse(s->perm_mul, n);
		if (s->perm_inv)
			break;
	}
	s->perm_add = pidx_rand_below(rng, n);
}

/*
 * The most ops per CPU that a storm of @cfg on @ncpus CPUs has room for:
 * an insert storm's PIDs beside the keys in the space (above the floor
 * under a shape that leaves it, pidx_shape_check()), a delete storm's
 * deletes in the keys; U32_MAX where ops takes no room.  A mixed storm
 * draws each operation at random, so no ops bounds its inserts: it runs
 * into a full space as fork() does, each -ENOSPC a failed operation.
 */
u32 pidx_ops_fit(const struct pidx_config *cfg, unsigned int ncpus)
{
	u64 room = pidx_space(cfg->pid_max);

	if (cfg->shape != PIDX_SHAPE_DENSE)
		room = room > PIDX_RESERVED_PIDS ? room - PIDX_RESERVED_PIDS : 0;
	room = room > cfg->keys ? room - cfg->keys : 0;
	switch (cfg->workload) {
	case PIDX_WL_INSERT:
		return min_t(u64, div_u64(room, ncpus), PIDX_OPS_MAX);
	case PIDX_WL_DELETE:
		return cfg->keys / ncpus;
	default:
		return U32_MAX;
	}
}

/*
 * ops as a run on @ncpus CPUs takes it.  Left at its default, it is fitted
 * to the room pidx_ops_fit() finds, so that the first run on a machine of
 * many CPUs runs, and cfg->ops_fitted keeps the default for the row to say
 * so; where not one op fits, the keys are what to change, and @why (@len
 * bytes) says so.  Written, it is refused where it does not fit, @why
 * saying the most that would.
 */
int pidx_plan_ops(struct pidx_config *cfg, unsigned int ncpus, char *why,
		  size_t len)
{
	u32 fit = pidx_ops_fit(cfg, ncpus);

	cfg->ops_fitted = 0;
	if (cfg->ops <= fit)
		return 0;
	if (!cfg->written.ops && fit) {
		cfg->ops_fitted = cfg->ops;
		cfg->ops = fit;
		return 0;
	}
	switch (cfg->workload) {
	case PIDX_WL_INSERT:
		if (!cfg->written.ops)
			snprintf(why, len,
				 "keys leave no room for an insert under pid_max %u: fewer keys, or a larger pid_max",
				 cfg->pid_max);
		else if (cfg->shape == PIDX_SHAPE_DENSE)
			snprintf(why, len,
				 "keys + cpus x ops exceed pid_max - 1: at most %u ops per CPU fit",
				 fit);
		else
			snprintf(why, len,
				 "spread and aged inserts need keys + cpus x ops <= pid_max - 1 - 300: at most %u ops per CPU fit",
				 fit);
		return -ENOSPC;
	case PIDX_WL_DELETE:
		if (!cfg->written.ops)
			snprintf(why, len, "delete needs at least one key per CPU");
		else
			snprintf(why, len,
				 "delete needs keys >= cpus x ops: at most %u ops per CPU fit",
				 fit);
		return -EINVAL;
	default:
		return 0;
	}
}

/*
 * Per workload: how many prefilled keys each CPU owns (and may delete), and
 * how many PIDs it may hold at most.  An insert storm, which exists to add
 * ops PIDs per CPU, is refused before anything is built when they cannot
 * fit; mixed and fork storms run into a full space like fork() does, and
 * count each -ENOSPC as a failed operation.
 */
int pidx_plan(const struct pidx_config *cfg, unsigned int ncpus,
	      u32 *slice, u32 *ring_cap, const char **why)
{
	u64 space = pidx_space(cfg->pid_max);
	u32 dels;

	*slice = 0;
	*ring_cap = 0;
	switch (cfg->workload) {
	case PIDX_WL_INSERT:
		*ring_cap = cfg->ops;
		if (cfg->keys + (u64)cfg->ops * ncpus > space) {
			*why = "keys + cpus x ops exceed pid_max - 1";
			return -ENOSPC;
		}
		break;
	case PIDX_WL_DELETE:
		if ((u64)cfg->ops * ncpus > cfg->keys) {
			*why = "delete needs keys >= cpus x ops";
			return -EINVAL;
		}
		*slice = cfg->ops;
		*ring_cap = cfg->ops;
		break;
	case PIDX_WL_MIXED:
		dels = DIV_ROUND_UP((u64)cfg->ops * cfg->mix[PIDX_MIX_DELETE], 100);
		*slice = min_t(u32, dels, cfg->keys / (2 * ncpus));
		*ring_cap = *slice + (cfg->mix[PIDX_MIX_INSERT] ? cfg->ops : 0);
		break;
	case PIDX_WL_FORK:
		/*
		 * A window and the PID an exit could not free.  Remote: room
		 * for a neighbour that falls behind by a window or two batches
		 * (in an ipi round one CPU may run its whole batch before the
		 * next CPU starts, and finish after it ends, as under
		 * emulation), and for the two PIDs (its exit's and the
		 * owner's) that may be given back.
		 */
		*ring_cap = cfg->fork_window + 1;
		if (pidx_fork_remote(cfg, ncpus))
			*ring_cap = cfg->fork_window +
				    max(cfg->fork_window, 2 * pidx_batch(cfg->ops)) + 3;
		break;
	default:
		break;
	}
	return 0;
}
