// SPDX-License-Identifier: GPL-2.0
/*
 * "maple": the PID index as the kernel's maple tree (lib/maple_tree.c, 6.1),
 * an RCU-safe B-tree of ranges, used through its exported API only.
 *
 * Shape.  Every node is one 256-byte object of the maple_node slab cache,
 * aligned to 256.  Leaves (maple_leaf_64) hold up to 16 slots and 15 pivots;
 * a slot covers the range that ends at its pivot.  The tree is created with
 * MT_FLAGS_ALLOC_RANGE, so its internal nodes are maple_arange_64: 10 slots,
 * 9 pivots and, per slot, the largest run of free numbers below it.  Each PID
 * is stored alone on the range [pid, pid], so a leaf holds 8 PIDs with free
 * numbers between them and up to 16 in a dense run; adjacent free numbers
 * are always one NULL range (the tree merges NULLs, never other entries).
 *
 * Values.  A published PID's entry is its value, the caller's pointer: a
 * leaf slot, the word a lookup reads anyway to find the PID, so the value
 * costs no new cache line and no byte over the xa_mk_value(pid) entry it
 * replaces: each PID still takes one 8-byte slot and its 8-byte pivot of a
 * 256-byte leaf (parent 8, 15 pivots 120, 16 slots 128), 256 / 16 = 16
 * bytes in a leaf of 16 PIDs, 256 / 15 = 17.1 in the 15 that allocation in
 * order leaves, twice that where free ranges take every other slot, plus
 * the internal nodes' share.  The tree cannot hold NULL
 * as a present entry (a NULL range is free), so a reserved PID holds
 * XA_ZERO_ENTRY, the mark 6.1's lib/maple_tree.c itself treats as present
 * but empty: mtree_load() returns NULL for it and mt_find() skips it, while
 * the free-run sizes count only NULL slots (mas_leaf_max_gap()), so
 * mas_empty_area() never hands it out.  A value entry (xa_mk_value()) would
 * work as a mark too, but every read would have to filter it; the zero entry
 * is filtered by the tree's own loader.  mas_find() does return it: find_ge
 * skips it in its loop.  An internal entry below 4096 is reserved to the
 * tree (mt_is_reserved()), which refuses it only in mtree_alloc_range() and
 * mtree_alloc_rrange(), neither of them used here.
 *
 * publish() stores the value over the mark on the same one-number range:
 * mas_wr_store_entry() walks to the leaf and mas_wr_modify() takes its first
 * branch, "Direct replacement" (the range found is exactly [pid, pid]): one
 * rcu_assign_pointer() into the slot, in place, and mas_update_gap() only
 * when the entry goes from NULL to non-NULL or back, which mark to value
 * does not.  Nothing is allocated (no mas_node_count() on that path), so
 * mas_store_gfp() never reaches mas_nomem(); publish() still passes
 * GFP_NOWAIT, so that a path that did allocate would fail, not sleep.  The
 * rcu_assign_pointer() is the release a reader's rcu_dereference() of the
 * slot pairs with.  publish() takes the index's mutex as every writer does:
 * a concurrent writer that rebuilds the leaf copies its slots, and a store
 * into the old leaf after the copy would be lost.  Like every writer of this
 * index it is called from process context only (writers_need_irqs_on); it
 * waits for the mutex there but never allocates.
 *
 * A lookup (mtree_load) reads the root pointer and then, on each of the
 * tree's height levels, the node's parent word (twice, to detect a node that
 * was replaced under it), its data-end metadata, its pivots from the first
 * until one is >= the key, and one slot: 3-4 of the node's 4 cache lines.
 * Allocated in order, leaves fill to 15 PIDs and internal nodes to 8-9
 * children, so the height is about 1 + log_9(n / 15): measured 3 levels at
 * 1K PIDs, 5 at 32K, 7 at 1M (describe() reports it), against 2-4 levels of
 * one or two lines each for the IDR.  Memory is 19.2 bytes per PID in that
 * state, 26-27 after mixed churn and 38 once half the PIDs are freed.
 *
 * Cyclic allocation uses the free-run sizes of the internal nodes:
 * mas_empty_area() descends only into subtrees that hold a free number in the
 * window, so finding one is O(log n) however dense the space.
 * mtree_alloc_range() is not used: in 6.1 it stores the entry over the whole
 * window and returns no index when the tree is empty (seen in a guest:
 * ret 32767, start untouched), and it takes the tree's internal lock, which
 * this file does not use (below).
 *
 * Readers.  Without MT_FLAGS_USE_RCU the tree rewrites nodes in place and
 * reuses them at once, and no lockless reader is safe.  With it, a write
 * that changes a node's layout builds a new node, marks the old one dead and
 * frees it after a grace period; one that only swaps a slot's entry (a PID
 * between two PIDs removed, a one-number hole filled) is a single
 * rcu_assign_pointer().  lookup and find_ge walk under rcu_read_lock()
 * alone, and a walk that meets a dead node restarts from the root.  A PID
 * published for the whole call is therefore always found, with its value;
 * one being reserved, published or removed meanwhile may be seen either
 * way.  A restarting reader waits for the writer that killed the node to
 * link its replacement, so a reader in an interrupt must not stop a writer
 * on its own CPU (it would wait forever): with writers always in process
 * context, the engine never runs readers in interrupts while writers run.
 *
 * Writers.  In 6.1 the tree takes its nodes from kmem_cache_alloc_bulk(),
 * which turns interrupts back on before it returns (mm/slub.c: "interrupts
 * must be enabled when calling this function"), whatever the gfp.  So no
 * write may run with interrupts off: not under spin_lock_irqsave(), not in an
 * on_each_cpu() callback.  The debug kernel's lockdep caught the first design
 * (an irq-safe lock, writers called from IPIs) as "inconsistent lock state".
 * The index therefore sets writers_need_irqs_on: the engine calls its writers
 * from process context only, and ipi storms that write skip it.  Writers
 * use the advanced mas_*() API under an index lock (MT_FLAGS_LOCK_EXTERN),
 * since the mtree_*() writers take the tree's internal lock.  6.1 exports
 * neither mas_preallocate() nor mas_nomem(), and with an external lock
 * mas_nomem() never drops it, so every node is allocated under the lock.
 * Removal allocates too (in RCU mode the leaf is copied), yet remove() of a
 * present PID must not fail (pidx.h): so the lock is a mutex, allocations
 * take the caller's gfp (GFP_KERNEL from the engine, as the kernel's own
 * maple trees allocate under mmap_lock), and a removal's take
 * GFP_KERNEL | __GFP_NOFAIL.  Uncontended a mutex costs what a spinlock
 * does; contended, it spins while the holder runs, and a holder sleeps only
 * in the page allocator.  mtree_erase() is not used: it takes the internal
 * lock.
 *
 * Memory: the nodes come from lib/maple_tree.c's cache, so they are not in
 * pidx_mem; mem_bytes() counts them exactly by walking the tree under the
 * lock, 256 bytes each, plus struct pidx_maple.  Nodes replaced by writes are
 * RCU-freed by the maple tree and not counted once out of the tree.
 *
 * Visit tracing (trace_visits).  lib/maple_tree.c cannot be instrumented, so
 * each operation walks the path of its key again, with the definitions of
 * maple_tree.h, reading in every node what mtree_lookup_walk() reads: the
 * parent word (its dead-node check), the data end (a leaf's last pivot and
 * maybe its metadata, an internal node's metadata), the pivots from the
 * first until one is >= the key, and that slot.  The nodes and addresses
 * are the real ones, so the lines are too, not a model.  For lookup that is
 * what the kernel reads; for find_ge it is the path of the number found, a
 * lower bound when mas_find() crosses leaves.  For writers it is the path
 * of the number written, read once, plus, for alloc, the free-run sizes
 * (gap[]) of the internal nodes up to the slot taken, as mas_empty_area()
 * reads them: a lower bound, since the write itself also
 * reads the neighbours it rebalances with and the metadata of the leaf it
 * copies.  The root pointer in struct maple_tree is not counted, as no
 * index counts its root pointer.
 *
 * NUMA: the tree takes its nodes from the allocating CPU's node, so a node
 * setting places them by where the prefill runs (the engine moves it);
 * nodes() counts the nodes in the tree by the node of their memory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/maple_tree.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "pidx.h"

/* Reports beyond this many per walk only add to the count. */
#define PIDX_MT_REPORT_MAX	10

