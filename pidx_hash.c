// SPDX-License-Identifier: GPL-2.0
/*
 * "hash": the PID index of Linux before 4.15, a bitmap of pid_max bits to
 * allocate from (the pidmap) and a hash table to look numbers up (pid_hash),
 * except that the table resizes itself as the index grows and shrinks where
 * pid_hash was sized once at boot.
 *
 * Why the table is not an rhashtable: in 6.1 rhashtable's bucket locks are
 * taken under local_bh_disable() (rht_lock() in include/linux/rhashtable.h).
 * Writers here run in the hardirq of on_each_cpu() and under a spinlock with
 * interrupts off, where local_bh_enable() warns (in_hardirq()) or runs
 * pending softirqs with interrupts turned back on inside the critical
 * section.  rhashtable only became irq-safe later ("rhashtable: Allow
 * rhashtable to be used from irq-safe contexts", Tejun Heo, for sched_ext).
 * So the table is this file's own: RCU-protected singly linked chains,
 * changed only under the index spinlock, as pid_hash's hlists were under
 * pidmap_lock.
 *
 * Memory.  The bitmap has a bit for every number below pid_max whether it is
 * used or not: 4 KiB at pid_max 32768, 512 KiB at 4194304 (PID_MAX_LIMIT),
 * plus a summary with a bit per bitmap word that is full (64 bytes, 8 KiB).
 * A PID costs a 48-byte object (key, value, two chain links, rcu_head: 4 +
 * 4 of padding + 8 + 16 + 16) plus its share of 8-byte bucket slots: a resize
 * leaves the load (PIDs per bucket) between 1/4 and 1/2, so 16-32 bytes, and
 * the load is let drift between 1/8 and 3/2 before the next resize, so 5-64
 * bytes at the extremes: 64-80 bytes a PID after a resize.  The value word
 * is 8 of them (the object was 40 bytes when the index was a set).
 *
 * Lookup.  The table pointer and the table header (shift, generation) are
 * read-mostly and stay cached; beyond them a lookup reads one bucket slot and
 * the chain.  hash_32() is pid_hash's multiplicative hash: it spreads runs of
 * consecutive PIDs almost perfectly, so a successful lookup reads at most
 * about 1 + load/2 objects (measured: 1.00-1.03 at load 1/2, 1.12-1.28 at
 * load 1) and a failed one about load objects.  describe() reports the mean
 * as "probes".
 *
 * Values.  The index's object holds the value, a pointer to the caller's
 * object, rather than being embedded in it as pid_hash's node (struct upid's
 * pid_chain) was in struct pid, where a lookup walked nodes that were the
 * struct pid itself.  Embedding would have this index alone dictate the
 * layout of the caller's object and dereference it, where the contract keeps
 * values opaque and every index maps to the same object.  It also keeps one
 * stable home per key: an object lives from reserve to remove, a resize
 * relinks it (its other generation's link) and never copies it, so the value
 * is in the one object that both tables link, and a publish racing a resize
 * stores it where a lookup of either table finds it.
 *   What it costs a lookup in cache lines next to the embedded layout: the
 * walk reads as many lines, one per object passed or found (the bucket slot
 * aside), since key and value are bytes 0-15 of the object, 16 bytes at a
 * multiple of 16 that never straddle a line, so the value is read on the
 * line the key was; but the line it ends on is the index's, not the
 * caller's.  A caller that then reads the line of its object the embedded
 * chain node would have been on (the engine reads numbers[0].nr, line 1 of
 * its line-aligned struct pidx_pid) reads one line more per successful
 * lookup, one dependent load later; a caller whose first read is elsewhere
 * in the object (pid_task()'s tasks[], line 0) reads as many lines either
 * way, still one dependent load later.  On a miss, or passing an object on
 * the way, one object in four (those at 48 mod 192 in their slab) has its
 * links on the line after its key, where at 40 bytes one or two in eight
 * did, by generation: an embedded upid never splits.  Embedding would also
 * save the 48-byte object, the caller's object carrying the chain node.
 *   A reservation is an object in the table whose value is NULL: its bit is
 * set and insert() finds it taken, but lookup() returns NULL for it and
 * find_ge() passes it.  publish() takes no lock: it finds the object in the
 * published table under RCU as lookup() does (only the owner unlinks it) and
 * stores the value with cmpxchg_release() from NULL, so a second publish
 * finds it taken (-EEXIST) and changes nothing; no object, -ENOENT.  The
 * value is set once in an object's life and never cleared, and a number
 * reserved again gets a new object, linked only after the old one was
 * unlinked, so a lookup reads its own incarnation's value or NULL.
 *
 * Allocation is the cyclic search of pidx.h over the bitmap.  The summary
 * lets it pass 64 taken numbers per bit it reads, as the pidmap's per-page
 * nr_free let alloc_pidmap() pass full pages: in a dense space the search
 * reads O(pid_max / 4096) words (8 at 32768, 1024 at 4194304) and one word
 * of the bitmap, not O(pid_max / 64), all under the interrupts-off lock.
 *
 * Locking.  One spinlock taken with interrupts off, the role of pidmap_lock,
 * serializes alloc, insert, remove and the steps of a resize; a PID's bit and
 * its object change in the same locked section.  Objects are allocated before
 * the lock with the caller's gfp and nothing allocates inside it, so once the
 * lock is held an insertion cannot fail.  Lookups take no lock.
 *
 * Resizing happens off the writers' path.  A writer that takes the load out
 * of [1/8, 3/2] queues a work item, which allocates the new bucket array with
 * GFP_KERNEL (an IPI-context writer could not) and copies the old table's
 * chains into it some hundreds of buckets per locked section; meanwhile writers
 * update both tables for buckets already copied.  Every object has one link
 * per table generation, so it sits in the old and the new table at once and
 * the chains readers walk never change under them except by a real insertion
 * or removal.  When all buckets are copied, one rcu_assign_pointer() switches
 * readers to the new table; the old array is freed after synchronize_rcu(),
 * which also frees its generation's links for the next resize.  A writer
 * that may sleep and finds the load at 2 or more waits for the resize, so a
 * prefill or a process-context storm never leaves the worker far behind.
 * Atomic writers cannot: an IPI storm occupies every CPU, the worker runs
 * when the round ends and chains grow until then, bounded because rounds
 * are.  describe() reports the highest load writers saw ("load_peak").
 *   pid_hash was never resized, so a storm should not resize this table
 * either: the table is sized for the prefilled set and keeps room for the
 * live PIDs a storm adds.  Growing at a load of 3/2, not 1, is that room.
 * Tables grow by 4 from 64 buckets, so a prefill of 4^k keys (1K, 1M) fills
 * its table to a load of exactly 1: with growth past 1, a fork storm's first
 * fork queued a resize of the whole table, about 1M objects rehashed at 1M
 * keys, 75-250 ms of a storm of a few ms (hash's fork at 1M read 3-6 us an
 * operation in some storms, 0.3 us in others).  At 3/2 a prefill of 2^k keys
 * gets the same table as before and room for half as many PIDs again.
 *
 * What a reader may observe.  lookup() walks the table it found published,
 * which holds every PID: the old table until the switch, the new one from it.
 * A PID present for the whole call is found; one added or removed during the
 * call may be seen either way.  find_ge() scans the bitmap without the lock
 * and confirms each set bit with a lookup that returns a value.  A bit is set
 * before its object is linked and cleared after it is unlinked, so the bit of
 * a PID published for the whole call is set for the whole call and that PID
 * is returned unless a smaller one is confirmed first; whatever is returned
 * was published during the call.  A set bit that does not confirm (a PID
 * reserved, or being removed) is passed over.
 *
 * NUMA placement.  Objects are allocated on pidx_mem_node(node, key) for the
 * PID they will hold (alloc() takes the cursor as that PID, which it is
 * unless numbers are taken); the index header, the bucket arrays and the
 * bitmaps on pidx_mem_node(node, 0).  nodes() counts the objects in the
 * table, the bucket array and the two bitmaps by the node of their memory.
 *
 * Visit tracing (trace_visits).  The nodes are what is allocated apart: a
 * bucket array (read: its header, shift and generation, then the bucket's
 * slot), a chain object (read: the key, then the link to the next or, once
 * found, the value), the bitmap and its summary (read: the words searched,
 * tested, set or cleared).  A bucket array or bitmap counts once per operation, at its
 * first read, and later reads add only their lines; a chain object counts
 * each time a chain walk reads its key (a writer during a resize walks the
 * chains of both tables).  The index header (h->tbl, h->map) is not
 * counted, as no index counts its root pointer.  Objects a writer only
 * writes (the new one it links) are not reads.  The resize worker is not
 * traced: it is no operation.
 *
 * This file holds what a storm runs: lookups, writers, the resize worker,
 * create and destroy.  The object, the table and the index are in
 * pidx_hash.h; verify(), mem_bytes(), describe() and nodes(), which walk
 * the table or the bitmap, are in pidx_hash_verify.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": hash: " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
/* kvzalloc(), kvcalloc(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "pidx.h"
#include "pidx_compat.h"
#include "pidx_hash.h"

/* Buckets plus objects copied per locked section of a resize. */
#define PIDX_HASH_COPY_CHUNK	512

