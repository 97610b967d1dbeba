// SPDX-License-Identifier: GPL-2.0
/*
 * "lazyskip": the PID index as a lazy skip list (Herlihy, Lev, Luchangco,
 * Shavit 2007) whose writers do not share a lock.
 *
 * Writers lock only the nodes they change: an insert the predecessors of the
 * new node on each of its levels, a removal the victim and then its
 * predecessors.  They search locklessly first, lock, and validate that what
 * they saw still holds (predecessor not marked, still pointing at the
 * successor); if not they unlock and search again.  Removal marks the victim
 * under its lock (the logical removal) before unlinking it top level first.
 * A new node is born locked and linked bottom level first: its link on level
 * 0 is the logical insertion, and a removal that finds it early waits on its
 * lock until every level holds it (the paper's "fully linked" flag would be
 * one more atomic operation per insert, and TCG makes those dear).  A marked
 * node's forward pointers never change again (no writer validates a marked
 * predecessor), so a reader or writer standing on it carries on to what
 * were its successors.  Readers take no lock at all: lookup() and find_ge()
 * walk under rcu_read_lock() and accept any node not marked; a key present
 * for the whole call is always found.  Nodes are freed by call_rcu() after
 * they are unlinked.
 *
 * Values.  alloc() and insert() link a node whose value word is NULL: that
 * is the reservation, held like any key (the bitmap bit, -EEXIST) but
 * returned by no lookup() and skipped by find_ge().  publish() finds the
 * node, which only its owner removes, and stores the value with
 * cmpxchg_release() from NULL, so a second publish, or any caller's, finds
 * it taken and gets -EEXIST with nothing changed; no live (unmarked) node,
 * -ENOENT.  The value is set once in a node's life and never cleared: a node
 * is one incarnation of its number (a re-reserved number gets a new node,
 * linked only after the old one is unlinked and its bit released), so a
 * reader that finds an unmarked node with the key reads that incarnation's
 * value or NULL, never an earlier one's.  lookup() reads the word, then the
 * value: a node published for the whole call is unmarked for the whole call
 * and found, as above, and its value was stored before the call.  find_ge()
 * passes marked nodes and reservations alike along level 0; a reservation
 * is live, so its links are the list's own.  Publishing needs no "fully
 * linked" flag either: its owner publishes after insert() returned.
 *
 * Deadlock freedom: every writer locks in decreasing key order.  An insert
 * holds its new node and locks its predecessors from level 0 up, and a
 * predecessor on a higher level never has a greater key; a removal locks
 * the victim, then its predecessors the same way, all of smaller keys.  The
 * same node standing on several levels is locked once.  Writers run with
 * interrupts off from their first lock to their last unlock (as alloc_pid()
 * holds pidmap_lock), so an on_each_cpu() callback never spins on a lock
 * its own CPU holds.
 *
 * Number ownership is the lock-free PID bitmap of pidx_pidmap.h, as the
 * kernel's pidmap was before 4.15: claiming a number there is what keeps two
 * allocators from handing out one number, so the skip list insert itself
 * never meets its own key; a removal releases the number after the last
 * unlink.  Its summary of full words makes the search for a free number
 * O(pid_max / 4096) words at worst, whatever the list holds.  A walk along
 * level 0 from the cursor instead would cost the length of the taken run
 * (29000 nodes after a wrap into a 90% full space); the classic skip list's
 * link spans make it O(log n) but every writer must then update spans on
 * every level of its path, i.e. hold the whole path, which is the one lock.
 *
 * Node: [rcu_head][word][value][next[0..h-1]] in one slab object of 32, 64,
 * 128 or 256 bytes aligned to its size.  The word holds the key, height, size
 * class and the lock and marked bits.  The value follows the word: the two
 * are bytes 16-31 of an object aligned to at least 32, so the value is on the
 * line lookup() has just read the key from, whatever the node's height, and
 * a hit reads no new cache line for it.  A node up to height 4 is one cache
 * line.  The rcu_head cannot overlay anything, the value included: call_rcu()
 * writes it while other CPUs may still read or lock the node, and a reader
 * that checked the marked bit could then return rcu_head's link as a value.
 *
 * Bytes per key (64-bit): a node of height h is 16 + 8 + 8 + 8h = 32 + 8h
 * bytes, so heights 1-4 take the 64-byte class, 5-12 the 128-byte one and
 * 13-16 the 256-byte one.  At p = 4 a tower reaches height 5 with probability
 * 1/256, so a key costs 64 * 255/256 + 128 * 1/256 + ... = 64.25 bytes on
 * average.  Without the value word (24 + 8h) height 1 fit 32 bytes and
 * heights 2-5 64, about 40.1 bytes: the value costs 24 bytes a key, nearly
 * all of it from the 3 in 4 nodes of height 1 that grow from 32 to 64 bytes.
 * A 48-byte class would save 16 of those, but objects 48 bytes apart are not
 * line aligned: one in four would split its word from next[0], a second line
 * for every level-0 step through it.  On 32-bit (4-byte words, a 4-byte key
 * after the word) a node is 20 + 4h bytes: heights 1-3 still fit 32.
 *
 * Costs: a search passes up to p - 1 nodes on each of log_p(n) levels, as in
 * the classic skip list; an insert or removal is one search, then one lock
 * per distinct predecessor (1.3 on average at p = 4) plus a retry when a
 * neighbour changed meanwhile.  Allocations all happen at the cursor, so
 * concurrent ones contend for the lock of the node before it; removals
 * elsewhere in the list proceed in parallel.
 *
 * This file holds what a storm runs: lookups, writers, create and destroy.
 * The node and the index are in pidx_lazyskip.h; verify(), mem_bytes(),
 * describe() and nodes(), which walk the list or sum the per-CPU counters,
 * are in pidx_lazyskip_verify.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pidx.h"
#include "pidx_pidmap.h"
#include "pidx_lazyskip.h"

/*
 * Shared by every lazyskip instance and created with the first one, so
 * that an RCU callback finds the cache from the node alone.
 */
