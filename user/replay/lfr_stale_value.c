/*
 * Replay of the leaf-reuse hazard of issue 30: a slot holds a value, which
 * names no number, so a reader still holding a leaf that was retired and
 * reused for another word would return another number's object.  Reader
 * (CPU 0) looks up x = 5 under rcu_read_lock() and stops after it loaded
 * word 0's leaf L, before it reads L's slot (the visit hook between the
 * two).  W (CPU 1), whose spare went into the leaf of 200, removes x: word
 * 0 empties and L retires.  W then reserves y = 69 (word 1, slot 5 as x's)
 * and publishes y with its own value.  Were L reused at once (CPU 1 has no
 * spare then), it would be word 1's leaf, and the reader would find y's
 * value in its slot 5.  Expected: the reader's lookup returns NULL (x was
 * removed before the slot was read), 69 and 200 have their values, "verify:
 * 0 violations", pidx_mem.bytes 0 after destroy.
 */
#include "pidx_lfradix.c"

#include "replay.h"

#define X	5
#define Y	69	/* X + 64: the same slot of the next word's leaf */
#define Z	200	/* another word's, to take W's spare */

static __thread int is_reader;
static int armed;
static unsigned long *x_slot;
/* the values: 4-aligned objects the index never reads */
static long obj_x, obj_y, obj_z;

/* the reader, between its load of the leaf pointer and its read of the slot */
void __wrap___pidx_visit(const void *p, size_t len, bool node)
{
	if (!is_reader || !armed || !node || p != x_slot)
		return;
	armed = 0;
	h_post(0);
	h_wait(1);
}

static void *thread_w(void *arg)
{
	struct lfr *lf = to_lfr(idx);
	unsigned long leaf;

	rcu_register_thread();
	kc_set_cpu(1);
	replay_expect("W: insert(200)", ops->insert(idx, Z, GFP_KERNEL), 0);
	replay_expect("W: publish(200)", ops->publish(idx, Z, &obj_z), 0);
	if (!h_wait_ms(0, 5000)) {
		printk("FAIL: the reader never stopped between its leaf and its slot\n");
		replay_wrong++;
		rcu_unregister_thread();
		return NULL;
	}
	replay_expect("W: remove(5)", ops->remove(idx, X), 0);
	replay_expect("W: insert(69)", ops->insert(idx, Y, GFP_KERNEL), 0);
	replay_expect("W: publish(69)", ops->publish(idx, Y, &obj_y), 0);
	leaf = READ_ONCE(*lfr_leaf_ref(lf, Y)) & ~LFR_RETIRING;
	printk("W: word 1's leaf is %s\n",
	       &((struct lfr_leaf *)leaf)->slot[Y & LFR_MASK] == x_slot ?
	       "the one the reader holds (reused at once)" : "another one");
	h_post(1);
	rcu_unregister_thread();
	return NULL;
}

int demo_main(void)
{
	struct pidx_params p = { .pid_max = 1024, .node = NUMA_NO_NODE };
	unsigned int bad;
	void *tw, *v;

	kc_init();
	h_init();
	rcu_register_thread();
	kc_set_cpu(0);
	ops = &pidx_lfradix_ops;
	idx = ops->create(&p);
	replay_expect("R: insert(5)", ops->insert(idx, X, GFP_KERNEL), 0);
	replay_expect("R: publish(5)", ops->publish(idx, X, &obj_x), 0);
	replay_expect("R: lookup(5) == &obj_x", replay_lookup(X) == &obj_x, 1);
	x_slot = lfr_slot(to_lfr(idx), X);
	/* keys change only while no other thread runs */
	static_branch_enable(&pidx_visits_on);
	tw = h_start(thread_w);
	is_reader = 1;
	armed = 1;
	rcu_read_lock();
	v = ops->lookup(idx, X);
	rcu_read_unlock();
	is_reader = 0;
	h_join(tw);
	static_branch_disable(&pidx_visits_on);
	printk("R: lookup(5) across W's steps -> %s\n",
	       !v ? "NULL" : v == &obj_x ? "x's value" :
	       v == &obj_y ? "y's value" : "an unknown pointer");
	if (v == &obj_y) {
		printk("FAIL: a reader of 5 got 69's object from a leaf reused for another word\n");
		replay_wrong++;
	} else if (v) {
		printk("FAIL: a reader of 5 got a value after 5 was removed\n");
		replay_wrong++;
	}
	replay_expect("lookup(5), removed (0: NULL)", (long)replay_lookup(X), 0);
	replay_expect("lookup(69) == &obj_y", replay_lookup(Y) == &obj_y, 1);
	replay_expect("lookup(200) == &obj_z", replay_lookup(Z) == &obj_z, 1);
	replay_expect("find_ge(0)", ops->find_ge(idx, 0), Y);
	bad = ops->verify(idx);
	printk("verify: %u violations\n", bad);
	ops->destroy(idx);
	printk("pidx_mem.bytes after destroy: %ld\n", pidx_mem_bytes());
	return bad || replay_wrong || pidx_mem_bytes();
}
