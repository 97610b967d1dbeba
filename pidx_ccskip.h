/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccskip's private header: the node layout, the index with its directory,
 * and the accessors both halves of ccskip use.  pidx_ccskip.c holds the
 * design and everything a storm runs (lookups, writers, create, destroy);
 * pidx_ccskip_verify.c holds the walks of the whole tree that only checks
 * and reports make (verify(), describe(), nodes()) and mem_bytes(), apart
 * so that neither file grows past what one can read through.
 */
#ifndef _PIDX_CCSKIP_H
#define _PIDX_CCSKIP_H

#include <linux/cache.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "pidx.h"

#define CCS_LEVELS_MAX		PIDX_SL_LEVELS_MAX
/* keys in one node: the node header keeps the count in 16 bits */
#define CCS_NR_MAX		U16_MAX
/* numbers per directory bucket: see struct ccs */
#define CCS_DIR_SHIFT		3

/*
 * A node is one kmalloc object:
 *
 *   inner:  [nr level scale hi][keys[nr]] pad [child[nr]][count[nr]] pad [tail]
 *   leaf:   [nr level scale hi][keys[nr]] pad [value[nr]] [tail]
 *
 * Readers touch the 12-byte header, the keys and one child pointer or, in a
 * leaf (level 0), one value.  value[i] is keys[i]'s: NULL while the key is
 * only reserved (and always for the sentinel), else what publish() stored.
 * The tail lies behind everything a reader reads: its rcu_head is written
 * while readers may still walk the node, and it records how far back the
 * node starts, so the RCU callback needs nothing else.
 */
struct ccs_node {
	u16 nr;
	u8 level;
	u8 unused;
	/*
	 * (nr - 1) / (keys[nr - 1] - keys[0]) in 1.31 fixed point, set by
	 * ccs_node_seal() before the node is published: the slope of
	 * ccs_rank()'s interpolated first probe.  0 (nr == 1, or a node not
	 * sealed) only costs the search its shortcut.
	 */
	u32 scale;
	/*
	 * The node's key range is [keys[0], hi).  A range changes only by a
	 * split or a merge, and both replace the node, so hi is fixed for
	 * the node's life: a reader that reaches a leaf from the directory
	 * learns from it alone whether its key falls in that leaf.
	 */
	u32 hi;
	u32 keys[];
};

struct ccs_tail {
	u32 back;		/* bytes from the node start to the tail */
	u32 bytes;		/* what the node was charged */
	struct rcu_head rcu;
};

struct ccs {
	/* what readers load, away from the line writers dirty */
	struct ccs_node __rcu *root;
	/*
	 * dir[b] is the leaf whose range holds the number b << CCS_DIR_SHIFT
	 * if that leaf holds keys of bucket b, else NULL; dir[dir_nr] is
	 * always NULL.  A lookup reads its leaf from here (or from the next
	 * bucket, past a leaf boundary inside its own) and skips the levels
	 * above it, as idr's slots are reached by the PID's bits; only a key
	 * in neither leaf's range descends from the root.  Writers store the
	 * new leaves here after publishing them in the tree, and before
	 * retiring the old ones, so a reader holds either, each a whole
	 * version.
	 */
	struct ccs_node __rcu **dir;
	u32 pid_max;
	u32 b;			/* a key grows a level with probability 1/b */
	u32 b_shift;		/* log2(b) */
	u32 max_level;		/* highest height a key may draw */
	int node;		/* NUMA setting, see pidx_mem_node() */
	u32 dir_nr;		/* buckets in dir */

	/* Serializes writers, like pidmap_lock; readers never take it. */
	spinlock_t lock ____cacheline_aligned_in_smp;
	u32 cursor;		/* next number to try, as idr_alloc_cyclic() */
	u32 nr;			/* keys present */
	u64 rand;		/* height generator, drawn under the lock */
	size_t bytes;		/* live nodes, read locklessly by mem_bytes() */
	u32 lvl_nodes[CCS_LEVELS_MAX];
	u32 lvl_keys[CCS_LEVELS_MAX];	/* sentinels included */
};

static inline struct ccs *to_ccs(struct pidx_index *idx)
{
	return (struct ccs *)idx;
}

static inline size_t ccs_dir_bytes(const struct ccs *c)
{
	return (size_t)(c->dir_nr + 1) * sizeof(*c->dir);
}

static inline size_t ccs_kids_off(u32 nr)
{
	return ALIGN(sizeof(struct ccs_node) + sizeof(u32) * nr, 8);
}

static inline size_t ccs_tail_off(u32 nr, u32 level)
{
	size_t off = ccs_kids_off(nr);

	if (level)
		off += ALIGN((sizeof(void *) + sizeof(u32)) * nr, 8);
	else
		off += sizeof(void *) * nr;
	return off;
}

static __always_inline struct ccs_node __rcu **ccs_kids(struct ccs_node *n,
							u32 nr)
{
	return (struct ccs_node __rcu **)((char *)n + ccs_kids_off(nr));
}

/* A leaf's values, where an inner node keeps its children. */
static __always_inline void **ccs_vals(struct ccs_node *n, u32 nr)
{
	return (void **)((char *)n + ccs_kids_off(nr));
}

static inline u32 *ccs_counts(struct ccs_node *n)
{
	return (u32 *)(ccs_kids(n, n->nr) + n->nr);
}

static inline struct ccs_tail *ccs_tail(struct ccs_node *n)
{
	return (struct ccs_tail *)((char *)n + ccs_tail_off(n->nr, n->level));
}

static inline struct ccs_node *ccs_wroot(struct ccs *c)
{
	return rcu_dereference_protected(c->root, lockdep_is_held(&c->lock));
}

/* For verify(), nodes() and destroy(): no writer runs, by contract. */
static inline struct ccs_node *ccs_qkid(struct ccs_node *n, u32 i)
{
	return rcu_dereference_protected(ccs_kids(n, n->nr)[i], true);
}

static inline struct ccs_node *ccs_qroot(struct ccs *c)
{
	return rcu_dereference_protected(c->root, true);
}

/* The interpolation slope of @n's keys; see struct ccs_node. */
static inline u32 ccs_scale(const struct ccs_node *n)
{
	u32 span;

	if (n->nr < 2)
		return 0;
	span = n->keys[n->nr - 1] - n->keys[0];
	/* keys ascend: span >= nr - 1, so the slope is at most 1.0 = 2^31 */
	return div_u64((u64)(n->nr - 1) << 31, span);
}

/* pidx_ccskip_verify.c */
unsigned int pidx_ccs_verify(struct pidx_index *idx);
size_t pidx_ccs_mem_bytes(struct pidx_index *idx);
void pidx_ccs_describe(struct pidx_index *idx, char *buf, size_t len);
void pidx_ccs_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX]);

#endif /* _PIDX_CCSKIP_H */
