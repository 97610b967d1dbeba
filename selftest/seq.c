// SPDX-License-Identifier: GPL-2.0
/*
 * The selftest's sequential phases: one thread calls the index and checks
 * every return value and every value looked up against the oracle
 * (kit.c), through the contract's corners, the two phases of the map
 * (reserve, then publish), set_cursor(), long random sequences and runs
 * under failing allocations.  A wrong result here points at one call, so
 * these pin the contract down before the concurrent phases hunt races in
 * it; "racetest" leaves them out.
 */
#include <linux/bitmap.h>
/* kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include "pidx_hooks.h"
#include "kit.h"
#include "phases.h"

void pidx_st_basic(struct pidx_st *st)
{
	const u32 pid_max = 1024;
	const u32 freed[] = { 5, 299, 300, 500, 1023 };
	/* what alloc_pid() hands out after those, the floor being 300 */
	const int wrapped[] = { 300, 500, 1023 };
	struct pidx_oracle o;
	struct pidx_index *idx;
	size_t empty_bytes;
	unsigned int i;
	int got;
	u32 n;

	if (pidx_oracle_init(&o, pid_max))
		return;
	idx = pidx_st_create(st, pid_max);
	if (!idx)
		goto out;
	empty_bytes = st->ops->mem_bytes(idx);

	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), -ENOENT, "find_ge on empty");
	CHECK_EQ(st, pidx_st_lookup(st, idx, 1), NULL, "lookup on empty");
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
	/* cyclic: 300, 500, 1023; from ranges those three in any order */
	for (i = 0; i < ARRAY_SIZE(wrapped); i++) {
		got = st->ops->alloc(idx, GFP_KERNEL);
		CHECK_EQ(st, got, pidx_oracle_want(&o, got, st->ops->alloc_ranges),
			 i ? "alloc after wrap" : "alloc wraps to the reserved floor");
		if (!st->ops->alloc_ranges)
			CHECK_EQ(st, got, wrapped[i], "alloc after wrap, as written out");
	}
	CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), -ENOSPC,
		 "alloc never goes below the reserved floor after a wrap");

	CHECK_EQ(st, st->ops->insert(idx, 500, GFP_KERNEL), -EEXIST, "insert of a present PID");
	CHECK_EQ(st, st->ops->insert(idx, 5, GFP_KERNEL), 0, "insert below the floor");
	pidx_oracle_insert(&o, 5);
	CHECK_EQ(st, st->ops->remove(idx, 5), 0, "remove");
	CHECK_EQ(st, st->ops->remove(idx, 5), -ENOENT, "second remove");
	pidx_oracle_remove(&o, 5);
	pidx_st_compare(st, idx, &o, "insert/remove");

	/* full drain, of reservations and published numbers alike */
	for (n = 1; n < pid_max; n++)
		if (test_bit(n, o.bits))
			CHECK_EQ(st, st->ops->remove(idx, n), 0, "remove during drain");
	pidx_oracle_clear(&o);
	pidx_st_compare(st, idx, &o, "drain");
	CHECK_EQ(st, st->ops->mem_bytes(idx) <= empty_bytes, true,
		 "memory back to the empty size after drain");
	st->ops->destroy(idx);
out:
	pidx_oracle_free(&o);
}

/* The number the oracle's next alloc() takes, taking nothing. */
static int pidx_st_peek_alloc(struct pidx_oracle *o)
{
	u32 cursor = o->cursor;
	int n = pidx_oracle_alloc(o);

	if (n >= 0)
		pidx_oracle_remove(o, n);
	o->cursor = cursor;
	return n;
}

/* The first number held at or after @pid, reserved or published; else @pid. */
static u32 pidx_st_next_held(struct pidx_oracle *o, u32 pid)
{
	u32 n = pid < o->pid_max ? find_next_bit(o->bits, o->pid_max, pid) :
		o->pid_max;

	return n < o->pid_max ? n : pid;
}

/*
 * publish() of a number nobody holds is refused with -ENOENT and changes
 * nothing: the number stays absent to lookup() and find_ge().
 */
