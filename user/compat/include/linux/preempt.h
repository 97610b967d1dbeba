/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: include/linux/preempt.h.  CONFIG_PREEMPT_COUNT is
 * set in Debian's 6.1, so preempt_disable()/preempt_enable() cost an
 * increment and a decrement-and-test of a per-CPU counter: here a per-thread
 * one, read and written just as often.  Nothing is ever scheduled away.
 */
#ifndef _KC_PREEMPT_H
#define _KC_PREEMPT_H
#include <kc_base.h>

extern __thread int kc_preempt_count;

#define preempt_count()		READ_ONCE(kc_preempt_count)
#define preempt_disable()	do { kc_preempt_count++; barrier(); } while (0)
#define preempt_enable()	do { barrier(); if (unlikely(!--kc_preempt_count)) barrier(); } while (0)
#define preempt_enable_no_resched() do { barrier(); kc_preempt_count--; } while (0)
#define preempt_disable_notrace() preempt_disable()
#define preempt_enable_notrace() preempt_enable()
#define preemptible()		(preempt_count() == 0)
#define in_interrupt()		0
#define in_irq()		0
#define in_hardirq()		0
#define in_softirq()		0
#define in_task()		1
#define in_atomic()		(preempt_count() != 0)
#define migrate_disable()	preempt_disable()
#define migrate_enable()	preempt_enable()
#endif
