// SPDX-License-Identifier: GPL-2.0
/*
 * The module's scheduling helpers: how a finished kthread waits for its
 * stop, and how the prefill moves onto a node's CPU.  Below the engine,
 * because the shared storm code (pidx_prefill.c) moves the prefill between
 * nodes and both the substrate and the selftest run kthreads.
 */
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/topology.h>
#include "pidx_sched.h"
#include "pidx_storm.h"

/*
 * A kthread whose work is done sleeps until kthread_stop(): returning
 * earlier would let the task go away under the kthread_stop() of its owner.
 */
void pidx_kthread_wait_stop(void)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

/*
 * Runs on a CPU of the node whose memory the prefill should take, one CPU
 * and not the node's set, so that an index handing out numbers from per-CPU
 * ranges (alloc_ranges) gives the prefill 1..keys in order.  Not for
 * NUMA_NO_NODE or a node without memory: cpumask_of_node() indexes a
 * per-node table and has no entry for them.
 */
bool pidx_prefill_move(int node)
{
	unsigned int cpu;

	if (!pidx_node_has_memory(node))
		return false;
	cpu = cpumask_first_and(cpumask_of_node(node), cpu_online_mask);
	return cpu < nr_cpu_ids &&
	       !set_cpus_allowed_ptr(current, cpumask_of(cpu));
}