static DEFINE_MUTEX(lz_cache_mutex);
static unsigned int lz_cache_users;
static struct kmem_cache *lz_cache[LZ_NR_CLASSES];
static const char *const lz_cache_name[LZ_NR_CLASSES] = {
	"pidx_lz_32", "pidx_lz_64", "pidx_lz_128", "pidx_lz_256",
};

static int lz_caches_get(void)
{
	unsigned int c;
	int ret = 0;

	mutex_lock(&lz_cache_mutex);
	if (lz_cache_users++ || lz_cache[0])
		goto out;
	for (c = 0; c < LZ_NR_CLASSES; c++) {
		lz_cache[c] = kmem_cache_create(lz_cache_name[c],
						LZ_CLASS_SIZE(c),
						LZ_CLASS_SIZE(c), 0, NULL);
		if (!lz_cache[c]) {
			while (c--) {
				kmem_cache_destroy(lz_cache[c]);
				lz_cache[c] = NULL;
			}
			lz_cache_users = 0;
			ret = -ENOMEM;
			break;
		}
	}
out:
	mutex_unlock(&lz_cache_mutex);
	return ret;
}

/* Callers have waited for every RCU callback that frees into the caches. */
static void lz_caches_put(void)
{
	unsigned int c;

	mutex_lock(&lz_cache_mutex);
	if (!--lz_cache_users && !pidx_keep_caches()) {
		for (c = 0; c < LZ_NR_CLASSES; c++) {
			kmem_cache_destroy(lz_cache[c]);
			lz_cache[c] = NULL;
		}
	}
	mutex_unlock(&lz_cache_mutex);
}

/* The node was allocated before its number was known. */
static inline void lz_rekey(struct lz_node *n, u32 key)
{
	lz_set_word(n, key, n->word & U32_MAX);
}

static __always_inline bool lz_marked(const struct lz_node *n)
{
	return test_bit(LZ_MARKED, &n->word);
}

