// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's IDR as kernel/pid.c uses it: Linux 6.1's alloc_pid(), which
 * takes pidmap_lock twice per PID (`idr`), and mainline's, which takes it
 * once (`idr_onelock`).  alloc_pid() and pidmap_lock are not exported, so
 * this file repeats their steps on an IDR and a spinlock of its own.
 *
 * idr, 6.1:
 *
 *   idr_preload(); lock; idr_alloc_cyclic(NULL, floor, pid_max, GFP_ATOMIC);
 *   unlock; idr_preload_end();  ...  lock; idr_replace(); unlock;
 *
 * idr_onelock, mainline's, follows commit 6d864a1b "pid: only take
 * pidmap_lock once on alloc" (Mateusz Guzik, v3, reviewed by Oleg Nesterov;
 * series "further damage-control lack of clone scalability").  Its diff was
 * not found: these are the steps of the alloc_pid() it left, read in a later
 * mainline kernel/pid.c, which agree with the commit's description:
 *
 *   retried_preload = false; idr_preload(GFP_KERNEL); lock;
 *   each level: nr = idr_alloc{,_cyclic}(NULL, ..., GFP_ATOMIC);
 *     if nr == -ENOMEM && !retried_preload: unlock; idr_preload_end();
 *       retried_preload = true; idr_preload(GFP_KERNEL); lock; again;
 *     retried_preload = false;
 *   each level: idr_replace(pid, nr);  unlock; idr_preload_end();
 *
 * No idr_preload() before idr_replace(): it never allocates.  pidx has no
 * namespaces, so what alloc_pid() does besides is left out: the pid_max and
 * capability checks moved before the lock, PIDNS_ADDING, the child_reaper
 * check, pid_allocated, pidfs.  Mainline's pidmap_lock no longer turns
 * interrupts off; both indexes here do, as ipi storms write from interrupt
 * context, so that the two differ in their holds alone.
 *
 * The contract's two phases are the two holds of 6.1: alloc() and insert()
 * are the first (the number allocated with NULL: idr_find() returns NULL,
 * idr_get_next() skips it, but its slot's IDR_FREE tag is clear, so no
 * allocation hands it out again), publish() the second (idr_replace() of the
 * NULL with the caller's value, whose rcu_assign_pointer() is the release
 * that lets a reader that finds the value read the object it points to).
 * idr_onelock's alloc_publish() does both in mainline's one hold; its
 * alloc() and publish() are idr's, for the callers that reserve and publish
 * in two steps.  remove() drops a reserved number as well as a published
 * one, as alloc_pid()'s unwind does with idr_remove().  The writers make
 * the calls kernel/pid.c makes and no other: the contract's -EEXIST of a
 * published number and -ENOENT of an absent one take an idr_find() first,
 * which the kernel never makes, so they are made under the contract checks
 * alone (pidx.h), which the selftest turns on.
 *
 * The value is the entry itself, in the leaf slot that held xa_mk_value(pid)
 * before values existed: no byte is added per key, and a lookup reads no new
 * line, since __radix_tree_lookup() read that slot's word anyway.  What a
 * key costs is its 8-byte slot in a 576-byte struct xa_node (8 header
 * bytes, parent, array, a list head: 40; 64 slots: 512; 3 mark words of 64
 * bits: 24): 9 bytes per key in a full leaf, plus 1/64 of that per level
 * above, more where leaves are sparse.
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
	/*
	 * the role of pidmap_lock, which every namespace's IDR shares: the
	 * level group's first instance's own_lock
	 */
	spinlock_t *lock;
	spinlock_t own_lock;	/* the lock, where this is a group's first */
	u32 pid_max;
	/*
	 * idr_onelock, under the lock: alloc_publish() calls that could not
	 * preload, retries
	 */
	unsigned long nr_atomic;
	unsigned long nr_retried;
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
	spin_lock_init(&r->own_lock);
	r->lock = p->group ? to_pidx_idr(p->group)->lock : &r->own_lock;
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
	if (pidx_visits_enabled() && index >= 0)
		idr_ref_trace_path(r, index);
}

/*
 * Reserves @pid, or (@pid 0) the next number in alloc_pid()'s cyclic order,
 * with NULL, under the lock: lookups miss it until idr_replace().
 */
static int idr_ref_reserve(struct pidx_idr *r, u32 pid, gfp_t gfp)
{
	if (pid)
		return idr_alloc(&r->idr, NULL, pid, pid + 1, gfp);
	return idr_alloc_cyclic(&r->idr, NULL,
				pidx_alloc_floor(idr_get_cursor(&r->idr)),
				r->pid_max, gfp);
}

