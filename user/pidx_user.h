/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx-user's own header: the settings and the result rows that its files
 * hand each other.  pidx_user.c runs the storms, pidx_user_opts.c reads
 * the command line, pidx_user_cg.c runs the cachegrind counts and
 * pidx_user_print.c writes the table and the results.csv rows.
 */
#ifndef _PIDX_USER_H
#define _PIDX_USER_H

#include <sched.h>

#include "pidx_dist.h"
#include "pidx_storm.h"
#include "pidx_trace.h"

#define PROG "pidx-user"

/* cachegrind's events, as its output file names them */
enum { CG_IR, CG_DR, CG_DW, CG_D1MR, CG_D1MW, CG_DLMR, CG_DLMW, CG_BC, CG_BCM,
       CG_BI, CG_BIM, CG_NR };

/* the process's CPUs before any thread was pinned, for --cachegrind's runs */
extern cpu_set_t start_affinity;

struct opts {
	struct pidx_config cfg;
	const char *csv;
	u32 run;
	bool cachegrind;
	bool cg_child;
	bool quiet;
	bool dump_keys;
	bool dump_dist;
	bool shape_seed_set;
	u64 shape_seed;
	u32 churn;
	const char *argv0;
	/* the run's live set, made once before its first storm */
	struct pidx_shape_set shape;
	/* --trace: the replay workload's trace, read whole before anything */
	const char *trace_file;
	struct pidx_trace trace;
	/* ... and its plan for the run's CPUs */
	struct pidx_replay plan;
};

/* one row; cg: what cachegrind counted per operation, x 1000 */
struct row {
	struct pidx_result r;
	/* lock waits, prefill to destroy, that outlasted a preempted holder */
	unsigned long long_spins;
	bool cg;
	s64 cg_milli[CG_NR];
};

void die(int code, const char *fmt, ...) __printf(2, 3) __noreturn;

/* pidx_user_opts.c */
void parse_args(struct opts *o, int argc, char **argv);
/* pidx_user_cg.c */
void cg_count(const struct opts *o, const struct pidx_ops *ops, struct row *row);
/* pidx_user_print.c */
void write_csv(const char *path, const struct row *rows, unsigned int n);
void print_table(const struct opts *o, const struct row *rows, unsigned int n);
void dump_keys(const struct opts *o);
void dump_dist(const struct opts *o);
#endif
