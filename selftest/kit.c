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
/* kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pidx_sched.h"
#include "kit.h"

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
	o->pub = bitmap_zalloc(pid_max, GFP_KERNEL);
	o->val = kvcalloc(pid_max, sizeof(*o->val), GFP_KERNEL);
	o->pid_max = pid_max;
	o->cursor = 0;
	o->count = 0;
	o->gen = 0;
	if (o->bits && o->pub && o->val)
		return 0;
	pidx_oracle_free(o);
	return -ENOMEM;
}

void pidx_oracle_free(struct pidx_oracle *o)
{
	bitmap_free(o->bits);
	bitmap_free(o->pub);
	kvfree(o->val);
	o->bits = NULL;
	o->pub = NULL;
	o->val = NULL;
}

/* Nothing held; the cursor stays. */
void pidx_oracle_clear(struct pidx_oracle *o)
{
	bitmap_zero(o->bits, o->pid_max);
	bitmap_zero(o->pub, o->pid_max);
	memset(o->val, 0, o->pid_max * sizeof(*o->val));
	o->count = 0;
}

/* idr_alloc_cyclic() with alloc_pid()'s floor, on a bitmap: a reservation */
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

/* publish() as the contract has it: -ENOENT unless held, -EEXIST once published */
int pidx_oracle_publish(struct pidx_oracle *o, u32 pid, void *value)
{
	if (pid >= o->pid_max || !test_bit(pid, o->bits))
		return -ENOENT;
	if (__test_and_set_bit(pid, o->pub))
		return -EEXIST;
	o->val[pid] = value;
	return 0;
}

/*
 * What a concurrent phase found the index to hold: @pid held, published
 * with @value, or only reserved when @value is NULL.
 */
void pidx_oracle_set(struct pidx_oracle *o, u32 pid, void *value)
{
	if (!__test_and_set_bit(pid, o->bits))
		o->count++;
	if (value)
		__set_bit(pid, o->pub);
	else
		__clear_bit(pid, o->pub);
	o->val[pid] = value;
}

/* a value no earlier one of this oracle equals: the next generation */
void *pidx_oracle_val(struct pidx_oracle *o, u32 pid)
{
	return pidx_st_val(pid, ++o->gen);
}

bool pidx_oracle_held(struct pidx_oracle *o, u32 pid)
{
	return pid < o->pid_max && test_bit(pid, o->bits);
}

void *pidx_oracle_lookup(struct pidx_oracle *o, u32 pid)
{
	return pid < o->pid_max ? o->val[pid] : NULL;
}

int pidx_oracle_remove(struct pidx_oracle *o, u32 pid)
{
	if (pid >= o->pid_max || !__test_and_clear_bit(pid, o->bits))
		return -ENOENT;
	__clear_bit(pid, o->pub);
	o->val[pid] = NULL;
	o->count--;
	return 0;
}