/*
 * A bit spinlock in the node's word rather than a spinlock_t: one more word
 * would push a height-1 node from 32 to 64 bytes, and lockdep could not
 * check these locks anyway, since a writer holds up to 17 nodes of one class
 * at once in key order (see the top comment for why that order is safe).
 * Callers have interrupts, hence preemption, off: no preempt_disable(), and
 * no sparse __acquire() context to balance across the lock loops.
 */
static __always_inline void lz_lock(struct lz_node *n)
{
	lockdep_assert_irqs_disabled();
	while (unlikely(test_and_set_bit_lock(LZ_LOCK, &n->word))) {
		do
			cpu_relax();
		while (test_bit(LZ_LOCK, &n->word));
	}
}

/*
 * Atomic, not __clear_bit_unlock()/__set_bit(): those are plain
 * read-modify-writes of a word that readers load (lz_key()) and waiters'
 * test_and_set_bit_lock() write concurrently.  KCSAN reported both, and
 * where atomics are emulated under a hashed lock (the generic bitops) a
 * plain store there can undo a concurrent fetch_or, leaving the lock bit set
 * with no owner.
 */
static __always_inline void lz_unlock(struct lz_node *n)
{
	clear_bit_unlock(LZ_LOCK, &n->word);
}

static __always_inline void lz_mark_locked(struct lz_node *n)
{
	set_bit(LZ_MARKED, &n->word);
}

/* Under trace_visits a node counts as visited when its key is read. */
static __always_inline u32 lz_visit_key(struct lz_node *n)
{
	pidx_visit_node(n, LZ_WORD_BYTES);
	return lz_key(n);
}

/* The value of a node whose word the caller has read. */
static __always_inline void *lz_value(struct lz_node *n)
{
	pidx_visit_more(&n->value, sizeof(n->value));
	return READ_ONCE(n->value);
}

static __always_inline struct lz_node *lz_next(struct lz_node *x, int lvl)
{
	pidx_visit_more(&x->next[lvl], sizeof(x->next[lvl]));
	return rcu_dereference(x->next[lvl]);
}

/* A predecessor's link, read by the writer that holds its lock. */
static __always_inline struct lz_node *lz_locked_next(struct lz_node *x,
						      int lvl)
{
	return rcu_dereference_protected(x->next[lvl],
					 test_bit(LZ_LOCK, &x->word));
}

/*
 * The first node with key >= @key, or NULL; stops early on an exact match.
 * @stop, the node that ended the level above, is known to be past @key, so
 * meeting it again on the level below needs no look at its key.
 */
static struct lz_node *lz_first_ge(struct lz *lz, u32 key)
{
	struct lz_node *x = lz->head, *y = NULL, *stop = NULL;
	int lvl = READ_ONCE(lz->top) - 1;

	pidx_visit_node(x, LZ_WORD_BYTES);
	for (; lvl >= 0; lvl--) {
		y = lz_next(x, lvl);
		while (y && y != stop && lz_visit_key(y) < key) {
			x = y;
			y = lz_next(x, lvl);
		}
		if (y && y != stop && lz_key(y) == key)
			break;
		stop = y;
	}
	return y;
}

/*
 * A writer's search: on each level below @levels, the last node with key <
 * @key and the one after it.  Returns the highest level on which a node with
 * @key was met, or -1.
 */
static int lz_find(struct lz *lz, u32 key, unsigned int levels,
		   struct lz_node **preds, struct lz_node **succs)
{
	struct lz_node *x = lz->head, *y, *stop = NULL;
	int lvl, found = -1;

	pidx_visit_node(x, LZ_WORD_BYTES);
	for (lvl = levels - 1; lvl >= 0; lvl--) {
		pidx_race_delay();
		y = lz_next(x, lvl);
		while (y && y != stop && lz_visit_key(y) < key) {
			x = y;
			y = lz_next(x, lvl);
		}
		if (found < 0 && y && y != stop && lz_key(y) == key)
			found = lvl;
		preds[lvl] = x;
		succs[lvl] = y;
		stop = y;
	}
	return found;
}

static unsigned int lz_search_levels(struct lz *lz, unsigned int h)
{
	return max_t(unsigned int, READ_ONCE(lz->top), h);
}

