// SPDX-License-Identifier: GPL-2.0
/*
 * "rbskip": the skip list of pidx_skiplist.c with a red-black tree over its
 * upper part.  Every node whose tower reaches rb_level is also in the tree;
 * a lookup finds the floor node (largest key <= pid) in the tree and goes on
 * in the skip list from there, starting below the tree's level.
 *
 * Default rb_level: the lowest level >= 2 that keeps at most a quarter of the
 * nodes, a share of p^-(rb_level - 1): 2 for sl_p = 4 (1/4 of the nodes in
 * the tree), 3 for sl_p = 2 (1/4), 2 for sl_p = 8 and 16 (1/8, 1/16).  From
 * the floor node the skip list search then starts on level rb_level - 2:
 * level rb_level - 1 only leads to the next tree node, past the key.
 *
 * What a lookup reads (trace_visits, sl_p = 4, dense keys, pid_max 4M):
 * skiplist 17.1 nodes / 18.8 lines at 1K keys, 25.6 / 30.3 at 32K; rbskip
 * with rb_level 2 11.4 / 12.1 and 16.4 / 17.1; rb_level 3 is worse (13.7 /
 * 14.6, 18.3 / 19.2): a shorter tree costs more skip list steps than it
 * saves.  Wall time under QEMU TCG had rbskip behind at 32K (646 against
 * 618 ns) although it reads fewer nodes, because every skip list node it did
 * read sat on a line the tree walk had not touched: a tall node's skip list
 * header was then on the second line of its 128-byte object, behind the
 * tree link.  So the walk keeps both the floor and the ceiling (smallest
 * tree key above the pid): an exact tree hit returns from the tree, and the
 * ceiling, whose key the walk read, ends any skip list level that meets it
 * by pointer compare.  Same boot, 5 repeats, median ns/op before the
 * change: skiplist 293 / 497 / 2708, rbskip 241 / 443 / 2784 at 1K / 32K /
 * 1M; 1M is within the spread of both (2522-2891 and 2639-4015).  The
 * header now sits right behind the links, on their line (see Memory), and
 * the tree walk compares the header's own key.
 *
 * Lookups end in one of three places: an exact hit in the tree, a node met
 * on a skip list level below the floor, or the skip list searched from its
 * head after a tree walk that kept racing a writer.  All three return the
 * skip list node that holds the key, and the value is read from its header:
 * no copy of a key or value is kept anywhere else, so there is none that
 * could go stale.  A reservation's value word is NULL (lookup() answers
 * NULL, find_ge() walks on along level 0 past it); publish() finds the node
 * as a lookup does and fills the word with cmpxchg_release() from NULL, as
 * pidx_sl_publish_node() says.
 *
 * Lockless readers and a tree that rotates under them: the latch pattern of
 * include/linux/rbtree_latch.h.  Two copies of the tree; a writer moves the
 * latch sequence count to odd, changes copy 0, moves it to even, changes
 * copy 1, so readers always have one copy that is not being changed, picked
 * by the count's low bit.  A plain seqcount would make readers wait for the
 * writer; RCU alone is not enough because rotations are not atomic and a
 * walk racing one can miss whole subtrees.  latch_tree_find() only finds
 * exact matches, so the floor walk here is our own over the chosen copy.  A
 * reader whose copy changed under it (the count moved) retries once, then
 * searches the skip list from its head, which is always correct.  The floor
 * node found may already be on its way out of the list: its forward pointers
 * still lead past the key to what were its successors when it left.  That is
 * safe because the writer holds its lock from the unlink until the node has
 * left both copies, so the list does not change between the moment a reader
 * could first find the node unlinked and the moment it stops being findable.
 *
 * Memory: a tree node carries struct pidx_rb_link (48 bytes) at the start of
 * its object, in front of its skip list header (key and value, 16 bytes), so
 * the tree walk reads one cache line per node: links, key and, on an exact
 * hit, the value.  Heights 2-5 then take a 128-byte object (48 + 16 + 8 h +
 * 16 for the spans or rcu_head behind next[]: at most 120), 6-16 a
 * 256-byte one, as before the value word, when the links held a copy of the
 * key and an offset (56 bytes) and the header (8 bytes) lay behind the spans.
 * Height 1 is a plain skip list node: 64 bytes, 32 before.  With sl_p = 4
 * and rb_level 2: 3/4 * 64 + (1/4 - 4^-5) * 128 + 4^-5 * 256 = 80.1 bytes
 * per key, against 56.1 before and 64.25 for the plain skip list.
 *
 * Cyclic allocation, insertion and removal are the skip list's, O(log n),
 * with the tree updated in the same locked section.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kcsan-checks.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/rbtree_augmented.h>
#include <linux/seqlock.h>
#include <linux/slab.h>

#include "pidx_skiplist.h"

/*
 * The name of the latch read-side check moved between releases (and Debian
 * backported the later names into its 6.1), but every version does what
 * read_seqcount_retry() on the embedded seqcount does: smp_rmb() and a
 * compare.  Calling that directly needs no version test.
 */