/*
 * One slab cache for every instance, created with the first: RCU callbacks
 * then find it from nothing but the object.  The mutex guards the count.
 */
static DEFINE_MUTEX(pidx_hash_cache_mutex);
static unsigned int pidx_hash_cache_users;
static struct kmem_cache *pidx_hash_cache;

static int pidx_hash_cache_get(void)
{
	int ret = 0;

	mutex_lock(&pidx_hash_cache_mutex);
	if (!pidx_hash_cache) {
		pidx_hash_cache = KMEM_CACHE(pidx_hash_obj, 0);
		if (!pidx_hash_cache)
			ret = -ENOMEM;
	}
	if (!ret)
		pidx_hash_cache_users++;
	mutex_unlock(&pidx_hash_cache_mutex);
	return ret;
}

/* Callers have waited for every RCU callback that frees into the cache. */
static void pidx_hash_cache_put(void)
{
	mutex_lock(&pidx_hash_cache_mutex);
	if (!--pidx_hash_cache_users && !pidx_keep_caches()) {
		kmem_cache_destroy(pidx_hash_cache);
		pidx_hash_cache = NULL;
	}
	mutex_unlock(&pidx_hash_cache_mutex);
}

/* Under trace_visits: which nodes one operation has counted already. */
struct pidx_hash_seen {
	bool map;	/* the bitmap */
	bool full;	/* its summary */
	bool tbl;	/* the published bucket array */
	bool new_tbl;	/* the one a resize is filling */
};

