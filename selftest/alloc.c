// SPDX-License-Identifier: GPL-2.0
/*
 * The selftest's concurrent alloc() phases: every CPU allocating into an
 * empty space until it is full, and allocating and freeing in a space kept
 * nearly full, so that the cyclic search wraps all the time.  alloc() is
 * the one call whose number the index picks, so what these check is the
 * numbers handed out: none twice, none outside the space or below the
 * floor after a wrap, none refused while one was free.  Most numbers are
 * published by the thread that took them, some taken by alloc_publish()
 * where the index has it, and the rest left reserved: reservations and
 * values must count alike, and the index ends with the values given.
 */
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/ktime.h>
/* kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "kit.h"
#include "phases.h"

/*
 * alloc() from every CPU at once into an empty space until it is full: no
 * number twice, all in [1, pid_max), each thread's numbers rising (nothing
 * is freed, so the cursor only moves on), the union all of the space, and
 * every thread ends on one -ENOSPC.  Each thread publishes three numbers
 * in four as it takes them; where the index has alloc_publish(), every
 * other thread takes its numbers with it instead, and must see each value
 * at once.
 */
#define ST_FILL_PID_MAX		4096
/* a bound for a broken index that never says -ENOSPC, not a duration */
#define ST_FILL_MS		30000

/* how a fill thread took a number, in its object's flags */
enum { ST_FILL_RESERVED, ST_FILL_PUBLISHED, ST_FILL_ALLOC_PUBLISHED };

struct pidx_st_fill_ctx {
	const struct pidx_ops *ops;
	struct pidx_index *idx;
};

struct pidx_st_fill_thread {
	/* the numbers taken, and for alloc_publish() the values */
	struct pidx_st_obj *got;
	u32 n;
	u32 enospc;
	u32 falling;
	u32 nomem;
	u32 publish_errors;
	u32 ap_errors;
	int error;
};

static void pidx_st_fill_fn(struct pidx_st_worker *w)
{
	struct pidx_st_fill_ctx *c = w->team->ctx;
	struct pidx_st_fill_thread *ft = w->priv;
	bool ap = c->ops->alloc_publish && (w->id & 1);
	struct pidx_st_obj *ob;
	void *v;
	int pid;

	while (pidx_st_going(w)) {
		/* got[] has a spare past the end for the call that overflows */
		ob = &ft->got[ft->n];
		ob->nr = U32_MAX;
		if (ap)
			pid = c->ops->alloc_publish(c->idx, ob, &ob->nr, GFP_KERNEL);
		else
			pid = c->ops->alloc(c->idx, GFP_KERNEL);
		if (pid == -ENOSPC) {
			ft->enospc++;
			break;
		}
		if (pid == -ENOMEM) {
			ft->nomem++;
			continue;
		}
		if (pid < 0 || ft->n == ST_FILL_PID_MAX) {
			ft->error = pid < 0 ? pid : -EOVERFLOW;
			break;
		}
		if (ft->n && pid <= ft->got[ft->n - 1].nr)
			ft->falling++;
		if (ap) {
			ob->flags = ST_FILL_ALLOC_PUBLISHED;
			rcu_read_lock();
			v = c->ops->lookup(c->idx, pid);
			rcu_read_unlock();
			if (ob->nr != pid || v != ob)
				ft->ap_errors++;
			ob->nr = pid;
		} else {
			ob->nr = pid;
			ob->flags = ST_FILL_RESERVED;
			if (pid & 3) {
				if (c->ops->publish(c->idx, pid, pidx_st_val(pid, 1)))
					ft->publish_errors++;
				else
					ob->flags = ST_FILL_PUBLISHED;
			}
		}
		ft->n++;
		if (!(ft->n & 63))
			cond_resched();
	}
}