static bool pidx_latch_retry(const seqcount_latch_t *s, unsigned int start)
{
	return read_seqcount_retry(&s->seqcount, start);
}

/* Tree walks retry a changed copy this often before using the head. */
#define PIDX_RBSKIP_TRIES	2
/* Deeper than any red-black tree of PIDX_PID_MAX_LIMIT nodes can be. */
#define PIDX_RBSKIP_MAX_DEPTH	64

/*
 * The tree links of a tall node, at the start of its object and right in
 * front of its skip list header: 48 bytes of links and the header's key and
 * value make one 64-byte line, the only one a tree walk reads of a node.
 */
struct pidx_rb_link {
	struct rb_node rb[2];	/* one per latch copy */
};

/* It goes in the room pidx_sl_init() leaves in front of tall nodes. */
static_assert(sizeof(struct pidx_rb_link) <= PIDX_SL_EXTRA_MAX);
static_assert(sizeof(struct pidx_rb_link) + sizeof(struct pidx_sl_node) ==
	      PIDX_SL_CLASS_SIZE(0));

struct pidx_rbskip {
	struct pidx_sl sl;
	/* Read by every lookup; written only when a tall node comes or goes. */
	seqcount_latch_t seq ____cacheline_aligned_in_smp;
	struct rb_root tree[2];
	u32 level;		/* towers this tall are in the tree */
	int start_lvl;		/* skip list level searched from a floor node */
	u32 tree_nr;
};

static struct pidx_rbskip *to_rb(struct pidx_index *idx)
{
	return (struct pidx_rbskip *)idx;
}

static struct pidx_rb_link *pidx_rb_link_of(struct pidx_sl_node *n)
{
	return pidx_sl_extra(n);
}

static struct pidx_sl_node *pidx_rb_node_of(struct pidx_rb_link *l)
{
	return (struct pidx_sl_node *)(l + 1);
}

/* The key a tree walk compares: the header's, on the links' line. */
static u32 pidx_rb_key(struct pidx_rb_link *l)
{
	return pidx_rb_node_of(l)->key;
}

static bool pidx_rbskip_tall(struct pidx_rbskip *rb, struct pidx_sl_node *n)
{
	return n->height >= rb->level;
}

/*
 * rb_link_node_rcu() spelled out: its rcu_assign_pointer() on the plain
 * struct rb_node ** of rbtree.h fails sparse's address-space check.
 */
static void pidx_rb_link_node(struct rb_node *node, struct rb_node *parent,
			      struct rb_node **link)
{
	node->__rb_parent_color = (unsigned long)parent;
	node->rb_left = NULL;
	node->rb_right = NULL;
	/* Readers that find the node see its links and key (pairs with READ_ONCE()). */
	smp_store_release(link, node);
}

static void pidx_rbskip_insert_one(struct rb_root *root,
				   struct pidx_rb_link *l, unsigned int i)
{
	struct rb_node **link = &root->rb_node, *parent = NULL;
	struct pidx_rb_link *p;

	while (*link) {
		parent = *link;
		p = container_of(parent, struct pidx_rb_link, rb[i]);
		link = pidx_rb_key(l) < pidx_rb_key(p) ? &parent->rb_left :
							 &parent->rb_right;
	}
	pidx_rb_link_node(&l->rb[i], parent, link);
	rb_insert_color(&l->rb[i], root);
}

