// SPDX-License-Identifier: GPL-2.0
/*
 * The selftest's insert/remove race: insert() and remove() of the same keys
 * from every CPU, arbitrated in epochs so that any order of the racing calls
 * is correct and their return values show which one happened, and
 * publish() of a reservation by two callers at once.  It is the phase that
 * looks for two writers of one key meeting inside an index, while the same
 * threads read those keys between their epochs, and its epochs need a file
 * of their own to stay readable.
 */
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include "kit.h"
#include "phases.h"

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
 * A key held but not published may instead get a publish epoch: two
 * callers publish it at once with values of one generation told apart by
 * their variant (pidx_st_val_var()), as a buggy caller may race the
 * owner; exactly one must return 0, the other -EEXIST, and each must then
 * look up the value of the one that returned 0 (pidx.h: never a value
 * overwritten).  Between epochs a key is reserved or published with a
 * known value, and its word (kit.h's tracked keys) says so to
 * the readers; during an epoch it is ST_K_MOVING.  The alloc() churn
 * publishes three numbers in four it takes; the readers check stable,
 * contested and churned keys by their words.
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

/* the roles of a race epoch; a publish epoch's are its two publishers */
enum { ST_INS, ST_REM };
enum { ST_EPOCH_RACE, ST_EPOCH_PUBLISH };

struct pidx_st_rkey {
	spinlock_t lock;	/* the fields below */
	u8 present;	/* between epochs: what the index holds */
	u8 published;	/* between epochs: present with a value */
	u8 var;		/* the value's variant, when published */
	u8 kind;	/* the latest epoch's */
	u8 start;	/* present when the epoch began */
	u8 joined;	/* roles that joined the epoch */
	u8 inflight;	/* roles whose calls have not all returned */
	u16 calls[2];	/* per role: calls that returned 0 or the failure */
	u16 succ[2];	/* per role: calls that returned 0 */
	unsigned long word;	/* the key's word when the epoch began */
};

struct pidx_st_race_ctx {
	const struct pidx_ops *ops;
	struct pidx_index *idx[ST_RACE_NIDX];
	/* per index: every number's word, for the readers */
	struct pidx_st_keys ks[ST_RACE_NIDX];
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
	int bad_kind;
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
	long publishes;		/* publish epochs */
	long publish_pairs;	/* publish epochs with both publishers */
	long reads;
	long misses;
	long find_errors;
	long alloc_errors;
	long nomem;
	struct pidx_st_seen seen;
};

static void pidx_st_race_bad(struct pidx_st_race_ctx *c, u32 k,
			     struct pidx_st_rkey *rk, int role,
			     const char *why, int val)
{
	if (atomic_inc_return(&c->bad) == 1) {
		c->bad_key = k;
		c->bad_start = rk->start;
		c->bad_kind = rk->kind;
		c->bad_role = role;
		c->bad_why = why;
		c->bad_val = val;
	}
}

/*
 * A publish epoch's last call has returned; rk->lock held.  Exactly one
 * publish returned 0, and its value is the key's from now on.
 */
static void pidx_st_race_settle_publish(struct pidx_st_race_ctx *c,
					struct pidx_st_race_thread *rt,
					u32 slot, struct pidx_st_rkey *rk)
{
	struct pidx_st_keys *ks = &c->ks[slot / c->nkeys];
	u32 k = ST_RACE_LO + slot % c->nkeys;
	int won = rk->succ[0] + rk->succ[1];

	if (rk->calls[0] && rk->calls[1])
		rt->publish_pairs++;
	rt->publishes++;
	rt->epochs++;
	if (won != 1)
		pidx_st_race_bad(c, k, rk, 0,
				 "publishes of one reservation returned 0, times", won);
	if (!won) {
		/* nothing changed, as far as the returns say */
		smp_store_release(&ks->st[k], rk->word);
		return;
	}
	rk->published = 1;
	rk->var = !rk->succ[0];
	/* a reader that reads it finds the value stored */
	smp_store_release(&ks->st[k],
			  ST_K(ST_K_GEN(rk->word), ST_K_PUBLISHED));
}

/*
 * A race epoch's last call has returned; rk->lock held.  When a call
 * succeeded, the key is a new reservation or absent, with a fresh
 * generation: whatever value it had is removed.
 */
static void pidx_st_race_settle(struct pidx_st_race_ctx *c,
				struct pidx_st_race_thread *rt, u32 slot,
				struct pidx_st_rkey *rk)
{
	struct pidx_st_keys *ks = &c->ks[slot / c->nkeys];
	u32 k = ST_RACE_LO + slot % c->nkeys;
	/* the role that may only succeed, and the one that may also fail */
	int sure = rk->start ? ST_REM : ST_INS, other = !sure;
	unsigned long gen;

	if (rk->calls[ST_INS] && rk->calls[ST_REM])
		rt->pairs++;
	if (rk->succ[sure] != rk->calls[sure])
		pidx_st_race_bad(c, k, rk, sure, "calls failed",
				 rk->calls[sure] - rk->succ[sure]);
	/* the other role can only undo what a call of the sure one did */
	if (rk->succ[other] > rk->succ[sure])
		pidx_st_race_bad(c, k, rk, other,
				 "succeeded with none of the other role, times",
				 rk->succ[other]);
	if (rk->succ[sure] && !rk->succ[other])
		rk->present = !rk->start;
	rt->epochs++;
	if (!rk->succ[ST_INS] && !rk->succ[ST_REM]) {
		/* nothing changed */
		smp_store_release(&ks->st[k], rk->word);
		return;
	}
	rk->published = 0;
	gen = atomic_long_inc_return(&ks->gen);
	/* a reader that reads it finds the epoch's calls done */
	smp_store_release(&ks->st[k], ST_K(gen, rk->present ? ST_K_RESERVED :
						      ST_K_ABSENT));
}

/*
 * One publisher of a publish epoch (@role its variant): the one that opened
 * it waits a while for the second; each publishes once, and looks the key
 * up before it leaves the epoch, when nothing else may change the key.
 */
static void pidx_st_race_publish(struct pidx_st_race_ctx *c,
				 struct pidx_st_worker *w,
				 struct pidx_st_race_thread *rt, u32 slot,
				 int role, bool opener)
{
	struct pidx_index *idx = c->idx[slot / c->nkeys];
	struct pidx_st_rkey *rk = &c->keys[slot];
	u64 end = local_clock() + ST_RACE_HAMMER_NS;
	u32 k = ST_RACE_LO + slot % c->nkeys;
	/* set by the epoch's opener before this thread joined, under the lock */
	unsigned long gen = ST_K_GEN(rk->word);
	void *v;
	int ret;

	while (opener && READ_ONCE(rk->joined) != (BIT(0) | BIT(1)) &&
	       local_clock() < end)
		cpu_relax();
	ndelay(pidx_rand_below(&w->rng, ST_RACE_SKEW_NS));
	ret = c->ops->publish(idx, k, pidx_st_val_var(k, gen, role));
	rcu_read_lock();
	v = c->ops->lookup(idx, k);
	rcu_read_unlock();
	rt->ops++;
	if (ret && ret != -EEXIST)
		pidx_st_race_bad(c, k, rk, role, "returned", ret);
	else if (v != pidx_st_val_var(k, gen, ret ? !role : role))
		pidx_st_race_bad(c, k, rk, role,
				 "then looked up not the value of the publish that returned 0, after returning",
				 ret);
	spin_lock(&rk->lock);
	rk->calls[role] = 1;
	rk->succ[role] = !ret;
	WRITE_ONCE(rk->inflight, rk->inflight & ~BIT(role));
	if (!rk->inflight)
		pidx_st_race_settle_publish(c, rt, slot, rk);
	spin_unlock(&rk->lock);
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
			pidx_st_race_bad(c, k, rk, role, "returned", ret);
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
		pidx_st_race_settle(c, rt, slot, rk);
	spin_unlock(&rk->lock);
}

/*
 * Joins the latest epoch or the epoch of a random key, opening it if there
 * is none, and returns its slot in keys[], the role taken and whether this
 * thread opened the epoch; -1 when the epoch has both roles.  A key held
 * and not published gets a publish epoch half the time.
 */
static int pidx_st_race_join(struct pidx_st_race_ctx *c,
			     struct pidx_st_worker *w, int *role, bool *hammer,
			     bool *opener)
{
	u32 roll = pidx_rand_below(&w->rng, 16), slot;
	bool publish = pidx_rand_below(&w->rng, 2);
	struct pidx_st_rkey *rk;

	/* mostly the latest epoch: a partner for its calls in flight */
	slot = roll < 12 ? READ_ONCE(c->hot) :
	       pidx_rand_below(&w->rng, ST_RACE_NIDX * c->nkeys);
	rk = &c->keys[slot];
	*hammer = false;
	*opener = false;
	spin_lock(&rk->lock);
	if (!rk->inflight) {
		rk->kind = rk->present && !rk->published && publish ?
			   ST_EPOCH_PUBLISH : ST_EPOCH_RACE;
		rk->start = rk->present;
		rk->joined = 0;
		rk->calls[ST_INS] = 0;
		rk->calls[ST_REM] = 0;
		rk->succ[ST_INS] = 0;
		rk->succ[ST_REM] = 0;
		/* before any call of the epoch: it joins only after this */
		rk->word = pidx_st_key_moving(&c->ks[slot / c->nkeys],
					      ST_RACE_LO + slot % c->nkeys);
		/* mostly a hammer of the call that must wait for the other */
		*role = rk->present ? ST_INS : ST_REM;
		if (rk->kind == ST_EPOCH_PUBLISH)
			*role = 0;
		else if (roll & 3)
			*hammer = true;
		else if (roll & 4)
			*role = !*role;
		*opener = true;
		WRITE_ONCE(c->hot, slot);
	} else if (rk->joined != (BIT(ST_INS) | BIT(ST_REM))) {
		*role = rk->joined & BIT(ST_INS) ? ST_REM : ST_INS;
	} else {
		spin_unlock(&rk->lock);
		return -1;
	}
	/* marked: a publish epoch's opener reads it unlocked */
	WRITE_ONCE(rk->joined, rk->joined | BIT(*role));
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
		/* not settled: another thread may take the number at once */
		j = bit / ST_RACE_PID_MAX;
		if (pidx_st_key_remove(c->ops, c->idx[j], &c->ks[j],
				       bit % ST_RACE_PID_MAX, false))
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
	pidx_st_key_reserved(&c->ks[j], pid);
	if (pidx_rand_below(&w->rng, 4) &&
	    pidx_st_key_publish(c->ops, c->idx[j], &c->ks[j], pid))
		rt->alloc_errors++;
	rt->fifo[(rt->head + rt->len++) % ST_RACE_DEPTH] = bit;
}

/*
 * A stable key must return its value and find_ge() just below it find it
 * or the number below (a churned or contested one); find_ge() of a
 * contested key stops at the stable key after them at the latest.  The
 * contested key and a number of the churn are read by their words too.
 */
static void pidx_st_race_read(struct pidx_st_race_ctx *c,
			      struct pidx_st_worker *w,
			      struct pidx_st_race_thread *rt)
{
	u32 j = pidx_rand_below(&w->rng, ST_RACE_NIDX);
	u32 s = c->stable[pidx_rand_below(&w->rng, c->nstable)];
	u32 k = ST_RACE_LO + pidx_rand_below(&w->rng, c->nkeys);
	u32 u = 1 + pidx_rand_below(&w->rng, ST_RACE_LO - 1);
	const unsigned long *st = c->ks[j].st;
	struct pidx_index *idx = c->idx[j];
	void *v;
	int n, m;

	rcu_read_lock();
	v = c->ops->lookup(idx, s);
	n = c->ops->find_ge(idx, s - 1);
	/* a stable key follows the contested ones */
	m = pidx_st_find_key(c->ops, idx, st, k, &rt->seen);
	pidx_st_read_key(c->ops, idx, st, k, &rt->seen);
	pidx_st_read_key(c->ops, idx, st, u, &rt->seen);
	pidx_st_find_key(c->ops, idx, st, u, &rt->seen);
	rcu_read_unlock();
	if (v != pidx_st_val(s, 0))
		rt->misses++;
	if ((n != s && n != s - 1) || m < (int)k || m > ST_RACE_LO + c->nkeys)
		rt->find_errors++;
	rt->reads++;
}

static void pidx_st_race_fn(struct pidx_st_worker *w)
{
	struct pidx_st_race_ctx *c = w->team->ctx;
	struct pidx_st_race_thread *rt = w->priv;
	bool hammer, opener;
	int slot, role;
	u32 roll;

	while (pidx_st_going(w)) {
		slot = pidx_st_race_join(c, w, &role, &hammer, &opener);
		/* the epoch's kind was set before this thread joined it */
		if (slot >= 0 && c->keys[slot].kind == ST_EPOCH_PUBLISH)
			pidx_st_race_publish(c, w, rt, slot, role, opener);
		else if (slot >= 0)
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
	long publishes;
	long publish_pairs;
	long reads;
	long misses;
	long find_errors;
	long alloc_errors;
	long nomem;
	long bad;
	struct pidx_st_seen seen;
	unsigned int rounds;
};

static void pidx_st_race_stable(struct pidx_st_race_ctx *c, u32 k)
{
	c->stable[c->nstable++] = k;
	__set_bit(k, c->stable_map);
}

/* What a round's index @j holds: stable keys, churned and contested ones. */
static void pidx_st_race_oracle(struct pidx_st_race_ctx *c, u32 j,
				struct pidx_oracle *o)
{
	struct pidx_st_rkey *rk;
	unsigned long word;
	u32 i;

	pidx_oracle_clear(o);
	for (i = 0; i < c->nstable; i++)
		pidx_oracle_set(o, c->stable[i], pidx_st_val(c->stable[i], 0));
	for (i = 0; i < ST_RACE_LO; i++)
		if (test_bit(j * ST_RACE_PID_MAX + i, c->held))
			pidx_oracle_set(o, i, pidx_st_key_value(&c->ks[j], i));
	for (i = 0; i < c->nkeys; i++) {
		rk = &c->keys[j * c->nkeys + i];
		word = c->ks[j].st[ST_RACE_LO + i];
		if (rk->present)
			pidx_oracle_set(o, ST_RACE_LO + i, rk->published ?
					pidx_st_val_var(ST_RACE_LO + i, ST_K_GEN(word),
							rk->var) : NULL);
	}
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
		if (pidx_st_keys_init(&c.ks[j], ST_RACE_PID_MAX))
			goto out;
		c.idx[j] = pidx_st_create_p(st, ST_RACE_PID_MAX, tall,
					    sum->rounds * ST_RACE_NIDX + j);
		if (!c.idx[j])
			goto out;
		for (i = 0, ret = 0; i < c.nstable; i++) {
			ret += !!pidx_st_insert(st->ops, c.idx[j], c.stable[i]);
			ret += !!st->ops->publish(c.idx[j], c.stable[i],
						  pidx_st_val(c.stable[i], 0));
			pidx_st_key_stable(&c.ks[j], c.stable[i]);
		}
		CHECK_EQ(st, ret, 0, "inserts and publishes of stable keys that failed");
	}

	t.ctx = &c;
	ret = pidx_st_team_run(&t, n, rt, sizeof(*rt), ST_RACE_ROUND_MS);
	if (!CHECK_EQ(st, ret, 0, "starting the race threads"))
		goto out;

	for (i = 0; i < n; i++) {
		sum->ops += rt[i].ops;
		sum->epochs += rt[i].epochs;
		sum->pairs += rt[i].pairs;
		sum->publishes += rt[i].publishes;
		sum->publish_pairs += rt[i].publish_pairs;
		sum->reads += rt[i].reads;
		sum->misses += rt[i].misses;
		sum->find_errors += rt[i].find_errors;
		sum->alloc_errors += rt[i].alloc_errors;
		sum->nomem += rt[i].nomem;
		pidx_st_seen_add(&sum->seen, &rt[i].seen);
	}
	if (atomic_read(&c.bad) && !sum->bad)
		pidx_log_printf(st->log,
				"    race round %u (%u keys): %s of %u, %s at the start: %s %d\n",
				sum->rounds, nkeys,
				c.bad_kind == ST_EPOCH_PUBLISH ? "publishes" :
				c.bad_role == ST_INS ? "inserts" : "removes",
				c.bad_key, c.bad_start ? "present" : "absent",
				c.bad_why, c.bad_val);
	sum->bad += atomic_read(&c.bad);

	for (j = 0; j < ST_RACE_NIDX; j++) {
		pidx_st_race_oracle(&c, j, &o);
		pidx_st_compare(st, c.idx[j], &o, "insert/publish/remove race");
	}
out:
	for (j = 0; j < ST_RACE_NIDX; j++) {
		if (c.idx[j])
			st->ops->destroy(c.idx[j]);
		pidx_st_keys_free(&c.ks[j]);
	}
	bitmap_free(c.held);
	bitmap_free(c.stable_map);
	kfree(c.keys);
	kfree(rt);
	pidx_oracle_free(&o);
	sum->rounds++;
}

void pidx_st_race(struct pidx_st *st)
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
		 "insert/remove/publish returns (and lookups after racing publishes) that no order of the racing calls gives");
	CHECK_EQ(st, sum.misses, 0,
		 "lookups of a stable key during the race that did not return its value");
	CHECK_EQ(st, sum.find_errors, 0,
		 "find_ge results that skipped a stable key during the race");
	pidx_st_seen_check(st, &sum.seen, "race readers of keys under their writers");
	CHECK_EQ(st, sum.publishes > 0, true, "publish epochs ran during the race");
	CHECK_EQ(st, sum.alloc_errors, 0,
		 "allocs during the race off their range, twice, or not removable");
	CHECK_EQ(st, sum.ops > 0 && sum.reads > 0, true, "race threads ran");
	/* one CPU interleaves writers only where one sleeps in an allocation */
	if (num_online_cpus() > 1)
		CHECK_EQ(st, sum.pairs > 0, true,
			 "epochs where an insert and a remove of one key overlapped");
	pidx_log_printf(st->log,
			"  insert/remove race: %u rounds of %u indexes, %u threads, %ld calls, %ld of %ld epochs raced one key both ways, %ld of %ld publish epochs had two publishers, %ld reads, %ld -ENOMEM, %u ms\n",
			sum.rounds, ST_RACE_NIDX, pidx_st_nthreads(1), sum.ops,
			sum.pairs, sum.epochs, sum.publish_pairs, sum.publishes,
			sum.reads, sum.nomem, pidx_st_ms(t0));
}
