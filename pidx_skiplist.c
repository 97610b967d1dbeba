// SPDX-License-Identifier: GPL-2.0
/*
 * "skiplist": the PID index as a skip list with lockless readers.
 *
 * Readers (lookup, find_ge) walk under rcu_read_lock() only.  A node is
 * published with rcu_assign_pointer() after its key and all its forward
 * pointers are set, bottom level first, so a reader that meets it on one
 * level meets it on all levels below.  Removal unlinks top level first and
 * leaves the node's own forward pointers alone: a reader standing on it
 * carries on to what were its successors, and the memory goes back to the
 * slab only after a grace period (call_rcu).  A reader may therefore see a
 * number that a writer is adding or removing at the same moment either way,
 * but never misses one that is present for the whole call.
 *
 * The map's two phases: alloc() and insert() link a node whose value word
 * is NULL, a reservation that lookup() answers NULL for and find_ge() walks
 * past on level 0; publish() finds the node as a reader does and fills the
 * word with cmpxchg_release() from NULL, so a second publish fails with
 * -EEXIST and leaves the first value.  A node is never copied, so that word
 * is the key's only one and publish() needs no lock.  Every node a reader
 * reaches was linked at some moment of its call (an unlinked node's forward
 * pointers lead to nodes linked when it left), so a number published for
 * the whole call is found in the node that holds it then, with its value,
 * never in a node of an earlier incarnation of the number.  The value sits
 * in the header beside the key (pidx_skiplist.h): about 24 bytes more per key
 * than the set took, and no cache line more per lookup.
 *
 * Writers serialize on one spinlock taken with interrupts off, as alloc_pid()
 * takes pidmap_lock, because the benchmark calls them from on_each_cpu()
 * callbacks as well as from process context.  The node is allocated before
 * the lock is taken, so no allocation ever waits inside it.
 *
 * Cyclic allocation is O(log n) however dense the space: every link above
 * level 0 records its span, the number of level-0 steps it covers.  Along the
 * list, key - position never decreases, and a link hides a free number
 * exactly when its keys differ by more than its span.  Finding the first free
 * number at or after a start is thus two descents: one by key to the start,
 * one by key - position past the run of taken numbers that begins there.
 *
 * Cost of a search: on each of about log_p(n) levels it passes up to p - 1
 * nodes and reads the one it stops at.  With p = 4 that measured 14-15 key
 * reads per lookup at 1K keys, 24-26 at 32K and 37 at 1M.  Up to height 6 a
 * node, with everything a reader reads from it, is one cache line.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "pidx_skiplist.h"

/*
 * The slab caches are shared by every skip list instance and created when
 * the first one is, so the module needs no init hook; the RCU callback then
 * finds its cache from the node alone.  The mutex guards the user count.
 */
static DEFINE_MUTEX(pidx_sl_cache_mutex);
static unsigned int pidx_sl_cache_users;
static struct kmem_cache *pidx_sl_cache[PIDX_SL_NR_CLASSES];
static const char *const pidx_sl_cache_name[PIDX_SL_NR_CLASSES] = {
	"pidx_sl_64", "pidx_sl_128", "pidx_sl_256",
};

static int pidx_sl_caches_get(void)
{
	unsigned int c;
	int ret = 0;

	mutex_lock(&pidx_sl_cache_mutex);
	if (pidx_sl_cache_users++ || pidx_sl_cache[0])
		goto out;
	for (c = 0; c < PIDX_SL_NR_CLASSES; c++) {
		/*
		 * Aligned to their size, objects never cross a needless line,
		 * and the RCU callbacks find an object's start from its
		 * rcu_head by rounding down.
		 */
		pidx_sl_cache[c] = kmem_cache_create(pidx_sl_cache_name[c],
						     PIDX_SL_CLASS_SIZE(c),
						     PIDX_SL_CLASS_SIZE(c), 0,
						     NULL);
		if (!pidx_sl_cache[c]) {
			while (c--) {
				kmem_cache_destroy(pidx_sl_cache[c]);
				pidx_sl_cache[c] = NULL;
			}
			pidx_sl_cache_users = 0;
			ret = -ENOMEM;
			break;
		}
	}
out:
	mutex_unlock(&pidx_sl_cache_mutex);
	return ret;
}

