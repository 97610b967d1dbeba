// SPDX-License-Identifier: GPL-2.0
/*
 * selftest: every index against a bitmap oracle that implements alloc_pid()'s
 * cyclic rule, then under concurrent writers with lockless readers.  Checks
 * count and report instead of crashing (the test_xarray.c way), ending with
 * "N of M checks passed" per index.
 */
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
/* kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "pidx_engine.h"

struct pidx_st {
	const struct pidx_ops *ops;
	struct pidx_log *log;
	unsigned int passed;
	unsigned int total;
};

/* Records one check; the first failures are described, later ones counted. */
static bool pidx_st_eq(struct pidx_st *st, int line, const char *what,
		       long got, long want)
{
	st->total++;
	if (got == want) {
		st->passed++;
		return true;
	}
	if (st->total - st->passed <= 10) {
		pidx_log_printf(st->log,
				"  FAIL %s (pidx_selftest.c:%d): %s: got %ld, expected %ld\n",
				st->ops->name, line, what, got, want);
		pr_err("pidx: selftest %s: line %d: %s: got %ld, expected %ld\n",
		       st->ops->name, line, what, got, want);
	}
	return false;
}

#define CHECK_EQ(st, got, want, what)	\
	pidx_st_eq(st, __LINE__, what, (long)(got), (long)(want))

struct pidx_oracle {
	unsigned long *bits;
	u32 pid_max;
	u32 cursor;
	u32 count;
};

static int pidx_oracle_init(struct pidx_oracle *o, u32 pid_max)
{
	o->bits = bitmap_zalloc(pid_max, GFP_KERNEL);
	o->pid_max = pid_max;
	o->cursor = 0;
	o->count = 0;
	return o->bits ? 0 : -ENOMEM;
}

/* idr_alloc_cyclic() with alloc_pid()'s floor, on a bitmap */
static int pidx_oracle_alloc(struct pidx_oracle *o)
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

static int pidx_oracle_insert(struct pidx_oracle *o, u32 pid)
{
	if (pid < 1 || pid >= o->pid_max)
		return -EINVAL;
	if (__test_and_set_bit(pid, o->bits))
		return -EEXIST;
	o->count++;
	return 0;
}

static int pidx_oracle_remove(struct pidx_oracle *o, u32 pid)
{
	if (pid >= o->pid_max || !__test_and_clear_bit(pid, o->bits))
		return -ENOENT;
	o->count--;
	return 0;
}

static int pidx_oracle_find_ge(struct pidx_oracle *o, u32 pid)
{
	unsigned long n = pid < o->pid_max ?
		find_next_bit(o->bits, o->pid_max, pid) : o->pid_max;

	return n < o->pid_max ? n : -ENOENT;
}

static struct pidx_index *pidx_st_create(struct pidx_st *st, u32 pid_max)
{
	struct pidx_params p;
	struct pidx_index *idx;

	mutex_lock(&pidx_cfg_lock);
	pidx_fill_params(&pidx_cfg, &p);
	mutex_unlock(&pidx_cfg_lock);
	p.pid_max = pid_max;
	idx = st->ops->create(&p);
	if (!CHECK_EQ(st, PTR_ERR_OR_ZERO(idx), 0, "create"))
		return NULL;
	return idx;
}

static bool pidx_st_lookup(struct pidx_st *st, struct pidx_index *idx, u32 pid)
{
	bool hit;

	rcu_read_lock();
	hit = st->ops->lookup(idx, pid);
	rcu_read_unlock();
	return hit;
}

static int pidx_st_find_ge(struct pidx_st *st, struct pidx_index *idx, u32 pid)
{
	int n;

	rcu_read_lock();
	n = st->ops->find_ge(idx, pid);
	rcu_read_unlock();
	return n;
}