/*
 * The latch's write side as mainline's write_seqcount_latch_begin() and
 * _end() (v6.13) bracket it: readers load everything a writer stores in
 * between with READ_ONCE() and retry when the count moved, so those stores
 * race by design.  6.1's raw_write_seqcount_latch() does not tell KCSAN so,
 * and its plain increment of the count would be reported against every
 * reader's marked load.
 */
static void pidx_rbskip_latch_begin(void)
{
	kcsan_nestable_atomic_begin();
}

static void pidx_rbskip_latch_end(void)
{
	kcsan_nestable_atomic_end();
}

/* Under the writer lock, after the node is linked into the skip list. */
static void pidx_rbskip_tree_add(struct pidx_rbskip *rb, struct pidx_sl_node *n)
{
	struct pidx_rb_link *l = pidx_rb_link_of(n);
	unsigned int i;

	/*
	 * The object may be a recycled tree node: clear its stale links before
	 * the first latch write, whose smp_wmb() orders the clearing before
	 * every store that makes @n reachable in either copy; otherwise a
	 * reader on a weakly ordered CPU could follow an old link into freed
	 * memory after a rotation published @n.
	 */
	pidx_rbskip_latch_begin();
	memset(l->rb, 0, sizeof(l->rb));
	for (i = 0; i < 2; i++) {
		/* Readers move to the other copy before this one changes. */
		raw_write_seqcount_latch(&rb->seq);
		pidx_rbskip_insert_one(&rb->tree[i], l, i);
		pidx_race_delay();
	}
	pidx_rbskip_latch_end();
	WRITE_ONCE(rb->tree_nr, rb->tree_nr + 1);
}

static void pidx_rbskip_tree_del(struct pidx_rbskip *rb, struct pidx_sl_node *n)
{
	struct pidx_rb_link *l = pidx_rb_link_of(n);
	unsigned int i;

	pidx_rbskip_latch_begin();
	for (i = 0; i < 2; i++) {
		raw_write_seqcount_latch(&rb->seq);
		rb_erase(&l->rb[i], &rb->tree[i]);
		pidx_race_delay();
	}
	pidx_rbskip_latch_end();
	WRITE_ONCE(rb->tree_nr, rb->tree_nr - 1);
}

/*
 * pidx_sl_first_ge() with a stop node from the tree: @stop, when not NULL, is
 * a node whose key the tree walk read and found above @key, so meeting it on
 * any level ends that level without another look at its key.  Keys never
 * change, so this holds whether or not @stop is still linked.  Returns the
 * first node with key >= @key, or NULL.
 */
static struct pidx_sl_node *pidx_rbskip_descend(struct pidx_sl_node *x,
						int lvl, u32 key,
						struct pidx_sl_node *stop)
{
	struct pidx_sl_node *y = NULL;

	for (; lvl >= 0; lvl--) {
		pidx_visit_more(&x->next[lvl], sizeof(x->next[lvl]));
		y = rcu_dereference(x->next[lvl]);
		while (y && y != stop) {
			pidx_visit_node(y, PIDX_SL_KEY_BYTES);
			if (y->key >= key)
				break;
			x = y;
			pidx_visit_more(&x->next[lvl], sizeof(x->next[lvl]));
			y = rcu_dereference(x->next[lvl]);
		}
		if (y && y != stop && y->key == key)
			return y;
		stop = y;
	}
	return y;
}

/*
 * The first node with key >= @key, or NULL; reserved or published alike.
 * Tree pointers are plain (not __rcu) in struct rb_node, so they are loaded
 * with READ_ONCE(), which orders the dependent loads as rcu_dereference_raw()
 * would.  The walk keeps the floor (largest tree key <= @key) and the
 * ceiling (smallest tree key > @key): the floor is where the skip list
 * search starts, the ceiling where it may stop.  Whichever way it ends, in
 * the tree or on a skip list level, the node returned is the skip list node
 * itself (the tree links are part of its object and hold no copy of its key
 * or value), so its value word is the one publish() fills.
 */
