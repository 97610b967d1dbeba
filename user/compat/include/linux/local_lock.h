/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: a local lock without lockdep is preempt_disable() */
#ifndef _KC_LOCAL_LOCK_H
#define _KC_LOCAL_LOCK_H
#include <linux/preempt.h>

typedef struct { } local_lock_t;
#define INIT_LOCAL_LOCK(lockname)	{ }
#define local_lock_init(l)		do { } while (0)
#define local_lock(lock)		preempt_disable()
#define local_unlock(lock)		preempt_enable()
#define local_lock_irqsave(lock, f)	do { (f) = 0; preempt_disable(); } while (0)
#define local_unlock_irqrestore(lock, f) do { (void)(f); preempt_enable(); } while (0)
#endif
