// SPDX-License-Identifier: GPL-2.0
/*
 * pidx workloads: the operations of every storm (lookup, insert, delete,
 * mixed, fork, iterate, replay) with the checks of their results, the batch timing
 * and latency sampling around them, and each workload's plan.  Built into
 * the module and, unchanged, into user/pidx-user (see pidx_workload.h).
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include "pidx_registry.h"
#include "pidx_trace.h"
#include "pidx_workload.h"

static const char pidx_why_missed[] = "lookup missed a key present for the whole storm";

u32 pidx_space(u32 pid_max)
{
	return pid_max - 1;
}

/*
 * The settings both substrates start from; each caller then sets what is
 * its own: the mode, the CPUs and pmu.
 */
void pidx_config_defaults(struct pidx_config *cfg)
{
	cfg->workload = PIDX_WL_LOOKUP;
	cfg->mix[PIDX_MIX_LOOKUP] = 90;
	cfg->mix[PIDX_MIX_INSERT] = 5;
	cfg->mix[PIDX_MIX_DELETE] = 5;
	cfg->keys = 1024;
	cfg->ops = 10000;
	cfg->pid_max = PIDX_PID_MAX_DEFAULT;
	cfg->repeat = 1;
	cfg->seed = 1;
	cfg->fork_window = 64;
	/* fork() looks nothing up; a child exits wherever it last ran */
	cfg->fork_lookups = 0;
	cfg->fork_exit = PIDX_EXIT_REMOTE;
	cfg->sl_p = 4;
	cfg->levels = 1;
	cfg->node = NUMA_NO_NODE;
	cfg->indexes = pidx_indexes_all();
}

void pidx_fill_params(const struct pidx_config *cfg, struct pidx_params *p)
{
	p->pid_max = cfg->pid_max;
	p->sl_p = cfg->sl_p;
	p->sl_max_level = cfg->sl_max_level;
	p->rb_level = cfg->rb_level;
	p->seed = cfg->seed;
	p->node = cfg->node;
	p->group = NULL;
}

static void pidx_worker_error(struct pidx_worker *w, u32 key, const char *why)
{
	if (!w->errors++) {
		w->bad_key = key;
		w->bad_why = why;
	}
}

/* false: no room, and @pid is the caller's still */
static bool pidx_ring_push(struct pidx_worker *w, struct pidx_pid *pid)
{
	if (w->ring_len == w->ring_cap) {
		pidx_worker_error(w, pid->numbers[w->storm->look_level].nr,
				  "engine ring overflow");
		return false;
	}
	w->ring[(w->ring_head + w->ring_len++) % w->ring_cap] = pid;
	return true;
}

static struct pidx_pid *pidx_ring_pop(struct pidx_worker *w)
{
	struct pidx_pid *pid = w->ring[w->ring_head];

	w->ring_head = (w->ring_head + 1) % w->ring_cap;
	w->ring_len--;
	return pid;
}

/* Gives back the PID just popped: the oldest again. */
static void pidx_ring_unpop(struct pidx_worker *w, struct pidx_pid *pid)
{
	w->ring_head = (w->ring_head + w->ring_cap - 1) % w->ring_cap;
	w->ring[w->ring_head] = pid;
	w->ring_len++;
}

/* Position @j in the storm's order: the shape's index there. */
u32 pidx_shape_index_of(const struct pidx_storm *s, u32 j)
{
	u32 rem;

	div_u64_rem((u64)j * s->perm_mul + s->perm_add, s->nkeys, &rem);
	return rem;
}

/* Position @j in the storm's order: its PID, the shape's key there. */
u32 pidx_key_of(const struct pidx_storm *s, u32 j)
{
	return pidx_shape_key(s->shape, pidx_shape_index_of(s, j));
}

/* pidx_key_of() backwards for dense keys: where PID @key stands in the order. */
static u32 pidx_pos_of(const struct pidx_storm *s, u32 key)
{
	u32 rem;

	div_u64_rem((u64)(key - 1 + s->nkeys - s->perm_add) * s->perm_inv,
		    s->nkeys, &rem);
	return rem;
}

/* The inverse of @a modulo @n (extended Euclid); 0 if they share a factor. */
static u32 pidx_inverse(u32 a, u32 n)
{
	s64 t = 0, nt = 1, q, tmp;
	u32 r = n, nr = a, rtmp;

	while (nr) {
		q = r / nr;
		tmp = t - q * nt;
		t = nt;
		nt = tmp;
		rtmp = r - q * nr;
		r = nr;
		nr = rtmp;
	}
	if (r != 1)
		return 0;
	return t < 0 ? t + n : t;
}

/*
 * Draws the storm's order: a multiplier prime to nkeys (so the map is a
 * permutation) and an offset, both from the storm's own stream, so the same
 * seed gives the same order, as the Fisher-Yates shuffle it replaces did.
 * Neighbours in the order are mul apart modulo nkeys: each CPU's slice of
 * deletable PIDs is spread over the whole range, not clustered.  Unlike a
 * shuffle it is a fixed stride, so the CPUs' deletes keep fixed distances
 * from each other for the whole storm (README, "The storm's order").
 */
