// SPDX-License-Identifier: GPL-2.0
/*
 * pidx registry: the table of indexes and the names of the settings'
 * words (see pidx_registry.h).  Both the module and user/pidx-user build
 * this file, so neither keeps a list of its own that could drift.
 */
#include <linux/kernel.h>
#include <linux/string.h>
#include "pidx_registry.h"

const struct pidx_ops *const pidx_index_table[] = {
	&pidx_idr_ops,
	&pidx_idr_onelock_ops,
	&pidx_skiplist_ops,
	&pidx_rbskip_ops,
	&pidx_hash_ops,
	&pidx_ccskip_ops,
	&pidx_lazyskip_ops,
	&pidx_lfradix_ops,
	&pidx_lfradix_pc_ops,
#ifdef PIDX_HAVE_MAPLE	/* Kbuild: the maple tree came in v6.1 */
	&pidx_maple_ops,
#endif
	&pidx_null_ops,
};

const unsigned int pidx_nr_indexes = ARRAY_SIZE(pidx_index_table);

const char *const pidx_workload_names[PIDX_NR_WORKLOADS] = {
	[PIDX_WL_LOOKUP]	= "lookup",
	[PIDX_WL_INSERT]	= "insert",
	[PIDX_WL_DELETE]	= "delete",
	[PIDX_WL_MIXED]		= "mixed",
	[PIDX_WL_FORK]		= "fork",
	[PIDX_WL_ITERATE]	= "iterate",
	[PIDX_WL_REPLAY]	= "replay",
};

const char *const pidx_mode_names[PIDX_NR_MODES] = {
	[PIDX_MODE_IPI]		= "ipi",
	[PIDX_MODE_KTHREAD]	= "kthread",
};

const char *const pidx_fork_exit_names[PIDX_NR_EXITS] = {
	[PIDX_EXIT_REMOTE]	= "remote",
	[PIDX_EXIT_LOCAL]	= "local",
};

const char *const pidx_pmu_mode_names[PIDX_NR_PMU_MODES] = {
	[PIDX_PMU_AUTO]	= "auto",
	[PIDX_PMU_OFF]	= "off",
	[PIDX_PMU_SW]	= "sw",
};

const char *const pidx_shape_names[PIDX_NR_SHAPES] = {
	[PIDX_SHAPE_DENSE]	= "dense",
	[PIDX_SHAPE_SPREAD]	= "spread",
	[PIDX_SHAPE_AGED]	= "aged",
};

/* the verified column of results.csv and test_result */
const char *const pidx_verdict_names[PIDX_NR_VERDICTS] = {
	[PIDX_VERIFIED]		= "yes",
	[PIDX_FAILED]		= "FAILED",
	[PIDX_NOT_CHECKED]	= "n/a",
};

/* The index called @name: its number in pidx_index_table[], or -EINVAL. */
int pidx_index_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < pidx_nr_indexes; i++)
		if (!strcmp(name, pidx_index_table[i]->name))
			return i;
	return -EINVAL;
}

/*
 * What "all" selects, and the default: every index whose contents the
 * oracle can check, which leaves out null (no_contents).
 */
unsigned long pidx_indexes_all(void)
{
	unsigned long mask = 0;
	unsigned int i;

	for (i = 0; i < pidx_nr_indexes; i++)
		if (!pidx_index_table[i]->no_contents)
			mask |= BIT(i);
	return mask;
}

/*
 * The order in which round @rep storms the indexes in @sel: a Fisher-Yates
 * shuffle drawn from the repeat's seed, so no index always runs first (on a
 * cold machine) or right after the same neighbour (whose frees and slab
 * state it inherits), and one seed gives one order on either substrate.
 * Fills @order with index numbers; returns how many.
 */
unsigned int pidx_round_order(unsigned long sel, u64 seed,
			      u8 order[PIDX_MAX_INDEXES])
{
	u64 rng = pidx_rand_seed(seed, 0xfffe);
	unsigned int i, j, n = 0;
	u8 t;

	BUILD_BUG_ON(ARRAY_SIZE(pidx_index_table) > PIDX_MAX_INDEXES);
	for (i = 0; i < pidx_nr_indexes; i++)
		if (sel & BIT(i))
			order[n++] = i;
	for (i = n; i > 1; i--) {
		j = pidx_rand_below(&rng, i);
		t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	return n;
}
