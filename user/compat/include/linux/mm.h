/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: pages.  Slab and kmalloc memory comes from one
 * arena that stands for the direct map (2 MiB pages where transparent huge
 * pages allow; the kernel maps it with 1 GiB pages), with a struct page per
 * 4 KiB page beside it; vmalloc() memory is mapped apart, 4 KiB pages, as
 * the kernel's is.  One NUMA node.
 */
#ifndef _KC_MM_H
#define _KC_MM_H
#include <kc_base.h>
#include <linux/slab.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define MAX_ORDER	11
#define offset_in_page(p)	((unsigned long)(p) & ~PAGE_MASK)

/* 64 bytes, as the kernel's; a slab's first page is its struct slab */
struct kmem_cache;
struct page {
	unsigned long flags;
	union {
		struct list_head lru;		/* a slab on the node's partial list */
		struct {
			struct page *kc_next;	/* a CPU's partial slabs */
			int kc_slabs;
		};
	};
	struct kmem_cache *slab_cache;
	void *kc_freelist;		/* with kc_counters: one cmpxchg16b */
	unsigned long kc_counters;
	unsigned long compound_head;	/* tail pages: the first page, bit 0 set */
	unsigned long private;		/* first page: the block's order */
};

struct page *kc_virt_to_page(const void *addr);
bool kc_is_vmalloc_addr(const void *addr);
#define virt_to_page(addr)	kc_virt_to_page(addr)
#define page_to_nid(page)	((void)(page), 0)
#define is_vmalloc_addr(addr)	kc_is_vmalloc_addr(addr)
#define vmalloc_to_page(addr)	((struct page *)(addr))

static inline int get_order(unsigned long size)
{
	if (size <= PAGE_SIZE)
		return 0;
	return fls64(size - 1) - PAGE_SHIFT;
}

void *vmalloc(unsigned long size);
void *vzalloc(unsigned long size);
void vfree(const void *addr);
#define vmalloc_node(size, node)	vmalloc(size)
#define vzalloc_node(size, node)	vzalloc(size)
#endif
