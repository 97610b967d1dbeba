// SPDX-License-Identifier: GPL-2.0
/*
 * The selftest's phases of lockless readers against writers: readers in
 * hard-irq context (an hrtimer on each CPU) while threads reserve, publish
 * and remove the keys between the stable ones they read, and readers on
 * every CPU while one writer grows and shrinks the index across its resize
 * thresholds.  A reader takes no lock, so what it may see while a writer
 * or a resize is half done is what these check: stable keys always with
 * their values, and the writers' keys by their words (kit.h's tracked
 * keys): never a torn or stale value, never NULL for a key published
 * throughout, never a key only reserved throughout.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
/* kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "pidx_compat.h"
#include "kit.h"
#include "phases.h"

/*
 * Lockless lookup() and find_ge() from hard-irq context: an hrtimer on each
 * CPU reads the stable even keys, which must return their values, and the
 * odd keys between them, which writer threads reserve, publish and remove
 * meanwhile.  An index whose readers may wait for a writer
 * (readers_may_wait) keeps its writers on one CPU and the timers on the
 * others.
 */
#define ST_IRQ_PID_MAX		8192
#define ST_IRQ_SPAN		4096
#define ST_IRQ_MS		1200
#define ST_IRQ_PERIOD_NS	(100 * NSEC_PER_USEC)
/* three calls each: as many per period as two each took before, 8 of them */
#define ST_IRQ_READS		6

struct pidx_st_irq_ctx;

struct pidx_st_irq_cpu {
	struct hrtimer timer;
	struct pidx_st_irq_ctx *c;
	u64 rng;
	long fires;
	long misses;
	long find_errors;
	long not_hardirq;
	struct pidx_st_seen seen;
};

