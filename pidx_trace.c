// SPDX-License-Identifier: GPL-2.0
/*
 * pidx traces: the replay workload's parser, summary and plan (see
 * pidx_trace.h).  The parser takes text in pieces of any size, as debugfs
 * writes and a file read in blocks give it, and leaves a trace unchanged
 * by a piece it refuses.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/kernel.h>
/* kvmalloc_array(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pidx.h"
#include "pidx_trace.h"

const char *const pidx_trace_op_names[PIDX_NR_TEV] = {
	[PIDX_TEV_FORK]	= "fork",
	[PIDX_TEV_EXIT]	= "exit",
	[PIDX_TEV_WAIT]	= "wait",
	[PIDX_TEV_FREE]	= "free",
};

/* t=US: at most this many microseconds (31,000 years) */
#define PIDX_TRACE_T_MAX	999999999999999999ULL
/* level=L: a PID namespace level */
#define PIDX_TRACE_LEVEL_MAX	32U
/* the first allocation of events; doubled from there */
#define PIDX_TRACE_CAP_MIN	4096U

void pidx_trace_init(struct pidx_trace *t)
{
	memset(t, 0, sizeof(*t));
}

void pidx_trace_free(struct pidx_trace *t)
{
	kvfree(t->ev);
	pidx_trace_init(t);
}

void pidx_trace_mark(const struct pidx_trace *t, struct pidx_trace_mark *m)
{
	m->nev = t->nev;
	m->lines = t->lines;
	m->partial_len = t->partial_len;
	memcpy(m->partial, t->partial, t->partial_len);
}

/* a grown array keeps its room */
void pidx_trace_rewind(struct pidx_trace *t, const struct pidx_trace_mark *m)
{
	t->nev = m->nev;
	t->lines = m->lines;
	t->partial_len = m->partial_len;
	memcpy(t->partial, m->partial, m->partial_len);
}

static bool pidx_trace_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static const char *pidx_trace_skip(const char *s, const char *end)
{
	while (s < end && pidx_trace_blank(*s))
		s++;
	return s;
}

/*
 * A decimal number at *@p, at most @max, ending at a blank or the line's
 * end; *@p moves past it.
 */
static int pidx_trace_num(const char **p, const char *end, u64 max, u64 *out)
{
	const char *s = *p;
	u64 v = 0;

	if (s == end || *s < '0' || *s > '9')
		return -EINVAL;
	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (*s - '0');
		if (v > max)
			return -ERANGE;
		s++;
	}
	if (s < end && !pidx_trace_blank(*s))
		return -EINVAL;
	*p = s;
	*out = v;
	return 0;
}

static int pidx_trace_pid(const char **p, const char *end, u32 *pid, const char **why)
{
	u64 v;

	if (*p == end || !pidx_trace_blank((*p)[-1])) {
		*why = "a PID missing";
		return -EINVAL;
	}
	if (pidx_trace_num(p, end, PIDX_PID_MAX_LIMIT - 1, &v) || !v) {
		*why = "a PID not a decimal in [1, 4194304)";
		return -EINVAL;
	}
	*pid = v;
	*p = pidx_trace_skip(*p, end);
	return 0;
}

/* "name=" at *@p: moves past it */
static bool pidx_trace_key(const char **p, const char *end, const char *name)
{
	size_t n = strlen(name);

	if (end - *p < n || memcmp(*p, name, n))
		return false;
	*p += n;
	return true;
}

/*
 * One line without its newline: 1 and *@ev for an event, 0 for a comment
 * or a blank line, -EINVAL with *@why for anything else.
 */
