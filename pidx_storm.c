// SPDX-License-Identifier: GPL-2.0
/*
 * pidx storms: a storm's life around its operations, for the module and,
 * unchanged, for user/pidx-user (see pidx_storm.h).  The index created, the
 * workers and their rings set up, the prefilled keys dealt out to the
 * storm CPUs; after the storm its check, and at the end the index and the
 * storm freed.  The prefill itself is pidx_prefill.c's, the oracle
 * pidx_oracle.c's, the summaries and the row pidx_result.c's.
 */
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
/* kvmalloc_array(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pidx_storm.h"
#include "pidx_trace.h"

/* Every level's instance, the group's first last. */
static void pidx_storm_destroy(struct pidx_storm *s)
{
	while (s->nlevels)
		s->ops->destroy(s->lvl[--s->nlevels]);
	s->idx = NULL;
}

/*
 * The index, empty: one instance per namespace level, the first made
 * first, the others in its group; on failure none is left and s->idx is
 * NULL.
 */
int pidx_storm_create(struct pidx_storm *s)
{
	struct pidx_params params;
	struct pidx_index *idx;
	unsigned int i;

	pidx_fill_params(s->cfg, &params);
	for (i = 0; i < s->cfg->levels; i++) {
		idx = s->ops->create(&params);
		if (IS_ERR(idx)) {
			pidx_storm_destroy(s);
			return PTR_ERR(idx);
		}
		s->lvl[i] = idx;
		s->nlevels = i + 1;
		params.group = s->lvl[0];
	}
	s->look_level = s->nlevels - 1;
	s->idx = s->lvl[s->look_level];
	return 0;
}

/* The storm's plan, its workers and their rings, before the prefill. */
int pidx_storm_setup(struct pidx_storm *s, const char **why)
{
	const struct pidx_config *cfg = s->cfg;
	unsigned int cpu, wi = 0;
	u32 slice, ring_cap;
	int ret;

	s->nworkers = cpumask_weight(&cfg->cpus);
	ret = pidx_plan(cfg, s->nworkers, &slice, &ring_cap, why);
	if (ret)
		return ret;
	if (cfg->workload == PIDX_WL_REPLAY &&
	    (!cfg->replay || cfg->replay->ncpus != s->nworkers)) {
		*why = "replay: no plan of the trace for these CPUs";
		return -EINVAL;
	}
	s->batch = pidx_batch(cfg->replay ? cfg->replay->most : cfg->ops);
	s->workers = kcalloc(s->nworkers, sizeof(*s->workers), GFP_KERNEL);
	s->worker_of = kcalloc(nr_cpu_ids, sizeof(*s->worker_of), GFP_KERNEL);
	if (!s->workers || !s->worker_of)
		return -ENOMEM;
	s->nkeys = cfg->keys;
	s->stable = cfg->keys - slice * s->nworkers;
	s->slice = slice;
	/*
	 * replay: the trace's initially-live PIDs are prefilled after the
	 * keys (the background, never deleted), and may be freed by it
	 */
	if (cfg->replay)
		s->nkeys = cfg->keys + cfg->replay->initial;
	s->check_values = !s->ops->no_contents;
	s->objs = kvmalloc_array(max(s->nkeys, 1U), sizeof(*s->objs), GFP_KERNEL);
	if (!s->objs)
		return -ENOMEM;

	for_each_cpu(cpu, &cfg->cpus) {
		struct pidx_worker *w = &s->workers[wi];

		w->storm = s;
		w->cpu = cpu;
		w->rng = pidx_rand_seed(cfg->seed, cpu);
		w->nops = cfg->ops;
		if (cfg->replay) {
			const struct pidx_replay_cpu *rc = &cfg->replay->cpu[wi];

			w->nops = rc->nev;
			w->rev = rc->ev;
			w->rmap = kvcalloc(max(rc->ninc, 1U), sizeof(*w->rmap), GFP_KERNEL);
			if (!w->rmap)
				return -ENOMEM;
		}
		w->ring_cap = ring_cap;
		if (ring_cap) {
			w->ring = kvmalloc_array(ring_cap, sizeof(*w->ring), GFP_KERNEL);
			if (!w->ring)
				return -ENOMEM;
		}
		w->lat = kvmalloc_array(PIDX_LAT_MAX, sizeof(u32), GFP_KERNEL);
		if (!w->lat)
			return -ENOMEM;
		raw_spin_lock_init(&w->ring_lock);
		s->worker_of[cpu] = wi++;
	}
	/*
	 * fork_exit=remote: each CPU frees the PIDs of the next one in the
	 * storm's CPU list, as a child exits wherever it last ran, not where
	 * it was forked.  With one CPU there is no other: the row says local.
	 */
	s->remote_exit = pidx_fork_remote(cfg, s->nworkers);
	/*
	 * A full window waits for the CPU that frees it, except in an ipi
	 * round, whose callback runs with interrupts off and must not wait
	 * for a CPU that may already have left the round.
	 */
	s->fork_wait = s->remote_exit && cfg->mode != PIDX_MODE_IPI;
	s->fork_full = ring_cap - (s->remote_exit ? 2 : 0);
	for (wi = 0; wi < s->nworkers; wi++)
		s->workers[wi].exit_from = s->remote_exit ?
			&s->workers[(wi + 1) % s->nworkers] : &s->workers[wi];
	return 0;
}

