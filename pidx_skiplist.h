/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Skip list internals shared by the "skiplist" and "rbskip" indexes.
 *
 * A node is one slab object.  Its header holds the key and the value, the
 * forward pointers follow it, and what lockless readers never touch lies
 * behind them:
 *
 *   [extra][key height cls lead value][next[0..h-1]][spans 1..h-1 / rcu_head]
 *   ^ object start                    ^ 8 bytes each ^ 4 bytes each
 *          ^ node (16 bytes)
 *
 * - The value word is NULL while the key is only reserved, then the
 *   published value (pidx.h), stored once with a release and never cleared:
 *   a node is never copied, so the word a reader finds is the only one its
 *   key has.  It sits beside the key a lookup compares last, in the same
 *   16 bytes, so reading it costs no line the search did not read.
 * - The span of level i (number of level-0 steps its link covers) is the u32
 *   right after next[h - 1], level 1 first; level 0 always spans 1 and is
 *   not stored.  Spans are read and written only by writers under the lock.
 * - Once a node is unlinked its spans are dead, so its rcu_head overlays
 *   them; that area is max(16, 4 * (h - 1)) bytes rounded to 8.  Readers
 *   standing on the unlinked node still read key, value and next[], which
 *   lie in front of it.  The RCU callback, one per size class, finds the
 *   object start by rounding the rcu_head's address down to the class size
 *   (the caches align objects to their size), so it needs no index pointer.
 * - "extra" is index-private data in front of tall nodes (rbskip keeps its
 *   two latch-tree links there, so that they and the header share a line).
 *
 * Objects come from power-of-two slab caches (64/128/256 bytes) aligned to
 * their size, so an object never straddles more cache lines than it must and
 * a node without extra has its header at the start of a line.  Plain skip
 * list nodes (extra = 0), bytes needed -> object size:
 *
 *   height      1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16
 *   needed     40  48  56  64  72  88  96 112 120 136 144 160 168 184 192 208
 *   object     64  64  64  64 128 128 128 128 128 256 256 256 256 256 256 256
 *
 * "needed" is 16 + 8 * h + max(16, 4 * (h - 1)) rounded to 8.  Up to height
 * 6 everything a reader reads from a node (key, value, next[]) is one cache
 * line.  Before the value word (an 8-byte header, spans and rcu_head in
 * front of it) the objects were 32 bytes at height 1, 64 at 2-5, 128 at
 * 6-10 and 256 at 11-16: with p = 1/4, 3/4 of the nodes at 32 bytes and
 * nearly all the rest at 64, about 40 bytes per key.  Now 1 - 4^-4 of the
 * nodes take 64 bytes and 4^-4 - 4^-9 take 128: 0.9961 * 64 + 0.0039 * 128
 * = 64.25 bytes per key, 24 more.  A height-1 node needs 16 (header) + 8
 * (next[0]) + 16 (rcu_head, which must not overlay anything a reader may
 * still read) = 40 bytes, past the 32-byte class: the value word costs its
 * own 8 bytes and, through the class, 24 more on 3 nodes in 4.
 */
#ifndef _PIDX_SKIPLIST_H
#define _PIDX_SKIPLIST_H

#include <linux/cache.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>

#include "pidx.h"

/*
 * Highest tower.  4^16 exceeds PIDX_PID_MAX_LIMIT; with sl_p = 2 and pid_max
 * above 2^16 the cap leaves pid_max / 2^16 nodes (64 at 4M) on the top level.
 */
#define PIDX_SL_MAX_LEVEL	16
/* Slab size classes: 64 << cls bytes for cls in [0, PIDX_SL_NR_CLASSES). */
#define PIDX_SL_NR_CLASSES	3
#define PIDX_SL_CLASS_SIZE(cls)	(64U << (cls))
/* Largest "extra" an index may put in front of its tall nodes. */
#define PIDX_SL_EXTRA_MAX	48

struct pidx_sl_node {
	u32 key;
	u8 height;		/* levels this node is linked on, 1..max_level */
	u8 cls;			/* slab size class of the object */
	u8 lead;		/* bytes from the object start to this header */
	u8 unused;
	/* NULL: reserved; else the published value, see the layout above */
	void *value;
	struct pidx_sl_node __rcu *next[];
};

/* What a key compare reads of a header: everything in front of the value. */
#define PIDX_SL_KEY_BYTES	offsetof(struct pidx_sl_node, value)

/* Where a writer stands on every level: the last node before the key. */
struct pidx_sl_path {
	struct pidx_sl_node *pred[PIDX_SL_MAX_LEVEL];
	u32 pos[PIDX_SL_MAX_LEVEL];	/* level-0 position of pred, head = 0 */
};

struct pidx_sl {
	/* What lockless readers load: kept off the cache line writers dirty. */
	struct pidx_sl_node *head;
	u32 top;		/* levels in use (>= 1); a hint, READ_ONCE() */
	u32 pid_max;
	u32 max_level;
	u32 p;			/* a tower grows with probability 1/p */
	u32 p_shift;		/* log2(p) */
	u32 extra;		/* bytes of index data in front of tall nodes */
	u32 extra_from;		/* towers this tall carry @extra */
	int node;		/* NUMA placement setting (pidx.h) */
	const char *name;	/* for messages */
	u64 __percpu *rand;	/* level generator state, one per CPU */
	u8 lead[PIDX_SL_MAX_LEVEL + 1];	/* per height: object start to header */
	u8 cls[PIDX_SL_MAX_LEVEL + 1];	/* per height: slab size class */

