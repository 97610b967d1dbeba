/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lazyskip's private header: the node and its word, the index, and the
 * accessors both halves of lazyskip use.  pidx_lazyskip.c holds the design
 * and everything a storm runs (lookups, writers, create, destroy);
 * pidx_lazyskip_verify.c holds what only checks and reports run (verify(),
 * mem_bytes(), describe(), nodes()), apart so that neither file grows past
 * what one can read through.
 */
#ifndef _PIDX_LAZYSKIP_H
#define _PIDX_LAZYSKIP_H

#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "pidx.h"
#include "pidx_pidmap.h"

#define LZ_MAX_LEVEL		PIDX_SL_LEVELS_MAX
#define LZ_NR_CLASSES		4
#define LZ_CLASS_SIZE(cls)	(32U << (cls))

/*
 * Bits of a node's word.  Once the node is published, the lock bit is taken
 * with an atomic bitop; its holder alone changes bits 0-1, with atomic
 * bitops too (lz_unlock()); the rest never changes after that.  On 64-bit
 * the key is in the high half, so one line read gives a reader key and flags.
 */
#define LZ_LOCK			0
#define LZ_MARKED		1
#define LZ_HEIGHT_SHIFT		8
#define LZ_CLS_SHIFT		16

struct lz_node {
	unsigned long word;
#if BITS_PER_LONG == 32
	u32 key;
#endif
	/*
	 * NULL while reserved, then the published value, set once with
	 * cmpxchg_release() and read with READ_ONCE(): the caller reads the
	 * object through it, so the address dependency orders that read.
	 */
	void *value;
	struct lz_node __rcu *next[];
};

/* What a reader reads to learn the key and flags: the word (and key). */
#define LZ_WORD_BYTES		offsetof(struct lz_node, value)

/* Per-CPU: the level generator and counters, so writers share no line. */
struct lz_pcpu {
	u64 rand;
	long nr;
	long bytes;
	unsigned long retries;	/* validations that failed */
	long hist[LZ_MAX_LEVEL + 1];
};

struct lz {
	/* read by everyone, written only by create */
	struct lz_node *head;
	struct lz_pcpu __percpu *pcpu;
	u32 pid_max;
	u32 max_level;
	u32 p;
	u32 p_shift;
	int node;
	size_t fixed_bytes;	/* head, bitmaps, per-CPU data, this struct */
	u8 cls[LZ_MAX_LEVEL + 1];	/* per height: slab size class */

	/* written by writers, each on its own line */
	u32 top ____cacheline_aligned_in_smp;	/* tallest tower linked, a hint */
	/* claimed numbers and the cursor, on lines of their own */
	struct pidx_pidmap pm;
};

static inline struct lz *to_lz(struct pidx_index *idx)
{
	return (struct lz *)idx;
}

#if BITS_PER_LONG == 64
static __always_inline u32 lz_key(const struct lz_node *n)
{
	return READ_ONCE(n->word) >> 32;
}

static inline void lz_set_word(struct lz_node *n, u32 key, unsigned long low)
{
	n->word = (unsigned long)key << 32 | low;
}
#else
static __always_inline u32 lz_key(const struct lz_node *n)
{
	return n->key;
}

static inline void lz_set_word(struct lz_node *n, u32 key, unsigned long low)
{
	n->key = key;
	n->word = low;
}
#endif

static inline unsigned int lz_height(const struct lz_node *n)
{
	return (READ_ONCE(n->word) >> LZ_HEIGHT_SHIFT) & 0xff;
}

static inline unsigned int lz_cls(const struct lz_node *n)
{
	return (READ_ONCE(n->word) >> LZ_CLS_SHIFT) & 0xff;
}

static inline void *lz_obj(struct lz_node *n)
{
	return (struct rcu_head *)n - 1;
}

/* pidx_lazyskip_verify.c */
unsigned int pidx_lz_verify(struct pidx_index *idx);
size_t pidx_lz_mem_bytes(struct pidx_index *idx);
void pidx_lz_describe(struct pidx_index *idx, char *buf, size_t len);
void pidx_lz_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX]);

#endif /* _PIDX_LAZYSKIP_H */
