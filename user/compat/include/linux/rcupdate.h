/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: RCU is liburcu's memb flavour (as in
 * tools/testing/radix-tree): read-side sections inline (_LGPL_SOURCE),
 * synchronize_rcu()/rcu_barrier()/call_rcu() from the library.  Every
 * thread that reads must be registered (rcu_register_thread()); callbacks
 * run on liburcu's call_rcu thread, not on the CPU that queued them.
 * struct rcu_head is liburcu's: two pointers, as the kernel's.  The
 * pointer accessors are the kernel's, not liburcu's, definitions.
 */
#ifndef _KC_RCUPDATE_H
#define _KC_RCUPDATE_H
#include <kc_base.h>
#include <linux/preempt.h>
#include <linux/lockdep.h>

#include <urcu.h>

#undef rcu_dereference
#undef rcu_assign_pointer
#undef rcu_dereference_raw

#define rcu_dereference(p)		READ_ONCE(p)
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_dereference_check(p, c)	READ_ONCE(p)
#define rcu_dereference_bh(p)		READ_ONCE(p)
#define rcu_dereference_sched(p)	READ_ONCE(p)
#define rcu_dereference_protected(p, c)	(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_assign_pointer(p, v)					\
	do {								\
		if (__builtin_constant_p(v) && (v) == NULL)		\
			WRITE_ONCE((p), (typeof(p))(v));		\
		else							\
			smp_store_release(&(p), (typeof(p))(v));	\
	} while (0)
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE(p, v)
#define RCU_POINTER_INITIALIZER(p, v)	.p = (v)
#define rcu_replace_pointer(rcu_ptr, ptr, c) ({				\
	typeof(ptr) __tmp = rcu_dereference_protected((rcu_ptr), (c));	\
	rcu_assign_pointer((rcu_ptr), (ptr));				\
	__tmp; })
#define rcu_read_lock_held()		1
#define rcu_read_lock_bh_held()		1
#define rcu_read_lock_sched_held()	1
#define rcu_read_lock_any_held()	1
#define rcu_read_lock_sched()		preempt_disable()
#define rcu_read_unlock_sched()		preempt_enable()
#define rcu_read_lock_bh()		rcu_read_lock()
#define rcu_read_unlock_bh()		rcu_read_unlock()
#define synchronize_rcu_expedited()	synchronize_rcu()

#endif
