// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-user's output: the table on stdout, the results.csv rows (the
 * module's row, pidx_csv_row(), with substrate=user and cachegrind's
 * counts) and --dump-keys.  Apart from the storms (pidx_user.c) so that
 * what a run prints can be read in one place.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <linux/kernel.h>
#include <linux/cpumask.h>
#include "pidx_user.h"

static const char *milli(char *buf, u64 v)
{
	sprintf(buf, "%llu.%03llu", v / 1000, v % 1000);
	return buf;
}

static const char *smilli(char *buf, s64 v)
{
	u64 a = v < 0 ? -(u64)v : (u64)v;

	sprintf(buf, "%s%llu.%03llu", v < 0 ? "-" : "", a / 1000, a % 1000);
	return buf;
}

/* the module's rows (pidx_csv_row()), with cachegrind's counts and substrate=user */
static void csv_row(FILE *f, const struct row *row)
{
	struct pidx_csv_sub user = { .substrate = "user", .extra = "" };
	char b[6][32], extra[160], pmu[160], line[PIDX_CSV_ROW_MAX];
	const s64 *c = row->cg_milli;
	int n = 0;

	if (row->long_spins) {
		n = snprintf(extra, sizeof(extra), "long_spins=%lu", row->long_spins);
		user.extra = extra;
	}
	if (row->cg) {
		snprintf(extra + n, sizeof(extra) - n,
			 "%scg_ll_misses=%s;cg_branches=%s;cg_mispredicts=%s", n ? ";" : "",
			 smilli(b[0], c[CG_DLMR] + c[CG_DLMW]), smilli(b[1], c[CG_BC] + c[CG_BI]),
			 smilli(b[2], c[CG_BCM] + c[CG_BIM]));
		snprintf(pmu, sizeof(pmu), "cachegrind,n/a,%s,%s,%s,%s", smilli(b[3], c[CG_IR]),
			 smilli(b[4], c[CG_DR] + c[CG_DW]), smilli(b[5], c[CG_D1MR] + c[CG_D1MW]),
			 smilli(b[0], c[CG_DLMR]));
		user.extra = extra;
		user.pmu = pmu;
	}
	pidx_csv_row(line, sizeof(line), &row->r, &user);
	fputs(line, f);
}

