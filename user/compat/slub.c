// SPDX-License-Identifier: GPL-2.0
/*
 * pidx user-space compat: a slab allocator laid out and run as SLUB in
 * Debian's 6.1 (mm/slub.c, mm/slab_common.c), on pages from an arena that
 * stands for the direct map (page_alloc.c).  What the index files and the kernel's lib/
 * files allocate therefore sits where SLUB would put it:
 *
 *  - calculate_sizes(): the free pointer in the middle of the object, or
 *    after it for caches with a constructor (radix_tree_node: 576 + 8 =
 *    584-byte stride), objects aligned as calculate_alignment() says;
 *    calculate_order() for the slab order, min_objects from the CPU count;
 *  - the free list of every new slab in the cache's random order, from a
 *    random start (CONFIG_SLAB_FREELIST_RANDOM), free pointers stored
 *    obfuscated (CONFIG_SLAB_FREELIST_HARDENED), objects zeroed on
 *    allocation unless the cache has a constructor
 *    (CONFIG_INIT_ON_ALLOC_DEFAULT_ON), pages zeroed when handed out;
 *  - per-CPU slabs with the lockless fast paths (a local cmpxchg16b on
 *    freelist and tid), per-CPU partial slabs, node partial lists under a
 *    spinlock, frees to another CPU's slab through the slab's own free list
 *    (locked cmpxchg16b), empty slabs discarded beyond min_partial;
 *  - cache merging (CONFIG_SLAB_MERGE_DEFAULT): a cache without a
 *    constructor shares an existing cache of the same size class, as
 *    pidx_sl_64 shares kmalloc-64 in the kernel;
 *  - kmalloc-8 ... kmalloc-8k (with -96 and -192), pages beyond; kvmalloc()
 *    falls back to vmalloc() beyond MAX_ORDER, mapped apart.
 *
 * Not modelled: kmemcg accounting, KFENCE, other kernel users of the same
 * caches, NUMA nodes (one), page allocator lists beyond one free list per
 * order.  The random sequences come from a fixed seed (PIDX_USER_SLAB_SEED
 * changes it), so runs are reproducible.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "kcompat.h"
#include "page_alloc.h"

#define ZERO_SIZE_PTR	((void *)16)
#define SLUB_MAX_ORDER	3	/* PAGE_ALLOC_COSTLY_ORDER */
#define MIN_PARTIAL	5
#define MAX_PARTIAL	10
#define SLAB_MERGE_SAME	(SLAB_RECLAIM_ACCOUNT | SLAB_CACHE_DMA | SLAB_ACCOUNT)
#define SLAB_NEVER_MERGE (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER | \
			  SLAB_TRACE | SLAB_TYPESAFE_BY_RCU | SLAB_NOLEAKTRACE)

struct kmem_cache_cpu {
	void **freelist;	/* first free object of the CPU slab */
	unsigned long tid;	/* changes with every fast-path operation */
	struct page *slab;
	struct page *partial;
};

struct kmem_cache {
	struct kmem_cache_cpu __percpu *cpu_slab;
	slab_flags_t flags;
	unsigned int min_partial;
	unsigned int size;		/* the stride of objects in a slab */
	unsigned int object_size;
	unsigned int offset;		/* of the free pointer */
	unsigned int cpu_partial_slabs;
	unsigned int order;
	unsigned int objects;		/* per slab */
	unsigned int align;
	void (*ctor)(void *);
	unsigned long random;		/* SLAB_FREELIST_HARDENED */
	unsigned int *random_seq;	/* SLAB_FREELIST_RANDOM */
	u64 rnd;			/* the start positions of new slabs */
	const char *name;
	int refcount;
	struct list_head list;

	/* the one node */
	spinlock_t list_lock;
	unsigned long nr_partial;
	struct list_head partial;
	/* threads that stand for no CPU share one set of per-CPU slabs */
	spinlock_t helper_lock;
	atomic_long_t nr_slabs;
};

/* struct slab in 6.1 overlays struct page; here it is struct page. */
#define slab_list	lru
static_assert(sizeof(struct page) == 64);

static struct kmem_cache *kmalloc_caches[KMALLOC_SHIFT_HIGH + 1];
static LIST_HEAD(slab_caches);
static DEFINE_MUTEX(slab_mutex);
static u64 kc_slab_seed = 0x5eed5eed5eedULL;

