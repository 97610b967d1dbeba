// SPDX-License-Identifier: GPL-2.0
/*
 * selftest: every index against a bitmap oracle that implements alloc_pid()'s
 * cyclic rule, then in phases that hunt races: allocs from every CPU,
 * inserts and removes of the same keys, readers in hard-irq context and
 * an index grown and shrunk under readers.  Checks
 * count and report instead of crashing (the test_xarray.c way), ending with
 * "N of M checks passed" per index.
 *
 * The kit the phases share is pidx_selftest_kit.c (pidx_selftest.h); the
 * phases in pidx_selftest_seq.c, pidx_selftest_alloc.c have moved out of
 * this file, the others are still here.
 */
#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/kthread.h>
/* kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include "pidx_compat.h"
#include "pidx_hooks.h"
#include "pidx_registry.h"
#include "pidx_sched.h"
#include "pidx_selftest.h"
#include "pidx_state.h"

/*
 * A sanitizer reports a bad access the first time it happens, and under KASAN
 * or KCSAN every operation costs ten times as much: a fifth of the long
 * random sequence still takes every path thousands of times, and the stock
 * kernel's selftest compares the whole one with the oracle.
 */
#if IS_ENABLED(CONFIG_KASAN) || IS_ENABLED(CONFIG_KCSAN)
#define ST_RANDOM_OPS		20000
#else
#define ST_RANDOM_OPS		100000
#endif

/*
 * insert() and remove() of the same few keys from every CPU, with alloc()
 * churn below them and stable keys around them.  A key's calls come in
 * epochs arbitrated by a lock in the test, not in the index: an epoch
 * starts with the key's known state and admits one thread per role, insert
 * and remove, whose calls then run concurrently inside the index.  The
 * thread that opens an epoch mostly hammers: it repeats the call that must
 * fail until the other role's call, if one joins, lets it succeed, so that
 * it passes every step of the other call as that call makes it.  Any order
 * of the calls is then correct and the return values say which one
 * happened: from absent, every insert must succeed, removes fail until one
 * succeeds, and none succeeds before an insert did; from present, the same
 * with the roles swapped; the key ends present when the last success was
 * an insert's.
 *
 * Each round races in ST_RACE_NIDX fresh indexes at once: a skip list's
 * towers outgrow the tallest one linked about ln(n) times in its first n
 * inserts, so many young indexes meet that moment far more often than one
 * old one.  Every other round is tall (pidx_st_create_p()).
 */
#define ST_RACE_NIDX		8
#define ST_RACE_PID_MAX		1024
#define ST_RACE_LO		512
#define ST_RACE_MS		2400
#define ST_RACE_ROUND_MS	200
#define ST_RACE_DEPTH		8
/* the spread of the start of a single call */
#define ST_RACE_SKEW_NS		4000
/* a hammer goes on this long for a partner to join, at most */
#define ST_RACE_HAMMER_NS	(30 * NSEC_PER_USEC)
#define ST_RACE_HAMMER_MAX	10000
#define ST_RACE_STABLE_MAX	16

enum { ST_INS, ST_REM };

struct pidx_st_rkey {
	spinlock_t lock;	/* the fields below */
	u8 present;	/* between epochs: what the index holds */
	u8 start;	/* present when the epoch began */
	u8 joined;	/* roles that joined the epoch */
	u8 inflight;	/* roles whose calls have not all returned */
	u16 calls[2];	/* per role: calls that returned 0 or the failure */
	u16 succ[2];	/* per role: calls that returned 0 */
};

struct pidx_st_race_ctx {
	const struct pidx_ops *ops;
	struct pidx_index *idx[ST_RACE_NIDX];
	atomic_t allocs[ST_RACE_NIDX];
	/* index j's key ST_RACE_LO + i is keys[j * nkeys + i] */
	struct pidx_st_rkey *keys;
	u32 nkeys;
	u32 hot;		/* the latest epoch's slot in keys[] */
	u32 stable[ST_RACE_STABLE_MAX];
	u32 nstable;
	unsigned long *stable_map;
	/* bit j * ST_RACE_PID_MAX + n: index j's n is alloc()ed, not removed */
	unsigned long *held;
	atomic_t bad;
	/* the first wrong return, for the log */
	u32 bad_key;
	int bad_start;
	int bad_role;
	const char *bad_why;
	int bad_val;
};

struct pidx_st_race_thread {
	u32 fifo[ST_RACE_DEPTH];	/* as the bits of held */
	u32 head;
	u32 len;
	long ops;
	long epochs;
	long pairs;
	long reads;
	long misses;
	long find_errors;
	long alloc_errors;
	long nomem;
};

static void pidx_st_race_bad(struct pidx_st_race_ctx *c, u32 k, int start,
			     int role, const char *why, int val)
{
	if (atomic_inc_return(&c->bad) == 1) {
		c->bad_key = k;
		c->bad_start = start;
		c->bad_role = role;
		c->bad_why = why;
		c->bad_val = val;
	}
}