/*
 * The first read of a node in an operation counts the node (*@seen false),
 * later ones only their lines.  Off, the whole body is jumped over.
 */
static __always_inline void pidx_hash_visit(const void *p, size_t len,
					    bool *seen)
{
	if (pidx_visits_enabled()) {
		__pidx_visit(p, len, !*seen);
		*seen = true;
	}
}

/* Words [@from, @to] of a bitmap of @words words, @to clamped to the last. */
static __always_inline void pidx_hash_visit_words(const unsigned long *map,
						  unsigned long from,
						  unsigned long to,
						  unsigned long words,
						  bool *seen)
{
	if (pidx_visits_enabled() && from < words) {
		to = min(to, words - 1);
		__pidx_visit(&map[from], (to - from + 1) * sizeof(*map), !*seen);
		*seen = true;
	}
}

/*
 * Process context only: the largest arrays need vmalloc.  No __GFP_NOWARN:
 * a resize that fails is tried again by a later writer, but a table left
 * too small changes every number measured after it, so the warning stays.
 */
static struct pidx_hash_tbl *pidx_hash_tbl_new(struct pidx_hash *h, u32 shift,
					       u32 gen)
{
	struct pidx_hash_tbl *t = kvzalloc_node(pidx_hash_tbl_bytes(shift),
						GFP_KERNEL,
						pidx_mem_node(h->node, 0));

	if (!t)
		return NULL;
	pidx_mem_charge(pidx_hash_tbl_bytes(shift));
	t->shift = shift;
	t->gen = gen;
	return t;
}

static void pidx_hash_tbl_free(struct pidx_hash_tbl *t)
{
	pidx_mem_uncharge(pidx_hash_tbl_bytes(t->shift));
	kvfree(t);
}

/* An object for @key, on the node that the setting gives @key. */
static struct pidx_hash_obj *pidx_hash_obj_new(struct pidx_hash *h, u32 key,
					       gfp_t gfp)
{
	struct pidx_hash_obj *o;

	/* failures under GFP_ATOMIC are counted by the caller, not logged */
	if (!gfpflags_allow_blocking(gfp))
		gfp |= __GFP_NOWARN;
	o = kmem_cache_alloc_node(pidx_hash_cache, gfp,
				  pidx_mem_node(h->node, key));
	if (o)
		pidx_mem_charge(sizeof(*o));
	return o;
}

