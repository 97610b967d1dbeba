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
 * slots of the 64 numbers of one bitmap word, each the number itself or 0,
 * in 576 bytes (the IDR's node size) with its rcu_head.  A missing leaf is
 * allocated by the writer that needs it and installed with cmpxchg(); the
 * loser of a race frees its own, which nobody saw.  Each CPU keeps one
 * zeroed spare leaf, so that a writer that finds its leaf missing after its
 * claim installs the spare inside its section and refills it afterwards,
 * when it may sleep: the claim is never given back for want of a leaf.
 *
 * Leaves are freed when their word empties: the remover that releases the
 * last number of a word locks the word (every number taken at once, which
 * only succeeds while none is claimed), unlinks the leaf, unlocks, and frees
 * it after a grace period.  A writer stores a slot only after claiming its
 * number and then walking from the root, so it never stores into a leaf
 * being retired: while it holds its claim nobody can lock the word, and a
 * claim made after the unlock sees the leaf gone.  Readers walk under
 * rcu_read_lock(); a retired leaf reads as empty, which it was.
 *
 * Writers and what readers see.  A number's bit is claimed before its slot
 * is stored and released after the slot is cleared, and each of those runs
 * with interrupts off as one section.  So a reader that finds the slot
 * holding k has found a present k; find_ge() scans the bitmap and confirms
 * each set bit at its slot, and the bit of a key present for the whole call
 * is set for the whole call.  insert() of a number whose bit is set but
 * whose slot is empty (another CPU is inside its section, or holds the word
 * locked) waits for that CPU, which cannot be waiting for it: no section
 * waits, and none runs with interrupts on, so an interrupt never waits for
 * the section it interrupted.  Only when a CPU's spare is gone (its refill
 * failed, or an interrupt's writer took it) does a writer give its number
 * back, build the leaf with @gfp, and claim again; a leaf it built for a
 * number that another writer then took is retired if it stayed empty.
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
 * decoding; a fork claims a bit and stores a slot, its exit clears both.  A
 * leaf is allocated and freed once per 64 numbers that pass through it.
 *
 * NUMA placement: nodes on pidx_mem_node(node, first number under them).
 * Visit tracing: a node counts once per level read, with the slot's line.
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

#define LFR_SHIFT	6
#define LFR_SLOTS	BIT(LFR_SHIFT)
#define LFR_MASK	(LFR_SLOTS - 1)
/* lfradix_pc: the numbers of one line of the bitmap */
#define LFR_RANGE	(L1_CACHE_BYTES * BITS_PER_BYTE)
/* verify() reports beyond this many only add to the count */
#define LFR_REPORT_MAX	10

struct lfr_leaf {
	unsigned long key[LFR_SLOTS];	/* the number, or 0 */
	struct rcu_head rcu;
};

/* An inner node: leaves below the last inner level, inner nodes above it. */
struct lfr_inner {
	void *child[LFR_SLOTS];
};

/* Per CPU, so that writers share no counter line. */
struct lfr_pcpu {
	long keys;		/* stored here less cleared here */
	long leaves;		/* installed here less retired here */
	unsigned long lost;	/* leaves built, then beaten by another CPU's */
	unsigned long waits;	/* insert() waited for another CPU's section */
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
	if (!lfr_cache_users) {
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
	if (!--lfr_cache_users) {
		kmem_cache_destroy(lfr_leaf_cache);
		lfr_leaf_cache = NULL;
	}
	mutex_unlock(&lfr_cache_mutex);
}

static inline struct lfr *to_lfr(struct pidx_index *idx)
{
	return (struct lfr *)idx;
}

/* The slot in the last inner level that points to @k's leaf. */
static __always_inline struct lfr_leaf **lfr_leaf_ptr(struct lfr *lf, u32 k)
{
	struct lfr_inner *n = lf->root;
	unsigned int shift = lf->top_shift;

	for (; shift > LFR_SHIFT; shift -= LFR_SHIFT) {
		pidx_visit_node(&n->child[(k >> shift) & LFR_MASK], sizeof(void *));
		n = n->child[(k >> shift) & LFR_MASK];
	}
	pidx_visit_node(&n->child[(k >> LFR_SHIFT) & LFR_MASK], sizeof(void *));
	return (struct lfr_leaf **)&n->child[(k >> LFR_SHIFT) & LFR_MASK];
}

/* @k's slot, or NULL when it has no leaf; under rcu_read_lock(). */
static __always_inline unsigned long *lfr_slot(struct lfr *lf, u32 k)
{
	/* the address dependency orders the leaf's contents after it */
	struct lfr_leaf *leaf = READ_ONCE(*lfr_leaf_ptr(lf, k));

	if (!leaf)
		return NULL;
	pidx_visit_node(&leaf->key[k & LFR_MASK], sizeof(unsigned long));
	return &leaf->key[k & LFR_MASK];
}

static void lfr_leaf_free(struct lfr_leaf *leaf)
{
	kmem_cache_free(lfr_leaf_cache, leaf);
	pidx_mem_uncharge(sizeof(*leaf));
}

static void lfr_leaf_free_rcu(struct rcu_head *rcu)
{
	lfr_leaf_free(container_of(rcu, struct lfr_leaf, rcu));
}

/* A zeroed leaf, placed for number @k. */
static struct lfr_leaf *lfr_leaf_new(struct lfr *lf, u32 k, gfp_t gfp)
{
	struct lfr_leaf *leaf;

	/* failures under GFP_ATOMIC are counted by the caller, not logged */
	if (!gfpflags_allow_blocking(gfp))
		gfp |= __GFP_NOWARN;
	leaf = kmem_cache_alloc_node(lfr_leaf_cache, gfp | __GFP_ZERO,
				     pidx_mem_node(lf->node, k & ~LFR_MASK));
	if (leaf)
		pidx_mem_charge(sizeof(*leaf));
	return leaf;
}

/* Makes sure @k has a leaf; false when memory ran out. */
static bool lfr_leaf_build(struct lfr *lf, u32 k, gfp_t gfp)
{
	struct lfr_leaf **p = lfr_leaf_ptr(lf, k), *leaf;

	if (READ_ONCE(*p))
		return true;
	leaf = lfr_leaf_new(lf, k, gfp);
	if (!leaf)
		return false;
	pidx_race_delay();
	/* a full barrier: the zeroed leaf before the pointer to it */
	if (cmpxchg(p, NULL, leaf)) {
		lfr_leaf_free(leaf);
		this_cpu_inc(lf->pcpu->lost);
	} else {
		this_cpu_inc(lf->pcpu->leaves);
	}
	return true;
}

/* Interrupts off: this CPU's spare as @k's leaf; false when there is none. */
static bool lfr_spare_install(struct lfr *lf, u32 k)
{
	struct lfr_pcpu *c = this_cpu_ptr(lf->pcpu);
	struct lfr_leaf *leaf = c->spare;

	if (!leaf)
		return false;
	/* a full barrier: the zeroed leaf before the pointer to it */
	if (cmpxchg(lfr_leaf_ptr(lf, k), NULL, leaf))
		return true;	/* another CPU's is in: ours stays spare */
	WRITE_ONCE(c->spare, NULL);
	this_cpu_inc(lf->pcpu->leaves);
	return true;
}

/* After a section, where @gfp allows: a spare for the next one. */
static void lfr_spare_refill(struct lfr *lf, gfp_t gfp)
{
	struct lfr_leaf *leaf;

	if (this_cpu_read(lf->pcpu->spare))
		return;
	leaf = lfr_leaf_new(lf, pidx_pidmap_cursor(&lf->pm), gfp);
	/* this CPU's, or the one this task moved to: any CPU may use it */
	if (leaf && this_cpu_cmpxchg(lf->pcpu->spare, NULL, leaf))
		lfr_leaf_free(leaf);
}

/*
 * Interrupts off, @k released: if its word is empty now, retire its leaf.
 * A leaf installed again while the word is locked is retired too; it is
 * empty, as nobody can claim a number to store.
 */
static void lfr_leaf_reap(struct lfr *lf, u32 k)
{
	unsigned int w = k / BITS_PER_LONG;
	struct lfr_leaf *leaf;

	if (!pidx_pidmap_lock_word(&lf->pm, w))
		return;
	pidx_race_delay();
	leaf = xchg(lfr_leaf_ptr(lf, k), NULL);
	pidx_pidmap_unlock_word(&lf->pm, w);
	if (leaf) {
		this_cpu_dec(lf->pcpu->leaves);
		call_rcu(&leaf->rcu, lfr_leaf_free_rcu);
	}
}

/* Interrupts off, rcu_read_lock(): give back @k, which has no slot stored. */
static void lfr_give_back(struct lfr *lf, u32 k)
{
	pidx_race_delay();
	pidx_pidmap_release(&lf->pm, k);
	this_cpu_inc(lf->pcpu->rebuilds);
}

/*
 * Interrupts off, rcu_read_lock(): @k claimed; false, and @k given back,
 * when it has no leaf and this CPU no spare.
 */
static bool lfr_publish(struct lfr *lf, u32 k)
{
	unsigned long *slot = lfr_slot(lf, k);

	if (!slot && lfr_spare_install(lf, k))
		slot = lfr_slot(lf, k);
	if (!slot) {
		lfr_give_back(lf, k);
		return false;
	}
	pidx_race_delay();
	WRITE_ONCE(*slot, k);
	this_cpu_inc(lf->pcpu->keys);
	return true;
}

/*
 * lfradix_pc, interrupts off: the next free number of this CPU's range
 * (claimed), or -ENOSPC when the range has none left.
 */
static int lfr_claim_range(struct lfr *lf, struct lfr_pcpu *c)
{
	u32 k = c->next;

	while ((k = pidx_pidmap_next_free(&lf->pm, k, c->end)) < c->end) {
		if (pidx_pidmap_claim(&lf->pm, k))
			return k;
		k++;
	}
	c->next = c->end;
	return -ENOSPC;
}

/*
 * Interrupts off, rcu_read_lock(): a number claimed and published; *@built
 * false, and the number given back, when its leaf was not there.
 */
static int lfr_claim_publish(struct lfr *lf, bool *built)
{
	struct lfr_pcpu *c = this_cpu_ptr(lf->pcpu);
	bool searched = false;
	s64 cur;
	u64 lap;
	int pid;

	pid = lf->ranges ? lfr_claim_range(lf, c) : -ENOSPC;
	if (pid < 0) {
		pid = pidx_pidmap_claim_cyclic(&lf->pm, &cur, &lap);
		if (pid < 0)
			return pid;
		searched = true;
		if (lf->ranges) {
			/* the rest of the number's bitmap line is this CPU's */
			c->end = pid < PIDX_RESERVED_PIDS ? pid + 1 :
				 min_t(u32, round_up(pid + 1, LFR_RANGE),
				       lf->pid_max);
			pidx_pidmap_advance(&lf->pm, cur, lap, c->end);
		}
	}
	*built = lfr_publish(lf, pid);
	if (lf->ranges)
		c->next = *built ? pid + 1 : pid;
	else if (searched && *built)
		pidx_pidmap_advance(&lf->pm, cur, lap, pid + 1);
	return pid;
}

static int lfr_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long flags;
	int pid, built = -1;
	bool published;

	for (;;) {
		local_irq_save(flags);
		rcu_read_lock();
		pid = lfr_claim_publish(lf, &published);
		/* a leaf built for a number another writer took: not left empty */
		if (built >= 0 &&
		    (pid < 0 || pid / BITS_PER_LONG != built / BITS_PER_LONG)) {
			lfr_leaf_reap(lf, built);
			built = -1;
		}
		rcu_read_unlock();
		local_irq_restore(flags);
		if (pid < 0 || published)
			break;
		if (!lfr_leaf_build(lf, pid, gfp)) {
			pid = -ENOMEM;
			break;
		}
		built = pid;
	}
	lfr_spare_refill(lf, gfp);
	return pid;
}

/* Interrupts off, rcu_read_lock(): 0, -EEXIST, or -EAGAIN to build again. */
static int lfr_claim_insert(struct lfr *lf, u32 pid)
{
	unsigned long *slot;

	while (!pidx_pidmap_claim(&lf->pm, pid)) {
		/* present, or inside another CPU's section for a moment */
		slot = lfr_slot(lf, pid);
		if (slot && READ_ONCE(*slot) == pid)
			return -EEXIST;
		this_cpu_inc(lf->pcpu->waits);
		cpu_relax();
	}
	return lfr_publish(lf, pid) ? 0 : -EAGAIN;
}

static int lfr_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long flags;
	int ret;

	if (pid < 1 || pid >= lf->pid_max)
		return -EINVAL;
	do {
		if (!lfr_leaf_build(lf, pid, gfp))
			return -ENOMEM;
		local_irq_save(flags);
		rcu_read_lock();
		ret = lfr_claim_insert(lf, pid);
		rcu_read_unlock();
		local_irq_restore(flags);
	} while (ret == -EAGAIN);
	lfr_spare_refill(lf, gfp);
	return ret;
}