/* Every number's lookup and find_ge agree with the oracle; one check each. */
static void pidx_st_compare(struct pidx_st *st, struct pidx_index *idx,
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
static u32 pidx_st_fill(struct pidx_st *st, struct pidx_index *idx,
			struct pidx_oracle *o)
{
	u32 n = 0, wrong = 0;
	int got, want;

	do {
		got = st->ops->alloc(idx, GFP_KERNEL);
		want = pidx_oracle_alloc(o);
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

static void pidx_st_basic(struct pidx_st *st)
{
	const u32 pid_max = 1024;
	const u32 freed[] = { 5, 299, 300, 500, 1023 };
	struct pidx_oracle o;
	struct pidx_index *idx;
	size_t empty_bytes;
	unsigned int i;
	u32 n;

	if (pidx_oracle_init(&o, pid_max))
		return;
	idx = pidx_st_create(st, pid_max);
	if (!idx)
		goto out;
	empty_bytes = st->ops->mem_bytes(idx);

	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), -ENOENT, "find_ge on empty");
	CHECK_EQ(st, pidx_st_lookup(st, idx, 1), false, "lookup on empty");
	CHECK_EQ(st, st->ops->remove(idx, 7), -ENOENT, "remove of absent PID");
	CHECK_EQ(st, st->ops->insert(idx, 0, GFP_KERNEL), -EINVAL, "insert of 0");
	CHECK_EQ(st, st->ops->insert(idx, pid_max, GFP_KERNEL), -EINVAL,
		 "insert of pid_max");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify of empty index");

	n = pidx_st_fill(st, idx, &o);
	CHECK_EQ(st, n, pid_max - 1, "PIDs handed out before -ENOSPC");
	CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), -ENOSPC, "alloc when full");
	pidx_st_compare(st, idx, &o, "fill");

	/* the cursor is past RESERVED_PIDS: 5 and 299 must not come back */
	for (i = 0; i < ARRAY_SIZE(freed); i++) {
		CHECK_EQ(st, st->ops->remove(idx, freed[i]), 0, "remove");
		pidx_oracle_remove(&o, freed[i]);
	}
	pidx_st_compare(st, idx, &o, "removals");
	CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), 300, "alloc wraps to the reserved floor");
	CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), 500, "alloc after wrap");
	CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), 1023, "alloc after wrap");
	CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), -ENOSPC,
		 "alloc never goes below the reserved floor after a wrap");
	for (i = 0; i < 3; i++)
		pidx_oracle_alloc(&o);

	CHECK_EQ(st, st->ops->insert(idx, 500, GFP_KERNEL), -EEXIST, "insert of a present PID");
	CHECK_EQ(st, st->ops->insert(idx, 5, GFP_KERNEL), 0, "insert below the floor");
	pidx_oracle_insert(&o, 5);
	CHECK_EQ(st, st->ops->remove(idx, 5), 0, "remove");
	CHECK_EQ(st, st->ops->remove(idx, 5), -ENOENT, "second remove");
	pidx_oracle_remove(&o, 5);
	pidx_st_compare(st, idx, &o, "insert/remove");

	/* full drain */
	for (n = 1; n < pid_max; n++)
		if (test_bit(n, o.bits))
			CHECK_EQ(st, st->ops->remove(idx, n), 0, "remove during drain");
	bitmap_zero(o.bits, pid_max);
	pidx_st_compare(st, idx, &o, "drain");
	CHECK_EQ(st, st->ops->mem_bytes(idx) <= empty_bytes, true,
		 "memory back to the empty size after drain");
	st->ops->destroy(idx);
out:
	bitmap_free(o.bits);
}

/*
 * Random operations while this task's allocations may fail (fault_inject's
 * selftest bit, with failslab's task-filter Y and ignore-gfp-wait N; the
 * other phases run unmarked, so a -ENOMEM there is a real failure).  What
 * the contract lets fail may fail: alloc and insert with -ENOMEM, and remove
 * with -ENOMEM where remove_may_fail, keeping the key.  Each refusal leaves
 * the oracle as it was and is counted, not checked; every other result is
 * checked, a refused alloc must not move the cursor (the next one is still
 * the oracle's), and once injection ends the index must be consistent, hold
 * exactly the oracle's keys and drain to empty.
 */
