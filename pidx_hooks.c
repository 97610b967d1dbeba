// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks that the indexes and the engine call (pidx.h, pidx_hooks.h):
 * a removal's allocation failed on demand, the contexts that failslab may
 * fail, and the race delays.  They sit below every index, so that an index
 * calls down to them and never up into the selftest that turns them on.
 */
#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include "pidx.h"
#include "pidx_hooks.h"

unsigned int pidx_fail_remove_alloc;
module_param_named(fail_remove_alloc, pidx_fail_remove_alloc, uint, 0644);
MODULE_PARM_DESC(fail_remove_alloc, "test only: fail every Nth node allocation of a removal (0: never)");
static atomic_t pidx_fault_count;

bool pidx_fault_remove_alloc(void)
{
	unsigned int n = READ_ONCE(pidx_fail_remove_alloc);

	return n && !((unsigned int)atomic_inc_return(&pidx_fault_count) % n);
}

unsigned int pidx_fault_inject;
module_param_named(fault_inject, pidx_fault_inject, uint, 0644);
MODULE_PARM_DESC(fault_inject, "test only: contexts failslab may fail (mask: 1 storm kthreads, 2 prefill, 4 selftest phase, 8 load/unload); rows get faults=failslab");

int pidx_fault_mark(bool on)
{
#ifdef CONFIG_FAULT_INJECTION
	int old = current->make_it_fail;

	if (on)
		current->make_it_fail = 1;
	return old;
#else
	return 0;
#endif
}

void pidx_fault_restore(int old)
{
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = old;
#endif
}

DEFINE_STATIC_KEY_FALSE(pidx_race_delays);
static DEFINE_PER_CPU(u64, pidx_race_rand);

/* The longest race delay: several writer steps, even under TCG. */
#define PIDX_RACE_DELAY_NS	3000

void __pidx_race_delay(void)
{
	unsigned long flags;
	u64 r;

	/* a writer in an interrupt on this CPU would tear the generator state */
	local_irq_save(flags);
	r = pidx_rand_next(this_cpu_ptr(&pidx_race_rand));
	local_irq_restore(flags);
	/* every other call goes straight on: both orders of each window occur */
	if (r & 1)
		return;
	ndelay(pidx_rand_below(&r, PIDX_RACE_DELAY_NS));
}

void pidx_race_delays_start(u64 seed)
{
	unsigned int cpu;

	/* no writer runs yet, so nobody reads the states while they are set */
	for_each_possible_cpu(cpu)
		per_cpu(pidx_race_rand, cpu) = pidx_rand_seed(seed, 1000 + cpu);
	static_branch_enable(&pidx_race_delays);
}

void pidx_race_delays_stop(void)
{
	static_branch_disable(&pidx_race_delays);
}

DEFINE_STATIC_KEY_FALSE(pidx_contract_checks);

void pidx_contract_checks_set(bool on)
{
	if (on)
		static_branch_enable(&pidx_contract_checks);
	else
		static_branch_disable(&pidx_contract_checks);
}
