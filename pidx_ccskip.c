// SPDX-License-Identifier: GPL-2.0
/*
 * "ccskip": a cache-conscious skip list, stored as the skip tree it is
 * isomorphic to (X. Messeguer, "Skip trees, an alternative data structure to
 * skip lists in a concurrent approach", 1997; the same layout as the
 * B-skiplist and, for the leaves, the unrolled skip list).
 *
 * Every key draws a height h >= 1 with P(h > i) = B^-i and is on levels
 * 0..h-1, as in a skip list.  Each level is cut into nodes at the keys that
 * are also on the level above; a node keeps its keys in one sorted array
 * and, above level 0, a child pointer per key to the node one level down
 * that starts with that key.  A sentinel key 0 (PIDs start at 1) of unbounded
 * height heads every level, so the leftmost node of each level starts with 0
 * and the root is the one node of the top level.  A search reads one node per
 * level, searching its keys from an interpolated first probe (ccs_rank()),
 * so a lookup reads about log_B(n) + 1
 * nodes instead of the (p - 1) log_p(n) nodes of a pointer-per-key skip list:
 * 4 at 32K keys, 5-6 at 1M.
 *
 * Above the tree sits a directory indexed by the PID's high bits, as idr's
 * levels are (struct ccs): per bucket of 8 numbers, the leaf that covers
 * the bucket's first number if it holds keys of the bucket.  A lookup reads
 * the bucket and that leaf, or the next bucket's leaf for a key past a leaf
 * boundary inside its bucket, instead of one node per level; only when
 * neither holds the key's range does it descend from the root (about 1
 * lookup in 30 at 32K and at 1M dense keys).  The skip tree stays the
 * index: writers, find_ge() and the cyclic search use it alone, and the
 * directory only leads a lookup to a leaf the tree also reaches.  Between a
 * writer's publish and its directory stores a lookup through the directory
 * may still answer from the old leaf while find_ge() sees the new tree:
 * both are answers about a key whose change has not returned, which pidx.h
 * leaves open, and each agrees with the tree once it has.  It costs
 * pid_max / 8 pointers (4 MiB at pid_max 4M, 256 KiB at 256K) and, per
 * change, a store for each bucket of the new leaves' keys.
 *
 * B = 16 (params->sl_p when it is 8 or 16; the skip lists' default of 4 would
 * make nodes too small to pay for their header).  A node then holds 16 keys
 * on average, 64 bytes: the keys a search touches are one or two cache
 * lines, plus one line for the child pointer.  Larger B shortens the tree
 * further but every write copies a node (below), and copying and binary
 * search grow with B while the number of levels shrinks only with log B.
 *
 * Readers (lookup, find_ge) hold rcu_read_lock() only.  A published node's
 * keys never change: a writer builds new copies of the nodes it changes,
 * bottom-up, and publishes the topmost with one rcu_assign_pointer() into
 * the child slot of its parent (or the root pointer); the nodes it replaced
 * go back after a grace period.  A reader thus sees each subtree either
 * whole before or whole after the change, and every version it can reach
 * holds every key present throughout its call.  Inserting a key of height h
 * splits the h - 1 nodes below its top level at the key and copies the one on
 * its top level; removing one merges them back: h nodes written per change,
 * one for 15 changes in 16.
 *
 * The map's two phases: a key's value lives in its leaf, in a value array
 * where inner nodes keep their children (pidx_ccskip.h), NULL while the
 * key is only reserved.  Every copy, split and merge of a leaf carries each
 * key's value word with it (ccs_copy_vals()), and publish() stores into the
 * current leaf under the writers' lock, which every copy holds: a value is
 * never stored into a version that a copy has already read, so it is in
 * every later version, once, and never lost.  Readers take a value only
 * from the leaf slot whose key matched, in a version the tree had at some
 * moment of their call; a replaced version keeps the values it had, which
 * are the new one's for every key but the one whose change is under way
 * (publish() waits for the lock), so a number published for the whole call
 * gives its own value, also through a directory entry that still leads to
 * the old leaf.  find_ge() scans leaves for the first non-NULL value from
 * the pid on, moving to the next leaf where one runs out (ccs_find_ge()).
 *
 * What the value costs: 8 bytes per leaf slot, before kmalloc's rounding.
 * A leaf of nr keys needed ALIGN(12 + 4 nr, 8) + 24 bytes (header, keys,
 * tail) and now 8 nr more; nr is geometric with mean B, which at B = 16
 * averages 6.4 bytes per key before and 14.4 after, or, rounded up to
 * kmalloc's size classes (a 16-key leaf goes from 104 to 232 bytes, kmalloc
 * 128 to 256; 20 to 36 keys from 128 or 192 to 512), 7.7 and 19.4; inner
 * nodes, about one key in 15, are unchanged.  Lines: the value array starts
 * where the keys end, as near as it can be without spreading the keys that
 * ccs_rank() probes (pairs of key and value would double the bytes each
 * probe strides over and part leaves from the search that inner nodes
 * share), but value[i] lies 4 nr + 4 i bytes or so past keys[i]: in a
 * 16-key leaf always on another line, one line more per lookup.
 *
 * Cyclic allocation is O(B log_B n) however dense the space: each inner
 * node keeps, per child, the number of keys present in that child's subtree.
 * Readers never look at these counts, so writers update them in place.  A
 * subtree whose count equals the width of its key range has no free number
 * and is skipped without being read.
 *
 * Writers serialize on one spinlock taken with interrupts off, as
 * alloc_pid() takes pidmap_lock, and allocate under it with GFP_ATOMIC
 * because what they copy is only known once the lock is held; a failed
 * allocation leaves the index untouched and returns -ENOMEM, including from
 * remove(), which has to write copies of the nodes it changes
 * (remove_may_fail).  No reserve could make that removal certain: in an ipi
 * storm no grace period ends within a round, so every removal of the round
 * needs fresh memory, and an in-place removal would need readers that skip
 * tombstones.
 *
 * This file holds what a storm runs: lookups, writers, create and destroy.
 * The node layout is in pidx_ccskip.h, the search inside a node in
 * pidx_ccskip_rank.h; verify(), describe() and nodes(), which walk the
 * whole tree, and mem_bytes() are in pidx_ccskip_verify.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
/* kvzalloc_node(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/prefetch.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "pidx.h"
#include "pidx_compat.h"
#include "pidx_ccskip.h"
#include "pidx_ccskip_rank.h"

#define CCS_B_DEFAULT		16

/* Where a writer stands on each level: the node and the slot of the key. */
struct ccs_path {
	struct ccs_node *n[CCS_LEVELS_MAX];
	u32 pos[CCS_LEVELS_MAX];
	u32 top;		/* levels in the tree */
};

