// SPDX-License-Identifier: GPL-2.0
/*
 * lazyskip's walks and totals: verify(), mem_bytes(), describe() and
 * nodes().  No storm runs them, so they live apart from the lookups and
 * writers of pidx_lazyskip.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/string.h>

#include "pidx.h"
#include "pidx_pidmap.h"
#include "pidx_lazyskip.h"

#define lz_bad(bad, ...)	pidx_verify_bad(bad, "lazyskip", __VA_ARGS__)

struct lz_totals {
	long nr;
	long bytes;
	unsigned long retries;
	long hist[LZ_MAX_LEVEL + 1];
};

static void lz_sum(struct lz *lz, struct lz_totals *t)
{
	unsigned int cpu, h;

	memset(t, 0, sizeof(*t));
	for_each_possible_cpu(cpu) {
		struct lz_pcpu *c = per_cpu_ptr(lz->pcpu, cpu);

		t->nr += READ_ONCE(c->nr);
		t->bytes += READ_ONCE(c->bytes);
		t->retries += READ_ONCE(c->retries);
		for (h = 1; h <= lz->max_level; h++)
			t->hist[h] += READ_ONCE(c->hist[h]);
	}
}

/*
 * One pass along level 0 checks every level: each node must be the next one
 * on each of its levels, so every level is the sub-list of level 0 of the
 * towers that reach it.  Writers are quiesced by contract.
 */
unsigned int pidx_lz_verify(struct pidx_index *idx)
{
	struct lz *lz = to_lz(idx);
	struct lz_node *last[LZ_MAX_LEVEL], *x;
	long hist[LZ_MAX_LEVEL + 1] = { 0 };
	unsigned int bad = 0, tallest = 1, h, i;
	u32 prev = 0, key;
	struct lz_totals t;
	long nr = 0, bytes = 0, bits = 0;

	for (i = 0; i < lz->max_level; i++)
		last[i] = lz->head;
	for (x = rcu_dereference_protected(lz->head->next[0], true); x;
	     x = rcu_dereference_protected(x->next[0], true)) {
		if (nr > lz->pid_max) {
			lz_bad(&bad, "level 0 holds more than %u nodes", lz->pid_max);
			break;
		}
		nr++;
		key = lz_key(x);
		if (key <= prev || key >= lz->pid_max)
			lz_bad(&bad, "key %u after %u (pid_max %u)", key, prev,
			       lz->pid_max);
		prev = key;
		if (x->word & (BIT(LZ_LOCK) | BIT(LZ_MARKED)))
			lz_bad(&bad, "key %u: flags %#lx (lock 1 marked 2)",
			       key, x->word & 3);
		if (key < lz->pid_max && !test_bit(key, lz->pm.map))
			lz_bad(&bad, "key %u not claimed in the bitmap", key);
		/* NULL is a reservation, which a caller may verify between */
		if ((unsigned long)x->value & 3)
			lz_bad(&bad, "key %u: value's low bits %lu, not 4-aligned",
			       key, (unsigned long)x->value & 3);
		h = lz_height(x);
		if (h < 1 || h > lz->max_level) {
			lz_bad(&bad, "key %u: height %u not in [1, %u]", key, h,
			       lz->max_level);
			continue;
		}
		if (lz_cls(x) != lz->cls[h])
			lz_bad(&bad, "key %u: class %u for height %u", key,
			       lz_cls(x), h);
		for (i = 0; i < h; i++) {
			if (rcu_dereference_protected(last[i]->next[i], true) != x)
				lz_bad(&bad, "key %u: not next after %u on level %u",
				       key, lz_key(last[i]), i);
			last[i] = x;
		}
		hist[h]++;
		bytes += LZ_CLASS_SIZE(lz_cls(x));
		tallest = max(tallest, h);
	}
	for (i = 0; i < lz->max_level; i++)
		if (rcu_dereference_protected(last[i]->next[i], true))
			lz_bad(&bad, "level %u goes on after key %u", i,
			       lz_key(last[i]));
	if (lz->head->word & (BIT(LZ_LOCK) | BIT(LZ_MARKED)))
		lz_bad(&bad, "head flags %#lx", lz->head->word & 3);
	if (lz->head->value)
		lz_bad(&bad, "head holds a value");

	lz_sum(lz, &t);
	if (nr != t.nr)
		lz_bad(&bad, "%ld nodes on level 0, count %ld", nr, t.nr);
	for (h = 1; h <= lz->max_level; h++)
		if (hist[h] != t.hist[h])
			lz_bad(&bad, "%ld nodes of height %u, histogram %ld",
			       hist[h], h, t.hist[h]);
	if (bytes != t.bytes)
		lz_bad(&bad, "%ld bytes in nodes, count %ld", bytes, t.bytes);
	if (tallest > lz->top || lz->top > lz->max_level)
		lz_bad(&bad, "tallest tower %u, hint %u, max %u", tallest,
		       lz->top, lz->max_level);

	/* claimed numbers are exactly the keys */
	bad += pidx_pidmap_verify(&lz->pm, "lazyskip", &bits);
	if (bits != nr)
		lz_bad(&bad, "%ld numbers claimed, %ld nodes", bits, nr);
	return bad;
}

size_t pidx_lz_mem_bytes(struct pidx_index *idx)
{
	struct lz *lz = to_lz(idx);
	struct lz_totals t;

	lz_sum(lz, &t);
	return lz->fixed_bytes + max(t.bytes, 0L);
}

/* Pairs before the histogram, so a short buffer loses only its tallest levels. */
void pidx_lz_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct lz *lz = to_lz(idx);
	struct lz_totals t;
	unsigned int h;
	char entry[24];
	size_t n;
	int e;

	lz_sum(lz, &t);
	n = scnprintf(buf, len,
		      "nodes=%ld;sl_p=%u;max_level=%u;top=%u;retries=%lu;cursor=%u;laps=%llu;last_passes=%lu;bitmap_bytes=%zu;levels=",
		      t.nr, lz->p, lz->max_level, READ_ONCE(lz->top), t.retries,
		      pidx_pidmap_cursor(&lz->pm), pidx_pidmap_laps(&lz->pm),
		      pidx_pidmap_last_passes(&lz->pm),
		      (lz->pm.nwords + BITS_TO_LONGS(lz->pm.nwords)) * sizeof(long));
	for (h = 1; h <= READ_ONCE(lz->top); h++) {
		e = scnprintf(entry, sizeof(entry), "%s%u:%ld", h > 1 ? "/" : "",
			      h, t.hist[h]);
		if (n + e >= len)
			break;
		memcpy(buf + n, entry, e + 1);
		n += e;
	}
}

void pidx_lz_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	struct lz *lz = to_lz(idx);
	struct lz_node *x;

	pidx_count_node(lz->head, count);
	for (x = rcu_dereference_protected(lz->head->next[0], true); x;
	     x = rcu_dereference_protected(x->next[0], true))
		pidx_count_node(lz_obj(x), count);
}