void pidx_st_alloc_fill(struct pidx_st *st)
{
	struct pidx_st_team t = { .fn = pidx_st_fill_fn, .seed = st->cfg->seed };
	struct pidx_st_fill_ctx c = { .ops = st->ops };
	unsigned int n = pidx_st_nthreads(1), i, j;
	u32 total = 0, dups = 0, outside = 0, falling = 0, enospc = 0;
	u32 nomem = 0, errors = 0, publish_errors = 0, ap_errors = 0;
	struct pidx_st_fill_thread *ft;
	ktime_t t0 = ktime_get();
	struct pidx_oracle o;
	int ret, first = 0;
	void *v;

	if (pidx_oracle_init(&o, ST_FILL_PID_MAX))
		return;
	ft = kcalloc(n, sizeof(*ft), GFP_KERNEL);
	c.idx = pidx_st_create(st, ST_FILL_PID_MAX);
	if (!ft || !c.idx)
		goto out;
	for (i = 0; i < n; i++) {
		ft[i].got = kvcalloc(ST_FILL_PID_MAX + 1, sizeof(*ft[i].got),
				     GFP_KERNEL);
		if (!ft[i].got)
			goto out;
	}
	t.ctx = &c;
	ret = pidx_st_team_run(&t, n, ft, sizeof(*ft), ST_FILL_MS);
	if (!CHECK_EQ(st, ret, 0, "starting the alloc threads"))
		goto out;

	for (i = 0; i < n; i++) {
		for (j = 0; j < ft[i].n; j++) {
			struct pidx_st_obj *ob = &ft[i].got[j];
			u32 pid = ob->nr;

			if (pid < 1 || pid >= ST_FILL_PID_MAX) {
				outside++;
				continue;
			}
			if (pidx_oracle_held(&o, pid)) {
				dups++;
				continue;
			}
			v = ob->flags == ST_FILL_PUBLISHED ? pidx_st_val(pid, 1) :
			    ob->flags == ST_FILL_ALLOC_PUBLISHED ? ob : NULL;
			pidx_oracle_set(&o, pid, v);
		}
		total += ft[i].n;
		enospc += ft[i].enospc;
		falling += ft[i].falling;
		nomem += ft[i].nomem;
		publish_errors += ft[i].publish_errors;
		ap_errors += ft[i].ap_errors;
		if (ft[i].error && !errors++)
			first = ft[i].error;
	}
	CHECK_EQ(st, dups, 0, "numbers handed out twice by concurrent allocs");
	CHECK_EQ(st, outside, 0, "concurrent allocs outside [1, pid_max)");
	if (!CHECK_EQ(st, errors, 0, "concurrent allocs failing but with -ENOSPC"))
		pidx_log_printf(st->log, "    first error %d\n", first);
	/* from ranges: a thread takes up what other CPUs' ranges left over */
	if (!st->ops->alloc_ranges)
		CHECK_EQ(st, falling, 0,
			 "allocs below the same thread's previous one with nothing freed");
	CHECK_EQ(st, total, ST_FILL_PID_MAX - 1,
		 "numbers handed out by concurrent allocs before -ENOSPC");
	CHECK_EQ(st, enospc, n, "alloc threads that ended on -ENOSPC");
	CHECK_EQ(st, publish_errors, 0,
		 "publishes of numbers just taken by concurrent allocs that failed");
	if (st->ops->alloc_publish)
		CHECK_EQ(st, ap_errors, 0,
			 "concurrent alloc_publish: number not in *nr or value not looked up at once");
	CHECK_EQ(st, st->ops->alloc(c.idx, GFP_KERNEL), -ENOSPC,
		 "alloc after the concurrent fill");
	pidx_log_printf(st->log,
			"  alloc fill: %u threads took %u numbers (%u -ENOMEM, %u below their last), %u ms\n",
			n, total, nomem, falling, pidx_st_ms(t0));
	pidx_st_compare(st, c.idx, &o, "concurrent fill");
out:
	if (c.idx)
		st->ops->destroy(c.idx);
	for (i = 0; ft && i < n; i++)
		kvfree(ft[i].got);
	kfree(ft);
	pidx_oracle_free(&o);
}

/*
 * alloc() and remove() from every CPU in a space kept nearly full, so that
 * the cyclic search wraps all the time: ST_WRAP_HOLES free numbers at or
 * above the floor and a few below it, which must never come back.  Claims
 * (allocs under way plus numbers held) never exceed the holes, so no alloc
 * may fail meanwhile; at the end every thread takes what is left until
 * -ENOSPC, and then the whole space above the floor must be taken.  A
 * thread publishes three numbers in four it takes, with a generation no
 * earlier value had, or takes them with alloc_publish() (every other
 * thread, where the index has it), and removes them published or not.
 */
#define ST_WRAP_PID_MAX		2048
#define ST_WRAP_HOLES		64
#define ST_WRAP_LOW_HOLES	8
#define ST_WRAP_DEPTH		16
#define ST_WRAP_MS		800

struct pidx_st_wrap_ctx {
	const struct pidx_ops *ops;
	struct pidx_index *idx;
	unsigned long *prefilled;	/* present throughout */
	unsigned long *held;		/* handed out and not yet removed */
	/* a held number's value, NULL while only reserved: the owner's */
	void **val;
	atomic_long_t gen;
	atomic_t claims;
	atomic_t draining;	/* threads done with the churn */
	u32 depth;
};