/* ccs_rank() reporting each key it reads to trace_visits */
static noinline u32 ccs_rank_traced_keys(const struct ccs_node *n, u32 nr,
					 u32 key)
{
	return __ccs_rank(n, nr, key, true);
}

/* ... and the header first, for a node not read before */
static u32 ccs_rank_traced(const struct ccs_node *n, u32 nr, u32 key)
{
	pidx_visit_node(n, sizeof(*n));
	return ccs_rank_traced_keys(n, nr, key);
}

static __always_inline u32 ccs_visit_rank(const struct ccs_node *n, u32 nr,
					  u32 key)
{
	if (static_branch_unlikely(&pidx_visits_on))
		return ccs_rank_traced(n, nr, key);
	return ccs_rank(n, nr, key);
}

static __always_inline struct ccs_node *ccs_rkid(struct ccs_node *n, u32 nr,
						 u32 i)
{
	struct ccs_node __rcu **kid = &ccs_kids(n, nr)[i];

	pidx_visit_more(kid, sizeof(*kid));
	return rcu_dereference(*kid);
}

static struct ccs_node *ccs_wkid(struct ccs *c, struct ccs_node *n, u32 i)
{
	return rcu_dereference_protected(ccs_kids(n, n->nr)[i],
					 lockdep_is_held(&c->lock));
}

/* Keys present in the subtree of @n (the sentinel is not a key). */
static u32 ccs_weight(struct ccs_node *n)
{
	u32 *cnt, w = 0, i;

	if (!n->level)
		return n->nr - !n->keys[0];
	cnt = ccs_counts(n);
	for (i = 0; i < n->nr; i++)
		w += cnt[i];
	return w;
}

static struct ccs_node *ccs_node_new(struct ccs *c, u32 nr, u32 level,
				     u32 first, u32 hi, gfp_t gfp)
{
	size_t size = ccs_tail_off(nr, level) + sizeof(struct ccs_tail);
	size_t bytes = kmalloc_size_roundup(size);
	struct ccs_tail *t;
	struct ccs_node *n;

	if (nr > CCS_NR_MAX)
		return NULL;
	n = kmalloc_node(size, gfp | __GFP_NOWARN,
			 pidx_mem_node(c->node, first));
	if (!n)
		return NULL;
	pidx_mem_charge(bytes);
	n->nr = nr;
	n->level = level;
	n->unused = 0;
	n->scale = 0;
	n->hi = hi;
	t = ccs_tail(n);
	t->back = ccs_tail_off(nr, level);
	t->bytes = bytes;
	/* counted from birth, so discarding a spare undoes it exactly */
	c->lvl_nodes[level]++;
	c->lvl_keys[level] += nr;
	WRITE_ONCE(c->bytes, c->bytes + bytes);
	return n;
}

