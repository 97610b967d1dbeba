/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx lookup distributions (the dist setting): which PIDs of the live set
 * a storm's lookups draw.  Built into the module (Kbuild) and into
 * user/pidx-user (user/Makefile), so a dist and a seed give both
 * substrates the same keys.
 *
 *  - uniform:    each lookup a uniform PID of the set, drawn as before this
 *                setting (pidx_draw_key()): no walk.
 *  - zipf:S      rank r (0 the hottest) weighs (r + 1)^-S; ranks map to
 *                the set's PIDs by a random permutation fixed per run.
 *  - recent:H    rank r (0 the newest PID in allocation order) weighs
 *                2^(-r / H): half the lookups go to the H newest.
 *  - sequential: every PID once, ascending, as /proc's readdir visits them.
 *
 * Every dist but uniform is a walk: an array of keys drawn once per run,
 * before the first storm, which lookups read in turn, each CPU from its
 * own place, as the aged shape's walk is.  A load in address order, which
 * the hardware prefetches: drawing a key costs every index the same and
 * adds no cache miss per draw, where a table of the distribution read at
 * random would add one at 1M keys.
 */
#ifndef _PIDX_DIST_H
#define _PIDX_DIST_H

#include "pidx_shape.h"

/* zipf: S in thousandths, 0.001 to 5.000 */
#define PIDX_DIST_ZIPF_MAX	5000U
/* a zipf or recent walk is at least this long (pidx_dist.c) */
#define PIDX_DIST_WALK_MIN	65536U
/* ... and at most this long: 2^22 keys, 16 MB */
#define PIDX_DIST_WALK_MAX	4194304U
/* "recent:4194304" and a NUL */
#define PIDX_DIST_NAME_MAX	24

extern const char *const pidx_dist_names[PIDX_NR_DISTS];

/* "uniform", "zipf:0.99", "recent:1000", "sequential": 0, or -EINVAL */
int pidx_dist_parse(const char *val, enum pidx_dist *dist, u32 *param);
/* The setting as pidx_dist_parse() reads it back: zipf without trailing zeros. */
void pidx_dist_name(char *buf, size_t len, enum pidx_dist dist, u32 param);

/*
 * The run's walk for cfg->dist, into @set (made by pidx_shape_make() from
 * the same settings); uniform makes none, nor a storm that draws no
 * lookup.  Process context (GFP_KERNEL).  pidx_shape_free() frees it with
 * the set.
 */
int pidx_dist_make(const struct pidx_config *cfg, struct pidx_shape_set *set);

/*
 * Whether a storm draws lookups from a prefilled set, so that dist means
 * anything for it: with no key, or no lookup in the mix, rows say n/a.
 */
static inline bool pidx_dist_applies(enum pidx_workload workload, u32 mix_lookup,
				     u32 fork_lookups, u32 keys)
{
	return keys && (workload == PIDX_WL_LOOKUP ||
			(workload == PIDX_WL_MIXED && mix_lookup) ||
			((workload == PIDX_WL_FORK || workload == PIDX_WL_REPLAY) &&
			 fork_lookups));
}

#endif /* _PIDX_DIST_H */
