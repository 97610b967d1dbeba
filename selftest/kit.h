/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The selftest's kit, which every phase uses (kit.c): a struct pidx_st
 * that counts one index's checks, CHECK_EQ(), the oracle, the values and
 * tracked keys that readers check, and the team of threads.  The kit owns
 * these and knows nothing of the phases (phases.h) or of the command that
 * runs them (selftest.c).  Private to selftest/.
 */
#ifndef _PIDX_SELFTEST_KIT_H
#define _PIDX_SELFTEST_KIT_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/types.h>
#include "pidx.h"
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

/* A check, counted in @st; false when it failed.  Its users are in selftest/. */
#define CHECK_EQ(st, got, want, what)					\
	pidx_st_eq(st, "selftest/" KBUILD_BASENAME ".c", __LINE__, what,	\
		   (long)(got), (long)(want))

/*
 * What the index must hold: the numbers held (reserved or published), the
 * published ones and their values, and alloc_pid()'s cursor.
 */
struct pidx_oracle {
	unsigned long *bits;	/* held: reserved or published */
	unsigned long *pub;	/* published */
	void **val;		/* a published number's value, else NULL */
	u32 pid_max;
	u32 cursor;
	u32 count;
	unsigned long gen;	/* the last generation of pidx_oracle_val() */
};

/*
 * The selftest's values: a number and a generation packed into a word that
 * an index takes for an 8-aligned object pointer and never dereferences.
 * Bit 3 is always set (never NULL), bit 4 tells two values of one
 * generation apart (two callers publishing one reservation), bits 5 to 26
 * are the number (PIDX_PID_MAX_LIMIT is 2^22) and the rest (37 bits on
 * 64-bit, which the generation checks assume) the generation: a reader
 * that finds a value can tell whose and which incarnation it is.
 */
#define ST_VAL_PID_BITS		22
#define ST_VAL_GEN_SHIFT	(5 + ST_VAL_PID_BITS)
static_assert(PIDX_PID_MAX_LIMIT <= 1UL << ST_VAL_PID_BITS);

static inline void *pidx_st_val_var(u32 pid, unsigned long gen,
				    unsigned int var)
{
	return (void *)(gen << ST_VAL_GEN_SHIFT | (unsigned long)pid << 5 |
			(var & 1) << 4 | 8);
}

static inline void *pidx_st_val(u32 pid, unsigned long gen)
{
	return pidx_st_val_var(pid, gen, 0);
}

/* whether @v is a word pidx_st_val_var() makes (else it is torn or junk) */
static inline bool pidx_st_val_ok(const void *v)
{
	return ((unsigned long)v & 15) == 8;
}

static inline u32 pidx_st_val_pid(const void *v)
{
	return ((unsigned long)v >> 5) & ((1UL << ST_VAL_PID_BITS) - 1);
}

static inline unsigned long pidx_st_val_gen(const void *v)
{
	return (unsigned long)v >> ST_VAL_GEN_SHIFT;
}

/*
 * An object for alloc_publish(), which writes the number into the object
 * whose pointer it publishes (as alloc_pid() fills pid->numbers[].nr): the
 * value is then a real pointer, known before the number is.
 */
struct pidx_st_obj {
	u32 nr;
	u32 flags;
} __aligned(8);

/*
 * Keys that writers reserve, publish and remove under readers: per number a
 * word ST_K(gen, phase), which its writer sets around each call so that a
 * reader, reading it before and after its own call, knows what the index
 * must have returned.  ST_K_MOVING is set before a publish or a removal
 * starts: a word that reads the same before and after a call, not
 * ST_K_MOVING, held for the whole call.  The generation is the oldest one a
 * lookup beginning now may return: a fresh one from @gen at each
 * reservation, and past the last one once a removal returned.
 */
enum { ST_K_ABSENT, ST_K_RESERVED, ST_K_PUBLISHED, ST_K_MOVING };
#define ST_K(gen, phase)	((unsigned long)(gen) << 2 | (phase))
#define ST_K_GEN(word)		((word) >> 2)
#define ST_K_PHASE(word)	((word) & 3)

struct pidx_st_keys {
	unsigned long *st;	/* per number */
	atomic_long_t gen;	/* the last generation handed out */
};