/* For an object no reader can hold: never linked, or after a grace period. */
static void pidx_hash_obj_free(struct pidx_hash_obj *o)
{
	kmem_cache_free(pidx_hash_cache, o);
	pidx_mem_uncharge(sizeof(*o));
}

static void pidx_hash_obj_free_rcu(struct rcu_head *rcu)
{
	pidx_hash_obj_free(container_of(rcu, struct pidx_hash_obj, rcu));
}

static struct pidx_hash_obj *pidx_hash_wderef(struct pidx_hash *h,
					      struct pidx_hash_obj __rcu **pp)
{
	return rcu_dereference_protected(*pp, lockdep_is_held(&h->lock));
}

static void pidx_hash_link(struct pidx_hash *h, struct pidx_hash_tbl *t,
			   struct pidx_hash_obj *o)
{
	struct pidx_hash_obj __rcu **head = &t->buckets[pidx_hash_bucket(t, o->key)];

	RCU_INIT_POINTER(o->next[t->gen], pidx_hash_wderef(h, head));
	/* the key and the link are in place before a reader can meet @o */
	rcu_assign_pointer(*head, o);
}

static struct pidx_hash_obj *pidx_hash_unlink(struct pidx_hash *h,
					      struct pidx_hash_tbl *t, u32 key,
					      bool *seen)
{
	u32 b = pidx_hash_bucket(t, key);
	struct pidx_hash_obj __rcu **pp = &t->buckets[b];
	struct pidx_hash_obj *o;

	pidx_hash_visit_slot(t, b, seen);
	for (o = pidx_hash_wderef(h, pp); o; o = pidx_hash_wderef(h, pp)) {
		pidx_visit_node(o, sizeof(o->key));
		pidx_visit_more(&o->next[t->gen], sizeof(o->next[t->gen]));
		if (o->key == key) {
			/*
			 * What follows @o was published long ago: no barrier.
			 * @o keeps its own link for readers standing on it.
			 */
			RCU_INIT_POINTER(*pp, pidx_hash_wderef(h, &o->next[t->gen]));
			return o;
		}
		pp = &o->next[t->gen];
	}
	return NULL;
}

/* During a resize: whether @key's old bucket has been copied already. */
static bool pidx_hash_in_new(struct pidx_hash *h, struct pidx_hash_tbl *t,
			     u32 key)
{
	return h->new_tbl && pidx_hash_bucket(t, key) < h->copied;
}

/* Past a load of 3/2, not 1: room for a storm's PIDs (see the top of the file). */
static bool pidx_hash_wants_resize(struct pidx_hash *h, u32 shift)
{
	u32 size = 1U << shift;

	return (h->nr > size + size / 2 && shift < h->max_shift) ||
	       (h->nr < size / 8 && shift > PIDX_HASH_MIN_SHIFT);
}

/* A load of 1/4 to 1/2: room to double or quarter before the next resize. */
static u32 pidx_hash_target_shift(struct pidx_hash *h)
{
	u32 shift = order_base_2(2 * (unsigned long)h->nr);

	return clamp_t(u32, shift, PIDX_HASH_MIN_SHIFT, h->max_shift);
}

static void pidx_hash_check_load(struct pidx_hash *h, struct pidx_hash_tbl *t)
{
	/* A resize under way looks at the load again when it ends. */
	if (!h->resize_queued && pidx_hash_wants_resize(h, t->shift)) {
		h->resize_queued = true;
		queue_work(system_unbound_wq, &h->resize_work);
	}
}

