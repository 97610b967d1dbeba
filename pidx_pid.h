/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The object an index maps a number to: the engine's stand-in for the
 * kernel's struct pid, one per PID from the engine's own slab cache, freed
 * after an RCU grace period as free_pid() frees a struct pid (at a storm's
 * end, with no reader left, at once).
 *
 * Its fields are sized and placed as a production (non-debug) x86-64 Linux
 * 6.1 struct pid's, with placeholders of fixed size where the kernel has a
 * lock or a list: a debug kernel's larger spinlock_t, or the user build's,
 * would otherwise move numbers[] to another cache line than a real kernel's,
 * and which lines a lookup touches is what the study measures.  pidx runs
 * no tasks, so nothing reads the placeholders.
 */
#ifndef _PIDX_PID_H
#define _PIDX_PID_H

#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/gfp.h>
#include <linux/rcupdate.h>

/* include/linux/pid.h: PIDTYPE_PID, PIDTYPE_TGID, PIDTYPE_PGID, PIDTYPE_SID */
#define PIDX_PIDTYPE_MAX	4

struct pidx_upid {
	u32 nr;			/* int in the kernel: the same four bytes */
	void *ns;		/* the level's namespace: never dereferenced */
};

struct pidx_pid {
	u32 count;		/* refcount_t */
	unsigned int level;
	u32 lock;		/* spinlock_t */
	void *tasks[PIDX_PIDTYPE_MAX];	/* struct hlist_head */
	void *inodes;		/* struct hlist_head */
	u32 wait_lock;		/* wait_queue_head_t: its spinlock_t ... */
	void *wait_head[2];	/* ... and its struct list_head */
	union {
		struct rcu_head rcu;
		/*
		 * a fork's object whose unwind an index refused for memory,
		 * on its CPU's list until its reservations are gone: never
		 * published, never freed while on it (pidx_workload_fork.c)
		 */
		struct pidx_pid *stranded_next;
	};
	struct pidx_upid numbers[];
};

/* 6.1's struct pid with one level ends at 112 bytes, numbers[0] at 96 */
static_assert(offsetof(struct pidx_pid, numbers) == 96);

int pidx_pid_cache_init(void);
void pidx_pid_cache_exit(void);
struct pidx_pid *pidx_pid_new(unsigned int levels, gfp_t gfp);
void pidx_pid_set(struct pidx_pid *pid, unsigned int levels);
void pidx_pid_free(struct pidx_pid *pid);
/*
 * No grace period: only where no reader can hold @pid, as at a storm's end
 * with its index destroyed (a million call_rcu()s were most of a 1M-key
 * storm's teardown)
 */
void pidx_pid_free_now(struct pidx_pid *pid);
long pidx_pid_live(void);
long pidx_pid_failed(void);

/*
 * The read a lookup's caller makes, as pid_nr_ns() reads upid->nr: the
 * number of @level, the level looked up, through the value the index
 * returned.
 */
static __always_inline u32 pidx_pid_nr(const void *value, unsigned int level)
{
	return READ_ONCE(((const struct pidx_pid *)value)->numbers[level].nr);
}

#endif /* _PIDX_PID_H */
