/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: include/linux/sched.h.  Threads are never
 * preempted in favour of another thread of the same "CPU", so there is
 * nothing to reschedule for.
 */
#ifndef _KC_SCHED_H
#define _KC_SCHED_H
#include <kc_base.h>
#include <linux/preempt.h>

#define cond_resched()		({ 0; })
#define need_resched()		false
#define cond_resched_rcu()	do { } while (0)
#endif