static void pidx_st_faults(struct pidx_st *st)
{
	const u32 pid_max = 2048, nops = 3000;
	u32 i, pid, wrong = 0, kept = 0, refused_rm = 0, refused = 0, k;
	u64 rng = pidx_rand_seed(pidx_cfg.seed, 0xfa17);
	/* the first disagreement, logged once nothing can fail any more */
	int got, want, mark, bad[4] = { 0 };
	struct pidx_oracle o;
	struct pidx_index *idx;
	gfp_t gfp;

	if (!(READ_ONCE(pidx_fault_inject) & PIDX_FAULT_SELFTEST))
		return;
	if (pidx_oracle_init(&o, pid_max))
		return;
	idx = pidx_st_create(st, pid_max);
	if (!idx)
		goto out;
	mark = pidx_fault_mark(true);
	for (i = 0; i < nops; i++) {
		u32 op = pidx_rand_below(&rng, 100);

		pid = pidx_rand_below(&rng, pid_max + 1);
		/* both kinds of caller: one that may sleep, one that may not */
		gfp = i & 1 ? GFP_ATOMIC | __GFP_NOWARN : GFP_KERNEL;
		if (op < 40) {
			got = st->ops->alloc(idx, gfp);
			want = got == -ENOMEM ? got : pidx_oracle_alloc(&o);
		} else if (op < 55) {
			got = st->ops->insert(idx, pid, gfp);
			want = got == -ENOMEM ? got : pidx_oracle_insert(&o, pid);
		} else if (op < 85) {
			if (pidx_oracle_find_ge(&o, pid) >= 0)
				pid = pidx_oracle_find_ge(&o, pid);
			got = st->ops->remove(idx, pid);
			if (got == -ENOMEM && st->ops->remove_may_fail) {
				refused_rm++;
				kept += pidx_st_lookup(st, idx, pid) &&
					pid < pid_max && test_bit(pid, o.bits);
				want = got;
			} else {
				want = pidx_oracle_remove(&o, pid);
			}
		} else {
			got = pidx_st_find_ge(st, idx, pid);
			want = pidx_oracle_find_ge(&o, pid);
		}
		refused += got == -ENOMEM && want == -ENOMEM;
		if (got != want && !wrong++) {
			bad[0] = i;
			bad[1] = pid;
			bad[2] = got;
			bad[3] = want;
		}
		if (!(i & 255))
			cond_resched();
	}
	pidx_fault_restore(mark);
	if (!CHECK_EQ(st, wrong, 0, "ops under failing allocations disagreeing with the oracle"))
		pidx_log_printf(st->log, "    first at op %d (PID %d): got %d, expected %d\n",
				bad[0], bad[1], bad[2], bad[3]);
	CHECK_EQ(st, kept, refused_rm, "keys kept by removes refused with -ENOMEM");
	pidx_st_compare(st, idx, &o, "ops under failing allocations");
	wrong = 0;
	for (k = 1; k < pid_max; k++)
		if (test_bit(k, o.bits) && st->ops->remove(idx, k))
			wrong++;
	CHECK_EQ(st, wrong, 0, "removes after the faults that failed");
	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), -ENOENT, "empty after the faults and a drain");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify after the faults and a drain");
	pidx_log_printf(st->log, "  faults: %u ops, %u refused with -ENOMEM (%u of them removes)\n",
			nops, refused, refused_rm);
	st->ops->destroy(idx);
out:
	bitmap_free(o.bits);
}