static void pidx_st_publish_absent(struct pidx_st *st, struct pidx_index *idx,
				   struct pidx_oracle *o, u32 pid)
{
	CHECK_EQ(st, st->ops->publish(idx, pid, pidx_oracle_val(o, pid)), -ENOENT,
		 "publish of an absent number");
	CHECK_EQ(st, pidx_st_lookup(st, idx, pid), NULL,
		 "lookup after publish of an absent number");
	CHECK_EQ(st, pidx_st_find_ge(st, idx, pid), pidx_oracle_find_ge(o, pid),
		 "find_ge after publish of an absent number");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify after publish of an absent number");
}

/*
 * What a long sequence of calls starts from: the oracle, an index of
 * @pid_max and, where the index has alloc_publish(), @nobj objects for it
 * to publish (*@obj, else NULL).  NULL, with nothing held, if one of them
 * could not be had; else pidx_st_seq_end() frees them.
 */
static struct pidx_index *pidx_st_seq_begin(struct pidx_st *st,
					    struct pidx_oracle *o,
					    struct pidx_st_obj **obj,
					    u32 pid_max, u32 nobj)
{
	struct pidx_index *idx;

	*obj = NULL;
	if (pidx_oracle_init(o, pid_max))
		return NULL;
	if (st->ops->alloc_publish) {
		*obj = kvcalloc(nobj, sizeof(**obj), GFP_KERNEL);
		if (!*obj)
			goto out;
	}
	idx = pidx_st_create(st, pid_max);
	if (idx)
		return idx;
out:
	kvfree(*obj);
	pidx_oracle_free(o);
	return NULL;
}

static void pidx_st_seq_end(struct pidx_st *st, struct pidx_index *idx,
			    struct pidx_oracle *o, struct pidx_st_obj *obj)
{
	st->ops->destroy(idx);
	kvfree(obj);
	pidx_oracle_free(o);
}

/*
 * The two phases of the map (pidx.h): a reservation is held but invisible
 * to lookup() and find_ge(), publish() makes its value visible, the
 * publishes the contract refuses change nothing, and a number removed and
 * reserved again is NULL until its new value is published.  Numbers in one
 * node and across node and word boundaries, reserved by alloc() and by
 * insert(); then a whole space of reservations, which must count as taken.
 */
