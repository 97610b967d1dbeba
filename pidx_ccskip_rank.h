/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ccskip's search inside one node: the slot of a key among a node's sorted
 * keys, from an interpolated first probe.  Every reader and writer of
 * pidx_ccskip.c runs it on each node it passes, so it is inlined whole
 * into each; it has a header of its own so that the file of those readers
 * and writers stays one that can be read through.
 */
#ifndef _PIDX_CCSKIP_RANK_H
#define _PIDX_CCSKIP_RANK_H

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/types.h>

#include "pidx.h"
#include "pidx_ccskip.h"

/* __ccs_rank_full()'s fixed steps, 32 down to 1, cover 2^6 keys */
#define CCS_RANK_STEPS		6
/* __ccs_rank()'s window around the interpolated probe: steps 4, 2, 1 */
#define CCS_WINDOW		8
#define CCS_WINDOW_BACK		(CCS_WINDOW / 2)

static __always_inline u32 ccs_rank_step(const u32 *k, u32 base, u32 last,
					 u32 key, u32 half, bool traced)
{
	u32 i = min(base + half, last);

	if (traced)
		pidx_visit_more(&k[i], sizeof(u32));
	/* arithmetic, not ?: which the compiler may turn back into a branch */
	return base + ((i - base) & -(u32)(k[i] <= key));
}

/*
 * The last slot whose key is <= @key; keys[0] <= @key by the descent.
 *
 * Every step is a compare and a select, with a fixed count: a binary search
 * whose loop followed nr ended at a different trip in each node, and that
 * exit, with the select the compiler had made a branch, cost 3.9
 * mispredicts per lookup at 1M keys.  A probe past the last key is
 * clamped to it: reading keys[nr - 1] where a longer array would have more
 * keys gives the answer that padding with keys above @key would (base moves
 * to nr - 1 only when every key is <= @key).  A node larger than
 * 2^CCS_RANK_STEPS (1.6% at B = 16) first narrows to that size in a loop.
 */
static __always_inline u32 __ccs_rank_full(const struct ccs_node *n, u32 nr,
					   u32 key, bool traced)
{
	const u32 *k = n->keys;
	u32 last = nr - 1, base = 0, half;

	if (unlikely(nr > 1U << CCS_RANK_STEPS)) {
		for (half = 1U << CCS_RANK_STEPS; half < nr; half <<= 1)
			;
		while (half > 1U << CCS_RANK_STEPS) {
			half >>= 1;
			base = ccs_rank_step(k, base, last, key, half, traced);
		}
	}
	/* unrolled: a loop's exit is one more branch to predict */
	base = ccs_rank_step(k, base, last, key, 32, traced);
	base = ccs_rank_step(k, base, last, key, 16, traced);
	base = ccs_rank_step(k, base, last, key, 8, traced);
	base = ccs_rank_step(k, base, last, key, 4, traced);
	base = ccs_rank_step(k, base, last, key, 2, traced);
	return ccs_rank_step(k, base, last, key, 1, traced);
}

/* The slot of @key if @n's keys were evenly spread; see struct ccs_node. */
static __always_inline u32 ccs_guess(const struct ccs_node *n, u32 nr, u32 key)
{
	return min_t(u64, ((u64)(key - n->keys[0]) * n->scale) >> 31, nr - 1);
}

/*
 * __ccs_rank_full()'s answer, looked for first where it should be: PIDs
 * are dense, so a node's keys lie close to the line from its first key to
 * its last.  The probe is interpolated on it (ccs_guess()), and three
 * steps search the CCS_WINDOW slots from CCS_WINDOW_BACK before it.  Two
 * loads beside those steps, not after them, check that the answer lies in
 * the window (the key at its start is <= @key, the one past its end is
 * not).  In a leaf of consecutive PIDs the probe is exact; inner nodes hold
 * the keys of a random height, unevenly spaced, and left the window in
 * about one search in ten at 32K keys: only those search the node whole.
 * Against the whole search alone this is four dependent probes instead of
 * six, and natively 15-20% faster lookups at 1M keys.
 */
static __always_inline u32 __ccs_rank(const struct ccs_node *n, u32 nr,
				      u32 key, bool traced)
{
	const u32 *k = n->keys;
	u32 last = nr - 1, base, hi;
	bool in;

	base = ccs_guess(n, nr, key);
	base = base > CCS_WINDOW_BACK ? base - CCS_WINDOW_BACK : 0;
	hi = base + CCS_WINDOW;
	if (traced) {
		pidx_visit_more(&k[base], sizeof(u32));
		pidx_visit_more(&k[min(hi, last)], sizeof(u32));
	}
	/*
	 * One branch, on the answer only: "hi > last ||" as a branch of its
	 * own would follow the node's size, which varies from node to node.
	 */
	in = (k[base] <= key) & ((hi > last) | (k[min(hi, last)] > key));
	if (likely(in)) {
		base = ccs_rank_step(k, base, last, key, 4, traced);
		base = ccs_rank_step(k, base, last, key, 2, traced);
		return ccs_rank_step(k, base, last, key, 1, traced);
	}
	return __ccs_rank_full(n, nr, key, traced);
}

static __always_inline u32 ccs_rank(const struct ccs_node *n, u32 nr, u32 key)
{
	return __ccs_rank(n, nr, key, false);
}
#endif /* _PIDX_CCSKIP_RANK_H */