static bool lfr_lookup(struct pidx_index *idx, u32 pid)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long *slot;

	if (!pid || pid >= lf->pid_max)
		return false;
	slot = lfr_slot(lf, pid);
	return slot && READ_ONCE(*slot) == pid;
}

static int lfr_remove(struct pidx_index *idx, u32 pid)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long flags, *slot;
	int ret = -ENOENT;

	if (!pid || pid >= lf->pid_max)
		return -ENOENT;
	local_irq_save(flags);
	rcu_read_lock();
	slot = lfr_slot(lf, pid);
	/* of two removers, one clears the slot */
	if (slot && cmpxchg(slot, pid, 0) == pid) {
		this_cpu_dec(lf->pcpu->keys);
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
	unsigned long k = max(pid, 1U);

	for (; k < lf->pid_max; k++) {
		k = find_next_bit(lf->pm.map, lf->pid_max, k);
		if (k >= lf->pid_max)
			break;
		pidx_visit_node(&lf->pm.map[k / BITS_PER_LONG], sizeof(long));
		/* a set bit whose slot is empty: a writer inside its section */
		if (lfr_lookup(idx, k))
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
		if (shift > LFR_SHIFT)
			lfr_walk(w, n->child[i], shift - LFR_SHIFT, k);
		else if (w->leaf)
			w->leaf(w, n->child[i], k);
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
	long leaves;
	unsigned long lost;
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
		t->leaves += READ_ONCE(c->leaves);
		t->lost += READ_ONCE(c->lost);
		t->waits += READ_ONCE(c->waits);
		t->rebuilds += READ_ONCE(c->rebuilds);
		t->spares += !!READ_ONCE(c->spare);
	}
}