/* Callers have waited for every RCU callback that frees into the caches. */
static void pidx_sl_caches_put(void)
{
	unsigned int c;

	mutex_lock(&pidx_sl_cache_mutex);
	if (!--pidx_sl_cache_users && !pidx_keep_caches()) {
		for (c = 0; c < PIDX_SL_NR_CLASSES; c++) {
			kmem_cache_destroy(pidx_sl_cache[c]);
			pidx_sl_cache[c] = NULL;
		}
	}
	mutex_unlock(&pidx_sl_cache_mutex);
}

/* Bytes behind the forward pointers: spans while linked, rcu_head after. */
static unsigned int pidx_sl_tail(unsigned int height)
{
	return ALIGN(max_t(unsigned int, sizeof(struct rcu_head),
			   sizeof(u32) * (height - 1)), 8);
}

static size_t pidx_sl_head_size(struct pidx_sl *sl)
{
	return struct_size(sl->head, next, sl->max_level) +
	       pidx_sl_tail(sl->max_level);
}

static struct pidx_sl_node *pidx_sl_wnext(struct pidx_sl *sl,
					  struct pidx_sl_node *x,
					  unsigned int lvl)
{
	return rcu_dereference_protected(x->next[lvl],
					 lockdep_is_held(&sl->lock));
}

static u32 pidx_sl_span(struct pidx_sl_node *x, unsigned int lvl)
{
	return lvl ? *pidx_sl_spanp(x, lvl) : 1;
}

unsigned int pidx_sl_max_level(const struct pidx_params *p)
{
	unsigned int lvl = 1;
	u64 reach = p->sl_p;

	if (p->sl_max_level)
		return min_t(u32, p->sl_max_level, PIDX_SL_MAX_LEVEL);
	/* ceil(log_p(pid_max)): enough levels for a full PID space */
	while (reach < p->pid_max && lvl < PIDX_SL_MAX_LEVEL) {
		reach *= p->sl_p;
		lvl++;
	}
	return lvl;
}