/*
 * Node encodings private to lib/maple_tree.c (6.1) that the structural walk
 * of verify() and mem_bytes() needs; the rest comes from maple_tree.h.
 */
#define PIDX_MT_ROOT_NODE	0x02UL	/* MAPLE_ROOT_NODE: ma_root is a node */
#define PIDX_MT_ROOT_PARENT	0x01UL	/* MA_ROOT_PARENT: parent is the tree */
#define PIDX_MT_PARENT_RANGE64	0x06UL	/* MAPLE_PARENT_RANGE64 */
#define PIDX_MT_PARENT_SHIFT	3	/* MAPLE_PARENT_SLOT_SHIFT */
#define PIDX_MT_LEAF_PIVOTS	(MAPLE_RANGE64_SLOTS - 1)
#define PIDX_MT_ARANGE_PIVOTS	(MAPLE_ARANGE64_SLOTS - 1)
/* mt_min_slots[]: a non-root node with fewer slots is rebalanced */
#define PIDX_MT_LEAF_MIN	(MAPLE_RANGE64_SLOTS / 2 - 2)
#define PIDX_MT_ARANGE_MIN	(MAPLE_ARANGE64_SLOTS / 2 - 1)

struct pidx_maple {
	struct maple_tree mt;
	struct mutex lock;	/* the tree's external lock: all writers */
	u32 pid_max;
	u32 cursor;		/* idr_next of idr_alloc_cyclic() */
	u32 count;		/* PIDs stored, for verify() */
};

