/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx storms, the part that decides what a storm does and whether it was
 * right: setting a storm up, the prefill, dealing the keys out to the storm
 * CPUs, and after the storm the summaries, verify(), the oracle, and the
 * results.csv row.  One definition, compiled into the module (Kbuild) and
 * into user/pidx-user (user/Makefile), so that a row means the same on
 * either substrate.  How the storm CPUs are driven and where the prefill
 * runs stay with each: IPIs, kthreads and node placement in
 * pidx_substrate.c and pidx_sched.c, pinned threads in user/pidx_user.c.
 * The storm's life is pidx_storm.c's, the prefill pidx_prefill.c's, the
 * oracle pidx_oracle.c's, the summaries and the row pidx_result.c's.
 */
#ifndef _PIDX_STORM_H
#define _PIDX_STORM_H

#include "pidx_registry.h"
#include "pidx_workload.h"

/* why the storm in flight failed, where the log is not all: for the run's refusal text */
#define PIDX_STORM_WHY_MAX	112
extern char pidx_storm_why[PIDX_STORM_WHY_MAX];

/* Values kept x1000 are printed with three decimals, as refscale does. */
struct pidx_milli {
	char s[24];
};

const char *pidx_milli(struct pidx_milli *b, u64 v);
u64 pidx_milli_div(u64 num, u64 den);
void pidx_node_name(char *buf, size_t len, int node);
void pidx_cpulist(char *buf, size_t len, const struct cpumask *mask);

__printf(2, 3) void pidx_fail(struct pidx_result *res, const char *fmt, ...);
void pidx_extra_tag(struct pidx_result *res, const char *tag);

/*
 * One storm, in this order: pidx_result_init(), pidx_storm_create(),
 * pidx_storm_setup(), the prefill (pidx_prefill(), run where the substrate
 * places it), pidx_storm_deal(), the storm itself, pidx_storm_check() and,
 * whatever failed, pidx_storm_end().
 */
void pidx_result_init(struct pidx_result *res, const struct pidx_ops *ops,
		      const struct pidx_config *cfg, u32 run, u32 repeat);
int pidx_storm_create(struct pidx_storm *s);
int pidx_storm_setup(struct pidx_storm *s, const char **why);
int pidx_prefill(struct pidx_storm *s);
int pidx_storm_deal(struct pidx_storm *s);
void pidx_storm_check(struct pidx_storm *s, struct pidx_result *res,
		      const char *log);
void pidx_storm_end(struct pidx_storm *s, struct pidx_result *res,
		    long mem_before, int ret);

/*
 * Between the storm's own files: pidx_storm_check() sums the figures up
 * (pidx_result.c) and runs the oracle (pidx_oracle.c), whose walk over the
 * objects the storm holds pidx_storm_end() takes again to free them, with
 * no oracle (NULL).
 */
struct pidx_oracle;

void pidx_summarize(struct pidx_storm *s, struct pidx_result *res);
void pidx_fill_mem_nodes(struct pidx_result *res, struct pidx_storm *s);
void pidx_replay_extra(struct pidx_storm *s, struct pidx_result *res);
void pidx_all_held(struct pidx_storm *s, struct pidx_oracle *o);
u32 pidx_check_contents(struct pidx_storm *s, struct pidx_result *res,
			const char *log);

/*
 * Supplied by each substrate: moves the prefill to a CPU of @node, so that
 * what the kernel allocates for an index lands there; false where it
 * cannot (user space has one node and leaves its threads where they are).
 */
bool pidx_prefill_move(int node);

/* Longer than any row: 53 columns of at most 20 digits, extra and node lists. */
#define PIDX_CSV_ROW_MAX	2048

/* results.csv's first line: its columns, which docs/interface.md describes */
#define PIDX_CSV_HEADER "run,index,workload,mode,mix,cpus,ncpus,keys,ops,pid_max,seed,repeat,total_ops,fails,errors,elapsed_ns,ns_per_op,mops,cpu_nsop_min,cpu_nsop_max,p50_ns,p90_ns,p99_ns,max_ns,clock_ns,mem_bytes,bytes_per_key,verified,extra,trace_visits,visits_per_op,visits_max,lines_per_op,lines_max,pmu,cycles_per_op,instructions_per_op,cache_refs_per_op,cache_misses_per_op,llc_load_misses_per_op,node,cpu_nodes,mem_nodes,round_max_ns,irqs_off_max_ns,substrate,fork_lookups,fork_exit,dependent,shape,shape_wraps,dist,levels\n"

/* What only one substrate puts in a results.csv row. */
struct pidx_csv_sub {
	const char *substrate;	/* kernel, user */
	const char *extra;	/* appended to the extra column, or "" */
	const char *pmu;	/* the pmu column and its five counters, or NULL for the result's */
	bool bounds;		/* round_max_ns was measured */
};

void pidx_csv_row(char *buf, size_t size, const struct pidx_result *r,
		  const struct pidx_csv_sub *sub);

#endif /* _PIDX_STORM_H */