/* The epoch's last call has returned; rk->lock held. */
static void pidx_st_race_settle(struct pidx_st_race_ctx *c,
				struct pidx_st_race_thread *rt, u32 k,
				struct pidx_st_rkey *rk)
{
	/* the role that may only succeed, and the one that may also fail */
	int sure = rk->start ? ST_REM : ST_INS, other = !sure;

	if (rk->calls[ST_INS] && rk->calls[ST_REM])
		rt->pairs++;
	if (rk->succ[sure] != rk->calls[sure])
		pidx_st_race_bad(c, k, rk->start, sure, "calls failed",
				 rk->calls[sure] - rk->succ[sure]);
	/* the other role can only undo what a call of the sure one did */
	if (rk->succ[other] > rk->succ[sure])
		pidx_st_race_bad(c, k, rk->start, other,
				 "succeeded with none of the other role, times",
				 rk->succ[other]);
	if (rk->succ[sure] && !rk->succ[other])
		rk->present = !rk->start;
	rt->epochs++;
}

/*
 * The calls of one role in the epoch of keys[@slot]: one, or with @hammer
 * repeated until one succeeds or, after ST_RACE_HAMMER_NS, the other role
 * is not in flight; then the settling if they were the epoch's last.
 */
static void pidx_st_race_calls(struct pidx_st_race_ctx *c,
			       struct pidx_st_worker *w,
			       struct pidx_st_race_thread *rt, u32 slot,
			       int role, bool hammer)
{
	struct pidx_index *idx = c->idx[slot / c->nkeys];
	struct pidx_st_rkey *rk = &c->keys[slot];
	int fail = role == ST_INS ? -EEXIST : -ENOENT, ret, i;
	u64 end = local_clock() + ST_RACE_HAMMER_NS;
	u32 k = ST_RACE_LO + slot % c->nkeys;
	u16 calls = 0, succ = 0;

	if (!hammer)
		ndelay(pidx_rand_below(&w->rng, ST_RACE_SKEW_NS));
	for (i = 0; i < ST_RACE_HAMMER_MAX; i++) {
		if (role == ST_INS)
			ret = c->ops->insert(idx, k, GFP_KERNEL);
		else
			ret = c->ops->remove(idx, k);
		rt->ops++;
		if (ret == -ENOMEM) {
			/* it changed nothing */
			rt->nomem++;
		} else if (ret && ret != fail) {
			pidx_st_race_bad(c, k, rk->start, role, "returned", ret);
		} else {
			calls++;
			succ += !ret;
		}
		if (!hammer || !ret ||
		    (local_clock() > end &&
		     !(READ_ONCE(rk->inflight) & BIT(!role))))
			break;
	}
	spin_lock(&rk->lock);
	rk->calls[role] = calls;
	rk->succ[role] = succ;
	/* marked: a hammering partner reads it unlocked */
	WRITE_ONCE(rk->inflight, rk->inflight & ~BIT(role));
	if (!rk->inflight)
		pidx_st_race_settle(c, rt, k, rk);
	spin_unlock(&rk->lock);
}

/*
 * Joins the latest epoch or the epoch of a random key, opening it if there
 * is none, and returns its slot in keys[] and the role taken; -1 when the
 * epoch has both roles.
 */
static int pidx_st_race_join(struct pidx_st_race_ctx *c,
			     struct pidx_st_worker *w, int *role, bool *hammer)
{
	u32 roll = pidx_rand_below(&w->rng, 16), slot;
	struct pidx_st_rkey *rk;

	/* mostly the latest epoch: a partner for its calls in flight */
	slot = roll < 12 ? READ_ONCE(c->hot) :
	       pidx_rand_below(&w->rng, ST_RACE_NIDX * c->nkeys);
	rk = &c->keys[slot];
	*hammer = false;
	spin_lock(&rk->lock);
	if (!rk->inflight) {
		rk->start = rk->present;
		rk->joined = 0;
		rk->calls[ST_INS] = 0;
		rk->calls[ST_REM] = 0;
		rk->succ[ST_INS] = 0;
		rk->succ[ST_REM] = 0;
		/* mostly a hammer of the call that must wait for the other */
		*role = rk->present ? ST_INS : ST_REM;
		if (roll & 3)
			*hammer = true;
		else if (roll & 4)
			*role = !*role;
		WRITE_ONCE(c->hot, slot);
	} else if (rk->joined != (BIT(ST_INS) | BIT(ST_REM))) {
		*role = rk->joined & BIT(ST_INS) ? ST_REM : ST_INS;
	} else {
		spin_unlock(&rk->lock);
		return -1;
	}
	rk->joined |= BIT(*role);
	WRITE_ONCE(rk->inflight, rk->inflight | BIT(*role));
	spin_unlock(&rk->lock);
	return slot;
}

/* alloc() below the contested keys, or give back the oldest number taken. */
static void pidx_st_race_alloc(struct pidx_st_race_ctx *c,
			       struct pidx_st_worker *w,
			       struct pidx_st_race_thread *rt)
{
	u32 j = pidx_rand_below(&w->rng, ST_RACE_NIDX), bit;
	int pid;

