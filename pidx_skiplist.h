/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Skip list internals shared by the "skiplist" and "rbskip" indexes.
 *
 * A node is one slab object.  Its header pointer points at the key, the
 * forward pointers follow it, and everything that lockless readers never
 * touch lies in front of it:
 *
 *   [extra][pre: spans of levels 1..h-1 / rcu_head][key height cls lead][next[0..h-1]]
 *          ^ object + lead - pre                    ^ node (8 bytes)    ^ 8 bytes each
 *
 * - The span of level i (number of level-0 steps its link covers) is the u32
 *   at ((u32 *)node)[-i]; level 0 always spans 1 and is not stored.  Spans are
 *   read and written only by writers under the lock.
 * - Once a node is unlinked its spans are dead, so its rcu_head overlays them
 *   (the 16 bytes right before the header); "pre" is max(16, 4 * (h - 1))
 *   rounded to 8.  The RCU callback finds the header right behind the
 *   rcu_head and the object start via "lead", so it needs no index pointer.
 * - "extra" is index-private data in front of tall nodes (rbskip keeps its
 *   two latch-tree links and a copy of the key there).
 *
 * Objects come from power-of-two slab caches (32/64/128/256 bytes) aligned to
 * their size, so an object never straddles more cache lines than it must.
 * Plain skip list nodes (extra = 0), bytes needed -> object size:
 *
 *   height      1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16
 *   needed     32  40  48  56  64  80  88 104 112 128 136 152 160 176 184 200
 *   object     32  64  64  64  64 128 128 128 128 128 256 256 256 256 256 256
 *
 * "needed" for h >= 6 is pre (4 * (h - 1) rounded to 8) + 8 + 8 * h.  A 32-byte
 * object is half a cache line; up to height 5 the whole node, and with it
 * everything a reader touches (key and next[]), is one cache line.  With
 * p = 1/4, 75% of nodes take 32 bytes and 23% take 64: about 40 bytes/node.
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
/* Slab size classes: 32 << cls bytes for cls in [0, PIDX_SL_NR_CLASSES). */
#define PIDX_SL_NR_CLASSES	4
#define PIDX_SL_CLASS_SIZE(cls)	(32U << (cls))
/* Largest "extra" an index may put in front of its tall nodes. */
#define PIDX_SL_EXTRA_MAX	56

struct pidx_sl_node {
	u32 key;
	u8 height;		/* levels this node is linked on, 1..max_level */
	u8 cls;			/* slab size class of the object */
	u8 lead;		/* bytes from the object start to this header */
	u8 unused;
	struct pidx_sl_node __rcu *next[];
};

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

/* Level i > 0 span lives just in front of the header, level 1 closest. */
static inline u32 *pidx_sl_spanp(struct pidx_sl_node *n, unsigned int lvl)
{
	return (u32 *)n - lvl;
}

static inline struct rcu_head *pidx_sl_rcu_head(struct pidx_sl_node *n)
{
	return (struct rcu_head *)n - 1;
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
	pidx_visit_node(n, sizeof(*n));
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
	pidx_visit_node(x, sizeof(*x));
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
