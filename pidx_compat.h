/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What newer kernels have and v5.10, the oldest series pidx builds for, lacks.
 * Kbuild defines PIDX_NO_* where the running kernel's headers do not declare
 * the helper (a version test would miss distribution backports).
 */
#ifndef PIDX_COMPAT_H
#define PIDX_COMPAT_H

#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/slab.h>

#ifdef PIDX_NO_IN_HARDIRQ
/* v5.11's name for in_irq() */
#define in_hardirq()	in_irq()
#endif

#ifdef PIDX_NO_BITMAP_ZALLOC_NODE
/* v5.18's helper: freed with bitmap_free(), which is kfree() */
static inline unsigned long *bitmap_zalloc_node(unsigned int nbits, gfp_t flags,
						int node)
{
	return kmalloc_array_node(BITS_TO_LONGS(nbits), sizeof(unsigned long),
				  flags | __GFP_ZERO, node);
}
#endif

#ifdef PIDX_NO_KMALLOC_SIZE_ROUNDUP
/*
 * v6.1's helper: the size kmalloc() really gives for @size, the object size
 * of its kmalloc cache (96 and 192 are the two caches between powers of two),
 * or whole pages above the largest cache.
 */
static inline size_t kmalloc_size_roundup(size_t size)
{
	unsigned int i;

	if (size > KMALLOC_MAX_CACHE_SIZE)
		return PAGE_SIZE << get_order(size);
	i = kmalloc_index(size);
	if (i == 1)
		return 96;
	if (i == 2)
		return 192;
	return (size_t)1 << i;
}
#endif

#endif /* PIDX_COMPAT_H */
