// SPDX-License-Identifier: GPL-2.0
/*
 * pidx lookup distributions (see pidx_dist.h): the dist setting read and
 * written back, and the walk of keys that a run's lookups read.
 *
 * A zipf or recent walk holds L keys, L the set's size kept between
 * PIDX_DIST_WALK_MIN and PIDX_DIST_WALK_MAX: at least 65536 so that the
 * sequence is far too long for a branch predictor to learn (a walk that
 * repeats every 64 lookups made a skip list's search a third of a random
 * one's, see pidx_draw_key()), and so that the hottest ranks are resolved
 * to 1/65536 of the lookups; as long as the set beyond that, so that the
 * tail is sampled at the set's own grain; at most 4M keys, 16 MB, what the
 * aged shape's arrays of a set that large take.
 *
 * The walk is the distribution sampled systematically, not at random: rank
 * r appears floor(L x W(r) / W) - floor(L x W(r - 1) / W) times, W(r) the
 * summed weight of ranks 0..r and W all of it, so any run of hottest ranks
 * gets its share of L to within one key, and the total is exactly L.  The
 * walk is then shuffled with the run's seed, so that each CPU, reading it
 * in turn from its own place, sees the ranks in a random order.
 *
 * Kernel code has no floating point: the weights are fixed point, 2^40 for
 * rank 0, from a log2 and an exp2 by bits (16 fractional bits each, an
 * error near 2^-15 of each weight).  A weight under 2^-40 of the first is
 * zero: the ranks past it together weigh less than one key of a walk.
 */
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
/* kvmalloc_array(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include "pidx_dist.h"

const char *const pidx_dist_names[PIDX_NR_DISTS] = {
	[PIDX_DIST_UNIFORM]	= "uniform",
	[PIDX_DIST_ZIPF]	= "zipf",
	[PIDX_DIST_RECENT]	= "recent",
	[PIDX_DIST_SEQUENTIAL]	= "sequential",
};

/* the walk's stream of the run's seed (the aged simulation's is 0xfffe) */
#define PIDX_DIST_STREAM	0xfffc

/* weights are 2^-y x 2^40, y in Q.16 */
#define PIDX_DIST_WEIGHT_BITS	40

/* A decimal number of at most 10 digits, nothing else. */
static int pidx_dist_parse_uint(const char *s, u32 *out)
{
	u64 v = 0;
	unsigned int n = 0;

	for (; *s; s++, n++) {
		if (*s < '0' || *s > '9' || n >= 10)
			return -EINVAL;
		v = v * 10 + (*s - '0');
	}
	if (!n || v > U32_MAX)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "D", "D.", "D.d", "D.dd" or "D.ddd", in thousandths. */
static int pidx_dist_parse_milli(const char *s, u32 *out)
{
	u32 whole = 0, frac = 0, scale = 1000;
	unsigned int n = 0;

	for (; *s >= '0' && *s <= '9'; s++, n++) {
		if (n >= 4)
			return -EINVAL;
		whole = whole * 10 + (*s - '0');
	}
	if (!n)
		return -EINVAL;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++) {
			if (scale == 1)
				return -EINVAL;
			scale /= 10;
			frac += (*s - '0') * scale;
		}
	}
	if (*s)
		return -EINVAL;
	*out = whole * 1000 + frac;
	return 0;
}

int pidx_dist_parse(const char *val, enum pidx_dist *dist, u32 *param)
{
	u32 v;

	if (!strcmp(val, pidx_dist_names[PIDX_DIST_UNIFORM])) {
		*dist = PIDX_DIST_UNIFORM;
		*param = 0;
	} else if (!strcmp(val, pidx_dist_names[PIDX_DIST_SEQUENTIAL])) {
		*dist = PIDX_DIST_SEQUENTIAL;
		*param = 0;
	} else if (!strncmp(val, "zipf:", 5)) {
		if (pidx_dist_parse_milli(val + 5, &v) || !v || v > PIDX_DIST_ZIPF_MAX)
			return -EINVAL;
		*dist = PIDX_DIST_ZIPF;
		*param = v;
	} else if (!strncmp(val, "recent:", 7)) {
		/* pid_max's limit, not its setting: no order between the two */
		if (pidx_dist_parse_uint(val + 7, &v) || !v || v > PIDX_PID_MAX_LIMIT)
			return -EINVAL;
		*dist = PIDX_DIST_RECENT;
		*param = v;
	} else {
		return -EINVAL;
	}
	return 0;
}