static u64 kc_rand(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* ------------------------------------------------------------ failslab */

/*
 * The debug kernel's failslab with task-filter Y, as make check sets it for
 * the storm kthreads the module marks (make_it_fail): a marked thread's
 * allocations fail at kc_failslab_percent %, those with __GFP_NOFAIL
 * excepted (should_failslab()), so that the storms' paths for -ENOMEM run
 * natively too, seeded, and in seconds.  Off, each allocation passes one
 * nop (a static key), so that cachegrind's counts stay those of the slab.
 */
unsigned int kc_failslab_percent;
atomic_long_t kc_failslab_injected;
static DEFINE_STATIC_KEY_FALSE(kc_failslab_on);
static __thread bool kc_fault_thread;
static __thread u64 kc_fault_rng;

void kc_failslab_set(unsigned int percent)
{
	kc_failslab_percent = percent;
	if (percent)
		static_branch_enable(&kc_failslab_on);
}

void kc_fault_mark(bool on, u64 seed)
{
	kc_fault_thread = on && kc_failslab_percent;
	kc_fault_rng = seed | 1;
}

static __always_inline bool kc_should_failslab(gfp_t gfp)
{
	if (!static_branch_unlikely(&kc_failslab_on))
		return false;
	if (likely(!kc_fault_thread) || (gfp & __GFP_NOFAIL))
		return false;
	if (kc_rand(&kc_fault_rng) % 100 >= kc_failslab_percent)
		return false;
	atomic_long_inc(&kc_failslab_injected);
	return true;
}

/* ------------------------------------------------------------ free pointers */

static __always_inline void *freelist_ptr(const struct kmem_cache *s, void *ptr,
					  unsigned long ptr_addr)
{
#ifdef CONFIG_SLAB_FREELIST_HARDENED
	return (void *)((unsigned long)ptr ^ s->random ^ swab(ptr_addr));
#else
	return ptr;
#endif
}

static __always_inline void *get_freepointer(struct kmem_cache *s, void *object)
{
	unsigned long addr = (unsigned long)object + s->offset;

	return freelist_ptr(s, *(void **)addr, addr);
}

static __always_inline void set_freepointer(struct kmem_cache *s, void *object,
					    void *fp)
{
	unsigned long addr = (unsigned long)object + s->offset;

	*(void **)addr = freelist_ptr(s, fp, addr);
}

static __always_inline void prefetch_freepointer(const struct kmem_cache *s,
						 void *object)
{
	if (object)
		__builtin_prefetch((char *)object + s->offset, 1);
}

static __always_inline unsigned long next_tid(unsigned long tid)
{
	return tid + 1;		/* TID_STEP with one CPU per unit */
}

/* this_cpu_cmpxchg_double(): cmpxchg16b on the CPU's own data, no lock prefix */
static __always_inline bool kc_cmpxchg_double_local(void *p, void *o1, unsigned long o2,
						    void *n1, unsigned long n2)
{
	bool ret;

	asm volatile("cmpxchg16b %1\n\tsete %0"
		     : "=q" (ret), "+m" (*(unsigned __int128 *)p),
		       "+a" (o1), "+d" (o2)
		     : "b" (n1), "c" (n2) : "memory", "cc");
	return ret;
}

/* cmpxchg_double_slab(): freelist and counters of a slab, locked */
static __always_inline bool kc_cmpxchg_double(void *p, void *o1, unsigned long o2,
					      void *n1, unsigned long n2)
{
	bool ret;

	asm volatile("lock; cmpxchg16b %1\n\tsete %0"
		     : "=q" (ret), "+m" (*(unsigned __int128 *)p),
		       "+a" (o1), "+d" (o2)
		     : "b" (n1), "c" (n2) : "memory", "cc");
	return ret;
}

/* slab counters: inuse 16 bits, objects 15, frozen 1 */
#define SC_INUSE(c)	((c) & 0xffff)
#define SC_OBJECTS(c)	(((c) >> 16) & 0x7fff)
#define SC_FROZEN(c)	(((c) >> 31) & 1)
#define SC_MAKE(inuse, objects, frozen) \
	((unsigned long)(inuse) | (unsigned long)(objects) << 16 | (unsigned long)(frozen) << 31)

struct kc_slab_words {
	void *freelist;
	unsigned long counters;
};

/* freelist and counters are the two words at 32..47 of struct page */
#define SLAB_WORDS(slab)	((struct kc_slab_words *)&(slab)->kc_freelist)

/* ------------------------------------------------------------ slabs */

static void *setup_object(struct kmem_cache *s, void *object)
{
	if (unlikely(s->ctor))
		s->ctor(object);
	return object;
}

static void shuffle_freelist(struct kmem_cache *s, struct page *slab, char *start)
{
	unsigned long pos = kc_rand(&s->rnd) % s->objects, idx;
	void *cur, *next;

	cur = setup_object(s, start + s->random_seq[pos]);
	SLAB_WORDS(slab)->freelist = cur;
	for (idx = 1; idx < s->objects; idx++) {
		if (++pos >= s->objects)
			pos = 0;
		next = setup_object(s, start + s->random_seq[pos]);
		set_freepointer(s, cur, next);
		cur = next;
	}
	set_freepointer(s, cur, NULL);
}

/* allocate_slab(): frozen, every object in use by the CPU that takes it */
static struct page *new_slab(struct kmem_cache *s, gfp_t gfp)
{
	struct page *slab = kc_alloc_pages(gfp, s->order);
	unsigned int i;
	char *start, *p;

	if (!slab)
		return NULL;
	slab->flags |= PG_slab;
	slab->slab_cache = s;
	start = page_address(slab);
	if (s->random_seq && s->objects > 1) {
		shuffle_freelist(s, slab, start);
	} else {
		SLAB_WORDS(slab)->freelist = start;
		for (i = 0, p = start; i < s->objects; i++, p += s->size) {
			setup_object(s, p);
			set_freepointer(s, p, i + 1 < s->objects ? p + s->size : NULL);
		}
	}
	SLAB_WORDS(slab)->counters = SC_MAKE(s->objects, s->objects, 1);
	atomic_long_inc(&s->nr_slabs);
	return slab;
}

static void discard_slab(struct kmem_cache *s, struct page *slab)
{
	slab->flags &= ~PG_slab;
	slab->slab_cache = NULL;
	atomic_long_dec(&s->nr_slabs);
	kc_free_pages(slab);
}

static void add_partial(struct kmem_cache *s, struct page *slab, bool tail)
{
	s->nr_partial++;
	if (tail)
		list_add_tail(&slab->slab_list, &s->partial);
	else
		list_add(&slab->slab_list, &s->partial);
}

static void remove_partial(struct kmem_cache *s, struct page *slab)
{
	list_del(&slab->slab_list);
	s->nr_partial--;
}

/*
 * Takes a slab off the node list for this CPU, frozen: with its objects
 * for the CPU slab (@take), leaving them in the slab for a partial one.
 */
static void *acquire_slab(struct kmem_cache *s, struct page *slab, bool take)
{
	struct kc_slab_words *w = SLAB_WORDS(slab);
	unsigned long counters, new;
	void *freelist;

	do {
		freelist = READ_ONCE(w->freelist);
		counters = READ_ONCE(w->counters);
		new = take ? SC_MAKE(SC_OBJECTS(counters), SC_OBJECTS(counters), 1) :
			     counters | 1UL << 31;
	} while (!kc_cmpxchg_double(w, freelist, counters, take ? NULL : freelist, new));
	remove_partial(s, slab);
	return freelist;
}

/* The CPU slab's free list was used up: take what others freed to it. */
static void *get_freelist(struct kmem_cache *s, struct page *slab)
{
	struct kc_slab_words *w = SLAB_WORDS(slab);
	unsigned long counters;
	void *freelist;

	do {
		freelist = READ_ONCE(w->freelist);
		counters = READ_ONCE(w->counters);
	} while (!kc_cmpxchg_double(w, freelist, counters, NULL,
				    SC_MAKE(SC_OBJECTS(counters), SC_OBJECTS(counters),
					    freelist != NULL)));
	return freelist;
}

/*
 * Unfreezes a slab: back to the node list, or away when empty.  The list
 * lock is taken first, as deactivate_slab() takes it: a free that finds the
 * slab unfrozen with free objects must find it on the list too.
 */
static void unfreeze_slab(struct kmem_cache *s, struct page *slab)
{
	struct kc_slab_words *w = SLAB_WORDS(slab);
	unsigned long counters, inuse;
	void *freelist;

	spin_lock(&s->list_lock);
	do {
		freelist = READ_ONCE(w->freelist);
		counters = READ_ONCE(w->counters);
		inuse = SC_INUSE(counters);
	} while (!kc_cmpxchg_double(w, freelist, counters, freelist,
				    SC_MAKE(inuse, SC_OBJECTS(counters), 0)));
	if (!inuse && s->nr_partial >= s->min_partial) {
		spin_unlock(&s->list_lock);
		discard_slab(s, slab);
		return;
	}
	if (inuse < SC_OBJECTS(counters))
		add_partial(s, slab, true);
	spin_unlock(&s->list_lock);
}

/* deactivate_slab(): the CPU's remaining free objects go back to the slab */
static void deactivate_slab(struct kmem_cache *s, struct page *slab, void *freelist)
{
	struct kc_slab_words *w = SLAB_WORDS(slab);
	unsigned long counters;
	void *prior, *next;

	while (freelist) {
		next = get_freepointer(s, freelist);
		do {
			prior = READ_ONCE(w->freelist);
			counters = READ_ONCE(w->counters);
			set_freepointer(s, freelist, prior);
		} while (!kc_cmpxchg_double(w, prior, counters, freelist,
					    counters - 1));
		freelist = next;
	}
	unfreeze_slab(s, slab);
}

static void unfreeze_partials(struct kmem_cache *s, struct page *slab)
{
	struct page *next;

	for (; slab; slab = next) {
		next = slab->kc_next;
		unfreeze_slab(s, slab);
	}
}

/* A slab with a first free object joins this CPU's partial slabs, frozen. */
static void put_cpu_partial(struct kmem_cache *s, struct page *slab, bool drain)
{
	struct kmem_cache_cpu *c = raw_cpu_ptr(s->cpu_slab);
	struct page *oldslab = c->partial, *to_unfreeze = NULL;
	int slabs = 0;

	if (oldslab) {
		if (drain && oldslab->kc_slabs >= (int)s->cpu_partial_slabs) {
			to_unfreeze = oldslab;
			oldslab = NULL;
		} else {
			slabs = oldslab->kc_slabs;
		}
	}
	slab->kc_slabs = slabs + 1;
	slab->kc_next = oldslab;
	c->partial = slab;
	if (to_unfreeze)
		unfreeze_partials(s, to_unfreeze);
}

static void *get_partial(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	struct page *slab, *tmp;
	void *object = NULL, *t;
	unsigned int partial_slabs = 0;

	if (!READ_ONCE(s->nr_partial))
		return NULL;
	spin_lock(&s->list_lock);
	list_for_each_entry_safe(slab, tmp, &s->partial, slab_list) {
		t = acquire_slab(s, slab, !object);
		if (!t)
			break;
		if (!object) {
			c->slab = slab;
			object = t;
		} else {
			put_cpu_partial(s, slab, false);
			if (++partial_slabs > s->cpu_partial_slabs / 2)
				break;
		}
	}
	spin_unlock(&s->list_lock);
	return object;
}

/* ___slab_alloc(): the slow path, with the CPU slab's free list empty */
static void *slab_alloc_slow(struct kmem_cache *s, gfp_t gfp,
			     struct kmem_cache_cpu *c)
{
	struct page *slab = c->slab;
	void *freelist;

	if (slab) {
		freelist = get_freelist(s, slab);
		if (freelist)
			goto load_freelist;
		c->slab = NULL;	/* full, unfrozen, on no list */
	}
	while (c->partial) {
		slab = c->partial;
		c->partial = slab->kc_next;
		c->slab = slab;
		freelist = get_freelist(s, slab);
		if (freelist)
			goto load_freelist;
		c->slab = NULL;
	}
	freelist = get_partial(s, c);
	if (freelist)
		goto load_freelist;
	slab = new_slab(s, gfp);
	if (!slab)
		return NULL;
	freelist = SLAB_WORDS(slab)->freelist;
	SLAB_WORDS(slab)->freelist = NULL;
	c->slab = slab;
load_freelist:
	c->freelist = get_freepointer(s, freelist);
	c->tid = next_tid(c->tid);
	return freelist;
}

static __always_inline bool slab_want_init_on_alloc(gfp_t flags, struct kmem_cache *s)
{
#ifdef CONFIG_INIT_ON_ALLOC_DEFAULT_ON
	if (s->ctor)
		return false;
	if (s->flags & (SLAB_TYPESAFE_BY_RCU | SLAB_POISON))
		return flags & __GFP_ZERO;
	return true;
#else
	return flags & __GFP_ZERO;
#endif
}

static __always_inline void *slab_alloc_nofault(struct kmem_cache *s, gfp_t gfp)
{
	bool helper = unlikely(kc_cpu < 0);
	struct kmem_cache_cpu *c;
	unsigned long tid;
	void *object, *next;

	if (helper)
		spin_lock(&s->helper_lock);
redo:
	c = raw_cpu_ptr(s->cpu_slab);
	tid = READ_ONCE(c->tid);
	barrier();
	object = c->freelist;
	if (unlikely(!object || !c->slab)) {
		object = slab_alloc_slow(s, gfp, c);
	} else {
		next = get_freepointer(s, object);
		if (unlikely(!kc_cmpxchg_double_local(&c->freelist, object, tid,
						      next, next_tid(tid))))
			goto redo;
		prefetch_freepointer(s, next);
	}
	if (helper)
		spin_unlock(&s->helper_lock);
	if (likely(object) && slab_want_init_on_alloc(gfp, s))
		memset(object, 0, s->object_size);
	return object;
}

static __always_inline void *slab_alloc(struct kmem_cache *s, gfp_t gfp)
{
	if (kc_should_failslab(gfp))
		return NULL;
	return slab_alloc_nofault(s, gfp);
}

/* __slab_free(): to a slab that is not this CPU's */
static void slab_free_slow(struct kmem_cache *s, struct page *slab, void *x)
{
	struct kc_slab_words *w = SLAB_WORDS(slab);
	unsigned long counters, new;
	bool was_frozen, locked;
	void *prior;

	do {
		locked = false;
		prior = READ_ONCE(w->freelist);
		counters = READ_ONCE(w->counters);
		set_freepointer(s, x, prior);
		was_frozen = SC_FROZEN(counters);
		new = counters - 1;
		if ((!SC_INUSE(new) || !prior) && !was_frozen) {
			if (!prior) {
				/* from full to partial: this CPU takes it, frozen */
				new |= 1UL << 31;
			} else {
				spin_lock(&s->list_lock);
				locked = true;
			}
		}
		if (kc_cmpxchg_double(w, prior, counters, x, new))
			break;
		if (locked)
			spin_unlock(&s->list_lock);
	} while (1);

	if (!locked) {
		if (!was_frozen && SC_FROZEN(new))
			put_cpu_partial(s, slab, true);
		return;
	}
	if (!SC_INUSE(new) && s->nr_partial >= s->min_partial) {
		remove_partial(s, slab);
		spin_unlock(&s->list_lock);
		discard_slab(s, slab);
		return;
	}
	spin_unlock(&s->list_lock);
}

static __always_inline void slab_free(struct kmem_cache *s, struct page *slab, void *x)
{
	bool helper = unlikely(kc_cpu < 0);
	struct kmem_cache_cpu *c;
	unsigned long tid;
	void **freelist;

	if (helper)
		spin_lock(&s->helper_lock);
redo:
	c = raw_cpu_ptr(s->cpu_slab);
	tid = READ_ONCE(c->tid);
	barrier();
	if (likely(slab == c->slab)) {
		freelist = READ_ONCE(c->freelist);
		set_freepointer(s, x, freelist);
		if (unlikely(!kc_cmpxchg_double_local(&c->freelist, freelist, tid,
						      x, next_tid(tid))))
			goto redo;
	} else {
		slab_free_slow(s, slab, x);
	}
	if (helper)
		spin_unlock(&s->helper_lock);
}

/* ------------------------------------------------------------ caches */

static unsigned int calc_slab_order(unsigned int size, unsigned int min_objects,
				    unsigned int max_order, unsigned int fract_leftover)
{
	unsigned int order;

	for (order = get_order((unsigned long)min_objects * size); order <= max_order; order++) {
		unsigned int slab_size = (unsigned int)PAGE_SIZE << order;

		if (slab_size % size <= slab_size / fract_leftover)
			break;
	}
	return order;
}

static unsigned int calculate_order(unsigned int size)
{
	unsigned int min_objects = 4 * (fls(nr_cpu_ids) + 1);
	unsigned int max_objects = (PAGE_SIZE << SLUB_MAX_ORDER) / size;
	unsigned int order, fraction;

	min_objects = min(min_objects, max_objects);
	while (min_objects > 1) {
		for (fraction = 16; fraction >= 4; fraction /= 2) {
			order = calc_slab_order(size, min_objects, SLUB_MAX_ORDER, fraction);
			if (order <= SLUB_MAX_ORDER)
				return order;
		}
		min_objects--;
	}
	order = calc_slab_order(size, 1, SLUB_MAX_ORDER, 1);
	if (order <= SLUB_MAX_ORDER)
		return order;
	return calc_slab_order(size, 1, MAX_ORDER - 1, 1);
}

static unsigned int calculate_alignment(slab_flags_t flags, unsigned int align,
					unsigned int size)
{
	if (flags & SLAB_HWCACHE_ALIGN) {
		unsigned int ralign = cache_line_size();

		while (size <= ralign / 2)
			ralign /= 2;
		align = max(align, ralign);
	}
	align = max(align, (unsigned int)ARCH_SLAB_MINALIGN);
	return ALIGN(align, sizeof(void *));
}

static u64 kc_hash_name(const char *name)
{
	u64 h = 1469598103934665603ULL;

	while (*name)
		h = (h ^ (u8)*name++) * 1099511628211ULL;
	return h;
}

static struct kmem_cache *find_mergeable(unsigned int size, unsigned int align,
					 slab_flags_t flags, void (*ctor)(void *))
{
	struct kmem_cache *s;

	if (ctor || (flags & SLAB_NEVER_MERGE))
		return NULL;
	size = ALIGN(size, sizeof(void *));
	align = calculate_alignment(flags, align, size);
	size = ALIGN(size, align);
	list_for_each_entry_reverse(s, &slab_caches, list) {
		if (s->ctor || (s->flags & SLAB_NEVER_MERGE) || s->refcount < 0)
			continue;
		if (size > s->size)
			continue;
		if ((flags & SLAB_MERGE_SAME) != (s->flags & SLAB_MERGE_SAME))
			continue;
		if ((s->size & ~(align - 1)) != s->size)
			continue;
		if (s->size - size >= sizeof(void *))
			continue;
		return s;
	}
	return NULL;
}

static struct kmem_cache *create_cache(const char *name, unsigned int size,
				       unsigned int align, slab_flags_t flags,
				       void (*ctor)(void *))
{
	struct kmem_cache *s = calloc(1, sizeof(*s));
	unsigned int i, j, t, osize;

	if (!s)
		return NULL;
	s->name = name;
	s->object_size = size;
	s->flags = flags;
	s->ctor = ctor;
	s->align = calculate_alignment(flags, align, size);
	osize = ALIGN(size, sizeof(void *));
	if ((flags & SLAB_TYPESAFE_BY_RCU) || ctor) {
		s->offset = osize;
		osize += sizeof(void *);
	} else {
		s->offset = ALIGN_DOWN(size / 2, sizeof(void *));
	}
	s->size = ALIGN(osize, s->align);
	s->order = calculate_order(s->size);
	s->objects = (PAGE_SIZE << s->order) / s->size;
	s->min_partial = clamp_t(unsigned int, ilog2(s->size) / 2, MIN_PARTIAL, MAX_PARTIAL);
	s->cpu_partial_slabs = DIV_ROUND_UP((s->size >= PAGE_SIZE ? 6 : s->size >= 1024 ? 24 :
					     s->size >= 256 ? 52 : 120) * 2, s->objects);
	s->rnd = kc_slab_seed ^ kc_hash_name(name);
	if (!s->rnd)
		s->rnd = 1;
	s->random = kc_rand(&s->rnd);
#ifdef CONFIG_SLAB_FREELIST_RANDOM
	if (s->objects > 1) {
		s->random_seq = calloc(s->objects, sizeof(*s->random_seq));
		if (!s->random_seq) {
			free(s);
			return NULL;
		}
		for (i = 0; i < s->objects; i++)
			s->random_seq[i] = i;
		for (i = s->objects - 1; i > 0; i--) {
			j = (u32)kc_rand(&s->rnd) % (i + 1);
			t = s->random_seq[i];
			s->random_seq[i] = s->random_seq[j];
			s->random_seq[j] = t;
		}
		for (i = 0; i < s->objects; i++)
			s->random_seq[i] *= s->size;
	}
#endif
	spin_lock_init(&s->list_lock);
	spin_lock_init(&s->helper_lock);
	INIT_LIST_HEAD(&s->partial);
	s->cpu_slab = __alloc_percpu(sizeof(struct kmem_cache_cpu),
				     2 * sizeof(void *));
	if (!s->cpu_slab) {
		free(s->random_seq);
		free(s);
		return NULL;
	}
	s->refcount = 1;
	list_add_tail(&s->list, &slab_caches);
	return s;
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, slab_flags_t flags,
				     void (*ctor)(void *))
{
	struct kmem_cache *s;

	mutex_lock(&slab_mutex);
	s = find_mergeable(size, align, flags, ctor);
	if (s)
		s->refcount++;
	else
		s = create_cache(name, size, align, flags, ctor);
	mutex_unlock(&slab_mutex);
	if (!s && (flags & SLAB_PANIC))
		kc_bug(__FILE__, __LINE__, name);
	return s;
}

/* Every CPU's slabs back to the node list; callers have stopped using @s. */
static void flush_all(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c;
	struct page *slab;
	void *freelist;
	int cpu;

	for (cpu = -1; cpu < (int)nr_cpu_ids; cpu++) {
		c = cpu < 0 ? s->cpu_slab : per_cpu_ptr(s->cpu_slab, cpu);
		slab = c->slab;
		freelist = c->freelist;
		c->slab = NULL;
		c->freelist = NULL;
		c->tid = next_tid(c->tid);
		if (slab)
			deactivate_slab(s, slab, freelist);
		slab = c->partial;
		c->partial = NULL;
		unfreeze_partials(s, slab);
	}
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	struct page *slab, *tmp;
	long left;

	if (!s)
		return;
	mutex_lock(&slab_mutex);
	if (--s->refcount) {
		mutex_unlock(&slab_mutex);
		return;
	}
	list_del(&s->list);
	mutex_unlock(&slab_mutex);
	flush_all(s);
	list_for_each_entry_safe(slab, tmp, &s->partial, slab_list) {
		if (SC_INUSE(SLAB_WORDS(slab)->counters))
			continue;
		remove_partial(s, slab);
		discard_slab(s, slab);
	}
	left = atomic_long_read(&s->nr_slabs);
	if (left)
		printk("kmem_cache_destroy %s: Slab cache still has objects (%ld slabs)\n",
		       s->name, left);
	free_percpu(s->cpu_slab);
	free(s->random_seq);
	free(s);
}

unsigned int kmem_cache_size(struct kmem_cache *s)
{
	return s->object_size;
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags)
{
	return slab_alloc(s, flags);
}

void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t flags, int node)
{
	return slab_alloc(s, flags);
}

