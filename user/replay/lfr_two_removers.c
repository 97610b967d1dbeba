/*
 * Replay of a race that left an empty leaf in lfradix (2a5ed47 fixed it):
 * remover R (CPU 0) empties word 0 and sees it unclaimed; C (CPU 1)
 * reserves 2 in word 0 and publishes it; R tags the leaf and, looking
 * again, sees 2 claimed, so it will untag.  Meanwhile R2 (CPU 1) removes 2
 * and must not give up on R's tag: R2 waits for R's decision and retires
 * the leaf itself.  Link wrappers put C's and R2's steps inside R's window.
 * Expected: each lookup returns the value published for its number (NULL
 * while only reserved), "verify: 0 violations", mem_bytes back at or below
 * the empty index's, pidx_mem.bytes 0 after destroy.
 */
#include "pidx_lfradix.c"
int usleep(unsigned int);

#include "replay.h"

static __thread int is_r;
static int calls;
/* the values: 4-aligned objects the index never reads */
static long obj_r, obj_c;

bool __real_pidx_pidmap_word_unclaimed(struct pidx_pidmap *pm, unsigned int w);
bool __wrap_pidx_pidmap_word_unclaimed(struct pidx_pidmap *pm, unsigned int w)
{
	bool v = __real_pidx_pidmap_word_unclaimed(pm, w);

	if (is_r && calls == 0) {	/* R's pre-check saw word 0 unclaimed */
		calls++;
		h_post(0); h_wait(1);	/* C allocates 2 */
	} else if (is_r && calls == 1) {	/* R's re-check, leaf tagged */
		calls++;
		h_post(2); usleep(300000);	/* R2 removes 2 */
	}
	printk("  R: word %u unclaimed=%d\n", w, v);
	return v;
}

static void *thread_c(void *arg)
{
	int pid, r;

	rcu_register_thread();
	kc_set_cpu(1);
	h_wait(0);
	pid = ops->alloc(idx, GFP_KERNEL);
	printk("C: alloc -> %d\n", pid);
	replay_expect("C: lookup of the reservation (0: NULL)", (long)replay_lookup(pid), 0);
	replay_expect("C: publish", ops->publish(idx, pid, &obj_c), 0);
	replay_expect("C: publish again", ops->publish(idx, pid, &obj_r), -EEXIST);
	replay_expect("C: lookup == &obj_c", replay_lookup(pid) == &obj_c, 1);
	h_post(1);
	h_wait(2);
	r = ops->remove(idx, pid);
	printk("R2: remove(%d) -> %d\n", pid, r);
	h_post(3);
	rcu_unregister_thread();
	return NULL;
}

int demo_main(void)
{
	struct pidx_params p = { .pid_max = 1024, .node = NUMA_NO_NODE };
	unsigned int bad;
	size_t mem;
	void *tc;
	int pid;

	kc_init();
	h_init();
	rcu_register_thread();
	kc_set_cpu(0);
	ops = &pidx_lfradix_ops;
	idx = ops->create(&p);
	size_t empty = ops->mem_bytes(idx);
	pid = ops->alloc(idx, GFP_KERNEL);
	printk("R: alloc -> %d\n", pid);
	replay_expect("R: publish", ops->publish(idx, pid, &obj_r), 0);
	replay_expect("R: lookup == &obj_r", replay_lookup(pid) == &obj_r, 1);
	tc = h_start(thread_c);
	is_r = 1;
	printk("R: remove(%d) -> %d\n", pid, ops->remove(idx, pid));
	is_r = 0;
	h_join(tc);
	replay_expect("lookup(1), removed (0: NULL)", (long)replay_lookup(1), 0);
	replay_expect("find_ge(0)", ops->find_ge(idx, 0), -ENOENT);
	bad = ops->verify(idx);
	mem = ops->mem_bytes(idx);
	printk("verify: %u violations; mem_bytes %zu, empty index %zu\n",
	       bad, mem, empty);
	ops->destroy(idx);
	printk("pidx_mem.bytes after destroy: %ld\n", pidx_mem_bytes());
	return bad || replay_wrong || mem > empty || pidx_mem_bytes();
}
