// SPDX-License-Identifier: GPL-2.0
/*
 * pidx traces: the replay workload's parser, summary and plan (see
 * pidx_trace.h).  The parser takes text in pieces of any size, as debugfs
 * writes and a file read in blocks give it, and leaves a trace unchanged
 * by a piece it refuses.
 */
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

/* t=US: below 2^63 */
#define PIDX_TRACE_T_LIMIT	BIT_ULL(63)
/* level=L: a PID namespace level, at most 32 */
#define PIDX_TRACE_LEVEL_LIMIT	33U
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

int pidx_trace_copy(struct pidx_trace *dst, const struct pidx_trace *src)
{
	*dst = *src;
	dst->ev = NULL;
	dst->cap = 0;
	if (!src->nev)
		return 0;
	dst->ev = kvmalloc_array(src->nev, sizeof(*dst->ev), GFP_KERNEL);
	if (!dst->ev) {
		pidx_trace_init(dst);
		return -ENOMEM;
	}
	memcpy(dst->ev, src->ev, src->nev * sizeof(*dst->ev));
	dst->cap = src->nev;
	return 0;
}

void pidx_trace_mark(const struct pidx_trace *t, struct pidx_trace_mark *m)
{
	m->nev = t->nev;
	m->rd = t->rd;
}

/* a grown array keeps its room */
void pidx_trace_rewind(struct pidx_trace *t, const struct pidx_trace_mark *m)
{
	t->nev = m->nev;
	t->rd = m->rd;
}

/*
 * The @n bytes at @s as a decimal number below @lim (greater than 9):
 * digits only, no sign, no leading zero.
 */