void pidx_order_init(struct pidx_storm *s, u64 *rng)
{
	u32 n = s->nkeys, tries = 0;

	s->perm_mul = 1;
	s->perm_add = 0;
	s->perm_inv = 1;
	if (n < 2)
		return;
	for (;;) {
		s->perm_mul = 1 + pidx_rand_below(rng, n - 1);
		/*
		 * A stride under n/8 (mul near 1 or n-1) would make the
		 * deletes nearly sequential, hitting one node again and
		 * again; such a stride is kept only when 64 draws found no
		 * other (it cannot be avoided below 16 keys).
		 */
		if (n >= 16 && ++tries <= 64 &&
		    min(s->perm_mul, n - s->perm_mul) < n / 8)
			continue;
		s->perm_inv = pidx_inverse(s->perm_mul, n);
		if (s->perm_inv)
			break;
	}
	s->perm_add = pidx_rand_below(rng, n);
}

/* A miss of prefilled PID @key is an error when nobody may delete it. */
static noinline void pidx_lookup_missed(struct pidx_worker *w, u32 key)
{
	struct pidx_storm *s = w->storm;

	if (!s->stable)
		return;
	/* the division of pidx_pos_of() only here: misses are rare */
	if (s->stable == s->nkeys ||
	    (s->stable_map ? test_bit(key, s->stable_map) :
	     pidx_pos_of(s, key) < s->stable))
		pidx_worker_error(w, key, pidx_why_missed);
}

/* A lookup returned an object that is not @key's. */
static noinline void pidx_lookup_wrong(struct pidx_worker *w, u32 key)
{
	pidx_worker_error(w, key, "lookup returned another number's object");
}

/*
 * A PID of the set, uniform over it: the same few instructions for every
 * index, and no load but the aged walk's, which runs through memory in
 * order.  A spread key is the shape's map of a uniform position.
 */
static __always_inline u32 pidx_draw_key(const struct pidx_shape_set *set,
					 u64 *rng, u32 *walk_pos)
{
	u32 i;

	switch (set->shape) {
	case PIDX_SHAPE_SPREAD:
		return pidx_shape_key(set, pidx_rand_below(rng, set->nkeys));
	case PIDX_SHAPE_AGED:
		/*
		 * A small set's walk would repeat every nkeys lookups, a
		 * sequence the branch predictor learns (a skip list's search
		 * then costs a fraction of a random one's); a walk that small
		 * stays in L1, so a random place in it costs no miss.  A large
		 * set's walk repeats too seldom to be learnt.
		 */
		if (set->nkeys <= PIDX_AGED_RANDOM_MAX)
			return set->walk[pidx_rand_below(rng, set->nkeys)];
		i = (*walk_pos)++;
		if (unlikely(*walk_pos == set->nkeys))
			*walk_pos = 0;
		return set->walk[i];
	default:
		return 1 + pidx_rand_below(rng, set->nkeys);
	}
}

/*
 * dist other than uniform: the next key of the run's walk (pidx_dist.h),
 * read in turn from this CPU's place, like the aged shape's walk.
 */
static __always_inline u32 pidx_walk_key(const struct pidx_shape_set *set,
					 u32 *walk_pos)
{
	u32 i = (*walk_pos)++;

	if (unlikely(*walk_pos == set->dist_len))
		*walk_pos = 0;
	return set->dist_walk[i];
}

/*
 * The lookup of @key as find_pid_ns()'s callers make it: the index's
 * lookup, then a read of the object it returned, inside the same RCU read
 * section (the object may be freed after it).  Returns the number read, 0
 * on a miss; the null index's one object reads 0 too, unchecked.
 */
static __always_inline u32 pidx_lookup_read(struct pidx_worker *w,
					    void *(*lookup)(struct pidx_index *idx, u32 pid),
					    struct pidx_index *idx, u32 key,
					    unsigned int level, const bool check)
{
	void *v;
	u32 nr;

	rcu_read_lock();
	v = lookup(idx, key);
	nr = v ? pidx_pid_nr(v, level) : 0;
	rcu_read_unlock();
	if (unlikely(!v))
		pidx_lookup_missed(w, key);
	else if (check && unlikely(nr != key))
		pidx_lookup_wrong(w, key);
	return nr;
}

/* Looks up @key, a prefilled PID; returns the number its object holds. */
static __always_inline u32 pidx_lookup_pid(struct pidx_worker *w, u32 key)
{
	struct pidx_storm *s = w->storm;

	return pidx_lookup_read(w, s->ops->lookup, s->idx, key, s->look_level,
				s->check_values);
}

/*
 * dependent=1: a zero that exists only once @nr, the number read from the
 * object the lookup returned, does.  Added to the next lookup's key, it
 * makes that lookup wait for this one's index walk and its read of the
 * object through data, as a kernel lookup inside a syscall waits for the
 * one before it, where batched lookups overlap in the CPU's out-of-order
 * window.  A branch would not do: the CPU predicts it and runs on.  The
 * number is hidden from the compiler first because the check tells it that
 * @nr equals the key on the hot path, and it would fold the shift to a
 * constant there; hidden, it is a shift of the loaded register.  A number
 * is below PIDX_PID_MAX_LIMIT, so the shift leaves 0, and the key itself
 * stays the one drawn: both settings look up the same PIDs.
 */
static __always_inline u32 pidx_chain_zero(u32 nr)
{
	OPTIMIZER_HIDE_VAR(nr);
	return nr >> 31;
}

/*
 * Uniform over the prefilled PIDs, as a uniform position in the order
 * would be: the permutation maps one onto the other, and only a miss needs
 * to know where its PID stands.
 */
static void pidx_op_lookup(struct pidx_worker *w)
{
	const struct pidx_shape_set *set = w->storm->shape;

	pidx_lookup_pid(w, set->dist_walk ? pidx_walk_key(set, &w->walk_pos) :
			pidx_draw_key(set, &w->rng, &w->walk_pos));
}

