// SPDX-License-Identifier: GPL-2.0
/*
 * The null index holds nothing and does no work.  A storm over it costs what
 * the engine itself costs per operation (PRNG, indirect call, loop, batch
 * timing), which test_result shows beside the real indexes so their ns/op can
 * be read net of the harness.  It is never part of "all".
 *
 * Every number is found, and its value is one object for all of them, so
 * that the engine's read through the value after a lookup is part of the
 * harness's cost as it is of every real index's, and always hits the
 * cache: what the real indexes cost beyond null is their walk and the miss
 * on their object.  The object is a struct pidx_pid with the most levels, all
 * zero (its number reads 0: the engine checks no number from null), aligned
 * as a slab object to a cache line and read-only, so that no write shares
 * its lines.  No byte per key: nothing is held.
 */
#include <linux/cache.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include "pidx.h"
#include "pidx_pid.h"

static const union {
	struct pidx_pid pid;
	u8 bytes[struct_size((struct pidx_pid *)NULL, numbers, PIDX_LEVELS_MAX)];
} null_pid __aligned(SMP_CACHE_BYTES);

struct pidx_null {
	u32 __percpu *next;	/* per CPU: alloc must not bounce a cache line */
	u32 pid_max;
};

static inline struct pidx_null *to_pidx_null(struct pidx_index *idx)
{
	return (struct pidx_null *)idx;
}

static struct pidx_index *null_create(const struct pidx_params *p)
{
	struct pidx_null *n = kzalloc(sizeof(*n), GFP_KERNEL);

	if (!n)
		return ERR_PTR(-ENOMEM);
	n->next = alloc_percpu(u32);
	if (!n->next) {
		kfree(n);
		return ERR_PTR(-ENOMEM);
	}
	pidx_mem_charge(sizeof(*n));
	n->pid_max = p->pid_max;
	return (struct pidx_index *)n;
}

static void null_destroy(struct pidx_index *idx)
{
	struct pidx_null *n = to_pidx_null(idx);

	free_percpu(n->next);
	pidx_mem_uncharge(sizeof(*n));
	kfree(n);
}

static int null_alloc(struct pidx_index *idx, gfp_t gfp)
{
	struct pidx_null *n = to_pidx_null(idx);

	return 1 + this_cpu_inc_return(*n->next) % (n->pid_max - 1);
}

static int null_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	return 0;
}

static int null_publish(struct pidx_index *idx, u32 pid, void *value)
{
	return 0;
}

static void *null_lookup(struct pidx_index *idx, u32 pid)
{
	/* never written through: lookups' callers only read the object */
	return (void *)&null_pid.pid;
}

static int null_remove(struct pidx_index *idx, u32 pid)
{
	return 0;
}

static int null_find_ge(struct pidx_index *idx, u32 pid)
{
	return pid < to_pidx_null(idx)->pid_max ? pid : -ENOENT;
}

static unsigned int null_verify(struct pidx_index *idx)
{
	return 0;
}

static size_t null_mem_bytes(struct pidx_index *idx)
{
	return 0;
}

const struct pidx_ops pidx_null_ops = {
	.name		= "null",
	.desc		= "no index: the engine's own cost per operation",
	.no_contents	= true,
	.create		= null_create,
	.destroy	= null_destroy,
	.alloc		= null_alloc,
	.insert		= null_insert,
	.publish	= null_publish,
	.lookup		= null_lookup,
	.remove		= null_remove,
	.find_ge	= null_find_ge,
	.verify		= null_verify,
	.mem_bytes	= null_mem_bytes,
};