/* Returns true when the load is so high that a writer should wait for the resize. */
static bool pidx_hash_add_locked(struct pidx_hash *h, struct pidx_hash_obj *o,
				 u32 pid, struct pidx_hash_seen *seen)
{
	struct pidx_hash_tbl *t = pidx_hash_wtbl(h);
	unsigned long w = BIT_WORD(pid);

	o->key = pid;
	/* a reservation; pidx_hash_link()'s release orders it before a reader */
	o->value = NULL;
	/*
	 * Atomic bitops although the lock serializes writers: lockless
	 * find_ge() reads these words.  The bit goes first so that it covers
	 * every moment the object can be found.
	 */
	pidx_hash_visit(&h->map[w], sizeof(h->map[w]), &seen->map);
	set_bit(pid, h->map);
	if (h->map[w] == ~0UL) {
		pidx_hash_visit(&h->full[BIT_WORD(w)], sizeof(*h->full),
				&seen->full);
		__set_bit(w, h->full);
	}
	/* find_ge() meets the bit before the object is in the table */
	pidx_race_delay();
	pidx_hash_visit_slot(t, pidx_hash_bucket(t, pid), &seen->tbl);
	pidx_hash_link(h, t, o);
	if (pidx_hash_in_new(h, t, pid)) {
		pidx_hash_visit_slot(h->new_tbl, pidx_hash_bucket(h->new_tbl, pid),
				     &seen->new_tbl);
		pidx_hash_link(h, h->new_tbl, o);
	}
	h->nr++;
	pidx_hash_check_load(h, t);
	if (h->nr >> t->shift > h->load_peak)
		h->load_peak = h->nr >> t->shift;
	return h->nr >> t->shift >= 2;
}

/* After unlocking: lets a writer that may sleep wait for the resize it needs. */
static void pidx_hash_throttle(struct pidx_hash *h, bool overloaded, gfp_t gfp)
{
	if (overloaded && gfpflags_allow_blocking(gfp))
		flush_work(&h->resize_work);
}

static struct pidx_hash_obj *pidx_hash_del_locked(struct pidx_hash *h, u32 pid,
						  struct pidx_hash_seen *seen)
{
	struct pidx_hash_tbl *t = pidx_hash_wtbl(h);
	struct pidx_hash_obj *o;

	o = pidx_hash_unlink(h, t, pid, &seen->tbl);
	/* a set bit always has its object: verify() reports it otherwise */
	if (!o)
		return NULL;
	if (pidx_hash_in_new(h, t, pid))
		pidx_hash_unlink(h, h->new_tbl, pid, &seen->new_tbl);
	pidx_race_delay();
	clear_bit(pid, h->map);
	pidx_hash_visit(&h->full[BIT_WORD(BIT_WORD(pid))], sizeof(*h->full),
			&seen->full);
	__clear_bit(BIT_WORD(pid), h->full);
	h->nr--;
	pidx_hash_check_load(h, t);
	return o;
}

/*
 * Copies whole buckets, from the first not yet copied, until about a chunk's
 * worth of buckets and objects is done; returns true once all are.
 */
static bool pidx_hash_copy_locked(struct pidx_hash *h, struct pidx_hash_tbl *old,
				  struct pidx_hash_tbl *new)
{
	u32 size = 1U << old->shift, work = 0, b;
	struct pidx_hash_obj *o;

	/*
	 * Linking into @new uses the other link: the old chains stay as they
	 * are.  The object itself is linked, not a copy, so its value, and a
	 * publish() that lands while the copy runs, are the same in both.
	 */
	for (b = h->copied; b < size && work < PIDX_HASH_COPY_CHUNK; b++, work++)
		for (o = pidx_hash_wderef(h, &old->buckets[b]); o;
		     o = pidx_hash_wderef(h, &o->next[old->gen]), work++)
			pidx_hash_link(h, new, o);
	h->copied = b;
	return b == size;
}

static void pidx_hash_resize_work(struct work_struct *work)
{
	struct pidx_hash *h = container_of(work, struct pidx_hash, resize_work);
	struct pidx_hash_tbl *old, *new;
	unsigned long flags;
	u32 shift;

	/* The only writer of h->tbl: @old stays current while the lock is dropped. */
	for (;;) {
		spin_lock_irqsave(&h->lock, flags);
		old = pidx_hash_wtbl(h);
		if (!pidx_hash_wants_resize(h, old->shift)) {
			h->resize_queued = false;
			spin_unlock_irqrestore(&h->lock, flags);
			return;
		}
		shift = pidx_hash_target_shift(h);
		spin_unlock_irqrestore(&h->lock, flags);

		new = pidx_hash_tbl_new(h, shift, !old->gen);
		if (!new) {
			/* the next writer that finds the load out of range retries */
			spin_lock_irqsave(&h->lock, flags);
			h->resize_queued = false;
			spin_unlock_irqrestore(&h->lock, flags);
			return;
		}

		for (;;) {
			spin_lock_irqsave(&h->lock, flags);
			h->new_tbl = new;
			if (pidx_hash_copy_locked(h, old, new))
				break;
			spin_unlock_irqrestore(&h->lock, flags);
			/* writers meet the table half copied */
			pidx_race_delay();
			cond_resched();
		}
		pidx_race_delay();
		/* @new holds every PID, as writers kept it up to date */
		rcu_assign_pointer(h->tbl, new);
		h->new_tbl = NULL;
		h->copied = 0;
		h->resizes++;
		spin_unlock_irqrestore(&h->lock, flags);

		/*
		 * Readers may still walk @old; and its generation's links are
		 * the ones the next resize will rewrite.
		 */
		synchronize_rcu();
		pidx_hash_tbl_free(old);
	}
}

