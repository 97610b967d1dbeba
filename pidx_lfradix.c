// SPDX-License-Identifier: GPL-2.0
/*
 * "lfradix": the PID index as a radix tree whose writers share no lock, and
 * "lfradix_pc", the same tree handing out numbers from per-CPU ranges.
 *
 * Why: in 6.1 every alloc_pid() and free_pid() takes pidmap_lock, and the
 * IDR under it, so forks on many CPUs queue on one line.  Here numbers are
 * claimed in the lock-free bitmap of pidx_pidmap.h (the kernel's own design
 * before 4.15) and the tree is written one slot at a time: the writer that
 * owns number k by its bit is the only one that stores k's slot, so no lock
 * keeps two writers of a slot apart.
 *
 * Tree.  A fixed height from pid_max: nodes of 64 slots, 3 levels at
 * pid_max 32768 and 4 at 4194304, the heights the IDR reaches there.  The
 * inner levels are allocated whole at create and never change: 512 bytes
 * per 4096 numbers of pid_max, what the bitmap costs.  A leaf holds the
 * slots of the 64 numbers of one bitmap word, in 576 bytes (the IDR's node
 * size) with its rcu_head.  A slot is empty (0), reserved (LFR_RESERVED,
 * the word 1: a value is 4-aligned, so a pointer never has bit 0 set) or
 * holds the number's value.
 *
 * Where the value lives.  In the number's slot, the word a lookup reads
 * anyway to find the number: the number itself is implied by the slot's
 * place, so the slot holds nothing else, and the value costs no byte beyond
 * the slot a set of numbers needs and no cache line beyond the one the
 * lookup reads.  From the struct sizes: a leaf is 64 slots of 8 bytes and a
 * 16-byte rcu_head, 528 bytes, 576 in its cache (SLAB_HWCACHE_ALIGN), so 9
 * bytes per key when the word is full and up to 576 for a key alone in its
 * word, plus the fixed inner levels and bitmap.
 *
 * Leaves come and go with their word, and only a writer that holds a claim
 * in the word installs one: it walks after its claim and, finding no leaf,
 * installs this CPU's zeroed spare with cmpxchg() inside its section.  The
 * remover that releases the last number of a word retires the leaf: it tags
 * the leaf's pointer, then looks at the word again; a writer claims, then
 * looks at the pointer and waits while it is tagged.  Both steps are full
 * barriers, so one side sees the other: either the remover sees the claim
 * and untags, or the writer sees the tag and, once it is gone, no leaf.  So
 * no slot is ever stored into a retired leaf.  No empty leaf stays in the
 * tree because every release of a number tries to retire: the remover's,
 * and that of a writer that gives its number back; and a remover that finds
 * another's tag waits for its decision and decides again, since that one may
 * untag for a claim whose key is gone by then.  Spares are refilled before a
 * section, where @gfp may sleep; only when a CPU has none (the refill
 * failed, or an interrupt's writer took it) does a writer give its number
 * back, allocate, and claim again.
 *
 * A retired leaf is freed after an RCU grace period, and only the slab hands
 * its memory out again: it never becomes a spare at once.  A reader may
 * still hold it, having loaded the pointer before the retirement; were it
 * reused for another word, that reader would read there the slot its own
 * number shares with one of that word, and return another number's value
 * (user/replay/lfr_stale_value.c): a value names no number, so the reader
 * cannot tell that slot from its own.
 * Why deferring is enough: every operation that reads a slot (lookup,
 * find_ge, publish, remove, insert's check) loads the leaf pointer once,
 * under rcu_read_lock(), and at that load the leaf was in the tree for its
 * number's word.  Until the section ends the leaf is in the tree still, or
 * retired; a retired leaf was empty when retired (the word had no claim,
 * and every remover clears its slot before its release), no writer stores
 * into it again (the tag above), and it is neither freed nor installed
 * anywhere before a grace period that waits for the section.  So a slot read
 * in a leaf still in the tree holds its own number's state at that instant
 * (empty, reserved, or its own value), and one read in a retired leaf is
 * empty while the number was unpublished at some instant of the call: at
 * the remover's look, or at the call's start if the look came before it,
 * since a claim made after the look stores only into a leaf installed after
 * the retirement.  Never another number's value.  The price: a word that
 * empties and fills again gets a leaf from the slab, allocated by the spare
 * refill outside the section, not the one it retired.
 *
 * Writers and what readers see.  A number's bit is claimed before its slot
 * is reserved and released after the slot is cleared, and each of those
 * runs with interrupts off as one section.  publish() stores the value
 * with cmpxchg_release() from LFR_RESERVED, outside any section: the
 * reservation's owner holds the bit, so the leaf is not retired under it;
 * a slot that holds neither mark nor value (or no leaf) gives -ENOENT, one
 * with a value -EEXIST, and the failed cmpxchg stored nothing.  A reader
 * that finds a value in the slot has found a published k, its object built
 * (release, then the reader's address dependency on the value); a
 * reservation reads as NULL.  find_ge() scans the bitmap and confirms each
 * set bit by a value in its slot; the bit of a key published for the whole
 * call is set for the whole call.  insert() of a number whose bit is set
 * but whose slot is empty waits for the CPU inside its section, which
 * cannot be waiting for it: no section waits but for a tag, which a section
 * with interrupts off sets and clears, and an interrupt never waits for the
 * section it interrupted.
 *
 * Numbers.  lfradix: the cyclic search of pidx.h over the bitmap from the
 * one shared cursor, kernel semantics.  lfradix_pc: a CPU takes the rest of
 * a line of the bitmap (up to 512 numbers) by that same cyclic search, then
 * hands those numbers out itself in increasing order until they run out; the
 * cursor moves a line at a time.  Numbers below PIDX_RESERVED_PIDS are only
 * handed out one at a time by the search, so the reserved floor holds as in
 * the kernel.  Numbers stay unique and in [floor, pid_max), and -ENOSPC
 * still means full.  What changes for users of PIDs: numbers no longer
 * increase across CPUs (a fork on one CPU may get a smaller number than an
 * earlier fork on another), and the cursor (ns_last_pid, which CRIU writes
 * to choose the next PID) only steers the next range a CPU takes.  What it
 * buys: a CPU's forks write its own line of the bitmap and its own leaves.
 * (Ranges of one bitmap word, tried first, were slower on two threads than
 * on one: two CPUs' words share a line of the bitmap.)
 *
 * Costs: a lookup reads one slot per level, the IDR's path without its entry
 * decoding, and the last slot is the value; a fork claims a bit, reserves a
 * slot and publishes into it, its exit clears both.  A word's leaf is
 * retired and another installed each time its numbers all leave and one
 * comes back: one slab allocation, outside the section, and one call_rcu().
 *
 * NUMA placement: inner nodes on pidx_mem_node(node, first number under
 * them); a spare is allocated for the word after the one numbers come from
 * (the cursor's, or this CPU's range's), which it mostly serves next: under
 * interleave a leaf may sit on another node than its numbers'.
 * Visit tracing: a node counts once per level read, with the slot's line;
 * the value is the leaf's slot, counted there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cache.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "pidx.h"
#include "pidx_pidmap.h"

#define lfr_bad(bad, ...)	pidx_verify_bad(bad, "lfradix", __VA_ARGS__)

#define LFR_SHIFT	6
#define LFR_SLOTS	BIT(LFR_SHIFT)
#define LFR_MASK	(LFR_SLOTS - 1)
/* lfradix_pc: the numbers of one line of the bitmap */
#define LFR_RANGE	(L1_CACHE_BYTES * BITS_PER_BYTE)
/* a leaf pointer's tag while its remover decides whether to retire it */
#define LFR_RETIRING	1UL
/* a slot's word while its number is reserved: no value has bit 0 set */
#define LFR_RESERVED	1UL