__printf(2, 3)
static void lfr_bad(struct lfr_walk *w, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (w->bad < LFR_REPORT_MAX) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_err("lfradix verify: %pV\n", &vaf);
		va_end(args);
	}
	w->bad++;
}

/* A leaf's slots: each empty or its own number, claimed; some key present. */
static void lfr_verify_leaf(struct lfr_walk *w, struct lfr_leaf *leaf, u32 base)
{
	struct lfr *lf = w->lf;
	unsigned int i, keys = 0;
	u32 k;

	w->leaves++;
	if (base >= lf->pid_max)
		lfr_bad(w, "a leaf for numbers from %u, pid_max %u", base,
			lf->pid_max);
	for (i = 0; i < LFR_SLOTS; i++) {
		k = base + i;
		if (!leaf->key[i]) {
			if (k && k < lf->pid_max && test_bit(k, lf->pm.map))
				lfr_bad(w, "number %u claimed, its slot empty", k);
			continue;
		}
		keys++;
		if (leaf->key[i] != k || k >= lf->pid_max)
			lfr_bad(w, "slot of %u holds %lu", k, leaf->key[i]);
		else if (!test_bit(k, lf->pm.map))
			lfr_bad(w, "key %u not claimed in the bitmap", k);
	}
	/* the remover of the last key retires the leaf */
	if (!keys)
		lfr_bad(w, "the leaf of numbers %u-%u is empty", base,
			(u32)(base + LFR_MASK));
	w->keys += keys;
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
		lfr_bad(&w, "%ld numbers claimed, %ld keys in the tree", claimed,
			w.keys);
	if (t.keys != w.keys)
		lfr_bad(&w, "%ld keys in the tree, count %ld", w.keys, t.keys);
	if (t.leaves != w.leaves)
		lfr_bad(&w, "%ld leaves in the tree, count %ld", w.leaves,
			t.leaves);
	for_each_possible_cpu(cpu) {
		struct lfr_pcpu *c = per_cpu_ptr(lf->pcpu, cpu);

		if (c->next > c->end || c->end > lf->pid_max)
			lfr_bad(&w, "CPU %u: range [%u, %u), pid_max %u", cpu,
				c->next, c->end, lf->pid_max);
		for (i = 0; c->spare && i < LFR_SLOTS; i++)
			if (c->spare->key[i])
				lfr_bad(&w, "CPU %u: spare leaf holds %lu", cpu,
					c->spare->key[i]);
	}
	return w.bad;
}

