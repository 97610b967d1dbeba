// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's struct pid (pidx_pid.h): a slab cache of its own for each
 * count of namespace levels, as the kernel makes "pid" for one level and
 * "pid_N" for N (create_pid_cachep()), SLAB_HWCACHE_ALIGN as there, so that
 * an object's lines are a real struct pid's: 112 bytes in 128 for one
 * level, 128 for two, 144 in 192 for three.  An object is freed after
 * an RCU grace period, as free_pid() frees a struct pid: a reader that found
 * it in an index may still read it.  At a storm's end, with its workers
 * stopped and its index destroyed, no reader is left, and the objects go at
 * once (pidx_pid_free_now()).
 */
#include <linux/atomic.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include "pidx.h"
#include "pidx_pid.h"

static struct kmem_cache *pidx_pid_cache[PIDX_LEVELS_MAX];
static const char *const pidx_pid_cache_names[PIDX_LEVELS_MAX] = {
	"pidx_pid", "pidx_pid_2", "pidx_pid_3",
};

/* objects not yet given back: the module's exit says if any are left */
static atomic_long_t pidx_pid_count;
/* allocations refused since load: an operation that failed for memory */
static atomic_long_t pidx_pid_nomem;

/* After every object's grace period: the callbacks may still be queued. */
void pidx_pid_cache_exit(void)
{
	unsigned int i;

	rcu_barrier();
	for (i = 0; i < PIDX_LEVELS_MAX; i++) {
		kmem_cache_destroy(pidx_pid_cache[i]);
		pidx_pid_cache[i] = NULL;
	}
}

int pidx_pid_cache_init(void)
{
	unsigned int i;

	for (i = 0; i < PIDX_LEVELS_MAX; i++) {
		pidx_pid_cache[i] =
			kmem_cache_create(pidx_pid_cache_names[i],
					  struct_size((struct pidx_pid *)NULL,
						      numbers, i + 1),
					  __alignof__(struct pidx_pid),
					  SLAB_HWCACHE_ALIGN, NULL);
		if (!pidx_pid_cache[i]) {
			pidx_pid_cache_exit();
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * alloc_pid()'s first step: the object of a PID numbered in each of
 * @levels namespace levels (1 to PIDX_LEVELS_MAX), before any number is
 * reserved.
 */
struct pidx_pid *pidx_pid_new(unsigned int levels, gfp_t gfp)
{
	struct pidx_pid *pid = kmem_cache_alloc(pidx_pid_cache[levels - 1], gfp);

	if (pid) {
		/* as alloc_pid(): the free finds the cache by it, whatever fails */
		pid->level = levels - 1;
		atomic_long_inc(&pidx_pid_count);
	} else {
		atomic_long_inc(&pidx_pid_nomem);
	}
	return pid;
}

/*
 * What alloc_pid() sets before it publishes, besides the numbers: the
 * count, the deepest level and the empty lists, all stored before
 * publish()'s release.
 */
void pidx_pid_set(struct pidx_pid *pid, unsigned int levels)
{
	unsigned int i;

	pid->count = 1;
	pid->level = levels - 1;
	pid->lock = 0;
	memset(pid->tasks, 0, sizeof(pid->tasks));
	pid->inodes = NULL;
	pid->wait_lock = 0;
	pid->wait_head[0] = NULL;
	pid->wait_head[1] = NULL;
	for (i = 0; i < levels; i++)
		pid->numbers[i].ns = NULL;
}

void pidx_pid_free_now(struct pidx_pid *pid)
{
	/* put_pid() finds the cache through the deepest level's namespace */
	kmem_cache_free(pidx_pid_cache[pid->level], pid);
	atomic_long_dec(&pidx_pid_count);
}

static void pidx_pid_free_rcu(struct rcu_head *head)
{
	pidx_pid_free_now(container_of(head, struct pidx_pid, rcu));
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