	/* the cap keeps the cursor below the contested keys: no wrap */
	if (rt->len == ST_RACE_DEPTH ||
	    atomic_inc_return(&c->allocs[j]) > ST_RACE_LO / 2) {
		if (!rt->len)
			return;
		bit = rt->fifo[rt->head];
		rt->head = (rt->head + 1) % ST_RACE_DEPTH;
		rt->len--;
		clear_bit(bit, c->held);
		if (pidx_st_remove(c->ops, c->idx[bit / ST_RACE_PID_MAX],
				   bit % ST_RACE_PID_MAX))
			rt->alloc_errors++;
		return;
	}
	pid = c->ops->alloc(c->idx[j], GFP_KERNEL);
	if (pid == -ENOMEM) {
		rt->nomem++;
		return;
	}
	bit = j * ST_RACE_PID_MAX + pid;
	if (pid < 1 || pid >= ST_RACE_LO || test_bit(pid, c->stable_map) ||
	    test_and_set_bit(bit, c->held)) {
		rt->alloc_errors++;
		return;
	}
	rt->fifo[(rt->head + rt->len++) % ST_RACE_DEPTH] = bit;
}

static void pidx_st_race_read(struct pidx_st_race_ctx *c,
			      struct pidx_st_worker *w,
			      struct pidx_st_race_thread *rt)
{
	struct pidx_index *idx = c->idx[pidx_rand_below(&w->rng, ST_RACE_NIDX)];
	u32 s = c->stable[pidx_rand_below(&w->rng, c->nstable)];
	int n, m;
	bool hit;

	rcu_read_lock();
	hit = c->ops->lookup(idx, s);
	n = c->ops->find_ge(idx, s - 1);
	/* a stable key follows the contested ones */
	m = c->ops->find_ge(idx, ST_RACE_LO);
	rcu_read_unlock();
	if (!hit)
		rt->misses++;
	if ((n != s && n != s - 1) || m < ST_RACE_LO ||
	    m > ST_RACE_LO + c->nkeys)
		rt->find_errors++;
	rt->reads++;
}

static void pidx_st_race_fn(struct pidx_st_worker *w)
{
	struct pidx_st_race_ctx *c = w->team->ctx;
	struct pidx_st_race_thread *rt = w->priv;
	bool hammer;
	int slot, role;
	u32 roll;

	while (pidx_st_going(w)) {
		slot = pidx_st_race_join(c, w, &role, &hammer);
		if (slot >= 0)
			pidx_st_race_calls(c, w, rt, slot, role, hammer);
		/* between epochs, now and then alloc() churn or stable keys */
		roll = pidx_rand_below(&w->rng, 16);
		if (roll < 1)
			pidx_st_race_alloc(c, w, rt);
		else if (roll < 4)
			pidx_st_race_read(c, w, rt);
		cond_resched();
	}
}

struct pidx_st_race_sum {
	long ops;
	long epochs;
	long pairs;
	long reads;
	long misses;
	long find_errors;
	long alloc_errors;
	long nomem;
	long bad;
	unsigned int rounds;
};

static void pidx_st_race_stable(struct pidx_st_race_ctx *c, u32 k)
{
	c->stable[c->nstable++] = k;
	__set_bit(k, c->stable_map);
}

static void pidx_st_race_round(struct pidx_st *st, u32 nkeys, bool tall,
			       struct pidx_st_race_sum *sum)
{
	struct pidx_st_team t = { .fn = pidx_st_race_fn, .seed = st->cfg->seed };
	struct pidx_st_race_ctx c = { .ops = st->ops, .nkeys = nkeys };
	unsigned int n = pidx_st_nthreads(1), i, j;
	struct pidx_st_race_thread *rt;
	struct pidx_oracle o;
	int ret;

	if (pidx_oracle_init(&o, ST_RACE_PID_MAX))
		return;
	rt = kcalloc(n, sizeof(*rt), GFP_KERNEL);
	c.keys = kcalloc(ST_RACE_NIDX * nkeys, sizeof(*c.keys), GFP_KERNEL);
	c.stable_map = bitmap_zalloc(ST_RACE_PID_MAX, GFP_KERNEL);
	c.held = bitmap_zalloc(ST_RACE_NIDX * ST_RACE_PID_MAX, GFP_KERNEL);
	if (!rt || !c.keys || !c.stable_map || !c.held)
		goto out;
	for (i = 0; i < ST_RACE_NIDX * nkeys; i++)
		spin_lock_init(&c.keys[i].lock);
	atomic_set(&c.bad, 0);
	/* next to the contested keys, in the way of alloc(), and the last */
	pidx_st_race_stable(&c, ST_RACE_LO - 2);
	pidx_st_race_stable(&c, ST_RACE_LO - 1);
	pidx_st_race_stable(&c, ST_RACE_LO + nkeys);
	pidx_st_race_stable(&c, ST_RACE_LO + nkeys + 1);
	pidx_st_race_stable(&c, 1);
	pidx_st_race_stable(&c, 7);
	pidx_st_race_stable(&c, PIDX_RESERVED_PIDS - 1);
	pidx_st_race_stable(&c, PIDX_RESERVED_PIDS);
	pidx_st_race_stable(&c, ST_RACE_PID_MAX - 1);
	for (j = 0; j < ST_RACE_NIDX; j++) {
		atomic_set(&c.allocs[j], 0);
		c.idx[j] = pidx_st_create_p(st, ST_RACE_PID_MAX, tall,
					    sum->rounds * ST_RACE_NIDX + j);
		if (!c.idx[j])
			goto out;
		for (i = 0, ret = 0; i < c.nstable; i++)
			ret += !!pidx_st_insert(st->ops, c.idx[j], c.stable[i]);
		CHECK_EQ(st, ret, 0, "inserts of stable keys that failed");
	}