struct lfr_leaf {
	unsigned long slot[LFR_SLOTS];	/* 0, LFR_RESERVED, or the value */
	struct rcu_head rcu;
};

/* what a leaf takes in its cache (SLAB_HWCACHE_ALIGN) */
#define LFR_LEAF_BYTES	ALIGN(sizeof(struct lfr_leaf), L1_CACHE_BYTES)

/*
 * An inner node: above the last inner level, inner nodes; in it, leaf
 * pointers, as unsigned long for their LFR_RETIRING tag.
 */
struct lfr_inner {
	void *child[LFR_SLOTS];
};

/* Per CPU, so that writers share no counter line. */
struct lfr_pcpu {
	long keys;		/* reserved here less cleared here */
	long values;		/* published here less cleared here */
	long leaves;		/* installed here less retired here */
	unsigned long waits;	/* insert() waited for another CPU's section */
	unsigned long retired;	/* leaves retired here */
	unsigned long rebuilds;	/* claims given back: no leaf, no spare */
	struct lfr_leaf *spare;	/* zeroed, for a section that finds no leaf */
	/* lfradix_pc: this CPU's numbers, [next, end) */
	u32 next;
	u32 end;
};

struct lfr {
	struct lfr_inner *root;	/* the inner levels are fixed at create */
	struct lfr_pcpu __percpu *pcpu;
	u32 pid_max;
	u32 height;		/* levels, the leaves included */
	u32 top_shift;		/* of the root's slot index */
	long inner;		/* inner nodes */
	int node;
	bool ranges;		/* lfradix_pc */
	struct pidx_pidmap pm;
};