static int pidx_trace_line(const char *s, size_t len, struct pidx_trace_ev *ev,
			   const char **why)
{
	const char *end = s + len, *w;
	unsigned int op, stage = 0;
	u64 v;

	s = pidx_trace_skip(s, end);
	if (s == end || *s == '#')
		return 0;
	for (w = s; w < end && !pidx_trace_blank(*w); w++)
		;
	for (op = 0; op < PIDX_NR_TEV; op++)
		if (w - s == 4 && !memcmp(s, pidx_trace_op_names[op], 4))
			break;
	if (op == PIDX_NR_TEV) {
		*why = "not fork, exit, wait or free";
		return -EINVAL;
	}
	memset(ev, 0, sizeof(*ev));
	ev->op = op;
	ev->cpu = PIDX_TRACE_NO_CPU;
	s = pidx_trace_skip(w, end);
	if (op == PIDX_TEV_FORK && pidx_trace_pid(&s, end, &ev->parent, why))
		return -EINVAL;
	if (pidx_trace_pid(&s, end, &ev->pid, why))
		return -EINVAL;
	if (op == PIDX_TEV_FORK && ev->parent == ev->pid) {
		*why = "a fork of a PID by itself";
		return -EINVAL;
	}
	/* cpu=, t=, level=: each optional, in this order */
	while (s < end) {
		if (stage < 1 && pidx_trace_key(&s, end, "cpu=")) {
			stage = 1;
			if (pidx_trace_num(&s, end, PIDX_TRACE_CPU_LIMIT - 1, &v)) {
				*why = "cpu= not a decimal below 65536";
				return -EINVAL;
			}
			ev->cpu = v;
		} else if (stage < 2 && pidx_trace_key(&s, end, "t=")) {
			stage = 2;
			if (pidx_trace_num(&s, end, PIDX_TRACE_T_MAX, &v)) {
				*why = "t= not a decimal of at most 18 digits";
				return -EINVAL;
			}
		} else if (stage < 3 && pidx_trace_key(&s, end, "level=")) {
			stage = 3;
			if (pidx_trace_num(&s, end, PIDX_TRACE_LEVEL_MAX, &v)) {
				*why = "level= not a decimal of at most 32";
				return -EINVAL;
			}
		} else {
			*why = "unexpected text after the PIDs (cpu=, t=, level= in this order)";
			return -EINVAL;
		}
		s = pidx_trace_skip(s, end);
	}
	return 1;
}

