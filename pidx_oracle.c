// SPDX-License-Identifier: GPL-2.0
/*
 * pidx storms, the oracle: after a storm, each level of the index must
 * hold exactly the PIDs the storm holds (the stable prefilled ones, every
 * CPU's ring, replay map and stranded reservations), each with its own
 * object, by iteration and by lookup; verify() first.  For the module and,
 * unchanged, for user/pidx-user (see pidx_storm.h).
 */
#include <linux/bitmap.h>
#include <linux/kernel.h>
/* kvmalloc_array(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "pidx_storm.h"

struct pidx_oracle {
	struct pidx_result *res;
	unsigned long *expect;
	u32 nexpect;
	/*
	 * where set: a second pass over the held objects puts each at the
	 * rank of its number among expect's bits, counted from rank_base[]
	 * per word, for the lookups in ascending order
	 */
	struct pidx_pid **byrank;
	u32 *rank_base;
	unsigned int level;	/* the level checked */
	const char *at;		/* where more than one: " at level N" */
};

/*
 * An object the storm holds: its number of @o's level, marked held once
 * in the oracle; 0 where there is none to check (or it was handed out
 * twice, and the row failed), or where @o is NULL and the object freed.
 */
static u32 pidx_held_once(struct pidx_storm *s, struct pidx_pid *pid,
			  struct pidx_oracle *o)
{
	u32 key;

	/* the storm's end: the index is gone, and with it every reader */
	if (!o) {
		pidx_pid_free_now(pid);
		return 0;
	}
	key = pid->numbers[o->level].nr;
	/* a level an exit, or a refused unwind, removed already */
	if (!key)
		return 0;
	if (key >= s->cfg->pid_max || __test_and_set_bit(key, o->expect)) {
		pidx_fail(o->res, "PID %u handed out twice%s", key, o->at);
		return 0;
	}
	return key;
}

/* Each held object's number is expected once; the second pass ranks it. */
static void pidx_held(struct pidx_storm *s, struct pidx_pid *pid,
		      struct pidx_oracle *o)
{
	unsigned int word;
	u32 key;

	if (!o || !o->byrank) {
		if (pidx_held_once(s, pid, o))
			o->nexpect++;
		return;
	}
	key = pid->numbers[o->level].nr;
	/*
	 * 0: a level already removed; beyond pid_max: failed already; a bit
	 * the first pass did not set would put @pid in another's slot
	 */
	if (!key || key >= s->cfg->pid_max || WARN_ON_ONCE(!test_bit(key, o->expect)))
		return;
	word = key / BITS_PER_LONG;
	o->byrank[o->rank_base[word] +
		  hweight_long(o->expect[word] & (BIT(key % BITS_PER_LONG) - 1))] = pid;
}

/*
 * A stranded reservation (pidx_workload.h) of @o's level: a number held
 * once, as every number, and still held, but never published, so no
 * lookup finds it and the walk skips it.
 */
static void pidx_stranded_held(struct pidx_storm *s, struct pidx_pid *pid,
			       struct pidx_oracle *o)
{
	u32 key = pidx_held_once(s, pid, o);
	struct pidx_index *idx;
	void *v;
	int ret;

	if (!key)
		return;
	idx = s->lvl[o->level];
	rcu_read_lock();
	v = s->ops->lookup(idx, key);
	rcu_read_unlock();
	if (v) {
		pidx_fail(o->res, "PID %u only reserved by a failed fork but lookup finds it%s",
			  key, o->at);
		return;
	}
	/*
	 * A removal that said -ENOMEM must have left the number held: no
	 * writer runs now, and insert() refuses a held number (-ENOMEM
	 * tells nothing)
	 */
	ret = s->ops->insert(idx, key, GFP_KERNEL);
	if (ret == -EEXIST || ret == -ENOMEM)
		return;
	pidx_fail(o->res, "PID %u of a refused unwind is no longer held (insert: %d)%s",
		  key, ret, o->at);
	if (!ret)
		s->ops->remove(idx, key);
}

/*
 * The objects the storm holds at its end, each once: the prefill's stable
 * ones, then each CPU's ring, replay map and stranded reservations; before
 * the deal, the prefill's objects made so far: each checked against the
 * oracle @o (or, in its second pass, ranked), or freed where @o is NULL.
 */
void pidx_all_held(struct pidx_storm *s, struct pidx_oracle *o)
{
	struct pidx_pid *pid, *next;
	u32 i, n;

	if (!s->dealt) {
		for (i = 0; i < s->nobjs; i++)
			pidx_held(s, s->objs[i], o);
		return;
	}
	for (i = 0; i < s->stable; i++) {
		pidx_held(s, s->objs[pidx_shape_index_of(s, i)], o);
		/* millions of objects under KASAN: seconds */
		if (!(i & 0xfff))
			cond_resched();
	}
	for (i = 0; i < s->nworkers; i++) {
		struct pidx_worker *w = &s->workers[i];

		for (n = 0; n < w->ring_len; n++)
			pidx_held(s, w->ring[(w->ring_head + n) % w->ring_cap], o);
		/* replay: the incarnations live at the end */
		for (n = 0; w->rmap && n < s->cfg->replay->cpu[i].ninc; n++)
			if (w->rmap[n])
				pidx_held(s, w->rmap[n], o);
		/*
		 * the stranded are checked apart from the lookups, so the
		 * second pass leaves them out; the free may be of the object
		 * that holds the link, which is read first
		 */
		if (!o || !o->byrank) {
			for (pid = w->stranded; pid; pid = next) {
				next = pid->stranded_next;
				pidx_stranded_held(s, pid, o);
			}
		}
		cond_resched();
	}
}

