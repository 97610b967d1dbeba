// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's struct pid (pidx_pid.h): a slab cache of its own, as
 * pid_idr_init() makes "pid" for one level, SLAB_HWCACHE_ALIGN as there, so
 * that an object's lines are a real struct pid's.  An object is freed after
 * an RCU grace period, as free_pid() frees a struct pid: a reader that found
 * it in an index may still read it.
 */
#include <linux/atomic.h>
#include <linux/slab.h>
#include "pidx_pid.h"

static struct kmem_cache *pidx_pid_cache;
/* objects not yet given back: the module's exit says if any are left */
static atomic_long_t pidx_pid_count;
/* allocations refused since load: an operation that failed for memory */
static atomic_long_t pidx_pid_nomem;

int pidx_pid_cache_init(void)
{
	pidx_pid_cache = kmem_cache_create("pidx_pid",
					   sizeof(struct pidx_pid) +
					   sizeof(struct pidx_upid),
					   __alignof__(struct pidx_pid),
					   SLAB_HWCACHE_ALIGN, NULL);
	return pidx_pid_cache ? 0 : -ENOMEM;
}

/* After every object's grace period: the callbacks may still be queued. */
void pidx_pid_cache_exit(void)
{
	rcu_barrier();
	kmem_cache_destroy(pidx_pid_cache);
	pidx_pid_cache = NULL;
}

/* alloc_pid()'s first step: the object, before any number is reserved. */
struct pidx_pid *pidx_pid_new(gfp_t gfp)
{
	struct pidx_pid *pid = kmem_cache_alloc(pidx_pid_cache, gfp);

	if (pid)
		atomic_long_inc(&pidx_pid_count);
	else
		atomic_long_inc(&pidx_pid_nomem);
	return pid;
}

/*
 * What alloc_pid() sets before it publishes: the number, the count and the
 * empty lists, all stored before publish()'s release.
 */
void pidx_pid_set(struct pidx_pid *pid, u32 nr)
{
	pid->count = 1;
	pid->level = 0;
	pid->lock = 0;
	memset(pid->tasks, 0, sizeof(pid->tasks));
	pid->inodes = NULL;
	pid->wait_lock = 0;
	pid->wait_head[0] = NULL;
	pid->wait_head[1] = NULL;
	pid->numbers[0].nr = nr;
	pid->numbers[0].ns = NULL;
}

static void pidx_pid_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(pidx_pid_cache, container_of(head, struct pidx_pid, rcu));
	atomic_long_dec(&pidx_pid_count);
}

void pidx_pid_free(struct pidx_pid *pid)
{
	call_rcu(&pid->rcu, pidx_pid_free_rcu);
}

long pidx_pid_live(void)
{
	return atomic_long_read(&pidx_pid_count);
}

long pidx_pid_failed(void)
{
	return atomic_long_read(&pidx_pid_nomem);
}