static struct pidx_sl_node *pidx_rbskip_first_ge(struct pidx_rbskip *rb,
						 u32 key)
{
	struct pidx_rb_link *lo, *hi, *l;
	struct pidx_sl_node *x;
	struct rb_node *rbn;
	unsigned int seq, i;
	int tries;
	u32 k;

	for (tries = 0; tries < PIDX_RBSKIP_TRIES; tries++) {
		seq = raw_read_seqcount_latch(&rb->seq);
		i = seq & 1;
		lo = NULL;
		hi = NULL;
		rbn = READ_ONCE(rb->tree[i].rb_node);
		while (rbn) {
			struct rb_node *left, *right;
			bool above;

			l = container_of(rbn, struct pidx_rb_link, rb[i]);
			x = pidx_rb_node_of(l);
			pidx_visit_node(rbn, sizeof(*rbn));
			pidx_visit_more(&x->key, sizeof(x->key));
			k = x->key;
			if (unlikely(k == key))
				break;
			/*
			 * For random keys, which way to go is a coin toss at
			 * every level, so a branch on it mispredicts half the
			 * time; both children share the line just read, and
			 * selects (cmov) keep the walk free of that branch.
			 */
			left = READ_ONCE(rbn->rb_left);
			right = READ_ONCE(rbn->rb_right);
			above = k > key;
			hi = above ? l : hi;
			lo = above ? lo : l;
			rbn = above ? left : right;
		}
		if (pidx_latch_retry(&rb->seq, seq))
			continue;
		/* an exact match: its value shares the line just read */
		if (rbn)
			return x;
		x = lo ? pidx_rb_node_of(lo) : rb->sl.head;
		if (!lo)
			pidx_visit_node(x, PIDX_SL_KEY_BYTES);
		return pidx_rbskip_descend(x, rb->start_lvl, key,
					   hi ? pidx_rb_node_of(hi) : NULL);
	}
	return pidx_sl_lookup(&rb->sl, key);
}

/* Lowest level >= 2 whose towers are at most a quarter of the nodes. */
static u32 pidx_rbskip_default_level(u32 p)
{
	u32 level = 2, share = p;

	while (share < 4) {
		share *= p;
		level++;
	}
	return level;
}

static struct pidx_index *pidx_rbskip_create(const struct pidx_params *p)
{
	struct pidx_rbskip *rb;
	u32 level;
	int ret;

	if (p->sl_p < 2)
		return ERR_PTR(-EINVAL);
	level = p->rb_level ? p->rb_level : pidx_rbskip_default_level(p->sl_p);
	/* A level above the highest tower would leave the tree empty. */
	level = min(level, pidx_sl_max_level(p));

	rb = kzalloc_node(sizeof(*rb), GFP_KERNEL, pidx_mem_node(p->node, 0));
	if (!rb)
		return ERR_PTR(-ENOMEM);
	pidx_mem_charge(sizeof(*rb));
	ret = pidx_sl_init(&rb->sl, "rbskip", p, sizeof(struct pidx_rb_link),
			   level);
	if (ret) {
		kfree(rb);
		pidx_mem_uncharge(sizeof(*rb));
		return ERR_PTR(ret);
	}
	seqcount_latch_init(&rb->seq);
	rb->tree[0] = RB_ROOT;
	rb->tree[1] = RB_ROOT;
	rb->level = level;
	/* Below the tree's own level: that link only leads past the key. */
	rb->start_lvl = max_t(int, level - 2, 0);
	return (struct pidx_index *)rb;
}

static void pidx_rbskip_destroy(struct pidx_index *idx)
{
	struct pidx_rbskip *rb = to_rb(idx);

	/* The nodes carry the tree links: freeing the list frees the tree. */
	pidx_sl_destroy(&rb->sl);
	kfree(rb);
	pidx_mem_uncharge(sizeof(*rb));
}

static int pidx_rbskip_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct pidx_rbskip *rb = to_rb(idx);
	struct pidx_sl_node *n;
	unsigned long flags;
	int pid;

	n = pidx_sl_node_new(&rb->sl, gfp);
	if (!n)
		return -ENOMEM;
	spin_lock_irqsave(&rb->sl.lock, flags);
	pid = pidx_sl_alloc_locked(&rb->sl, n);
	if (pid >= 0 && pidx_rbskip_tall(rb, n))
		pidx_rbskip_tree_add(rb, n);
	spin_unlock_irqrestore(&rb->sl.lock, flags);
	if (pid < 0)
		pidx_sl_node_discard(n);
	return pid;
}