void kmem_cache_free(struct kmem_cache *s, void *x)
{
	struct page *slab = virt_to_head_page(x);

	/* CONFIG_SLAB_FREELIST_HARDENED: cache_from_obj() checks the cache */
	if (unlikely(slab->slab_cache != s)) {
		printk("kmem_cache_free: wrong slab cache. %s (%p) but object %p (page flags %lx slab_cache %p) is from %s\n", s->name, s, x, slab->flags, slab->slab_cache,
		       slab->slab_cache ? slab->slab_cache->name : "no cache");
		return;
	}
	slab_free(s, slab, x);
}

int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t flags, size_t size, void **p)
{
	size_t i;

	/* one failslab roll for the whole request, as slab_pre_alloc_hook() */
	if (kc_should_failslab(flags))
		return 0;
	for (i = 0; i < size; i++) {
		p[i] = slab_alloc_nofault(s, flags);
		if (!p[i]) {
			kmem_cache_free_bulk(s, i, p);
			return 0;
		}
	}
	return i;
}

void kmem_cache_free_bulk(struct kmem_cache *s, size_t size, void **p)
{
	size_t i;

	for (i = 0; i < size; i++)
		kmem_cache_free(s, p[i]);
}

/* ------------------------------------------------------------ kmalloc */

static __always_inline unsigned int kmalloc_index(size_t size)
{
	if (size <= KMALLOC_MIN_SIZE)
		return 3;
	if (size > 64 && size <= 96)
		return 1;
	if (size > 128 && size <= 192)
		return 2;
	return fls64(size - 1);
}

