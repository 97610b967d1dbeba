/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx workloads: what one storm operation does, what it checks, and how a
 * storm CPU times its batches.  One definition, compiled into the module
 * (Kbuild) and into the user-space build (user/Makefile), so both run the
 * very same operations; pidx_substrate.c keeps what only the kernel has
 * (IPIs, kthreads, the prefill placement).  The operations and their
 * timing are pidx_workload.c's, a PID's alloc and exit over the levels
 * pidx_workload_fork.c's, the plan and the keys' order
 * pidx_workload_plan.c's.
 */
#ifndef _PIDX_WORKLOAD_H
#define _PIDX_WORKLOAD_H

#include <linux/completion.h>
#include <linux/spinlock.h>
#include "pidx_engine.h"
#include "pidx_pid.h"
#include "pidx_shape.h"

#define PIDX_BATCH_MAX		1024U
#define PIDX_BATCH_MIN		16U
/* one batch in PIDX_LAT_EVERY is timed op by op */
#define PIDX_LAT_EVERY		8
#define PIDX_LAT_MAX		4096
#define PIDX_WARMUP_OPS		1024

struct pidx_storm;
struct task_struct;

struct pidx_worker {
	struct pidx_storm *storm;
	struct task_struct *task;
	unsigned int cpu;
	u64 rng;

	/*
	 * PIDs this CPU owns and may delete, oldest first.  A remote-exit
	 * fork storm's ring is also emptied by the previous CPU (the one
	 * whose exit_from this is), under ring_lock; otherwise only its CPU
	 * touches it, without the lock.
	 */
	struct pidx_pid **ring;
	u32 ring_cap;
	u32 ring_head;
	u32 ring_len;
	raw_spinlock_t ring_lock;
	struct pidx_worker *exit_from;	/* whose oldest PIDs this CPU frees */
	u64 local_exits;
	/* fork_wait: time spent waiting for room; the batch's start */
	u64 wait_ns;
	u64 batch_t0;
	/*
	 * Forks of this CPU that failed, whose unwind an index refused for
	 * memory (remove_may_fail): each object keeps the levels still
	 * reserved, the others zero, until this CPU's next fork removes
	 * them, or the storm's end destroys the index.  Only this CPU
	 * touches the list.
	 */
	struct pidx_pid *stranded;

	u32 done;
	u32 batches;
	u64 timed_ops;
	u64 ns;
	u64 fails;
	u64 errors;
	u32 bad_key;
	const char *bad_why;

	u32 *lat;
	u32 nlat;
	u32 lat_seen;

	u32 iter_next;
	u32 iter_seen;

	u32 walk_pos;			/* this CPU's place in the aged or dist walk */

	u32 nops;			/* operations to run: ops, or replay's events */
	/*
	 * replay: this CPU's events (the run's plan, read in order) and its
	 * map from each incarnation it owns to its object, which holds the
	 * number alloc() gave it (NULL: not live).  Only this CPU reads or
	 * writes the map during the storm.
	 */
	const u32 *rev;
	struct pidx_pid **rmap;
	u32 rpos;
	u64 orphans;			/* events whose PID's fork had failed */

	/* bounds: the longest ipi callback (irqs off) and kthread batch */
	u64 irqs_off_max_ns;
	u64 batch_max_ns;
	u32 stall_ms;			/* stall_test: spin before the next batch */

	struct pidx_visit_sum visits;
	struct pidx_pmu_set pmu;
} ____cacheline_aligned_in_smp;

struct pidx_storm {
	const struct pidx_ops *ops;
	/*
	 * One instance per namespace level, lvl[0] the first (the init
	 * namespace's), a level group (pidx_params.group).  Lookups, find_ge
	 * and the row's figures are of the deepest level's, idx, where a
	 * container's processes look each other up; the objects hold their
	 * number of that level at numbers[look_level].
	 */
	struct pidx_index *lvl[PIDX_LEVELS_MAX];
	unsigned int nlevels;
	struct pidx_index *idx;
	unsigned int look_level;
	const struct pidx_config *cfg;
	gfp_t gfp;
	u32 batch;
	u64 round_max_ns;		/* ipi: longest on_each_cpu round */