/* random operations, each return value against the oracle */
static void pidx_st_random(struct pidx_st *st, u32 pid_max, u32 nops)
{
	struct pidx_oracle o;
	struct pidx_index *idx;
	u64 rng = pidx_rand_seed(pidx_cfg.seed, pid_max);
	u32 i, wrong = 0, pid;
	int got, want;

	if (pidx_oracle_init(&o, pid_max))
		return;
	idx = pidx_st_create(st, pid_max);
	if (!idx)
		goto out;
	for (i = 0; i < nops; i++) {
		u32 op = pidx_rand_below(&rng, 100);

		pid = pidx_rand_below(&rng, pid_max + 1);
		if (op < 35) {
			got = st->ops->alloc(idx, GFP_KERNEL);
			want = pidx_oracle_alloc(&o);
		} else if (op < 50) {
			got = st->ops->insert(idx, pid, GFP_KERNEL);
			want = pidx_oracle_insert(&o, pid);
		} else if (op < 80) {
			/* mostly present PIDs, so removals find something */
			if (op < 75 && pidx_oracle_find_ge(&o, pid) >= 0)
				pid = pidx_oracle_find_ge(&o, pid);
			got = st->ops->remove(idx, pid);
			want = pidx_oracle_remove(&o, pid);
		} else if (op < 90) {
			got = pidx_st_lookup(st, idx, pid);
			want = pid < pid_max && test_bit(pid, o.bits);
		} else {
			got = pidx_st_find_ge(st, idx, pid);
			want = pidx_oracle_find_ge(&o, pid);
		}
		if (got != want && !wrong++)
			pidx_log_printf(st->log,
					"    random op %u (kind %u, PID %u): got %d, expected %d\n",
					i, op, pid, got, want);
		if (!(i % 4096)) {
			CHECK_EQ(st, st->ops->verify(idx), 0, "verify during random ops");
			cond_resched();
		}
	}
	CHECK_EQ(st, wrong, 0, "random ops disagreeing with the oracle");
	pidx_st_compare(st, idx, &o, "random ops");
	/* a dense space: fill what is left, then all of it must be taken */
	pidx_st_fill(st, idx, &o);
	pidx_st_compare(st, idx, &o, "refill");
	st->ops->destroy(idx);
out:
	bitmap_free(o.bits);
}

/*
 * Concurrency: stable even PIDs stay in the index while writers insert and
 * remove odd ones; lockless readers must find every even PID every time.
 */
#define ST_CONC_SPAN	8192
#define ST_CONC_ROUNDS	40

struct pidx_st_conc {
	struct pidx_st *st;
	struct pidx_index *idx;
	atomic_t writers_left;
	atomic_t running;
	atomic_long_t misses;
	atomic_long_t find_errors;
	atomic_long_t write_errors;
	atomic_long_t reads;
	struct completion done;
	unsigned int nwriters;
};

struct pidx_st_thread {
	struct pidx_st_conc *c;
	unsigned int id;
	bool writer;
};

static int pidx_st_writer(struct pidx_st_conc *c, unsigned int id)
{
	const struct pidx_ops *ops = c->st->ops;
	u32 r, k;

	for (r = 0; r < ST_CONC_ROUNDS; r++) {
		for (k = 1 + 2 * id; k < ST_CONC_SPAN; k += 2 * c->nwriters)
			if (ops->insert(c->idx, k, GFP_KERNEL))
				atomic_long_inc(&c->write_errors);
		cond_resched();
		for (k = 1 + 2 * id; k < ST_CONC_SPAN; k += 2 * c->nwriters)
			if (ops->remove(c->idx, k))
				atomic_long_inc(&c->write_errors);
		cond_resched();
	}
	atomic_dec(&c->writers_left);
	return 0;
}

static void pidx_st_reader(struct pidx_st_conc *c, unsigned int id)
{
	const struct pidx_ops *ops = c->st->ops;
	u64 rng = pidx_rand_seed(id, 77);
	u32 k, i;
	int n;

	while (atomic_read(&c->writers_left)) {
		for (i = 0; i < 256; i++) {
			k = 2 + 2 * pidx_rand_below(&rng, ST_CONC_SPAN / 2 - 1);
			rcu_read_lock();
			if (!ops->lookup(c->idx, k))
				atomic_long_inc(&c->misses);
			/* k - 1 is odd and may come and go; k is always there */
			n = ops->find_ge(c->idx, k - 1);
			rcu_read_unlock();
			if (n != k && n != k - 1)
				atomic_long_inc(&c->find_errors);
		}
		atomic_long_add(256, &c->reads);
		cond_resched();
	}
}

