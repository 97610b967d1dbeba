// SPDX-License-Identifier: GPL-2.0
/*
 * The selftest's kit, which every phase uses: the check that counts and
 * reports instead of crashing (the test_xarray.c way), the bitmap oracle
 * with alloc_pid()'s cyclic rule, the comparison of an index with it, and
 * the team of threads that the concurrent phases release together.  It is
 * a layer of its own below the phases (layers.txt), so that a phase file
 * depends on the kit and never on another phase.
 */
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "pidx_sched.h"
#include "pidx_selftest.h"

/*
 * Records one check; the first failures are described, later ones counted.
 * @file and @line are the CHECK_EQ()'s, in whichever part of the selftest.
 */
bool pidx_st_eq(struct pidx_st *st, const char *file, int line,
		const char *what, long got, long want)
{
	st->total++;
	if (got == want) {
		st->passed++;
		return true;
	}
	if (st->total - st->passed <= 10) {
		pidx_log_printf(st->log,
				"  FAIL %s (%s:%d): %s: got %ld, expected %ld\n",
				st->ops->name, file, line, what, got, want);
		pr_err("pidx: selftest %s: line %d: %s: got %ld, expected %ld\n",
		       st->ops->name, line, what, got, want);
	}
	return false;
}

int pidx_oracle_init(struct pidx_oracle *o, u32 pid_max)
{
	o->bits = bitmap_zalloc(pid_max, GFP_KERNEL);
	o->pid_max = pid_max;
	o->cursor = 0;
	o->count = 0;
	return o->bits ? 0 : -ENOMEM;
}

/* idr_alloc_cyclic() with alloc_pid()'s floor, on a bitmap */
int pidx_oracle_alloc(struct pidx_oracle *o)
{
	u32 floor = pidx_alloc_floor(o->cursor);
	u32 start = max(o->cursor, floor);
	unsigned long n = o->pid_max;

	if (start < o->pid_max)
		n = find_next_zero_bit(o->bits, o->pid_max, start);
	if (n >= o->pid_max && start > floor)
		n = find_next_zero_bit(o->bits, o->pid_max, floor);
	if (n >= o->pid_max)
		return -ENOSPC;
	__set_bit(n, o->bits);
	o->count++;
	o->cursor = n + 1;
	return n;
}

/*
 * What the oracle wants of an alloc() that returned @got: the cyclic number,
 * or, for an index with alloc_ranges, @got itself when such an index may
 * hand it out (free, in [floor, pid_max)), which the oracle then takes.
 */
int pidx_oracle_want(struct pidx_oracle *o, int got, bool ranges)
{
	if (!ranges || got < (int)pidx_alloc_floor(o->cursor) ||
	    got >= o->pid_max || test_bit(got, o->bits))
		return pidx_oracle_alloc(o);
	__set_bit(got, o->bits);
	o->count++;
	o->cursor = max_t(u32, o->cursor, got + 1);
	return got;
}

int pidx_oracle_insert(struct pidx_oracle *o, u32 pid)
{
	if (pid < 1 || pid >= o->pid_max)
		return -EINVAL;
	if (__test_and_set_bit(pid, o->bits))
		return -EEXIST;
	o->count++;
	return 0;
}

int pidx_oracle_remove(struct pidx_oracle *o, u32 pid)
{
	if (pid >= o->pid_max || !__test_and_clear_bit(pid, o->bits))
		return -ENOENT;
	o->count--;
	return 0;
}

int pidx_oracle_find_ge(struct pidx_oracle *o, u32 pid)
{
	unsigned long n = pid < o->pid_max ?
		find_next_bit(o->bits, o->pid_max, pid) : o->pid_max;

	return n < o->pid_max ? n : -ENOENT;
}

/*
 * @tall: skip lists with sl_p 2 and the most levels, whose towers keep
 * outgrowing the tallest one linked; @salt varies the seed between rounds.
 */
struct pidx_index *pidx_st_create_p(struct pidx_st *st, u32 pid_max,
				    bool tall, u32 salt)
{
	struct pidx_params p;
	struct pidx_index *idx;

	pidx_fill_params(st->cfg, &p);
	p.pid_max = pid_max;
	if (tall) {
		p.sl_p = 2;
		p.sl_max_level = PIDX_SL_LEVELS_MAX;
	}
	p.seed = pidx_rand_seed(p.seed, salt);
	idx = st->ops->create(&p);
	if (!CHECK_EQ(st, PTR_ERR_OR_ZERO(idx), 0, "create"))
		return NULL;
	return idx;
}

struct pidx_index *pidx_st_create(struct pidx_st *st, u32 pid_max)
{
	return pidx_st_create_p(st, pid_max, false, 0);
}

bool pidx_st_lookup(struct pidx_st *st, struct pidx_index *idx, u32 pid)
{
	bool hit;

	rcu_read_lock();
	hit = st->ops->lookup(idx, pid);
	rcu_read_unlock();
	return hit;
}

int pidx_st_find_ge(struct pidx_st *st, struct pidx_index *idx, u32 pid)
{
	int n;

	rcu_read_lock();
	n = st->ops->find_ge(idx, pid);
	rcu_read_unlock();
	return n;
}

/* Every number's lookup and find_ge agree with the oracle; one check each. */
void pidx_st_compare(struct pidx_st *st, struct pidx_index *idx,
		     struct pidx_oracle *o, const char *phase)
{
	u32 pid, bad_lookup = 0, bad_find = 0, first_bad = 0;

