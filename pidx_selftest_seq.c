// SPDX-License-Identifier: GPL-2.0
/*
 * The selftest's sequential phases: one thread calls the index and checks
 * every return value against the oracle (pidx_selftest_kit.c), through
 * the contract's corners, set_cursor(), long random sequences and runs
 * under failing allocations.  A wrong result here points at one call, so
 * these pin the contract down before the concurrent phases hunt races in
 * it; "racetest" leaves them out.
 */
#include <linux/bitmap.h>
#include <linux/sched.h>
#include "pidx_hooks.h"
#include "pidx_selftest.h"

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
 * A prefill by insert() leaves the cursor where set_cursor() puts it: the
 * next alloc() is the first free number from there, and from the floor
 * once the cursor stands at pid_max.  An index with per-CPU ranges takes
 * its first range there too; later numbers come from that range.
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
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		CHECK_EQ(st, st->ops->insert(idx, keys[i], GFP_KERNEL), 0, "insert");
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
 * the contract lets fail may fail: alloc and insert with -ENOMEM, and remove
 * with -ENOMEM where remove_may_fail, keeping the key.  Each refusal leaves
 * the oracle as it was and is counted, not checked; every other result is
 * checked, a refused alloc must not move the cursor (the next one is still
 * the oracle's), and once injection ends the index must be consistent, hold
 * exactly the oracle's keys and drain to empty.
 */
void pidx_st_faults(struct pidx_st *st)
{
	const u32 pid_max = 2048, nops = 3000;
	u32 i, pid, wrong = 0, kept = 0, refused_rm = 0, refused = 0, k;
	u64 rng = pidx_rand_seed(st->cfg->seed, 0xfa17);
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
			want = got == -ENOMEM ? got :
			       pidx_oracle_want(&o, got, st->ops->alloc_ranges);
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
void pidx_st_random(struct pidx_st *st, u32 pid_max, u32 nops)
{
	struct pidx_oracle o;
	struct pidx_index *idx;
	u64 rng = pidx_rand_seed(st->cfg->seed, pid_max);
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
			want = pidx_oracle_want(&o, got, st->ops->alloc_ranges);
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
 * remove() of a present key returns 0, even while every allocation a
 * removal makes fails; only an index that sets remove_may_fail may return
 * -ENOMEM then, and must keep the key, stay consistent and remove it once
 * memory is back (pidx.h).
 */
void pidx_st_remove_present(struct pidx_st *st)
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