/* the smallest published number >= @pid: reservations are skipped */
int pidx_oracle_find_ge(struct pidx_oracle *o, u32 pid)
{
	unsigned long n = pid < o->pid_max ?
		find_next_bit(o->pub, o->pid_max, pid) : o->pid_max;

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

void *pidx_st_lookup(struct pidx_st *st, struct pidx_index *idx, u32 pid)
{
	void *v;

	rcu_read_lock();
	v = st->ops->lookup(idx, pid);
	rcu_read_unlock();
	return v;
}

int pidx_st_find_ge(struct pidx_st *st, struct pidx_index *idx, u32 pid)
{
	int n;

	rcu_read_lock();
	n = st->ops->find_ge(idx, pid);
	rcu_read_unlock();
	return n;
}

/*
 * publish() of a fresh value (pidx_oracle_val()) in the index and in the
 * oracle: the index's return, and at @want the oracle's.  An odd number is
 * published with interrupts off where the index allows it (pidx.h: any
 * context), so that a debug kernel sees publish() never sleep there.
 */
int pidx_st_publish(struct pidx_st *st, struct pidx_index *idx,
		    struct pidx_oracle *o, u32 pid, int *want)
{
	void *v = pidx_oracle_val(o, pid);
	unsigned long flags;
	int ret;

	*want = pidx_oracle_publish(o, pid, v);
	if (st->ops->writers_need_irqs_on || !(pid & 1))
		return st->ops->publish(idx, pid, v);
	local_irq_save(flags);
	ret = st->ops->publish(idx, pid, v);
	local_irq_restore(flags);
	return ret;
}

/*
 * Whether the index still holds @pid as the oracle has it, after a call
 * that was refused and must have changed nothing: a published number's
 * lookup returns its value; a reserved one is still held, so publish()
 * takes it (it never allocates, so this holds while allocations fail) and
 * lookup() then returns that value, which the oracle records.
 */
bool pidx_st_kept(struct pidx_st *st, struct pidx_index *idx,
		  struct pidx_oracle *o, u32 pid)
{
	int want;

	if (!pidx_oracle_held(o, pid))
		return false;
	if (!test_bit(pid, o->pub) &&
	    pidx_st_publish(st, idx, o, pid, &want) != want)
		return false;
	return pidx_st_lookup(st, idx, pid) == pidx_oracle_lookup(o, pid);
}

/*
 * Every number's lookup and find_ge agree with the oracle, and every
 * number is held or not as the oracle says, though a lookup cannot tell a
 * reservation from nothing: insert() must refuse a reserved number with
 * -EEXIST and publish() an absent one with -ENOENT, both changing nothing
 * (pidx.h).  One check each.
 */
void pidx_st_compare(struct pidx_st *st, struct pidx_index *idx,
		     struct pidx_oracle *o, const char *phase)
{
	u32 pid, bad_lookup = 0, bad_find = 0, bad_held = 0, bad_absent = 0;
	u32 first_bad = 0;
	bool bad, seen = false;

	for (pid = 0; pid <= o->pid_max; pid++) {
		bad = false;
		if (pidx_st_lookup(st, idx, pid) != pidx_oracle_lookup(o, pid))
			bad = !bad_lookup++;
		if (pidx_st_find_ge(st, idx, pid) != pidx_oracle_find_ge(o, pid))
			bad |= !bad_find++;
		if (pid && pid < o->pid_max && !test_bit(pid, o->pub)) {
			if (test_bit(pid, o->bits)) {
				if (pidx_st_insert(st->ops, idx, pid) != -EEXIST)
					bad |= !bad_held++;
			} else if (st->ops->publish(idx, pid,
						    pidx_st_val_var(pid, 0, 1)) !=
				   -ENOENT) {
				bad |= !bad_absent++;
			}
		}
		if (bad && !seen) {
			first_bad = pid;
			seen = true;
		}
		if (!(pid & 0xfff))
			cond_resched();
	}
	bad = !CHECK_EQ(st, bad_lookup, 0, "lookups disagreeing with the oracle (their values)");
	bad |= !CHECK_EQ(st, bad_find, 0, "find_ge results disagreeing with the oracle");
	bad |= !CHECK_EQ(st, bad_held, 0,
			 "reserved numbers that insert did not refuse with -EEXIST");
	bad |= !CHECK_EQ(st, bad_absent, 0,
			 "absent numbers that publish did not refuse with -ENOENT");
	if (bad)
		pidx_log_printf(st->log, "    after %s, first at PID %u\n", phase,
				first_bad);
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify violations");
}

/*
 * alloc until -ENOSPC, each number as the oracle says, and publish three
 * numbers in four: reservations and values side by side, as a machine
 * with forks under way holds them.
 */
u32 pidx_st_fill(struct pidx_st *st, struct pidx_index *idx,
		 struct pidx_oracle *o)
{
	u32 n = 0, wrong = 0, wrong_pub = 0;
	int got, want, pwant;

	do {
		got = st->ops->alloc(idx, GFP_KERNEL);
		want = pidx_oracle_want(o, got, st->ops->alloc_ranges);
		if (got != want && !wrong++)
			CHECK_EQ(st, got, want, "alloc during fill");
		if (got >= 0)
			n++;
		if (got >= 0 && got == want && (got & 3) &&
		    pidx_st_publish(st, idx, o, got, &pwant) != pwant)
			wrong_pub++;
		if (!(n & 0xfff))
			cond_resched();
	} while (got >= 0 && want >= 0 && n <= o->pid_max);
	CHECK_EQ(st, wrong, 0, "allocs differing from the oracle");
	CHECK_EQ(st, wrong_pub, 0, "publishes of numbers just allocated that failed");
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

int pidx_st_keys_init(struct pidx_st_keys *ks, u32 n)
{
	ks->st = kvcalloc(n, sizeof(*ks->st), GFP_KERNEL);
	atomic_long_set(&ks->gen, 0);
	return ks->st ? 0 : -ENOMEM;
}

void pidx_st_keys_free(struct pidx_st_keys *ks)
{
	kvfree(ks->st);
	ks->st = NULL;
}

/* @k holds pidx_st_val(@k, 0) for good, set before the readers start. */
void pidx_st_key_stable(struct pidx_st_keys *ks, u32 k)
{
	WRITE_ONCE(ks->st[k], ST_K(0, ST_K_PUBLISHED));
}

/*
 * A call that may change what @k holds is about to start: its word, which
 * it returns, becomes ST_K_MOVING first, so that a reader that sees
 * anything of the call sees the key was not steady.
 */
unsigned long pidx_st_key_moving(struct pidx_st_keys *ks, u32 k)
{
	unsigned long word = READ_ONCE(ks->st[k]);

	WRITE_ONCE(ks->st[k], ST_K(ST_K_GEN(word), ST_K_MOVING));
	/* seen before anything the call that follows stores */
	smp_mb();
	return word;
}

/*
 * The writer's insert() or alloc() of @k returned 0: a new incarnation, its
 * generation fresh, so higher than any value @k had before.  After a removal
 * that did not settle (the number went back to alloc() at once), this
 * store is ordered after the remover's ST_K_MOVING: that came before the
 * removal that this reservation saw.
 */
void pidx_st_key_reserved(struct pidx_st_keys *ks, u32 k)
{
	unsigned long gen = atomic_long_inc_return(&ks->gen);

	/* a reader that reads it finds the reservation made */
	smp_store_release(&ks->st[k], ST_K(gen, ST_K_RESERVED));
}

/*
 * The owner of @k's reservation publishes its value: ST_K_MOVING before the
 * value can be seen, so that a reader that finds it knows the key was not
 * reserved throughout, and ST_K_PUBLISHED once publish() returned, so that
 * a reader that reads it first must find the value.  On a failure the word
 * stays ST_K_MOVING: the state is unknown and no reader relies on it.
 */
int pidx_st_key_publish(const struct pidx_ops *ops, struct pidx_index *idx,
			struct pidx_st_keys *ks, u32 k)
{
	unsigned long gen = ST_K_GEN(pidx_st_key_moving(ks, k));
	int ret;

	ret = ops->publish(idx, k, pidx_st_val(k, gen));
	if (!ret) {
		/* a reader that reads it finds the value stored */
		smp_store_release(&ks->st[k], ST_K(gen, ST_K_PUBLISHED));
	}
	return ret;
}

/*
 * The owner removes @k, reserved or published: ST_K_MOVING before anything
 * of the removal can be seen; with @settle, once it returned, ST_K_ABSENT
 * with a generation past @k's, so that a lookup beginning later must not
 * return the removed value.  Without @settle (another thread may reserve
 * @k as soon as the removal is done, and its store must not be
 * overwritten) the word stays ST_K_MOVING until then.  A removal refused
 * with -ENOMEM (remove_may_fail, after pidx_st_remove()'s retries) left
 * the key as it was, for readers too: the word is put back.
 */
int pidx_st_key_remove(const struct pidx_ops *ops, struct pidx_index *idx,
		       struct pidx_st_keys *ks, u32 k, bool settle)
{
	unsigned long word = pidx_st_key_moving(ks, k), gen = ST_K_GEN(word);
	int ret;

	ret = pidx_st_remove(ops, idx, k);
	if (!ret && settle) {
		/* a reader that reads it finds the removal done */
		smp_store_release(&ks->st[k], ST_K(gen + 1, ST_K_ABSENT));
	} else if (ret == -ENOMEM) {
		/* nothing changed */
		smp_store_release(&ks->st[k], word);
	}
	return ret;
}

/* The value that @k holds by its word, with no writer running. */
void *pidx_st_key_value(struct pidx_st_keys *ks, u32 k)
{
	unsigned long w = READ_ONCE(ks->st[k]);

	return ST_K_PHASE(w) == ST_K_PUBLISHED ?
	       pidx_st_val(k, ST_K_GEN(w)) : NULL;
}

/*
 * A value read under a word read before (@s0) and after (@s1) the call: it
 * must be @k's, of a generation begun by @s1's time (else it is torn or
 * junk), and not older than @s0's (else stale).
 */
static void pidx_st_seen_value(struct pidx_st_seen *s, const void *v, u32 k,
			       unsigned long s0, unsigned long s1)
{
	if (!pidx_st_val_ok(v) || pidx_st_val_pid(v) != k ||
	    pidx_st_val_gen(v) > ST_K_GEN(s1))
		s->torn++;
	else if (pidx_st_val_gen(v) < ST_K_GEN(s0))
		s->stale++;
	else if (s0 == s1 && ST_K_PHASE(s0) != ST_K_PUBLISHED &&
		 ST_K_PHASE(s0) != ST_K_MOVING)
		s->unpublished++;
}

/*
 * A lockless lookup of a tracked key @k, in the caller's RCU read section:
 * what the value says against @k's word, read before with acquire (what
 * the writer did before that store is seen by the lookup) and after
 * behind smp_rmb() (whatever of a writer's call the lookup saw, the word
 * it stored before that call is seen).
 */
void pidx_st_read_key(const struct pidx_ops *ops, struct pidx_index *idx,
		      const unsigned long *st, u32 k, struct pidx_st_seen *s)
{
	unsigned long s0, s1;
	void *v;

	/* the lookup sees what the writer did before storing the word */
	s0 = smp_load_acquire(&st[k]);
	v = ops->lookup(idx, k);
	/* whatever of a call the lookup saw, the word stored before it is seen */
	smp_rmb();
	s1 = READ_ONCE(st[k]);
	s->reads++;
	if (v)
		pidx_st_seen_value(s, v, k, s0, s1);
	else if (s0 == s1 && ST_K_PHASE(s0) == ST_K_PUBLISHED)
		s->missed++;
}

/*
 * find_ge(@k) of a tracked key, as pidx_st_read_key(): @k itself only if
 * it was not only reserved (or absent) for the whole call, and not past it
 * if it was published for the whole call.  Returns find_ge's result, for
 * the caller's checks of what lies beyond @k.
 */
int pidx_st_find_key(const struct pidx_ops *ops, struct pidx_index *idx,
		     const unsigned long *st, u32 k, struct pidx_st_seen *s)
{
	unsigned long s0, s1;
	int n;

	/* as in pidx_st_read_key() */
	s0 = smp_load_acquire(&st[k]);
	n = ops->find_ge(idx, k);
	/* as in pidx_st_read_key() */
	smp_rmb();
	s1 = READ_ONCE(st[k]);
	s->finds++;
	if (s0 == s1 && n == k && ST_K_PHASE(s0) != ST_K_PUBLISHED &&
	    ST_K_PHASE(s0) != ST_K_MOVING)
		s->find_unpublished++;
	if (s0 == s1 && n != k && ST_K_PHASE(s0) == ST_K_PUBLISHED)
		s->find_missed++;
	return n;
}

void pidx_st_seen_add(struct pidx_st_seen *sum, const struct pidx_st_seen *s)
{
	sum->reads += s->reads;
	sum->finds += s->finds;
	sum->torn += s->torn;
	sum->stale += s->stale;
	sum->missed += s->missed;
	sum->unpublished += s->unpublished;
	sum->find_unpublished += s->find_unpublished;
	sum->find_missed += s->find_missed;
}

static void pidx_st_seen_eq(struct pidx_st *st, const char *who, long got,
			    const char *what)
{
	char buf[160];

	snprintf(buf, sizeof(buf), "%s: %s", who, what);
	CHECK_EQ(st, got, 0, buf);
}

/* The checks of what readers saw of tracked keys, each named after @who. */
void pidx_st_seen_check(struct pidx_st *st, const struct pidx_st_seen *s,
			const char *who)
{
	pidx_st_seen_eq(st, who, s->torn,
			"lookups of a key that returned another number's value, a junk word or a generation not yet reserved");
	pidx_st_seen_eq(st, who, s->stale,
			"lookups of a key that returned a value older than its generation when the lookup began");
	pidx_st_seen_eq(st, who, s->missed,
			"lookups of a key published for the whole lookup that returned NULL");
	pidx_st_seen_eq(st, who, s->unpublished,
			"lookups of a key only reserved or absent for the whole lookup that returned a value");
	pidx_st_seen_eq(st, who, s->find_unpublished,
			"find_ge results that were a key only reserved or absent for the whole call");
	pidx_st_seen_eq(st, who, s->find_missed,
			"find_ge results that passed a key published for the whole call");
	CHECK_EQ(st, s->reads > 0 && s->finds > 0, true,
		 "readers of keys under their writers ran");
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

/*
 * A team on the online CPUs, waited for to its end: what a phase does that
 * has nothing to do while its threads run.  The start's error, or 0.
 */
int pidx_st_team_run(struct pidx_st_team *t, unsigned int n, void *priv,
		     size_t size, unsigned int ms)
{
	int ret = pidx_st_team_start(t, n, cpu_online_mask, priv, size, ms);

	pidx_st_team_end(t);
	return ret;
}