int pidx_sl_init(struct pidx_sl *sl, const char *name,
		 const struct pidx_params *p, u32 extra, u32 extra_from)
{
	size_t head_size;
	unsigned int h, cpu;
	char *obj;
	int ret;

	if (p->sl_p < 2 || p->sl_p > 16 || !is_power_of_2(p->sl_p) ||
	    p->pid_max < PIDX_PID_MAX_MIN || p->pid_max > PIDX_PID_MAX_LIMIT ||
	    extra > PIDX_SL_EXTRA_MAX || extra % 8)
		return -EINVAL;

	sl->name = name;
	sl->pid_max = p->pid_max;
	sl->p = p->sl_p;
	sl->p_shift = ilog2(p->sl_p);
	sl->max_level = pidx_sl_max_level(p);
	sl->extra = extra;
	sl->extra_from = extra_from;
	sl->top = 1;
	sl->node = p->node;
	sl->cursor = 0;
	sl->nr = 0;
	memset(sl->hist, 0, sizeof(sl->hist));
	spin_lock_init(&sl->lock);

	for (h = 1; h <= sl->max_level; h++) {
		unsigned int lead = h >= extra_from ? extra : 0;
		size_t size = lead + struct_size(sl->head, next, h) +
			      pidx_sl_tail(h);
		unsigned int cls = order_base_2(DIV_ROUND_UP(size, PIDX_SL_CLASS_SIZE(0)));

		if (cls >= PIDX_SL_NR_CLASSES)
			return -EINVAL;
		sl->lead[h] = lead;
		sl->cls[h] = cls;
	}

	head_size = pidx_sl_head_size(sl);
	obj = kzalloc(head_size, GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	pidx_mem_charge(head_size);
	sl->head = (struct pidx_sl_node *)obj;
	/* the head's spans lie behind next[] of its height: set it first */
	sl->head->height = sl->max_level;
	/* An empty list: every head link reaches the end, one step away. */
	for (h = 1; h < sl->max_level; h++)
		*pidx_sl_spanp(sl->head, h) = 1;
	sl->bytes = head_size;

	sl->rand = alloc_percpu(u64);
	if (!sl->rand) {
		ret = -ENOMEM;
		goto err_head;
	}
	pidx_mem_charge(sizeof(u64) * num_possible_cpus());
	for_each_possible_cpu(cpu) {
		u64 *state = per_cpu_ptr(sl->rand, cpu);

		*state = pidx_rand_seed(p->seed, cpu);
	}

	ret = pidx_sl_caches_get();
	if (ret)
		goto err_rand;
	return 0;

err_rand:
	free_percpu(sl->rand);
	pidx_mem_uncharge(sizeof(u64) * num_possible_cpus());
err_head:
	kfree(obj);
	pidx_mem_uncharge(head_size);
	return ret;
}

static void pidx_sl_obj_free(void *obj, unsigned int cls)
{
	kmem_cache_free(pidx_sl_cache[cls], obj);
	pidx_mem_uncharge(PIDX_SL_CLASS_SIZE(cls));
}

static void pidx_sl_node_free(struct pidx_sl_node *n)
{
	pidx_sl_obj_free(pidx_sl_extra(n), n->cls);
}

/*
 * The rcu_head lies behind next[], at an offset that depends on the height,
 * which is in the header: but the object is aligned to its class size, so
 * rounding down finds its start, and one callback per class knows the class.
 */
static void pidx_sl_free_rcu(struct rcu_head *rcu, unsigned int cls)
{
	pidx_sl_obj_free((void *)ALIGN_DOWN((unsigned long)rcu,
					    PIDX_SL_CLASS_SIZE(cls)), cls);
}

static void pidx_sl_free_rcu_64(struct rcu_head *rcu)
{
	pidx_sl_free_rcu(rcu, 0);
}

static void pidx_sl_free_rcu_128(struct rcu_head *rcu)
{
	pidx_sl_free_rcu(rcu, 1);
}

static void pidx_sl_free_rcu_256(struct rcu_head *rcu)
{
	pidx_sl_free_rcu(rcu, 2);
}

typedef void (*pidx_sl_free_rcu_t)(struct rcu_head *rcu);

static const pidx_sl_free_rcu_t pidx_sl_free_rcu_cls[PIDX_SL_NR_CLASSES] = {
	pidx_sl_free_rcu_64, pidx_sl_free_rcu_128, pidx_sl_free_rcu_256,
};

void pidx_sl_destroy(struct pidx_sl *sl)
{
	struct pidx_sl_node *n, *next;

	/* Contract: no writer; a reader that outlived its storm may still walk. */
	synchronize_rcu();
	n = rcu_dereference_protected(sl->head->next[0], true);
	while (n) {
		next = rcu_dereference_protected(n->next[0], true);
		pidx_sl_node_free(n);
		n = next;
	}
	pidx_mem_uncharge(pidx_sl_head_size(sl));
	kfree(pidx_sl_extra(sl->head));
	sl->head = NULL;
	free_percpu(sl->rand);
	pidx_mem_uncharge(sizeof(u64) * num_possible_cpus());
	/* Nodes removed earlier free themselves from RCU callbacks into the caches. */
	rcu_barrier();
	pidx_sl_caches_put();
}

static unsigned int pidx_sl_draw_height(struct pidx_sl *sl)
{
	unsigned long flags;
	unsigned int h;
	u64 r;

	/* Interrupts off: an IPI-context writer may preempt one on this CPU. */
	local_irq_save(flags);
	r = pidx_rand_next(this_cpu_ptr(sl->rand));
	local_irq_restore(flags);
	/* Each leading all-zero group of log2(p) bits has probability 1/p. */
	h = 1 + (64 - fls64(r)) / sl->p_shift;
	return min(h, sl->max_level);
}

struct pidx_sl_node *pidx_sl_node_new(struct pidx_sl *sl, gfp_t gfp)
{
	unsigned int h = pidx_sl_draw_height(sl);
	unsigned int cls = sl->cls[h];
	struct pidx_sl_node *n;
	char *obj;

	/* failures under GFP_ATOMIC are counted by the caller, not logged */
	if (!gfpflags_allow_blocking(gfp))
		gfp |= __GFP_NOWARN;
	/*
	 * The key is not known yet; the cursor is where an alloc will put it
	 * (exactly so in the prefill), close enough for interleaving.
	 */
	obj = kmem_cache_alloc_node(pidx_sl_cache[cls], gfp,
				    pidx_mem_node(sl->node, READ_ONCE(sl->cursor)));
	if (!obj)
		return NULL;
	pidx_mem_charge(PIDX_SL_CLASS_SIZE(cls));
	n = (struct pidx_sl_node *)(obj + sl->lead[h]);
	n->key = 0;
	n->height = h;
	n->cls = cls;
	n->lead = sl->lead[h];
	n->unused = 0;
	/* a reservation: pidx_sl_link() publishes the node with it */
	n->value = NULL;
	return n;
}

/* For a node that was never published: no reader can hold it. */
void pidx_sl_node_discard(struct pidx_sl_node *n)
{
	pidx_sl_node_free(n);
}

void pidx_sl_node_retire(struct pidx_sl_node *n)
{
	call_rcu(pidx_sl_rcu_head(n), pidx_sl_free_rcu_cls[n->cls]);
}

/*
 * Fill @path with the last node on every level that passes the test: by key,
 * key < @k; by gap, key - position <= @k.  Both tests hold on a prefix of the
 * list, so one descent finds where they stop holding, O(log n).
 */
static void pidx_sl_descend(struct pidx_sl *sl, u32 k, bool by_gap,
			    struct pidx_sl_path *path)
{
	struct pidx_sl_node *x = sl->head, *y;
	u32 pos = 0, npos;
	int i;

	pidx_visit_node(x, PIDX_SL_KEY_BYTES);
	for (i = sl->max_level - 1; i >= 0; i--) {
		for (;;) {
			pidx_visit_more(&x->next[i], sizeof(x->next[i]));
			y = pidx_sl_wnext(sl, x, i);
			if (!y)
				break;
			pidx_visit_node(y, PIDX_SL_KEY_BYTES);
			npos = pos + pidx_sl_span(x, i);
			if (by_gap ? y->key - npos > k : y->key >= k)
				break;
			x = y;
			pos = npos;
		}
		path->pred[i] = x;
		path->pos[i] = pos;
	}
}

/* The first free number in [@start, pid_max); @path ends up ready to link it. */
static int pidx_sl_find_free(struct pidx_sl *sl, u32 start,
			     struct pidx_sl_path *path)
{
	struct pidx_sl_node *y;
	u32 nr;

	if (start >= sl->pid_max)
		return -ENOSPC;
	pidx_sl_descend(sl, start, false, path);
	y = pidx_sl_wnext(sl, path->pred[0], 0);
	if (!y || y->key != start)
		return start;
	/*
	 * @start is taken.  The nodes of the run of taken numbers from @start
	 * all have the same key - position as @start; pass them, and the
	 * number after the last one is free.  The passed nodes are exactly
	 * those below that number, so @path is its insertion path too.
	 */
	pidx_sl_descend(sl, start - (path->pos[0] + 1), true, path);
	nr = path->pred[0]->key + 1;
	return nr < sl->pid_max ? nr : -ENOSPC;
}

static void pidx_sl_link(struct pidx_sl *sl, struct pidx_sl_node *n,
			 struct pidx_sl_path *path)
{
	unsigned int h = n->height, i;
	u32 pos = path->pos[0] + 1;
	struct pidx_sl_node *x;

	for (i = 0; i < h; i++) {
		x = path->pred[i];
		RCU_INIT_POINTER(n->next[i], pidx_sl_wnext(sl, x, i));
		if (i) {
			*pidx_sl_spanp(n, i) = *pidx_sl_spanp(x, i) + 1 -
					       (pos - path->pos[i]);
			*pidx_sl_spanp(x, i) = pos - path->pos[i];
		}
	}
	for (; i < sl->max_level; i++)
		(*pidx_sl_spanp(path->pred[i], i))++;

	pidx_race_delay();
	/* Bottom up, so no level ever holds @n without the levels below it. */
	for (i = 0; i < h; i++) {
		rcu_assign_pointer(path->pred[i]->next[i], n);
		pidx_race_delay();
	}

	/* read locklessly by describe() */
	WRITE_ONCE(sl->nr, sl->nr + 1);
	sl->hist[h]++;
	WRITE_ONCE(sl->bytes, sl->bytes + PIDX_SL_CLASS_SIZE(n->cls));
	if (h > sl->top)
		WRITE_ONCE(sl->top, h);
}

/* Kernel cyclic semantics: see pidx.h and idr_alloc_cyclic(). */
int pidx_sl_alloc_locked(struct pidx_sl *sl, struct pidx_sl_node *n)
{
	struct pidx_sl_path path;
	u32 floor = pidx_alloc_floor(sl->cursor);
	u32 start = max(sl->cursor, floor);
	int pid;

	pid = pidx_sl_find_free(sl, start, &path);
	if (pid < 0 && start > floor)
		pid = pidx_sl_find_free(sl, floor, &path);
	if (pid < 0)
		return pid;
	n->key = pid;
	pidx_sl_link(sl, n, &path);
	/* marked: pidx_sl_node_new() reads it unlocked, as a node guess */
	WRITE_ONCE(sl->cursor, pid + 1);
	return pid;
}

/* @key is in [1, pid_max): callers check. */
int pidx_sl_insert_locked(struct pidx_sl *sl, struct pidx_sl_node *n, u32 key)
{
	struct pidx_sl_path path;
	struct pidx_sl_node *y;

	pidx_sl_descend(sl, key, false, &path);
	y = pidx_sl_wnext(sl, path.pred[0], 0);
	if (y && y->key == key)
		return -EEXIST;
	n->key = key;
	pidx_sl_link(sl, n, &path);
	return 0;
}

/* Returns the unlinked node, for the caller to retire after unlocking. */
struct pidx_sl_node *pidx_sl_unlink_locked(struct pidx_sl *sl, u32 key)
{
	struct pidx_sl_path path;
	struct pidx_sl_node *n, *x;
	int i;

	if (!key || key >= sl->pid_max)
		return NULL;
	pidx_sl_descend(sl, key, false, &path);
	n = pidx_sl_wnext(sl, path.pred[0], 0);
	if (!n || n->key != key)
		return NULL;

	/*
	 * Top down, so @n is never on a level without the levels below it;
	 * its own forward pointers stay for readers standing on it.
	 */
	for (i = n->height - 1; i >= 0; i--) {
		x = path.pred[i];
		if (i)
			*pidx_sl_spanp(x, i) += *pidx_sl_spanp(n, i) - 1;
		rcu_assign_pointer(x->next[i], pidx_sl_wnext(sl, n, i));
		pidx_race_delay();
	}
	for (i = n->height; i < sl->max_level; i++)
		(*pidx_sl_spanp(path.pred[i], i))--;

	WRITE_ONCE(sl->nr, sl->nr - 1);
	sl->hist[n->height]--;
	WRITE_ONCE(sl->bytes, sl->bytes - PIDX_SL_CLASS_SIZE(n->cls));
	while (sl->top > 1 && !pidx_sl_wnext(sl, sl->head, sl->top - 1))
		WRITE_ONCE(sl->top, sl->top - 1);
	return n;
}

/*
 * One pass along level 0 checks every level: each node must be the next one
 * on each of its levels, and each link's span must match the positions.
 * Writers are quiesced by contract, so nothing is locked.
 */
unsigned int pidx_sl_verify(struct pidx_sl *sl)
{
	struct pidx_sl_node *last[PIDX_SL_MAX_LEVEL];
	u32 last_pos[PIDX_SL_MAX_LEVEL];
	u32 hist[PIDX_SL_MAX_LEVEL + 1] = { 0 };
	size_t bytes = pidx_sl_head_size(sl);
	unsigned int bad = 0, top = 1, h, i;
	struct pidx_sl_node *x;
	u32 pos = 0, prev = 0;

	for (i = 0; i < sl->max_level; i++) {
		last[i] = sl->head;
		last_pos[i] = 0;
	}
	if (sl->head->value)
		pidx_sl_bad(sl, &bad, "the head holds a value");
	for (x = rcu_dereference_protected(sl->head->next[0], true); x;
	     x = rcu_dereference_protected(x->next[0], true)) {
		if (pos == sl->nr) {
			pidx_sl_bad(sl, &bad, "level 0 holds more than %u nodes",
				    sl->nr);
			break;
		}
		pos++;
		if (x->key <= prev || x->key >= sl->pid_max)
			pidx_sl_bad(sl, &bad, "key %u after %u (pid_max %u)",
				    x->key, prev, sl->pid_max);
		prev = x->key;
		h = x->height;
		if (h < 1 || h > sl->max_level) {
			pidx_sl_bad(sl, &bad, "key %u: height %u not in [1, %u]",
				    x->key, h, sl->max_level);
			continue;
		}
		if (x->cls != sl->cls[h] || x->lead != sl->lead[h])
			pidx_sl_bad(sl, &bad, "key %u: layout %u/%u for height %u",
				    x->key, x->cls, x->lead, h);
		/* the RCU callback finds the object by this alignment */
		else if (!IS_ALIGNED((unsigned long)pidx_sl_extra(x),
				     PIDX_SL_CLASS_SIZE(x->cls)))
			pidx_sl_bad(sl, &bad, "key %u: object %lu bytes past a multiple of %u",
				    x->key, (unsigned long)pidx_sl_extra(x) %
				    PIDX_SL_CLASS_SIZE(x->cls),
				    PIDX_SL_CLASS_SIZE(x->cls));
		/* NULL (reserved) or a published value, 4-aligned by contract */
		if (!IS_ALIGNED((unsigned long)x->value, 4))
			pidx_sl_bad(sl, &bad, "key %u: value with low bits %lu, not 4-aligned",
				    x->key, (unsigned long)x->value & 3);
		for (i = 0; i < h; i++) {
			if (rcu_dereference_protected(last[i]->next[i], true) != x)
				pidx_sl_bad(sl, &bad, "key %u: not next after %u on level %u",
					    x->key, last[i]->key, i);
			if (pidx_sl_span(last[i], i) != pos - last_pos[i])
				pidx_sl_bad(sl, &bad, "key %u: span %u, %u steps on level %u",
					    last[i]->key, pidx_sl_span(last[i], i),
					    pos - last_pos[i], i);
			last[i] = x;
			last_pos[i] = pos;
		}
		hist[h]++;
		bytes += PIDX_SL_CLASS_SIZE(x->cls);
		top = max(top, h);
	}
	for (i = 0; i < sl->max_level; i++) {
		if (rcu_dereference_protected(last[i]->next[i], true))
			pidx_sl_bad(sl, &bad, "level %u goes on after key %u",
				    i, last[i]->key);
		if (pidx_sl_span(last[i], i) != pos + 1 - last_pos[i])
			pidx_sl_bad(sl, &bad, "key %u: span %u, %u steps to the end on level %u",
				    last[i]->key, pidx_sl_span(last[i], i),
				    pos + 1 - last_pos[i], i);
	}
	if (pos != sl->nr)
		pidx_sl_bad(sl, &bad, "%u nodes on level 0, count %u", pos, sl->nr);
	for (h = 1; h <= sl->max_level; h++)
		if (hist[h] != sl->hist[h])
			pidx_sl_bad(sl, &bad, "%u nodes of height %u, histogram %u",
				    hist[h], h, sl->hist[h]);
	if (bytes != sl->bytes)
		pidx_sl_bad(sl, &bad, "%zu bytes in nodes, count %zu",
			    bytes, sl->bytes);
	if (top != sl->top)
		pidx_sl_bad(sl, &bad, "top level %u, hint %u", top, sl->top);
	if (sl->cursor > sl->pid_max)
		pidx_sl_bad(sl, &bad, "cursor %u past pid_max %u",
			    sl->cursor, sl->pid_max);
	return bad;
}

/* Index objects per NUMA node, for ->nodes(); no writer runs. */
void pidx_sl_nodes(struct pidx_sl *sl, u64 count[PIDX_NODES_MAX])
{
	struct pidx_sl_node *n = sl->head;

	for (; n; n = rcu_dereference_protected(n->next[0], true))
		pidx_count_node(pidx_sl_extra(n), count);
}

/*
 * "key=value" pairs separated by ';', @more (the caller's own pairs) before
 * the histogram so that a short buffer loses only its tallest levels, whole.
 */
void pidx_sl_describe(struct pidx_sl *sl, const char *more, char *buf,
		      size_t len)
{
	u32 hist[PIDX_SL_MAX_LEVEL + 1];
	unsigned int h, top;
	unsigned long flags;
	char entry[24];
	size_t n;
	u32 nr;
	int e;

	spin_lock_irqsave(&sl->lock, flags);
	memcpy(hist, sl->hist, sizeof(hist));
	nr = sl->nr;
	top = sl->top;
	spin_unlock_irqrestore(&sl->lock, flags);

	n = scnprintf(buf, len, "nodes=%u;sl_p=%u;max_level=%u;%slevels=",
		      nr, sl->p, sl->max_level, more);
	for (h = 1; h <= top; h++) {
		e = scnprintf(entry, sizeof(entry), "%s%u:%u", h > 1 ? "/" : "",
			      h, hist[h]);
		if (n + e >= len)
			break;
		memcpy(buf + n, entry, e + 1);
		n += e;
	}
}

/* The "skiplist" index is the bare struct pidx_sl. */
static struct pidx_sl *to_sl(struct pidx_index *idx)
{
	return (struct pidx_sl *)idx;
}

static struct pidx_index *pidx_skiplist_create(const struct pidx_params *p)
{
	struct pidx_sl *sl;
	int ret;

	sl = kzalloc(sizeof(*sl), GFP_KERNEL);
	if (!sl)
		return ERR_PTR(-ENOMEM);
	pidx_mem_charge(sizeof(*sl));
	/* No extra data: no tower is ever tall enough to carry it. */
	ret = pidx_sl_init(sl, "skiplist", p, 0, PIDX_SL_MAX_LEVEL + 1);
	if (ret) {
		kfree(sl);
		pidx_mem_uncharge(sizeof(*sl));
		return ERR_PTR(ret);
	}
	return (struct pidx_index *)sl;
}

static void pidx_skiplist_destroy(struct pidx_index *idx)
{
	struct pidx_sl *sl = to_sl(idx);

	pidx_sl_destroy(sl);
	kfree(sl);
	pidx_mem_uncharge(sizeof(*sl));
}

static int pidx_skiplist_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct pidx_sl *sl = to_sl(idx);
	struct pidx_sl_node *n;
	unsigned long flags;
	int pid;

	n = pidx_sl_node_new(sl, gfp);
	if (!n)
		return -ENOMEM;
	spin_lock_irqsave(&sl->lock, flags);
	pid = pidx_sl_alloc_locked(sl, n);
	spin_unlock_irqrestore(&sl->lock, flags);
	if (pid < 0)
		pidx_sl_node_discard(n);
	return pid;
}