/* Once its keys are in, before the node is published. */
static void ccs_node_seal(struct ccs_node *n)
{
	n->scale = ccs_scale(n);
}

static void ccs_node_free(struct ccs_node *n)
{
	u32 bytes = ccs_tail(n)->bytes;

	kfree(n);
	pidx_mem_uncharge(bytes);
}

static void ccs_node_free_rcu(struct rcu_head *rcu)
{
	struct ccs_tail *t = container_of(rcu, struct ccs_tail, rcu);

	pidx_mem_uncharge(t->bytes);
	kfree((char *)t - t->back);
}

static void ccs_node_uncount(struct ccs *c, struct ccs_node *n)
{
	c->lvl_nodes[n->level]--;
	c->lvl_keys[n->level] -= n->nr;
	WRITE_ONCE(c->bytes, c->bytes - ccs_tail(n)->bytes);
}

/* A node that was never published: no reader can hold it. */
static void ccs_node_discard(struct ccs *c, struct ccs_node *n)
{
	ccs_node_uncount(c, n);
	ccs_node_free(n);
}

static void ccs_node_retire(struct ccs *c, struct ccs_node *n)
{
	ccs_node_uncount(c, n);
	call_rcu(&ccs_tail(n)->rcu, ccs_node_free_rcu);
}

/* Allocations under the lock: never sleep, never warn (failures count). */
static gfp_t ccs_lock_gfp(gfp_t gfp)
{
	return (gfpflags_allow_blocking(gfp) ? GFP_ATOMIC : gfp) | __GFP_NOWARN;
}

/*
 * The value of slot @i of leaf @n: NULL for a reservation.  READ_ONCE()
 * orders the caller's reads through it after the publisher's stores to its
 * object, which cmpxchg_release() put first.
 */
static __always_inline void *ccs_value(struct ccs_node *n, u32 nr, u32 i)
{
	void **v = &ccs_vals(n, nr)[i];

	pidx_visit_more(v, sizeof(*v));
	return READ_ONCE(*v);
}

/* A leaf from the directory whose header said the key is not in it. */
static __always_inline void ccs_visit_passed(const struct ccs_node *n)
{
	if (n)
		pidx_visit_node(n, sizeof(*n));
}

/*
 * Every key is on level 0, so the descent tests for @pid there only: a test
 * on every level would be taken at a level that varies with the key's
 * height, a branch to mispredict, for the few keys (one in B) it would save
 * a level or more.  The value comes from the leaf slot whose key matched;
 * the sentinel's is NULL, so a lookup of 0 needs no test of its own.
 */
static void *ccs_lookup(struct pidx_index *idx, u32 pid)
{
	struct ccs *c = to_ccs(idx);
	struct ccs_node __rcu **kids, **d;
	struct ccs_node *n;
	u32 nr, i;

	if (likely(pid < c->pid_max)) {
		d = &c->dir[pid >> CCS_DIR_SHIFT];
		pidx_visit_more(d, sizeof(*d));
		n = rcu_dereference(d[0]);
		if (likely(n && pid < n->hi))
			goto leaf;
		ccs_visit_passed(n);
		/*
		 * Past a leaf boundary inside the bucket: the leaf that starts
		 * there usually holds the next bucket's keys too.  A leaf whose
		 * range holds @pid answers for it, whichever version it is.
		 */
		pidx_visit_more(&d[1], sizeof(*d));
		n = rcu_dereference(d[1]);
		if (n && n->keys[0] <= pid && pid < n->hi)
			goto leaf;
		ccs_visit_passed(n);
	}
	n = rcu_dereference(c->root);
	while (n->level) {
		nr = n->nr;
		kids = ccs_kids(n, nr);
		/*
		 * The child pointers lie after the keys, a line or two away:
		 * start their loads now, beside the search, not after it.
		 */
		prefetch(kids);
		prefetch(&kids[nr - 1]);
		i = ccs_visit_rank(n, nr, pid);
		n = ccs_rkid(n, nr, i);
	}
leaf:
	/*
	 * In a leaf of consecutive PIDs the interpolated slot is @pid's own:
	 * one load then, not the window's three steps.
	 */
	nr = n->nr;
	i = ccs_guess(n, nr, pid);
	pidx_visit_node(n, sizeof(*n));
	pidx_visit_more(&n->keys[i], sizeof(u32));
	if (likely(n->keys[i] == pid))
		return ccs_value(n, nr, i);
	if (static_branch_unlikely(&pidx_visits_on))
		i = ccs_rank_traced_keys(n, nr, pid);
	else
		i = ccs_rank(n, nr, pid);
	return n->keys[i] == pid ? ccs_value(n, nr, i) : NULL;
}