void pidx_dist_name(char *buf, size_t len, enum pidx_dist dist, u32 param)
{
	u32 frac = param % 1000;
	int digits = 3;

	switch (dist) {
	case PIDX_DIST_ZIPF:
		if (!frac) {
			snprintf(buf, len, "zipf:%u", param / 1000);
			break;
		}
		for (; !(frac % 10); frac /= 10)
			digits--;
		snprintf(buf, len, "zipf:%u.%0*u", param / 1000, digits, frac);
		break;
	case PIDX_DIST_RECENT:
		snprintf(buf, len, "recent:%u", param);
		break;
	default:
		snprintf(buf, len, "%s", pidx_dist_names[dist < PIDX_NR_DISTS ? dist : 0]);
		break;
	}
}

/* log2(@x), @x >= 1, in Q.16: the integer part, then a bit per squaring */
static u32 pidx_log2_q16(u32 x)
{
	u32 n = ilog2(x), res = n << 16, bit;
	u64 m = (u64)x << (31 - n);	/* x / 2^n, in [1, 2), Q.31 */

	for (bit = 1U << 15; bit; bit >>= 1) {
		m = (m * m) >> 31;
		if (m >= 2ULL << 31) {
			m >>= 1;
			res |= bit;
		}
	}
	return res;
}

/* 2^(-2^-(i + 1)) in Q.32 */
static const u32 pidx_exp2_frac[16] = {
	0xb504f334, 0xd744fccb, 0xeac0c6e8, 0xf5257d15,
	0xfa83b2db, 0xfd3e0c0d, 0xfe9e115c, 0xff4ecb59,
	0xffa75652, 0xffd3a752, 0xffe9d2b3, 0xfff4e91c,
	0xfffa747f, 0xfffd3a3b, 0xfffe9d1d, 0xffff4e8e,
};

/* 2^-@y x 2^40, @y in Q.16: 0 from y >= 40 */
static u64 pidx_exp2_neg(u64 y)
{
	u64 v = 1ULL << 32;	/* Q.32 */
	u32 f = y & 0xffff;
	unsigned int i;

	if (y >> 16 >= PIDX_DIST_WEIGHT_BITS)
		return 0;
	for (i = 0; i < 16; i++)
		if (f & (0x8000U >> i))
			v = (v * pidx_exp2_frac[i]) >> 32;
	return (v << (PIDX_DIST_WEIGHT_BITS - 32)) >> (y >> 16);
}

struct pidx_dist_gen {
	enum pidx_dist dist;
	u32 s_q16;		/* zipf: S in Q.16 */
	u32 half;		/* recent: H */
};

/* Rank @r's weight, non-increasing in @r. */
static u64 pidx_dist_weight(const struct pidx_dist_gen *g, u32 r)
{
	if (g->dist == PIDX_DIST_ZIPF)
		return pidx_exp2_neg(((u64)g->s_q16 * pidx_log2_q16(r + 1)) >> 16);
	return pidx_exp2_neg(div_u64((u64)r << 16, g->half));
}

static int pidx_dist_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* sequential: every key once, ascending */
static void pidx_dist_sequential(struct pidx_shape_set *set)
{
	u32 i;

	for (i = 0; i < set->nkeys; i++)
		set->dist_walk[i] = pidx_shape_key(set, i);
	/* dense and spread keys rise with i; aged ones are in allocation order */
	if (set->shape == PIDX_SHAPE_AGED)
		sort(set->dist_walk, set->nkeys, sizeof(u32), pidx_dist_cmp_u32, NULL);
}

/*
 * zipf and recent: rank r's keys, as many as systematic sampling gives it
 * of @len, then the walk shuffled.  zipf's rank r is the set's position
 * perm[r] of a random permutation; recent's is position nkeys - 1 - r, the
 * r-th newest in allocation order (pidx_shape_key()).
 */