void pidx_st_map(struct pidx_st *st)
{
	const u32 pid_max = 1024;
	const u32 keys[] = { 100, 101, 63, 64, 511, 512, 1023 };
	const bool ranges = st->ops->alloc_ranges;
	u32 i, k, n, wrong, free_k;
	struct pidx_oracle o;
	struct pidx_index *idx;
	const char *what;
	int a, got, want, x;
	void *v;

	if (pidx_oracle_init(&o, pid_max))
		return;
	idx = pidx_st_create(st, pid_max);
	if (!idx)
		goto out;

	/* a reservation is held, but nothing of it is seen */
	a = st->ops->alloc(idx, GFP_KERNEL);
	if (!CHECK_EQ(st, a, pidx_oracle_want(&o, a, ranges), "alloc into an empty index") ||
	    a < 0)
		goto destroy;
	CHECK_EQ(st, pidx_st_lookup(st, idx, a), NULL,
		 "lookup of a number only reserved by alloc");
	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), -ENOENT,
		 "find_ge past a number only reserved by alloc");
	CHECK_EQ(st, st->ops->insert(idx, a, GFP_KERNEL), -EEXIST,
		 "insert of a number only reserved by alloc");
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		CHECK_EQ(st, st->ops->insert(idx, keys[i], GFP_KERNEL),
			 pidx_oracle_insert(&o, keys[i]), "insert into an empty index");
		CHECK_EQ(st, pidx_st_lookup(st, idx, keys[i]), NULL,
			 "lookup of a number only reserved by insert");
		CHECK_EQ(st, st->ops->insert(idx, keys[i], GFP_KERNEL), -EEXIST,
			 "insert of a number only reserved by insert");
	}
	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), -ENOENT,
		 "find_ge past numbers only reserved by insert");
	got = st->ops->alloc(idx, GFP_KERNEL);
	CHECK_EQ(st, got, pidx_oracle_want(&o, got, ranges),
		 "alloc after reservations: never a reserved number");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify with reservations only");

	/* publish, then lookup returns exactly that value */
	v = pidx_oracle_val(&o, a);
	pidx_oracle_publish(&o, a, v);
	CHECK_EQ(st, st->ops->publish(idx, a, v), 0, "publish of a number reserved by alloc");
	CHECK_EQ(st, pidx_st_lookup(st, idx, a), v, "lookup after publish: the value published");
	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), a, "find_ge after publish: the published number");
	for (i = 0; i < ARRAY_SIZE(keys); i += 2) {
		CHECK_EQ(st, pidx_st_publish(st, idx, &o, keys[i], &want), want,
			 "publish of a number reserved by insert");
		CHECK_EQ(st, pidx_st_lookup(st, idx, keys[i]), pidx_oracle_lookup(&o, keys[i]),
			 "lookup after publish: the value published");
	}
	for (i = 0, wrong = 0; i < ARRAY_SIZE(keys); i++)
		wrong += pidx_st_find_ge(st, idx, keys[i]) !=
			 pidx_oracle_find_ge(&o, keys[i]);
	CHECK_EQ(st, wrong, 0,
		 "find_ge among published and reserved numbers disagreeing with the oracle");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify with published and reserved numbers");

	/* the publishes the contract refuses change nothing */
	v = pidx_oracle_lookup(&o, a);
	CHECK_EQ(st, st->ops->publish(idx, a, pidx_st_val_var(a, o.gen, 1)), -EEXIST,
		 "second publish of a number");
	CHECK_EQ(st, pidx_st_lookup(st, idx, a), v,
		 "lookup after a second publish: still the first value");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify after a second publish");
	x = pidx_st_peek_alloc(&o);
	if (x >= 0 && !ranges) {
		pidx_st_publish_absent(st, idx, &o, x);
		got = st->ops->alloc(idx, GFP_KERNEL);
		CHECK_EQ(st, got, pidx_oracle_want(&o, got, ranges),
			 "alloc of the number a refused publish left absent");
	}
	/* from per-CPU ranges, alloc may have handed out anything */
	free_k = find_next_zero_bit(o.bits, pid_max, 700);
	pidx_st_publish_absent(st, idx, &o, free_k);
	CHECK_EQ(st, st->ops->insert(idx, free_k, GFP_KERNEL), pidx_oracle_insert(&o, free_k),
		 "insert of the number a refused publish left absent");
	CHECK_EQ(st, st->ops->publish(idx, 0, pidx_oracle_val(&o, 0)), -ENOENT,
		 "publish of 0");
	CHECK_EQ(st, st->ops->publish(idx, pid_max, pidx_oracle_val(&o, pid_max)),
		 -ENOENT, "publish of pid_max");
	pidx_st_compare(st, idx, &o, "refused publishes");

	/*
	 * Removal of a reservation and of a published number, then a new
	 * incarnation: NULL until published again, then the new value.
	 */
	for (i = 0; i <= ARRAY_SIZE(keys); i++) {
		k = i < ARRAY_SIZE(keys) ? keys[i] : a;
		what = test_bit(k, o.pub) ? "remove of a published number" :
					    "remove of a reserved number";
		CHECK_EQ(st, st->ops->remove(idx, k), pidx_oracle_remove(&o, k), what);
		CHECK_EQ(st, pidx_st_lookup(st, idx, k), NULL, "lookup after remove");
		CHECK_EQ(st, pidx_st_find_ge(st, idx, k), pidx_oracle_find_ge(&o, k),
			 "find_ge after remove");
		CHECK_EQ(st, st->ops->publish(idx, k, pidx_oracle_val(&o, k)), -ENOENT,
			 "publish after remove");
		CHECK_EQ(st, st->ops->insert(idx, k, GFP_KERNEL), pidx_oracle_insert(&o, k),
			 "insert of a removed number");
		CHECK_EQ(st, pidx_st_lookup(st, idx, k), NULL,
			 "lookup of a number reserved again: NULL, not its old value");
		CHECK_EQ(st, pidx_st_find_ge(st, idx, k), pidx_oracle_find_ge(&o, k),
			 "find_ge past a number reserved again");
		CHECK_EQ(st, pidx_st_publish(st, idx, &o, k, &want), want,
			 "publish of a number reserved again");
		CHECK_EQ(st, pidx_st_lookup(st, idx, k), pidx_oracle_lookup(&o, k),
			 "lookup of a number published again: the new value");
	}
	pidx_st_compare(st, idx, &o, "removals and new incarnations");

	st->ops->destroy(idx);

	/* a space of reservations only: all of it taken, none of it seen */
	pidx_oracle_clear(&o);
	o.cursor = 0;
	idx = pidx_st_create(st, pid_max);
	if (!idx)
		goto out;
	n = 0;
	wrong = 0;
	do {
		got = st->ops->alloc(idx, GFP_KERNEL);
		want = pidx_oracle_want(&o, got, ranges);
		wrong += got != want;
		n += got >= 0;
	} while (got >= 0 && want >= 0 && n <= pid_max);
	CHECK_EQ(st, wrong, 0, "allocs of reservations only differing from the oracle");
	CHECK_EQ(st, n, pid_max - 1, "numbers reserved before -ENOSPC, none published");
	CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), -ENOSPC,
		 "alloc when every number is only reserved");
	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), -ENOENT, "find_ge over reservations only");
	pidx_st_compare(st, idx, &o, "reservations only");
	for (k = 1, wrong = 0; k < pid_max; k++)
		wrong += pidx_st_publish(st, idx, &o, k, &want) != want;
	CHECK_EQ(st, wrong, 0, "publishes of a whole space of reservations that failed");
	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), 1, "find_ge once all is published");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify once all is published");