/*
 * 6.1's alloc_pid()'s first hold: the number reserved with NULL, published
 * later by idr_ref_publish() in a second hold.  alloc_pid() preloads with
 * GFP_KERNEL and allocates with GFP_ATOMIC under the lock; from
 * on_each_cpu() nothing may sleep, so the tree allocates with the caller's
 * atomic gfp and failures are counted.  Both indexes reserve this way.
 */
static int idr_ref_take(struct pidx_idr *r, u32 pid, gfp_t gfp)
{
	bool preload = gfpflags_allow_blocking(gfp);
	unsigned long flags;
	int nr;

	if (preload)
		idr_preload(gfp);
	spin_lock_irqsave(r->lock, flags);
	nr = idr_ref_reserve(r, pid, preload ? GFP_ATOMIC : gfp);
	spin_unlock_irqrestore(r->lock, flags);
	if (preload)
		idr_preload_end();
	return nr;
}

static int idr_ref_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	int nr = idr_ref_take(r, 0, gfp);

	idr_ref_visits(r, nr);
	return nr;
}

/* set_tid's path of alloc_pid(): the given number, in the same hold */
static int idr_ref_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	int nr;

	if (pid < 1 || pid >= r->pid_max)
		return -EINVAL;
	nr = idr_ref_take(r, pid, gfp);
	if (nr == -ENOSPC)
		return -EEXIST;
	if (nr < 0)
		return nr;
	idr_ref_visits(r, nr);
	return 0;
}

/*
 * 6.1's second hold: idr_replace() and nothing more, as alloc_pid(), whose
 * caller owns the number.  Its return is the refusal of a number not
 * allocated at all (its IDR_FREE test), before it stores anything.  Only
 * under the contract checks is the slot looked at first, so that a
 * published value is refused with -EEXIST, never overwritten.
 */
static int idr_ref_publish(struct pidx_index *idx, u32 pid, void *value)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	unsigned long flags;
	int ret = -EEXIST;

	spin_lock_irqsave(r->lock, flags);
	if (!pidx_checking_contract() || !idr_find(&r->idr, pid)) {
		/* checked, not yet stored: a reader still misses the number */
		pidx_race_delay();
		ret = PTR_ERR_OR_ZERO(idr_replace(&r->idr, value, pid));
	}
	spin_unlock_irqrestore(r->lock, flags);
	idr_ref_visits(r, pid);
	return ret;
}

/*
 * Mainline's alloc_pid(): a number reserved in every level, deepest first,
 * and published in all, in one hold of the group's lock, so no one who
 * takes the lock ever meets a reserved, unpublished slot.  A preload fills
 * the per-CPU pool for one allocation only, and alloc_pid() makes one per
 * level under the hold, so -ENOMEM there lets the lock go, preloads again
 * and retries that level once (idr_preload() cannot say whether it got
 * memory), the deeper levels reserved meanwhile; the next level may retry
 * again.  The caller's gfp is GFP_KERNEL
 * wherever it may block, the commit's preload.  Where it may not (ipi
 * storms) nothing can preload: the tree allocates with that gfp and
 * -ENOMEM is final; describe() says so.  On an error the levels already
 * reserved are removed before the lock goes, so an error leaves nothing.
 * The counters are the first instance's, the one describe() is asked.
 */
static int idr_onelock_alloc_publish_levels(struct pidx_index *const *idx,
					    unsigned int n, void *value,
					    u32 *const *nr, gfp_t gfp)
{
	struct pidx_idr *r0 = to_pidx_idr(idx[0]);
	bool preload = gfpflags_allow_blocking(gfp);
	bool retried = false;
	unsigned long flags;
	int i = n - 1, got;

	if (preload)
		idr_preload(gfp);
	spin_lock_irqsave(r0->lock, flags);
	/* describe() reads these without the lock */
	if (!preload)
		WRITE_ONCE(r0->nr_atomic, r0->nr_atomic + 1);
	while (i >= 0) {
		got = idr_ref_reserve(to_pidx_idr(idx[i]), 0,
				      preload ? GFP_ATOMIC : gfp);
		if (got == -ENOMEM && preload && !retried) {
			spin_unlock_irqrestore(r0->lock, flags);
			idr_preload_end();
			retried = true;
			idr_preload(gfp);
			spin_lock_irqsave(r0->lock, flags);
			WRITE_ONCE(r0->nr_retried, r0->nr_retried + 1);
			continue;
		}
		if (got < 0)
			break;
		/* the object holds its numbers before idr_replace()'s release */
		*nr[i--] = got;
		retried = false;
	}
	if (i < 0) {
		/* reserved, not yet published: lockless lookups miss them */
		pidx_race_delay();
		for (i = n - 1; i >= 0; i--)
			idr_replace(&to_pidx_idr(idx[i])->idr, value, *nr[i]);
		got = *nr[0];
	} else {
		while (++i < (int)n)
			idr_remove(&to_pidx_idr(idx[i])->idr, *nr[i]);
	}
	spin_unlock_irqrestore(r0->lock, flags);
	if (preload)
		idr_preload_end();
	for (i = 0; i < n && got > 0; i++)
		idr_ref_visits(to_pidx_idr(idx[i]), *nr[i]);
	return got > 0 ? 0 : got;
}