/*
 * The smallest published key >= @pid.  The descent keeps, per level, the
 * node it passed through and the slot after the one it took.  When the leaf
 * holds no published key from @pid on, the walk takes the deepest such slot
 * and goes down the left edge of its subtree to the next leaf, as an
 * in-order walk does.  A slot's subtree covers the slot's key range for as
 * long as its node lives (a writer puts only a new version of the same range
 * there), so the leaves met cover [@pid, pid_max) in order without a gap,
 * each in a version the tree had during the call: a key published for the
 * whole call is met with its value.  Reservations are few (keys between
 * alloc() and publish()), so the scan past them is short; what it costs
 * against the set is the next leaf, read where a leaf holds nothing from
 * @pid on, for its first key's value.
 */
static int ccs_find_ge(struct pidx_index *idx, u32 pid)
{
	struct ccs_node *up[CCS_LEVELS_MAX];
	u32 next[CCS_LEVELS_MAX];
	struct ccs *c = to_ccs(idx);
	struct ccs_node *n;
	u32 nr, i, l, top;

	if (pid >= c->pid_max)
		return -ENOENT;
	n = rcu_dereference(c->root);
	top = n->level;
	while (n->level) {
		nr = n->nr;
		i = ccs_visit_rank(n, nr, pid);
		up[n->level] = n;
		next[n->level] = i + 1;
		n = ccs_rkid(n, nr, i);
	}
	nr = n->nr;
	i = ccs_visit_rank(n, nr, pid);
	/* the last key <= @pid: the one after it unless it is @pid */
	i += n->keys[i] < pid;
	for (;;) {
		for (; i < nr; i++) {
			if (ccs_value(n, nr, i)) {
				pidx_visit_more(&n->keys[i], sizeof(u32));
				return n->keys[i];
			}
		}
		for (l = 1; l <= top && next[l] >= up[l]->nr; l++)
			;
		if (l > top)
			return -ENOENT;
		n = ccs_rkid(up[l], up[l]->nr, next[l]++);
		pidx_visit_node(n, sizeof(*n));
		while (n->level) {
			up[n->level] = n;
			next[n->level] = 1;
			n = ccs_rkid(n, n->nr, 0);
			pidx_visit_node(n, sizeof(*n));
		}
		nr = n->nr;
		i = 0;
	}
}

/* Fill @path for @key down to level 0; true if @key is present. */
static bool ccs_descend(struct ccs *c, u32 key, struct ccs_path *path)
{
	struct ccs_node *n = ccs_wroot(c);
	bool found = false;
	u32 l = n->level, i;

	path->top = l + 1;
	for (;;) {
		i = ccs_visit_rank(n, n->nr, key);
		path->n[l] = n;
		path->pos[l] = i;
		if (key && n->keys[i] == key)
			found = true;
		if (!l--)
			return found;
		pidx_visit_more(&ccs_kids(n, n->nr)[i], sizeof(void *));
		n = ccs_wkid(c, n, i);
	}
}

static void ccs_publish(struct ccs *c, struct ccs_path *path, u32 level,
			struct ccs_node *m)
{
	struct ccs_node *p;

	if (level + 1 == path->top) {
		rcu_assign_pointer(c->root, m);
		return;
	}
	p = path->n[level + 1];
	rcu_assign_pointer(ccs_kids(p, p->nr)[path->pos[level + 1]], m);
}

/*
 * Point the buckets of @leaf's keys at it, and clear the bucket of @edge if
 * no key of @leaf is left in it.  The new leaves of one change cover the
 * old ones' ranges exactly (a copy, a split in two, or a merge of two), and
 * a bucket's entry can differ between the two versions only where a bucket
 * has keys: so filling each new leaf, with @edge the key inserted or
 * removed (the one point where a leaf's keys in a bucket can drop to none:
 * a removed key, or a split at a bucket's middle), rewrites every entry
 * that pointed at a leaf the change replaces.  The work is the leaf's keys,
 * not its range, which is wide in a sparse PID space.
 */
static void ccs_dir_fill(struct ccs *c, struct ccs_node *leaf, u32 edge)
{
	u32 first = leaf->keys[0], eb = edge >> CCS_DIR_SHIFT, b, i;
	bool kept = false;

	for (i = 0; i < leaf->nr; i++) {
		b = leaf->keys[i] >> CCS_DIR_SHIFT;
		/* a bucket that starts before the leaf belongs to the one before */
		if (b << CCS_DIR_SHIFT < first)
			continue;
		kept |= b == eb;
		rcu_assign_pointer(c->dir[b], leaf);
	}
	if (!kept && eb << CCS_DIR_SHIFT >= first &&
	    eb << CCS_DIR_SHIFT < leaf->hi)
		RCU_INIT_POINTER(c->dir[eb], NULL);
}

