/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hash's private header: the object, the bucket array and the index, and
 * the helpers both halves of hash use.  pidx_hash.c holds the design and
 * everything a storm runs (lookups, writers, the resize worker, create,
 * destroy); pidx_hash_verify.c holds what only checks and reports run
 * (verify(), mem_bytes(), describe(), nodes()), apart so that neither file
 * grows past what one can read through.
 */
#ifndef _PIDX_HASH_H
#define _PIDX_HASH_H

#include <linux/bitops.h>
#include <linux/cache.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "pidx.h"

/* 64 buckets, 512 bytes: the size of an empty index, and the smallest. */
#define PIDX_HASH_MIN_SHIFT	6
/* Buckets walked by describe() per RCU read-side section. */
#define PIDX_HASH_WALK_CHUNK	4096

struct pidx_hash_obj {
	u32 key;
	/*
	 * NULL while reserved; set once by publish() with cmpxchg_release()
	 * and read with READ_ONCE(), whose address dependency orders the
	 * caller's reads through it.  Next to the key: a hit reads both on
	 * one line.
	 */
	void *value;
	/* next[g]: the chain of the table of generation g */
	struct pidx_hash_obj __rcu *next[2];
	struct rcu_head rcu;
};

struct pidx_hash_tbl {
	u32 shift;		/* 1 << shift buckets */
	u32 gen;		/* which next[] link its chains use */
	struct pidx_hash_obj __rcu *buckets[];
};

struct pidx_hash {
	/* Read by every lookup and find_ge: kept off the writers' line. */
	struct pidx_hash_tbl __rcu *tbl;
	unsigned long *map;	/* bit n: PID n is reserved or present */
	u32 pid_max;
	u32 max_shift;
	int node;		/* pidx_params.node */

	spinlock_t lock ____cacheline_aligned_in_smp;
	unsigned long *full;	/* bit w: map word w is all ones; writers only */
	u32 cursor;
	u32 nr;
	/* The table a resize is filling, and its old buckets done so far. */
	struct pidx_hash_tbl *new_tbl;
	u32 copied;
	bool resize_queued;
	u32 resizes;
	u32 load_peak;		/* highest nr >> shift seen by a writer */
	struct work_struct resize_work;
};

static inline struct pidx_hash *to_hash(struct pidx_index *idx)
{
	return (struct pidx_hash *)idx;
}

/* A bucket array: its header (shift, gen), then the slot of @b. */
static __always_inline void pidx_hash_visit_slot(struct pidx_hash_tbl *t, u32 b,
						 bool *seen)
{
	if (pidx_visits_enabled()) {
		__pidx_visit(t, offsetof(struct pidx_hash_tbl, buckets), !*seen);
		__pidx_visit(&t->buckets[b], sizeof(t->buckets[b]), false);
		*seen = true;
	}
}

static inline u32 pidx_hash_map_words(const struct pidx_hash *h)
{
	return BITS_TO_LONGS(h->pid_max);
}

/* The bitmap and its summary. */
static inline size_t pidx_hash_map_bytes(const struct pidx_hash *h)
{
	return (pidx_hash_map_words(h) +
		BITS_TO_LONGS(pidx_hash_map_words(h))) * sizeof(unsigned long);
}

static inline size_t pidx_hash_tbl_bytes(u32 shift)
{
	struct pidx_hash_tbl *t;

	return struct_size(t, buckets, 1UL << shift);
}

static inline u32 pidx_hash_bucket(const struct pidx_hash_tbl *t, u32 key)
{
	return hash_32(key, t->shift);
}

static inline struct pidx_hash_tbl *pidx_hash_wtbl(struct pidx_hash *h)
{
	return rcu_dereference_protected(h->tbl, lockdep_is_held(&h->lock));
}

/*
 * Under rcu_read_lock(): @key's object, reserved or published, or NULL.
 * The body, for both files: the lookups of pidx_hash.c call it through
 * pidx_hash_find(), one out-of-line copy that they share.
 */
static __always_inline struct pidx_hash_obj *
__pidx_hash_find(struct pidx_hash *h, u32 key, bool *tbl_seen)
{
	struct pidx_hash_tbl *t = rcu_dereference(h->tbl);
	struct pidx_hash_obj *o;
	u32 gen = t->gen, b = pidx_hash_bucket(t, key);

	pidx_hash_visit_slot(t, b, tbl_seen);
	for (o = rcu_dereference(t->buckets[b]); o;
	     o = rcu_dereference(o->next[gen])) {
		pidx_visit_node(o, sizeof(o->key));
		if (o->key == key)
			return o;
		pidx_visit_more(&o->next[gen], sizeof(o->next[gen]));
	}
	return NULL;
}

/* pidx_hash_verify.c */
unsigned int pidx_hash_verify(struct pidx_index *idx);
size_t pidx_hash_mem_bytes(struct pidx_index *idx);
void pidx_hash_describe(struct pidx_index *idx, char *buf, size_t len);
void pidx_hash_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX]);

#endif /* _PIDX_HASH_H */