/*
 * Once per batch: a chain that added anything would have moved the keys
 * off those drawn, and dependent lookups would no longer look up the PIDs
 * batched ones do, nor only prefilled ones.
 */
static void pidx_chain_check(struct pidx_worker *w, u32 chain)
{
	if (unlikely(chain))
		pidx_worker_error(w, 0, "dependent lookups: a nonzero chain moved the keys");
}

/*
 * A timed batch of a lookup storm without visit tracing: pidx_op_lookup()
 * @n times, the same PIDs from the same stream, in one loop that keeps the
 * generator and the index in registers.  Through pidx_one_op() every
 * lookup paid two calls' register saves, the workload switch and the
 * generator's trip through memory: about 60 of the null index's 104
 * instructions per lookup, half the engine's cost that every index's time
 * includes.  @shape and @dependent are constants in each caller, so each
 * loop draws its own way with no switch, and only a dependent one chains.
 * With @dependent each key waits for the previous lookup's return value
 * (pidx_chain_zero()): the number loaded from the returned object, shifted
 * right by 31 and added to the next key, with no branch between the load
 * and the add.  With @walked (a dist other than uniform)
 * each key is the next of the run's walk instead, whatever the shape.
 */
static __always_inline void pidx_lookup_loop(struct pidx_worker *w, u32 n,
					     const enum pidx_shape shape,
					     const bool dependent, const bool walked)
{
	struct pidx_storm *s = w->storm;
	void *(*lookup)(struct pidx_index *idx, u32 pid) = s->ops->lookup;
	struct pidx_index *idx = s->idx;
	const unsigned int level = s->look_level;
	struct pidx_shape_set set = *s->shape;
	u32 walk_pos = w->walk_pos, key, chain = 0, nr, i;
	const bool check = s->check_values;
	u64 rng = w->rng;

	set.shape = shape;
	for (i = 0; i < n; i++) {
		if (walked)
			key = pidx_walk_key(&set, &walk_pos);
		else
			key = pidx_draw_key(&set, &rng, &walk_pos);
		if (dependent)
			key += chain;
		nr = pidx_lookup_read(w, lookup, idx, key, level, check);
		if (dependent)
			chain = pidx_chain_zero(nr);
	}
	w->rng = rng;
	w->walk_pos = walk_pos;
	if (dependent)
		pidx_chain_check(w, chain);
}

/* pidx_lookup_loop() with the storm's shape made a constant of each call */
static __always_inline void pidx_lookup_shaped(struct pidx_worker *w, u32 n,
					       const bool dependent)
{
	switch (w->storm->shape->shape) {
	case PIDX_SHAPE_SPREAD:
		pidx_lookup_loop(w, n, PIDX_SHAPE_SPREAD, dependent, false);
		break;
	case PIDX_SHAPE_AGED:
		pidx_lookup_loop(w, n, PIDX_SHAPE_AGED, dependent, false);
		break;
	default:
		pidx_lookup_loop(w, n, PIDX_SHAPE_DENSE, dependent, false);
		break;
	}
}

static noinline void pidx_lookup_batch(struct pidx_worker *w, u32 n)
{
	pidx_lookup_shaped(w, n, false);
}

/* pidx_lookup_batch() with dependent=1. */
static noinline void pidx_lookup_chain(struct pidx_worker *w, u32 n)
{
	pidx_lookup_shaped(w, n, true);
}

/* pidx_lookup_batch() and pidx_lookup_chain() reading the dist's walk */
static noinline void pidx_lookup_walk(struct pidx_worker *w, u32 n)
{
	pidx_lookup_loop(w, n, PIDX_SHAPE_DENSE, false, true);
}

static noinline void pidx_lookup_walk_chain(struct pidx_worker *w, u32 n)
{
	pidx_lookup_loop(w, n, PIDX_SHAPE_DENSE, true, true);
}

/*
 * free_pid(): every level's number of @pid removed, in one step where the
 * index frees a level group at once (remove_levels()), else level by level
 * from the first, the deepest (the one lookups read) last.  -ENOMEM
 * (remove_may_fail): the level refused and those after it are still held,
 * and the caller still owns the PID; the levels before it are gone, their
 * numbers zeroed in the object (no reader reads a level but the deepest),
 * and the next exit goes on from the refused one.
 */
int pidx_remove_levels(struct pidx_storm *s, struct pidx_pid *pid)
{
	u32 nr[PIDX_LEVELS_MAX];
	unsigned int i, n = s->nlevels;
	int ret;

	if (n == 1)
		return s->ops->remove(s->idx, pid->numbers[0].nr);
	if (s->ops->remove_levels) {
		for (i = 0; i < n; i++)
			nr[i] = pid->numbers[i].nr;
		return s->ops->remove_levels(s->lvl, n, nr);
	}
	for (i = 0; i < n; i++) {
		if (!pid->numbers[i].nr)
			continue;
		ret = s->ops->remove(s->lvl[i], pid->numbers[i].nr);
		if (ret)
			return ret;
		if (i != n - 1)
			pid->numbers[i].nr = 0;
	}
	return 0;
}

/*
 * Every level's number of @pid published: in one step where the index
 * publishes a level group at once (6.1's idr_replace() loop in one hold
 * of pidmap_lock), else level by level from the deepest, as that loop
 * goes.  An error leaves the levels before it published: the caller
 * removes them all.
 */