/*
 * One level (the engine's one-level forks, the selftest): the steps above
 * without the loop over levels, as they were before levels, so that a
 * one-level fork costs what it cost then.
 */
static int idr_onelock_alloc_publish(struct pidx_index *idx, void *value,
				     u32 *nr_out, gfp_t gfp)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	bool preload = gfpflags_allow_blocking(gfp);
	bool retried = false;
	unsigned long flags;
	int nr;

	if (preload)
		idr_preload(gfp);
	spin_lock_irqsave(r->lock, flags);
	/* describe() reads these without the lock */
	if (!preload)
		WRITE_ONCE(r->nr_atomic, r->nr_atomic + 1);
	for (;;) {
		nr = idr_ref_reserve(r, 0, preload ? GFP_ATOMIC : gfp);
		if (nr != -ENOMEM || !preload || retried)
			break;
		spin_unlock_irqrestore(r->lock, flags);
		idr_preload_end();
		retried = true;
		idr_preload(gfp);
		spin_lock_irqsave(r->lock, flags);
		WRITE_ONCE(r->nr_retried, r->nr_retried + 1);
	}
	if (nr >= 0) {
		/* the object holds its number before idr_replace()'s release */
		*nr_out = nr;
		/* reserved, not yet published: lockless lookups miss it */
		pidx_race_delay();
		idr_replace(&r->idr, value, nr);
	}
	spin_unlock_irqrestore(r->lock, flags);
	if (preload)
		idr_preload_end();
	idr_ref_visits(r, nr);
	return nr;
}

/*
 * 6.1's publish of every level, in one hold: alloc_pid()'s idr_replace()
 * loop, deepest first.  Under the contract checks a level already published
 * refuses all before anything is stored.  A level not allocated
 * (idr_replace()'s own refusal) puts back what the levels stored before it
 * held, so that a refusal leaves every level as it was, checks or none:
 * that is the error path, which the kernel's caller, owning every number,
 * never takes.
 */
static int idr_ref_publish_levels(struct pidx_index *const *idx,
				  unsigned int n, const u32 *nr, void *value)
{
	struct pidx_idr *r0 = to_pidx_idr(idx[0]);
	unsigned long flags;
	void *old = NULL, *prev[PIDX_LEVELS_MAX];
	int i, ret = -EEXIST;

	spin_lock_irqsave(r0->lock, flags);
	if (pidx_checking_contract())
		for (i = 0; i < (int)n && !old; i++)
			old = idr_find(&to_pidx_idr(idx[i])->idr, nr[i]);
	if (!old) {
		/* checked, not yet stored: a reader still misses the numbers */
		pidx_race_delay();
		for (i = n - 1; i >= 0 && !IS_ERR(old); i--) {
			prev[i] = idr_replace(&to_pidx_idr(idx[i])->idr, value, nr[i]);
			old = prev[i];
		}
		ret = PTR_ERR_OR_ZERO(old);
		/*
		 * each level stored gets back what it held: NULL, or, with
		 * the checks off, a value published before
		 */
		if (ret)
			for (i += 2; i < (int)n; i++)
				idr_replace(&to_pidx_idr(idx[i])->idr, prev[i], nr[i]);
	}
	spin_unlock_irqrestore(r0->lock, flags);
	for (i = 0; i < (int)n && !ret; i++)
		idr_ref_visits(to_pidx_idr(idx[i]), nr[i]);
	return ret;
}

static void *idr_ref_lookup(struct pidx_index *idx, u32 pid)
{
	struct pidx_idr *r = to_pidx_idr(idx);

	idr_ref_visits(r, pid);
	return idr_find(&r->idr, pid);
}