/*
 * Shared by every instance and created with the first one, so that an RCU
 * callback finds the cache from the leaf alone.
 */
static DEFINE_MUTEX(lfr_cache_mutex);
static unsigned int lfr_cache_users;
static struct kmem_cache *lfr_leaf_cache;

static int lfr_cache_get(void)
{
	int ret = 0;

	mutex_lock(&lfr_cache_mutex);
	if (!lfr_leaf_cache) {
		lfr_leaf_cache = kmem_cache_create("pidx_lfradix_leaf",
						   sizeof(struct lfr_leaf), 0,
						   SLAB_HWCACHE_ALIGN, NULL);
		if (!lfr_leaf_cache)
			ret = -ENOMEM;
	}
	if (!ret)
		lfr_cache_users++;
	mutex_unlock(&lfr_cache_mutex);
	return ret;
}

/* Callers have waited for every RCU callback that frees into the cache. */
static void lfr_cache_put(void)
{
	mutex_lock(&lfr_cache_mutex);
	if (!--lfr_cache_users && !pidx_keep_caches()) {
		kmem_cache_destroy(lfr_leaf_cache);
		lfr_leaf_cache = NULL;
	}
	mutex_unlock(&lfr_cache_mutex);
}

static inline struct lfr *to_lfr(struct pidx_index *idx)
{
	return (struct lfr *)idx;
}

/* The pointer, in the last inner level, to @k's leaf. */
static __always_inline unsigned long *lfr_leaf_ref(struct lfr *lf, u32 k)
{
	struct lfr_inner *n = lf->root;
	unsigned int shift = lf->top_shift;

	for (; shift > LFR_SHIFT; shift -= LFR_SHIFT) {
		pidx_visit_node(&n->child[(k >> shift) & LFR_MASK], sizeof(void *));
		n = n->child[(k >> shift) & LFR_MASK];
	}
	pidx_visit_node(&n->child[(k >> LFR_SHIFT) & LFR_MASK], sizeof(void *));
	return (unsigned long *)&n->child[(k >> LFR_SHIFT) & LFR_MASK];
}

static __always_inline unsigned long *lfr_leaf_slot(unsigned long leaf, u32 k)
{
	unsigned long *slot = &((struct lfr_leaf *)leaf)->slot[k & LFR_MASK];

	pidx_visit_node(slot, sizeof(*slot));
	return slot;
}

/*
 * @k's slot, or NULL when it has no leaf; under rcu_read_lock(), which keeps
 * the leaf from holding any other word's slots until it ends (it is reused
 * only after a grace period).  A leaf whose remover is deciding is still
 * the leaf.
 */
static __always_inline unsigned long *lfr_slot(struct lfr *lf, u32 k)
{
	/* the address dependency orders the leaf's contents after it */
	unsigned long leaf = READ_ONCE(*lfr_leaf_ref(lf, k)) & ~LFR_RETIRING;

	return leaf ? lfr_leaf_slot(leaf, k) : NULL;
}

/*
 * A writer that holds @k's claim: @k's slot, or NULL when it has no leaf.
 * Waits while a remover decides (interrupts off on its CPU, for a moment).
 */
static unsigned long *lfr_claimed_slot(struct lfr *lf, u32 k)
{
	unsigned long *ref = lfr_leaf_ref(lf, k), leaf;

	while ((leaf = READ_ONCE(*ref)) & LFR_RETIRING)
		cpu_relax();
	return leaf ? lfr_leaf_slot(leaf, k) : NULL;
}

static struct lfr_leaf *lfr_leaf_new(struct lfr *lf, u32 k, gfp_t gfp)
{
	struct lfr_leaf *leaf;

	/* failures under GFP_ATOMIC are counted by the caller, not logged */
	if (!gfpflags_allow_blocking(gfp))
		gfp |= __GFP_NOWARN;
	leaf = kmem_cache_alloc_node(lfr_leaf_cache, gfp | __GFP_ZERO,
				     pidx_mem_node(lf->node, k & ~LFR_MASK));
	if (leaf)
		pidx_mem_charge(LFR_LEAF_BYTES);
	return leaf;
}

static void lfr_leaf_free(struct lfr_leaf *leaf)
{
	kmem_cache_free(lfr_leaf_cache, leaf);
	pidx_mem_uncharge(LFR_LEAF_BYTES);
}

static void lfr_leaf_free_rcu(struct rcu_head *rcu)
{
	lfr_leaf_free(container_of(rcu, struct lfr_leaf, rcu));
}

