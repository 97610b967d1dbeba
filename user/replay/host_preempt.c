/*
 * What the user build does about the host, which no VM can stop: a thread
 * holding a spinlock may be preempted.  H takes the lock and sleeps 50 ms
 * (a preempted holder); W then takes it.  Expected: W's wait is counted in
 * kc_long_spins exactly once, however long it spun.  And RCU callbacks run
 * on the CPU that queued them, as the kernel runs them: each CPU queues a
 * callback that records where it ran.  Exit 1 on either failure.
 */
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include "pidx.h"

#include "replay.h"
#include "../compat/kcompat.h"
int usleep(unsigned int);

static DEFINE_SPINLOCK(lock);

static void *holder(void *arg)
{
	spin_lock(&lock);
	h_post(0);
	usleep(50000);
	spin_unlock(&lock);
	return NULL;
}

struct cb {
	struct rcu_head head;
	int queued_on, ran_on;
};

static void cb_fn(struct rcu_head *head)
{
	container_of(head, struct cb, head)->ran_on = h_cpu();
}

int demo_main(void)
{
	static struct cb cbs[2];
	unsigned long before;
	int cpu, ncpus = 0, bad = 0;
	void *t;

	kc_init();
	h_init();
	t = h_start(holder);
	h_wait(0);
	before = kc_long_spins;
	spin_lock(&lock);
	spin_unlock(&lock);
	h_join(t);
	printk("verify: a wait on a preempted holder counted %lu time(s), expected 1\n",
	       kc_long_spins - before);
	bad |= kc_long_spins - before != 1;

	rcu_register_thread();
	if (kc_rcu_percpu_callbacks()) {
		printk("no call_rcu thread per CPU\n");
		return 1;
	}
	for (cpu = 0; cpu < 2; cpu++) {
		if (h_pin(cpu))
			continue;
		cbs[ncpus].queued_on = cpu;
		cbs[ncpus].ran_on = -1;
		call_rcu(&cbs[ncpus].head, cb_fn);
		ncpus++;
	}
	rcu_barrier();
	for (cpu = 0; cpu < ncpus; cpu++) {
		printk("callback queued on CPU %d ran on CPU %d\n",
		       cbs[cpu].queued_on, cbs[cpu].ran_on);
		bad |= cbs[cpu].ran_on != cbs[cpu].queued_on;
	}
	kc_rcu_percpu_callbacks_end();
	rcu_unregister_thread();
	return bad;
}