static int pidx_dist_ranked(const struct pidx_config *cfg, struct pidx_shape_set *set,
			    u64 *rng)
{
	struct pidx_dist_gen g = { .dist = cfg->dist };
	u32 n = set->nkeys, len = set->dist_len, nranks, r, at = 0, c, key, j, t;
	u64 w, total = 0, cum = 0, prev = 0, upto;
	u32 *perm = NULL;
	int shift;

	if (g.dist == PIDX_DIST_ZIPF)
		g.s_q16 = div_u64(((u64)cfg->dist_param << 16) + 500, 1000);
	else
		g.half = cfg->dist_param;
	/* the weights fall with the rank: the ranks past the first zero weigh none */
	for (nranks = 0; nranks < n; nranks++) {
		w = pidx_dist_weight(&g, nranks);
		if (!w)
			break;
		total += w;
		if (!(nranks & 0xffff))
			cond_resched();
	}
	if (g.dist == PIDX_DIST_ZIPF) {
		perm = kvmalloc_array(n, sizeof(u32), GFP_KERNEL);
		if (!perm)
			return -ENOMEM;
		for (r = 0; r < n; r++)
			perm[r] = r;
		/* the first nranks places of a Fisher-Yates shuffle: all it needs */
		for (r = 0; r < nranks && r < n - 1; r++) {
			j = r + pidx_rand_below(rng, n - r);
			t = perm[r];
			perm[r] = perm[j];
			perm[j] = t;
		}
	}
	/*
	 * cum * len needs up to 84 bits: both sides of the ratio lose the
	 * same low bits, so that the product fits in 64 and the division is
	 * exact and the same on every architecture (the generic
	 * mul_u64_u64_div_u64() drops low bits that vary with cum, and its
	 * results could go down from one rank to the next).  The last rank
	 * still ends at len.
	 */
	shift = max(ilog2(total) + ilog2(len) + 2, 64) - 64;
	for (r = 0; r < nranks; r++) {
		cum += pidx_dist_weight(&g, r);
		upto = div64_u64((cum >> shift) * len, total >> shift);
		if (WARN_ON_ONCE(upto < prev || upto > len)) {
			kvfree(perm);
			return -EUCLEAN;
		}
		key = pidx_shape_key(set, perm ? perm[r] : n - 1 - r);
		for (c = upto - prev; c; c--)
			set->dist_walk[at++] = key;
		prev = upto;
		if (!(r & 0xffff))
			cond_resched();
	}
	kvfree(perm);
	if (WARN_ON_ONCE(at != len))
		return -EUCLEAN;
	for (r = len - 1; r > 0; r--) {
		j = pidx_rand_below(rng, r + 1);
		t = set->dist_walk[r];
		set->dist_walk[r] = set->dist_walk[j];
		set->dist_walk[j] = t;
	}
	return 0;
}

int pidx_dist_make(const struct pidx_config *cfg, struct pidx_shape_set *set)
{
	u64 rng = pidx_rand_seed(cfg->seed, PIDX_DIST_STREAM);
	u32 nkeys = set->nkeys;
	int ret = 0;

	set->dist_walk = NULL;
	set->dist_len = 0;
	/* none either for a storm that draws no lookup */
	if (cfg->dist == PIDX_DIST_UNIFORM ||
	    !pidx_dist_applies(cfg->workload, cfg->mix[PIDX_MIX_LOOKUP],
			       cfg->fork_lookups, cfg->keys))
		return 0;
	/*
	 * replay: the walk is over the keys alone, the set's first keys, which
	 * no event removes; the trace's own PIDs follow them in the set
	 */
	set->nkeys = cfg->keys;
	if (cfg->dist == PIDX_DIST_SEQUENTIAL)
		set->dist_len = set->nkeys;
	else
		set->dist_len = clamp(set->nkeys, PIDX_DIST_WALK_MIN, PIDX_DIST_WALK_MAX);
	set->dist_walk = kvmalloc_array(set->dist_len, sizeof(u32), GFP_KERNEL);
	if (!set->dist_walk)
		ret = -ENOMEM;
	else if (cfg->dist == PIDX_DIST_SEQUENTIAL)
		pidx_dist_sequential(set);
	else
		ret = pidx_dist_ranked(cfg, set, &rng);
	set->nkeys = nkeys;
	if (ret) {
		kvfree(set->dist_walk);
		set->dist_walk = NULL;
		set->dist_len = 0;
	}
	return ret;
}
