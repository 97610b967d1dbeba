// SPDX-License-Identifier: GPL-2.0
/*
 * ccskip's walks of the whole tree: verify(), describe() and nodes(), and
 * mem_bytes() beside them.  No storm runs them, so they live apart from
 * the lookups and writers of pidx_ccskip.c, which keeps those in one file
 * where the compiler sees them together.  verify() holds the tree to every invariant the writers
 * keep: node layout and ranges, sorted keys, the interpolation scales, the
 * subtree counts the cyclic search trusts, the directory, the leaves'
 * value words, and the per-level and byte totals that describe() and
 * mem_bytes() report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "pidx.h"
#include "pidx_compat.h"
#include "pidx_ccskip.h"

#define ccs_bad(chk, ...)	pidx_verify_bad(&(chk)->bad, "ccskip", __VA_ARGS__)

struct ccs_check {
	struct ccs *c;
	unsigned int bad;
	u32 dir_seen;		/* buckets checked, each against its leaf */
	size_t bytes;
	u32 nodes[CCS_LEVELS_MAX];
	u32 keys[CCS_LEVELS_MAX];
};

/*
 * Each bucket that starts in @leaf's range [@lo, @hi) points at the leaf if
 * one of its keys is in the bucket, else holds NULL.  The leaves partition
 * [0, pid_max), so checking each leaf's buckets checks every bucket once.
 */
static void ccs_check_dir(struct ccs_check *chk, struct ccs_node *leaf,
			  u32 lo, u32 hi)
{
	u32 b = DIV_ROUND_UP(lo, 1U << CCS_DIR_SHIFT);
	u32 end = DIV_ROUND_UP(hi, 1U << CCS_DIR_SHIFT), i = 0;
	struct ccs_node *d, *want;

	for (; b < end; b++) {
		while (i < leaf->nr && leaf->keys[i] >> CCS_DIR_SHIFT < b)
			i++;
		want = i < leaf->nr && leaf->keys[i] >> CCS_DIR_SHIFT == b ?
		       leaf : NULL;
		d = rcu_dereference_protected(chk->c->dir[b], true);
		if (d != want)
			ccs_bad(chk, "directory bucket %u: %s, the leaf at %u %s",
				b, d ? "set" : "empty", lo,
				want ? "has keys in it" : "has none");
		chk->dir_seen++;
	}
}

/*
 * A leaf's value words: NULL (a reservation) or a published value, which
 * pidx.h has 4-aligned; the sentinel's is always NULL.  Reservations may be
 * there: a caller may verify between alloc() and publish().
 */
static void ccs_check_vals(struct ccs_check *chk, struct ccs_node *n)
{
	void **vals = ccs_vals(n, n->nr);
	u32 i;

	for (i = 0; i < n->nr; i++) {
		if (!n->keys[i] && vals[i])
			ccs_bad(chk, "the sentinel holds a value");
		else if (!IS_ALIGNED((unsigned long)vals[i], 4))
			ccs_bad(chk, "key %u: value with low bits %lu, not 4-aligned",
				n->keys[i], (unsigned long)vals[i] & 3);
	}
}

/*
 * Check the subtree of @n, a node of level @level whose keys must lie in
 * [@lo, @hi) starting with @lo, and return the keys present in it.  The
 * child of each key must start with that key and end before the next one:
 * that is every node boundary matching the keys of the level above.
 */
static u32 ccs_check_node(struct ccs_check *chk, struct ccs_node *n,
			  u32 level, u32 lo, u32 hi)
{
	size_t size;
	struct ccs_tail *t;
	u32 i, w = 0, cw, end, *cnt;
	struct ccs_node *kid;

	if (n->level != level || !n->nr) {
		ccs_bad(chk, "node at %u: level %u nr %u, expected level %u",
			lo, n->level, n->nr, level);
		return 0;
	}
	chk->nodes[level]++;
	chk->keys[level] += n->nr;
	size = ccs_tail_off(n->nr, level) + sizeof(*t);
	t = ccs_tail(n);
	if (t->back != ccs_tail_off(n->nr, level) ||
	    t->bytes != kmalloc_size_roundup(size))
		ccs_bad(chk, "node at %u level %u: tail %u/%u for %zu bytes",
			lo, level, t->back, t->bytes, size);
	chk->bytes += t->bytes;
	if (n->keys[0] != lo)
		ccs_bad(chk, "node at level %u starts with %u, its slot above says %u",
			level, n->keys[0], lo);
	if (n->hi != hi)
		ccs_bad(chk, "node at %u level %u: hi %u, its range ends at %u",
			lo, level, n->hi, hi);
	for (i = 1; i < n->nr; i++)
		if (n->keys[i] <= n->keys[i - 1])
			ccs_bad(chk, "level %u: key %u after %u", level,
				n->keys[i], n->keys[i - 1]);
	if (n->keys[n->nr - 1] >= hi)
		ccs_bad(chk, "level %u: key %u at or past the node's end %u",
			level, n->keys[n->nr - 1], hi);
	if (n->scale != ccs_scale(n))
		ccs_bad(chk, "node at %u level %u: scale %u, its keys give %u",
			lo, level, n->scale, ccs_scale(n));
	if (!level) {
		ccs_check_vals(chk, n);
		ccs_check_dir(chk, n, lo, hi);
		return n->nr - !n->keys[0];
	}
	cnt = ccs_counts(n);
	for (i = 0; i < n->nr; i++) {
		kid = ccs_qkid(n, i);
		end = i + 1 < n->nr ? n->keys[i + 1] : hi;
		if (!kid) {
			ccs_bad(chk, "level %u key %u: no child", level,
				n->keys[i]);
			continue;
		}
		cw = ccs_check_node(chk, kid, level - 1, n->keys[i], end);
		if (cnt[i] != cw)
			ccs_bad(chk, "level %u key %u: count %u, subtree holds %u",
				level, n->keys[i], cnt[i], cw);
		w += cw;
	}
	return w;
}