/* Outside a section, where @gfp allows: false when this CPU has no spare. */
static bool lfr_spare_refill(struct lfr *lf, gfp_t gfp)
{
	struct lfr_leaf *leaf;
	u32 k;

	if (this_cpu_read(lf->pcpu->spare))
		return true;
	/*
	 * Placed for the word after the one numbers come from now, its next
	 * use: this CPU's range, or where the next range starts once it has
	 * none left (next == end, and 0 before its first).
	 */
	k = lf->ranges ? this_cpu_read(lf->pcpu->next) : 0;
	if (!lf->ranges || k >= this_cpu_read(lf->pcpu->end))
		k = pidx_pidmap_cursor(&lf->pm);
	leaf = lfr_leaf_new(lf, k + LFR_SLOTS, gfp);
	if (!leaf)
		return false;
	/* this CPU's, or the one this task moved to: any CPU may use it */
	if (this_cpu_cmpxchg(lf->pcpu->spare, NULL, leaf))
		lfr_leaf_free(leaf);
	return true;
}

/*
 * Interrupts off, rcu_read_lock(), @k released: retire its leaf if its word
 * has no claim.  Tag, then look at the word (cmpxchg() is a full barrier);
 * a claimer claims, then looks at the tag.
 */
static void lfr_leaf_reap(struct lfr *lf, u32 k)
{
	unsigned int w = k / BITS_PER_LONG;
	unsigned long *ref = lfr_leaf_ref(lf, k), leaf;

	/*
	 * Another remover's tag: wait for its decision, then decide again.
	 * It may untag because of a claim whose key is gone by now, and
	 * then nobody else would retire the leaf.
	 */
	do {
		while ((leaf = READ_ONCE(*ref)) & LFR_RETIRING)
			cpu_relax();
		if (!leaf || !pidx_pidmap_word_unclaimed(&lf->pm, w))
			return;
	} while (cmpxchg(ref, leaf, leaf | LFR_RETIRING) != leaf);
	pidx_race_delay();
	if (!pidx_pidmap_word_unclaimed(&lf->pm, w)) {
		/* a writer claimed meanwhile: it stores into this leaf */
		smp_store_release(ref, leaf);
		return;
	}
	/* a claimer waiting on the tag finds no leaf, and installs its own */
	smp_store_release(ref, 0);
	this_cpu_dec(lf->pcpu->leaves);
	this_cpu_inc(lf->pcpu->retired);
	/*
	 * Not this CPU's spare, though empty: a reader may still read its
	 * slots, and must find none of another word's (the header).
	 */
	call_rcu(&((struct lfr_leaf *)leaf)->rcu, lfr_leaf_free_rcu);
}

/*
 * Interrupts off, rcu_read_lock(), @k claimed: reserves @k's slot; false,
 * and @k given back, when it has no leaf and this CPU no spare.
 */
static bool lfr_reserve(struct lfr *lf, u32 k)
{
	struct lfr_pcpu *c = this_cpu_ptr(lf->pcpu);
	unsigned long *slot = lfr_claimed_slot(lf, k);

	/* a full barrier: the zeroed spare before the pointer to it */
	if (!slot && c->spare &&
	    !cmpxchg(lfr_leaf_ref(lf, k), 0, (unsigned long)c->spare)) {
		WRITE_ONCE(c->spare, NULL);
		this_cpu_inc(lf->pcpu->leaves);
	}
	/* ours, or one that another claimer of the word installed first */
	if (!slot)
		slot = lfr_claimed_slot(lf, k);
	if (!slot) {
		pidx_race_delay();
		pidx_pidmap_release(&lf->pm, k);
		/* a leaf installed meanwhile by a claimer since gone */
		lfr_leaf_reap(lf, k);
		this_cpu_inc(lf->pcpu->rebuilds);
		return false;
	}
	pidx_race_delay();
	/* empty: @k's last remover cleared it before its release */
	WRITE_ONCE(*slot, LFR_RESERVED);
	this_cpu_inc(lf->pcpu->keys);
	return true;
}

/*
 * lfradix_pc, interrupts off: the next free number of this CPU's range
 * (claimed), or -ENOSPC when the range has none left.
 */
static int lfr_claim_range(struct lfr *lf, struct lfr_pcpu *c)
{
	int pid = pidx_pidmap_claim_in(&lf->pm, c->next, c->end);

	if (pid < 0)
		c->next = c->end;
	return pid;
}

/*
 * Interrupts off, rcu_read_lock(): a number claimed and reserved; *@done
 * false, and the number given back, when it could not be stored.  Neither
 * the cursor nor a range moves for a number given back.
 */
