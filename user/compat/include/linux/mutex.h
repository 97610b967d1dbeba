/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: include/linux/mutex.h.  A mutex sleeps (futex),
 * as the kernel's does once it stops spinning; the index files take one
 * only around slab cache creation.
 */
#ifndef _KC_MUTEX_H
#define _KC_MUTEX_H
#include <kc_base.h>
#include <linux/lockdep.h>

struct mutex {
	int state;	/* 0 free, 1 locked, 2 locked with waiters */
};

#define __MUTEX_INITIALIZER(name)	{ .state = 0 }
#define DEFINE_MUTEX(name)		struct mutex name = __MUTEX_INITIALIZER(name)
#define mutex_init(m)			do { (m)->state = 0; } while (0)
#define mutex_destroy(m)		do { } while (0)
#define mutex_is_locked(m)		(READ_ONCE((m)->state) != 0)

void mutex_lock(struct mutex *m);
int mutex_trylock(struct mutex *m);
void mutex_unlock(struct mutex *m);
#define mutex_lock_interruptible(m)	({ mutex_lock(m); 0; })
#endif
