/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx traces (the replay workload): a recorded fork/exit/wait/free stream,
 * parsed and checked here, and its plan for a storm's CPUs.  Built into the
 * module (Kbuild) and into user/pidx-user (user/Makefile), so that both
 * read a trace alike (docs/traces.md has the format).
 *
 * One event a line: "fork PARENT CHILD", "exit PID", "wait PID", "free PID",
 * PIDs decimal in [1, 4194304), then optionally "cpu=N", "t=US",
 * "level=L", in that order, single spaces between fields, numbers without
 * sign or leading zero; blank (empty) lines and lines starting with '#'
 * are comments.  A line is at most PIDX_TRACE_LINE_MAX bytes, its newline
 * included; a trace at most PIDX_TRACE_EVENTS_MAX events.  The parser
 * agrees with scripts/check-trace.py line for line.
 *
 * A replay maps each incarnation of a trace PID to the number the index's
 * alloc() gave it.  Each trace PID has a FIFO of live incarnations: a fork
 * pushes a new one (even while an older one is live: its free lags the
 * kernel's release of the number by an RCU grace period), a free pops the
 * oldest, an exit or a wait names the newest.  PIDs the trace names
 * before any fork of them were live when the recording began: the storm
 * prefills them after the run's keys (positions keys .. keys + initial - 1
 * of the run's shape, made with keys + initial keys), and they stay until
 * the trace frees them.
 */
#ifndef _PIDX_TRACE_H
#define _PIDX_TRACE_H

#include <linux/types.h>

#define PIDX_TRACE_LINE_MAX	128
#define PIDX_TRACE_EVENTS_MAX	1000000U
/* cpu=N: N below this (x86-64's largest NR_CPUS) */
#define PIDX_TRACE_CPU_LIMIT	8192U
#define PIDX_TRACE_NO_CPU	U32_MAX
#define PIDX_TRACE_WHY_MAX	96

enum pidx_trace_op {
	PIDX_TEV_FORK,
	PIDX_TEV_EXIT,
	PIDX_TEV_WAIT,
	PIDX_TEV_FREE,
	PIDX_NR_TEV
};

struct pidx_trace_ev {
	u32 pid;		/* fork: the child */
	u32 parent;		/* fork only */
	u32 cpu;		/* PIDX_TRACE_NO_CPU when the line gave none */
	u32 op;
};

/* Where the reading of a trace's text stands, beside its events. */
struct pidx_trace_read {
	u32 lines;		/* lines read whole, comments included */
	u64 last_t;		/* the last t= seen, if has_t */
	bool has_t;
	/* the first "# events recorded: N" line's number (0: none yet) and N */
	u32 header_line;
	u64 header_events;
	u32 partial_len;
	char partial[PIDX_TRACE_LINE_MAX + 2];
};

/* A trace as read so far: whole lines parsed, a last partial line held. */
struct pidx_trace {
	struct pidx_trace_ev *ev;
	u32 nev;
	u32 cap;
	struct pidx_trace_read rd;
};

/* What reading trace shows (pidx_trace_summary()). */
struct pidx_trace_sum {
	u32 events;
	u32 count[PIDX_NR_TEV];
	u32 initial;		/* PIDs named before any fork of them */
	u32 orphans;		/* events on a PID freed before and not forked since */
	u32 reused;		/* forks of a PID still live (before its free) */
	u32 cpus;		/* distinct cpu= values */
	u32 lines;
	u32 pending;		/* bytes of a last line without its newline */
};

/* The plan of one CPU of a replay: its events in trace order. */
struct pidx_replay_cpu {
	/* op << PIDX_REPLAY_OP_SHIFT | the incarnation's place in this CPU's map */
	u32 *ev;
	u32 nev;
	u32 ninc;		/* incarnations this CPU owns: its map's length */
	/* initially-live ones: pairs (place in the map, initial number i) */
	u32 *init;
	u32 ninit;
};

#define PIDX_REPLAY_OP_SHIFT	30
#define PIDX_REPLAY_INC_MASK	((1U << PIDX_REPLAY_OP_SHIFT) - 1)

/* A trace laid out for @ncpus storm CPUs, once per run, before any storm. */
struct pidx_replay {
	struct pidx_replay_cpu *cpu;
	unsigned int ncpus;
	u32 events;		/* the trace's events */
	u32 initial;		/* its initially-live PIDs: keys + initial prefilled */
	u32 orphans;		/* events left out: their PID was not live */
	u32 most;		/* the most events one CPU replays */
};

extern const char *const pidx_trace_op_names[PIDX_NR_TEV];

/* Where a trace stood, to go back there when a later piece is refused. */
struct pidx_trace_mark {
	u32 nev;
	struct pidx_trace_read rd;
};

void pidx_trace_mark(const struct pidx_trace *t, struct pidx_trace_mark *m);
void pidx_trace_rewind(struct pidx_trace *t, const struct pidx_trace_mark *m);
void pidx_trace_init(struct pidx_trace *t);
void pidx_trace_free(struct pidx_trace *t);
/* @dst, uninitialised, made a copy of @src (-ENOMEM: @dst empty) */
int pidx_trace_copy(struct pidx_trace *dst, const struct pidx_trace *src);
/*
 * @len more bytes of the trace's text: every whole line parsed, a last
 * partial line held for the next call.  On error (-EINVAL a malformed line,
 * -EFBIG past PIDX_TRACE_EVENTS_MAX events, -ENOMEM) the trace is as it was
 * before the call, *@line is the line's number (from 1) and *@why says why.
 */
int pidx_trace_feed(struct pidx_trace *t, const char *buf, size_t len,
		    u32 *line, const char **why);
/*
 * The end of the text: a held partial line parsed as the last line, and
 * the events counted against a "# events recorded: N" header line.
 */
int pidx_trace_end(struct pidx_trace *t, u32 *line, const char **why);
/* Process context: needs 16 MB of kvcalloc() for a moment (-ENOMEM). */
int pidx_trace_summary(const struct pidx_trace *t, struct pidx_trace_sum *sum);

/*
 * The plan of a replay of @t on @ncpus CPUs: each incarnation's events on
 * the CPU its first event recorded (cpu= modulo @ncpus; its incarnation
 * number modulo @ncpus without cpu=).  Process context.
 */
int pidx_replay_make(const struct pidx_trace *t, unsigned int ncpus,
		     struct pidx_replay *r);
void pidx_replay_free(struct pidx_replay *r);

#endif /* _PIDX_TRACE_H */