static void lz_unlock_preds(struct lz_node **preds, int highest)
{
	int i;

	for (i = 0; i <= highest; i++)
		if (!i || preds[i] != preds[i - 1])
			lz_unlock(preds[i]);
}

/*
 * Link @n, whose key is claimed in the bitmap and which is born locked, at
 * every one of its levels.  Interrupts off, in an RCU read-side section.
 */
static void lz_link(struct lz *lz, struct lz_node *n)
{
	struct lz_node *preds[LZ_MAX_LEVEL], *succs[LZ_MAX_LEVEL];
	unsigned int h = lz_height(n), top;
	u32 key = lz_key(n);
	struct lz_node *pred, *succ;
	int i, highest;
	bool valid;

	pidx_race_delay();
	/* Raised first: a search that starts after the link sees every level. */
	top = READ_ONCE(lz->top);
	while (h > top && !try_cmpxchg(&lz->top, &top, h))
		;

	for (;;) {
		lz_find(lz, key, lz_search_levels(lz, h), preds, succs);
		valid = true;
		highest = -1;
		for (i = 0; valid && i < h; i++) {
			pred = preds[i];
			succ = succs[i];
			if (!i || pred != preds[i - 1])
				lz_lock(pred);
			pidx_race_delay();
			highest = i;
			/*
			 * The claimed bit keeps @key itself out, but an
			 * unmarked node with it would be a second copy.
			 */
			WARN_ON_ONCE(succ && lz_key(succ) == key && !lz_marked(succ));
			valid = !lz_marked(pred) && (!succ || !lz_marked(succ)) &&
				lz_locked_next(pred, i) == succ;
		}
		if (valid)
			break;
		lz_unlock_preds(preds, highest);
		this_cpu_inc(lz->pcpu->retries);
	}

	for (i = 0; i < h; i++)
		RCU_INIT_POINTER(n->next[i], succs[i]);
	/* Bottom up, so no level ever holds @n without the levels below it. */
	for (i = 0; i < h; i++) {
		rcu_assign_pointer(preds[i]->next[i], n);
		pidx_race_delay();
	}
	lz_unlock_preds(preds, highest);
	lz_unlock(n);

	this_cpu_inc(lz->pcpu->nr);
	this_cpu_add(lz->pcpu->bytes, LZ_CLASS_SIZE(lz_cls(n)));
	this_cpu_inc(lz->pcpu->hist[h]);
}

/*
 * Unlink the present node with @key; NULL if there is none.  Interrupts
 * off, in an RCU read-side section.
 */
static struct lz_node *lz_unlink(struct lz *lz, u32 key)
{
	struct lz_node *preds[LZ_MAX_LEVEL], *succs[LZ_MAX_LEVEL];
	struct lz_node *victim = NULL, *pred;
	int i, h = 1, found, highest;
	unsigned int levels;
	bool valid;

	for (;;) {
		levels = lz_search_levels(lz, h);
		found = lz_find(lz, key, levels, preds, succs);
		if (!victim) {
			if (found < 0)
				return NULL;
			victim = succs[found];
			h = lz_height(victim);
			pidx_race_delay();
			/*
			 * Waits for its insert to finish if it has not: the
			 * levels it was missing then fail the validation
			 * below, and the search runs again.
			 */
			lz_lock(victim);
			if (lz_marked(victim)) {
				lz_unlock(victim);
				return NULL;
			}
			lz_mark_locked(victim);
			/*
			 * A search that read top before that insert raised it
			 * left preds[] above the old top unset: search all of
			 * the victim's levels before locking any of them.
			 */
			if (levels < h)
				continue;
		}
		valid = true;
		highest = -1;
		for (i = 0; valid && i < h; i++) {
			pred = preds[i];
			if (!i || pred != preds[i - 1])
				lz_lock(pred);
			pidx_race_delay();
			highest = i;
			valid = !lz_marked(pred) && lz_locked_next(pred, i) == victim;
		}
		if (valid)
			break;
		lz_unlock_preds(preds, highest);
		this_cpu_inc(lz->pcpu->retries);
	}