static int pidx_skiplist_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	struct pidx_sl *sl = to_sl(idx);
	struct pidx_sl_node *n;
	unsigned long flags;
	int ret;

	if (pid < 1 || pid >= sl->pid_max)
		return -EINVAL;
	n = pidx_sl_node_new(sl, gfp);
	if (!n)
		return -ENOMEM;
	spin_lock_irqsave(&sl->lock, flags);
	ret = pidx_sl_insert_locked(sl, n, pid);
	spin_unlock_irqrestore(&sl->lock, flags);
	if (ret)
		pidx_sl_node_discard(n);
	return ret;
}

/* NULL for an absent or reserved number: its node's value is NULL */
static void *pidx_skiplist_lookup(struct pidx_index *idx, u32 pid)
{
	struct pidx_sl_node *n = pidx_sl_lookup(to_sl(idx), pid);

	return n && n->key == pid ? pidx_sl_value(n) : NULL;
}

static int pidx_skiplist_publish(struct pidx_index *idx, u32 pid, void *value)
{
	struct pidx_sl *sl = to_sl(idx);
	struct pidx_sl_node *n;
	int ret = -ENOENT;

	if (pid < 1 || pid >= sl->pid_max)
		return -ENOENT;
	/* the walk is a reader's: the lock would only make writers wait */
	rcu_read_lock();
	n = pidx_sl_lookup(sl, pid);
	if (n && n->key == pid)
		ret = pidx_sl_publish_node(n, value);
	rcu_read_unlock();
	return ret;
}