	/* Serializes writers, like pidmap_lock; readers never take it. */
	spinlock_t lock ____cacheline_aligned_in_smp;
	u32 cursor;		/* next number to try, as idr_alloc_cyclic() */
	u32 nr;			/* nodes, head excluded */
	size_t bytes;		/* live nodes and head */
	u32 hist[PIDX_SL_MAX_LEVEL + 1];	/* live nodes per tower height */
};

/* Level i > 0 span lives behind the forward pointers, level 1 first. */
static inline u32 *pidx_sl_spanp(struct pidx_sl_node *n, unsigned int lvl)
{
	return (u32 *)&n->next[n->height] + lvl - 1;
}

static inline struct rcu_head *pidx_sl_rcu_head(struct pidx_sl_node *n)
{
	return (struct rcu_head *)&n->next[n->height];
}

/* Start of the index-private area in front of a tall node. */
static inline void *pidx_sl_extra(struct pidx_sl_node *n)
{
	return (char *)n - n->lead;
}

/*
 * The first node with key >= @key, searching from @x (key < @key, or the
 * head) down from level @lvl; NULL if there is none.  Caller holds
 * rcu_read_lock().  Stops early on an exact match.  A node unlinked while we
 * stand on it keeps its forward pointers, so the walk continues from it to
 * nodes that were its successors then, none of them before a key that was
 * present the whole time.  @stop, the node that ended the level above, is
 * known to be past @key (keys never change), so meeting it again on the
 * level below needs no look at its key.
 */
/* Under trace_visits a node counts as visited when its key is read. */
static __always_inline u32 pidx_sl_key(struct pidx_sl_node *n)
{
	pidx_visit_node(n, PIDX_SL_KEY_BYTES);
	return n->key;
}

static __always_inline struct pidx_sl_node *
pidx_sl_next(struct pidx_sl_node *x, int lvl)
{
	pidx_visit_more(&x->next[lvl], sizeof(x->next[lvl]));
	return rcu_dereference(x->next[lvl]);
}

static inline struct pidx_sl_node *
pidx_sl_first_ge(struct pidx_sl_node *x, int lvl, u32 key)
{
	struct pidx_sl_node *y = NULL, *stop = NULL;

	/* the start (the head, or a node already read) counts as one visit */
	pidx_visit_node(x, PIDX_SL_KEY_BYTES);
	for (; lvl >= 0; lvl--) {
		y = pidx_sl_next(x, lvl);
		while (y && y != stop && pidx_sl_key(y) < key) {
			x = y;
			y = pidx_sl_next(x, lvl);
		}
		if (y && y != stop && y->key == key)
			break;
		stop = y;
	}
	return y;
}

static inline struct pidx_sl_node *pidx_sl_lookup(struct pidx_sl *sl, u32 key)
{
	return pidx_sl_first_ge(sl->head, READ_ONCE(sl->top) - 1, key);
}

/*
 * The value of @n, a node whose key a reader just compared: NULL while the
 * key is only reserved.  READ_ONCE() orders the caller's reads through the
 * value after the publisher's stores to its object, as rcu_dereference()
 * would (the publisher stores it with release).
 */
static __always_inline void *pidx_sl_value(struct pidx_sl_node *n)
{
	pidx_visit_more(&n->value, sizeof(n->value));
	return READ_ONCE(n->value);
}

/*
 * @n, or the first node after it on level 0 whose key is published; NULL
 * if there is none.  A node that is unlinked while the walk stands on it
 * leads on to what were its successors, as in pidx_sl_first_ge().
 */
static inline struct pidx_sl_node *pidx_sl_published(struct pidx_sl_node *n)
{
	while (n && !pidx_sl_value(n)) {
		n = pidx_sl_next(n, 0);
		if (n)
			pidx_visit_node(n, PIDX_SL_KEY_BYTES);
	}
	return n;
}

/*
 * Store @value in the reservation @n: 0, or -EEXIST if a value is there
 * already, which stays.  Nodes are never copied or replaced, so the store
 * needs no lock: a node that its key's owner holds stays linked, and one
 * that a buggy caller's concurrent remove() unlinks takes the value with
 * it, as if the publish came first.
 */
static inline int pidx_sl_publish_node(struct pidx_sl_node *n, void *value)
{
	/* the window between finding the reservation and filling it */
	pidx_race_delay();
	/* release: a reader that finds @value sees the object it points to built */
	return cmpxchg_release(&n->value, NULL, value) ? -EEXIST : 0;
}

unsigned int pidx_sl_max_level(const struct pidx_params *p);
int pidx_sl_init(struct pidx_sl *sl, const char *name,
		 const struct pidx_params *p, u32 extra, u32 extra_from);
void pidx_sl_destroy(struct pidx_sl *sl);

struct pidx_sl_node *pidx_sl_node_new(struct pidx_sl *sl, gfp_t gfp);
void pidx_sl_node_discard(struct pidx_sl_node *n);
void pidx_sl_node_retire(struct pidx_sl_node *n);

int pidx_sl_alloc_locked(struct pidx_sl *sl, struct pidx_sl_node *n);
int pidx_sl_insert_locked(struct pidx_sl *sl, struct pidx_sl_node *n, u32 key);
struct pidx_sl_node *pidx_sl_unlink_locked(struct pidx_sl *sl, u32 key);

unsigned int pidx_sl_verify(struct pidx_sl *sl);
void pidx_sl_nodes(struct pidx_sl *sl, u64 count[PIDX_NODES_MAX]);
/* Count a verify() violation in *@bad and report the first few. */
#define pidx_sl_bad(sl, bad, ...)	pidx_verify_bad(bad, (sl)->name, __VA_ARGS__)
void pidx_sl_describe(struct pidx_sl *sl, const char *more, char *buf,
		      size_t len);

#endif /* _PIDX_SKIPLIST_H */
