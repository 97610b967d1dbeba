/*
 * Replay of a race that left an empty leaf in lfradix (2a5ed47 fixed it):
 * P (CPU 0, no spare, every allocation fails) claims 1, finds no leaf and
 * gives 1 back; before its release, C (CPU 1) inserts 5 (installing its
 * spare as the leaf) and removes 5, whose retirement sees P's claim and
 * does nothing.  P's give-back must try to retire the leaf.  Expected:
 * "verify: 0 violations", pidx_mem.bytes 0 after destroy.
 */
#include "pidx_lfradix.c"

#include "replay.h"

static __thread int is_p;
static int armed;

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
	printk("C: insert(5) -> %d\n", ops->insert(idx, 5, GFP_KERNEL));
	printk("C: remove(5) -> %d\n", ops->remove(idx, 5));
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
	printk("P: alloc(GFP_ATOMIC) -> %d\n", pid);
	h_join(tc);
	printk("find_ge(0)=%d\n", ops->find_ge(idx, 0));
	bad = ops->verify(idx);
	printk("verify: %u violations\n", bad);
	ops->destroy(idx);
	printk("pidx_mem.bytes after destroy: %ld\n", atomic_long_read(&pidx_mem.bytes));
	return bad || atomic_long_read(&pidx_mem.bytes);
}