/* What readers saw of tracked keys, by kind of violation. */
struct pidx_st_seen {
	long reads;
	long finds;
	/* another number's value, a junk word or a generation not yet begun */
	long torn;
	/* a generation older than the key's when the lookup began */
	long stale;
	/* NULL for a key published for the whole lookup */
	long missed;
	/* a value for a key only reserved (or absent) for the whole lookup */
	long unpublished;
	/* find_ge returned a key not published for the whole call */
	long find_unpublished;
	/* find_ge passed over a key published for the whole call */
	long find_missed;
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

/* kit.c: the checks, the oracle and reads under RCU */
bool pidx_st_eq(struct pidx_st *st, const char *file, int line,
		const char *what, long got, long want);
int pidx_oracle_init(struct pidx_oracle *o, u32 pid_max);
void pidx_oracle_free(struct pidx_oracle *o);
void pidx_oracle_clear(struct pidx_oracle *o);
int pidx_oracle_alloc(struct pidx_oracle *o);
int pidx_oracle_want(struct pidx_oracle *o, int got, bool ranges);
int pidx_oracle_insert(struct pidx_oracle *o, u32 pid);
int pidx_oracle_publish(struct pidx_oracle *o, u32 pid, void *value);
void pidx_oracle_set(struct pidx_oracle *o, u32 pid, void *value);
void *pidx_oracle_val(struct pidx_oracle *o, u32 pid);
bool pidx_oracle_held(struct pidx_oracle *o, u32 pid);
void *pidx_oracle_lookup(struct pidx_oracle *o, u32 pid);
int pidx_oracle_remove(struct pidx_oracle *o, u32 pid);
int pidx_oracle_find_ge(struct pidx_oracle *o, u32 pid);
struct pidx_index *pidx_st_create_p(struct pidx_st *st, u32 pid_max,
				    bool tall, u32 salt);
struct pidx_index *pidx_st_create(struct pidx_st *st, u32 pid_max);
void *pidx_st_lookup(struct pidx_st *st, struct pidx_index *idx, u32 pid);
int pidx_st_find_ge(struct pidx_st *st, struct pidx_index *idx, u32 pid);
int pidx_st_publish(struct pidx_st *st, struct pidx_index *idx,
		    struct pidx_oracle *o, u32 pid, int *want);
bool pidx_st_kept(struct pidx_st *st, struct pidx_index *idx,
		  struct pidx_oracle *o, u32 pid);
void pidx_st_compare(struct pidx_st *st, struct pidx_index *idx,
		     struct pidx_oracle *o, const char *phase);
u32 pidx_st_fill(struct pidx_st *st, struct pidx_index *idx,
		 struct pidx_oracle *o);

/* kit.c: for the concurrent phases */
unsigned int pidx_st_ms(ktime_t since);
unsigned int pidx_st_nthreads(unsigned int per_cpu);
int pidx_st_insert(const struct pidx_ops *ops, struct pidx_index *idx,
		   u32 pid);
int pidx_st_remove(const struct pidx_ops *ops, struct pidx_index *idx,
		   u32 pid);
int pidx_st_keys_init(struct pidx_st_keys *ks, u32 n);
void pidx_st_keys_free(struct pidx_st_keys *ks);
void pidx_st_key_stable(struct pidx_st_keys *ks, u32 k);
unsigned long pidx_st_key_moving(struct pidx_st_keys *ks, u32 k);
void pidx_st_key_reserved(struct pidx_st_keys *ks, u32 k);
int pidx_st_key_publish(const struct pidx_ops *ops, struct pidx_index *idx,
			struct pidx_st_keys *ks, u32 k);
int pidx_st_key_remove(const struct pidx_ops *ops, struct pidx_index *idx,
		       struct pidx_st_keys *ks, u32 k, bool settle);
void *pidx_st_key_value(struct pidx_st_keys *ks, u32 k);
void pidx_st_read_key(const struct pidx_ops *ops, struct pidx_index *idx,
		      const unsigned long *st, u32 k, struct pidx_st_seen *s);
int pidx_st_find_key(const struct pidx_ops *ops, struct pidx_index *idx,
		     const unsigned long *st, u32 k, struct pidx_st_seen *s);
void pidx_st_seen_add(struct pidx_st_seen *sum, const struct pidx_st_seen *s);
void pidx_st_seen_check(struct pidx_st *st, const struct pidx_st_seen *s,
			const char *who);
int pidx_st_team_start(struct pidx_st_team *t, unsigned int n,
		       const struct cpumask *cpus, void *priv,
		       size_t size, unsigned int ms);
void pidx_st_team_end(struct pidx_st_team *t);
int pidx_st_team_run(struct pidx_st_team *t, unsigned int n, void *priv,
		     size_t size, unsigned int ms);

#endif /* _PIDX_SELFTEST_KIT_H */
