// SPDX-License-Identifier: GPL-2.0
/*
 * The reference index: the IDR used exactly as kernel/pid.c (Linux 6.1) uses
 * it.  alloc_pid() and pidmap_lock are not exported, so this file repeats
 * their steps on an IDR and a spinlock of its own:
 *
 *   idr_preload(); lock; idr_alloc_cyclic(NULL, floor, pid_max, GFP_ATOMIC);
 *   unlock; idr_preload_end();  ...  lock; idr_replace(); unlock;
 *
 * The slot is reserved with NULL first and published by idr_replace(), so
 * lookups see nothing until then, as with a struct pid still being set up.
 * The entry stored is xa_mk_value(pid) rather than a pointer to a struct pid:
 * every index in pidx stores its key and nothing else, so the comparison is
 * of the index structures alone.
 *
 * The radix tree cannot be instrumented from a module, so under
 * trace_visits the path of the key is walked again after each operation,
 * reading what __radix_tree_lookup() reads: in each node its header (shift)
 * and the slot of the key.  For lookups that is exact; for writers and
 * find_ge it is the path of the key written or found, a lower bound (the
 * free-number and next-entry searches also read mark bitmaps and siblings).
 * The nodes come from the kernel's radix_tree_node_cachep on the allocating
 * CPU's node; a node setting places them by where the prefill runs.
 */
#include <linux/idr.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include "pidx.h"

struct pidx_idr {
	struct idr idr;
	spinlock_t lock;	/* the role of pidmap_lock */
	u32 pid_max;
};

static inline struct pidx_idr *to_pidx_idr(struct pidx_index *idx)
{
	return (struct pidx_idr *)idx;
}

static struct pidx_index *idr_ref_create(const struct pidx_params *p)
{
	struct pidx_idr *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return ERR_PTR(-ENOMEM);
	pidx_mem_charge(sizeof(*r));
	idr_init(&r->idr);
	spin_lock_init(&r->lock);
	r->pid_max = p->pid_max;
	return (struct pidx_index *)r;
}

static void idr_ref_destroy(struct pidx_index *idx)
{
	struct pidx_idr *r = to_pidx_idr(idx);

	/* radix tree nodes go back to their cache through call_rcu() */
	idr_destroy(&r->idr);
	pidx_mem_uncharge(sizeof(*r));
	kfree(r);
}

/* Under trace_visits: report the nodes and lines of @index's path. */
static void idr_ref_trace_path(struct pidx_idr *r, unsigned long index)
{
	bool root = true;
	void *entry;

	rcu_read_lock();
	entry = rcu_dereference(r->idr.idr_rt.xa_head);
	while (xa_is_node(entry)) {
		struct xa_node *node = xa_to_node(entry);
		unsigned int off;

		pidx_visit_node(node, offsetofend(struct xa_node, shift));
		/* beyond what the tree covers: the lookup stops at the root */
		if (root && (index >> node->shift) > XA_CHUNK_MASK)
			break;
		root = false;
		off = (index >> node->shift) & XA_CHUNK_MASK;
		pidx_visit_more(&node->slots[off], sizeof(node->slots[off]));
		entry = rcu_dereference(node->slots[off]);
	}
	rcu_read_unlock();
}

static __always_inline void idr_ref_visits(struct pidx_idr *r, int index)
{
	if (static_branch_unlikely(&pidx_visits_on) && index >= 0)
		idr_ref_trace_path(r, index);
}

static void idr_ref_publish(struct pidx_idr *r, int nr)
{
	unsigned long flags;

	/* reserved, not yet published: lookups miss it, remove() leaves it */
	pidx_race_delay();
	spin_lock_irqsave(&r->lock, flags);
	idr_replace(&r->idr, xa_mk_value(nr), nr);
	spin_unlock_irqrestore(&r->lock, flags);
}

static int idr_ref_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	bool preload = gfpflags_allow_blocking(gfp);
	unsigned long flags;
	int nr;

	/*
	 * alloc_pid() preloads with GFP_KERNEL and allocates with GFP_ATOMIC
	 * under the lock; from on_each_cpu() nothing may sleep, so the tree
	 * allocates with the caller's atomic gfp and failures are counted.
	 */
	if (preload)
		idr_preload(gfp);
	spin_lock_irqsave(&r->lock, flags);
	nr = idr_alloc_cyclic(&r->idr, NULL,
			      pidx_alloc_floor(idr_get_cursor(&r->idr)),
			      r->pid_max, preload ? GFP_ATOMIC : gfp);
	spin_unlock_irqrestore(&r->lock, flags);
	if (preload)
		idr_preload_end();
	if (nr < 0)
		return nr;
	idr_ref_publish(r, nr);
	idr_ref_visits(r, nr);
	return nr;
}

static int idr_ref_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	bool preload = gfpflags_allow_blocking(gfp);
	unsigned long flags;
	int nr;

	if (pid < 1 || pid >= r->pid_max)
		return -EINVAL;
	if (preload)
		idr_preload(gfp);
	spin_lock_irqsave(&r->lock, flags);
	nr = idr_alloc(&r->idr, NULL, pid, pid + 1, preload ? GFP_ATOMIC : gfp);
	spin_unlock_irqrestore(&r->lock, flags);
	if (preload)
		idr_preload_end();
	if (nr == -ENOSPC)
		return -EEXIST;
	if (nr < 0)
		return nr;
	idr_ref_publish(r, nr);
	idr_ref_visits(r, nr);
	return 0;
}

