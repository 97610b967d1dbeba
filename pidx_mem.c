// SPDX-License-Identifier: GPL-2.0
/*
 * The module-wide account of what the indexes allocate (pidx.h): its own
 * file at the bottom of the layers, because every index charges it and the
 * module's glue checks it at unload.  The user-space build links it too.
 */
#include <linux/cpumask.h>
#include "pidx.h"

DEFINE_PER_CPU(struct pidx_mem_account, pidx_mem);

static void pidx_mem_add(struct pidx_mem_totals *t,
			 struct pidx_mem_account *a)
{
	t->bytes += atomic_long_read(&a->bytes);
	t->allocs += atomic_long_read(&a->allocs);
	t->frees += atomic_long_read(&a->frees);
}

struct pidx_mem_totals pidx_mem_read(void)
{
	struct pidx_mem_totals t = {};
	int cpu;

	for_each_possible_cpu(cpu)
		pidx_mem_add(&t, per_cpu_ptr(&pidx_mem, cpu));
#ifdef KC_PERCPU_SECTION
	/*
	 * pidx-user's threads that stand for no CPU, RCU callbacks among
	 * them, charge the per-CPU section itself (user/compat's percpu.h)
	 */
	pidx_mem_add(&t, &pidx_mem);
#endif
	return t;
}