/*
 * Whether @pid is allocated with NULL in its slot, reserved: the IDR_FREE
 * test of idr_replace() and idr_remove().  Beyond what the tree covers,
 * radix_tree_tag_get() answers "not free" of a number never allocated, so
 * those are ruled out first, as __radix_tree_lookup() rules them out for
 * idr_replace().  Lock held.
 */
static bool idr_ref_reserved(struct pidx_idr *r, u32 pid)
{
	struct radix_tree_root *rt = &r->idr.idr_rt;
	void *head = rcu_dereference_protected(rt->xa_head,
					       lockdep_is_held(r->lock));
	unsigned long maxindex = 0;

	if (xa_is_node(head))
		maxindex = (RADIX_TREE_MAP_SIZE << xa_to_node(head)->shift) - 1;
	return pid <= maxindex && !idr_find(&r->idr, pid) &&
	       !radix_tree_tag_get(rt, pid, IDR_FREE);
}

/*
 * Whether @pid is held, where the contract checks ask: idr_remove() returns
 * NULL for a reservation it drops as for a number never held, so only a
 * look first tells them apart.  free_pid() never looks.  Lock held.
 */
static bool idr_ref_held(struct pidx_idr *r, u32 pid)
{
	return !pidx_checking_contract() || idr_find(&r->idr, pid) ||
	       idr_ref_reserved(r, pid);
}

/* free_pid()'s idr_remove() */
static int idr_ref_remove(struct pidx_index *idx, u32 pid)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	unsigned long flags;
	bool held;

	idr_ref_visits(r, pid);
	spin_lock_irqsave(r->lock, flags);
	held = idr_ref_held(r, pid);
	if (held)
		idr_remove(&r->idr, pid);
	spin_unlock_irqrestore(r->lock, flags);
	return held ? 0 : -ENOENT;
}

/* free_pid(): every level's number, in one hold */
static int idr_ref_remove_levels(struct pidx_index *const *idx,
				 unsigned int n, const u32 *nr)
{
	struct pidx_idr *r0 = to_pidx_idr(idx[0]);
	unsigned long flags;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++)
		idr_ref_visits(to_pidx_idr(idx[i]), nr[i]);
	spin_lock_irqsave(r0->lock, flags);
	for (i = 0; i < n; i++) {
		struct pidx_idr *r = to_pidx_idr(idx[i]);

		if (idr_ref_held(r, nr[i]))
			idr_remove(&r->idr, nr[i]);
		else
			ret = -ENOENT;
	}
	spin_unlock_irqrestore(r0->lock, flags);
	return ret;
}

/* idr_get_next() skips NULL slots: reserved numbers are not found */
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
	unsigned long entries;	/* numbers held: published and reserved */
	unsigned int bad;
};

static void idr_ref_complain(struct idr_ref_walk *w, const char *what,
			     unsigned long index)
{
	if (w->bad++ < 8)
		pr_err("pidx: idr: %s at index %lu\n", what, index);
}

/* A number held at @index: its slot holds @entry, a value or NULL. */
static void idr_ref_walk_entry(struct pidx_idr *r, struct idr_ref_walk *w,
			       void *entry, unsigned long index)
{
	w->entries++;
	/* values are pointers: a value entry or an internal one is a stray */
	if ((unsigned long)entry & 3)
		idr_ref_complain(w, "entry is not a 4-aligned pointer", index);
	else if (index < 1 || index >= r->pid_max)
		idr_ref_complain(w, "entry outside [1, pid_max)", index);
}

/*
 * One node and below it; returns whether a number below it is free, which
 * the node's parent must say with its IDR_FREE tag (a tag clear over a free
 * number hides it from alloc, one set over a full subtree costs a search).
 * In a leaf the tag tells a reserved NULL slot (clear) from a free one (set),
 * and a slot with an entry must not be tagged free: alloc would hand it out
 * again.  Recursion depth is the tree height: at most 4 levels below 2^24.
 */
static bool idr_ref_walk_node(struct pidx_idr *r, struct idr_ref_walk *w,
			      struct xa_node *node, struct xa_node *parent,
			      unsigned int offset, unsigned long base,
			      unsigned int shift)
{
	unsigned int i, count = 0, values = 0;
	bool any_free = false;

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
		unsigned long index = base + ((unsigned long)i << node->shift);
		bool free = test_bit(i, node->tags[IDR_FREE]);
		bool sub_free;

		any_free |= free;
		if (!child && !node->shift && !free) {
			/* reserved: counted by the tree as an entry */
			count++;
			idr_ref_walk_entry(r, w, NULL, index);
			continue;
		}
		if (!child) {
			if (!free)
				idr_ref_complain(w, "empty subtree not tagged free",
						 index);
			continue;
		}
		count++;
		if (xa_is_value(child))
			values++;
		if (!node->shift) {
			if (free)
				idr_ref_complain(w, "entry tagged free", index);
			idr_ref_walk_entry(r, w, child, index);
			continue;
		}
		if (!xa_is_node(child)) {
			idr_ref_complain(w, "entry above the leaves", index);
			continue;
		}
		sub_free = idr_ref_walk_node(r, w, xa_to_node(child), node, i,
					     index, node->shift - XA_CHUNK_SHIFT);
		if (sub_free != free)
			idr_ref_complain(w, "free tag differs from the subtree's",
					 index);
	}
	if (node->count != count || node->nr_values != values)
		idr_ref_complain(w, "node count or value count wrong", base);
	return any_free;
}