	t.ctx = &c;
	ret = pidx_st_team_start(&t, n, cpu_online_mask, rt, sizeof(*rt),
				 ST_RACE_ROUND_MS);
	pidx_st_team_end(&t);
	if (!CHECK_EQ(st, ret, 0, "starting the race threads"))
		goto out;

	for (i = 0; i < n; i++) {
		sum->ops += rt[i].ops;
		sum->epochs += rt[i].epochs;
		sum->pairs += rt[i].pairs;
		sum->reads += rt[i].reads;
		sum->misses += rt[i].misses;
		sum->find_errors += rt[i].find_errors;
		sum->alloc_errors += rt[i].alloc_errors;
		sum->nomem += rt[i].nomem;
	}
	if (atomic_read(&c.bad) && !sum->bad)
		pidx_log_printf(st->log,
				"    race round %u (%u keys): %ss of %u, %s at the start: %s %d\n",
				sum->rounds, nkeys,
				c.bad_role == ST_INS ? "insert" : "remove",
				c.bad_key, c.bad_start ? "present" : "absent",
				c.bad_why, c.bad_val);
	sum->bad += atomic_read(&c.bad);

	for (j = 0; j < ST_RACE_NIDX; j++) {
		bitmap_copy(o.bits, c.stable_map, ST_RACE_PID_MAX);
		for (i = 0; i < ST_RACE_LO; i++)
			if (test_bit(j * ST_RACE_PID_MAX + i, c.held))
				__set_bit(i, o.bits);
		for (i = 0; i < nkeys; i++)
			if (c.keys[j * nkeys + i].present)
				__set_bit(ST_RACE_LO + i, o.bits);
		pidx_st_compare(st, c.idx[j], &o, "insert/remove race");
	}
out:
	for (j = 0; j < ST_RACE_NIDX; j++)
		if (c.idx[j])
			st->ops->destroy(c.idx[j]);
	bitmap_free(c.held);
	bitmap_free(c.stable_map);
	kfree(c.keys);
	kfree(rt);
	bitmap_free(o.bits);
	sum->rounds++;
}

static void pidx_st_race(struct pidx_st *st)
{
	unsigned long end = jiffies + msecs_to_jiffies(ST_RACE_MS);
	unsigned long cap = end + msecs_to_jiffies(4 * ST_RACE_MS);
	static const u32 race_keys[] = { 16, 64, 256 };
	struct pidx_st_race_sum sum = {};
	ktime_t t0 = ktime_get();

	/*
	 * Two rounds at least: one tall, one not.  With more than one CPU, on
	 * until some epoch raced one key both ways (checked below), for up to
	 * four more time boxes: an overlap needs two vCPUs running at once,
	 * which a loaded host grants less often.
	 */
	do {
		pidx_st_race_round(st, race_keys[sum.rounds / 2 % 3],
				   sum.rounds & 1, &sum);
	} while (sum.rounds < 2 || time_before(jiffies, end) ||
		 (num_online_cpus() > 1 && !sum.pairs && time_before(jiffies, cap)));

	CHECK_EQ(st, sum.bad, 0,
		 "insert/remove returns that no order of the racing calls gives");
	CHECK_EQ(st, sum.misses, 0, "lookups that missed a stable key during the race");
	CHECK_EQ(st, sum.find_errors, 0,
		 "find_ge results that skipped a stable key during the race");
	CHECK_EQ(st, sum.alloc_errors, 0,
		 "allocs during the race off their range, twice, or not removable");
	CHECK_EQ(st, sum.ops > 0 && sum.reads > 0, true, "race threads ran");
	/* one CPU interleaves writers only where one sleeps in an allocation */
	if (num_online_cpus() > 1)
		CHECK_EQ(st, sum.pairs > 0, true,
			 "epochs where an insert and a remove of one key overlapped");
	pidx_log_printf(st->log,
			"  insert/remove race: %u rounds of %u indexes, %u threads, %ld calls, %ld of %ld epochs raced one key both ways, %ld reads, %ld -ENOMEM, %u ms\n",
			sum.rounds, ST_RACE_NIDX, pidx_st_nthreads(1), sum.ops,
			sum.pairs, sum.epochs, sum.reads, sum.nomem,
			pidx_st_ms(t0));
}

