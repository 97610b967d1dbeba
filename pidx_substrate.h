/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's storm substrate (pidx_substrate.c): one index stormed on
 * every selected CPU, with interrupts off (ipi) or in bound kthreads, and
 * checked.  The run above it decides what to storm and keeps the rows.
 */
#ifndef _PIDX_SUBSTRATE_H
#define _PIDX_SUBSTRATE_H

#include "pidx_engine.h"
#include "pidx_shape.h"
#include "pidx_storm.h"

/* What a storm takes from the run around it, besides its settings. */
struct pidx_storm_ctx {
	u32 run_no;
	u32 repeat;
	unsigned int faults;	/* the fault_inject mask the run read at its start */
	const char *node_note;	/* how the node setting was applied, or "" */
	u32 *stall_test_ms;	/* stall_test, ms: taken (and zeroed) by a storm */
};

/*
 * Storms @ops under @cfg on the live set @shape.  0 with *@resp a row (its
 * verdict FAILED when the index broke), or an error with no row.  Callers
 * are serialized (the run holds its run_lock): the fault wrappers and the
 * fault mask are this file's statics.
 */
int pidx_storm_one(const struct pidx_ops *ops, const struct pidx_config *cfg,
		   const struct pidx_shape_set *shape,
		   const struct pidx_storm_ctx *ctx, struct pidx_result **resp);

#endif /* _PIDX_SUBSTRATE_H */
