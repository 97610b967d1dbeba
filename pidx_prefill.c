// SPDX-License-Identifier: GPL-2.0
/*
 * pidx storms, the prefill: every level of the index given the run's live
 * set before the storm, in process context as fork gives numbers, each
 * number checked as it is given, moved between nodes where the run
 * interleaves them.  For the module and, unchanged, for user/pidx-user
 * (see pidx_storm.h).
 */
#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include "pidx_storm.h"

char pidx_storm_why[PIDX_STORM_WHY_MAX];

/*
 * How often the prefill asks again for a key's object, and then for its
 * number, whose allocation failed, before it gives up: each gets its own
 * tries, as a key's two allocations would otherwise fail together far
 * more often than one.  A passing shortage (or an injected failure) costs
 * a retry, a lasting one fails the run before any storm, saying why in
 * testcase, and the part-built index is destroyed unstormed.  Like the rest
 * of a run's setup (create, the key, ring and latency arrays) it passes
 * GFP_KERNEL without __GFP_NOWARN: a failure there is no counted operation
 * but the run's end, and the allocator's warning says why.  An index may
 * still allocate more quietly under its own lock (ccskip's copies are
 * GFP_ATOMIC | __GFP_NOWARN, maple's first try GFP_NOWAIT): then the
 * prefill's own line in dmesg and testcase is what says why.
 */
#define PIDX_PREFILL_TRIES	8

/*
 * The prefill's number #@i was @pid, and the prefill has run on other CPUs
 * than @cpu, where it began, if @moved.  An index with per-CPU ranges gives
 * 1..keys only from one CPU: the prefill is pinned to one, but a CPU that
 * goes offline sends it elsewhere, and a pin to a CPU going offline may not
 * take at all (then a later balance moves it), which is no fault of the
 * index.  Any other wrong number is.
 */
static int pidx_prefill_misordered(struct pidx_storm *s, u32 i, int pid,
				   unsigned int cpu, bool moved)
{
	if (s->ops->alloc_ranges && moved) {
		snprintf(pidx_storm_why, sizeof(pidx_storm_why),
			 "prefill of %s left CPU %u (hotplug?) by key %u: that index not stormed",
			 s->ops->name, cpu, i + 1);
		pr_err("pidx: %s\n", pidx_storm_why);
		return -EAGAIN;
	}
	pr_err("pidx: %s: prefill alloc #%u returned %d, expected %u\n",
	       s->ops->name, i, pid, i + 1);
	return -EUCLEAN;
}

/* Key #@i's object or number could not be had in all its tries: why. */
static int pidx_prefill_nomem(struct pidx_storm *s, u32 i)
{
	snprintf(pidx_storm_why, sizeof(pidx_storm_why),
		 "prefill of %s: no memory for key %u of %u in %u tries: not stormed",
		 s->ops->name, i + 1, s->nkeys, PIDX_PREFILL_TRIES);
	pr_err("pidx: %s\n", pidx_storm_why);
	return -ENOMEM;
}

/*
 * A prefill reservation in one level: @key, or (0) the next number, its
 * allocation asked again while it fails for memory.
 */
static int pidx_prefill_reserve(struct pidx_storm *s, unsigned int level,
				u32 key)
{
	unsigned int tries;
	int nr = -ENOMEM;

	for (tries = 0; nr == -ENOMEM && tries < PIDX_PREFILL_TRIES; tries++) {
		if (tries)
			cond_resched();
		nr = key ? s->ops->insert(s->lvl[level], key, GFP_KERNEL) :
			   s->ops->alloc(s->lvl[level], GFP_KERNEL);
	}
	return nr < 0 ? nr : key ?: nr;
}

/* The prefill's unwind of @pid's first @n levels, never published. */
static void pidx_prefill_unreserve(struct pidx_storm *s, struct pidx_pid *pid,
				   unsigned int n)
{
	while (n--)
		while (s->ops->remove(s->lvl[n], pid->numbers[n].nr) == -ENOMEM)
			cond_resched();
}

/*
 * Key #@i of the prefill reserved in every level (by alloc() where @key is
 * 0, insert() otherwise), given its object and published: each level
 * numbers the same process with the same number, the one the shape gives
 * it.  Returns @want where every level's number is @want (or with @key
 * given), else the first that is not, or an error.  The object is
 * s->objs[@i] from then on.
 */