static int pidx_st_thread_fn(void *arg)
{
	struct pidx_st_thread *t = arg;
	struct pidx_st_conc *c = t->c;

	if (t->writer)
		pidx_st_writer(c, t->id);
	else
		pidx_st_reader(c, t->id);
	if (atomic_dec_and_test(&c->running))
		complete(&c->done);
	pidx_kthread_wait_stop();
	return 0;
}

static void pidx_st_concurrent(struct pidx_st *st)
{
	unsigned int ncpus = num_online_cpus(), nthreads, i, cpu;
	struct task_struct **tasks;
	struct pidx_st_thread *th;
	struct pidx_st_conc c = { .st = st };
	struct pidx_oracle o;
	u32 k;

	if (pidx_oracle_init(&o, PIDX_PID_MAX_DEFAULT))
		return;
	/* writers on half the CPUs, readers on the rest; one of each at least */
	nthreads = max(2U, ncpus);
	c.nwriters = max(1U, nthreads / 2);
	tasks = kcalloc(nthreads, sizeof(*tasks), GFP_KERNEL);
	th = kcalloc(nthreads, sizeof(*th), GFP_KERNEL);
	c.idx = pidx_st_create(st, PIDX_PID_MAX_DEFAULT);
	if (!tasks || !th || !c.idx)
		goto out;
	for (k = 2; k < ST_CONC_SPAN; k += 2) {
		st->ops->insert(c.idx, k, GFP_KERNEL);
		pidx_oracle_insert(&o, k);
	}
	atomic_set(&c.writers_left, c.nwriters);
	atomic_set(&c.running, nthreads);
	init_completion(&c.done);
	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < nthreads; i++) {
		th[i].c = &c;
		th[i].writer = i < c.nwriters;
		th[i].id = th[i].writer ? i : i - c.nwriters;
		tasks[i] = kthread_create(pidx_st_thread_fn, &th[i], "pidx_st/%u", i);
		if (IS_ERR(tasks[i])) {
			tasks[i] = NULL;
			/* nothing started yet: stop what was created and give up */
			while (i--)
				kthread_stop(tasks[i]);
			CHECK_EQ(st, 0, 1, "creating selftest threads");
			goto out;
		}
		kthread_bind(tasks[i], cpu);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	for (i = 0; i < nthreads; i++)
		wake_up_process(tasks[i]);
	while (!wait_for_completion_timeout(&c.done, HZ))
		;
	for (i = 0; i < nthreads; i++)
		kthread_stop(tasks[i]);

	CHECK_EQ(st, atomic_long_read(&c.misses), 0,
		 "lookups that missed a PID present throughout");
	CHECK_EQ(st, atomic_long_read(&c.find_errors), 0,
		 "find_ge results that skipped a PID present throughout");
	CHECK_EQ(st, atomic_long_read(&c.write_errors), 0,
		 "writer inserts/removes of its own PIDs that failed");
	CHECK_EQ(st, atomic_long_read(&c.reads) > 0, true, "readers ran");
	pidx_log_printf(st->log, "  concurrent: %u writers, %u readers, %ld lookups\n",
			c.nwriters, nthreads - c.nwriters,
			atomic_long_read(&c.reads));
	pidx_st_compare(st, c.idx, &o, "concurrent phase");
out:
	if (c.idx)
		st->ops->destroy(c.idx);
	kfree(th);
	kfree(tasks);
	bitmap_free(o.bits);
}

/*
 * remove() of a present key returns 0, even while every allocation a
 * removal makes fails; only an index that sets remove_may_fail may return
 * -ENOMEM then, and must keep the key, stay consistent and remove it once
 * memory is back (pidx.h).
 */