/* Drop root levels that hold only the sentinel, so readers skip them. */
static void ccs_shrink(struct ccs *c)
{
	struct ccs_node *r = ccs_wroot(c);

	while (r->level && r->nr == 1) {
		rcu_assign_pointer(c->root, ccs_wkid(c, r, 0));
		ccs_node_retire(c, r);
		r = ccs_wroot(c);
	}
}

/* Raise the root to level @h - 1 with sentinel-only nodes. */
static int ccs_grow(struct ccs *c, u32 h, gfp_t gfp)
{
	struct ccs_node *below = ccs_wroot(c), *n;
	u32 w = c->nr, l;

	for (l = below->level + 1; l < h; l++) {
		n = ccs_node_new(c, 1, l, 0, c->pid_max, gfp);
		if (!n) {
			/* what was published so far is a valid, taller tree */
			ccs_shrink(c);
			return -ENOMEM;
		}
		n->keys[0] = 0;
		RCU_INIT_POINTER(ccs_kids(n, 1)[0], below);
		ccs_counts(n)[0] = w;
		pidx_race_delay();
		rcu_assign_pointer(c->root, n);
		below = n;
	}
	return 0;
}

static u32 ccs_draw_height(struct ccs *c)
{
	u64 r = pidx_rand_next(&c->rand);
	/* each leading all-zero group of log2(b) bits has probability 1/b */
	u32 h = 1 + (64 - fls64(r)) / c->b_shift;

	return min(h, c->max_level);
}

/* Copy @cnt values of a leaf; the lock keeps publish() out meanwhile. */
static void ccs_copy_vals(struct ccs_node *dst, u32 to, struct ccs_node *src,
			  u32 from, u32 cnt)
{
	memcpy(&ccs_vals(dst, dst->nr)[to], &ccs_vals(src, src->nr)[from],
	       cnt * sizeof(void *));
}

/* Copy @cnt slots of an inner node: children and their counts. */
static void ccs_copy_slots(struct ccs_node *dst, u32 to, struct ccs_node *src,
			   u32 from, u32 cnt)
{
	memcpy(&ccs_kids(dst, dst->nr)[to], &ccs_kids(src, src->nr)[from],
	       cnt * sizeof(void *));
	memcpy(&ccs_counts(dst)[to], &ccs_counts(src)[from], cnt * sizeof(u32));
}

static void ccs_set_slot(struct ccs_node *n, u32 i, struct ccs_node *kid,
			 u32 count)
{
	RCU_INIT_POINTER(ccs_kids(n, n->nr)[i], kid);
	ccs_counts(n)[i] = count;
}