static inline struct pidx_maple *to_pidx_maple(struct pidx_index *idx)
{
	return (struct pidx_maple *)idx;
}

static inline struct maple_tree *to_mt(struct pidx_index *idx)
{
	return &to_pidx_maple(idx)->mt;
}

/* ma_data_end(): the last slot in use. */
static unsigned int pidx_mt_data_end(struct maple_node *node, bool leaf,
				     unsigned long max)
{
	unsigned long last_piv;

	if (!leaf)
		return node->ma64.meta.end;
	last_piv = node->mr64.pivot[PIDX_MT_LEAF_PIVOTS - 1];
	if (!last_piv)
		return node->mr64.meta.end;
	if (last_piv == max)
		return PIDX_MT_LEAF_PIVOTS - 1;
	return PIDX_MT_LEAF_PIVOTS;
}

/*
 * Under trace_visits: report what mtree_lookup_walk() reads on the path of
 * @key (see the top of the file), with the free-run sizes too for @gaps.
 * Readers and writers alike: nodes are freed only after a grace period, and
 * a node found dead ends the walk, as it restarts the kernel's.  Whatever a
 * node being replaced holds, the slot followed is within its slots and is a
 * node of a type checked before it is read.
 */
static noinline void pidx_mt_trace_path(struct pidx_maple *m, unsigned long key,
					bool gaps)
{
	unsigned long max = ULONG_MAX, *pivots, pval;
	unsigned int depth, off, end, npiv, read;
	struct maple_node *node;
	enum maple_type type;
	void __rcu **slots;
	void *entry;
	bool leaf;

	rcu_read_lock();
	entry = rcu_dereference(m->mt.ma_root);
	if (!xa_is_node(entry))
		goto out;
	entry = (void *)((unsigned long)entry & ~PIDX_MT_ROOT_NODE);
	for (depth = 0; depth < MAPLE_HEIGHT_MAX; depth++) {
		node = (void *)((unsigned long)entry & ~MAPLE_NODE_MASK);
		type = ((unsigned long)entry >> MAPLE_NODE_TYPE_SHIFT) &
		       MAPLE_NODE_TYPE_MASK;
		leaf = type == maple_leaf_64;
		if (!leaf && type != maple_arange_64)
			break;
		pidx_visit_node(&node->parent, sizeof(node->parent));
		if (leaf) {
			pivots = node->mr64.pivot;
			slots = node->mr64.slot;
			npiv = PIDX_MT_LEAF_PIVOTS;
			pidx_visit_more(&pivots[npiv - 1], sizeof(*pivots));
			if (!pivots[npiv - 1])
				pidx_visit_more(&node->mr64.meta,
						sizeof(node->mr64.meta));
		} else {
			pivots = node->ma64.pivot;
			slots = node->ma64.slot;
			npiv = PIDX_MT_ARANGE_PIVOTS;
			pidx_visit_more(&node->ma64.meta, sizeof(node->ma64.meta));
		}
		end = min(pidx_mt_data_end(node, leaf, max), npiv);
		/* the do-while of mtree_lookup_walk(): pivot 0 at least */
		off = 0;
		do {
			read = off + 1;
			if (pivots[off] >= key) {
				max = pivots[off];
				break;
			}
		} while (++off < end);
		/* off <= max(end, 1) <= npiv: within the slots and gaps */
		pidx_visit_more(pivots, read * sizeof(*pivots));
		if (gaps && !leaf)
			pidx_visit_more(node->ma64.gap,
					(off + 1) * sizeof(node->ma64.gap[0]));
		pidx_visit_more(&slots[off], sizeof(slots[off]));
		entry = rcu_dereference(slots[off]);
		/* ma_dead_node(): the slot read before the parent word */
		smp_rmb();
		pval = (unsigned long)READ_ONCE(node->parent);
		if ((pval & ~MAPLE_NODE_MASK) == (unsigned long)node ||
		    leaf || !entry)
			break;
	}
out:
	rcu_read_unlock();
}