static int pidx_prefill_one(struct pidx_storm *s, u32 i, u32 key, u32 want)
{
	struct pidx_pid *pid = NULL;
	unsigned int tries, level;
	int nr, got = want;

	for (tries = 0; !pid && tries < PIDX_PREFILL_TRIES; tries++) {
		if (tries)
			cond_resched();
		pid = pidx_pid_new(s->nlevels, GFP_KERNEL);
	}
	if (!pid)
		return pidx_prefill_nomem(s, i);
	pidx_pid_set(pid, s->nlevels);
	for (level = 0; level < s->nlevels; level++) {
		nr = pidx_prefill_reserve(s, level, key);
		if (nr < 0) {
			pidx_prefill_unreserve(s, pid, level);
			pidx_pid_free(pid);
			return nr == -ENOMEM ? pidx_prefill_nomem(s, i) : nr;
		}
		pid->numbers[level].nr = nr;
		if (nr != want && got == want)
			got = nr;
	}
	if (pidx_publish_levels(s, pid)) {
		pr_err("pidx: %s: prefill publish of %u failed\n", s->ops->name,
		       pid->numbers[0].nr);
		/* no reader holds it: the numbers must go first */
		while (pidx_remove_levels(s, pid) == -ENOMEM)
			cond_resched();
		pidx_pid_free(pid);
		return -EUCLEAN;
	}
	s->objs[i] = pid;
	s->nobjs = i + 1;
	return got;
}

/*
 * The spread and aged prefill: the set's keys inserted in the shape's
 * order (aged: the order they were allocated in), then the cursor put
 * just past the last number allocated, where a machine that made the set
 * would have it.
 */
static int pidx_prefill_shape(struct pidx_storm *s)
{
	const struct pidx_config *cfg = s->cfg;
	int ret, node = NUMA_NO_NODE;
	u32 i, key;

	for (i = 0; i < s->nkeys; i++) {
		key = pidx_shape_key(s->shape, i);
		/* a sparse set has no key at most multiples of 64: a new run */
		if (cfg->node == PIDX_NODE_INTERLEAVE && !s->ops->alloc_ranges &&
		    (!i || key >> 6 != pidx_shape_key(s->shape, i - 1) >> 6) &&
		    pidx_mem_node(cfg->node, key) != node) {
			node = pidx_mem_node(cfg->node, key);
			pidx_prefill_move(node);
		}
		ret = pidx_prefill_one(s, i, key, key);
		if (ret < 0) {
			pr_err("pidx: %s: prefill insert of %u returned %d\n",
			       s->ops->name, key, ret);
			return ret == -ENOMEM ? ret : -EUCLEAN;
		}
		if (!(i & 0xfff)) {
			if (READ_ONCE(s->abort))
				return -EINTR;
			cond_resched();
		}
	}
	for (i = 0; s->ops->set_cursor && i < s->nlevels; i++)
		s->ops->set_cursor(s->lvl[i], s->shape->cursor);
	return 0;
}

/* prefill in process context, as fork does, checking each number */
int pidx_prefill(struct pidx_storm *s)
{
	const struct pidx_config *cfg = s->cfg;
	unsigned int cpu = raw_smp_processor_id();
	bool moved = false;
	u32 i;

	if (s->shape->shape != PIDX_SHAPE_DENSE)
		return pidx_prefill_shape(s);
	for (i = 0; i < s->nkeys; i++) {
		int pid;

		/*
		 * The kernel's own structures (idr, maple) take memory from
		 * the allocating CPU's node: interleaving moves the prefill
		 * to each node in turn, for the same runs of 64 keys that
		 * pidx_mem_node() spreads our own indexes' nodes by.  Not
		 * an index whose numbers come from per-CPU ranges: from two
		 * CPUs its numbers would not be 1..keys, and it places its
		 * memory by key itself.
		 */
		if (cfg->node == PIDX_NODE_INTERLEAVE && !s->ops->alloc_ranges &&
		    (!i || !((i + 1) & 63)))
			pidx_prefill_move(pidx_mem_node(cfg->node, i + 1));
		pid = pidx_prefill_one(s, i, 0, i + 1);
		if (pid < 0)
			return pid;
		/* sticky: a move there and back still mixed two CPUs' ranges */
		moved |= raw_smp_processor_id() != cpu;
		if (!s->ops->no_contents && pid != i + 1)
			return pidx_prefill_misordered(s, i, pid, cpu, moved);
		if (!(i & 0xfff)) {
			if (READ_ONCE(s->abort))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}
