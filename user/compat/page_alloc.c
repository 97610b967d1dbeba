// SPDX-License-Identifier: GPL-2.0
/*
 * pidx user-space compat: pages.  One arena of address space stands for
 * the direct map, with a struct page per 4 KiB page beside it (the memmap),
 * and hands out naturally aligned blocks of 2^order pages, zeroed, from one
 * free list per order; vmalloc() maps its areas apart.  The slab (slub.c)
 * builds on these pages, so slab objects sit at the addresses, and share
 * the pages and the huge mappings, that SLUB's would; kept apart from it
 * because the page side is its own allocator with its own lock.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "kcompat.h"
#include "page_alloc.h"

char *kc_arena, *kc_arena_end;
struct page *kc_memmap;
static char *kc_arena_brk;
static void *kc_free_area[MAX_ORDER];
static DEFINE_SPINLOCK(kc_zone_lock);
static unsigned long kc_pages_used;

struct kc_vm_area {
	void *addr;
	size_t size;
	struct kc_vm_area *next;
};

static struct kc_vm_area *kc_vm_areas;
static DEFINE_SPINLOCK(kc_vm_lock);

void kc_arena_init(void)
{
	const char *gb = getenv("PIDX_USER_ARENA_GB");
	size_t size = (size_t)(gb ? atol(gb) : 16) << 30;
	size_t align = 1UL << 30;
	char *p;

	if (!size)
		size = 16UL << 30;
	p = mmap(NULL, size + align, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		kc_bug(__FILE__, __LINE__, "no address space for the arena");
	kc_arena = PTR_ALIGN(p, align);
	kc_arena_end = kc_arena + size;
	kc_arena_brk = kc_arena;
	/* the direct map uses large pages; 2 MiB ones where THP allows */
	madvise(kc_arena, size, MADV_HUGEPAGE);
	kc_memmap = mmap(NULL, (size >> PAGE_SHIFT) * sizeof(struct page),
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (kc_memmap == MAP_FAILED)
		kc_bug(__FILE__, __LINE__, "no address space for the memmap");
}

static __always_inline bool kc_in_arena(const void *addr)
{
	return (const char *)addr >= kc_arena && (const char *)addr < kc_arena_end;
}

struct page *kc_virt_to_page(const void *addr)
{
	return kc_arena_page(addr);
}

bool kc_is_vmalloc_addr(const void *addr)
{
	return addr && !kc_in_arena(addr);
}

/* Touches arena pages ahead of use, so that no storm pays their faults. */
void kc_arena_prefault(size_t bytes)
{
	static char *done;
	char *p, *end;

	spin_lock(&kc_zone_lock);
	p = max(done, kc_arena_brk);
	end = min(kc_arena_brk + bytes, kc_arena_end);
	spin_unlock(&kc_zone_lock);
	for (; p < end; p += PAGE_SIZE)
		*(volatile char *)p = *(volatile char *)p;
	if (end > done)
		done = end;
}

struct page *kc_alloc_pages(gfp_t gfp, unsigned int order)
{
	size_t size = PAGE_SIZE << order;
	struct page *page;
	bool fresh = false;
	unsigned long i;
	char *p;

	if (order >= MAX_ORDER)
		return NULL;
	spin_lock(&kc_zone_lock);
	p = kc_free_area[order];
	if (p) {
		kc_free_area[order] = *(void **)p;
	} else {
		p = PTR_ALIGN(kc_arena_brk, size);
		if (p + size > kc_arena_end) {
			spin_unlock(&kc_zone_lock);
			return NULL;
		}
		kc_arena_brk = p + size;
		fresh = true;
	}
	kc_pages_used += 1UL << order;
	spin_unlock(&kc_zone_lock);

	page = kc_virt_to_page(p);
	page->flags = order ? PG_head : 0;
	page->compound_head = 0;
	page->private = order;
	for (i = 1; i < (1UL << order); i++)
		page[i].compound_head = (unsigned long)page | 1;
	/* init_on_alloc: pages are cleared when handed out (fresh ones are) */
	if (!fresh)
		memset(p, 0, size);
	return page;
}

void kc_free_pages(struct page *page)
{
	unsigned int order = page->private;
	void *p = page_address(page);

	page->flags = 0;
	spin_lock(&kc_zone_lock);
	*(void **)p = kc_free_area[order];
	kc_free_area[order] = p;
	kc_pages_used -= 1UL << order;
	spin_unlock(&kc_zone_lock);
}

void *vmalloc(unsigned long size)
{
	struct kc_vm_area *a = malloc(sizeof(*a));
	void *p;

	if (!a)
		return NULL;
	size = ALIGN(size, PAGE_SIZE);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		free(a);
		return NULL;
	}
	/* 6.1's kvmalloc() allows huge vmalloc mappings from 2 MiB on */
	madvise(p, size, size >= (2UL << 20) ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	a->addr = p;
	a->size = size;
	spin_lock(&kc_vm_lock);
	a->next = kc_vm_areas;
	kc_vm_areas = a;
	spin_unlock(&kc_vm_lock);
	return p;
}

void *vzalloc(unsigned long size)
{
	return vmalloc(size);	/* fresh anonymous memory is zero */
}

void vfree(const void *addr)
{
	struct kc_vm_area **pp, *a = NULL;

	if (!addr)
		return;
	spin_lock(&kc_vm_lock);
	for (pp = &kc_vm_areas; *pp; pp = &(*pp)->next) {
		if ((*pp)->addr == addr) {
			a = *pp;
			*pp = a->next;
			break;
		}
	}
	spin_unlock(&kc_vm_lock);
	if (!a)
		kc_bug(__FILE__, __LINE__, "vfree() of no vmalloc area");
	munmap(a->addr, a->size);
	free(a);
}

void kc_slab_stats(struct kc_slab_stats *st)
{
	spin_lock(&kc_zone_lock);
	st->pages = kc_pages_used;
	st->arena_bytes = kc_arena_brk - kc_arena;
	spin_unlock(&kc_zone_lock);
}
