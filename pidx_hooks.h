/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test hooks of the module (pidx_hooks.c): the contexts that fault injection
 * may fail, and the switch of the race delays that pidx.h's writers call.
 * The indexes' side of both is in pidx.h; this is the side of whoever
 * drives them (the run, the selftest, load and unload).
 */
#ifndef _PIDX_HOOKS_H
#define _PIDX_HOOKS_H

#include <linux/bits.h>
#include <linux/types.h>

/*
 * Test only (module parameter fault_inject, a mask): the module's own
 * contexts that the kernel's fault injection may fail.  Each one named is
 * marked with make_it_fail, so that failslab with task-filter Y fails its
 * allocations (with ignore-gfp-wait N, its sleeping ones too).  ipi storms
 * run in whatever task an IPI interrupts: failslab reaches them only with
 * task-filter N.  Every row of a run made with a nonzero mask is labelled
 * faults=failslab in extra, and scripts/plot.py leaves such rows out.
 */
#define PIDX_FAULT_STORM	BIT(0)	/* the storm kthreads */
#define PIDX_FAULT_PREFILL	BIT(1)	/* the prefill kthread */
#define PIDX_FAULT_SELFTEST	BIT(2)	/* the selftest's phase under faults */
#define PIDX_FAULT_LOAD		BIT(3)	/* module init and exit */
extern unsigned int pidx_fault_inject;
/* Marks the current task when @on; returns its mark before, for the restore. */
int pidx_fault_mark(bool on);
void pidx_fault_restore(int old);

/*
 * Turns pidx_race_delay() on, each CPU's delays drawn from a generator
 * seeded from @seed, or off.  No writer may run while they are turned on.
 */
void pidx_race_delays_start(u64 seed);
void pidx_race_delays_stop(void);

/*
 * Turns pidx.h's contract checks on (the selftest's phases) or off.  No
 * writer may run while they are turned either way: a publish must not check
 * on one side of the switch and store on the other.
 */
void pidx_contract_checks_set(bool on);

#endif /* _PIDX_HOOKS_H */
