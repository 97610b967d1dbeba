/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: include/linux/spinlock.h.  A spinlock spins, as
 * the kernel's does (the tools headers make it a pthread mutex, which
 * sleeps): the uncontended path is qspinlock's, one cmpxchg to take it and
 * one byte store to release it, inside preempt_disable()/preempt_enable().
 * Contended waiters spin on the word with pause instead of queueing on an
 * MCS node.  The irqsave variants cannot turn interrupts off here.
 */
#ifndef _KC_SPINLOCK_H
#define _KC_SPINLOCK_H
#include <kc_base.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/lockdep.h>

typedef struct spinlock {
	union {
		u32 val;
		struct {
			u8 locked;
			u8 pending;
		};
	};
} spinlock_t;

typedef spinlock_t raw_spinlock_t;
typedef spinlock_t arch_spinlock_t;

#define __SPIN_LOCK_UNLOCKED(lockname)	((spinlock_t){ { .val = 0 } })
#define __RAW_SPIN_LOCK_UNLOCKED(l)	__SPIN_LOCK_UNLOCKED(l)
#define DEFINE_SPINLOCK(x)		spinlock_t x = __SPIN_LOCK_UNLOCKED(x)
#define DEFINE_RAW_SPINLOCK(x)		DEFINE_SPINLOCK(x)
#define spin_lock_init(l)		do { (l)->val = 0; } while (0)
#define raw_spin_lock_init(l)		spin_lock_init(l)

void kc_spin_lock_slowpath(spinlock_t *lock);

static __always_inline void kc_spin_lock(spinlock_t *lock)
{
	u32 val = 0;

	if (likely(__atomic_compare_exchange_n(&lock->val, &val, 1, false,
					       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)))
		return;
	kc_spin_lock_slowpath(lock);
}

static __always_inline void kc_spin_unlock(spinlock_t *lock)
{
	smp_store_release(&lock->locked, 0);
}

static __always_inline int kc_spin_trylock(spinlock_t *lock)
{
	u32 val = 0;

	return __atomic_compare_exchange_n(&lock->val, &val, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static __always_inline void spin_lock(spinlock_t *lock)
{
	preempt_disable();
	kc_spin_lock(lock);
}

static __always_inline void spin_unlock(spinlock_t *lock)
{
	kc_spin_unlock(lock);
	preempt_enable();
}

static __always_inline int spin_trylock(spinlock_t *lock)
{
	preempt_disable();
	if (kc_spin_trylock(lock))
		return 1;
	preempt_enable();
	return 0;
}

#define spin_lock_irq(l)		spin_lock(l)
#define spin_unlock_irq(l)		spin_unlock(l)
#define spin_lock_bh(l)			spin_lock(l)
#define spin_unlock_bh(l)		spin_unlock(l)
#define spin_lock_irqsave(l, flags)	do { local_irq_save(flags); spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) do { spin_unlock(l); local_irq_restore(flags); } while (0)
#define spin_lock_nested(l, s)		spin_lock(l)
#define spin_is_locked(l)		(READ_ONCE((l)->val) != 0)
#define assert_spin_locked(l)		do { (void)(l); } while (0)
#define raw_spin_lock			spin_lock
#define raw_spin_unlock			spin_unlock
#define raw_spin_lock_irqsave		spin_lock_irqsave
#define raw_spin_unlock_irqrestore	spin_unlock_irqrestore
#endif