static void pidx_st_remove_present(struct pidx_st *st)
{
	const u32 pid_max = 4096, n = 2048;
	unsigned int saved = READ_ONCE(pidx_fail_remove_alloc);
	u32 k, bad = 0, refused = 0, kept = 0;
	struct pidx_index *idx;
	int ret;

	idx = pidx_st_create(st, pid_max);
	if (!idx)
		return;
	for (k = 1; k <= n; k++)
		bad += !!st->ops->insert(idx, k, GFP_KERNEL);
	CHECK_EQ(st, bad, 0, "inserts before the removals that failed");
	bad = 0;
	WRITE_ONCE(pidx_fail_remove_alloc, 1);
	for (k = 2; k <= n; k += 2) {
		ret = st->ops->remove(idx, k);
		if (ret == -ENOMEM && st->ops->remove_may_fail) {
			refused++;
			kept += pidx_st_lookup(st, idx, k);
		} else if (ret) {
			bad++;
		}
	}
	WRITE_ONCE(pidx_fail_remove_alloc, saved);
	CHECK_EQ(st, bad, 0, "removes of present keys, their allocations failing, that failed");
	CHECK_EQ(st, kept, refused, "keys still present after their remove said -ENOMEM");
	if (st->ops->remove_may_fail)
		CHECK_EQ(st, refused > 0, true, "removes refused while their allocations failed");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify after removes under failing allocations");
	bad = 0;
	for (k = 1; k <= n; k++)
		if (pidx_st_lookup(st, idx, k) && st->ops->remove(idx, k))
			bad++;
	CHECK_EQ(st, bad, 0, "removes of present keys that failed");
	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), -ENOENT, "empty after every key was removed");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify after the removals");
	st->ops->destroy(idx);
}

unsigned int pidx_selftest_index(const struct pidx_ops *ops,
				 struct pidx_log *log, unsigned int *checks)
{
	struct pidx_st st = { .ops = ops, .log = log };
	long mem_before = atomic_long_read(&pidx_mem.bytes);

	pidx_st_faults(&st);
	pidx_st_basic(&st);
	pidx_st_random(&st, 1024, 20000);
	pidx_st_random(&st, 65536, 100000);
	pidx_st_concurrent(&st);
	pidx_st_remove_present(&st);
	CHECK_EQ(&st, atomic_long_read(&pidx_mem.bytes) - mem_before, 0,
		 "bytes still allocated after destroy");
	pidx_log_printf(log, "selftest %s: %u of %u checks passed\n", ops->name,
			st.passed, st.total);
	pr_info("pidx: selftest %s: %u of %u checks passed\n", ops->name,
		st.passed, st.total);
	*checks = st.total;
	return st.total - st.passed;
}

int pidx_selftest(void)
{
	unsigned int i, checks, failed = 0, total = 0;

	if (!mutex_trylock(&pidx_run_lock))
		return -EBUSY;
	mutex_lock(&pidx_cfg_lock);
	pidx_running = true;
	mutex_unlock(&pidx_cfg_lock);
	kvfree(pidx_selftest_log.buf);
	pidx_selftest_log = (struct pidx_log){};
	for (i = 0; i < pidx_nr_indexes; i++) {
		if (pidx_index_table[i]->no_contents)
			continue;
		failed += pidx_selftest_index(pidx_index_table[i],
					      &pidx_selftest_log, &checks);
		total += checks;
	}
	pidx_log_printf(&pidx_selftest_log, "selftest: %u of %u checks passed: %s\n",
			total - failed, total, failed ? "FAILED" : "ok");
	mutex_lock(&pidx_cfg_lock);
	pidx_running = false;
	pidx_last_cmd = PIDX_CMD_SELFTEST;
	pidx_last_rc = failed ? -EUCLEAN : 0;
	pidx_last_why = failed ? "checks failed: see test_result" : "";
	pidx_selftest_publish();
	mutex_unlock(&pidx_cfg_lock);
	mutex_unlock(&pidx_run_lock);
	return failed ? -EUCLEAN : 0;
}