	/* Top down: no level holds it without the levels below it. */
	for (i = h - 1; i >= 0; i--) {
		rcu_assign_pointer(preds[i]->next[i], lz_locked_next(victim, i));
		pidx_race_delay();
	}
	lz_unlock_preds(preds, highest);
	lz_unlock(victim);

	this_cpu_dec(lz->pcpu->nr);
	this_cpu_sub(lz->pcpu->bytes, LZ_CLASS_SIZE(lz_cls(victim)));
	this_cpu_dec(lz->pcpu->hist[h]);
	return victim;
}

static unsigned int lz_draw_height(struct lz *lz)
{
	unsigned long flags;
	unsigned int h;
	u64 r;

	/* Interrupts off: an IPI-context writer may preempt one on this CPU. */
	local_irq_save(flags);
	r = pidx_rand_next(this_cpu_ptr(&lz->pcpu->rand));
	local_irq_restore(flags);
	/* Each leading all-zero group of log2(p) bits has probability 1/p. */
	h = 1 + (64 - fls64(r)) / lz->p_shift;
	return min(h, lz->max_level);
}

/*
 * Allocated before any lock is taken, and locked for its inserter; @key
 * places it (NUMA) and may be a guess.
 */
static struct lz_node *lz_node_new(struct lz *lz, u32 key, gfp_t gfp)
{
	unsigned int h = lz_draw_height(lz);
	unsigned int cls = lz->cls[h];
	struct lz_node *n;
	void *obj;

	/* failures under GFP_ATOMIC are counted by the caller, not logged */
	if (!gfpflags_allow_blocking(gfp))
		gfp |= __GFP_NOWARN;
	obj = kmem_cache_alloc_node(lz_cache[cls], gfp,
				    pidx_mem_node(lz->node, key));
	if (!obj)
		return NULL;
	pidx_mem_charge(LZ_CLASS_SIZE(cls));
	n = (struct lz_node *)((struct rcu_head *)obj + 1);
	lz_set_word(n, key, h << LZ_HEIGHT_SHIFT | cls << LZ_CLS_SHIFT |
		    BIT(LZ_LOCK));
	/* a reservation: the link that makes the node reachable orders this */
	n->value = NULL;
	return n;
}

static void lz_node_free(struct lz_node *n)
{
	unsigned int cls = lz_cls(n);

	kmem_cache_free(lz_cache[cls], lz_obj(n));
	pidx_mem_uncharge(LZ_CLASS_SIZE(cls));
}

static void lz_node_free_rcu(struct rcu_head *rcu)
{
	lz_node_free((struct lz_node *)(rcu + 1));
}

static unsigned int lz_max_level(const struct pidx_params *p)
{
	unsigned int lvl = 1;
	u64 reach = p->sl_p;

	if (p->sl_max_level)
		return min_t(u32, p->sl_max_level, LZ_MAX_LEVEL);
	/* ceil(log_p(pid_max)): enough levels for a full PID space */
	while (reach < p->pid_max && lvl < LZ_MAX_LEVEL) {
		reach *= p->sl_p;
		lvl++;
	}
	return lvl;
}

static size_t lz_head_size(struct lz *lz)
{
	return struct_size(lz->head, next, lz->max_level);
}

static void lz_free_fixed(struct lz *lz)
{
	kfree(lz->head);
	pidx_pidmap_free(&lz->pm);
	free_percpu(lz->pcpu);
	kfree(lz);
}

static struct pidx_index *lz_create(const struct pidx_params *p)
{
	unsigned int h, cpu;
	struct lz *lz;
	int ret;

