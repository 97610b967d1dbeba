/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: what the slab (slub.c) takes from the page
 * allocator (page_alloc.c).  Finding an object's page is arithmetic on the
 * arena, inline here as the kernel's virt_to_page() is, because kfree() and
 * kmem_cache_free() find one on every call.
 */
#ifndef _KC_PAGE_ALLOC_H
#define _KC_PAGE_ALLOC_H
#include <linux/mm.h>

#define PG_slab		(1UL << 0)
#define PG_head		(1UL << 1)

/* the arena that stands for the direct map, and its struct pages */
extern char *kc_arena, *kc_arena_end;
extern struct page *kc_memmap;

static __always_inline struct page *kc_arena_page(const void *addr)
{
	return kc_memmap + (((const char *)addr - kc_arena) >> PAGE_SHIFT);
}

static __always_inline void *page_address(const struct page *page)
{
	return kc_arena + ((page - kc_memmap) << PAGE_SHIFT);
}

/* virt_to_folio(): a tail page leads to the block's first page */
static __always_inline struct page *virt_to_head_page(const void *x)
{
	struct page *page = kc_arena_page(x);
	unsigned long head = READ_ONCE(page->compound_head);

	return head & 1 ? (struct page *)(head - 1) : page;
}

/* reserves the arena; kc_slab_init() calls it before the first cache */
void kc_arena_init(void);
/* 2^@order pages, zeroed, page->private the order; NULL if none is left */
struct page *kc_alloc_pages(gfp_t gfp, unsigned int order);
void kc_free_pages(struct page *page);
#endif