static __always_inline void pidx_mt_visits(struct pidx_maple *m, long key,
					   bool gaps)
{
	if (static_branch_unlikely(&pidx_visits_on) && key >= 0)
		pidx_mt_trace_path(m, key, gaps);
}

static struct pidx_index *pidx_maple_create(const struct pidx_params *p)
{
	struct pidx_maple *m = kzalloc(sizeof(*m), GFP_KERNEL);

	if (!m)
		return ERR_PTR(-ENOMEM);
	pidx_mem_charge(sizeof(*m));
	mutex_init(&m->lock);
	mt_init_flags(&m->mt, MT_FLAGS_ALLOC_RANGE | MT_FLAGS_USE_RCU |
			      MT_FLAGS_LOCK_EXTERN);
	/* lets the tree's lockdep checks see m->lock as its lock */
	mt_set_external_lock(&m->mt, &m->lock);
	m->pid_max = p->pid_max;
	return (struct pidx_index *)m;
}

static void pidx_maple_destroy(struct pidx_index *idx)
{
	struct pidx_maple *m = to_pidx_maple(idx);

	mutex_lock(&m->lock);
	/* in RCU mode the nodes go back to their cache from one RCU callback */
	__mt_destroy(&m->mt);
	mutex_unlock(&m->lock);
	/* ... and so do those that writes replaced: the contract is all freed */
	rcu_barrier();
	pidx_mem_uncharge(sizeof(*m));
	kfree(m);
}

/* The first free number in [lo, pid_max), or -ENOSPC; m->lock held. */
static long pidx_mt_first_free(struct pidx_maple *m, unsigned long lo)
{
	MA_STATE(mas, &m->mt, lo, lo);
	unsigned long hi = m->pid_max - 1;
	int ret;

	if (lo > hi)
		return -ENOSPC;
	/* mas_empty_area() refuses a window of one number (min >= max) */
	if (lo == hi)
		return mas_walk(&mas) ? -ENOSPC : lo;
	ret = mas_empty_area(&mas, lo, hi, 1);
	if (ret)
		return ret == -EBUSY ? -ENOSPC : ret;
	if (WARN_ON_ONCE(mas.index < lo || mas.index > hi))
		return -ENOSPC;
	return mas.index;
}