destroy:
	st->ops->destroy(idx);
out:
	pidx_oracle_free(&o);
}

/*
 * alloc_publish(), where the index has it (the one-lock IDR's alloc_pid()):
 * the number alloc() would hand out, from the cursor alloc() moves, written
 * to *nr, and the value seen at once; -ENOSPC as alloc(), with nothing held
 * after it, below the floor after a wrap too.
 */
void pidx_st_alloc_publish(struct pidx_st *st)
{
	const u32 pid_max = 1024, nobj = pid_max + 8;
	const u32 freed[] = { 5, 299, 300, 500 };
	const bool ranges = st->ops->alloc_ranges;
	u32 i, used = 0, wrong = 0, wrong_nr = 0, wrong_val = 0;
	struct pidx_st_obj *obj;
	struct pidx_oracle o;
	struct pidx_index *idx;
	int got, want;

	if (!st->ops->alloc_publish)
		return;
	idx = pidx_st_seq_begin(st, &o, &obj, pid_max, nobj);
	if (!idx)
		return;

	/* a reservation first: alloc_publish() goes on from its cursor */
	got = st->ops->alloc(idx, GFP_KERNEL);
	CHECK_EQ(st, got, pidx_oracle_want(&o, got, ranges), "alloc before alloc_publish");
	do {
		obj[used].nr = U32_MAX;
		got = st->ops->alloc_publish(idx, &obj[used], &obj[used].nr,
					     GFP_KERNEL);
		want = pidx_oracle_want(&o, got, ranges);
		if (got != want && !wrong++)
			CHECK_EQ(st, got, want, "alloc_publish during fill");
		if (got >= 0 && got == want) {
			pidx_oracle_publish(&o, got, &obj[used]);
			wrong_nr += obj[used].nr != got;
			wrong_val += pidx_st_lookup(st, idx, got) != &obj[used];
			used++;
		}
	} while (got >= 0 && want >= 0 && used < nobj - 4);
	CHECK_EQ(st, wrong, 0, "alloc_publish numbers differing from the oracle");
	CHECK_EQ(st, wrong_nr, 0, "alloc_publish numbers not written to *nr");
	CHECK_EQ(st, wrong_val, 0, "lookups right after alloc_publish not returning its value");
	CHECK_EQ(st, got, -ENOSPC, "alloc_publish when full");
	CHECK_EQ(st, used, pid_max - 2, "numbers alloc_publish handed out before -ENOSPC");
	CHECK_EQ(st, st->ops->publish(idx, pid_max - 1, pidx_st_val(pid_max - 1, 1)),
		 -EEXIST, "publish of a number alloc_publish published");
	pidx_st_compare(st, idx, &o, "alloc_publish fill");

	/* the cursor is past RESERVED_PIDS: 5 and 299 must not come back */
	for (i = 0; i < ARRAY_SIZE(freed); i++) {
		CHECK_EQ(st, st->ops->remove(idx, freed[i]), 0, "remove");
		pidx_oracle_remove(&o, freed[i]);
	}
	for (i = 0; i < 2; i++) {
		got = st->ops->alloc_publish(idx, &obj[used], &obj[used].nr,
					     GFP_KERNEL);
		want = pidx_oracle_want(&o, got, ranges);
		CHECK_EQ(st, got, want, "alloc_publish after a wrap");
		if (got < 0 || got != want)
			break;
		pidx_oracle_publish(&o, got, &obj[used]);
		CHECK_EQ(st, obj[used].nr, got, "alloc_publish after a wrap: *nr");
		CHECK_EQ(st, pidx_st_lookup(st, idx, got), &obj[used],
			 "lookup right after alloc_publish after a wrap");
		used++;
	}
	CHECK_EQ(st, st->ops->alloc_publish(idx, &obj[used], &obj[used].nr, GFP_KERNEL),
		 -ENOSPC, "alloc_publish never goes below the reserved floor after a wrap");
	pidx_st_compare(st, idx, &o, "alloc_publish after a wrap and -ENOSPC");
	pidx_st_seq_end(st, idx, &o, obj);
}