static void *kmalloc_large(size_t size, gfp_t flags)
{
	struct page *page = kc_alloc_pages(flags, get_order(size));

	return page ? page_address(page) : NULL;
}

void *__kmalloc(size_t size, gfp_t flags)
{
	if (unlikely(size > KMALLOC_MAX_CACHE_SIZE))
		return kmalloc_large(size, flags);
	if (unlikely(!size))
		return ZERO_SIZE_PTR;
	return slab_alloc(kmalloc_caches[kmalloc_index(size)], flags);
}

void *__kmalloc_node(size_t size, gfp_t flags, int node)
{
	return __kmalloc(size, flags);
}

void kfree(const void *x)
{
	struct page *page;

	if (unlikely(x <= ZERO_SIZE_PTR))
		return;
	page = virt_to_head_page(x);
	if (unlikely(!(page->flags & PG_slab))) {
		kc_free_pages(page);
		return;
	}
	slab_free(page->slab_cache, page, (void *)x);
}

size_t ksize(const void *x)
{
	struct page *page = virt_to_head_page(x);

	if (!(page->flags & PG_slab))
		return PAGE_SIZE << page->private;
	return page->slab_cache->object_size;
}

size_t kmalloc_size_roundup(size_t size)
{
	if (size && size <= KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_caches[kmalloc_index(size)]->object_size;
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return PAGE_SIZE << get_order(size);
	return 0;
}

void *kvmalloc_node(size_t size, gfp_t flags, int node)
{
	void *p;

	if (size <= KMALLOC_MAX_CACHE_SIZE || get_order(size) < MAX_ORDER) {
		p = __kmalloc(size, flags);
		if (p && size > KMALLOC_MAX_CACHE_SIZE && (flags & __GFP_ZERO))
			memset(p, 0, size);	/* pages are zero when handed out */
		if (p || size <= PAGE_SIZE)
			return p;
	}
	if (!gfpflags_allow_blocking(flags))
		return NULL;
	return vmalloc(size);
}

void kvfree(const void *addr)
{
	if (is_vmalloc_addr(addr))
		vfree(addr);
	else
		kfree(addr);
}

void kc_slab_init(void)
{
	static const char *const names[] = {
		[1] = "kmalloc-96", [2] = "kmalloc-192", [3] = "kmalloc-8",
		[4] = "kmalloc-16", [5] = "kmalloc-32", [6] = "kmalloc-64",
		[7] = "kmalloc-128", [8] = "kmalloc-256", [9] = "kmalloc-512",
		[10] = "kmalloc-1k", [11] = "kmalloc-2k", [12] = "kmalloc-4k",
		[13] = "kmalloc-8k",
	};
	const char *seed = getenv("PIDX_USER_SLAB_SEED");
	unsigned int i, size;

	if (seed)
		kc_slab_seed = strtoull(seed, NULL, 0);
	kc_arena_init();
	for (i = 1; i <= KMALLOC_SHIFT_HIGH; i++) {
		if (!names[i])
			continue;
		size = i == 1 ? 96 : i == 2 ? 192 : 1U << i;
		/* create_boot_cache(): power-of-two kmalloc sizes are aligned to their size */
		kmalloc_caches[i] = create_cache(names[i], size,
						 is_power_of_2(size) ? size : ARCH_KMALLOC_MINALIGN,
						 SLAB_KMALLOC, NULL);
		if (!kmalloc_caches[i])
			kc_bug(__FILE__, __LINE__, names[i]);
	}
}