/* @key is in [1, pid_max): callers check. */
static int ccs_insert_locked(struct ccs *c, u32 key, gfp_t gfp)
{
	struct ccs_node *fresh[2 * CCS_LEVELS_MAX];
	struct ccs_node *n, *m, *left = NULL, *right = NULL;
	u32 h = ccs_draw_height(c), wl = 0, wr = 0, l, p, nf = 0;
	struct ccs_path path;

	gfp = ccs_lock_gfp(gfp);
	if (ccs_descend(c, key, &path))
		return -EEXIST;
	if (h > path.top) {
		if (ccs_grow(c, h, gfp))
			return -ENOMEM;
		ccs_descend(c, key, &path);
	}

	/* Everything first: a failure must leave the tree as it was. */
	for (l = 0; l < h; l++) {
		n = path.n[l];
		p = path.pos[l];
		if (l + 1 < h) {
			fresh[nf++] = ccs_node_new(c, p + 1, l, n->keys[0], key,
						   gfp);
			fresh[nf++] = ccs_node_new(c, n->nr - p, l, key, n->hi,
						   gfp);
		} else {
			fresh[nf++] = ccs_node_new(c, n->nr + 1, l, n->keys[0],
						   n->hi, gfp);
		}
		if (!fresh[nf - 1] || (nf > 1 && !fresh[nf - 2]))
			goto nomem;
	}

	/* Below the key's top level, split each node on the path at @key. */
	for (l = 0; l + 1 < h; l++) {
		n = path.n[l];
		p = path.pos[l];
		m = fresh[2 * l];
		memcpy(m->keys, n->keys, (p + 1) * sizeof(u32));
		if (l) {
			ccs_copy_slots(m, 0, n, 0, p);
			ccs_set_slot(m, p, left, wl);
		} else {
			ccs_copy_vals(m, 0, n, 0, p + 1);
		}
		left = m;
		m = fresh[2 * l + 1];
		m->keys[0] = key;
		memcpy(&m->keys[1], &n->keys[p + 1], (n->nr - p - 1) * sizeof(u32));
		if (l) {
			ccs_set_slot(m, 0, right, wr);
			ccs_copy_slots(m, 1, n, p + 1, n->nr - p - 1);
		} else {
			/* the new key starts the right half, reserved */
			ccs_vals(m, m->nr)[0] = NULL;
			ccs_copy_vals(m, 1, n, p + 1, n->nr - p - 1);
		}
		right = m;
		wl = ccs_weight(left);
		wr = ccs_weight(right);
	}

	/* On its top level the key joins a copy of the node. */
	n = path.n[h - 1];
	p = path.pos[h - 1];
	m = fresh[nf - 1];
	memcpy(m->keys, n->keys, (p + 1) * sizeof(u32));
	m->keys[p + 1] = key;
	memcpy(&m->keys[p + 2], &n->keys[p + 1], (n->nr - p - 1) * sizeof(u32));
	if (h > 1) {
		ccs_copy_slots(m, 0, n, 0, p);
		ccs_set_slot(m, p, left, wl);
		ccs_set_slot(m, p + 1, right, wr);
		ccs_copy_slots(m, p + 2, n, p + 1, n->nr - p - 1);
	} else {
		ccs_copy_vals(m, 0, n, 0, p + 1);
		ccs_vals(m, m->nr)[p + 1] = NULL;
		ccs_copy_vals(m, p + 2, n, p + 1, n->nr - p - 1);
	}

	for (l = 0; l < nf; l++)
		ccs_node_seal(fresh[l]);
	pidx_race_delay();
	ccs_publish(c, &path, h - 1, m);
	for (l = h; l < path.top; l++)
		ccs_counts(path.n[l])[path.pos[l]]++;
	/* the new leaves: the two halves of a split, else the copy */
	pidx_race_delay();
	ccs_dir_fill(c, fresh[0], key);
	if (h > 1)
		ccs_dir_fill(c, fresh[1], key);
	for (l = 0; l < h; l++)
		ccs_node_retire(c, path.n[l]);
	c->nr++;
	return 0;

nomem:
	while (nf--)
		if (fresh[nf])
			ccs_node_discard(c, fresh[nf]);
	ccs_shrink(c);
	return -ENOMEM;
}

static int ccs_remove_locked(struct ccs *c, u32 key)
{
	struct ccs_node *lchain[CCS_LEVELS_MAX], *fresh[CCS_LEVELS_MAX];
	struct ccs_node *n, *m, *lft, *rgt, *below = NULL;
	u32 top, l, p, wb = 0;
	struct ccs_path path;
	gfp_t gfp = GFP_ATOMIC | __GFP_NOWARN;

	if (!ccs_descend(c, key, &path))
		return -ENOENT;
	for (top = path.top - 1; path.n[top]->keys[path.pos[top]] != key; top--)
		;
	n = path.n[top];
	p = path.pos[top];
	/*
	 * Below its top level the key starts a node (path.n[l]) that merges
	 * into its left neighbour, the rightmost descendant of the slot
	 * before the key.
	 */
	if (top) {
		lchain[top - 1] = ccs_wkid(c, n, p - 1);
		for (l = top - 1; l; l--)
			lchain[l - 1] = ccs_wkid(c, lchain[l],
						 lchain[l]->nr - 1);
	}
	for (l = 0; l < top; l++) {
		fresh[l] = pidx_fault_remove_alloc() ? NULL :
			   ccs_node_new(c, lchain[l]->nr + path.n[l]->nr - 1,
					l, lchain[l]->keys[0], path.n[l]->hi,
					gfp);
		if (!fresh[l])
			goto nomem;
	}
	fresh[top] = pidx_fault_remove_alloc() ? NULL :
		     ccs_node_new(c, n->nr - 1, top, n->keys[0], n->hi, gfp);
	if (!fresh[top])
		goto nomem;

	for (l = 0; l < top; l++) {
		lft = lchain[l];
		rgt = path.n[l];
		m = fresh[l];
		memcpy(m->keys, lft->keys, lft->nr * sizeof(u32));
		memcpy(&m->keys[lft->nr], &rgt->keys[1],
		       (rgt->nr - 1) * sizeof(u32));
		if (l) {
			ccs_copy_slots(m, 0, lft, 0, lft->nr - 1);
			ccs_set_slot(m, lft->nr - 1, below, wb);
			ccs_copy_slots(m, lft->nr, rgt, 1, rgt->nr - 1);
		} else {
			ccs_copy_vals(m, 0, lft, 0, lft->nr);
			ccs_copy_vals(m, lft->nr, rgt, 1, rgt->nr - 1);
		}
		below = m;
		wb = ccs_weight(m);
	}
	m = fresh[top];
	memcpy(m->keys, n->keys, p * sizeof(u32));
	memcpy(&m->keys[p], &n->keys[p + 1], (n->nr - p - 1) * sizeof(u32));
	if (top) {
		ccs_copy_slots(m, 0, n, 0, p - 1);
		ccs_set_slot(m, p - 1, below, wb);
		ccs_copy_slots(m, p, n, p + 1, n->nr - p - 1);
	} else {
		ccs_copy_vals(m, 0, n, 0, p);
		ccs_copy_vals(m, p, n, p + 1, n->nr - p - 1);
	}

	for (l = 0; l <= top; l++)
		ccs_node_seal(fresh[l]);
	pidx_race_delay();
	ccs_publish(c, &path, top, m);
	for (l = top + 1; l < path.top; l++)
		ccs_counts(path.n[l])[path.pos[l]]--;
	/* the one new leaf: a merge of two, or the copy */
	pidx_race_delay();
	ccs_dir_fill(c, fresh[0], key);
	for (l = 0; l < top; l++) {
		ccs_node_retire(c, lchain[l]);
		ccs_node_retire(c, path.n[l]);
	}
	ccs_node_retire(c, n);
	c->nr--;
	ccs_shrink(c);
	return 0;

nomem:
	while (l--)
		ccs_node_discard(c, fresh[l]);
	return -ENOMEM;
}