static struct idr_ref_walk idr_ref_walk(struct pidx_idr *r, u64 *per_node)
{
	struct idr_ref_walk w = { .per_node = per_node };
	unsigned long flags;
	void *head;
	bool free;

	spin_lock_irqsave(r->lock, flags);
	head = rcu_dereference_protected(r->idr.idr_rt.xa_head,
					 lockdep_is_held(r->lock));
	if (xa_is_node(head)) {
		free = idr_ref_walk_node(r, &w, xa_to_node(head), NULL, 0, 0,
					 xa_to_node(head)->shift);
		if (free != !!radix_tree_tagged(&r->idr.idr_rt, IDR_FREE))
			idr_ref_complain(&w, "root free tag differs from the tree's",
					 0);
	} else if (head) {
		/* only number 0 lives in the root pointer */
		idr_ref_walk_entry(r, &w, head, 0);
	}
	if (idr_get_cursor(&r->idr) > r->pid_max)
		idr_ref_complain(&w, "cursor beyond pid_max",
				 idr_get_cursor(&r->idr));
	spin_unlock_irqrestore(r->lock, flags);
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

static int idr_ref_describe_tree(struct pidx_idr *r, char *buf, size_t len)
{
	struct idr_ref_walk w = idr_ref_walk(r, NULL);

	return scnprintf(buf, len, "nodes=%lu;node_bytes=%zu;entries=%lu",
			 w.nodes, sizeof(struct xa_node), w.entries);
}

static void idr_ref_describe(struct pidx_index *idx, char *buf, size_t len)
{
	idr_ref_describe_tree(to_pidx_idr(idx), buf, len);
}

/*
 * retry=none(atomic): some alloc_publish() ran where nothing could preload
 * (an ipi storm's writers), so an -ENOMEM there was final, not retried as
 * mainline retries it; retry=preload: every one could.
 */
static void idr_onelock_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct pidx_idr *r = to_pidx_idr(idx);
	int n = idr_ref_describe_tree(r, buf, len);

	scnprintf(buf + n, len - n, ";retry=%s;retries=%lu",
		  READ_ONCE(r->nr_atomic) ? "none(atomic)" : "preload",
		  READ_ONCE(r->nr_retried));
}

static void idr_ref_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	idr_ref_walk(to_pidx_idr(idx), count);
}

/* one IDR, used two ways: the tables differ in alloc_publish and describe */
#define IDR_REF_OPS							\
	.create		= idr_ref_create,				\
	.destroy	= idr_ref_destroy,				\
	.alloc		= idr_ref_alloc,				\
	.insert		= idr_ref_insert,				\
	.publish	= idr_ref_publish,				\
	.publish_levels	= idr_ref_publish_levels,			\
	.remove_levels	= idr_ref_remove_levels,			\
	.lookup		= idr_ref_lookup,				\
	.remove		= idr_ref_remove,				\
	.find_ge	= idr_ref_find_ge,				\
	.set_cursor	= idr_ref_set_cursor,				\
	.verify		= idr_ref_verify,				\
	.mem_bytes	= idr_ref_mem_bytes,				\
	.nodes		= idr_ref_nodes

const struct pidx_ops pidx_idr_ops = {
	.name		= "idr",
	.desc		= "kernel IDR (radix tree) used as kernel/pid.c 6.1 does",
	IDR_REF_OPS,
	.describe	= idr_ref_describe,
};

const struct pidx_ops pidx_idr_onelock_ops = {
	.name		= "idr_onelock",
	.desc		= "kernel IDR as mainline's alloc_pid() uses it (one lock hold)",
	IDR_REF_OPS,
	.alloc_publish	= idr_onelock_alloc_publish,
	.alloc_publish_levels = idr_onelock_alloc_publish_levels,
	.describe	= idr_onelock_describe,
};
