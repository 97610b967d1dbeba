/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx live-set shapes: which PIDs the prefill leaves in an index and where
 * its cursor then stands (docs/design.md, "Live sets by shape").  Built
 * into the module (Kbuild) and into user/pidx-user (user/Makefile), so that
 * a shape and a seed give both substrates the same set.
 *
 *  - dense:  1..keys, as keys allocations from an empty index leave them.
 *  - spread: key i is 1 + (i * scale >> 32), scale = (pid_max - 1) * 2^32 /
 *            keys: evenly spread over the space, a map with no memory.
 *  - aged:   the survivors of a simulated uptime: fork/exit churn with the
 *            kernel's cyclic cursor and floor until the cursor has wrapped
 *            at least twice (pidx_shape.c).
 */
#ifndef _PIDX_SHAPE_H
#define _PIDX_SHAPE_H

#include "pidx_engine.h"
#include "pidx_trace.h"

/* aged: the classes of processes that exit and are replaced (pidx_shape.c) */
#define PIDX_AGED_CLASSES	4
/* aged: each class's processes live this many times longer than the one before */
#define PIDX_AGED_RATIO		8
/* aged: boot-time daemons that never exit: keys / 16, at most this many */
#define PIDX_AGED_DAEMONS_MAX	256
/* aged: the cursor wraps at least this often before the set is taken */
#define PIDX_AGED_WRAPS		2
/* aged: sets up to this many keys are drawn at random places of the walk */
#define PIDX_AGED_RANDOM_MAX	4096

/*
 * One run's live set, made once by pidx_shape_make() before the first
 * storm and read by every storm of the run.
 */
struct pidx_shape_set {
	enum pidx_shape shape;
	u32 nkeys;
	u64 seed;		/* the seed the set was made from: the run's */
	u64 scale;		/* spread: (pid_max - 1) * 2^32 / nkeys */
	/* aged: the survivors in the order they were allocated */
	u32 *order;
	/* aged: the survivors shuffled, walked in turn by lookups (drawn from) */
	u32 *walk;
	/*
	 * dist other than uniform: the lookups' keys, walked in turn in place
	 * of the draws above (pidx_dist_make(); freed with the set)
	 */
	u32 *dist_walk;
	u32 dist_len;
	/* where alloc goes on: just past the last number allocated */
	u32 cursor;
	u32 wraps;		/* aged: the cursor's wraps in the simulation */
	u64 forks;		/* aged: simulated forks, boot included */
	u32 daemons;		/* aged: boot-time processes that never exit */
};

/*
 * The PIDs a run's set holds: keys, and under replay the trace's
 * initially-live PIDs after them (pidx_trace.h).
 */
static inline u32 pidx_live_keys(const struct pidx_config *cfg)
{
	return cfg->keys + (cfg->replay ? cfg->replay->initial : 0);
}

/*
 * -ENOSPC, saying why, when the shape does not fit the space: spread needs
 * pid_max - 1 >= 2 x keys (neighbours at least 2 apart), aged needs the
 * keys to fit above the floor (keys <= pid_max - 1 - PIDX_RESERVED_PIDS).
 */
int pidx_shape_check(const struct pidx_config *cfg, const char **why);
int pidx_shape_make(const struct pidx_config *cfg, struct pidx_shape_set *set);
void pidx_shape_free(struct pidx_shape_set *set);

/* The @i-th key of the set, in [0, nkeys): the order the prefill inserts. */
static __always_inline u32 pidx_shape_key(const struct pidx_shape_set *set, u32 i)
{
	switch (set->shape) {
	case PIDX_SHAPE_SPREAD:
		return 1 + (u32)(((u64)i * set->scale) >> 32);
	case PIDX_SHAPE_AGED:
		return set->order[i];
	default:
		return i + 1;
	}
}

#endif /* _PIDX_SHAPE_H */