static struct pidx_index *pidx_hash_create(const struct pidx_params *p)
{
	struct pidx_hash_tbl *t;
	struct pidx_hash *h;
	int ret = -ENOMEM;

	if (p->pid_max < PIDX_PID_MAX_MIN || p->pid_max > PIDX_PID_MAX_LIMIT)
		return ERR_PTR(-EINVAL);
	h = kzalloc_node(sizeof(*h), GFP_KERNEL, pidx_mem_node(p->node, 0));
	if (!h)
		return ERR_PTR(-ENOMEM);
	pidx_mem_charge(sizeof(*h));
	h->pid_max = p->pid_max;
	h->node = p->node;
	/* a table of pid_max buckets already has a load below 1 when full */
	h->max_shift = max_t(u32, order_base_2(p->pid_max), PIDX_HASH_MIN_SHIFT);
	spin_lock_init(&h->lock);
	INIT_WORK(&h->resize_work, pidx_hash_resize_work);

	h->map = kvzalloc_node(array_size(pidx_hash_map_words(h),
					  sizeof(unsigned long)),
			       GFP_KERNEL, pidx_mem_node(p->node, 0));
	h->full = bitmap_zalloc_node(pidx_hash_map_words(h), GFP_KERNEL,
				     pidx_mem_node(p->node, 0));
	if (!h->map || !h->full)
		goto err_map;
	pidx_mem_charge(pidx_hash_map_bytes(h));
	t = pidx_hash_tbl_new(h, PIDX_HASH_MIN_SHIFT, 0);
	if (!t)
		goto err_tbl_new;
	RCU_INIT_POINTER(h->tbl, t);
	ret = pidx_hash_cache_get();
	if (ret)
		goto err_tbl;
	return (struct pidx_index *)h;

err_tbl:
	pidx_hash_tbl_free(t);
err_tbl_new:
	pidx_mem_uncharge(pidx_hash_map_bytes(h));
err_map:
	bitmap_free(h->full);
	kvfree(h->map);
	pidx_mem_uncharge(sizeof(*h));
	kfree(h);
	return ERR_PTR(ret);
}

static void pidx_hash_destroy(struct pidx_index *idx)
{
	struct pidx_hash *h = to_hash(idx);
	struct pidx_hash_obj *o, *next;
	struct pidx_hash_tbl *t;
	u32 b;

	/* No writer can queue another resize; one under way completes. */
	cancel_work_sync(&h->resize_work);
	/* Contract: no writer; a reader that outlived its storm may still walk. */
	synchronize_rcu();
	t = rcu_dereference_protected(h->tbl, true);
	for (b = 0; b < 1U << t->shift; b++) {
		for (o = rcu_dereference_protected(t->buckets[b], true); o; o = next) {
			next = rcu_dereference_protected(o->next[t->gen], true);
			pidx_hash_obj_free(o);
		}
		if (!(b % PIDX_HASH_WALK_CHUNK))
			cond_resched();
	}
	pidx_hash_tbl_free(t);
	/* Objects removed earlier free themselves from RCU callbacks into the cache. */
	rcu_barrier();
	pidx_hash_cache_put();
	pidx_mem_uncharge(pidx_hash_map_bytes(h));
	bitmap_free(h->full);
	kvfree(h->map);
	pidx_mem_uncharge(sizeof(*h));
	kfree(h);
}

/* The first free number in [@start, pid_max). */
static int pidx_hash_find_zero(struct pidx_hash *h, u32 start,
			       struct pidx_hash_seen *seen)
{
	unsigned long w = BIT_WORD(start), end, n, words = pidx_hash_map_words(h);