struct pidx_st_irq_ctx {
	const struct pidx_ops *ops;
	struct pidx_index *idx;
	/* the writers' keys, by their words */
	struct pidx_st_keys ks;
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
		if (c->ops->lookup(c->idx, k) != pidx_st_val(k, 0))
			ic->misses++;
		/* k - 1 is a writer's and may come and go; k stays */
		n = pidx_st_find_key(c->ops, c->idx, c->ks.st, k - 1, &ic->seen);
		if (n != k && n != k - 1)
			ic->find_errors++;
		k = 1 + 2 * pidx_rand_below(&ic->rng, ST_IRQ_SPAN / 2);
		pidx_st_read_key(c->ops, c->idx, c->ks.st, k, &ic->seen);
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

/*
 * Each pass moves each of the writer's keys one step on: an absent one is
 * reserved, a reserved one published (three times in four) or removed, a
 * published one removed.
 */
static void pidx_st_irq_write_fn(struct pidx_st_worker *w)
{
	struct pidx_st_irq_ctx *c = w->team->ctx;
	struct pidx_st_irq_thread *it = w->priv;
	u32 step = 2 * c->nwriters, k;
	int ret;

	while (pidx_st_going(w)) {
		for (k = 1 + 2 * w->id; k < ST_IRQ_SPAN && pidx_st_going(w);
		     k += step) {
			switch (ST_K_PHASE(READ_ONCE(c->ks.st[k]))) {
			case ST_K_ABSENT:
				ret = c->ops->insert(c->idx, k, GFP_KERNEL);
				if (!ret)
					pidx_st_key_reserved(&c->ks, k);
				break;
			case ST_K_RESERVED:
				if (pidx_rand_below(&w->rng, 4))
					ret = pidx_st_key_publish(c->ops, c->idx,
								  &c->ks, k);
				else
					ret = pidx_st_key_remove(c->ops, c->idx,
								 &c->ks, k, true);
				break;
			case ST_K_PUBLISHED:
				ret = pidx_st_key_remove(c->ops, c->idx, &c->ks,
							 k, true);
				break;
			default:
				/* a call on it failed: its state is unknown */
				continue;
			}
			if (ret == -ENOMEM) {
				it->nomem++;
				continue;
			}
			if (ret) {
				if (!it->errors++)
					it->first_error = ret;
				continue;
			}
			if (!(++it->writes & 31))
				cond_resched();
		}
	}
}

void pidx_st_irq(struct pidx_st *st)
{
	struct pidx_st_team t = { .fn = pidx_st_irq_write_fn, .seed = st->cfg->seed };
	struct pidx_st_irq_ctx c = { .ops = st->ops };
	long fires = 0, misses = 0, find_errors = 0, not_hardirq = 0;
	long writes = 0, errors = 0, nomem = 0;
	struct pidx_st_seen seen = {};
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
	ret = pidx_st_keys_init(&c.ks, ST_IRQ_PID_MAX);
	/* before cpus_read_lock(): kmem_cache_create() takes it too */
	c.idx = pidx_st_create(st, ST_IRQ_PID_MAX);
	if (!c.cpu || ret || !c.idx)
		goto out;
	for (k = 2, ret = 0; k < ST_IRQ_SPAN; k += 2) {
		ret += !!pidx_st_insert(st->ops, c.idx, k);
		ret += !!st->ops->publish(c.idx, k, pidx_st_val(k, 0));
		pidx_oracle_set(&o, k, pidx_st_val(k, 0));
	}
	CHECK_EQ(st, ret, 0, "inserts and publishes of stable keys that failed");

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
		pidx_st_seen_add(&seen, &c.cpu[cpu].seen);
	}
	for (i = 0; i < c.nwriters; i++) {
		writes += it[i].writes;
		nomem += it[i].nomem;
		if (it[i].errors && !errors)
			first = it[i].first_error;
		errors += it[i].errors;
	}
	CHECK_EQ(st, misses, 0,
		 "hard-irq lookups of a stable key that did not return its value");
	CHECK_EQ(st, find_errors, 0,
		 "hard-irq find_ge results that skipped a stable key");
	CHECK_EQ(st, not_hardirq, 0, "timer readers not in hard-irq context");
	CHECK_EQ(st, fires > 0, true, "hard-irq readers ran");
	CHECK_EQ(st, silent, 0, "timer CPUs whose reader never ran");
	pidx_st_seen_check(st, &seen, "hard-irq readers of keys under their writers");
	if (!CHECK_EQ(st, errors, 0,
		      "writer inserts/publishes/removes of their own keys that failed"))
		pidx_log_printf(st->log, "    first error %d\n", first);
	CHECK_EQ(st, writes > 0, true, "writers ran under the hard-irq readers");
	pidx_log_printf(st->log,
			"  irq readers: %u writers on CPUs %*pbl, timers on %*pbl: %ld rounds of %u, %ld writes (%ld -ENOMEM), %u ms\n",
			c.nwriters, cpumask_pr_args(wcpus), cpumask_pr_args(tcpus),
			fires, ST_IRQ_READS, writes, nomem, pidx_st_ms(t0));
	for (k = 1; k < ST_IRQ_SPAN; k += 2)
		if (ST_K_PHASE(c.ks.st[k]) == ST_K_RESERVED ||
		    ST_K_PHASE(c.ks.st[k]) == ST_K_PUBLISHED)
			pidx_oracle_set(&o, k, pidx_st_key_value(&c.ks, k));
	pidx_st_compare(st, c.idx, &o, "hard-irq readers");
out:
	if (c.idx)
		st->ops->destroy(c.idx);
	pidx_st_keys_free(&c.ks);
	kfree(c.cpu);
	kfree(it);
	pidx_oracle_free(&o);
out_tcpus:
	free_cpumask_var(tcpus);
out_wcpus:
	free_cpumask_var(wcpus);
}

/*
 * The index grown and shrunk across its resize thresholds by one writer, two
 * cycles and more while time is left, as readers on every CPU check stable
 * keys and the keys the writer reserves, publishes (three in four) and
 * removes; where describe() reports "resizes=" (hash), each half cycle
 * must have resized: hash grows its 64 buckets past 1024 keys and shrinks
 * them again below an eighth of a load.
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
	/* the writer's keys (read-only while the readers run), by their words */
	const u32 *keys;
	struct pidx_st_keys ks;
};

struct pidx_st_grow_thread {
	long reads;
	long misses;
	long find_errors;
	struct pidx_st_seen seen;
};