static int pidx_skiplist_remove(struct pidx_index *idx, u32 pid)
{
	struct pidx_sl *sl = to_sl(idx);
	struct pidx_sl_node *n;
	unsigned long flags;

	spin_lock_irqsave(&sl->lock, flags);
	n = pidx_sl_unlink_locked(sl, pid);
	spin_unlock_irqrestore(&sl->lock, flags);
	if (!n)
		return -ENOENT;
	pidx_sl_node_retire(n);
	return 0;
}

static int pidx_skiplist_find_ge(struct pidx_index *idx, u32 pid)
{
	struct pidx_sl *sl = to_sl(idx);
	struct pidx_sl_node *n;

	if (pid >= sl->pid_max)
		return -ENOENT;
	n = pidx_sl_published(pidx_sl_lookup(sl, pid));
	return n ? n->key : -ENOENT;
}

static void pidx_skiplist_set_cursor(struct pidx_index *idx, u32 next)
{
	WRITE_ONCE(to_sl(idx)->cursor, next);
}

static unsigned int pidx_skiplist_verify(struct pidx_index *idx)
{
	return pidx_sl_verify(to_sl(idx));
}

static size_t pidx_skiplist_mem_bytes(struct pidx_index *idx)
{
	return READ_ONCE(to_sl(idx)->bytes);
}

static void pidx_skiplist_describe(struct pidx_index *idx, char *buf,
				   size_t len)
{
	pidx_sl_describe(to_sl(idx), "", buf, len);
}

static void pidx_skiplist_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	pidx_sl_nodes(to_sl(idx), count);
}

const struct pidx_ops pidx_skiplist_ops = {
	.name		= "skiplist",
	.desc		= "skip list, RCU readers, O(log n) cyclic alloc via link spans",
	.create		= pidx_skiplist_create,
	.destroy	= pidx_skiplist_destroy,
	.alloc		= pidx_skiplist_alloc,
	.insert		= pidx_skiplist_insert,
	.publish	= pidx_skiplist_publish,
	.lookup		= pidx_skiplist_lookup,
	.remove		= pidx_skiplist_remove,
	.find_ge	= pidx_skiplist_find_ge,
	.set_cursor	= pidx_skiplist_set_cursor,
	.verify		= pidx_skiplist_verify,
	.mem_bytes	= pidx_skiplist_mem_bytes,
	.describe	= pidx_skiplist_describe,
	.nodes		= pidx_skiplist_nodes,
};
