// SPDX-License-Identifier: GPL-2.0
/*
 * pidx workloads: the operations of every storm (lookup, insert, delete,
 * mixed, fork, iterate, replay) with the checks of their results, each
 * storm CPU's ring of the PIDs it owns, and the batch timing and latency
 * sampling around them.  How a PID is made and freed over every namespace
 * level is pidx_workload_fork.c's, the plan and the order of the keys
 * pidx_workload_plan.c's.  Built into the module and, unchanged, into
 * user/pidx-user (see pidx_workload.h).
 */
#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include "pidx_trace.h"
#include "pidx_workload.h"

static const char pidx_why_missed[] = "lookup missed a key present for the whole storm";

/* false: no room, and @pid is the caller's still */
static bool pidx_ring_push(struct pidx_worker *w, struct pidx_pid *pid)
{
	if (w->ring_len == w->ring_cap) {
		pidx_worker_error(w, pid->numbers[w->storm->look_level].nr,
				  "engine ring overflow");
		return false;
	}
	w->ring[(w->ring_head + w->ring_len) % w->ring_cap] = pid;
	/* marked: a fork_wait waiter reads the length without the lock */
	WRITE_ONCE(w->ring_len, w->ring_len + 1);
	return true;
}

static struct pidx_pid *pidx_ring_pop(struct pidx_worker *w)
{
	struct pidx_pid *pid = w->ring[w->ring_head];

	w->ring_head = (w->ring_head + 1) % w->ring_cap;
	WRITE_ONCE(w->ring_len, w->ring_len - 1);
	return pid;
}

/* Gives back the PID just popped: the oldest again. */
static void pidx_ring_unpop(struct pidx_worker *w, struct pidx_pid *pid)
{
	w->ring_head = (w->ring_head + w->ring_cap - 1) % w->ring_cap;
	w->ring[w->ring_head] = pid;
	WRITE_ONCE(w->ring_len, w->ring_len + 1);
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
 * Waits for room (pidx_fork_wait()) end once their batch has run half the
 * batch bound, its own operations' time included: the CPU that frees this
 * one's PIDs stops that long only when the host stopped it (the VM runner
 * saw 1 to 2.3 s; natively, on a loaded 2-core host, a pinned thread was
 * once away 3.6 s) or its exits cannot go on, and the batch must still end
 * inside the bound.
 */
#define PIDX_FORK_WAIT_MAX_NS	((u64)PIDX_ROUND_BOUND_MS * NSEC_PER_MSEC / 2)

/*
 * fork_wait: @w's window is full because the CPU that frees its PIDs fell
 * behind (a 2-CPU host or guest running something else on its CPU).  A
 * local exit would measure this CPU's own exits, not the remote ones the
 * row says, so @w waits for that CPU instead, at the pair's pace; while it
 * waits it does its own exit duty, so that CPUs that all wait on one
 * another free each other's windows, and a CPU whose ops are done goes on
 * freeing until every CPU is (pidx_untimed_lookups()).  cond_resched()
 * lets another task of this CPU run, the kthread storm's batches having
 * no other; in user space the threads are pinned to CPUs of their own and
 * the compat layer leaves it empty.  The window's length is read without
 * its lock: only @w makes it grow, and the lock would only make the CPU
 * that frees it wait; the lock holders write it with WRITE_ONCE().  A
 * freer's unpop after a failed exit can make it dip for a moment and the
 * fork go on, which fork_full's margin of two holds, as it did when the
 * check was under the lock (pidx_fork_exit() drops it between the two).
 * False when @w gives up, and exits locally as before: the storm is
 * aborting, a CPU counted an error (its exits may stop at a PID it cannot
 * free), or this batch has run PIDX_FORK_WAIT_MAX_NS; its later full
 * windows are then still drained and looked at once, so that the local
 * exits last only as long as the other CPU stays away.  The time waited is
 * the row's fork_wait_ms.
 */
static noinline bool pidx_fork_wait(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;
	struct pidx_worker *from = w->exit_from;
	const u32 window = s->cfg->fork_window;
	u64 t0, now;
	bool full;

	t0 = ktime_get_ns();
	for (;;) {
		if (READ_ONCE(from->ring_len) > window)
			pidx_fork_exit(w, from, window, U32_MAX);
		/*
		 * the clock first: a wait that outlived the budget because
		 * this CPU was taken away still sees the room made meanwhile
		 */
		now = ktime_get_ns();
		full = READ_ONCE(w->ring_len) >= s->fork_full;
		if (!full || READ_ONCE(s->abort) || READ_ONCE(s->erred) ||
		    now - w->batch_t0 >= PIDX_FORK_WAIT_MAX_NS)
			break;
		cpu_relax();
		cond_resched();
	}
	w->wait_ns += now - t0;
	return !full;
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
	 * its vCPU.  A kthread storm waits for that CPU (fork_wait); an ipi
	 * round, whose CPUs run with interrupts off and may have left the
	 * round, may not wait on another CPU, and its rounds keep the CPUs
	 * in step.  Else it frees its own oldest before it forks, and forks
	 * only once there is room.
	 */
	raw_spin_lock_irqsave(&w->ring_lock, flags);
	full = w->ring_len >= s->fork_full;
	raw_spin_unlock_irqrestore(&w->ring_lock, flags);
	if (unlikely(full) && !(s->fork_wait && pidx_fork_wait(w))) {
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

	/* fork_wait's budget counts from here (PIDX_FORK_WAIT_MAX_NS) */
	if (unlikely(w->storm->fork_wait))
		w->batch_t0 = ktime_get_ns();
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
	struct pidx_storm *s = w->storm;
	const struct pidx_shape_set *set = s->shape;
	u32 i;

	/*
	 * fork_wait: a CPU done with its ops goes on freeing the next CPU's
	 * PIDs in its cool-down, until every CPU is done, or that CPU would
	 * wait for it until its wait gave up.  These exits come after its
	 * timed batches, and stay out of its time: a remote exit was never
	 * the forking CPU's cost, and time with no operation of its own would
	 * only raise this CPU's ns/op.  A CPU still forking whose exits are
	 * a done CPU's has none left to do (that ring no longer grows): its
	 * forks cost that much less, for as long as the CPUs ran apart.
	 */
	if (unlikely(s->fork_wait) && w->done >= w->nops &&
	    READ_ONCE(w->exit_from->ring_len) > s->cfg->fork_window)
		pidx_fork_exit(w, w->exit_from, s->cfg->fork_window, U32_MAX);
	if (!s->stable)
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