static int pidx_rbskip_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct pidx_rbskip *rb = to_rb(idx);
	struct pidx_sl_node *n;
	unsigned long flags;
	int ret;

	if (pid < 1 || pid >= rb->sl.pid_max)
		return -EINVAL;
	n = pidx_sl_node_new(&rb->sl, gfp);
	if (!n)
		return -ENOMEM;
	spin_lock_irqsave(&rb->sl.lock, flags);
	ret = pidx_sl_insert_locked(&rb->sl, n, pid);
	if (!ret && pidx_rbskip_tall(rb, n))
		pidx_rbskip_tree_add(rb, n);
	spin_unlock_irqrestore(&rb->sl.lock, flags);
	if (ret)
		pidx_sl_node_discard(n);
	return ret;
}

/* NULL for an absent or reserved number: its node's value is NULL */
static void *pidx_rbskip_lookup(struct pidx_index *idx, u32 pid)
{
	struct pidx_sl_node *n = pidx_rbskip_first_ge(to_rb(idx), pid);

	return n && n->key == pid ? pidx_sl_value(n) : NULL;
}

static int pidx_rbskip_publish(struct pidx_index *idx, u32 pid, void *value)
{
	struct pidx_rbskip *rb = to_rb(idx);
	struct pidx_sl_node *n;
	int ret = -ENOENT;

	if (pid < 1 || pid >= rb->sl.pid_max)
		return -ENOENT;
	/* a reader's walk: nodes are never copied, see pidx_sl_publish_node() */
	rcu_read_lock();
	n = pidx_rbskip_first_ge(rb, pid);
	if (n && n->key == pid)
		ret = pidx_sl_publish_node(n, value);
	rcu_read_unlock();
	return ret;
}

static int pidx_rbskip_remove(struct pidx_index *idx, u32 pid)
{
	struct pidx_rbskip *rb = to_rb(idx);
	struct pidx_sl_node *n;
	unsigned long flags;

	spin_lock_irqsave(&rb->sl.lock, flags);
	n = pidx_sl_unlink_locked(&rb->sl, pid);
	if (n && pidx_rbskip_tall(rb, n))
		pidx_rbskip_tree_del(rb, n);
	spin_unlock_irqrestore(&rb->sl.lock, flags);
	if (!n)
		return -ENOENT;
	pidx_sl_node_retire(n);
	return 0;
}

static int pidx_rbskip_find_ge(struct pidx_index *idx, u32 pid)
{
	struct pidx_rbskip *rb = to_rb(idx);
	struct pidx_sl_node *n;

	if (pid >= rb->sl.pid_max)
		return -ENOENT;
	n = pidx_sl_published(pidx_rbskip_first_ge(rb, pid));
	return n ? n->key : -ENOENT;
}

/* Returns the black height of the subtree, checking it on the way. */
static int pidx_rbskip_check_rb(struct pidx_rbskip *rb, struct rb_node *n,
				struct rb_node *parent, unsigned int copy,
				unsigned int depth, unsigned int *bad)
{
	int lh, rh;

	if (!n)
		return 1;
	if (depth > PIDX_RBSKIP_MAX_DEPTH) {
		pidx_sl_bad(&rb->sl, bad, "copy %u: tree deeper than %u",
			    copy, PIDX_RBSKIP_MAX_DEPTH);
		return 0;
	}
	if (rb_parent(n) != parent)
		pidx_sl_bad(&rb->sl, bad, "copy %u: wrong parent pointer", copy);
	if (rb_is_red(n) && ((n->rb_left && rb_is_red(n->rb_left)) ||
			     (n->rb_right && rb_is_red(n->rb_right))))
		pidx_sl_bad(&rb->sl, bad, "copy %u: red node %u has a red child",
			    copy, pidx_rb_key(container_of(n, struct pidx_rb_link,
							   rb[copy])));
	lh = pidx_rbskip_check_rb(rb, n->rb_left, n, copy, depth + 1, bad);
	rh = pidx_rbskip_check_rb(rb, n->rb_right, n, copy, depth + 1, bad);
	if (lh != rh)
		pidx_sl_bad(&rb->sl, bad, "copy %u: black heights %d and %d under %u",
			    copy, lh, rh,
			    pidx_rb_key(container_of(n, struct pidx_rb_link,
						     rb[copy])));
	return max(lh, rh) + rb_is_black(n);
}