static int lfr_claim_reserve(struct lfr *lf, bool *done)
{
	struct lfr_pcpu *c = this_cpu_ptr(lf->pcpu);
	s64 cur;
	u64 lap;
	u32 end;
	int pid;

	pid = lf->ranges ? lfr_claim_range(lf, c) : -ENOSPC;
	if (pid >= 0) {
		*done = lfr_reserve(lf, pid);
		c->next = *done ? pid + 1 : pid;
		return pid;
	}
	pid = pidx_pidmap_claim_cyclic(&lf->pm, &cur, &lap);
	if (pid < 0)
		return pid;
	*done = lfr_reserve(lf, pid);
	if (!*done)
		return pid;
	end = pid + 1;
	if (lf->ranges && pid >= PIDX_RESERVED_PIDS) {
		/* the rest of the number's bitmap line is this CPU's */
		end = min_t(u32, round_up(end, LFR_RANGE), lf->pid_max);
		c->next = pid + 1;
		c->end = end;
	}
	pidx_pidmap_advance(&lf->pm, cur, lap, end);
	return pid;
}

static int lfr_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long flags;
	bool done;
	int pid;

	/* a leaf at hand, should the number have none: no claim given back */
	lfr_spare_refill(lf, gfp);
	for (;;) {
		local_irq_save(flags);
		rcu_read_lock();
		pid = lfr_claim_reserve(lf, &done);
		rcu_read_unlock();
		local_irq_restore(flags);
		if (pid < 0 || done)
			return pid;
		if (!lfr_spare_refill(lf, gfp))
			return -ENOMEM;
	}
}

/* Interrupts off, rcu_read_lock(): 0, -EEXIST, or -EAGAIN for a spare. */
static int lfr_claim_insert(struct lfr *lf, u32 pid)
{
	unsigned long *slot;

	while (!pidx_pidmap_claim(&lf->pm, pid)) {
		/* held, or inside another CPU's section for a moment */
		slot = lfr_slot(lf, pid);
		if (slot && READ_ONCE(*slot))
			return -EEXIST;
		this_cpu_inc(lf->pcpu->waits);
		cpu_relax();
	}
	return lfr_reserve(lf, pid) ? 0 : -EAGAIN;
}

static int lfr_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long flags;
	int ret;

	if (pid < 1 || pid >= lf->pid_max)
		return -EINVAL;
	for (;;) {
		/* a leaf to install, should the number have none */
		if (!lfr_spare_refill(lf, gfp) && !READ_ONCE(*lfr_leaf_ref(lf, pid)))
			return -ENOMEM;
		local_irq_save(flags);
		rcu_read_lock();
		ret = lfr_claim_insert(lf, pid);
		rcu_read_unlock();
		local_irq_restore(flags);
		if (ret != -EAGAIN)
			return ret;
	}
}

/*
 * Any context: the reservation's owner holds @pid's bit, so its leaf stays.
 * A caller that holds nothing finds 0 (or no leaf, or a leaf retired under
 * it and empty), and the cmpxchg() stores nothing but over the mark.
 */
static int lfr_publish(struct pidx_index *idx, u32 pid, void *value)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long *slot, old = 0;

	/* a word that reads as empty or reserved would break the slot's state */
	if (WARN_ON_ONCE(!value || ((unsigned long)value & 3)))
		return -EINVAL;
	if (!pid || pid >= lf->pid_max)
		return -ENOENT;
	rcu_read_lock();
	slot = lfr_slot(lf, pid);
	if (slot) {
		pidx_race_delay();
		/* the caller's stores to the object before the value */
		old = cmpxchg_release(slot, LFR_RESERVED, (unsigned long)value);
	}
	rcu_read_unlock();
	if (old != LFR_RESERVED)
		return old ? -EEXIST : -ENOENT;
	this_cpu_inc(lf->pcpu->values);
	return 0;
}

static void *lfr_lookup(struct pidx_index *idx, u32 pid)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long *slot, v;

	if (!pid || pid >= lf->pid_max)
		return NULL;
	slot = lfr_slot(lf, pid);
	if (!slot)
		return NULL;
	/* the caller's reads through the value depend on this load */
	v = READ_ONCE(*slot);
	return v & LFR_RESERVED ? NULL : (void *)v;
}

static int lfr_remove(struct pidx_index *idx, u32 pid)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long flags, *slot, old = 0, seen;
	int ret = -ENOENT;

	if (!pid || pid >= lf->pid_max)
		return -ENOENT;
	local_irq_save(flags);
	rcu_read_lock();
	slot = lfr_slot(lf, pid);
	/*
	 * Of two removers, one clears the slot.  A publish between the read
	 * and the cmpxchg() turns the mark into a value, which is cleared in
	 * turn; any other change is a new incarnation of the number (the
	 * slot emptied by another remover, then reserved again), which this
	 * call must leave alone.
	 */
	if (slot)
		old = READ_ONCE(*slot);
	while (old && (seen = cmpxchg(slot, old, 0)) != old)
		old = old == LFR_RESERVED && seen && seen != LFR_RESERVED ? seen : 0;
	if (old) {
		this_cpu_dec(lf->pcpu->keys);
		if (!(old & LFR_RESERVED))
			this_cpu_dec(lf->pcpu->values);
		pidx_race_delay();
		pidx_pidmap_release(&lf->pm, pid);
		lfr_leaf_reap(lf, pid);
		ret = 0;
	}
	rcu_read_unlock();
	local_irq_restore(flags);
	return ret;
}

