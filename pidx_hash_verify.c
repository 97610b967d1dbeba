// SPDX-License-Identifier: GPL-2.0
/*
 * hash's walks of the whole table and bitmap: verify(), mem_bytes(),
 * describe() and nodes().  No storm runs them, so they live apart from the
 * lookups and writers of pidx_hash.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": hash: " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "pidx.h"
#include "pidx_hash.h"

#define pidx_hash_bad(bad, ...)	pidx_verify_bad(bad, "hash", __VA_ARGS__)

/*
 * Every object is in the bucket its key hashes to, with its bit set; the
 * objects are as many as the set bits and as the count, and every set bit's
 * PID is found by a lookup: together, bits and objects match one to one.
 * Writers are quiesced by contract and the resize worker is waited for, so
 * the table is walked without the lock.
 */
unsigned int pidx_hash_verify(struct pidx_index *idx)
{
	struct pidx_hash *h = to_hash(idx);
	unsigned long weight, walked = 0, n;
	struct pidx_hash_obj *o;
	struct pidx_hash_tbl *t;
	unsigned int bad = 0;
	bool seen = false;
	u32 b;

	flush_work(&h->resize_work);
	t = rcu_dereference_protected(h->tbl, true);
	if (t->shift < PIDX_HASH_MIN_SHIFT || t->shift > h->max_shift || t->gen > 1) {
		pidx_hash_bad(&bad, "table shift %u (range %u..%u), generation %u",
			      t->shift, PIDX_HASH_MIN_SHIFT, h->max_shift, t->gen);
		return bad;
	}
	if (h->new_tbl)
		pidx_hash_bad(&bad, "a resize left unfinished at bucket %u",
			      h->copied);
	for (b = 0; b < 1U << t->shift; b++) {
		for (o = rcu_dereference_protected(t->buckets[b], true); o;
		     o = rcu_dereference_protected(o->next[t->gen], true)) {
			/* a cycle would never end: stop once past the count */
			if (++walked > h->nr) {
				pidx_hash_bad(&bad, "more than %u objects in the table",
					      h->nr);
				goto walked;
			}
			if (o->key < 1 || o->key >= h->pid_max)
				pidx_hash_bad(&bad, "key %u outside [1, %u)",
					      o->key, h->pid_max);
			else if (!test_bit(o->key, h->map))
				pidx_hash_bad(&bad, "key %u in the table, bit clear",
					      o->key);
			if (pidx_hash_bucket(t, o->key) != b)
				pidx_hash_bad(&bad, "key %u in bucket %u, hashes to %u",
					      o->key, b, pidx_hash_bucket(t, o->key));
			/* NULL is a reservation, which a caller may verify between */
			if ((unsigned long)o->value & 3)
				pidx_hash_bad(&bad, "key %u: value's low bits %lu, not 4-aligned",
					      o->key, (unsigned long)o->value & 3);
		}
		if (!(b % PIDX_HASH_WALK_CHUNK))
			cond_resched();
	}
	if (walked != h->nr)
		pidx_hash_bad(&bad, "%lu objects in the table, count %u",
			      walked, h->nr);
walked:
	weight = bitmap_weight(h->map, h->pid_max);
	if (weight != h->nr)
		pidx_hash_bad(&bad, "%lu bits set, count %u", weight, h->nr);
	if (test_bit(0, h->map))
		pidx_hash_bad(&bad, "bit 0 set");
	for (n = 0; n < pidx_hash_map_words(h); n++)
		if (test_bit(n, h->full) != (h->map[n] == ~0UL))
			pidx_hash_bad(&bad, "summary bit %lu is %d, map word %#lx",
				      n, test_bit(n, h->full), h->map[n]);
	walked = 0;
	for_each_set_bit(n, h->map, h->pid_max) {
		rcu_read_lock();
		o = __pidx_hash_find(h, n, &seen);
		rcu_read_unlock();
		/* compared, not read: no dereference after the unlock */
		if (!o)
			pidx_hash_bad(&bad, "bit %lu set, no object found", n);
		if (!(++walked % PIDX_HASH_WALK_CHUNK))
			cond_resched();
	}
	if (h->cursor > h->pid_max)
		pidx_hash_bad(&bad, "cursor %u past pid_max %u", h->cursor,
			      h->pid_max);
	return bad;
}

