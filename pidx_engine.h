/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx storm engine: the settings of a run and the row it records, shared by
 * both substrates (the module and user/pidx-user).  The module's own state
 * around them is pidx_state.h's.
 */
#ifndef _PIDX_ENGINE_H
#define _PIDX_ENGINE_H

#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include "pidx.h"

struct pidx_replay;

enum pidx_workload {
	PIDX_WL_LOOKUP,
	PIDX_WL_INSERT,
	PIDX_WL_DELETE,
	PIDX_WL_MIXED,
	PIDX_WL_FORK,
	PIDX_WL_ITERATE,
	PIDX_WL_REPLAY,		/* a recorded trace (pidx_trace.h) */
	PIDX_NR_WORKLOADS
};

/* shape setting: which PIDs the prefill leaves (pidx_shape.h) */
enum pidx_shape {
	PIDX_SHAPE_DENSE,
	PIDX_SHAPE_SPREAD,
	PIDX_SHAPE_AGED,
	PIDX_NR_SHAPES
};

/* dist setting: which PIDs of the set lookups draw (pidx_dist.h) */
enum pidx_dist {
	PIDX_DIST_UNIFORM,
	PIDX_DIST_ZIPF,
	PIDX_DIST_RECENT,
	PIDX_DIST_SEQUENTIAL,
	PIDX_NR_DISTS
};

enum pidx_mode {
	PIDX_MODE_IPI,
	PIDX_MODE_KTHREAD,
	PIDX_NR_MODES
};

/* fork_exit setting: which CPU frees a fork storm's PID */
enum pidx_fork_exit {
	PIDX_EXIT_REMOTE,
	PIDX_EXIT_LOCAL,
	PIDX_NR_EXITS
};

/* pmu setting: which counters a storm reads (pidx_pmu.c) */
enum pidx_pmu_mode {
	PIDX_PMU_AUTO,		/* the CPU's own counters where the kernel has a PMU */
	PIDX_PMU_OFF,
	PIDX_PMU_SW,		/* the software cpu-clock in every column: tests the path */
	PIDX_NR_PMU_MODES
};

enum pidx_pmu_counter {
	PIDX_PMU_CYCLES,
	PIDX_PMU_INSTRUCTIONS,
	PIDX_PMU_CACHE_REFS,
	PIDX_PMU_CACHE_MISSES,
	PIDX_PMU_LLC_LOAD_MISSES,
	PIDX_PMU_NR
};

extern const char *const pidx_pmu_counter_names[PIDX_PMU_NR];

enum pidx_mix_op { PIDX_MIX_LOOKUP, PIDX_MIX_INSERT, PIDX_MIX_DELETE, PIDX_NR_MIX };

/* Upper bounds of the settings, also used by the validation of writes. */
#define PIDX_OPS_MAX		10000000U
#define PIDX_REPEAT_MAX		1000U
#define PIDX_FORK_WINDOW_MAX	65536U
#define PIDX_FORK_LOOKUPS_MAX	3U

/*
 * The longest an ipi round may keep interrupts off on a CPU, and the longest
 * an on_each_cpu round or a kthread batch may take, before the row is slow
 * (pidx_check_bounds()): a storm that long says nothing of the index's
 * speed, though its result may be right, which verification alone judges.
 * Under TCG with two CPU-bound loops beside the guest on a busy 2-core host,
 * 444 storms like make check's gave at most 262 ms with interrupts off, 267 ms
 * per ipi round and 1105 ms per kthread batch (a maple fork batch, which may
 * sleep in its allocations); the VM runner saw the host take a vCPU away for
 * 1 to 2.3 s now and then.  The clock is ktime, so such a host pause
 * lengthens the figure too: the bound holds whatever the host did, and the
 * runner, not the module, judges host pauses.  It is still far below the
 * 20 to 60 s after which the kernel's stall detectors speak.
 */
#define PIDX_ROUND_BOUND_MS	5000U
/*
 * stall_test (tests only): the next storm's first batch spins this long at
 * most: past the bound, below the soft-lockup (20 s) and RCU stall (21 s)
 * defaults.  An NMI hard-lockup detector, where there is one, may report a
 * spin with interrupts off of 6 s or more (watchdog_thresh 10).
 */
#define PIDX_STALL_TEST_MAX_MS	9000U

/*
 * pid_max's default, as the kernel sizes its own (kernel/pid.c,
 * pid_idr_init()): PID_MAX_DEFAULT, or PIDS_PER_CPU_DEFAULT per possible
 * CPU on a machine of more than 32, so that a storm on every CPU of a
 * large machine has the room a fork storm there would have.
 */
#define PIDX_PIDS_PER_CPU	1024U

/*
 * Which settings the user wrote (a debugfs write or module parameter, an
 * option of pidx-user's): one left alone may be fitted to the machine
 * (ops, pidx_plan_ops()), one written never is.
 */
struct pidx_written {
#define PIDX_SETTING(n, ...)	bool n
#include "pidx_settings_table.h"
#undef PIDX_SETTING
};