static int lfr_find_ge(struct pidx_index *idx, u32 pid)
{
	struct lfr *lf = to_lfr(idx);
	u32 k = max(pid, 1U);

	for (; k < lf->pid_max; k++) {
		k = pidx_pidmap_next_claimed(&lf->pm, k);
		/* a set bit whose slot holds no value: reserved, or mid-section */
		if (k < lf->pid_max && lfr_lookup(idx, k))
			return k;
	}
	return -ENOENT;
}

/*
 * The inner levels under @n, whose slot index is taken at @shift: @fn on
 * every leaf (present ones) with its first number, and on every inner node
 * after its children, so that it may free them.
 */
struct lfr_walk {
	void (*inner)(struct lfr_walk *w, struct lfr_inner *n);
	void (*leaf)(struct lfr_walk *w, struct lfr_leaf *leaf, u32 base);
	struct lfr *lf;
	unsigned int bad;
	long leaves;
	long keys;
	long values;
	long tagged;		/* leaf pointers left tagged LFR_RETIRING */
	u64 *count;
};

static void lfr_walk(struct lfr_walk *w, struct lfr_inner *n,
		     unsigned int shift, u32 base)
{
	unsigned int i;
	u32 k;

	for (i = 0; i < LFR_SLOTS; i++) {
		k = base + (i << shift);
		if (!n->child[i])
			continue;
		if (shift > LFR_SHIFT) {
			lfr_walk(w, n->child[i], shift - LFR_SHIFT, k);
			continue;
		}
		w->tagged += (unsigned long)n->child[i] & LFR_RETIRING;
		if (w->leaf)
			w->leaf(w, (struct lfr_leaf *)((unsigned long)n->child[i] &
						       ~LFR_RETIRING), k);
	}
	if (w->inner)
		w->inner(w, n);
}

static void lfr_free_inner(struct lfr_walk *w, struct lfr_inner *n)
{
	kfree(n);
}

static void lfr_free_leaf(struct lfr_walk *w, struct lfr_leaf *leaf, u32 base)
{
	lfr_leaf_free(leaf);
}

/* Every inner node that covers numbers below pid_max, under @n. */
static int lfr_build_inner(struct lfr *lf, struct lfr_inner *n,
			   unsigned int shift, u32 base)
{
	unsigned int i;
	u32 k;

	for (i = 0; i < LFR_SLOTS && shift > LFR_SHIFT; i++) {
		k = base + (i << shift);
		if (k >= lf->pid_max)
			break;
		n->child[i] = kzalloc_node(sizeof(*n), GFP_KERNEL,
					   pidx_mem_node(lf->node, k));
		if (!n->child[i])
			return -ENOMEM;
		lf->inner++;
		if (lfr_build_inner(lf, n->child[i], shift - LFR_SHIFT, k))
			return -ENOMEM;
	}
	return 0;
}

static void lfr_free_all(struct lfr *lf)
{
	struct lfr_walk w = {
		.inner = lfr_free_inner, .leaf = lfr_free_leaf, .lf = lf,
	};

	unsigned int cpu;

	if (lf->root)
		lfr_walk(&w, lf->root, lf->top_shift, 0);
	if (lf->pcpu)
		for_each_possible_cpu(cpu)
			if (per_cpu_ptr(lf->pcpu, cpu)->spare)
				lfr_leaf_free(per_cpu_ptr(lf->pcpu, cpu)->spare);
	pidx_pidmap_free(&lf->pm);
	free_percpu(lf->pcpu);
	kfree(lf);
}

static size_t lfr_fixed_bytes(struct lfr *lf)
{
	return sizeof(*lf) + lf->inner * sizeof(struct lfr_inner) +
	       pidx_pidmap_bytes(&lf->pm) +
	       sizeof(struct lfr_pcpu) * num_possible_cpus();
}