/*
 * The first free number in [@start, @hi) in the subtree of @n, whose keys
 * lie in [n->keys[0], @hi); @start >= max(1, n->keys[0]).  -1 if none.
 * Only the subtree holding @start can come back empty-handed: any later one
 * that is not full has a free number, so the search is O(b) per level.
 */
static int ccs_free_in(struct ccs *c, struct ccs_node *n, u32 hi, u32 start)
{
	u32 nr = n->nr, i = ccs_visit_rank(n, nr, start), lo, end, *cnt;
	int ret;

	if (!n->level) {
		if (n->keys[i] < start)
			i++;
		while (i < nr && n->keys[i] == start) {
			start++;
			i++;
		}
		return start < hi ? start : -1;
	}
	cnt = ccs_counts(n);
	pidx_visit_more(&cnt[i], (nr - i) * sizeof(u32));
	for (; i < nr; i++) {
		lo = max(n->keys[i], 1U);
		end = i + 1 < nr ? n->keys[i + 1] : hi;
		start = max(start, lo);
		if (cnt[i] == end - lo)
			continue;
		pidx_visit_more(&ccs_kids(n, nr)[i], sizeof(void *));
		ret = ccs_free_in(c, ccs_wkid(c, n, i), end, start);
		if (ret >= 0)
			return ret;
	}
	return -1;
}

static int ccs_find_free(struct ccs *c, u32 start)
{
	int pid;

	if (start >= c->pid_max)
		return -ENOSPC;
	pid = ccs_free_in(c, ccs_wroot(c), c->pid_max, start);
	return pid < 0 ? -ENOSPC : pid;
}

/* Kernel cyclic semantics: see pidx.h and idr_alloc_cyclic(). */
static int ccs_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct ccs *c = to_ccs(idx);
	unsigned long flags;
	u32 floor, start;
	int pid, ret;

	spin_lock_irqsave(&c->lock, flags);
	floor = pidx_alloc_floor(c->cursor);
	start = max(c->cursor, floor);
	pid = ccs_find_free(c, start);
	if (pid < 0 && start > floor)
		pid = ccs_find_free(c, floor);
	if (pid >= 0) {
		ret = ccs_insert_locked(c, pid, gfp);
		if (ret)
			pid = ret;
		else
			c->cursor = pid + 1;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return pid;
}

static int ccs_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct ccs *c = to_ccs(idx);
	unsigned long flags;
	int ret;

	if (pid < 1 || pid >= c->pid_max)
		return -EINVAL;
	spin_lock_irqsave(&c->lock, flags);
	ret = ccs_insert_locked(c, pid, gfp);
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

