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
};

const char *const pidx_mode_names[PIDX_NR_MODES] = {
	[PIDX_MODE_IPI]		= "ipi",
	[PIDX_MODE_KTHREAD]	= "kthread",
};

const char *const pidx_pmu_mode_names[PIDX_NR_PMU_MODES] = {
	[PIDX_PMU_AUTO]	= "auto",
	[PIDX_PMU_OFF]	= "off",
	[PIDX_PMU_SW]	= "sw",
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
