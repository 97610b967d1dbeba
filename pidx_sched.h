/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module's kthreads ask of the scheduler (pidx_sched.c), shared by
 * the storm substrate and the selftest.  pidx_prefill_move() is declared in
 * pidx_storm.h: the shared engine calls it, and each substrate supplies it.
 */
#ifndef _PIDX_SCHED_H
#define _PIDX_SCHED_H

void pidx_kthread_wait_stop(void);

#endif /* _PIDX_SCHED_H */