static size_t lfr_mem_bytes(struct pidx_index *idx)
{
	struct lfr *lf = to_lfr(idx);
	struct lfr_totals t;

	lfr_sum(lf, &t);
	return lfr_fixed_bytes(lf) +
	       (max(t.leaves, 0L) + t.spares) * sizeof(struct lfr_leaf);
}

static void lfr_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct lfr *lf = to_lfr(idx);
	struct lfr_totals t;

	lfr_sum(lf, &t);
	scnprintf(buf, len,
		  "keys=%ld;leaves=%ld;spares=%ld;inner=%ld;height=%u;lost_installs=%lu;rebuilds=%lu;insert_waits=%lu;cursor=%u;laps=%llu;bitmap_bytes=%zu",
		  t.keys, t.leaves, t.spares, lf->inner, lf->height, t.lost, t.rebuilds,
		  t.waits, pidx_pidmap_cursor(&lf->pm), pidx_pidmap_laps(&lf->pm),
		  (lf->pm.nwords + BITS_TO_LONGS(lf->pm.nwords)) * sizeof(long));
}

static void lfr_count_node(u64 *count, const void *obj)
{
	int nid = page_to_nid(virt_to_page(obj));

	count[min_t(int, nid, PIDX_NODES_MAX - 1)]++;
}