static int pidx_trace_num(const char *s, size_t n, u64 lim, u64 *out)
{
	u64 v = 0;
	size_t i;

	if (!n || (s[0] == '0' && n > 1))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (lim - 1 - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* The words of a line, split at each single space. */
struct pidx_trace_words {
	const char *p, *end;
	bool more;
};

/* the next word (maybe empty) in *@w, *@n: false past the last */
static bool pidx_trace_word(struct pidx_trace_words *ws, const char **w, size_t *n)
{
	const char *sp;

	if (!ws->more)
		return false;
	sp = memchr(ws->p, ' ', ws->end - ws->p);
	*w = ws->p;
	*n = (sp ? sp : ws->end) - ws->p;
	ws->more = sp;
	ws->p = sp ? sp + 1 : ws->end;
	return true;
}

static const char *const pidx_trace_keys[] = { "cpu", "t", "level" };
static const u64 pidx_trace_key_limit[] = {
	PIDX_TRACE_CPU_LIMIT, PIDX_TRACE_T_LIMIT, PIDX_TRACE_LEVEL_LIMIT
};

/* The optional fields after the PIDs: cpu=, t=, level=, in this order. */
static int pidx_trace_fields(struct pidx_trace_words *ws, struct pidx_trace_ev *ev,
			     u64 *tv, bool *has_t, const char **why)
{
	unsigned int k, stage = 0;
	const char *w, *eq;
	size_t n;
	u64 v;

	while (pidx_trace_word(ws, &w, &n)) {
		if (!n) {
			*why = "fields are separated by single spaces, none before or after";
			return -EINVAL;
		}
		eq = memchr(w, '=', n);
		if (!eq) {
			*why = "text after the PIDs: only cpu=N, t=US, level=L may follow";
			return -EINVAL;
		}
		for (k = 0; k < ARRAY_SIZE(pidx_trace_keys); k++)
			if (eq - w == strlen(pidx_trace_keys[k]) &&
			    !memcmp(w, pidx_trace_keys[k], eq - w))
				break;
		if (k == ARRAY_SIZE(pidx_trace_keys)) {
			*why = "an unknown field (cpu=, t=, level=)";
			return -EINVAL;
		}
		if (k < stage) {
			*why = "fields out of order or repeated (cpu=, t=, level=)";
			return -EINVAL;
		}
		stage = k + 1;
		if (pidx_trace_num(eq + 1, w + n - eq - 1, pidx_trace_key_limit[k], &v)) {
			*why = k == 0 ? "cpu= not a decimal below 8192" :
			       k == 1 ? "t= not a decimal below 2^63" :
			       "level= not a decimal of at most 32";
			return -EINVAL;
		}
		if (k == 0) {
			ev->cpu = v;
		} else if (k == 1) {
			*tv = v;
			*has_t = true;
		}
	}
	return 0;
}

/*
 * One line without its newline: 1 and *@ev for an event (*@has_t and
 * *@tv its t=), 0 for a comment or a blank line, -EINVAL with *@why for
 * anything else.  Exactly docs/traces.md's format, as check-trace.py
 * reads it.
 */
static int pidx_trace_line(const struct pidx_trace *t, const char *s, size_t len,
			   struct pidx_trace_ev *ev, u64 *tv, bool *has_t,
			   const char **why)
{
	struct pidx_trace_words ws = { s, s + len, true };
	unsigned int op, i, npids;
	const char *w;
	size_t n;
	u64 v;

	if (!len || s[0] == '#')
		return 0;
	for (i = 0; i < len; i++) {
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e) {
			*why = "a byte that is not printable ASCII (a tab, a carriage return, ...)";
			return -EINVAL;
		}
	}
	pidx_trace_word(&ws, &w, &n);
	if (!n) {
		*why = "fields are separated by single spaces, none before or after";
		return -EINVAL;
	}
	for (op = 0; op < PIDX_NR_TEV; op++)
		if (n == 4 && !memcmp(w, pidx_trace_op_names[op], 4))
			break;
	if (op == PIDX_NR_TEV) {
		*why = "not fork, exit, wait or free";
		return -EINVAL;
	}
	memset(ev, 0, sizeof(*ev));
	ev->op = op;
	ev->cpu = PIDX_TRACE_NO_CPU;
	*has_t = false;
	npids = op == PIDX_TEV_FORK ? 2 : 1;
	for (i = 0; i < npids; i++) {
		if (!pidx_trace_word(&ws, &w, &n)) {
			*why = "a PID missing";
			return -EINVAL;
		}
		if (pidx_trace_num(w, n, PIDX_PID_MAX_LIMIT, &v) || !v) {
			*why = "a PID not a decimal in [1, 4194304)";
			return -EINVAL;
		}
		if (i + 1 < npids)
			ev->parent = v;
		else
			ev->pid = v;
	}
	if (pidx_trace_fields(&ws, ev, tv, has_t, why))
		return -EINVAL;
	if (*has_t && t->rd.has_t && *tv < t->rd.last_t) {
		*why = "t= earlier than the last line's t=";
		return -EINVAL;
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

#define PIDX_TRACE_HEADER	"# events recorded: "

/* A comment: the first "# events recorded: N" header line noted. */
static void pidx_trace_header(struct pidx_trace *t, const char *s, size_t len)
{
	size_t i, n = strlen(PIDX_TRACE_HEADER);
	u64 v = 0;

	if (t->rd.header_line || len <= n || memcmp(s, PIDX_TRACE_HEADER, n) ||
	    s[n] < '0' || s[n] > '9')
		return;
	/* any digits, a larger N than any trace's saturating */
	for (i = n; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		v = min_t(u64, v * 10 + (s[i] - '0'), U32_MAX);
	t->rd.header_line = t->rd.lines + 1;
	t->rd.header_events = v;
}

/* The held line, whole: parsed, and appended if an event. */
static int pidx_trace_take(struct pidx_trace *t, u32 *line, const char **why)
{
	struct pidx_trace_ev ev;
	bool has_t;
	u64 tv;
	int ret;

	*line = t->rd.lines + 1;
	ret = pidx_trace_line(t, t->rd.partial, t->rd.partial_len, &ev, &tv, &has_t, why);
	if (ret < 0)
		return ret;
	if (!ret && t->rd.partial_len && t->rd.partial[0] == '#')
		pidx_trace_header(t, t->rd.partial, t->rd.partial_len);
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
		if (has_t) {
			t->rd.last_t = tv;
			t->rd.has_t = true;
		}
	}
	t->rd.lines++;
	t->rd.partial_len = 0;
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
		/* the newline counts: a held line may still end without one */
		if (t->rd.partial_len + take + !!nl > PIDX_TRACE_LINE_MAX) {
			*line = t->rd.lines + 1;
			*why = "a line longer than 128 bytes, its newline included";
			ret = -EINVAL;
			break;
		}
		memcpy(t->rd.partial + t->rd.partial_len, buf, take);
		t->rd.partial_len += take;
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

	if (t->rd.partial_len) {
		pidx_trace_mark(t, &m);
		ret = pidx_trace_take(t, line, why);
		if (ret) {
			pidx_trace_rewind(t, &m);
			return ret;
		}
	}
	if (t->rd.header_line && t->rd.header_events != t->nev) {
		*line = t->rd.header_line;
		*why = "the header's events recorded differ from the events in the trace";
		return -EINVAL;
	}
	return 0;
}

int pidx_trace_summary(const struct pidx_trace *t, struct pidx_trace_sum *sum)
{
	unsigned long *cpus;
	/* per PID: 0 not named yet, else 1 + its live incarnations */
	u32 *st;
	u32 i, pid;

	memset(sum, 0, sizeof(*sum));
	sum->events = t->nev;
	sum->lines = t->rd.lines;
	sum->pending = t->rd.partial_len;
	st = kvcalloc(PIDX_PID_MAX_LIMIT, sizeof(*st), GFP_KERNEL);
	cpus = kvcalloc(BITS_TO_LONGS(PIDX_TRACE_CPU_LIMIT), sizeof(*cpus), GFP_KERNEL);
	if (!st || !cpus) {
		kvfree(st);
		kvfree(cpus);
		return -ENOMEM;
	}
	for (i = 0; i < t->nev; i++) {
		const struct pidx_trace_ev *e = &t->ev[i];

		sum->count[e->op]++;
		if (e->cpu != PIDX_TRACE_NO_CPU && !__test_and_set_bit(e->cpu, cpus))
			sum->cpus++;
		if (e->op == PIDX_TEV_FORK) {
			if (!st[e->parent]) {
				st[e->parent] = 2;
				sum->initial++;
			}
			pid = e->pid;
			if (st[pid] > 1)
				sum->reused++;
			st[pid] = max(st[pid], 1U) + 1;
			continue;
		}
		pid = e->pid;
		if (!st[pid]) {
			st[pid] = 2;
			sum->initial++;
		} else if (st[pid] == 1) {
			sum->orphans++;
			continue;
		}
		if (e->op == PIDX_TEV_FREE)
			st[pid]--;
	}
	kvfree(st);
	kvfree(cpus);
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

/*
 * A trace PID's live incarnations, a FIFO: none yet, none left (freed), or
 * 1 + its newest's number; link[] rings each PID's live ones, the newest's
 * link naming the oldest, every other's the next newer.
 */
#define PIDX_INC_NONE	0U
#define PIDX_INC_DEAD	U32_MAX

struct pidx_replay_build {
	u32 *cur;		/* per trace PID */
	u32 *link;		/* per incarnation: the ring of its PID's live ones */
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
	u32 inc = b->ninc++, c, cur = b->cur[pid];

	c = (cpu != PIDX_TRACE_NO_CPU ? cpu : inc) % r->ncpus;
	b->owner[inc] = c;
	b->local[inc] = r->cpu[c].ninc++;
	if (cur == PIDX_INC_NONE || cur == PIDX_INC_DEAD) {
		b->link[inc] = inc;
	} else {
		b->link[inc] = b->link[cur - 1];
		b->link[cur - 1] = inc;
	}
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
	u32 i, inc, cur, newest;

	for (i = 0; i < t->nev; i++) {
		const struct pidx_trace_ev *e = &t->ev[i];

		b->code[i] = U32_MAX;
		if (e->op == PIDX_TEV_FORK) {
			/* a parent named first here was live; it takes no operation */
			if (b->cur[e->parent] == PIDX_INC_NONE)
				pidx_replay_new_initial(b, r, e->parent, e->cpu);
			/* a fork of a live PID too: its older one's free comes later */
			inc = pidx_replay_new_inc(b, r, e->pid, e->cpu);
		} else {
			cur = b->cur[e->pid];
			if (cur == PIDX_INC_DEAD) {
				r->orphans++;
				continue;
			}
			if (cur == PIDX_INC_NONE)
				pidx_replay_new_initial(b, r, e->pid, e->cpu);
			newest = b->cur[e->pid] - 1;
			inc = newest;
			if (e->op == PIDX_TEV_FREE) {
				/* the oldest live one goes */
				inc = b->link[newest];
				if (inc == newest)
					b->cur[e->pid] = PIDX_INC_DEAD;
				else
					b->link[newest] = b->link[inc];
			}
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
	b.link = kvmalloc_array(incs, sizeof(u32), GFP_KERNEL);
	b.owner = kvmalloc_array(incs, sizeof(u32), GFP_KERNEL);
	b.local = kvmalloc_array(incs, sizeof(u32), GFP_KERNEL);
	b.code = kvmalloc_array(t->nev + 1, sizeof(u32), GFP_KERNEL);
	b.at = kvmalloc_array(t->nev + 1, sizeof(u32), GFP_KERNEL);
	b.init_inc = kvmalloc_array(incs, sizeof(u32), GFP_KERNEL);
	if (!r->cpu || !b.cur || !b.link || !b.owner || !b.local || !b.code || !b.at || !b.init_inc)
		goto out;
	pidx_replay_assign(t, r, &b);
	ret = pidx_replay_fill(t, r, &b);
out:
	kvfree(b.cur);
	kvfree(b.link);
	kvfree(b.owner);
	kvfree(b.local);
	kvfree(b.code);
	kvfree(b.at);
	kvfree(b.init_inc);
	if (ret)
		pidx_replay_free(r);
	return ret;
}