/*
 * Every number the storm holds published looks up to its own object.  The
 * lookups go in ascending order, not in the order the objects are held
 * (the shape's permutation): at 1M keys a skip list's lookups in that
 * order missed the cache on most levels, and the untimed check took
 * several times the storm's own wall time.
 */
static void pidx_lookup_held(struct pidx_storm *s, struct pidx_oracle *o)
{
	struct pidx_index *idx = s->lvl[o->level];
	u32 pid_max = s->cfg->pid_max;
	u32 words = BITS_TO_LONGS(pid_max);
	u32 nbits = bitmap_weight(o->expect, pid_max);
	struct pidx_pid *want;
	unsigned long key;
	u32 i, r = 0;
	void *v;

	if (!nbits)
		return;
	o->rank_base = kvmalloc_array(words, sizeof(*o->rank_base), GFP_KERNEL);
	o->byrank = kvcalloc(nbits, sizeof(*o->byrank), GFP_KERNEL);
	if (!o->rank_base || !o->byrank) {
		pidx_fail(o->res, "no memory for the oracle");
		goto out;
	}
	for (i = 0; i < words; i++) {
		o->rank_base[i] = r;
		r += hweight_long(o->expect[i]);
	}
	pidx_all_held(s, o);
	r = 0;
	for_each_set_bit(key, o->expect, pid_max) {
		want = o->byrank[r++];
		/* a stranded reservation's: pidx_stranded_held() checked it */
		if (!want)
			continue;
		rcu_read_lock();
		v = s->ops->lookup(idx, key);
		rcu_read_unlock();
		if (!v)
			pidx_fail(o->res, "PID %lu expected but lookup misses it%s", key, o->at);
		else if (v != want)
			pidx_fail(o->res, "PID %lu: lookup returned another object%s", key,
				  o->at);
		if (!(r & 0xfff))
			cond_resched();
	}
out:
	kvfree(o->byrank);
	kvfree(o->rank_base);
	o->byrank = NULL;
	o->rank_base = NULL;
}

/*
 * The oracle of one level: the prefilled keys that nobody owned, plus
 * whatever each CPU still owns, must be exactly what the level's instance
 * holds, each with its own object; both by iteration and by lookup.
 */
static u32 pidx_check_level(struct pidx_storm *s, struct pidx_result *res,
			    unsigned int level)
{
	struct pidx_index *idx = s->lvl[level];
	struct pidx_oracle o = { .res = res, .level = level };
	u32 pid_max = s->cfg->pid_max;
	char at[16] = "";
	u32 seen = 0;
	int pid, prev = -1;

	if (s->nlevels > 1)
		snprintf(at, sizeof(at), " at level %u", level);
	o.at = at;
	o.expect = bitmap_zalloc(pid_max, GFP_KERNEL);
	if (!o.expect) {
		pidx_fail(res, "no memory for the oracle");
		return 0;
	}
	pidx_all_held(s, &o);
	pidx_lookup_held(s, &o);

	rcu_read_lock();
	for (pid = s->ops->find_ge(idx, 0); pid >= 0;
	     pid = s->ops->find_ge(idx, pid + 1)) {
		if (pid <= prev) {
			pidx_fail(res, "find_ge returned %d after %d%s", pid, prev, at);
			break;
		}
		if (pid >= pid_max || !test_bit(pid, o.expect))
			pidx_fail(res, "PID %d present but should not be%s", pid, at);
		prev = pid;
		seen++;
		if (!(seen & 0xfff)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
	}
	rcu_read_unlock();
	if (seen != o.nexpect)
		pidx_fail(res, "find_ge walk saw %u PIDs, expected %u%s", seen,
			  o.nexpect, at);
	bitmap_free(o.expect);
	return seen;
}

/*
 * Every level checked, verify() then the oracle: returns the PIDs the
 * level lookups read holds.
 */
u32 pidx_check_contents(struct pidx_storm *s, struct pidx_result *res,
			const char *log)
{
	unsigned int level, bad;
	u32 present = 0;

	for (level = 0; level < s->nlevels; level++) {
		bad = s->ops->verify(s->lvl[level]);
		if (bad && s->nlevels > 1)
			pidx_fail(res, "verify found %u violations at level %u (see %s)",
				  bad, level, log);
		else if (bad)
			pidx_fail(res, "verify found %u violations (see %s)", bad, log);
		present = pidx_check_level(s, res, level);
	}
	return present;
}