/*
 * Lockless lookup() and find_ge() of stable keys from hard-irq context: an
 * hrtimer on each CPU while writers insert and remove the keys between them.
 * An index whose readers may wait for a writer (readers_may_wait) keeps its
 * writers on one CPU and the timers on the others.
 */
#define ST_IRQ_PID_MAX		8192
#define ST_IRQ_SPAN		4096
#define ST_IRQ_MS		1200
#define ST_IRQ_PERIOD_NS	(100 * NSEC_PER_USEC)
#define ST_IRQ_READS		8

struct pidx_st_irq_ctx;

struct pidx_st_irq_cpu {
	struct hrtimer timer;
	struct pidx_st_irq_ctx *c;
	u64 rng;
	long fires;
	long misses;
	long find_errors;
	long not_hardirq;
};

struct pidx_st_irq_ctx {
	const struct pidx_ops *ops;
	struct pidx_index *idx;
	unsigned long *odd;	/* the writers' keys present now */
	struct pidx_st_irq_cpu *cpu;
	unsigned int nwriters;
	bool stop;
};

struct pidx_st_irq_thread {
	long writes;
	long errors;
	long nomem;
	int first_error;
};

static enum hrtimer_restart pidx_st_irq_fire(struct hrtimer *timer)
{
	struct pidx_st_irq_cpu *ic = container_of(timer, struct pidx_st_irq_cpu,
						  timer);
	struct pidx_st_irq_ctx *c = ic->c;
	unsigned int i;
	u32 k;
	int n;