unsigned int pidx_ccs_verify(struct pidx_index *idx)
{
	struct ccs *c = to_ccs(idx);
	struct ccs_check chk = { .c = c };
	struct ccs_node *root = ccs_qroot(c);
	u32 w, l;

	if (root->level >= c->max_level) {
		ccs_bad(&chk, "root level %u, at most %u levels", root->level,
			c->max_level);
		return chk.bad;
	}
	w = ccs_check_node(&chk, root, root->level, 0, c->pid_max);
	if (w != c->nr)
		ccs_bad(&chk, "%u keys in the tree, count %u", w, c->nr);
	/*
	 * A wrong bucket is reported once, above: this is leaves that miss
	 * some buckets or share them, which only wrong ranges can do.
	 */
	if (chk.dir_seen != c->dir_nr)
		ccs_bad(&chk, "%u directory buckets checked, of %u: leaves miss or share some",
			chk.dir_seen, c->dir_nr);
	if (rcu_dereference_protected(c->dir[c->dir_nr], true))
		ccs_bad(&chk, "directory bucket %u, past pid_max, is set",
			c->dir_nr);
	for (l = 0; l < CCS_LEVELS_MAX; l++)
		if (chk.nodes[l] != c->lvl_nodes[l] ||
		    chk.keys[l] != c->lvl_keys[l])
			ccs_bad(&chk, "level %u: %u nodes %u keys, counted %u/%u",
				l, chk.nodes[l], chk.keys[l], c->lvl_nodes[l],
				c->lvl_keys[l]);
	if (chk.bytes != c->bytes)
		ccs_bad(&chk, "%zu bytes in nodes, count %zu", chk.bytes,
			c->bytes);
	if (c->cursor > c->pid_max)
		ccs_bad(&chk, "cursor %u past pid_max %u", c->cursor,
			c->pid_max);
	return chk.bad;
}

size_t pidx_ccs_mem_bytes(struct pidx_index *idx)
{
	struct ccs *c = to_ccs(idx);

	return sizeof(*c) + ccs_dir_bytes(c) + READ_ONCE(c->bytes);
}

/*
 * Per level from the leaves up: nodes and mean keys per node (in tenths),
 * so that a short buffer loses only the highest levels, whole.
 */
void pidx_ccs_describe(struct pidx_index *idx, char *buf, size_t len)
{
	struct ccs *c = to_ccs(idx);
	u32 nodes[CCS_LEVELS_MAX], keys[CCS_LEVELS_MAX];
	u32 nr, top, l, fill;
	unsigned long flags;
	char entry[32];
	size_t n;
	int e;

	spin_lock_irqsave(&c->lock, flags);
	memcpy(nodes, c->lvl_nodes, sizeof(nodes));
	memcpy(keys, c->lvl_keys, sizeof(keys));
	nr = c->nr;
	top = ccs_wroot(c)->level + 1;
	spin_unlock_irqrestore(&c->lock, flags);

	n = scnprintf(buf, len, "keys=%u;b=%u;max_level=%u;height=%u;levels=",
		      nr, c->b, c->max_level, top);
	for (l = 0; l < top; l++) {
		fill = nodes[l] ? keys[l] * 10 / nodes[l] : 0;
		e = scnprintf(entry, sizeof(entry), "%s%u:%u/%u.%u",
			      l ? "|" : "", l, nodes[l], fill / 10, fill % 10);
		if (n + e >= len)
			break;
		memcpy(buf + n, entry, e + 1);
		n += e;
	}
}

static void ccs_count_nodes(struct ccs_node *n, u64 count[PIDX_NODES_MAX])
{
	u32 i;

	pidx_count_node(n, count);
	if (n->level)
		for (i = 0; i < n->nr; i++)
			ccs_count_nodes(ccs_qkid(n, i), count);
}

/* The tree's nodes and the directory, by its first page. */
void pidx_ccs_nodes(struct pidx_index *idx, u64 count[PIDX_NODES_MAX])
{
	struct ccs *c = to_ccs(idx);

	pidx_count_node(c->dir, count);
	ccs_count_nodes(ccs_qroot(c), count);
}