	if (p->sl_p < 2 || p->sl_p > 16 || !is_power_of_2(p->sl_p) ||
	    p->pid_max < PIDX_PID_MAX_MIN || p->pid_max > PIDX_PID_MAX_LIMIT)
		return ERR_PTR(-EINVAL);
	lz = kzalloc(sizeof(*lz), GFP_KERNEL);
	if (!lz)
		return ERR_PTR(-ENOMEM);
	lz->pid_max = p->pid_max;
	lz->p = p->sl_p;
	lz->p_shift = ilog2(p->sl_p);
	lz->max_level = lz_max_level(p);
	lz->node = p->node;
	lz->top = 1;
	for (h = 1; h <= lz->max_level; h++) {
		size_t size = sizeof(struct rcu_head) +
			      struct_size((struct lz_node *)NULL, next, h);

		lz->cls[h] = order_base_2(DIV_ROUND_UP(size, LZ_CLASS_SIZE(0)));
	}
	BUILD_BUG_ON(sizeof(struct rcu_head) + sizeof(struct lz_node) +
		     LZ_MAX_LEVEL * sizeof(void *) >
		     LZ_CLASS_SIZE(LZ_NR_CLASSES - 1));

	ret = -ENOMEM;
	lz->head = kzalloc(lz_head_size(lz), GFP_KERNEL);
	lz->pcpu = alloc_percpu(struct lz_pcpu);
	if (!lz->head || !lz->pcpu || pidx_pidmap_init(&lz->pm, lz->pid_max))
		goto err;
	lz_set_word(lz->head, 0, lz->max_level << LZ_HEIGHT_SHIFT);
	for_each_possible_cpu(cpu)
		per_cpu_ptr(lz->pcpu, cpu)->rand = pidx_rand_seed(p->seed, cpu);
	ret = lz_caches_get();
	if (ret)
		goto err;
	lz->fixed_bytes = sizeof(*lz) + lz_head_size(lz) +
			  pidx_pidmap_bytes(&lz->pm) +
			  sizeof(struct lz_pcpu) * num_possible_cpus();
	pidx_mem_charge(lz->fixed_bytes);
	return (struct pidx_index *)lz;
err:
	lz_free_fixed(lz);
	return ERR_PTR(ret);
}

static void lz_destroy(struct pidx_index *idx)
{
	struct lz *lz = to_lz(idx);
	struct lz_node *n, *next;

	/* Contract: no writer; a reader that outlived its storm may still walk. */
	synchronize_rcu();
	n = rcu_dereference_protected(lz->head->next[0], true);
	while (n) {
		next = rcu_dereference_protected(n->next[0], true);
		lz_node_free(n);
		n = next;
	}
	pidx_mem_uncharge(lz->fixed_bytes);
	lz_free_fixed(lz);
	/* Nodes removed earlier free themselves from RCU callbacks into the caches. */
	rcu_barrier();
	lz_caches_put();
}

static int lz_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct lz *lz = to_lz(idx);
	unsigned long flags;
	struct lz_node *n;
	s64 cur;
	u64 lap;
	int pid;

	/* placed for the number the cursor points at, which it mostly gets */
	n = lz_node_new(lz, pidx_pidmap_cursor(&lz->pm), gfp);
	if (!n)
		return -ENOMEM;
	local_irq_save(flags);
	rcu_read_lock();
	pid = pidx_pidmap_claim_cyclic(&lz->pm, &cur, &lap);
	if (pid >= 0) {
		lz_rekey(n, pid);
		lz_link(lz, n);
		pidx_pidmap_advance(&lz->pm, cur, lap, pid + 1);
	}
	rcu_read_unlock();
	local_irq_restore(flags);
	if (pid < 0)
		lz_node_free(n);
	return pid;
}

static int lz_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct lz *lz = to_lz(idx);
	unsigned long flags;
	struct lz_node *n, *y;
	int ret = 0;

	if (pid < 1 || pid >= lz->pid_max)
		return -EINVAL;
	n = lz_node_new(lz, pid, gfp);
	if (!n)
		return -ENOMEM;
	local_irq_save(flags);
	rcu_read_lock();
	while (!pidx_pidmap_claim(&lz->pm, pid)) {
		/*
		 * Claimed: present, or a writer on another CPU is in the
		 * middle of inserting or removing it, interrupts off, and
		 * will be done in a moment.  Wait for the outcome.
		 */
		y = lz_first_ge(lz, pid);
		if (y && lz_key(y) == pid && !lz_marked(y)) {
			ret = -EEXIST;
			break;
		}
		cpu_relax();
	}
	if (!ret)
		lz_link(lz, n);
	rcu_read_unlock();
	local_irq_restore(flags);
	if (ret)
		lz_node_free(n);
	return ret;
}