/*
 * Stores @entry alone on [pid, pid]; m->lock held.  A fresh maple state walks
 * from the root again rather than reusing the one a search or a lookup left
 * at the leaf: 6.1's own mas_erase() resets its state after its walk so that
 * a write at a node's last slot is seen to span, and mtree_alloc_range()
 * re-derives the leaf's limits (mas_fill_gap()) before it stores.
 */
static int pidx_mt_store(struct pidx_maple *m, unsigned long pid, void *entry,
			 gfp_t gfp)
{
	MA_STATE(mas, &m->mt, pid, pid);

	return mas_store_gfp(&mas, entry, gfp);
}

static int pidx_maple_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct pidx_maple *m = to_pidx_maple(idx);
	u32 floor, start;
	long pid;
	int ret;

	mutex_lock(&m->lock);
	floor = pidx_alloc_floor(m->cursor);
	start = max(m->cursor, floor);
	pid = pidx_mt_first_free(m, start);
	if (pid == -ENOSPC && start > floor)
		pid = pidx_mt_first_free(m, floor);
	if (pid < 0) {
		ret = pid;
		goto unlock;
	}
	pidx_mt_visits(m, pid, true);
	ret = pidx_mt_store(m, pid, XA_ZERO_ENTRY, gfp);
	if (ret)
		goto unlock;
	m->cursor = pid + 1;
	m->count++;
	ret = pid;
unlock:
	mutex_unlock(&m->lock);
	return ret;
}

static int pidx_maple_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	MA_STATE(mas, to_mt(idx), pid, pid);
	struct pidx_maple *m = to_pidx_maple(idx);
	int ret;

	if (pid < 1 || pid >= m->pid_max)
		return -EINVAL;
	mutex_lock(&m->lock);
	pidx_mt_visits(m, pid, false);
	if (mas_walk(&mas)) {
		ret = -EEXIST;
		goto unlock;
	}
	ret = pidx_mt_store(m, pid, XA_ZERO_ENTRY, gfp);
	if (!ret)
		m->count++;
unlock:
	mutex_unlock(&m->lock);
	return ret;
}

/*
 * The reserved mark is present to the tree: only the owner's publish
 * replaces it, under the lock.  The owner knows its number is reserved, so
 * only the contract checks walk to the slot first, so that -EEXIST never
 * overwrites a value: a second walk a kernel would not make.
 */
static int pidx_maple_publish(struct pidx_index *idx, u32 pid, void *value)
{
	MA_STATE(mas, to_mt(idx), pid, pid);
	struct pidx_maple *m = to_pidx_maple(idx);
	void *entry;
	int ret;

	mutex_lock(&m->lock);
	pidx_mt_visits(m, pid, false);
	if (pidx_checking_contract()) {
		entry = mas_walk(&mas);
		ret = !entry ? -ENOENT : !xa_is_zero(entry) ? -EEXIST : 0;
		if (ret)
			goto unlock;
	}
	/* checked, not yet stored: a reader still misses the PID */
	pidx_race_delay();
	/* the direct replacement of one slot: see the top of the file */
	ret = pidx_mt_store(m, pid, value, GFP_NOWAIT | __GFP_NOWARN);
	WARN_ON_ONCE(ret);
unlock:
	mutex_unlock(&m->lock);
	return ret;
}

/* mtree_load() turns the reserved mark into NULL itself */
static void *pidx_maple_lookup(struct pidx_index *idx, u32 pid)
{
	struct pidx_maple *m = to_pidx_maple(idx);

	pidx_mt_visits(m, pid, false);
	return mtree_load(&m->mt, pid);
}