	/*
	 * The prefill's PIDs are the run's shape, key i for i in [0, nkeys)
	 * (pidx_shape_key(); dense: 1..nkeys, checked as they are made, the
	 * null index's excepted).  The storm takes them in the order of an
	 * affine permutation, pidx_key_of(): the j-th is key (j * mul + add) %
	 * nkeys.  [0, stable) of that order are never deleted; each CPU owns a
	 * slice of the rest.  A formula, not an array: a lookup draws its PID
	 * with a few instructions instead of a load from 4 MB of keys at 1M
	 * keys, which cost the engine (and every index's lookup) a cache miss.
	 * The aged shape has no formula: its lookups walk a shuffled copy of
	 * the set in turn, each CPU from its own place, loads the hardware
	 * prefetches (shape->walk).  A dist other than uniform walks its own
	 * array so (shape->dist_walk, pidx_dist.h).
	 */
	const struct pidx_shape_set *shape;
	/*
	 * The prefill's objects, objs[i] the value of key i of the shape;
	 * nobjs made so far.  Once dealt, the rings and replay maps own those
	 * past [0, stable) of the order, and objs[] keeps only the stable
	 * ones' for certain: the others may be freed by the storm.
	 */
	struct pidx_pid **objs;
	u32 nobjs;
	bool dealt;
	/* lookups compare the number in the value with the key looked up */
	bool check_values;
	/* spread and aged: the keys nobody may delete, for a lookup's miss */
	unsigned long *stable_map;
	u32 nkeys;
	u32 stable;
	u32 slice;			/* keys each CPU owns at the start */
	u32 perm_mul;
	u32 perm_add;
	u32 perm_inv;			/* perm_mul's inverse modulo nkeys */
	bool remote_exit;		/* fork: exit_from is another CPU's */
	/* fork: a full window waits for its exits (pidx_fork_wait()) */
	bool fork_wait;
	u32 fork_full;			/* fork: a window this long exits first */
	/* index objects per NUMA node right after the prefill */
	u64 mem_nodes[PIDX_NODES_MAX];
	bool mem_nodes_known;
	/* how many storm CPUs opened which counters */
	u32 pmu_opened[PIDX_PMU_NR];

	struct pidx_worker *workers;
	unsigned int nworkers;
	unsigned int *worker_of;	/* CPU number -> worker */

	/* kthread mode; abort also stops the prefill */
	atomic_t ready;
	atomic_t finished;
	bool go;
	bool abort;
	bool erred;			/* some worker counted an error */
	u64 t_go;
	u64 t_end;
	struct completion all_done;
};

u32 pidx_space(u32 pid_max);

/* operations per batch: one ipi round per CPU, or between two cond_resched() */
static inline u32 pidx_batch(u32 ops)
{
	return clamp(ops / 16, PIDX_BATCH_MIN, PIDX_BATCH_MAX);
}

/* fork_exit=remote as it runs: with one CPU there is no other to free */
static inline bool pidx_fork_remote(const struct pidx_config *cfg, unsigned int ncpus)
{
	return cfg->workload == PIDX_WL_FORK && cfg->fork_exit == PIDX_EXIT_REMOTE &&
	       ncpus > 1;
}

/*
 * The first error of a storm CPU is the one its row names; the storm learns
 * of it too, so that no CPU waits on one whose exits fail (pidx_fork_wait()).
 */
static inline void pidx_worker_error(struct pidx_worker *w, u32 key, const char *why)
{
	if (!w->errors++) {
		w->bad_key = key;
		w->bad_why = why;
		WRITE_ONCE(w->storm->erred, true);
	}
}

int pidx_publish_levels(struct pidx_storm *s, struct pidx_pid *pid);
int pidx_remove_levels(struct pidx_storm *s, struct pidx_pid *pid);
struct pidx_pid *pidx_alloc_pid(struct pidx_worker *w);
int pidx_exit_pid(struct pidx_worker *w, struct pidx_pid *pid);
void pidx_run_batch(struct pidx_worker *w);
void pidx_untimed_lookups(struct pidx_worker *w, u32 n);
void pidx_order_init(struct pidx_storm *s, u64 *rng);
u32 pidx_shape_index_of(const struct pidx_storm *s, u32 j);
u32 pidx_key_of(const struct pidx_storm *s, u32 j);
u32 pidx_pos_of(const struct pidx_storm *s, u32 key);
int pidx_plan(const struct pidx_config *cfg, unsigned int ncpus,
	      u32 *slice, u32 *ring_cap, const char **why);

#endif /* _PIDX_WORKLOAD_H */