	if (start >= h->pid_max)
		return -ENOSPC;
	/* what is left of @start's own word */
	pidx_hash_visit(&h->map[w], sizeof(h->map[w]), &seen->map);
	end = min_t(unsigned long, (w + 1) * BITS_PER_LONG, h->pid_max);
	n = find_next_zero_bit(h->map, end, start);
	if (n < end)
		return n;
	/* then the first word that is not full, from the summary */
	n = find_next_zero_bit(h->full, words, w + 1);
	pidx_hash_visit_words(h->full, BIT_WORD(w + 1), BIT_WORD(n),
			      BITS_TO_LONGS(words), &seen->full);
	w = n;
	if (w >= words)
		return -ENOSPC;
	pidx_hash_visit(&h->map[w], sizeof(h->map[w]), &seen->map);
	if (WARN_ON_ONCE(h->map[w] == ~0UL))
		return -ENOSPC;
	/* the bits past pid_max in the last word are always clear */
	n = w * BITS_PER_LONG + ffz(h->map[w]);
	return n < h->pid_max ? n : -ENOSPC;
}

/* Kernel cyclic semantics: see pidx.h and idr_alloc_cyclic(). */
static int pidx_hash_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct pidx_hash *h = to_hash(idx);
	struct pidx_hash_seen seen = {};
	struct pidx_hash_obj *o;
	bool overloaded = false;
	unsigned long flags;
	u32 floor, start;
	int pid;

	/* the number it will get, unless taken: the node is a good guess */
	o = pidx_hash_obj_new(h, READ_ONCE(h->cursor), gfp);
	if (!o)
		return -ENOMEM;
	spin_lock_irqsave(&h->lock, flags);
	floor = pidx_alloc_floor(h->cursor);
	start = max(h->cursor, floor);
	pid = pidx_hash_find_zero(h, start, &seen);
	if (pid < 0 && start > floor)
		pid = pidx_hash_find_zero(h, floor, &seen);
	if (pid >= 0) {
		overloaded = pidx_hash_add_locked(h, o, pid, &seen);
		/* marked: read unlocked above, for the node guess */
		WRITE_ONCE(h->cursor, pid + 1);
	}
	spin_unlock_irqrestore(&h->lock, flags);
	if (pid < 0)
		pidx_hash_obj_free(o);
	pidx_hash_throttle(h, overloaded, gfp);
	return pid;
}

static int pidx_hash_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct pidx_hash *h = to_hash(idx);
	struct pidx_hash_seen seen = {};
	struct pidx_hash_obj *o;
	bool overloaded = false;
	unsigned long flags;
	int ret = 0;

	if (pid < 1 || pid >= h->pid_max)
		return -EINVAL;
	o = pidx_hash_obj_new(h, pid, gfp);
	if (!o)
		return -ENOMEM;
	spin_lock_irqsave(&h->lock, flags);
	pidx_hash_visit(&h->map[BIT_WORD(pid)], sizeof(*h->map), &seen.map);
	if (test_bit(pid, h->map))
		ret = -EEXIST;
	else
		overloaded = pidx_hash_add_locked(h, o, pid, &seen);
	spin_unlock_irqrestore(&h->lock, flags);
	if (ret)
		pidx_hash_obj_free(o);
	pidx_hash_throttle(h, overloaded, gfp);
	return ret;
}

/* Under rcu_read_lock(): see __pidx_hash_find() in pidx_hash.h. */
static struct pidx_hash_obj *pidx_hash_find(struct pidx_hash *h, u32 key,
					    bool *tbl_seen)
{
	return __pidx_hash_find(h, key, tbl_seen);
}

/* The value of an object whose key the caller has read: NULL if reserved. */
static __always_inline void *pidx_hash_value(struct pidx_hash_obj *o)
{
	pidx_visit_more(&o->value, sizeof(o->value));
	return READ_ONCE(o->value);
}

static void *pidx_hash_lookup(struct pidx_index *idx, u32 pid)
{
	struct pidx_hash_obj *o;
	bool seen = false;

	o = pidx_hash_find(to_hash(idx), pid, &seen);
	return o ? pidx_hash_value(o) : NULL;
}

/*
 * Any context, no lock: see "Values" at the top.  A caller that publishes a
 * number it does not own may store into an object its owner is unlinking,
 * which no lookup then finds and which is freed as any other.
 */