static void pidx_st_grow_fn(struct pidx_st_worker *w)
{
	struct pidx_st_grow_ctx *c = w->team->ctx;
	struct pidx_st_grow_thread *gt = w->priv;
	unsigned int i;
	u32 s, k;
	int n;

	while (pidx_st_going(w)) {
		for (i = 0; i < 64; i++) {
			s = 64 + 128 * pidx_rand_below(&w->rng, ST_GROW_NSTABLE);
			k = c->keys[pidx_rand_below(&w->rng, ST_GROW_HIGH)];
			rcu_read_lock();
			if (c->ops->lookup(c->idx, s) != pidx_st_val(s, 0))
				gt->misses++;
			/* s - 1 is the writer's or never held; s stays */
			n = pidx_st_find_key(c->ops, c->idx, c->ks.st, s - 1,
					     &gt->seen);
			pidx_st_read_key(c->ops, c->idx, c->ks.st, k, &gt->seen);
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

void pidx_st_grow(struct pidx_st *st)
{
	struct pidx_st_team t = { .fn = pidx_st_grow_fn, .seed = st->cfg->seed };
	struct pidx_st_grow_ctx c = { .ops = st->ops };
	unsigned int n = pidx_st_nthreads(1), i, cycle;
	unsigned long end = jiffies + msecs_to_jiffies(ST_GROW_CYCLE_MS);
	long reads = 0, misses = 0, find_errors = 0, errors = 0;
	long resizes, buckets_hi = -1, buckets_lo = -1;
	struct pidx_st_seen seen = {};
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
	ret = pidx_st_keys_init(&c.ks, ST_GROW_PID_MAX);
	c.idx = pidx_st_create(st, ST_GROW_PID_MAX);
	if (!gt || !keys || ret || !c.idx)
		goto out;
	c.keys = keys;
	for (k = 64, ret = 0; k < ST_GROW_PID_MAX; k += 128) {
		ret += !!pidx_st_insert(st->ops, c.idx, k);
		ret += !!st->ops->publish(c.idx, k, pidx_st_val(k, 0));
		pidx_oracle_set(&o, k, pidx_st_val(k, 0));
	}
	CHECK_EQ(st, ret, 0, "inserts and publishes of stable keys that failed");
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
			if (pidx_st_insert(st->ops, c.idx, keys[i])) {
				errors++;
				continue;
			}
			pidx_st_key_reserved(&c.ks, keys[i]);
			if ((i & 3) != 3 &&
			    pidx_st_key_publish(st->ops, c.idx, &c.ks, keys[i]))
				errors++;
			if (!(i & 63))
				cond_resched();
		}
		buckets_hi = pidx_st_resized(st, c.idx, &resizes,
					     "resizes while the index grew");
		for (i = ST_GROW_HIGH - 1; i >= ST_GROW_LOW; i--) {
			if (pidx_st_key_remove(st->ops, c.idx, &c.ks, keys[i], true))
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
		pidx_st_seen_add(&seen, &gt[i].seen);
	}
	CHECK_EQ(st, misses, 0,
		 "lookups of a stable key that did not return its value while the index grew and shrank");
	CHECK_EQ(st, find_errors, 0,
		 "find_ge results that skipped a stable key while the index grew and shrank");
	pidx_st_seen_check(st, &seen, "readers while the index grew and shrank");
	CHECK_EQ(st, errors, 0,
		 "inserts/publishes/removes failing while the index grew and shrank");
	CHECK_EQ(st, reads > 0, true, "readers ran while the index grew and shrank");
	pidx_log_printf(st->log,
			"  grow/shrink: %u cycles of %u..%u keys under %u readers (%ld reads), buckets %ld..%ld, resizes %ld, %u ms\n",
			cycle, ST_GROW_LOW + ST_GROW_NSTABLE,
			ST_GROW_HIGH + ST_GROW_NSTABLE, n, reads, buckets_lo,
			buckets_hi, resizes, pidx_st_ms(t0));
	for (i = 0; i < ST_GROW_LOW; i++)
		pidx_oracle_set(&o, keys[i], pidx_st_key_value(&c.ks, keys[i]));
	pidx_st_compare(st, c.idx, &o, "grow and shrink");
out:
	if (c.idx)
		st->ops->destroy(c.idx);
	pidx_st_keys_free(&c.ks);
	kvfree(keys);
	kfree(gt);
	pidx_oracle_free(&o);
}