/*
 * Counted: the index itself, the whole bitmap and summary, the objects in the table and
 * the bucket arrays (with their headers) of the table and of one being
 * filled.  Not counted: objects removed and waiting out a grace period
 * (pidx_mem still holds them until their callback runs) and slab overhead.
 * A resize the worker has queued is let finish first (process context), so
 * that the figure is what the index settles at for what it holds, not how
 * far the worker happened to get.
 */
size_t pidx_hash_mem_bytes(struct pidx_index *idx)
{
	struct pidx_hash *h = to_hash(idx);
	unsigned long flags;
	size_t bytes;

	might_sleep();
	flush_work(&h->resize_work);
	spin_lock_irqsave(&h->lock, flags);
	bytes = sizeof(*h) + pidx_hash_map_bytes(h) +
		(size_t)h->nr * sizeof(struct pidx_hash_obj) +
		pidx_hash_tbl_bytes(pidx_hash_wtbl(h)->shift);
	if (h->new_tbl)
		bytes += pidx_hash_tbl_bytes(h->new_tbl->shift);
	spin_unlock_irqrestore(&h->lock, flags);
	return bytes;
}

/*
 * Chain statistics from one walk of the buckets, a chunk per RCU read-side
 * section; a table switched meanwhile (a writer ran) ends the walk early and
 * the figures cover the buckets walked.
 */
void pidx_hash_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct pidx_hash *h = to_hash(idx);
	u32 b, size, chain, chain_max = 0, nr, resizes, load_peak;
	u64 elems = 0, probes = 0, load, mean;
	struct pidx_hash_tbl *t, *first;
	struct pidx_hash_obj *o;
	unsigned long flags;

	might_sleep();
	flush_work(&h->resize_work);
	spin_lock_irqsave(&h->lock, flags);
	nr = h->nr;
	resizes = h->resizes;
	load_peak = h->load_peak;
	spin_unlock_irqrestore(&h->lock, flags);

	rcu_read_lock();
	first = rcu_dereference(h->tbl);
	size = 1U << first->shift;
	for (b = 0; b < size; b++) {
		if (b && !(b % PIDX_HASH_WALK_CHUNK)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
		t = rcu_dereference(h->tbl);
		if (t != first)
			break;
		chain = 0;
		for (o = rcu_dereference(t->buckets[b]); o;
		     o = rcu_dereference(o->next[t->gen]))
			probes += ++chain;
		elems += chain;
		chain_max = max(chain_max, chain);
	}
	rcu_read_unlock();

	load = div_u64((u64)nr * 1000, size);
	mean = elems ? div64_u64(probes * 1000, elems) : 0;
	scnprintf(buf, len,
		  "buckets=%u;elems=%u;load=%llu.%03llu;probes=%llu.%03llu;chain_max=%u;resizes=%u;load_peak=%u;bitmap_bytes=%zu;obj_bytes=%zu",
		  size, nr, load / 1000, load % 1000, mean / 1000, mean % 1000,
		  chain_max, resizes, load_peak, pidx_hash_map_bytes(h),
		  sizeof(struct pidx_hash_obj));
}

/*
 * The objects in the table, the bucket array (by its first page) and the
 * two bitmaps.  No writer runs and the resize worker is waited for, so the
 * table is walked without the lock, as verify() does.
 */
void pidx_hash_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	struct pidx_hash *h = to_hash(idx);
	struct pidx_hash_obj *o;
	struct pidx_hash_tbl *t;
	u32 b;

	might_sleep();
	flush_work(&h->resize_work);
	t = rcu_dereference_protected(h->tbl, true);
	pidx_count_node(t, count);
	pidx_count_node(h->map, count);
	pidx_count_node(h->full, count);
	for (b = 0; b < 1U << t->shift; b++) {
		for (o = rcu_dereference_protected(t->buckets[b], true); o;
		     o = rcu_dereference_protected(o->next[t->gen], true))
			pidx_count_node(o, count);
		if (!(b % PIDX_HASH_WALK_CHUNK))
			cond_resched();
	}
}