struct pidx_config {
	unsigned long indexes;		/* bit i: pidx_index_table[i] */
	enum pidx_workload workload;
	u32 mix[PIDX_NR_MIX];		/* percentages, sum 100 */
	u32 keys;
	u32 ops;			/* per CPU */
	enum pidx_mode mode;
	struct cpumask cpus;
	u32 pid_max;
	u32 repeat;
	u64 seed;
	u32 fork_window;
	u32 sl_p;
	u32 sl_max_level;
	u32 rb_level;
	u32 trace_visits;		/* 0 or 1 */
	int node;			/* NUMA_NO_NODE, a node, PIDX_NODE_INTERLEAVE */
	enum pidx_pmu_mode pmu;
	u32 fork_lookups;		/* lookups of each new PID by a fork */
	enum pidx_fork_exit fork_exit;
	u32 dependent;			/* 0 or 1: lookups wait for each other */
	enum pidx_shape shape;
	enum pidx_dist dist;
	u32 dist_param;			/* zipf: S x 1000; recent: H */
	u32 levels;			/* namespace levels, 1 to PIDX_LEVELS_MAX */
	/*
	 * replay: the run's plan of its trace (pidx_trace.h), set by the run
	 * for its own copy of the settings; NULL in the settings themselves
	 */
	const struct pidx_replay *replay;
	struct pidx_written written;
	/* a run's own copy: the default ops that pidx_plan_ops() fitted, or 0 */
	u32 ops_fitted;
};

enum pidx_verdict { PIDX_VERIFIED, PIDX_FAILED, PIDX_NOT_CHECKED, PIDX_NR_VERDICTS };

struct pidx_result {
	struct list_head node;
	u32 run;
	u32 repeat;
	const char *index;
	enum pidx_workload workload;
	enum pidx_mode mode;
	u32 mix[PIDX_NR_MIX];
	char cpus[64];
	u32 ncpus;
	u32 keys;
	u32 ops;
	u32 ops_fitted;			/* the default ops fitted to @ops, or 0 */
	u32 pid_max;
	u64 seed;

	u64 total_ops;
	u64 fails;
	u64 errors;
	u64 elapsed_ns;
	u64 nsop_milli;			/* ns/op x 1000 */
	u64 mops_milli;			/* Mops/s x 1000 */
	u64 cpu_nsop_min_milli;
	u64 cpu_nsop_max_milli;
	u64 p50_ns, p90_ns, p99_ns, max_ns;
	u64 clock_milli;		/* ns x 1000 of one clock-read pair */
	u64 mem_bytes;
	u64 bytes_per_key_milli;
	enum pidx_verdict verdict;
	/*
	 * Past PIDX_ROUND_BOUND_MS, the storm otherwise sound: shown as
	 * "slow", never over FAILED, whose reason then replaces the bound's.
	 */
	bool slow;
	char why[128];			/* first reason for FAILED, else for slow */
	char extra[192];

	/* trace_visits: nodes and distinct cache lines per operation */
	u32 trace_visits;
	u64 visits_milli;
	u64 lines_milli;
	u32 visits_max;
	u32 lines_max;

	/* pmu: counts per operation x 1000; pmu_ok bit i: counter i was read */
	enum pidx_pmu_mode pmu;
	u32 pmu_ok;
	u64 pmu_milli[PIDX_PMU_NR];
	const char *pmu_why;		/* why nothing was counted, or "" */

	/* NUMA: the node setting, each storm CPU's node, index objects per node */
	int numa_node;
	const char *numa_note;		/* how the setting was applied, or "" */
	char cpu_nodes[96];
	char mem_nodes[96];

	/* bounds (PIDX_ROUND_BOUND_MS): ipi: longest round, longest callback */
	u64 round_max_ns;		/* kthread: longest batch */
	u64 irqs_off_max_ns;		/* kthread: 0 (batches run with irqs on) */

	/* fork storms: the settings (1 CPU: remote runs local) */
	u32 fork_lookups;
	enum pidx_fork_exit fork_exit;
	u64 fork_local_exits;		/* remote: own PIDs freed, window full */
	u64 fork_wait_ns;		/* fork_wait: time the CPUs waited for room */
	u64 replay_orphans;		/* replay: events of a PID whose fork failed */

	u32 dependent;			/* the setting: each lookup's key waited for the last */

	enum pidx_shape shape;
	u32 shape_wraps;		/* aged: the simulation's wraps */
	enum pidx_dist dist;
	u32 dist_param;
	u32 levels;
};

void pidx_config_defaults(struct pidx_config *cfg);
u32 pidx_ops_fit(const struct pidx_config *cfg, unsigned int ncpus);
int pidx_plan_ops(struct pidx_config *cfg, unsigned int ncpus, char *why,
		  size_t len);
const char *pidx_verdict_name(const struct pidx_result *r);
bool pidx_verdict_says_why(const struct pidx_result *r);
void pidx_fill_params(const struct pidx_config *cfg,
		      struct pidx_params *p);
u32 pidx_space(u32 pid_max);

/* Visit tracing totals of one worker (pidx_visits.c). */
struct pidx_visit_sum {
	u64 ops;
	u64 nodes;
	u64 lines;
	u32 nodes_max;
	u32 lines_max;
};

/* Per storm CPU: its counters and what they read over its storm. */
struct pidx_pmu_set {
	struct perf_event *ev[PIDX_PMU_NR];
	u64 val[PIDX_PMU_NR];
	u64 enabled[PIDX_PMU_NR];
	u64 running[PIDX_PMU_NR];
};

int pidx_pmu_open(struct pidx_pmu_set *set, unsigned int cpu,
		  enum pidx_pmu_mode mode);
void pidx_pmu_mark(struct pidx_pmu_set *set, bool end);
void pidx_pmu_close(struct pidx_pmu_set *set);

void pidx_visits_begin(void);
void pidx_visits_end(struct pidx_visit_sum *sum);

#endif /* _PIDX_ENGINE_H */