static int pidx_maple_remove(struct pidx_index *idx, u32 pid)
{
	MA_STATE(mas, to_mt(idx), pid, pid);
	struct pidx_maple *m = to_pidx_maple(idx);
	int ret;

	mutex_lock(&m->lock);
	pidx_mt_visits(m, pid, false);
	/* a reserved mark goes as a value does */
	if (!mas_walk(&mas)) {
		ret = -ENOENT;
		goto unlock;
	}
	/*
	 * RCU mode copies the leaf: a removal allocates, and must not fail
	 * (pidx.h).  mas_erase() would do the same with plain GFP_KERNEL.
	 */
	ret = pidx_mt_store(m, pid, NULL, GFP_KERNEL | __GFP_NOFAIL);
	if (!ret)
		m->count--;
unlock:
	mutex_unlock(&m->lock);
	return ret;
}

static int pidx_maple_find_ge(struct pidx_index *idx, u32 pid)
{
	MA_STATE(mas, to_mt(idx), pid, pid);
	struct pidx_maple *m = to_pidx_maple(idx);
	void *entry;
	long found;

	if (pid >= m->pid_max)
		return -ENOENT;
	rcu_read_lock();
	/*
	 * A walk that meets a dead node restarts inside mas_find(), which
	 * returns reserved marks too: each is skipped, the search going on
	 * from it.  mas.index is then the start of the range the entry was
	 * read with, from the same node, checked alive after the slot was
	 * read: each entry covers one number, so it is the PID.
	 */
	do {
		entry = mas_find(&mas, m->pid_max - 1);
	} while (xa_is_zero(entry));
	found = entry ? (long)mas.index : -ENOENT;
	rcu_read_unlock();
	/* the path to the PID found: mas_find() ends on its leaf */
	pidx_mt_visits(m, found >= 0 ? found : pid, false);
	return found;
}

struct pidx_mt_walk {
	struct pidx_maple *m;
	u64 *per_node;			/* NULL, or tree nodes per NUMA node */
	const char *via;		/* which pass complains; NULL: silent */
	unsigned long nodes;
	unsigned long leaves;
	unsigned long entries;
	/* balance, not correctness: non-root nodes below mt_min_slots[] */
	unsigned long underfull;
	unsigned long last_key;		/* highest PID met so far */
	unsigned int height;
	unsigned int bad;
	bool prev_null;			/* the range before this one is free */
};

static void pidx_mt_complain(struct pidx_mt_walk *w, const char *what,
			     unsigned long where)
{
	if (w->bad++ < PIDX_MT_REPORT_MAX && w->via)
		pr_err("maple: %s: %s at %lu\n", w->via, what, where);
}

static inline void *pidx_mt_slot(struct pidx_maple *m, void __rcu **slots,
				 unsigned int i)
{
	return rcu_dereference_protected(slots[i], lockdep_is_held(&m->lock));
}

/*
 * One leaf slot [lo, hi]: each PID alone, in order, holding the reserved
 * mark or a value, which is a pointer: not NULL, not a value entry, not
 * another internal entry (a node or a retry entry in a leaf).
 */
static void pidx_mt_walk_entry(struct pidx_mt_walk *w, void *entry,
			       unsigned long lo, unsigned long hi)
{
	if (!entry) {
		if (w->prev_null)
			pidx_mt_complain(w, "two free ranges in a row", lo);
		w->prev_null = true;
		return;
	}
	w->prev_null = false;
	if (w->entries++ && lo <= w->last_key)
		pidx_mt_complain(w, "PIDs out of order", lo);
	w->last_key = hi;
	if (lo != hi)
		pidx_mt_complain(w, "entry covers more than one number", lo);
	else if (!xa_is_zero(entry) && ((unsigned long)entry & 3))
		pidx_mt_complain(w, "entry neither reserved nor a 4-aligned pointer",
				 lo);
	else if (lo < 1 || lo >= w->m->pid_max)
		pidx_mt_complain(w, "entry outside [1, pid_max)", lo);
}

