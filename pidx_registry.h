/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx registry: the indexes a run can storm, and the words that name
 * workloads, modes, pmu settings and verdicts.  Listed once and compiled
 * into the module (Kbuild) and into user/pidx-user (user/Makefile), so that
 * bit i of the indexes setting is the same index on either substrate and a
 * results.csv row names things alike on both.
 */
#ifndef _PIDX_REGISTRY_H
#define _PIDX_REGISTRY_H

#include "pidx_engine.h"

/* the indexes setting is a bitmask: one bit per index of the table */
#define PIDX_MAX_INDEXES	BITS_PER_LONG

/* Adding an index: its file, and one line in pidx_index_table[]. */
extern const struct pidx_ops *const pidx_index_table[];
extern const unsigned int pidx_nr_indexes;

extern const char *const pidx_workload_names[PIDX_NR_WORKLOADS];
extern const char *const pidx_mode_names[PIDX_NR_MODES];
extern const char *const pidx_pmu_mode_names[PIDX_NR_PMU_MODES];
extern const char *const pidx_fork_exit_names[PIDX_NR_EXITS];
extern const char *const pidx_verdict_names[PIDX_NR_VERDICTS];
extern const char *const pidx_shape_names[PIDX_NR_SHAPES];

int pidx_index_by_name(const char *name);
unsigned long pidx_indexes_all(void);
unsigned int pidx_round_order(unsigned long sel, u64 seed,
			      u8 order[PIDX_MAX_INDEXES]);

#endif /* _PIDX_REGISTRY_H */