static int pidx_trace_grow(struct pidx_trace *t)
{
	u32 cap = t->cap ? min(2 * t->cap, PIDX_TRACE_EVENTS_MAX) : PIDX_TRACE_CAP_MIN;
	struct pidx_trace_ev *ev;

	ev = kvmalloc_array(cap, sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return -ENOMEM;
	if (t->nev)
		memcpy(ev, t->ev, t->nev * sizeof(*ev));
	kvfree(t->ev);
	t->ev = ev;
	t->cap = cap;
	return 0;
}

/* The held line, whole: parsed, and appended if an event. */
static int pidx_trace_take(struct pidx_trace *t, u32 *line, const char **why)
{
	struct pidx_trace_ev ev;
	int ret;

	*line = t->lines + 1;
	ret = pidx_trace_line(t->partial, t->partial_len, &ev, why);
	if (ret < 0)
		return ret;
	if (ret) {
		if (t->nev == PIDX_TRACE_EVENTS_MAX) {
			*why = "more than 1000000 events";
			return -EFBIG;
		}
		if (t->nev == t->cap && pidx_trace_grow(t)) {
			*why = "no memory for the trace";
			return -ENOMEM;
		}
		t->ev[t->nev++] = ev;
	}
	t->lines++;
	t->partial_len = 0;
	return 0;
}

int pidx_trace_feed(struct pidx_trace *t, const char *buf, size_t len,
		    u32 *line, const char **why)
{
	struct pidx_trace_mark m;
	const char *nl;
	size_t take;
	int ret = 0;

	pidx_trace_mark(t, &m);
	while (len) {
		nl = memchr(buf, '\n', len);
		take = nl ? nl - buf : len;
		if (t->partial_len + take > PIDX_TRACE_LINE_MAX) {
			*line = t->lines + 1;
			*why = "a line longer than 128 bytes";
			ret = -EINVAL;
			break;
		}
		memcpy(t->partial + t->partial_len, buf, take);
		t->partial_len += take;
		if (!nl)
			break;
		ret = pidx_trace_take(t, line, why);
		if (ret)
			break;
		buf += take + 1;
		len -= take + 1;
	}
	if (ret)
		pidx_trace_rewind(t, &m);
	return ret;
}

int pidx_trace_end(struct pidx_trace *t, u32 *line, const char **why)
{
	struct pidx_trace_mark m;
	int ret;

	if (!t->partial_len)
		return 0;
	pidx_trace_mark(t, &m);
	ret = pidx_trace_take(t, line, why);
	if (ret)
		pidx_trace_rewind(t, &m);
	return ret;
}

int pidx_trace_summary(const struct pidx_trace *t, struct pidx_trace_sum *sum)
{
	unsigned long *seen, *live, *cpus;
	u32 i, pid;

	memset(sum, 0, sizeof(*sum));
	sum->events = t->nev;
	sum->lines = t->lines;
	sum->pending = t->partial_len;
	seen = bitmap_zalloc(PIDX_PID_MAX_LIMIT, GFP_KERNEL);
	live = bitmap_zalloc(PIDX_PID_MAX_LIMIT, GFP_KERNEL);
	cpus = bitmap_zalloc(PIDX_TRACE_CPU_LIMIT, GFP_KERNEL);
	if (!seen || !live || !cpus) {
		bitmap_free(seen);
		bitmap_free(live);
		bitmap_free(cpus);
		return -ENOMEM;
	}
	for (i = 0; i < t->nev; i++) {
		const struct pidx_trace_ev *e = &t->ev[i];

		sum->count[e->op]++;
		if (e->cpu != PIDX_TRACE_NO_CPU && !__test_and_set_bit(e->cpu, cpus))
			sum->cpus++;
		if (e->op == PIDX_TEV_FORK) {
			if (!__test_and_set_bit(e->parent, seen)) {
				__set_bit(e->parent, live);
				sum->initial++;
			}
			pid = e->pid;
			if (test_bit(pid, live)) {
				sum->orphans++;
			} else {
				__set_bit(pid, seen);
				__set_bit(pid, live);
			}
			continue;
		}
		pid = e->pid;
		if (!__test_and_set_bit(pid, seen)) {
			__set_bit(pid, live);
			sum->initial++;
		} else if (!test_bit(pid, live)) {
			sum->orphans++;
			continue;
		}
		if (e->op == PIDX_TEV_FREE)
			__clear_bit(pid, live);
	}
	bitmap_free(seen);
	bitmap_free(live);
	bitmap_free(cpus);
	return 0;
}

void pidx_replay_free(struct pidx_replay *r)
{
	unsigned int c;

	if (r->cpu) {
		for (c = 0; c < r->ncpus; c++) {
			kvfree(r->cpu[c].ev);
			kvfree(r->cpu[c].init);
		}
	}
	kfree(r->cpu);
	memset(r, 0, sizeof(*r));
}

/* the trace PID's incarnation now: none yet, freed, or 1 + its number */
#define PIDX_INC_NONE	0U
#define PIDX_INC_DEAD	U32_MAX

struct pidx_replay_build {
	u32 *cur;		/* per trace PID */
	u32 *owner;		/* per incarnation: its CPU */
	u32 *local;		/* per incarnation: its place in the CPU's map */
	u32 *code;		/* per event: its CPU's code, or U32_MAX left out */
	u32 *at;		/* per event: its CPU */
	u32 *init_inc;		/* per initially-live PID: its incarnation */
	u32 ninc;
};

static u32 pidx_replay_new_inc(struct pidx_replay_build *b, struct pidx_replay *r,
			       u32 pid, u32 cpu)
{
	u32 inc = b->ninc++, c;

	c = (cpu != PIDX_TRACE_NO_CPU ? cpu : inc) % r->ncpus;
	b->owner[inc] = c;
	b->local[inc] = r->cpu[c].ninc++;
	b->cur[pid] = inc + 1;
	return inc;
}

static void pidx_replay_new_initial(struct pidx_replay_build *b, struct pidx_replay *r,
				    u32 pid, u32 cpu)
{
	u32 inc = pidx_replay_new_inc(b, r, pid, cpu);

	b->init_inc[r->initial++] = inc;
	r->cpu[b->owner[inc]].ninit++;
}

/* Every event's CPU and code, each incarnation's CPU and place. */
static void pidx_replay_assign(const struct pidx_trace *t, struct pidx_replay *r,
			       struct pidx_replay_build *b)
{
	u32 i, inc, cur;

	for (i = 0; i < t->nev; i++) {
		const struct pidx_trace_ev *e = &t->ev[i];

		b->code[i] = U32_MAX;
		if (e->op == PIDX_TEV_FORK) {
			/* a parent named first here was live; it takes no operation */
			if (b->cur[e->parent] == PIDX_INC_NONE)
				pidx_replay_new_initial(b, r, e->parent, e->cpu);
			cur = b->cur[e->pid];
			if (cur != PIDX_INC_NONE && cur != PIDX_INC_DEAD) {
				/* a fork of a live PID: the recording missed its free */
				r->orphans++;
				continue;
			}
			inc = pidx_replay_new_inc(b, r, e->pid, e->cpu);
		} else {
			cur = b->cur[e->pid];
			if (cur == PIDX_INC_DEAD) {
				r->orphans++;
				continue;
			}
			if (cur == PIDX_INC_NONE)
				pidx_replay_new_initial(b, r, e->pid, e->cpu);
			inc = b->cur[e->pid] - 1;
			if (e->op == PIDX_TEV_FREE)
				b->cur[e->pid] = PIDX_INC_DEAD;
		}
		b->at[i] = b->owner[inc];
		b->code[i] = e->op << PIDX_REPLAY_OP_SHIFT | b->local[inc];
		r->cpu[b->owner[inc]].nev++;
		if (!(i & 0xffff))
			cond_resched();
	}
}

static int pidx_replay_fill(const struct pidx_trace *t, struct pidx_replay *r,
			    struct pidx_replay_build *b)
{
	unsigned int c;
	u32 i, inc;

	for (c = 0; c < r->ncpus; c++) {
		struct pidx_replay_cpu *rc = &r->cpu[c];

		r->most = max(r->most, rc->nev);
		rc->ev = kvmalloc_array(max(rc->nev, 1U), sizeof(u32), GFP_KERNEL);
		rc->init = kvmalloc_array(max(2 * rc->ninit, 1U), sizeof(u32), GFP_KERNEL);
		if (!rc->ev || !rc->init)
			return -ENOMEM;
		rc->nev = 0;
		rc->ninit = 0;
	}
	for (i = 0; i < t->nev; i++) {
		struct pidx_replay_cpu *rc = &r->cpu[b->at[i]];

		if (b->code[i] != U32_MAX)
			rc->ev[rc->nev++] = b->code[i];
	}
	for (i = 0; i < r->initial; i++) {
		struct pidx_replay_cpu *rc;

		inc = b->init_inc[i];
		rc = &r->cpu[b->owner[inc]];
		rc->init[2 * rc->ninit] = b->local[inc];
		rc->init[2 * rc->ninit + 1] = i;
		rc->ninit++;
	}
	return 0;
}

int pidx_replay_make(const struct pidx_trace *t, unsigned int ncpus,
		     struct pidx_replay *r)
{
	struct pidx_replay_build b = {};
	/* each event makes one incarnation at most, a fork two */
	size_t incs = 2 * (size_t)t->nev + 1;
	int ret = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (!ncpus)
		return -EINVAL;
	r->ncpus = ncpus;
	r->events = t->nev;
	r->cpu = kcalloc(ncpus, sizeof(*r->cpu), GFP_KERNEL);
	b.cur = kvcalloc(PIDX_PID_MAX_LIMIT, sizeof(u32), GFP_KERNEL);
	b.owner = kvmalloc_array(incs, sizeof(u32), GFP_KERNEL);
	b.local = kvmalloc_array(incs, sizeof(u32), GFP_KERNEL);
	b.code = kvmalloc_array(t->nev + 1, sizeof(u32), GFP_KERNEL);
	b.at = kvmalloc_array(t->nev + 1, sizeof(u32), GFP_KERNEL);
	b.init_inc = kvmalloc_array(incs, sizeof(u32), GFP_KERNEL);
	if (!r->cpu || !b.cur || !b.owner || !b.local || !b.code || !b.at || !b.init_inc)
		goto out;
	pidx_replay_assign(t, r, &b);
	ret = pidx_replay_fill(t, r, &b);
out:
	kvfree(b.cur);
	kvfree(b.owner);
	kvfree(b.local);
	kvfree(b.code);
	kvfree(b.at);
	kvfree(b.init_inc);
	if (ret)
		pidx_replay_free(r);
	return ret;
}