/*
 * Checks what lib/maple_tree.c's mt_validate() checks (only built with
 * CONFIG_DEBUG_MAPLE_TREE) on one node and below it, and returns the largest
 * free run under it, which the parent must record.  Recursion depth is the
 * tree height: at most 8 levels below 2^22 PIDs.
 */
static unsigned long pidx_mt_walk_node(struct pidx_mt_walk *w,
				       struct maple_enode *enode,
				       struct maple_node *parent,
				       unsigned int poff, unsigned long min,
				       unsigned long max, unsigned int depth)
{
	struct maple_node *node = (void *)((unsigned long)enode & ~MAPLE_NODE_MASK);
	enum maple_type type = ((unsigned long)enode >> MAPLE_NODE_TYPE_SHIFT) &
			       MAPLE_NODE_TYPE_MASK;
	unsigned long pval = (unsigned long)node->parent;
	unsigned long lo = min, hi, gap = 0, max_gap = 0;
	bool leaf = depth == w->height;
	unsigned long *pivots, *gaps;
	unsigned int i, end, npiv;
	void __rcu **slots;

	w->nodes++;
	if (w->per_node)
		pidx_count_node(node, w->per_node);
	if ((pval & ~MAPLE_NODE_MASK) == (unsigned long)node) {
		pidx_mt_complain(w, "dead node in the tree", min);
		return 0;
	}
	if (!parent && pval != ((unsigned long)&w->m->mt | PIDX_MT_ROOT_PARENT))
		pidx_mt_complain(w, "root does not point to the tree", min);
	if (parent && ((pval & ~MAPLE_NODE_MASK) != (unsigned long)parent ||
		       (pval & MAPLE_NODE_MASK) !=
		       ((poff << PIDX_MT_PARENT_SHIFT) | PIDX_MT_PARENT_RANGE64)))
		pidx_mt_complain(w, "node parent link broken", min);
	if (type != (leaf ? maple_leaf_64 : maple_arange_64)) {
		pidx_mt_complain(w, "node type wrong for its depth", min);
		return 0;
	}
	if (leaf) {
		w->leaves++;
		pivots = node->mr64.pivot;
		slots = node->mr64.slot;
		gaps = NULL;
		npiv = PIDX_MT_LEAF_PIVOTS;
	} else {
		pivots = node->ma64.pivot;
		slots = node->ma64.slot;
		gaps = node->ma64.gap;
		npiv = PIDX_MT_ARANGE_PIVOTS;
	}
	end = pidx_mt_data_end(node, leaf, max);
	if (end > npiv) {
		pidx_mt_complain(w, "node data end beyond its slots", min);
		return 0;
	}
	if (parent && max != ULONG_MAX &&
	    end < (leaf ? PIDX_MT_LEAF_MIN : PIDX_MT_ARANGE_MIN))
		w->underfull++;

	for (i = 0; i <= end; i++) {
		void *slot = pidx_mt_slot(w->m, slots, i);

		/* mas_logical_pivot(): a zero pivot past slot 0 means max */
		hi = i < npiv && (pivots[i] || !i) ? pivots[i] : max;
		if (hi < lo || hi > max) {
			pidx_mt_complain(w, "pivot outside the node's range", lo);
			return max_gap;
		}
		if (i == end && hi != max)
			pidx_mt_complain(w, "node does not reach its limit", hi);

		if (leaf) {
			pidx_mt_walk_entry(w, slot, lo, hi);
			/* as mas_validate_gaps() counts a leaf's free runs */
			gap = slot ? 0 : gap + (hi - lo + 1);
			max_gap = max(max_gap, gap);
		} else if (!slot) {
			pidx_mt_complain(w, "internal node with an empty slot", lo);
		} else {
			gap = pidx_mt_walk_node(w, slot, node, i, lo, hi,
						depth + 1);
			/* a smaller record would hide free numbers from alloc */
			if (gaps[i] != gap)
				pidx_mt_complain(w, "recorded free run differs from the subtree's",
						 lo);
			max_gap = max(max_gap, gaps[i]);
		}
		lo = hi + 1;
	}
	return max_gap;
}