/*
 * A prefill by insert() leaves the cursor where set_cursor() puts it: the
 * next alloc() is the first free number from there, and from the floor
 * once the cursor stands at pid_max.  An index with per-CPU ranges takes
 * its first range there too; later numbers come from that range.  Some of
 * the prefill is published and some only reserved: alloc() passes both.
 */
void pidx_st_set_cursor(struct pidx_st *st)
{
	const u32 pid_max = 1024;
	const u32 keys[] = { 10, 20, 300, 700, 701, 1023 };
	struct pidx_index *idx;
	unsigned int i;

	if (!CHECK_EQ(st, !!st->ops->set_cursor, true, "the index has set_cursor"))
		return;
	idx = pidx_st_create(st, pid_max);
	if (!idx)
		return;
	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		CHECK_EQ(st, st->ops->insert(idx, keys[i], GFP_KERNEL), 0, "insert");
		if (i & 1)
			CHECK_EQ(st, st->ops->publish(idx, keys[i], pidx_st_val(keys[i], 1)),
				 0, "publish of a prefilled number");
	}
	st->ops->set_cursor(idx, 700);
	CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), 702,
		 "alloc after set_cursor: the first free number from the cursor");
	if (!st->ops->alloc_ranges) {
		st->ops->set_cursor(idx, pid_max);
		CHECK_EQ(st, st->ops->alloc(idx, GFP_KERNEL), 301,
			 "alloc after set_cursor(pid_max): from the floor");
	}
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify after set_cursor");
	st->ops->destroy(idx);
}

/*
 * Random operations while this task's allocations may fail (fault_inject's
 * selftest bit, with failslab's task-filter Y and ignore-gfp-wait N; the
 * other phases run unmarked, so a -ENOMEM there is a real failure).  What
 * the contract lets fail may fail: alloc, alloc_publish and insert with
 * -ENOMEM, and remove with -ENOMEM where remove_may_fail, keeping the key.
 * Each refusal leaves the oracle as it was and is counted, not checked;
 * every other result is checked, a refused alloc must not move the cursor
 * (the next one is still the oracle's), a refused alloc_publish must hold
 * nothing, publish never fails for want of memory (it never allocates),
 * and once injection ends the index must be consistent, hold exactly the
 * oracle's keys and values and drain to empty.
 */