static bool idr_ref_lookup(struct pidx_index *idx, u32 pid)
{
	struct pidx_idr *r = to_pidx_idr(idx);

	idr_ref_visits(r, pid);
	return idr_find(&r->idr, pid) == xa_mk_value(pid);
}

static int idr_ref_remove(struct pidx_index *idx, u32 pid)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	unsigned long flags;
	void *entry = NULL;

	idr_ref_visits(r, pid);
	spin_lock_irqsave(&r->lock, flags);
	/* a NULL slot is another CPU's allocation in flight: not ours to drop */
	if (idr_find(&r->idr, pid))
		entry = idr_remove(&r->idr, pid);
	spin_unlock_irqrestore(&r->lock, flags);
	return entry ? 0 : -ENOENT;
}

static int idr_ref_find_ge(struct pidx_index *idx, u32 pid)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	int id = pid;

	if (pid >= r->pid_max)
		return -ENOENT;
	if (!idr_get_next(&r->idr, &id))
		return -ENOENT;
	idr_ref_visits(r, id);
	return id;
}

struct idr_ref_walk {
	u64 *per_node;		/* NULL, or radix tree nodes per NUMA node */
	unsigned long nodes;
	unsigned long entries;
	unsigned int bad;
};

static void idr_ref_complain(struct idr_ref_walk *w, const char *what,
			     unsigned long index)
{
	if (w->bad++ < 8)
		pr_err("pidx: idr: %s at index %lu\n", what, index);
}

/* Recursion depth is the tree height: at most 4 levels below 2^24. */
static void idr_ref_walk_node(struct pidx_idr *r, struct idr_ref_walk *w,
			      void *entry, struct xa_node *parent,
			      unsigned int offset, unsigned long base,
			      unsigned int shift)
{
	struct xa_node *node;
	unsigned int i, count = 0, values = 0;

	if (!xa_is_node(entry)) {
		if (!entry)
			return;
		w->entries++;
		if (entry != xa_mk_value(base))
			idr_ref_complain(w, "entry does not hold its own PID", base);
		else if (base < 1 || base >= r->pid_max)
			idr_ref_complain(w, "entry outside [1, pid_max)", base);
		return;
	}
	node = xa_to_node(entry);
	w->nodes++;
	if (w->per_node)
		pidx_count_node(node, w->per_node);
	if (node->shift != shift)
		idr_ref_complain(w, "node shift differs from its depth", base);
	if (rcu_dereference_protected(node->parent, true) != parent ||
	    (parent && node->offset != offset))
		idr_ref_complain(w, "node parent link broken", base);
	for (i = 0; i < XA_CHUNK_SIZE; i++) {
		void *child = rcu_dereference_protected(node->slots[i], true);

		if (!child)
			continue;
		count++;
		if (xa_is_value(child))
			values++;
		idr_ref_walk_node(r, w, child, node, i,
				  base + ((unsigned long)i << node->shift),
				  node->shift ? node->shift - XA_CHUNK_SHIFT : 0);
	}
	if (node->count != count || node->nr_values != values)
		idr_ref_complain(w, "node count or value count wrong", base);
}

static struct idr_ref_walk idr_ref_walk(struct pidx_idr *r, u64 *per_node)
{
	struct idr_ref_walk w = { .per_node = per_node };
	void *head;
	unsigned long flags;

	spin_lock_irqsave(&r->lock, flags);
	head = rcu_dereference_protected(r->idr.idr_rt.xa_head,
					 lockdep_is_held(&r->lock));
	idr_ref_walk_node(r, &w, head, NULL, 0, 0,
			  xa_is_node(head) ? xa_to_node(head)->shift : 0);
	if (idr_get_cursor(&r->idr) > r->pid_max)
		idr_ref_complain(&w, "cursor beyond pid_max",
				 idr_get_cursor(&r->idr));
	spin_unlock_irqrestore(&r->lock, flags);
	return w;
}

static void idr_ref_set_cursor(struct pidx_index *idx, u32 next)
{
	idr_set_cursor(&to_pidx_idr(idx)->idr, next);
}

static unsigned int idr_ref_verify(struct pidx_index *idx)
{
	return idr_ref_walk(to_pidx_idr(idx), NULL).bad;
}

static size_t idr_ref_mem_bytes(struct pidx_index *idx)
{
	struct pidx_idr *r = to_pidx_idr(idx);

	return sizeof(*r) + idr_ref_walk(r, NULL).nodes * sizeof(struct xa_node);
}

static void idr_ref_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	struct idr_ref_walk w = idr_ref_walk(r, NULL);

	snprintf(buf, len, "nodes=%lu;node_bytes=%zu;entries=%lu", w.nodes,
		 sizeof(struct xa_node), w.entries);
}

static void idr_ref_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	idr_ref_walk(to_pidx_idr(idx), count);
}

const struct pidx_ops pidx_idr_ops = {
	.name		= "idr",
	.desc		= "kernel IDR (radix tree) used as kernel/pid.c 6.1 does",
	.create		= idr_ref_create,
	.destroy	= idr_ref_destroy,
	.alloc		= idr_ref_alloc,
	.insert		= idr_ref_insert,
	.lookup		= idr_ref_lookup,
	.remove		= idr_ref_remove,
	.find_ge	= idr_ref_find_ge,
	.set_cursor	= idr_ref_set_cursor,
	.verify		= idr_ref_verify,
	.mem_bytes	= idr_ref_mem_bytes,
	.describe	= idr_ref_describe,
	.nodes		= idr_ref_nodes,
};