static struct pidx_index *lfr_create_ranges(const struct pidx_params *p,
					    bool ranges)
{
	struct lfr_pcpu *c;
	unsigned int cpu;
	struct lfr *lf;

	if (p->pid_max < PIDX_PID_MAX_MIN || p->pid_max > PIDX_PID_MAX_LIMIT)
		return ERR_PTR(-EINVAL);
	if (lfr_cache_get())
		return ERR_PTR(-ENOMEM);
	lf = kzalloc(sizeof(*lf), GFP_KERNEL);
	if (!lf) {
		lfr_cache_put();
		return ERR_PTR(-ENOMEM);
	}
	/* at least one inner level above the leaves */
	lf->height = max(2, DIV_ROUND_UP(fls(p->pid_max - 1), LFR_SHIFT));
	lf->top_shift = (lf->height - 1) * LFR_SHIFT;
	lf->pid_max = p->pid_max;
	lf->node = p->node;
	lf->ranges = ranges;
	lf->pcpu = alloc_percpu(struct lfr_pcpu);
	lf->root = kzalloc_node(sizeof(*lf->root), GFP_KERNEL,
				pidx_mem_node(lf->node, 0));
	if (lf->root)
		lf->inner = 1;
	if (!lf->pcpu || !lf->root || pidx_pidmap_init(&lf->pm, lf->pid_max) ||
	    lfr_build_inner(lf, lf->root, lf->top_shift, 0))
		goto nomem;
	for_each_possible_cpu(cpu) {
		c = per_cpu_ptr(lf->pcpu, cpu);
		c->spare = lfr_leaf_new(lf, 0, GFP_KERNEL);
		if (!c->spare)
			goto nomem;
	}
	pidx_mem_charge(lfr_fixed_bytes(lf));
	return (struct pidx_index *)lf;
nomem:
	lfr_free_all(lf);
	lfr_cache_put();
	return ERR_PTR(-ENOMEM);
}

static struct pidx_index *lfr_create(const struct pidx_params *p)
{
	return lfr_create_ranges(p, false);
}

static struct pidx_index *lfr_pc_create(const struct pidx_params *p)
{
	return lfr_create_ranges(p, true);
}

static void lfr_destroy(struct pidx_index *idx)
{
	struct lfr *lf = to_lfr(idx);

	/* Contract: no writer; a reader that outlived its storm may still walk. */
	synchronize_rcu();
	pidx_mem_uncharge(lfr_fixed_bytes(lf));
	lfr_free_all(lf);
	/* leaves retired earlier free themselves from RCU callbacks */
	rcu_barrier();
	lfr_cache_put();
}

struct lfr_totals {
	long keys;
	long values;
	long leaves;
	unsigned long retired;
	unsigned long waits;
	unsigned long rebuilds;
	long spares;
};

static void lfr_sum(struct lfr *lf, struct lfr_totals *t)
{
	unsigned int cpu;

	memset(t, 0, sizeof(*t));
	for_each_possible_cpu(cpu) {
		struct lfr_pcpu *c = per_cpu_ptr(lf->pcpu, cpu);

		t->keys += READ_ONCE(c->keys);
		t->values += READ_ONCE(c->values);
		t->leaves += READ_ONCE(c->leaves);
		t->retired += READ_ONCE(c->retired);
		t->waits += READ_ONCE(c->waits);
		t->rebuilds += READ_ONCE(c->rebuilds);
		t->spares += !!READ_ONCE(c->spare);
	}
}

/*
 * A leaf's slots: each empty, or reserved or a 4-aligned value for a number
 * in [1, pid_max) that is claimed; some key held.
 */
static void lfr_verify_leaf(struct lfr_walk *w, struct lfr_leaf *leaf, u32 base)
{
	struct lfr *lf = w->lf;
	unsigned int i, keys = 0;
	unsigned long v;
	u32 k;

	w->leaves++;
	if (base >= lf->pid_max)
		lfr_bad(&w->bad, "a leaf for numbers from %u, pid_max %u", base,
			lf->pid_max);
	for (i = 0; i < LFR_SLOTS; i++) {
		k = base + i;
		v = leaf->slot[i];
		if (!v) {
			if (k && k < lf->pid_max && test_bit(k, lf->pm.map))
				lfr_bad(&w->bad, "number %u claimed, its slot empty", k);
			continue;
		}
		keys++;
		if (v != LFR_RESERVED && !(v & 3))
			w->values++;
		if (v != LFR_RESERVED && (v & 3))
			lfr_bad(&w->bad, "slot of %u holds %#lx, neither mark nor value",
				k, v);
		else if (!k || k >= lf->pid_max)
			lfr_bad(&w->bad, "slot of %u held, outside [1, %u)", k,
				lf->pid_max);
		else if (!test_bit(k, lf->pm.map))
			lfr_bad(&w->bad, "key %u not claimed in the bitmap", k);
	}
	/* the remover of the last key retires the leaf */
	if (!keys)
		lfr_bad(&w->bad, "the leaf of numbers %u-%u is empty", base,
			(u32)(base + LFR_MASK));
	w->keys += keys;
}

/*
 * lfradix_pc too: its CPUs' ranges are still empty after a prefill by
 * insert, so each CPU's first alloc takes its range from @next on.
 */
static void lfr_set_cursor(struct pidx_index *idx, u32 next)
{
	pidx_pidmap_set_cursor(&to_lfr(idx)->pm, next);
}

