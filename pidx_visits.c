// SPDX-License-Identifier: GPL-2.0
/*
 * Visit tracing: nodes and distinct cache lines one index operation reads.
 *
 * The engine brackets each operation with pidx_visits_begin()/_end() on the
 * CPU that runs it; indexes report through pidx_visit_node()/_more() (pidx.h).
 * Operations on one CPU never nest (ipi callbacks run with interrupts off,
 * kthread workers are alone on their CPU), so one record per CPU suffices.
 * Nothing here runs unless trace_visits is on.
 */
#include <linux/cache.h>
#include <linux/nodemask.h>
#include <linux/percpu.h>
#include "pidx_engine.h"

DEFINE_STATIC_KEY_FALSE(pidx_visits_on);

/* More distinct lines than this in one operation are counted, not deduplicated. */
#define PIDX_VISIT_LINES	128

struct pidx_visit_rec {
	u32 nodes;
	u32 lines;
	unsigned long line[PIDX_VISIT_LINES];
};

static DEFINE_PER_CPU(struct pidx_visit_rec, pidx_visit_rec);

void __pidx_visit(const void *p, size_t len, bool node)
{
	/* raw: a kthread worker is bound to its CPU and never migrates */
	struct pidx_visit_rec *r = raw_cpu_ptr(&pidx_visit_rec);
	unsigned long first = (unsigned long)p >> L1_CACHE_SHIFT;
	unsigned long last = ((unsigned long)p + max_t(size_t, len, 1) - 1) >>
			     L1_CACHE_SHIFT;
	unsigned long l;
	u32 i, n;

	if (node)
		r->nodes++;
	for (l = first; l <= last; l++) {
		n = min_t(u32, r->lines, PIDX_VISIT_LINES);
		for (i = 0; i < n; i++)
			if (r->line[i] == l)
				break;
		if (i < n)
			continue;
		if (r->lines < PIDX_VISIT_LINES)
			r->line[r->lines] = l;
		r->lines++;
	}
}

void pidx_visits_begin(void)
{
	struct pidx_visit_rec *r = raw_cpu_ptr(&pidx_visit_rec);

	r->nodes = 0;
	r->lines = 0;
}

void pidx_visits_end(struct pidx_visit_sum *sum)
{
	struct pidx_visit_rec *r = raw_cpu_ptr(&pidx_visit_rec);

	sum->ops++;
	sum->nodes += r->nodes;
	sum->lines += r->lines;
	sum->nodes_max = max(sum->nodes_max, r->nodes);
	sum->lines_max = max(sum->lines_max, r->lines);
}

int pidx_mem_node(int setting, u32 key)
{
	unsigned int n, nth;
	int nid;

	/*
	 * A node that lost its memory (hot-remove) since the setting was
	 * written would send the allocators to a node without a zonelist.
	 */
	if (setting >= 0)
		return pidx_node_has_memory(setting) ? setting : NUMA_NO_NODE;
	if (setting != PIDX_NODE_INTERLEAVE)
		return NUMA_NO_NODE;
	n = num_node_state(N_MEMORY);
	if (n <= 1)
		return NUMA_NO_NODE;
	nth = (key >> 6) % n;
	for_each_node_state(nid, N_MEMORY)
		if (!nth--)
			return nid;
	/* a node went away since num_node_state() */
	return NUMA_NO_NODE;
}