int pidx_publish_levels(struct pidx_storm *s, struct pidx_pid *pid)
{
	u32 nr[PIDX_LEVELS_MAX];
	unsigned int i, n = s->nlevels;
	int ret;

	if (n == 1)
		return s->ops->publish(s->idx, pid->numbers[0].nr, pid);
	if (s->ops->publish_levels) {
		for (i = 0; i < n; i++)
			nr[i] = pid->numbers[i].nr;
		return s->ops->publish_levels(s->lvl, n, nr, pid);
	}
	for (i = n; i-- > 0;) {
		ret = s->ops->publish(s->lvl[i], pid->numbers[i].nr, pid);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * alloc_pid()'s unwind: the levels @pid holds a reservation of (a nonzero
 * number) removed, each zeroed once gone.  -ENOMEM (remove_may_fail) stops
 * at the level refused, a failed operation: true then, the object still
 * holding it and the levels after it.
 */
static bool pidx_unreserve(struct pidx_worker *w, struct pidx_pid *pid)
{
	struct pidx_storm *s = w->storm;
	unsigned int i;
	int ret;

	for (i = 0; i < s->nlevels; i++) {
		if (!pid->numbers[i].nr)
			continue;
		ret = s->ops->remove(s->lvl[i], pid->numbers[i].nr);
		if (ret == -ENOMEM && s->ops->remove_may_fail) {
			w->fails++;
			return true;
		}
		if (ret)
			pidx_worker_error(w, pid->numbers[i].nr,
					  "unwind of a reservation failed");
		pid->numbers[i].nr = 0;
	}
	return false;
}

/*
 * The end of a fork that failed once it had its object: the object freed,
 * or, where a number it holds was refused removal, kept on this CPU's
 * stranded list: alloc_pid() cannot keep a number, and pidx.h leaves a
 * number whose removal was refused with its owner.
 */
static void pidx_unwind_pid(struct pidx_worker *w, struct pidx_pid *pid)
{
	if (pidx_unreserve(w, pid)) {
		pid->stranded_next = w->stranded;
		w->stranded = pid;
		return;
	}
	pidx_pid_free(pid);
}

/*
 * The stranded reservations of this CPU's failed forks removed, before
 * its next fork, until one is refused again.
 */
static void pidx_unstrand(struct pidx_worker *w)
{
	struct pidx_pid *pid;

	while ((pid = w->stranded) && !pidx_unreserve(w, pid)) {
		w->stranded = pid->stranded_next;
		pidx_pid_free(pid);
	}
}

/*
 * alloc_pid()'s reservations, level by level from the deepest, each
 * number stored in the object: 0, or the error of the level that failed,
 * the levels reserved before it held (nonzero numbers), the others zero.
 */
static int pidx_reserve_levels(struct pidx_worker *w, struct pidx_pid *pid)
{
	struct pidx_storm *s = w->storm;
	unsigned int i;
	int nr;

	for (i = s->nlevels; i-- > 0;) {
		nr = s->ops->alloc(s->lvl[i], s->gfp);
		if (nr < 1 || nr >= s->cfg->pid_max) {
			if (nr != -ENOSPC && nr != -ENOMEM)
				pidx_worker_error(w, nr, nr < 0 ?
						  "alloc returned an unexpected error" :
						  "alloc returned a number outside [1, pid_max)");
			do
				pid->numbers[i].nr = 0;
			while (i-- > 0);
			return nr < 0 ? nr : -ERANGE;
		}
		pid->numbers[i].nr = nr;
	}
	return 0;
}

/*
 * The exit of @pid, which its caller owns: every level's number removed,
 * free_pid()'s call_rcu() the object.  -ENOMEM: still held (pidx.h), and
 * still the caller's.
 */
static int pidx_exit_pid(struct pidx_worker *w, struct pidx_pid *pid)
{
	struct pidx_storm *s = w->storm;
	int ret = s->nlevels == 1 ? s->ops->remove(s->idx, pid->numbers[0].nr) :
		  pidx_remove_levels(s, pid);

	if (!ret) {
		pidx_pid_free(pid);
		return 0;
	}
	if (ret == -ENOMEM && s->ops->remove_may_fail)
		return ret;
	pidx_worker_error(w, pid->numbers[0].nr, "remove of a PID this storm owns failed");
	return ret;
}

/*
 * alloc_pid() at one level, the path every run took before levels, kept
 * apart so that a one-level fork costs what it cost then: the object, a
 * number reserved for it, the object built with it, and the number
 * published, in two steps, or one where the index has alloc_publish().
 */
static struct pidx_pid *pidx_alloc_pid_one(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;
	struct pidx_pid *pid = pidx_pid_new(1, s->gfp);
	int nr, ret;

	if (!pid) {
		w->fails++;
		return NULL;
	}
	if (s->ops->alloc_publish) {
		pidx_pid_set(pid, 1);
		nr = s->ops->alloc_publish(s->idx, pid, &pid->numbers[0].nr, s->gfp);
		if (nr > 0 && pid->numbers[0].nr != nr) {
			/* published: the object goes with the number, or stays */
			pidx_worker_error(w, nr, "alloc_publish stored another number");
			if (nr < s->cfg->pid_max && !s->ops->remove(s->idx, nr))
				pidx_pid_free(pid);
			return NULL;
		}
	} else {
		nr = s->ops->alloc(s->idx, s->gfp);
	}
	if (nr == -ENOSPC || nr == -ENOMEM) {
		w->fails++;
		pidx_pid_free(pid);
		return NULL;
	}
	/* the oracle's bitmap is pid_max bits: a number past it is no PID */
	if (nr < 1 || nr >= s->cfg->pid_max) {
		pidx_worker_error(w, nr, nr < 0 ? "alloc returned an unexpected error" :
				  "alloc returned a number outside [1, pid_max)");
		/* the index's error: an object it may hold stays, the run fails */
		if (!s->ops->alloc_publish)
			pidx_pid_free(pid);
		return NULL;
	}
	if (s->ops->alloc_publish)
		return pid;
	pidx_pid_set(pid, 1);
	pid->numbers[0].nr = nr;
	ret = s->ops->publish(s->idx, nr, pid);
	if (likely(!ret))
		return pid;
	/* alloc_pid()'s unwind: the reservation goes, then the object */
	pidx_worker_error(w, nr, "publish of a number just reserved failed");
	if (!s->ops->remove(s->idx, nr))
		pidx_pid_free(pid);
	return NULL;
}

/*
 * alloc_pid(): the object first, then a number reserved for it in every
 * level, the object built with them, and the numbers published: two
 * steps, as 6.1 takes pidmap_lock for each level's reservation and once
 * for the publish, or one where the index has alloc_publish_levels()
 * (mainline's one hold).  NULL when there is no memory or no number (a
 * failed operation) or on an error; nothing is held then, but a
 * reservation whose removal was refused, on this CPU's stranded list.
 */
static struct pidx_pid *pidx_alloc_pid(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;
	struct pidx_pid *pid;
	u32 *nrp[PIDX_LEVELS_MAX];
	unsigned int i;
	int ret;

	if (s->nlevels == 1)
		return pidx_alloc_pid_one(w);
	if (unlikely(w->stranded))
		pidx_unstrand(w);
	pid = pidx_pid_new(s->nlevels, s->gfp);
	if (!pid) {
		w->fails++;
		return NULL;
	}
	if (s->ops->alloc_publish_levels) {
		pidx_pid_set(pid, s->nlevels);
		for (i = 0; i < s->nlevels; i++)
			nrp[i] = &pid->numbers[i].nr;
		ret = s->ops->alloc_publish_levels(s->lvl, s->nlevels, pid, nrp,
						   s->gfp);
		for (i = 0; !ret && i < s->nlevels; i++) {
			if (pid->numbers[i].nr >= 1 &&
			    pid->numbers[i].nr < s->cfg->pid_max)
				continue;
			/* the index's error: the object it holds stays, the run fails */
			pidx_worker_error(w, pid->numbers[i].nr,
					  "alloc_publish stored a number outside [1, pid_max)");
			return NULL;
		}
		if (!ret)
			return pid;
		if (ret != -ENOSPC && ret != -ENOMEM)
			pidx_worker_error(w, ret, "alloc_publish returned an unexpected error");
	} else {
		ret = pidx_reserve_levels(w, pid);
		if (ret) {
			if (ret == -ENOSPC || ret == -ENOMEM)
				w->fails++;
			pidx_unwind_pid(w, pid);
			return NULL;
		}
		pidx_pid_set(pid, s->nlevels);
		ret = pidx_publish_levels(s, pid);
		if (likely(!ret))
			return pid;
		/*
		 * alloc_pid()'s unwind: the numbers go as an exit's, the
		 * deepest last since readers may have found the object, then
		 * the object; one a refusal keeps stays, the run failed
		 */
		pidx_worker_error(w, pid->numbers[0].nr,
				  "publish of a number just reserved failed");
		if (pidx_exit_pid(w, pid) == -ENOMEM)
			w->fails++;
		return NULL;
	}
	if (ret == -ENOSPC || ret == -ENOMEM)
		w->fails++;
	pidx_pid_free(pid);
	return NULL;
}

static void pidx_op_insert(struct pidx_worker *w)
{
	struct pidx_pid *pid = pidx_alloc_pid(w);

	if (pid && !pidx_ring_push(w, pid))
		pidx_exit_pid(w, pid);
}

static void pidx_op_delete(struct pidx_worker *w)
{
	struct pidx_pid *pid;
	int ret;

	if (!w->ring_len) {
		w->fails++;
		return;
	}
	pid = pidx_ring_pop(w);
	/*
	 * -ENOMEM: still in the index and still ours (pidx.h), like a failed
	 * alloc; another error: the index's, kept so that the storm's end
	 * still frees the object
	 */
	ret = pidx_exit_pid(w, pid);
	if (ret) {
		pidx_ring_unpop(w, pid);
		if (ret == -ENOMEM)
			w->fails++;
	}
}

static void pidx_op_mixed(struct pidx_worker *w)
{
	const u32 *mix = w->storm->cfg->mix;
	u32 r = pidx_rand_below(&w->rng, 100);

	if (r < mix[PIDX_MIX_LOOKUP])
		pidx_op_lookup(w);
	else if (r < mix[PIDX_MIX_LOOKUP] + mix[PIDX_MIX_INSERT])
		pidx_op_insert(w);
	else
		pidx_op_delete(w);
}

/*
 * A timed batch of a mixed storm: pidx_op_mixed() @n times, the same
 * operations from the same stream, in one loop for both settings, so that
 * the engine's share is the same and only the chain differs.  With
 * @dependent each lookup's key waits for the previous lookup
 * (pidx_chain_zero()); inserts and deletes neither wait nor are waited
 * for: the chain runs through the lookups alone, and restarts with each
 * batch.  With @walked each lookup's key is the next of the dist's walk.
 */
static __always_inline void pidx_mixed_loop(struct pidx_worker *w, u32 n,
					    const bool dependent, const bool walked)
{
	const u32 *mix = w->storm->cfg->mix;
	const struct pidx_shape_set *set = w->storm->shape;
	u32 chain = 0, key, nr, r, i;

	for (i = 0; i < n; i++) {
		r = pidx_rand_below(&w->rng, 100);
		if (r < mix[PIDX_MIX_LOOKUP]) {
			if (walked)
				key = pidx_walk_key(set, &w->walk_pos);
			else
				key = pidx_draw_key(set, &w->rng, &w->walk_pos);
			if (dependent)
				key += chain;
			nr = pidx_lookup_pid(w, key);
			if (dependent)
				chain = pidx_chain_zero(nr);
		} else if (r < mix[PIDX_MIX_LOOKUP] + mix[PIDX_MIX_INSERT]) {
			pidx_op_insert(w);
		} else {
			pidx_op_delete(w);
		}
	}
	if (dependent)
		pidx_chain_check(w, chain);
}

static noinline void pidx_mixed_batch(struct pidx_worker *w, u32 n)
{
	pidx_mixed_loop(w, n, false, false);
}

static noinline void pidx_mixed_chain(struct pidx_worker *w, u32 n)
{
	pidx_mixed_loop(w, n, true, false);
}

static noinline void pidx_mixed_walk(struct pidx_worker *w, u32 n)
{
	pidx_mixed_loop(w, n, false, true);
}

static noinline void pidx_mixed_walk_chain(struct pidx_worker *w, u32 n)
{
	pidx_mixed_loop(w, n, true, true);
}

/*
 * A timed batch of a lookup or mixed storm under a dist other than uniform:
 * apart from the uniform ones, whose code stays as it was.
 */
static noinline void pidx_walk_batch(struct pidx_worker *w, u32 n)
{
	const struct pidx_config *cfg = w->storm->cfg;

	if (cfg->workload == PIDX_WL_LOOKUP && cfg->dependent)
		pidx_lookup_walk_chain(w, n);
	else if (cfg->workload == PIDX_WL_LOOKUP)
		pidx_lookup_walk(w, n);
	else if (cfg->dependent)
		pidx_mixed_walk_chain(w, n);
	else
		pidx_mixed_walk(w, n);
}

/*
 * Exits: frees @from's oldest PIDs while @from holds more than @window,
 * @most of them at most.  @from is this CPU's own ring, or under
 * fork_exit=remote the next CPU's: a CPU that ran ahead of the one that
 * frees its PIDs is brought back to its window at once, so a lag does not
 * persist (both fork at the same rate).  The lock is taken whatever the
 * setting, so that both settings pay the same for it and only where the
 * PID is freed differs.  irqsave: ipi storms take it in hard IRQ context,
 * kthread storms with interrupts on.
 */
static u32 pidx_fork_exit(struct pidx_worker *w, struct pidx_worker *from,
			  u32 window, u32 most)
{
	struct pidx_pid *pid;
	unsigned long flags;
	u32 freed = 0;
	int ret;

	while (freed < most) {
		pid = NULL;
		raw_spin_lock_irqsave(&from->ring_lock, flags);
		if (from->ring_len > window)
			pid = pidx_ring_pop(from);
		raw_spin_unlock_irqrestore(&from->ring_lock, flags);
		if (!pid)
			break;
		ret = pidx_exit_pid(w, pid);
		if (!ret) {
			freed++;
			continue;
		}
		/*
		 * still in the index and still @from's (pidx.h): the oldest
		 * again; after another error, kept for the storm's end to free
		 */
		raw_spin_lock_irqsave(&from->ring_lock, flags);
		pidx_ring_unpop(from, pid);
		raw_spin_unlock_irqrestore(&from->ring_lock, flags);
		if (ret == -ENOMEM)
			w->fails++;
		break;
	}
	return freed;
}

/*
 * A fork's fork_lookups lookups: of the new PID, which must return its
 * object, or under a dist other than uniform of the dist walk's next keys
 * (pidx_op_fork()).
 */
static void pidx_fork_lookups(struct pidx_worker *w, struct pidx_pid *pid)
{
	struct pidx_storm *s = w->storm;
	u32 n = s->cfg->fork_lookups, nr = pid->numbers[s->look_level].nr;
	bool hit = true;
	unsigned int i;

	if (!n)
		return;
	if (s->shape->dist_walk) {
		for (i = 0; i < n; i++)
			pidx_lookup_pid(w, pidx_walk_key(s->shape, &w->walk_pos));
		return;
	}
	rcu_read_lock();
	for (i = 0; i < n; i++) {
		void *v = s->ops->lookup(s->idx, nr);

		hit &= v && pidx_pid_nr(v, s->look_level) == nr && v == pid;
	}
	rcu_read_unlock();
	if (!hit && s->check_values)
		pidx_worker_error(w, nr, "lookup of a PID just allocated missed its object");
}

/*
 * fork + exit: take a PID, look it up fork_lookups times, and free the
 * oldest PIDs beyond fork_window of this CPU's window (fork_exit=local) or
 * of the next CPU's (remote).  Each op is one fork; the exits do not wait
 * for it: a fork that fails for want of a number still exits, as children
 * exit whether or not their parent can fork again.  Under a dist other
 * than uniform the fork_lookups lookups are not of the new PID but the
 * next keys of the dist's walk over the prefilled set, which a fork storm
 * never deletes: each must hit.
 */
static void pidx_op_fork(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;
	const struct pidx_config *cfg = s->cfg;
	struct pidx_pid *pid;
	unsigned long flags;
	bool full;

	/*
	 * A full window: its last exit could not free its PID, or (remote)
	 * the CPU that frees its PIDs fell behind, as when the host preempts
	 * its vCPU.  It frees its own oldest before it forks, and forks only
	 * once there is room.
	 */
	raw_spin_lock_irqsave(&w->ring_lock, flags);
	full = w->ring_len >= s->fork_full;
	raw_spin_unlock_irqrestore(&w->ring_lock, flags);
	if (full) {
		if (!pidx_fork_exit(w, w, 0, 1))
			return;
		if (s->remote_exit)
			w->local_exits++;
	}
	pid = pidx_alloc_pid(w);
	if (!pid) {
		/*
		 * The space is full, or memory: exits are overdue, and under
		 * remote this CPU's own may never come if the next CPU ran out
		 * of operations first.
		 */
		pidx_fork_exit(w, w->exit_from, cfg->fork_window, U32_MAX);
		if (s->remote_exit)
			w->local_exits += pidx_fork_exit(w, w, cfg->fork_window, U32_MAX);
		return;
	}
	pidx_fork_lookups(w, pid);
	raw_spin_lock_irqsave(&w->ring_lock, flags);
	full = !pidx_ring_push(w, pid);
	raw_spin_unlock_irqrestore(&w->ring_lock, flags);
	if (full)
		pidx_exit_pid(w, pid);
	pidx_fork_exit(w, w->exit_from, cfg->fork_window, U32_MAX);
}

/*
 * replay: this CPU's next event of the trace (pidx_trace.h), read in order
 * from its own array.  fork: alloc() as fork does, the number mapped to
 * the new incarnation, then fork_lookups lookups of it (of the dist's walk
 * under a dist other than uniform, as a fork storm's); exit and wait: one
 * lookup of a live number, which must hit; free: its removal.  An event
 * whose incarnation has no number (its fork failed) is an orphan.
 */
static void pidx_op_replay(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;
	u32 e = w->rev[w->rpos++], inc = e & PIDX_REPLAY_INC_MASK;
	struct pidx_pid *pid = w->rmap[inc];
	void *v;
	u32 got;

	switch (e >> PIDX_REPLAY_OP_SHIFT) {
	case PIDX_TEV_FORK:
		pid = pidx_alloc_pid(w);
		if (!pid)
			return;
		w->rmap[inc] = pid;
		pidx_fork_lookups(w, pid);
		return;
	case PIDX_TEV_FREE:
		if (!pid) {
			w->orphans++;
			return;
		}
		/* -ENOMEM: still in the index (pidx.h), the oracle expects it there */
		switch (pidx_exit_pid(w, pid)) {
		case 0:
			w->rmap[inc] = NULL;
			break;
		case -ENOMEM:
			w->fails++;
			break;
		}
		return;
	default:
		/* exit and wait: the signal to the parent, the parent's wait */
		if (!pid) {
			w->orphans++;
			return;
		}
		rcu_read_lock();
		v = s->ops->lookup(s->idx, pid->numbers[s->look_level].nr);
		got = v ? pidx_pid_nr(v, s->look_level) : 0;
		rcu_read_unlock();
		if (s->check_values && (v != pid || got != pid->numbers[s->look_level].nr))
			pidx_worker_error(w, pid->numbers[s->look_level].nr,
					  "lookup of a live trace PID missed its object");
	}
}

/* one find_ge step of a /proc readdir; a full pass must see every key */
static void pidx_op_iterate(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;
	int pid;

	rcu_read_lock();
	pid = s->ops->find_ge(s->idx, w->iter_next);
	rcu_read_unlock();
	if (pid < 0) {
		if (w->iter_seen != s->nkeys && !s->ops->no_contents)
			pidx_worker_error(w, w->iter_seen, "a find_ge pass did not see every key");
		w->iter_seen = 0;
		w->iter_next = 0;
		return;
	}
	if (pid < w->iter_next)
		pidx_worker_error(w, pid, "find_ge went backwards");
	w->iter_seen++;
	w->iter_next = pid + 1;
}

static void pidx_one_op(struct pidx_worker *w)
{
	switch (w->storm->cfg->workload) {
	case PIDX_WL_LOOKUP:
		pidx_op_lookup(w);
		break;
	case PIDX_WL_INSERT:
		pidx_op_insert(w);
		break;
	case PIDX_WL_DELETE:
		pidx_op_delete(w);
		break;
	case PIDX_WL_MIXED:
		pidx_op_mixed(w);
		break;
	case PIDX_WL_FORK:
		pidx_op_fork(w);
		break;
	case PIDX_WL_ITERATE:
		pidx_op_iterate(w);
		break;
	case PIDX_WL_REPLAY:
		pidx_op_replay(w);
		break;
	default:
		break;
	}
}

/* Under trace_visits every operation is bracketed; off, a nop jump. */
static __always_inline void pidx_op(struct pidx_worker *w)
{
	if (static_branch_unlikely(&pidx_visits_on)) {
		pidx_visits_begin();
		pidx_one_op(w);
		pidx_visits_end(&w->visits);
	} else {
		pidx_one_op(w);
	}
}

static void pidx_record_latency(struct pidx_worker *w, u64 ns)
{
	u32 slot;

	ns = min_t(u64, ns, U32_MAX);
	w->lat_seen++;
	if (w->nlat < PIDX_LAT_MAX) {
		w->lat[w->nlat++] = ns;
		return;
	}
	/* reservoir sampling keeps the sample uniform over the whole storm */
	slot = pidx_rand_below(&w->rng, w->lat_seen);
	if (slot < PIDX_LAT_MAX)
		w->lat[slot] = ns;
}

void pidx_run_batch(struct pidx_worker *w)
{
	const struct pidx_config *cfg = w->storm->cfg;
	u32 n = min(w->storm->batch, w->nops - w->done);
	bool per_op = w->batches % PIDX_LAT_EVERY == PIDX_LAT_EVERY - 1;
	u64 t0, t1;
	u32 i;

	if (unlikely(w->stall_ms)) {
		/*
		 * stall_test: a batch that overruns the bound, for the tests;
		 * timed by ktime, as the bound is (mdelay() under TCG runs a
		 * loop calibrated at boot: 1500 ms took 4 to 5.4 s of ktime)
		 */
		t0 = ktime_get_ns() + (u64)w->stall_ms * NSEC_PER_MSEC;
		while (ktime_get_ns() < t0)
			cpu_relax();
		w->stall_ms = 0;
	}
	if (per_op) {
		for (i = 0; i < n; i++) {
			t0 = ktime_get_ns();
			pidx_op(w);
			t1 = ktime_get_ns();
			pidx_record_latency(w, t1 - t0);
		}
	} else {
		t0 = ktime_get_ns();
		if (static_branch_unlikely(&pidx_visits_on))
			for (i = 0; i < n; i++)
				pidx_op(w);
		else if (unlikely(w->storm->shape->dist_walk) &&
			 (cfg->workload == PIDX_WL_LOOKUP || cfg->workload == PIDX_WL_MIXED))
			pidx_walk_batch(w, n);
		else if (cfg->workload == PIDX_WL_LOOKUP && !cfg->dependent)
			pidx_lookup_batch(w, n);
		else if (cfg->workload == PIDX_WL_LOOKUP)
			pidx_lookup_chain(w, n);
		else if (cfg->workload == PIDX_WL_MIXED && cfg->dependent)
			pidx_mixed_chain(w, n);
		else if (cfg->workload == PIDX_WL_MIXED)
			pidx_mixed_batch(w, n);
		else
			for (i = 0; i < n; i++)
				pidx_op(w);
		t1 = ktime_get_ns();
		w->ns += t1 - t0;
		w->timed_ops += n;
	}
	w->done += n;
	w->batches++;
}

/*
 * Warm-up and cool-down: uniform over the keys nobody deletes, or under a
 * dist other than uniform the dist's own keys, so that the caches start
 * the storm as its lookups leave them.
 */
void pidx_untimed_lookups(struct pidx_worker *w, u32 n)
{
	const struct pidx_shape_set *set = w->storm->shape;
	u32 i;

	if (!w->storm->stable)
		return;
	if (set->dist_walk) {
		for (i = 0; i < n; i++)
			pidx_lookup_pid(w, pidx_walk_key(set, &w->walk_pos));
		return;
	}
	for (i = 0; i < n; i++)
		pidx_lookup_pid(w, pidx_key_of(w->storm,
					       pidx_rand_below(&w->rng, w->storm->stable)));
}

/*
 * Per workload: how many prefilled keys each CPU owns (and may delete), and
 * how many PIDs it may hold at most.  An insert storm, which exists to add
 * ops PIDs per CPU, is refused before anything is built when they cannot
 * fit; mixed and fork storms run into a full space like fork() does, and
 * count each -ENOSPC as a failed operation.
 */
int pidx_plan(const struct pidx_config *cfg, unsigned int ncpus,
	      u32 *slice, u32 *ring_cap, const char **why)
{
	u64 space = pidx_space(cfg->pid_max);
	u32 dels;

	*slice = 0;
	*ring_cap = 0;
	switch (cfg->workload) {
	case PIDX_WL_INSERT:
		*ring_cap = cfg->ops;
		if (cfg->keys + (u64)cfg->ops * ncpus > space) {
			*why = "keys + cpus x ops exceed pid_max - 1";
			return -ENOSPC;
		}
		break;
	case PIDX_WL_DELETE:
		if ((u64)cfg->ops * ncpus > cfg->keys) {
			*why = "delete needs keys >= cpus x ops";
			return -EINVAL;
		}
		*slice = cfg->ops;
		*ring_cap = cfg->ops;
		break;
	case PIDX_WL_MIXED:
		dels = DIV_ROUND_UP((u64)cfg->ops * cfg->mix[PIDX_MIX_DELETE], 100);
		*slice = min_t(u32, dels, cfg->keys / (2 * ncpus));
		*ring_cap = *slice + (cfg->mix[PIDX_MIX_INSERT] ? cfg->ops : 0);
		break;
	case PIDX_WL_FORK:
		/*
		 * A window and the PID an exit could not free.  Remote: room
		 * for a neighbour that falls behind by a window or two batches
		 * (in an ipi round one CPU may run its whole batch before the
		 * next CPU starts, and finish after it ends, as under
		 * emulation), and for the two PIDs (its exit's and the
		 * owner's) that may be given back.
		 */
		*ring_cap = cfg->fork_window + 1;
		if (pidx_fork_remote(cfg, ncpus))
			*ring_cap = cfg->fork_window +
				    max(cfg->fork_window, 2 * pidx_batch(cfg->ops)) + 3;
		break;
	default:
		break;
	}
	return 0;
}