static struct pidx_mt_walk pidx_mt_walk(struct pidx_maple *m, const char *via,
					u64 *per_node)
{
	struct pidx_mt_walk w = { .m = m, .via = via, .per_node = per_node };
	void *root;

	mutex_lock(&m->lock);
	w.height = mt_height(&m->mt);
	root = rcu_dereference_protected(m->mt.ma_root,
					 lockdep_is_held(&m->lock));
	if (root && !xa_is_node(root))
		pidx_mt_complain(&w, "single entry in the root pointer", 0);
	else if (root && w.height < 1)
		pidx_mt_complain(&w, "tree of nodes with height 0", 0);
	else if (root)
		pidx_mt_walk_node(&w, (void *)((unsigned long)root &
					       ~PIDX_MT_ROOT_NODE),
				  NULL, 0, 0, ULONG_MAX, 1);
	if (w.entries != m->count)
		pidx_mt_complain(&w, "PIDs in the tree differ from those stored",
				 w.entries);
	if (m->cursor > m->pid_max)
		pidx_mt_complain(&w, "cursor beyond pid_max", m->cursor);
	mutex_unlock(&m->lock);
	return w;
}

/* What readers see: the iterator itself, over the whole index space. */
static unsigned int pidx_mt_check_iter(struct pidx_maple *m)
{
	MA_STATE(mas, &m->mt, 0, 0);
	struct pidx_mt_walk w = { .m = m, .via = "mas_for_each" };
	void *entry;

	mutex_lock(&m->lock);
	mas_for_each(&mas, entry, ULONG_MAX)
		pidx_mt_walk_entry(&w, entry, mas.index, mas.last);
	if (w.entries != m->count)
		pidx_mt_complain(&w, "PIDs seen differ from those stored",
				 w.entries);
	mutex_unlock(&m->lock);
	return w.bad;
}

static void pidx_maple_set_cursor(struct pidx_index *idx, u32 next)
{
	to_pidx_maple(idx)->cursor = next;
}

static unsigned int pidx_maple_verify(struct pidx_index *idx)
{
	struct pidx_maple *m = to_pidx_maple(idx);

	return pidx_mt_walk(m, "tree", NULL).bad + pidx_mt_check_iter(m);
}

static size_t pidx_maple_mem_bytes(struct pidx_index *idx)
{
	struct pidx_maple *m = to_pidx_maple(idx);

	return sizeof(*m) +
	       pidx_mt_walk(m, NULL, NULL).nodes * sizeof(struct maple_node);
}

static void pidx_maple_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct pidx_mt_walk w = pidx_mt_walk(to_pidx_maple(idx), NULL, NULL);

	snprintf(buf, len,
		 "height=%u;nodes=%lu;leaves=%lu;node_bytes=%zu;entries=%lu;underfull=%lu",
		 w.height, w.nodes, w.leaves, sizeof(struct maple_node),
		 w.entries, w.underfull);
}

/* The tree's nodes by the NUMA node of their memory (slab objects). */
static void pidx_maple_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	pidx_mt_walk(to_pidx_maple(idx), NULL, count);
}

const struct pidx_ops pidx_maple_ops = {
	.name		= "maple",
	.desc		= "kernel maple tree: RCU B-tree, gap-tracked alloc; writers need irqs on",
	.writers_need_irqs_on = true,
	.readers_may_wait = true,
	.create		= pidx_maple_create,
	.destroy	= pidx_maple_destroy,
	.alloc		= pidx_maple_alloc,
	.insert		= pidx_maple_insert,
	.publish	= pidx_maple_publish,
	.lookup		= pidx_maple_lookup,
	.remove		= pidx_maple_remove,
	.find_ge	= pidx_maple_find_ge,
	.set_cursor	= pidx_maple_set_cursor,
	.verify		= pidx_maple_verify,
	.mem_bytes	= pidx_maple_mem_bytes,
	.describe	= pidx_maple_describe,
	.nodes		= pidx_maple_nodes,
};