/*
 * The skip list's invariants, then each tree copy: red-black, and holding in
 * order exactly the nodes of skip list level rb_level - 1, which are the
 * towers of height >= rb_level.
 */
static void pidx_rbskip_set_cursor(struct pidx_index *idx, u32 next)
{
	WRITE_ONCE(to_rb(idx)->sl.cursor, next);
}

static unsigned int pidx_rbskip_verify(struct pidx_index *idx)
{
	struct pidx_rbskip *rb = to_rb(idx);
	struct pidx_sl *sl = &rb->sl;
	unsigned int bad = pidx_sl_verify(sl);
	struct pidx_sl_node *x;
	struct pidx_rb_link *l;
	struct rb_node *rbn;
	unsigned int i, h;
	u32 count, tall = 0;

	for (h = rb->level; h <= sl->max_level; h++)
		tall += sl->hist[h];
	if (tall != rb->tree_nr)
		pidx_sl_bad(sl, &bad, "%u towers reach level %u, tree count %u",
			    tall, rb->level, rb->tree_nr);

	for (i = 0; i < 2; i++) {
		rbn = rb->tree[i].rb_node;
		if (rbn && !rb_is_black(rbn))
			pidx_sl_bad(sl, &bad, "copy %u: red root", i);
		pidx_rbskip_check_rb(rb, rbn, NULL, i, 0, &bad);

		count = 0;
		rbn = rb_first(&rb->tree[i]);
		x = rcu_dereference_protected(sl->head->next[rb->level - 1], true);
		while (rbn || x) {
			if (!rbn || !x) {
				pidx_sl_bad(sl, &bad, "copy %u: %s ends after %u nodes",
					    i, rbn ? "level" : "tree", count);
				break;
			}
			if (++count > sl->nr) {
				pidx_sl_bad(sl, &bad, "copy %u: more than %u nodes",
					    i, sl->nr);
				break;
			}
			l = container_of(rbn, struct pidx_rb_link, rb[i]);
			if (pidx_rb_node_of(l) != x)
				pidx_sl_bad(sl, &bad, "copy %u: tree node %u where level %u has %u",
					    i, pidx_rb_key(l), rb->level - 1, x->key);
			rbn = rb_next(rbn);
			x = rcu_dereference_protected(x->next[rb->level - 1], true);
		}
		if (count != rb->tree_nr)
			pidx_sl_bad(sl, &bad, "copy %u: %u nodes, count %u",
				    i, count, rb->tree_nr);
	}
	return bad;
}

static size_t pidx_rbskip_mem_bytes(struct pidx_index *idx)
{
	return READ_ONCE(to_rb(idx)->sl.bytes);
}

static void pidx_rbskip_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct pidx_rbskip *rb = to_rb(idx);
	u32 nr = READ_ONCE(rb->sl.nr), tree = READ_ONCE(rb->tree_nr);
	u32 permille = nr ? div_u64((u64)tree * 1000, nr) : 0;
	char more[64];

	scnprintf(more, sizeof(more), "rb_level=%u;tree=%u;tree_share=%u.%u%%;",
		  rb->level, tree, permille / 10, permille % 10);
	pidx_sl_describe(&rb->sl, more, buf, len);
}

/* The tree lives inside the skip list nodes: level 0 reaches every object. */
static void pidx_rbskip_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	pidx_sl_nodes(&to_rb(idx)->sl, count);
}

const struct pidx_ops pidx_rbskip_ops = {
	.name		= "rbskip",
	.desc		= "skip list + latched rbtree over towers >= rb_level, RCU readers",
	.create		= pidx_rbskip_create,
	.destroy	= pidx_rbskip_destroy,
	.alloc		= pidx_rbskip_alloc,
	.insert		= pidx_rbskip_insert,
	.publish	= pidx_rbskip_publish,
	.lookup		= pidx_rbskip_lookup,
	.remove		= pidx_rbskip_remove,
	.find_ge	= pidx_rbskip_find_ge,
	.set_cursor	= pidx_rbskip_set_cursor,
	.verify		= pidx_rbskip_verify,
	.mem_bytes	= pidx_rbskip_mem_bytes,
	.describe	= pidx_rbskip_describe,
	.nodes		= pidx_rbskip_nodes,
};