void pidx_st_faults(struct pidx_st *st)
{
	const u32 pid_max = 2048, nops = 3000;
	u32 i, pid, wrong = 0, kept = 0, refused_rm = 0, refused = 0, k;
	u32 wrong_ap = 0;
	u64 rng = pidx_rand_seed(st->cfg->seed, 0xfa17);
	/* the first disagreement, logged once nothing can fail any more */
	int got, want, mark, bad[4] = { 0 };
	struct pidx_st_obj *obj;
	struct pidx_oracle o;
	struct pidx_index *idx;
	gfp_t gfp;

	if (!(READ_ONCE(pidx_fault_inject) & PIDX_FAULT_SELFTEST))
		return;
	idx = pidx_st_seq_begin(st, &o, &obj, pid_max, nops);
	if (!idx)
		return;
	mark = pidx_fault_mark(true);
	for (i = 0; i < nops; i++) {
		u32 op = pidx_rand_below(&rng, 100);
		bool reserve = false;

		pid = pidx_rand_below(&rng, pid_max + 1);
		/* both kinds of caller: one that may sleep, one that may not */
		gfp = i & 1 ? GFP_ATOMIC | __GFP_NOWARN : GFP_KERNEL;
		if (op < 10 && obj) {
			got = st->ops->alloc_publish(idx, &obj[i], &obj[i].nr, gfp);
			want = got == -ENOMEM ? got :
			       pidx_oracle_want(&o, got, st->ops->alloc_ranges);
			if (got >= 0 && got == want) {
				pidx_oracle_publish(&o, got, &obj[i]);
				wrong_ap += obj[i].nr != got ||
					    pidx_st_lookup(st, idx, got) != &obj[i];
			}
		} else if (op < 40) {
			got = st->ops->alloc(idx, gfp);
			want = got == -ENOMEM ? got :
			       pidx_oracle_want(&o, got, st->ops->alloc_ranges);
			reserve = true;
		} else if (op < 55) {
			got = st->ops->insert(idx, pid, gfp);
			want = got == -ENOMEM ? got : pidx_oracle_insert(&o, pid);
			reserve = true;
		} else if (op < 85) {
			pid = pidx_st_next_held(&o, pid);
			got = st->ops->remove(idx, pid);
			if (got == -ENOMEM && st->ops->remove_may_fail) {
				refused_rm++;
				kept += pidx_st_kept(st, idx, &o, pid);
				want = got;
			} else {
				want = pidx_oracle_remove(&o, pid);
			}
		} else if (op < 93) {
			got = pidx_st_find_ge(st, idx, pid);
			want = pidx_oracle_find_ge(&o, pid);
		} else {
			/* absent, reserved or published: 0 or the refusals */
			got = pidx_st_publish(st, idx, &o, pid, &want);
		}
		/* three reservations in four published at once: it never fails */
		if (reserve && got >= 0 && got == want && (i & 3)) {
			pid = op < 40 ? got : pid;
			got = pidx_st_publish(st, idx, &o, pid, &want);
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
	if (obj)
		CHECK_EQ(st, wrong_ap, 0,
			 "alloc_publish under failing allocations: number not in *nr or value not looked up");
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
	pidx_st_seq_end(st, idx, &o, obj);
}

/*
 * random operations, each return value and each value looked up against
 * the oracle; three reservations in four are published at once, and
 * publishes of random numbers meet absent, reserved and published ones
 */
void pidx_st_random(struct pidx_st *st, u32 pid_max, u32 nops)
{
	struct pidx_st_obj *obj;
	struct pidx_oracle o;
	struct pidx_index *idx;
	u64 rng = pidx_rand_seed(st->cfg->seed, pid_max);
	u32 i, wrong = 0, pid;
	long got, want;
	int pwant;

	idx = pidx_st_seq_begin(st, &o, &obj, pid_max, nops);
	if (!idx)
		return;
	for (i = 0; i < nops; i++) {
		u32 op = pidx_rand_below(&rng, 100);
		bool reserve = false;

		pid = pidx_rand_below(&rng, pid_max + 1);
		if (op < 8 && obj) {
			got = st->ops->alloc_publish(idx, &obj[i], &obj[i].nr, GFP_KERNEL);
			want = pidx_oracle_want(&o, got, st->ops->alloc_ranges);
			if (got >= 0 && got == want) {
				pidx_oracle_publish(&o, got, &obj[i]);
				if (obj[i].nr != got)
					want = obj[i].nr;
			}
		} else if (op < 35) {
			got = st->ops->alloc(idx, GFP_KERNEL);
			want = pidx_oracle_want(&o, got, st->ops->alloc_ranges);
			reserve = true;
		} else if (op < 50) {
			got = st->ops->insert(idx, pid, GFP_KERNEL);
			want = pidx_oracle_insert(&o, pid);
			reserve = true;
		} else if (op < 80) {
			/* mostly held PIDs, so removals find something */
			if (op < 75)
				pid = pidx_st_next_held(&o, pid);
			got = st->ops->remove(idx, pid);
			want = pidx_oracle_remove(&o, pid);
		} else if (op < 90) {
			got = (long)pidx_st_lookup(st, idx, pid);
			want = (long)pidx_oracle_lookup(&o, pid);
		} else if (op < 96) {
			got = pidx_st_find_ge(st, idx, pid);
			want = pidx_oracle_find_ge(&o, pid);
		} else {
			got = pidx_st_publish(st, idx, &o, pid, &pwant);
			want = pwant;
		}
		if (reserve && got >= 0 && got == want && (i & 3)) {
			if (op < 35)
				pid = got;
			got = pidx_st_publish(st, idx, &o, pid, &pwant);
			want = pwant;
		}
		if (got != want && !wrong++)
			pidx_log_printf(st->log,
					"    random op %u (kind %u, PID %u): got %ld, expected %ld\n",
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
	pidx_st_seq_end(st, idx, &o, obj);
}

/*
 * remove() of a held key returns 0, even while every allocation a removal
 * makes fails; only an index that sets remove_may_fail may return -ENOMEM
 * then, and must keep the key as it was (reserved, or published with its
 * value), stay consistent and remove it once memory is back (pidx.h).
 * Two keys in three are published, the third only reserved.
 */
void pidx_st_remove_present(struct pidx_st *st)
{
	const u32 pid_max = 4096, n = 2048;
	unsigned int saved = READ_ONCE(pidx_fail_remove_alloc);
	u32 k, bad = 0, refused = 0, kept = 0;
	struct pidx_oracle o;
	struct pidx_index *idx;
	int ret, want;

	if (pidx_oracle_init(&o, pid_max))
		return;
	idx = pidx_st_create(st, pid_max);
	if (!idx)
		goto out;
	for (k = 1; k <= n; k++) {
		bad += st->ops->insert(idx, k, GFP_KERNEL) != pidx_oracle_insert(&o, k);
		if (k % 3)
			bad += pidx_st_publish(st, idx, &o, k, &want) != want;
	}
	CHECK_EQ(st, bad, 0, "inserts and publishes before the removals that failed");
	bad = 0;
	WRITE_ONCE(pidx_fail_remove_alloc, 1);
	for (k = 2; k <= n; k += 2) {
		ret = st->ops->remove(idx, k);
		if (ret == -ENOMEM && st->ops->remove_may_fail) {
			refused++;
			kept += pidx_st_kept(st, idx, &o, k);
		} else if (ret) {
			bad++;
		} else {
			pidx_oracle_remove(&o, k);
		}
	}
	WRITE_ONCE(pidx_fail_remove_alloc, saved);
	CHECK_EQ(st, bad, 0, "removes of present keys, their allocations failing, that failed");
	CHECK_EQ(st, kept, refused, "keys still held as they were after their remove said -ENOMEM");
	if (st->ops->remove_may_fail)
		CHECK_EQ(st, refused > 0, true, "removes refused while their allocations failed");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify after removes under failing allocations");
	pidx_st_compare(st, idx, &o, "removes under failing allocations");
	bad = 0;
	for (k = 1; k <= n; k++)
		if (pidx_oracle_held(&o, k) && st->ops->remove(idx, k))
			bad++;
	CHECK_EQ(st, bad, 0, "removes of present keys that failed");
	CHECK_EQ(st, pidx_st_find_ge(st, idx, 0), -ENOENT, "empty after every key was removed");
	CHECK_EQ(st, st->ops->verify(idx), 0, "verify after the removals");
	st->ops->destroy(idx);
out:
	pidx_oracle_free(&o);
}
