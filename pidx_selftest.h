/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the selftest share.  The command (pidx_selftest.c) runs
 * the phases of each index in turn; the phases, a file per kind of test,
 * count their checks in a struct pidx_st with the kit (pidx_selftest_kit.c):
 * CHECK_EQ(), the oracle and the team of threads.  Private to those files.
 */
#ifndef _PIDX_SELFTEST_H
#define _PIDX_SELFTEST_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/types.h>
#include "pidx_state.h"

struct cpumask;
struct task_struct;

/* One index's selftest: its checks so far, passed and in all. */
struct pidx_st {
	const struct pidx_ops *ops;
	/* the settings as the selftest began: nothing writes them meanwhile */
	const struct pidx_config *cfg;
	struct pidx_log *log;
	unsigned int passed;
	unsigned int total;
};

/* A check, counted in @st; false when it failed. */
#define CHECK_EQ(st, got, want, what)					\
	pidx_st_eq(st, KBUILD_BASENAME ".c", __LINE__, what, (long)(got),	\
		   (long)(want))

/* What the index must hold: the keys and alloc_pid()'s cursor. */
struct pidx_oracle {
	unsigned long *bits;
	u32 pid_max;
	u32 cursor;
	u32 count;
};

struct pidx_st_team;

struct pidx_st_worker {
	struct pidx_st_team *team;
	void *priv;		/* the phase's state for this thread */
	unsigned int id;
	u64 rng;
};

/* Threads bound to a set of CPUs in turn and released together. */
struct pidx_st_team {
	void (*fn)(struct pidx_st_worker *w);
	void *ctx;		/* the phase's shared state */
	struct pidx_st_worker *w;
	struct task_struct **tasks;
	unsigned int n;
	atomic_t ready;
	atomic_t running;
	struct completion go;
	struct completion done;
	unsigned long deadline;
	bool stop;
	u64 seed;		/* the workers' generators are drawn from it */
};

/* whether a team's worker goes on: an inline, as it was, in every loop */
static inline bool pidx_st_going(struct pidx_st_worker *w)
{
	return !READ_ONCE(w->team->stop) &&
	       time_before(jiffies, w->team->deadline);
}

/* pidx_selftest_kit.c: the checks, the oracle and reads under RCU */
bool pidx_st_eq(struct pidx_st *st, const char *file, int line,
		const char *what, long got, long want);
int pidx_oracle_init(struct pidx_oracle *o, u32 pid_max);
int pidx_oracle_alloc(struct pidx_oracle *o);
int pidx_oracle_want(struct pidx_oracle *o, int got, bool ranges);
int pidx_oracle_insert(struct pidx_oracle *o, u32 pid);
int pidx_oracle_remove(struct pidx_oracle *o, u32 pid);
int pidx_oracle_find_ge(struct pidx_oracle *o, u32 pid);
struct pidx_index *pidx_st_create_p(struct pidx_st *st, u32 pid_max,
				    bool tall, u32 salt);
struct pidx_index *pidx_st_create(struct pidx_st *st, u32 pid_max);
bool pidx_st_lookup(struct pidx_st *st, struct pidx_index *idx, u32 pid);
int pidx_st_find_ge(struct pidx_st *st, struct pidx_index *idx, u32 pid);
void pidx_st_compare(struct pidx_st *st, struct pidx_index *idx,
		     struct pidx_oracle *o, const char *phase);
u32 pidx_st_fill(struct pidx_st *st, struct pidx_index *idx,
		 struct pidx_oracle *o);

/* pidx_selftest_kit.c: for the concurrent phases */
unsigned int pidx_st_ms(ktime_t since);
unsigned int pidx_st_nthreads(unsigned int per_cpu);
int pidx_st_insert(const struct pidx_ops *ops, struct pidx_index *idx,
		   u32 pid);
int pidx_st_remove(const struct pidx_ops *ops, struct pidx_index *idx,
		   u32 pid);
int pidx_st_team_start(struct pidx_st_team *t, unsigned int n,
		       const struct cpumask *cpus, void *priv,
		       size_t size, unsigned int ms);
void pidx_st_team_end(struct pidx_st_team *t);

/* pidx_selftest_seq.c: the sequential phases, against the oracle */
void pidx_st_basic(struct pidx_st *st);
void pidx_st_set_cursor(struct pidx_st *st);
void pidx_st_faults(struct pidx_st *st);
void pidx_st_random(struct pidx_st *st, u32 pid_max, u32 nops);
void pidx_st_remove_present(struct pidx_st *st);

/* pidx_selftest_alloc.c: alloc() from every CPU, filling and wrapping */
void pidx_st_alloc_fill(struct pidx_st *st);
void pidx_st_alloc_wrap(struct pidx_st *st);

/* pidx_selftest_race.c: insert() and remove() of the same keys racing */
void pidx_st_race(struct pidx_st *st);

/* pidx_selftest_readers.c: lockless readers in hard irq and while resizing */
void pidx_st_irq(struct pidx_st *st);
void pidx_st_grow(struct pidx_st *st);

#endif /* _PIDX_SELFTEST_H */