struct pidx_st_wrap_thread {
	u32 fifo[ST_WRAP_DEPTH];
	/* alloc_publish()'s values: a fifo slot's, reused once it is given */
	struct pidx_st_obj obj[ST_WRAP_DEPTH];
	bool ap;
	u32 head;
	u32 len;
	u32 last;
	u32 allocs;
	u32 falls;		/* a number below the thread's last one: a wrap */
	u32 churn_enospc;
	u32 drain_enospc;
	u32 nomem;
	u32 bad;		/* outside, present throughout, or held */
	u32 publish_errors;
	u32 remove_errors;
	int error;
};

/* One alloc(): false when the thread should stop asking. */
static bool pidx_st_wrap_take(struct pidx_st_wrap_ctx *c,
			      struct pidx_st_wrap_thread *wt, bool drain)
{
	struct pidx_st_obj *ob = &wt->obj[(wt->head + wt->len) % ST_WRAP_DEPTH];
	bool ap = wt->ap && !drain;
	unsigned long gen;
	void *v;
	int pid;

	if (ap)
		pid = c->ops->alloc_publish(c->idx, ob, &ob->nr, GFP_KERNEL);
	else
		pid = c->ops->alloc(c->idx, GFP_KERNEL);
	if (pid == -ENOSPC) {
		if (drain)
			wt->drain_enospc++;
		else
			wt->churn_enospc++;
		return false;
	}
	if (pid == -ENOMEM) {
		/* a drain that cannot allocate for long is reported as left free */
		return drain && ++wt->nomem < 1000;
	}
	if (pid < 0) {
		if (!wt->error)
			wt->error = pid;
		return false;
	}
	if (pid < PIDX_RESERVED_PIDS || pid >= ST_WRAP_PID_MAX ||
	    test_bit(pid, c->prefilled) || test_and_set_bit(pid, c->held)) {
		wt->bad++;
		return false;
	}
	if (ap) {
		rcu_read_lock();
		v = c->ops->lookup(c->idx, pid);
		rcu_read_unlock();
		if (ob->nr != pid || v != ob)
			wt->publish_errors++;
		WRITE_ONCE(c->val[pid], ob);
	} else {
		gen = atomic_long_inc_return(&c->gen);
		/* one in four stays reserved until it is removed */
		if (gen & 3) {
			v = pidx_st_val(pid, gen);
			if (c->ops->publish(c->idx, pid, v))
				wt->publish_errors++;
			else
				WRITE_ONCE(c->val[pid], v);
		}
	}
	if (wt->allocs++ && pid < wt->last)
		wt->falls++;
	wt->last = pid;
	if (!drain)
		wt->fifo[(wt->head + wt->len++) % ST_WRAP_DEPTH] = pid;
	return true;
}

static void pidx_st_wrap_give(struct pidx_st_wrap_ctx *c,
			      struct pidx_st_wrap_thread *wt)
{
	u32 pid = wt->fifo[wt->head];

	wt->head = (wt->head + 1) % ST_WRAP_DEPTH;
	wt->len--;
	/* before the removal: once it is done, another CPU may get it at once */
	WRITE_ONCE(c->val[pid], NULL);
	clear_bit(pid, c->held);
	if (pidx_st_remove(c->ops, c->idx, pid))
		wt->remove_errors++;
	atomic_dec(&c->claims);
}

static void pidx_st_wrap_fn(struct pidx_st_worker *w)
{
	struct pidx_st_wrap_ctx *c = w->team->ctx;
	struct pidx_st_wrap_thread *wt = w->priv;

	wt->ap = c->ops->alloc_publish && (w->id & 1);
	while (pidx_st_going(w)) {
		if (wt->len < c->depth) {
			if (atomic_inc_return(&c->claims) <= ST_WRAP_HOLES) {
				if (!pidx_st_wrap_take(c, wt, false))
					atomic_dec(&c->claims);
				continue;
			}
			atomic_dec(&c->claims);
		}
		if (wt->len)
			pidx_st_wrap_give(c, wt);
		else
			cond_resched();
	}
	/*
	 * No drain starts while a thread still churns, whose allocs the drain
	 * would starve; and no removal follows the drains, so they end full.
	 */
	atomic_inc(&c->draining);
	while (atomic_read(&c->draining) < w->team->n)
		cond_resched();
	while (pidx_st_wrap_take(c, wt, true))
		cond_resched();
}

