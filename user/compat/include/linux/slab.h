/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: the slab allocator, SLUB's layout and fast paths
 * as Debian's 6.1 configures them (slub.c): objects packed by size class in
 * slabs of 2^order pages taken from a direct-map-like arena, free pointers
 * inside free objects (hardened), each new slab's free list in the cache's
 * random order (SLAB_FREELIST_RANDOM), per-CPU slabs with a lockless fast
 * path, objects zeroed on allocation (INIT_ON_ALLOC_DEFAULT_ON), kmalloc
 * size classes 8..8192 and pages beyond.  GFP_ATOMIC allocations succeed
 * as long as memory lasts (the tools' harness fails them on purpose).
 */
#ifndef _KC_SLAB_H
#define _KC_SLAB_H
#include <kc_base.h>
#include <linux/gfp.h>
#include <linux/numa.h>

#define SLAB_CONSISTENCY_CHECKS	((slab_flags_t)0x00000100U)
#define SLAB_RED_ZONE		((slab_flags_t)0x00000400U)
#define SLAB_POISON		((slab_flags_t)0x00000800U)
#define SLAB_KMALLOC		((slab_flags_t)0x00001000U)
#define SLAB_HWCACHE_ALIGN	((slab_flags_t)0x00002000U)
#define SLAB_CACHE_DMA		((slab_flags_t)0x00004000U)
#define SLAB_STORE_USER		((slab_flags_t)0x00010000U)
#define SLAB_PANIC		((slab_flags_t)0x00040000U)
#define SLAB_TYPESAFE_BY_RCU	((slab_flags_t)0x00080000U)
#define SLAB_MEM_SPREAD		((slab_flags_t)0x00100000U)
#define SLAB_TRACE		((slab_flags_t)0x00200000U)
#define SLAB_NOLEAKTRACE	((slab_flags_t)0x00800000U)
#define SLAB_ACCOUNT		((slab_flags_t)0x04000000U)
#define SLAB_RECLAIM_ACCOUNT	((slab_flags_t)0x00020000U)

#define KMALLOC_MIN_SIZE	8
#define KMALLOC_SHIFT_HIGH	13	/* PAGE_SHIFT + 1: larger goes to pages */
#define KMALLOC_MAX_CACHE_SIZE	(1UL << KMALLOC_SHIFT_HIGH)
#define ARCH_KMALLOC_MINALIGN	8
#define ARCH_SLAB_MINALIGN	8

struct kmem_cache;
struct list_lru;

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, slab_flags_t flags,
				     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags) __malloc;
void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t flags, int node) __malloc;
void kmem_cache_free(struct kmem_cache *s, void *objp);
int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t size, void **p);
void kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p);
unsigned int kmem_cache_size(struct kmem_cache *s);
#define kmem_cache_alloc_lru(s, lru, flags)	kmem_cache_alloc(s, flags)
#define kmem_cache_zalloc(s, flags)	kmem_cache_alloc(s, (flags) | __GFP_ZERO)
#define KMEM_CACHE(__struct, __flags)					\
	kmem_cache_create(#__struct, sizeof(struct __struct),		\
			  __alignof__(struct __struct), (__flags), NULL)

void *__kmalloc(size_t size, gfp_t flags) __malloc;
void *__kmalloc_node(size_t size, gfp_t flags, int node) __malloc;
void kfree(const void *objp);
size_t ksize(const void *objp);
size_t kmalloc_size_roundup(size_t size);

static __always_inline __malloc void *kmalloc(size_t size, gfp_t flags)
{
	return __kmalloc(size, flags);
}

static __always_inline __malloc void *kmalloc_node(size_t size, gfp_t flags, int node)
{
	return __kmalloc_node(size, flags, node);
}

static inline __malloc void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

static inline __malloc void *kzalloc_node(size_t size, gfp_t flags, int node)
{
	return kmalloc_node(size, flags | __GFP_ZERO, node);
}

static inline __malloc void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return kmalloc(bytes, flags);
}

static inline __malloc void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags | __GFP_ZERO);
}

/* kvmalloc(): kmalloc for what the page allocator can give, else vmalloc */
void *kvmalloc_node(size_t size, gfp_t flags, int node) __malloc;
void kvfree(const void *addr);
#define kvmalloc(size, flags)		kvmalloc_node(size, flags, NUMA_NO_NODE)
#define kvzalloc(size, flags)		kvmalloc(size, (flags) | __GFP_ZERO)
#define kvzalloc_node(size, flags, node) kvmalloc_node(size, (flags) | __GFP_ZERO, node)

static inline __malloc void *kvmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return kvmalloc(bytes, flags);
}

static inline __malloc void *kvcalloc(size_t n, size_t size, gfp_t flags)
{
	return kvmalloc_array(n, size, flags | __GFP_ZERO);
}

/* the page allocator's state, for the driver's report */
struct kc_slab_stats {
	unsigned long pages;		/* 4 KiB pages handed out now */
	unsigned long arena_bytes;	/* arena ever used */
};
void kc_slab_stats(struct kc_slab_stats *st);
void kc_slab_init(void);
#endif