static int ccs_remove(struct pidx_index *idx, u32 pid)
{
	struct ccs *c = to_ccs(idx);
	unsigned long flags;
	int ret;

	if (pid < 1 || pid >= c->pid_max)
		return -ENOENT;
	spin_lock_irqsave(&c->lock, flags);
	ret = ccs_remove_locked(c, pid);
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

/*
 * Under the writers' lock, which every copy of a leaf holds: a value stored
 * into a leaf after a writer had copied the leaf's values into its new
 * version would go back to the slab with the old one.  Under the lock the
 * leaf found is the current version, and each later copy carries the value
 * on (ccs_copy_vals()).
 */
static int ccs_publish_value(struct pidx_index *idx, u32 pid, void *value)
{
	struct ccs *c = to_ccs(idx);
	struct ccs_path path;
	unsigned long flags;
	struct ccs_node *n;
	int ret = -ENOENT;

	if (pid < 1 || pid >= c->pid_max)
		return -ENOENT;
	spin_lock_irqsave(&c->lock, flags);
	if (ccs_descend(c, pid, &path)) {
		n = path.n[0];
		/* the window between finding the reservation and filling it */
		pidx_race_delay();
		/* from NULL only: a second publish must not replace the value */
		if (cmpxchg_release(&ccs_vals(n, n->nr)[path.pos[0]], NULL,
				    value))
			ret = -EEXIST;
		else
			ret = 0;
	}
	spin_unlock_irqrestore(&c->lock, flags);
	return ret;
}

static struct pidx_index *ccs_create(const struct pidx_params *p)
{
	struct ccs_node *root;
	struct ccs *c;
	u64 reach;

	if (p->pid_max < PIDX_PID_MAX_MIN || p->pid_max > PIDX_PID_MAX_LIMIT)
		return ERR_PTR(-EINVAL);
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	pidx_mem_charge(sizeof(*c));
	spin_lock_init(&c->lock);
	c->pid_max = p->pid_max;
	c->node = p->node;
	c->b = p->sl_p >= 8 && p->sl_p <= 16 && is_power_of_2(p->sl_p) ?
	       p->sl_p : CCS_B_DEFAULT;
	c->b_shift = ilog2(c->b);
	/*
	 * The fewest levels whose top holds at most b^2 keys in a full PID
	 * space: one level less than ceil(log_b(pid_max)) saves every search a
	 * node for a root that a search crosses in a few more halvings, and a
	 * copy of it costs a writer only once in b^(max_level - 1) changes.
	 */
	c->max_level = 1;
	for (reach = (u64)c->b * c->b;
	     reach < c->pid_max && c->max_level < CCS_LEVELS_MAX;
	     reach *= c->b)
		c->max_level++;
	c->rand = pidx_rand_seed(p->seed, 0xcc5);

	root = ccs_node_new(c, 1, 0, 0, c->pid_max, GFP_KERNEL);
	if (!root) {
		kfree(c);
		pidx_mem_uncharge(sizeof(*c));
		return ERR_PTR(-ENOMEM);
	}
	root->keys[0] = 0;
	/* the sentinel is never published */
	ccs_vals(root, 1)[0] = NULL;
	RCU_INIT_POINTER(c->root, root);
	c->dir_nr = DIV_ROUND_UP(c->pid_max, 1U << CCS_DIR_SHIFT);
	/* one more, always NULL, for the lookup that reads a bucket's next */
	c->dir = kvzalloc_node(array_size(c->dir_nr + 1, sizeof(*c->dir)),
			       GFP_KERNEL, pidx_mem_node(c->node, 0));
	if (!c->dir) {
		ccs_node_discard(c, root);
		kfree(c);
		pidx_mem_uncharge(sizeof(*c));
		return ERR_PTR(-ENOMEM);
	}
	pidx_mem_charge(ccs_dir_bytes(c));
	ccs_dir_fill(c, root, 0);
	return (struct pidx_index *)c;
}

static void ccs_free_tree(struct ccs_node *n)
{
	u32 i;

	if (n->level)
		for (i = 0; i < n->nr; i++)
			ccs_free_tree(ccs_qkid(n, i));
	ccs_node_free(n);
}

static void ccs_destroy(struct pidx_index *idx)
{
	struct ccs *c = to_ccs(idx);

	/* Contract: no writer; a reader that outlived its storm may still walk. */
	synchronize_rcu();
	ccs_free_tree(ccs_qroot(c));
	/* nodes retired earlier still sit in RCU callbacks that uncharge */
	rcu_barrier();
	kvfree(c->dir);
	pidx_mem_uncharge(ccs_dir_bytes(c));
	kfree(c);
	pidx_mem_uncharge(sizeof(*c));
}

static void ccs_set_cursor(struct pidx_index *idx, u32 next)
{
	to_ccs(idx)->cursor = next;
}

const struct pidx_ops pidx_ccskip_ops = {
	.name		= "ccskip",
	.desc		= "cache-conscious skip list (skip tree), RCU copy-on-write nodes",
	.remove_may_fail = true,
	.create		= ccs_create,
	.destroy	= ccs_destroy,
	.alloc		= ccs_alloc,
	.insert		= ccs_insert,
	.publish	= ccs_publish_value,
	.lookup		= ccs_lookup,
	.remove		= ccs_remove,
	.find_ge	= ccs_find_ge,
	.set_cursor	= ccs_set_cursor,
	.verify		= pidx_ccs_verify,
	.mem_bytes	= pidx_ccs_mem_bytes,
	.describe	= pidx_ccs_describe,
	.nodes		= pidx_ccs_nodes,
};
