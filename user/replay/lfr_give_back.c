/*
 * Replay of a race that left an empty leaf in lfradix (2a5ed47 fixed it):
 * P (CPU 0, no spare, every allocation fails) claims 1, finds no leaf and
 * gives 1 back; before its release, C (CPU 1) inserts 5 (installing its
 * spare as the leaf), publishes and removes 5, whose retirement sees P's
 * claim and does nothing.  P's give-back must try to retire the leaf.
 * Expected: 5's lookups return NULL while reserved and its value once
 * published, P's alloc fails and nothing is held after it (publish of 1:
 * -ENOENT), "verify: 0 violations", pidx_mem.bytes 0 after destroy.
 */
#include "pidx_lfradix.c"

#include "replay.h"

static __thread int is_p;
static int armed;
/* the values: 4-aligned objects the index never reads */
static long obj_p, obj_c;

void __real_pidx_pidmap_release(struct pidx_pidmap *pm, u32 k);
void __wrap_pidx_pidmap_release(struct pidx_pidmap *pm, u32 k)
{
	if (is_p && armed) {
		armed = 0;
		h_post(0); h_wait(1);
	}
	__real_pidx_pidmap_release(pm, k);
}

void *__real_kmem_cache_alloc_node(void *c, gfp_t g, int n);
void *__wrap_kmem_cache_alloc_node(void *c, gfp_t g, int n)
{
	if (is_p)
		return NULL;	/* GFP_ATOMIC refill fails */
	return __real_kmem_cache_alloc_node(c, g, n);
}

static void *thread_c(void *arg)
{
	rcu_register_thread();
	kc_set_cpu(1);
	h_wait(0);
	replay_expect("C: insert(5)", ops->insert(idx, 5, GFP_KERNEL), 0);
	replay_expect("C: lookup(5), reserved (0: NULL)", (long)replay_lookup(5), 0);
	replay_expect("C: find_ge(0), nothing published", ops->find_ge(idx, 0), -ENOENT);
	replay_expect("C: publish(5)", ops->publish(idx, 5, &obj_c), 0);
	replay_expect("C: lookup(5) == &obj_c", replay_lookup(5) == &obj_c, 1);
	replay_expect("C: find_ge(0)", ops->find_ge(idx, 0), 5);
	replay_expect("C: remove(5)", ops->remove(idx, 5), 0);
	replay_expect("C: publish(5), removed", ops->publish(idx, 5, &obj_c), -ENOENT);
	h_post(1);
	rcu_unregister_thread();
	return NULL;
}

int demo_main(void)
{
	struct pidx_params p = { .pid_max = 1024, .node = NUMA_NO_NODE };
	struct lfr *lf;
	unsigned int bad;
	void *tc;
	int pid;

	kc_init();
	h_init();
	rcu_register_thread();
	kc_set_cpu(0);
	ops = &pidx_lfradix_ops;
	idx = ops->create(&p);
	lf = to_lfr(idx);
	lfr_leaf_free(per_cpu_ptr(lf->pcpu, 0)->spare);
	per_cpu_ptr(lf->pcpu, 0)->spare = NULL;
	tc = h_start(thread_c);
	is_p = 1; armed = 1;
	pid = ops->alloc(idx, GFP_ATOMIC);
	is_p = 0;
	replay_expect("P: alloc(GFP_ATOMIC), no leaf and no memory", pid, -ENOMEM);
	h_join(tc);
	replay_expect("P: publish(1), not held", ops->publish(idx, 1, &obj_p), -ENOENT);
	replay_expect("lookup(5), removed (0: NULL)", (long)replay_lookup(5), 0);
	replay_expect("find_ge(0)", ops->find_ge(idx, 0), -ENOENT);
	bad = ops->verify(idx);
	printk("verify: %u violations\n", bad);
	ops->destroy(idx);
	printk("pidx_mem.bytes after destroy: %ld\n", pidx_mem_bytes());
	return bad || replay_wrong || pidx_mem_bytes();
}