static unsigned int lfr_verify(struct pidx_index *idx)
{
	struct lfr *lf = to_lfr(idx);
	struct lfr_walk w = { .leaf = lfr_verify_leaf, .lf = lf };
	struct lfr_totals t;
	unsigned int cpu, i;
	long claimed;

	lfr_walk(&w, lf->root, lf->top_shift, 0);
	w.bad += pidx_pidmap_verify(&lf->pm, "lfradix", &claimed);
	lfr_sum(lf, &t);
	if (claimed != w.keys)
		lfr_bad(&w.bad, "%ld numbers claimed, %ld keys in the tree", claimed,
			w.keys);
	if (t.keys != w.keys)
		lfr_bad(&w.bad, "%ld keys in the tree, count %ld", w.keys, t.keys);
	if (t.values != w.values)
		lfr_bad(&w.bad, "%ld values in the tree, count %ld", w.values,
			t.values);
	if (w.tagged)
		lfr_bad(&w.bad, "%ld leaf pointers tagged retiring", w.tagged);
	if (t.leaves != w.leaves)
		lfr_bad(&w.bad, "%ld leaves in the tree, count %ld", w.leaves,
			t.leaves);
	for_each_possible_cpu(cpu) {
		struct lfr_pcpu *c = per_cpu_ptr(lf->pcpu, cpu);

		if (c->next > c->end || c->end > lf->pid_max)
			lfr_bad(&w.bad, "CPU %u: range [%u, %u), pid_max %u", cpu,
				c->next, c->end, lf->pid_max);
		for (i = 0; c->spare && i < LFR_SLOTS; i++)
			if (c->spare->slot[i])
				lfr_bad(&w.bad, "CPU %u: spare leaf holds %#lx", cpu,
					c->spare->slot[i]);
	}
	return w.bad;
}

static size_t lfr_mem_bytes(struct pidx_index *idx)
{
	struct lfr *lf = to_lfr(idx);
	struct lfr_totals t;

	lfr_sum(lf, &t);
	return lfr_fixed_bytes(lf) +
	       (max(t.leaves, 0L) + t.spares) * LFR_LEAF_BYTES;
}

static void lfr_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct lfr *lf = to_lfr(idx);
	struct lfr_totals t;

	lfr_sum(lf, &t);
	scnprintf(buf, len,
		  "keys=%ld;values=%ld;leaves=%ld;spares=%ld;inner=%ld;height=%u;retired=%lu;rebuilds=%lu;insert_waits=%lu;cursor=%u;laps=%llu;last_passes=%lu;bitmap_bytes=%zu",
		  t.keys, t.values, t.leaves, t.spares, lf->inner, lf->height, t.retired,
		  t.rebuilds, t.waits, pidx_pidmap_cursor(&lf->pm), pidx_pidmap_laps(&lf->pm),
		  pidx_pidmap_last_passes(&lf->pm),
		  (lf->pm.nwords + BITS_TO_LONGS(lf->pm.nwords)) * sizeof(long));
}

static void lfr_nodes_inner(struct lfr_walk *w, struct lfr_inner *n)
{
	pidx_count_node(n, w->count);
}

static void lfr_nodes_leaf(struct lfr_walk *w, struct lfr_leaf *leaf, u32 base)
{
	pidx_count_node(leaf, w->count);
}

static void lfr_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	struct lfr *lf = to_lfr(idx);
	struct lfr_walk w = {
		.inner = lfr_nodes_inner, .leaf = lfr_nodes_leaf, .lf = lf,
		.count = count,
	};

	lfr_walk(&w, lf->root, lf->top_shift, 0);
}

/* lfradix_pc is lfradix but for its create (per-CPU ranges): the rest */
#define LFR_OPS								\
	.destroy	= lfr_destroy,					\
	.alloc		= lfr_alloc,					\
	.insert		= lfr_insert,					\
	.publish	= lfr_publish,					\
	.lookup		= lfr_lookup,					\
	.remove		= lfr_remove,					\
	.find_ge	= lfr_find_ge,					\
	.set_cursor	= lfr_set_cursor,				\
	.verify		= lfr_verify,					\
	.mem_bytes	= lfr_mem_bytes,				\
	.describe	= lfr_describe,					\
	.nodes		= lfr_nodes

const struct pidx_ops pidx_lfradix_ops = {
	.name		= "lfradix",
	.desc		= "radix tree, lock-free writers: bitmap claims, one slot each",
	.create		= lfr_create,
	LFR_OPS,
};

const struct pidx_ops pidx_lfradix_pc_ops = {
	.name		= "lfradix_pc",
	.desc		= "lfradix, numbers from per-CPU ranges of 512 (not cyclic across CPUs)",
	.alloc_ranges	= true,
	.create		= lfr_pc_create,
	LFR_OPS,
};