static void *lz_lookup(struct pidx_index *idx, u32 pid)
{
	struct lz_node *n = lz_first_ge(to_lz(idx), pid);

	if (!n || lz_key(n) != pid || lz_marked(n))
		return NULL;
	return lz_value(n);
}

/*
 * Any context: the search is lockless and the store one cmpxchg.  The node
 * found unmarked is the caller's reservation, which nobody else removes.  A
 * caller that publishes a number it does not own may store into a node its
 * owner is removing: no reader returns a marked node's value, and the node
 * is freed as any other.
 */
static int lz_publish(struct pidx_index *idx, u32 pid, void *value)
{
	struct lz *lz = to_lz(idx);
	struct lz_node *n;
	int ret = 0;

	if (WARN_ON_ONCE(!value || ((unsigned long)value & 3)))
		return -EINVAL;
	if (pid < 1 || pid >= lz->pid_max)
		return -ENOENT;
	rcu_read_lock();
	n = lz_first_ge(lz, pid);
	if (!n || lz_key(n) != pid || lz_marked(n)) {
		ret = -ENOENT;
	} else {
		/* readers meanwhile find the reservation, then the value */
		pidx_race_delay();
		pidx_visit_more(&n->value, sizeof(n->value));
		/* release: the object is built before a reader can find it */
		if (cmpxchg_release(&n->value, NULL, value))
			ret = -EEXIST;
	}
	rcu_read_unlock();
	return ret;
}

static int lz_remove(struct pidx_index *idx, u32 pid)
{
	struct lz *lz = to_lz(idx);
	unsigned long flags;
	struct lz_node *n;

	if (pid < 1 || pid >= lz->pid_max)
		return -ENOENT;
	/*
	 * an absent number's early answer; the owner's number is held, and
	 * lz_unlink() refuses an absent one anyway, so a storm skips the read
	 * of a bitmap line that other CPUs' allocs write
	 */
	if (pidx_checking_contract() && !test_bit(pid, lz->pm.map))
		return -ENOENT;
	local_irq_save(flags);
	rcu_read_lock();
	n = lz_unlink(lz, pid);
	if (n)
		pidx_pidmap_release(&lz->pm, pid);
	rcu_read_unlock();
	local_irq_restore(flags);
	if (!n)
		return -ENOENT;
	call_rcu(lz_obj(n), lz_node_free_rcu);
	return 0;
}

static int lz_find_ge(struct pidx_index *idx, u32 pid)
{
	struct lz *lz = to_lz(idx);
	struct lz_node *n;

	if (pid >= lz->pid_max)
		return -ENOENT;
	n = lz_first_ge(lz, pid);
	/* a node being removed is not there any more, a reserved one not yet */
	while (n && (lz_marked(n) || !lz_value(n))) {
		n = lz_next(n, 0);
		if (n)
			pidx_visit_node(n, LZ_WORD_BYTES);
	}
	return n ? lz_key(n) : -ENOENT;
}

static void lz_set_cursor(struct pidx_index *idx, u32 next)
{
	pidx_pidmap_set_cursor(&to_lz(idx)->pm, next);
}

const struct pidx_ops pidx_lazyskip_ops = {
	.name		= "lazyskip",
	.desc		= "lazy skip list: per-node locks, RCU readers, bitmap cyclic alloc",
	.create		= lz_create,
	.destroy	= lz_destroy,
	.alloc		= lz_alloc,
	.insert		= lz_insert,
	.publish	= lz_publish,
	.lookup		= lz_lookup,
	.remove		= lz_remove,
	.find_ge	= lz_find_ge,
	.set_cursor	= lz_set_cursor,
	.verify		= pidx_lz_verify,
	.mem_bytes	= pidx_lz_mem_bytes,
	.describe	= pidx_lz_describe,
	.nodes		= pidx_lz_nodes,
};