void write_csv(const char *path, const struct row *rows, unsigned int n)
{
	struct stat st;
	bool header = stat(path, &st) || !st.st_size;
	FILE *f = strcmp(path, "-") ? fopen(path, "a") : stdout;
	unsigned int i;

	if (!f)
		die(1, "cannot write %s: %s", path, strerror(errno));
	if (header || f == stdout)
		fputs(PIDX_CSV_HEADER, f);
	for (i = 0; i < n; i++)
		csv_row(f, &rows[i]);
	if (f != stdout && fclose(f))
		die(1, "writing %s failed", path);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* test_result's table: a row per storm, then median [min..max] per index */
void print_table(const struct opts *o, const struct row *rows, unsigned int n)
{
	const struct pidx_config *cfg = &o->cfg;
	char b[6][32], cpus[64], dist[PIDX_DIST_NAME_MAX];
	u64 v[PIDX_REPEAT_MAX];
	unsigned int i, j, k;

	pidx_cpulist(cpus, sizeof(cpus), &cfg->cpus);
	printf("pidx-user run %u: workload %s", o->run, pidx_workload_names[cfg->workload]);
	if (cfg->workload == PIDX_WL_MIXED)
		printf(" %u/%u/%u", cfg->mix[0], cfg->mix[1], cfg->mix[2]);
	/* replay: --ops is not used; each CPU replays its share of the trace */
	if (cfg->workload == PIDX_WL_REPLAY)
		printf(" of %s (%u events, %u initially-live PIDs; at most %u per CPU)",
		       o->trace_file, o->plan.events, o->plan.initial, o->plan.most);
	printf(", threads on cpus %s (%u), keys %u, ops %u per CPU",
	       cpus, cpumask_weight(&cfg->cpus), cfg->keys,
	       cfg->workload == PIDX_WL_REPLAY ? o->plan.most : cfg->ops);
	if (cfg->ops_fitted)
		printf(" (fitted: the default %u does not fit)", cfg->ops_fitted);
	printf(", pid_max %u, seed %llu, shape %s", cfg->pid_max, cfg->seed,
	       pidx_shape_names[cfg->shape]);
	if (cfg->shape == PIDX_SHAPE_AGED)
		printf(" (%u wraps)", o->shape.wraps);
	if (pidx_dist_applies(cfg->workload, cfg->mix[PIDX_MIX_LOOKUP],
			      cfg->fork_lookups, cfg->keys)) {
		pidx_dist_name(dist, sizeof(dist), cfg->dist, cfg->dist_param);
		printf(", dist %s", dist);
	}
	if (cfg->levels > 1)
		printf(", %u namespace levels (lookups read the deepest)", cfg->levels);
	printf("%s\n", cfg->dependent ? ", dependent lookups" : "");
	if (n)
		printf("clock: one clock_gettime(CLOCK_MONOTONIC) pair costs %s ns; it is inside p50..max, not inside ns/op\n",
		       milli(b[0], rows[0].r.clock_milli));
	printf("\n%-9s %3s %10s %10s %10s %9s %21s %7s %7s %8s %9s %s\n",
	       "index", "rep", "ops", "time_ms", "ns/op", "Mops/s", "cpu_ns/op_min..max",
	       "p50_ns", "p99_ns", "fails", "bytes/key", "verified");
	for (i = 0; i < n; i++) {
		const struct pidx_result *r = &rows[i].r;

		printf("%-9s %3u %10llu %10llu %10s %9s %10s..%-10s %7llu %7llu %8llu %9s %s",
		       r->index, r->repeat, r->total_ops, r->elapsed_ns / 1000000,
		       milli(b[0], r->nsop_milli), milli(b[1], r->mops_milli),
		       milli(b[2], r->cpu_nsop_min_milli), milli(b[3], r->cpu_nsop_max_milli),
		       r->p50_ns, r->p99_ns, r->fails, milli(b[4], r->bytes_per_key_milli),
		       pidx_verdict_name(r));
		if (pidx_verdict_says_why(r))
			printf(" (%s)", r->why);
		putchar('\n');
	}
	printf("\nns/op over repeats: median [min..max]; extra\n");
	for (i = 0; i < n; i++) {
		if (rows[i].r.repeat)
			continue;
		for (j = i, k = 0; j < n; j++)
			if (!strcmp(rows[j].r.index, rows[i].r.index) && k < PIDX_REPEAT_MAX)
				v[k++] = rows[j].r.nsop_milli;
		qsort(v, k, sizeof(*v), cmp_u64);
		printf("%-9s %s [%s..%s] n=%u%s; %s\n", rows[i].r.index, milli(b[0], v[k / 2]),
		       milli(b[1], v[0]), milli(b[2], v[k - 1]), k,
		       strcmp(rows[i].r.index, "null") ? "" : " (engine cost only)",
		       rows[i].r.extra);
	}
	if (cfg->trace_visits) {
		printf("\nvisits per op (times above include the tracing):\n%-9s %3s %12s %10s %12s %10s\n",
		       "index", "rep", "nodes_mean", "nodes_max", "lines_mean", "lines_max");
		for (i = 0; i < n; i++)
			printf("%-9s %3u %12s %10u %12s %10u\n", rows[i].r.index, rows[i].r.repeat,
			       milli(b[0], rows[i].r.visits_milli), rows[i].r.visits_max,
			       milli(b[1], rows[i].r.lines_milli), rows[i].r.lines_max);
	}
	if (n && rows[0].cg) {
		printf("\ncachegrind per op (ops/2 and ops per CPU, difference; D1 32 KiB, LL 1 MiB):\n"
		       "%-9s %3s %12s %12s %12s %12s %12s %12s\n", "index", "rep", "instr",
		       "data_refs", "D1_misses", "LL_misses", "branches", "mispredicts");
		for (i = 0; i < n; i++) {
			const s64 *c = rows[i].cg_milli;

			printf("%-9s %3u %12s %12s %12s %12s %12s %12s\n", rows[i].r.index,
			       rows[i].r.repeat, smilli(b[0], c[CG_IR]),
			       smilli(b[1], c[CG_DR] + c[CG_DW]),
			       smilli(b[2], c[CG_D1MR] + c[CG_D1MW]),
			       smilli(b[3], c[CG_DLMR] + c[CG_DLMW]),
			       smilli(b[4], c[CG_BC] + c[CG_BI]),
			       smilli(b[5], c[CG_BCM] + c[CG_BIM]));
		}
	}
	printf("\nsubstrate: user space (%s); times are this machine's, not a kernel's\n",
	       "liburcu, SLUB-like slab, no interrupts off");
}

/*
 * --dump-keys: the live set in the order the prefill inserts it, after a
 * line of its facts, for the tests' statistics of the shapes.
 */
void dump_keys(const struct opts *o)
{
	const struct pidx_shape_set *set = &o->shape;
	u32 i;

	printf("shape=%s keys=%u pid_max=%u wraps=%u cursor=%u forks=%llu daemons=%u\n",
	       pidx_shape_names[set->shape], set->nkeys, o->cfg.pid_max, set->wraps,
	       set->cursor, set->forks, set->daemons);
	for (i = 0; i < set->nkeys; i++)
		printf("%u\n", pidx_shape_key(set, i));
}

/*
 * --dump-dist: the run's dist walk, the keys lookups read in turn, after
 * a line of its facts, for the tests' statistics of the samplers.  Uniform
 * has no walk: its line says so and no key follows.
 */
void dump_dist(const struct opts *o)
{
	const struct pidx_shape_set *set = &o->shape;
	char dist[PIDX_DIST_NAME_MAX];
	u32 i;

	pidx_dist_name(dist, sizeof(dist), o->cfg.dist, o->cfg.dist_param);
	printf("dist=%s shape=%s keys=%u pid_max=%u len=%u\n", dist,
	       pidx_shape_names[set->shape], set->nkeys, o->cfg.pid_max, set->dist_len);
	for (i = 0; i < set->dist_len; i++)
		printf("%u\n", set->dist_walk[i]);
}