	if (!in_hardirq())
		ic->not_hardirq++;
	rcu_read_lock();
	for (i = 0; i < ST_IRQ_READS; i++) {
		k = 2 + 2 * pidx_rand_below(&ic->rng, ST_IRQ_SPAN / 2 - 1);
		if (!c->ops->lookup(c->idx, k))
			ic->misses++;
		/* k - 1 is a writer's and may come and go; k stays */
		n = c->ops->find_ge(c->idx, k - 1);
		if (n != k && n != k - 1)
			ic->find_errors++;
	}
	rcu_read_unlock();
	ic->fires++;
	if (READ_ONCE(c->stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(ST_IRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

/* On the timer's CPU: a pinned timer fires where it was started. */
static void pidx_st_irq_arm(void *arg)
{
	struct pidx_st_irq_cpu *ic = arg;

	hrtimer_start(&ic->timer, ns_to_ktime(ST_IRQ_PERIOD_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void pidx_st_irq_write_fn(struct pidx_st_worker *w)
{
	struct pidx_st_irq_ctx *c = w->team->ctx;
	struct pidx_st_irq_thread *it = w->priv;
	u32 step = 2 * c->nwriters, k;
	bool ins;
	int ret;

	for (ins = true; pidx_st_going(w); ins = !ins) {
		for (k = 1 + 2 * w->id; k < ST_IRQ_SPAN && pidx_st_going(w);
		     k += step) {
			if (ins == test_bit(k, c->odd))
				continue;
			if (ins)
				ret = c->ops->insert(c->idx, k, GFP_KERNEL);
			else
				ret = c->ops->remove(c->idx, k);
			if (ret == -ENOMEM) {
				it->nomem++;
				continue;
			}
			if (ret) {
				if (!it->errors++)
					it->first_error = ret;
				continue;
			}
			if (ins)
				set_bit(k, c->odd);
			else
				clear_bit(k, c->odd);
			if (!(++it->writes & 31))
				cond_resched();
		}
	}
}

static void pidx_st_irq(struct pidx_st *st)
{
	struct pidx_st_team t = { .fn = pidx_st_irq_write_fn, .seed = st->cfg->seed };
	struct pidx_st_irq_ctx c = { .ops = st->ops };
	long fires = 0, misses = 0, find_errors = 0, not_hardirq = 0;
	long writes = 0, errors = 0, nomem = 0;
	unsigned int cpu, i, silent = 0;
	struct pidx_st_irq_thread *it = NULL;
	cpumask_var_t wcpus, tcpus;
	ktime_t t0 = ktime_get();
	struct pidx_oracle o;
	int ret, first = 0;
	u32 k;

	if (!zalloc_cpumask_var(&wcpus, GFP_KERNEL))
		return;
	if (!zalloc_cpumask_var(&tcpus, GFP_KERNEL))
		goto out_wcpus;
	if (pidx_oracle_init(&o, ST_IRQ_PID_MAX))
		goto out_tcpus;
	c.cpu = kcalloc(nr_cpu_ids, sizeof(*c.cpu), GFP_KERNEL);
	c.odd = bitmap_zalloc(ST_IRQ_PID_MAX, GFP_KERNEL);
	/* before cpus_read_lock(): kmem_cache_create() takes it too */
	c.idx = pidx_st_create(st, ST_IRQ_PID_MAX);
	if (!c.cpu || !c.odd || !c.idx)
		goto out;
	for (k = 2, ret = 0; k < ST_IRQ_SPAN; k += 2) {
		ret += !!pidx_st_insert(st->ops, c.idx, k);
		pidx_oracle_insert(&o, k);
	}
	CHECK_EQ(st, ret, 0, "inserts of stable keys that failed");

	/*
	 * The split of CPUs must hold until the timers are cancelled: a timer
	 * CPU going offline hands its pinned timer to the CPU that tears it
	 * down, and a reader that waits for writers must never interrupt one.
	 */
	cpus_read_lock();
	cpumask_copy(wcpus, cpu_online_mask);
	cpumask_copy(tcpus, wcpus);
	if (st->ops->readers_may_wait) {
		if (cpumask_weight(wcpus) < 2) {
			cpus_read_unlock();
			pidx_log_printf(st->log,
					"  irq readers: skipped: %s readers may wait for a writer, and one CPU has no other to interrupt\n",
					st->ops->name);
			goto out;
		}
		cpu = cpumask_first(wcpus);
		cpumask_clear(wcpus);
		cpumask_set_cpu(cpu, wcpus);
		cpumask_clear_cpu(cpu, tcpus);
	}
	c.nwriters = max(2U, cpumask_weight(wcpus));
	it = kcalloc(c.nwriters, sizeof(*it), GFP_KERNEL);
	if (!it) {
		cpus_read_unlock();
		goto out;
	}
	for_each_cpu(cpu, tcpus) {
		hrtimer_init(&c.cpu[cpu].timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		c.cpu[cpu].timer.function = pidx_st_irq_fire;
		c.cpu[cpu].c = &c;
		c.cpu[cpu].rng = pidx_rand_seed(st->cfg->seed, 4000 + cpu);
	}

	t.ctx = &c;
	ret = pidx_st_team_start(&t, c.nwriters, wcpus, it, sizeof(*it),
				 ST_IRQ_MS);
	if (!ret)
		for_each_cpu(cpu, tcpus)
			smp_call_function_single(cpu, pidx_st_irq_arm,
						 &c.cpu[cpu], 1);
	pidx_st_team_end(&t);
	WRITE_ONCE(c.stop, true);
	for_each_cpu(cpu, tcpus)
		hrtimer_cancel(&c.cpu[cpu].timer);
	cpus_read_unlock();
	if (!CHECK_EQ(st, ret, 0, "starting the writer threads"))
		goto out;

	for_each_cpu(cpu, tcpus) {
		fires += c.cpu[cpu].fires;
		misses += c.cpu[cpu].misses;
		find_errors += c.cpu[cpu].find_errors;
		not_hardirq += c.cpu[cpu].not_hardirq;
		silent += !c.cpu[cpu].fires;
	}
	for (i = 0; i < c.nwriters; i++) {
		writes += it[i].writes;
		nomem += it[i].nomem;
		if (it[i].errors && !errors)
			first = it[i].first_error;
		errors += it[i].errors;
	}
	CHECK_EQ(st, misses, 0, "hard-irq lookups that missed a stable key");
	CHECK_EQ(st, find_errors, 0,
		 "hard-irq find_ge results that skipped a stable key");
	CHECK_EQ(st, not_hardirq, 0, "timer readers not in hard-irq context");
	CHECK_EQ(st, fires > 0, true, "hard-irq readers ran");
	CHECK_EQ(st, silent, 0, "timer CPUs whose reader never ran");
	if (!CHECK_EQ(st, errors, 0, "writer inserts/removes of their own keys that failed"))
		pidx_log_printf(st->log, "    first error %d\n", first);
	CHECK_EQ(st, writes > 0, true, "writers ran under the hard-irq readers");
	pidx_log_printf(st->log,
			"  irq readers: %u writers on CPUs %*pbl, timers on %*pbl: %ld rounds of %u, %ld writes (%ld -ENOMEM), %u ms\n",
			c.nwriters, cpumask_pr_args(wcpus), cpumask_pr_args(tcpus),
			fires, ST_IRQ_READS, writes, nomem, pidx_st_ms(t0));
	for_each_set_bit(k, c.odd, ST_IRQ_PID_MAX)
		pidx_oracle_insert(&o, k);
	pidx_st_compare(st, c.idx, &o, "hard-irq readers");
out:
	if (c.idx)
		st->ops->destroy(c.idx);
	bitmap_free(c.odd);
	kfree(c.cpu);
	kfree(it);
	bitmap_free(o.bits);
out_tcpus:
	free_cpumask_var(tcpus);
out_wcpus:
	free_cpumask_var(wcpus);
}

/*
 * The index grown and shrunk across its resize thresholds by one writer, two
 * cycles and more while time is left, as readers on every CPU check stable
 * keys; where describe() reports "resizes=" (hash), each half cycle must
 * have resized: hash grows its 64 buckets past 1024 keys and shrinks them
 * again below an eighth of a load.
 */
#define ST_GROW_PID_MAX		8192
#define ST_GROW_HIGH		1024
#define ST_GROW_LOW		16
#define ST_GROW_CYCLES		2
#define ST_GROW_CYCLES_MAX	8
#define ST_GROW_CYCLE_MS	1500
#define ST_GROW_NSTABLE		64
/* a bound for the readers, which the writer stops when it is done */
#define ST_GROW_MS		60000

static bool pidx_st_grow_stable(u32 k)
{
	return k >= 64 && !((k - 64) % 128);
}

struct pidx_st_grow_ctx {
	const struct pidx_ops *ops;
	struct pidx_index *idx;
};

struct pidx_st_grow_thread {
	long reads;
	long misses;
	long find_errors;
};

static void pidx_st_grow_fn(struct pidx_st_worker *w)
{
	struct pidx_st_grow_ctx *c = w->team->ctx;
	struct pidx_st_grow_thread *gt = w->priv;
	unsigned int i;
	u32 s;
	int n;

	while (pidx_st_going(w)) {
		for (i = 0; i < 64; i++) {
			s = 64 + 128 * pidx_rand_below(&w->rng, ST_GROW_NSTABLE);
			rcu_read_lock();
			if (!c->ops->lookup(c->idx, s))
				gt->misses++;
			n = c->ops->find_ge(c->idx, s - 1);
			rcu_read_unlock();
			if (n != s && n != s - 1)
				gt->find_errors++;
		}
		gt->reads += 64;
		cond_resched();
	}
}

/* A "name=%u" value of describe(), or -1 when it does not report it. */
static long pidx_st_describe_u32(struct pidx_st *st, struct pidx_index *idx,
				 const char *name)
{
	char buf[256], *p;
	u32 v;

	if (!st->ops->describe)
		return -1;
	buf[0] = '\0';
	st->ops->describe(idx, buf, sizeof(buf));
	p = strstr(buf, name);
	if (!p || sscanf(p + strlen(name), "%u", &v) != 1)
		return -1;
	return v;
}

/*
 * After half a grow/shrink cycle: the index must have resized since
 * *resizes was read (where it counts resizes); its buckets now.  describe()
 * lets a resize under way finish first.
 */
static long pidx_st_resized(struct pidx_st *st, struct pidx_index *idx,
			    long *resizes, const char *what)
{
	long before = *resizes;

	*resizes = pidx_st_describe_u32(st, idx, "resizes=");
	if (*resizes >= 0)
		CHECK_EQ(st, *resizes > before, true, what);
	return pidx_st_describe_u32(st, idx, "buckets=");
}

static void pidx_st_grow(struct pidx_st *st)
{
	struct pidx_st_team t = { .fn = pidx_st_grow_fn, .seed = st->cfg->seed };
	struct pidx_st_grow_ctx c = { .ops = st->ops };
	unsigned int n = pidx_st_nthreads(1), i, cycle;
	unsigned long end = jiffies + msecs_to_jiffies(ST_GROW_CYCLE_MS);
	long reads = 0, misses = 0, find_errors = 0, errors = 0;
	long resizes, buckets_hi = -1, buckets_lo = -1;
	u64 rng = pidx_rand_seed(st->cfg->seed, 5000);
	struct pidx_st_grow_thread *gt;
	ktime_t t0 = ktime_get();
	struct pidx_oracle o;
	u32 *keys, k, tmp;
	int ret;

	if (pidx_oracle_init(&o, ST_GROW_PID_MAX))
		return;
	gt = kcalloc(n, sizeof(*gt), GFP_KERNEL);
	keys = kvcalloc(ST_GROW_HIGH, sizeof(*keys), GFP_KERNEL);
	c.idx = pidx_st_create(st, ST_GROW_PID_MAX);
	if (!gt || !keys || !c.idx)
		goto out;
	for (k = 64, ret = 0; k < ST_GROW_PID_MAX; k += 128) {
		ret += !!pidx_st_insert(st->ops, c.idx, k);
		pidx_oracle_insert(&o, k);
	}
	CHECK_EQ(st, ret, 0, "inserts of stable keys that failed");
	/* the first numbers that are not stable, in a random order */
	for (i = 0, k = 1; i < ST_GROW_HIGH; k++)
		if (!pidx_st_grow_stable(k))
			keys[i++] = k;
	for (i = ST_GROW_HIGH - 1; i > 0; i--) {
		u32 j = pidx_rand_below(&rng, i + 1);

		tmp = keys[i];
		keys[i] = keys[j];
		keys[j] = tmp;
	}
	resizes = pidx_st_describe_u32(st, c.idx, "resizes=");

	t.ctx = &c;
	ret = pidx_st_team_start(&t, n, cpu_online_mask, gt, sizeof(*gt),
				 ST_GROW_MS);
	for (cycle = 0; !ret && (cycle < ST_GROW_CYCLES ||
				 (cycle < ST_GROW_CYCLES_MAX &&
				  time_before(jiffies, end))); cycle++) {
		for (i = cycle ? ST_GROW_LOW : 0; i < ST_GROW_HIGH; i++) {
			if (pidx_st_insert(st->ops, c.idx, keys[i]))
				errors++;
			if (!(i & 63))
				cond_resched();
		}
		buckets_hi = pidx_st_resized(st, c.idx, &resizes,
					     "resizes while the index grew");
		for (i = ST_GROW_HIGH - 1; i >= ST_GROW_LOW; i--) {
			if (pidx_st_remove(st->ops, c.idx, keys[i]))
				errors++;
			if (!(i & 63))
				cond_resched();
		}
		buckets_lo = pidx_st_resized(st, c.idx, &resizes,
					     "resizes while the index shrank");
	}
	WRITE_ONCE(t.stop, true);
	pidx_st_team_end(&t);
	if (!CHECK_EQ(st, ret, 0, "starting the reader threads"))
		goto out;

	for (i = 0; i < n; i++) {
		reads += gt[i].reads;
		misses += gt[i].misses;
		find_errors += gt[i].find_errors;
	}
	CHECK_EQ(st, misses, 0, "lookups that missed a stable key while the index grew and shrank");
	CHECK_EQ(st, find_errors, 0,
		 "find_ge results that skipped a stable key while the index grew and shrank");
	CHECK_EQ(st, errors, 0, "inserts/removes failing while the index grew and shrank");
	CHECK_EQ(st, reads > 0, true, "readers ran while the index grew and shrank");
	pidx_log_printf(st->log,
			"  grow/shrink: %u cycles of %u..%u keys under %u readers (%ld reads), buckets %ld..%ld, resizes %ld, %u ms\n",
			cycle, ST_GROW_LOW + ST_GROW_NSTABLE,
			ST_GROW_HIGH + ST_GROW_NSTABLE, n, reads, buckets_lo,
			buckets_hi, resizes, pidx_st_ms(t0));
	for (i = 0; i < ST_GROW_LOW; i++)
		pidx_oracle_insert(&o, keys[i]);
	pidx_st_compare(st, c.idx, &o, "grow and shrink");
out:
	if (c.idx)
		st->ops->destroy(c.idx);
	kvfree(keys);
	kfree(gt);
	bitmap_free(o.bits);
}

static unsigned int pidx_selftest_index(const struct pidx_ops *ops,
					const struct pidx_config *cfg,
					struct pidx_log *log,
					unsigned int *checks, bool races_only)
{
	struct pidx_st st = { .ops = ops, .cfg = cfg, .log = log };
	long mem_before = atomic_long_read(&pidx_mem.bytes);

	if (!races_only) {
		pidx_st_faults(&st);
		pidx_st_basic(&st);
		pidx_st_set_cursor(&st);
		pidx_st_random(&st, 1024, 20000);
		pidx_st_random(&st, 65536, ST_RANDOM_OPS);
	}
	pidx_race_delays_start(st.cfg->seed);
	pidx_st_alloc_fill(&st);
	pidx_st_alloc_wrap(&st);
	pidx_st_race(&st);
	pidx_st_irq(&st);
	pidx_st_grow(&st);
	pidx_race_delays_stop();
	if (!races_only)
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

/* cfg_lock held: a finished selftest's log becomes test_result's. */
static void pidx_selftest_publish(struct pidx_state *ps)
{
	lockdep_assert_held(&ps->cfg_lock);
	pidx_log_free(&ps->selftest_shown);
	ps->selftest_shown = ps->selftest_log;
	ps->selftest_log = (struct pidx_log){};
}

/*
 * @races_only: the concurrent phases alone (the "racetest" command), so that
 * they can run at every CPU count under the checkers' slow kernels.
 */
int pidx_selftest(struct pidx_state *ps, bool races_only)
{
	enum pidx_last_cmd cmd = races_only ? PIDX_CMD_RACETEST : PIDX_CMD_SELFTEST;
	/* serialized by run_lock */
	static struct pidx_config cfg;
	unsigned int i, checks, failed = 0, total = 0;
	unsigned long indexes;

	if (!mutex_trylock(&ps->run_lock))
		return -EBUSY;
	mutex_lock(&ps->cfg_lock);
	cfg = ps->cfg;
	/* the indexes selected for runs, but for one without contents (null) */
	indexes = cfg.indexes & pidx_indexes_all();
	if (!indexes) {
		ps->last_cmd = cmd;
		ps->last_rc = -EINVAL;
		ps->last_why = "indexes holds no index with contents to check";
		mutex_unlock(&ps->cfg_lock);
		mutex_unlock(&ps->run_lock);
		return -EINVAL;
	}
	ps->running = true;
	mutex_unlock(&ps->cfg_lock);
	pidx_log_free(&ps->selftest_log);
	for (i = 0; i < pidx_nr_indexes; i++) {
		if (!(indexes & BIT(i)))
			continue;
		failed += pidx_selftest_index(pidx_index_table[i], &cfg,
					      &ps->selftest_log, &checks,
					      races_only);
		total += checks;
	}
	pidx_log_printf(&ps->selftest_log, "selftest: %u of %u checks passed: %s\n",
			total - failed, total, failed ? "FAILED" : "ok");
	mutex_lock(&ps->cfg_lock);
	ps->running = false;
	ps->last_cmd = cmd;
	ps->last_rc = failed ? -EUCLEAN : 0;
	ps->last_why = failed ? "checks failed: see test_result" : "";
	pidx_selftest_publish(ps);
	mutex_unlock(&ps->cfg_lock);
	mutex_unlock(&ps->run_lock);
	return failed ? -EUCLEAN : 0;
}