static int pidx_hash_publish(struct pidx_index *idx, u32 pid, void *value)
{
	struct pidx_hash *h = to_hash(idx);
	struct pidx_hash_obj *o;
	bool seen = false;
	int ret = 0;

	if (WARN_ON_ONCE(!value || ((unsigned long)value & 3)))
		return -EINVAL;
	if (pid >= h->pid_max)
		return -ENOENT;
	rcu_read_lock();
	o = pidx_hash_find(h, pid, &seen);
	if (!o) {
		ret = -ENOENT;
	} else {
		/* readers, and a resize, meanwhile meet the reservation */
		pidx_race_delay();
		pidx_visit_more(&o->value, sizeof(o->value));
		/* release: the caller's object is built before it is found */
		if (cmpxchg_release(&o->value, NULL, value))
			ret = -EEXIST;
	}
	rcu_read_unlock();
	return ret;
}

static int pidx_hash_remove(struct pidx_index *idx, u32 pid)
{
	struct pidx_hash *h = to_hash(idx);
	struct pidx_hash_seen seen = {};
	struct pidx_hash_obj *o = NULL;
	unsigned long flags;

	if (pid >= h->pid_max)
		return -ENOENT;
	spin_lock_irqsave(&h->lock, flags);
	pidx_hash_visit(&h->map[BIT_WORD(pid)], sizeof(*h->map), &seen.map);
	if (test_bit(pid, h->map))
		o = pidx_hash_del_locked(h, pid, &seen);
	spin_unlock_irqrestore(&h->lock, flags);
	if (!o)
		return -ENOENT;
	call_rcu(&o->rcu, pidx_hash_obj_free_rcu);
	return 0;
}

/*
 * The first set bit of the bitmap at or after @n, or pid_max.  Writers set
 * and clear bits under the lock while this reads without it, so each word
 * is read once, marked, here rather than by find_next_bit(), whose plain
 * reads KCSAN reports (in lib/, where the report filter of the suite once
 * left them out).  The bits past pid_max in the last word are clear.
 */
static unsigned long pidx_hash_next_set(struct pidx_hash *h, unsigned long n)
{
	unsigned long w = BIT_WORD(n), words = pidx_hash_map_words(h), val;

	if (n >= h->pid_max)
		return h->pid_max;
	val = READ_ONCE(h->map[w]) & (~0UL << (n % BITS_PER_LONG));
	while (!val) {
		if (++w >= words)
			return h->pid_max;
		val = READ_ONCE(h->map[w]);
	}
	return min_t(unsigned long, w * BITS_PER_LONG + __ffs(val), h->pid_max);
}

/*
 * The bitmap is read without the lock, as a hint only: every set bit found
 * is confirmed in the table before it is returned (see the top of the file),
 * and a reservation's bit is passed over as a removal's is.
 */
static int pidx_hash_find_ge(struct pidx_index *idx, u32 pid)
{
	struct pidx_hash *h = to_hash(idx);
	struct pidx_hash_seen seen = {};
	struct pidx_hash_obj *o;
	unsigned long n, from;

	for (n = pid; n < h->pid_max; n++) {
		from = n;
		n = pidx_hash_next_set(h, n);
		pidx_hash_visit_words(h->map, BIT_WORD(from), BIT_WORD(n),
				      pidx_hash_map_words(h), &seen.map);
		if (n >= h->pid_max)
			break;
		o = pidx_hash_find(h, n, &seen.tbl);
		if (o && pidx_hash_value(o))
			return n;
	}
	return -ENOENT;
}

static void pidx_hash_set_cursor(struct pidx_index *idx, u32 next)
{
	WRITE_ONCE(to_hash(idx)->cursor, next);
}

const struct pidx_ops pidx_hash_ops = {
	.name		= "hash",
	.desc		= "pidmap bitmap + resizable RCU hash table (Linux before 4.15)",
	.create		= pidx_hash_create,
	.destroy	= pidx_hash_destroy,
	.alloc		= pidx_hash_alloc,
	.insert		= pidx_hash_insert,
	.publish	= pidx_hash_publish,
	.lookup		= pidx_hash_lookup,
	.remove		= pidx_hash_remove,
	.find_ge	= pidx_hash_find_ge,
	.set_cursor	= pidx_hash_set_cursor,
	.verify		= pidx_hash_verify,
	.mem_bytes	= pidx_hash_mem_bytes,
	.describe	= pidx_hash_describe,
	.nodes		= pidx_hash_nodes,
};