void pidx_st_alloc_wrap(struct pidx_st *st)
{
	struct pidx_st_team t = { .fn = pidx_st_wrap_fn, .seed = st->cfg->seed };
	struct pidx_st_wrap_ctx c = { .ops = st->ops };
	unsigned int n = pidx_st_nthreads(1), i;
	u32 allocs = 0, falls = 0, churn_enospc = 0, drain_enospc = 0;
	u32 nomem = 0, bad = 0, remove_errors = 0, errors = 0, pid;
	u32 publish_errors = 0;
	u64 rng = pidx_rand_seed(st->cfg->seed, 3000);
	struct pidx_st_wrap_thread *wt;
	ktime_t t0 = ktime_get();
	struct pidx_oracle o;
	int ret;

	if (pidx_oracle_init(&o, ST_WRAP_PID_MAX))
		return;
	wt = kcalloc(n, sizeof(*wt), GFP_KERNEL);
	c.prefilled = bitmap_zalloc(ST_WRAP_PID_MAX, GFP_KERNEL);
	c.held = bitmap_zalloc(ST_WRAP_PID_MAX, GFP_KERNEL);
	c.val = kvcalloc(ST_WRAP_PID_MAX, sizeof(*c.val), GFP_KERNEL);
	c.idx = pidx_st_create(st, ST_WRAP_PID_MAX);
	if (!wt || !c.prefilled || !c.held || !c.val || !c.idx)
		goto out;
	c.depth = min_t(u32, ST_WRAP_DEPTH, ST_WRAP_HOLES / n + 2);
	atomic_long_set(&c.gen, 0);
	atomic_set(&c.claims, 0);
	atomic_set(&c.draining, 0);

	/* full, the cursor at the end: the next alloc wraps to the floor */
	pidx_st_fill(st, c.idx, &o);
	for (i = 0; i < ST_WRAP_HOLES + ST_WRAP_LOW_HOLES;) {
		if (i < ST_WRAP_HOLES)
			pid = PIDX_RESERVED_PIDS +
			      pidx_rand_below(&rng, ST_WRAP_PID_MAX - PIDX_RESERVED_PIDS);
		else
			pid = 1 + pidx_rand_below(&rng, PIDX_RESERVED_PIDS - 1);
		if (pidx_oracle_remove(&o, pid))
			continue;
		CHECK_EQ(st, pidx_st_remove(st->ops, c.idx, pid), 0,
			 "remove of a hole before the wrap storm");
		i++;
	}
	bitmap_copy(c.prefilled, o.bits, ST_WRAP_PID_MAX);

	t.ctx = &c;
	ret = pidx_st_team_run(&t, n, wt, sizeof(*wt), ST_WRAP_MS);
	if (!CHECK_EQ(st, ret, 0, "starting the alloc threads"))
		goto out;

	for (i = 0; i < n; i++) {
		allocs += wt[i].allocs;
		falls += wt[i].falls;
		churn_enospc += wt[i].churn_enospc;
		drain_enospc += wt[i].drain_enospc;
		nomem += wt[i].nomem;
		bad += wt[i].bad;
		publish_errors += wt[i].publish_errors;
		remove_errors += wt[i].remove_errors;
		errors += !!wt[i].error;
	}
	CHECK_EQ(st, bad, 0,
		 "allocs near full outside [floor, pid_max), of a present number or one held");
	CHECK_EQ(st, errors, 0, "allocs near full failing but with -ENOSPC");
	CHECK_EQ(st, publish_errors, 0,
		 "publishes (or alloc_publish values not seen at once) of numbers just allocated near full failing");
	CHECK_EQ(st, remove_errors, 0, "removes of numbers just allocated failing");
	CHECK_EQ(st, churn_enospc, 0, "-ENOSPC while fewer numbers were claimed than free");
	CHECK_EQ(st, drain_enospc, n, "alloc threads that ended on -ENOSPC");
	/* the oracle still holds the prefill, which no thread removed */
	for_each_set_bit(pid, c.held, ST_WRAP_PID_MAX)
		pidx_oracle_set(&o, pid, c.val[pid]);
	CHECK_EQ(st, find_next_zero_bit(o.bits, ST_WRAP_PID_MAX, PIDX_RESERVED_PIDS),
		 ST_WRAP_PID_MAX, "first number above the floor left free after the drain");
	CHECK_EQ(st, st->ops->alloc(c.idx, GFP_KERNEL), -ENOSPC,
		 "alloc after the drain");
	pidx_log_printf(st->log,
			"  alloc wrap: %u threads, %u allocs (%u after a wrap, %u -ENOMEM) in %u free of %u, %u ms\n",
			n, allocs, falls, nomem, ST_WRAP_HOLES, ST_WRAP_PID_MAX,
			pidx_st_ms(t0));
	pidx_st_compare(st, c.idx, &o, "alloc wrap storm");
out:
	if (c.idx)
		st->ops->destroy(c.idx);
	kvfree(c.val);
	bitmap_free(c.held);
	bitmap_free(c.prefilled);
	kfree(wt);
	pidx_oracle_free(&o);
}