	for (pid = 0; pid <= o->pid_max; pid++) {
		bool want = pid < o->pid_max && test_bit(pid, o->bits);

		if (pidx_st_lookup(st, idx, pid) != want && !bad_lookup++)
			first_bad = pid;
		if (pidx_st_find_ge(st, idx, pid) != pidx_oracle_find_ge(o, pid) &&
		    !bad_find++)
			first_bad = pid;
		if (!(pid & 0xfff))
			cond_resched();
	}
	if (!CHECK_EQ(st, bad_lookup, 0, "lookups disagreeing with the oracle") ||
	    !CHECK_EQ(st, bad_find, 0, "find_ge results disagreeing with the oracle"))
		pidx_log_printf(st->log, "    after %s, first at PID %u\n", phase,
				first_bad);
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify violations");
}

/* alloc until -ENOSPC, each number as the oracle says */
u32 pidx_st_fill(struct pidx_st *st, struct pidx_index *idx,
		 struct pidx_oracle *o)
{
	u32 n = 0, wrong = 0;
	int got, want;

	do {
		got = st->ops->alloc(idx, GFP_KERNEL);
		want = pidx_oracle_want(o, got, st->ops->alloc_ranges);
		if (got != want && !wrong++)
			CHECK_EQ(st, got, want, "alloc during fill");
		if (got >= 0)
			n++;
		if (!(n & 0xfff))
			cond_resched();
	} while (got >= 0 && want >= 0 && n <= o->pid_max);
	CHECK_EQ(st, wrong, 0, "allocs differing from the oracle");
	return n;
}

/*
 * The concurrent phases hunt races rather than sample them: threads on every
 * CPU start together behind a gate, writers pass through the
 * pidx_race_delay() windows, and each phase ends with the oracle comparison
 * and verify().  They run for a time, not a count, so that a debug kernel
 * several times slower makes fewer rounds of the same checks instead of
 * taking minutes; what they check does not depend on how far they got.
 */
unsigned int pidx_st_ms(ktime_t since)
{
	return ktime_ms_delta(ktime_get(), since);
}

/* At least two, so that even one CPU has writers that interleave. */
unsigned int pidx_st_nthreads(unsigned int per_cpu)
{
	return max(2U, per_cpu * num_online_cpus());
}

/*
 * insert() and remove() where the test needs them done, retried while they
 * cannot allocate: maple and ccskip allocate atomically under their lock,
 * for removals too.
 */
int pidx_st_insert(const struct pidx_ops *ops, struct pidx_index *idx,
		   u32 pid)
{
	int ret, tries;

	for (tries = 0; tries < 100; tries++) {
		ret = ops->insert(idx, pid, GFP_KERNEL);
		if (ret != -ENOMEM)
			break;
		cond_resched();
	}
	return ret;
}

int pidx_st_remove(const struct pidx_ops *ops, struct pidx_index *idx,
		   u32 pid)
{
	int ret, tries;

	for (tries = 0; tries < 100; tries++) {
		ret = ops->remove(idx, pid);
		if (ret != -ENOMEM)
			break;
		cond_resched();
	}
	return ret;
}

static int pidx_st_team_fn(void *arg)
{
	struct pidx_st_worker *w = arg;
	struct pidx_st_team *t = w->team;

	atomic_inc(&t->ready);
	/* the gate: a thread created first must not get a head start */
	wait_for_completion(&t->go);
	t->fn(w);
	if (atomic_dec_and_test(&t->running))
		complete(&t->done);
	pidx_kthread_wait_stop();
	return 0;
}

/*
 * Starts @n threads of @t->fn on @cpus in turn, thread i with @priv + i *
 * @size as its own state, and opens the gate once all are waiting at it;
 * they have @ms milliseconds from then.
 */
int pidx_st_team_start(struct pidx_st_team *t, unsigned int n,
		       const struct cpumask *cpus, void *priv,
		       size_t size, unsigned int ms)
{
	unsigned int i, cpu = cpumask_first(cpus);
	struct task_struct *task;

	t->n = 0;
	t->stop = false;
	t->tasks = kcalloc(n, sizeof(*t->tasks), GFP_KERNEL);
	t->w = kcalloc(n, sizeof(*t->w), GFP_KERNEL);
	if (!t->tasks || !t->w)
		return -ENOMEM;
	atomic_set(&t->ready, 0);
	atomic_set(&t->running, n);
	init_completion(&t->go);
	init_completion(&t->done);
	for (i = 0; i < n; i++) {
		t->w[i].team = t;
		t->w[i].priv = priv ? (char *)priv + i * size : NULL;
		t->w[i].id = i;
		t->w[i].rng = pidx_rand_seed(t->seed, 2000 + i);
		task = kthread_create_on_node(pidx_st_team_fn, &t->w[i],
					      cpu_to_node(cpu), "pidx_st/%u", i);
		if (IS_ERR(task)) {
			/* none was woken: they stop without running */
			while (i--)
				kthread_stop(t->tasks[i]);
			return PTR_ERR(task);
		}
		kthread_bind(task, cpu);
		t->tasks[i] = task;
		cpu = cpumask_next(cpu, cpus);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpus);
	}
	t->n = n;
	for (i = 0; i < n; i++)
		wake_up_process(t->tasks[i]);
	while (atomic_read(&t->ready) < n)
		usleep_range(500, 1000);
	t->deadline = jiffies + msecs_to_jiffies(ms);
	complete_all(&t->go);
	return 0;
}

/* Waits for the threads of a team, started or not, and frees it. */
void pidx_st_team_end(struct pidx_st_team *t)
{
	unsigned int i;

	/* a timeout, so that a long phase never looks like a hung task */
	while (t->n && !wait_for_completion_timeout(&t->done, HZ))
		;
	for (i = 0; i < t->n; i++)
		kthread_stop(t->tasks[i]);
	t->n = 0;
	kfree(t->tasks);
	kfree(t->w);
	t->tasks = NULL;
	t->w = NULL;
}