static void lfr_nodes_inner(struct lfr_walk *w, struct lfr_inner *n)
{
	lfr_count_node(w->count, n);
}

static void lfr_nodes_leaf(struct lfr_walk *w, struct lfr_leaf *leaf, u32 base)
{
	lfr_count_node(w->count, leaf);
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

const struct pidx_ops pidx_lfradix_ops = {
	.name		= "lfradix",
	.desc		= "radix tree, lock-free writers: bitmap claims, one slot each",
	.create		= lfr_create,
	.destroy	= lfr_destroy,
	.alloc		= lfr_alloc,
	.insert		= lfr_insert,
	.lookup		= lfr_lookup,
	.remove		= lfr_remove,
	.find_ge	= lfr_find_ge,
	.verify		= lfr_verify,
	.mem_bytes	= lfr_mem_bytes,
	.describe	= lfr_describe,
	.nodes		= lfr_nodes,
};

const struct pidx_ops pidx_lfradix_pc_ops = {
	.name		= "lfradix_pc",
	.desc		= "lfradix, numbers from per-CPU ranges of 512 (not cyclic across CPUs)",
	.alloc_ranges	= true,
	.create		= lfr_pc_create,
	.destroy	= lfr_destroy,
	.alloc		= lfr_alloc,
	.insert		= lfr_insert,
	.lookup		= lfr_lookup,
	.remove		= lfr_remove,
	.find_ge	= lfr_find_ge,
	.verify		= lfr_verify,
	.mem_bytes	= lfr_mem_bytes,
	.describe	= lfr_describe,
	.nodes		= lfr_nodes,
};