/*
 * After the prefill: where the index's objects lie, the storm's order of
 * the keys, and each CPU's slice of them in its ring.
 */
int pidx_storm_deal(struct pidx_storm *s)
{
	u64 rng = pidx_rand_seed(s->cfg->seed, 0xffff);
	unsigned int wi;
	u32 n;

	for (n = 0; s->ops->nodes && n < s->nlevels; n++) {
		s->ops->nodes(s->lvl[n], s->mem_nodes);
		s->mem_nodes_known = true;
	}
	/*
	 * replay: the keys in the shape's own order, so that [0, stable) are
	 * the background and the initially-live PIDs follow (pidx_trace.h)
	 */
	if (s->cfg->replay) {
		s->perm_mul = 1;
		s->perm_add = 0;
		s->perm_inv = 1;
	} else {
		pidx_order_init(s, &rng);
	}
	/* a miss of a key off the dense range finds its owner here */
	if (s->shape->shape != PIDX_SHAPE_DENSE && s->stable && s->stable < s->nkeys) {
		s->stable_map = bitmap_zalloc(s->cfg->pid_max, GFP_KERNEL);
		if (!s->stable_map)
			return -ENOMEM;
		for (n = 0; n < s->stable; n++)
			__set_bit(pidx_key_of(s, n), s->stable_map);
	}
	for (wi = 0; wi < s->nworkers; wi++) {
		struct pidx_worker *w = &s->workers[wi];

		for (n = 0; n < s->slice; n++)
			w->ring[n] = s->objs[pidx_shape_index_of(s, s->stable + wi * s->slice + n)];
		w->ring_len = s->slice;
		if (s->cfg->replay) {
			const struct pidx_replay_cpu *rc = &s->cfg->replay->cpu[wi];

			for (n = 0; n < rc->ninit; n++)
				w->rmap[rc->init[2 * n]] =
					s->objs[pidx_shape_index_of(s, s->stable +
								    rc->init[2 * n + 1])];
		}
		/* the CPUs' walks start apart, so they do not look up in step */
		w->walk_pos = (u64)(s->shape->dist_walk ? s->shape->dist_len : s->nkeys) *
			      wi / s->nworkers;
	}
	s->dealt = true;
	return 0;
}

/*
 * After a storm that ran to its end: its figures, then whether the index
 * is consistent (verify(), which reports to @log, where the substrate's
 * messages go) and holds what the storm implies (the oracle), its memory
 * and its own facts for extra.
 */
void pidx_storm_check(struct pidx_storm *s, struct pidx_result *res,
		      const char *log)
{
	const struct pidx_ops *ops = s->ops;
	unsigned int level;
	u32 present = 0;

	pidx_summarize(s, res);
	pidx_fill_mem_nodes(res, s);
	if (!ops->no_contents)
		present = pidx_check_contents(s, res, log);
	res->shape_wraps = s->shape->wraps;
	/* a PID's cost: its entries in every level */
	res->mem_bytes = 0;
	for (level = 0; level < s->nlevels; level++)
		res->mem_bytes += ops->mem_bytes(s->lvl[level]);
	res->bytes_per_key_milli = pidx_milli_div(res->mem_bytes, present);
	/* the group's first: where a level group keeps its counters */
	if (ops->describe)
		ops->describe(s->lvl[0], res->extra, sizeof(res->extra));
	if (res->fork_local_exits) {
		size_t len = strlen(res->extra);

		scnprintf(res->extra + len, sizeof(res->extra) - len, "%slocal_exits=%llu",
			  len ? ";" : "", res->fork_local_exits);
	}
	if (s->fork_wait) {
		size_t len = strlen(res->extra);

		scnprintf(res->extra + len, sizeof(res->extra) - len, "%sfork_wait_ms=%llu",
			  len ? ";" : "", div_u64(res->fork_wait_ns, NSEC_PER_MSEC));
	}
	if (s->cfg->replay)
		pidx_replay_extra(s, res);
}

/*
 * The index destroyed and the storm freed, however far it got; a storm
 * that ran (@ret 0) fails if the index did not give back every byte it
 * held when @mem_before was read.
 */
void pidx_storm_end(struct pidx_storm *s, struct pidx_result *res,
		    long mem_before, int ret)
{
	unsigned int i;

	pidx_storm_destroy(s);
	/* the index is gone, and with it every reader: the objects go too */
	if (s->objs)
		pidx_all_held(s, NULL);
	kvfree(s->objs);
	if (s->workers) {
		for (i = 0; i < s->nworkers; i++) {
			kvfree(s->workers[i].ring);
			kvfree(s->workers[i].lat);
			kvfree(s->workers[i].rmap);
		}
	}
	kfree(s->workers);
	kfree(s->worker_of);
	bitmap_free(s->stable_map);
	if (!ret && pidx_mem_bytes() != mem_before)
		pidx_fail(res, "index leaked %ld bytes",
			  pidx_mem_bytes() - mem_before);
}
