// SPDX-License-Identifier: GPL-2.0
/*
 * pidx storms, the result: a row begun with the run's settings, a failure
 * noted once, the storm CPUs' counts summed into its figures, and the row
 * written as results.csv has it, with the helpers that print its values.
 * For the module and, unchanged, for user/pidx-user (see pidx_storm.h).
 */
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
/* kvmalloc_array(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/topology.h>
#include "pidx_dist.h"
#include "pidx_storm.h"
#include "pidx_trace.h"

const char *pidx_milli(struct pidx_milli *b, u64 v)
{
	snprintf(b->s, sizeof(b->s), "%llu.%03llu", v / 1000, v % 1000);
	return b->s;
}

u64 pidx_milli_div(u64 num, u64 den)
{
	return den ? div64_u64(num * 1000, den) : 0;
}

void pidx_node_name(char *buf, size_t len, int node)
{
	if (node == NUMA_NO_NODE)
		strscpy(buf, "any", len);
	else if (node == PIDX_NODE_INTERLEAVE)
		strscpy(buf, "interleave", len);
	else
		snprintf(buf, len, "%d", node);
}

static size_t pidx_cpulist_range(char *buf, size_t len, size_t at,
				 unsigned int first, unsigned int last)
{
	const char *sep = at ? ";" : "";

	if (first == last)
		return scnprintf(buf + at, len - at, "%s%u", sep, first);
	return scnprintf(buf + at, len - at, "%s%u-%u", sep, first, last);
}

/* The CPUs of @mask as "%*pbl" lists them, with ';' for ',' (no commas: CSV). */
void pidx_cpulist(char *buf, size_t len, const struct cpumask *mask)
{
	unsigned int cpu, first = 0, last = 0;
	bool open = false;
	size_t at = 0;

	buf[0] = '\0';
	for_each_cpu(cpu, mask) {
		if (open && cpu == last + 1) {
			last = cpu;
			continue;
		}
		if (open)
			at += pidx_cpulist_range(buf, len, at, first, last);
		first = cpu;
		last = cpu;
		open = true;
	}
	if (open)
		pidx_cpulist_range(buf, len, at, first, last);
}

/* A wrong result, a hang or an error: over a bound's slow, whose why it replaces. */
void pidx_fail(struct pidx_result *res, const char *fmt, ...)
{
	va_list args;

	if (res->verdict == PIDX_FAILED)
		return;
	res->verdict = PIDX_FAILED;
	va_start(args, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, args);
	va_end(args);
}

/* The first bound that a storm otherwise sound ran past, unless it FAILED. */
static __printf(2, 3) void pidx_slow(struct pidx_result *res, const char *fmt, ...)
{
	va_list args;

	if (res->verdict == PIDX_FAILED || res->slow)
		return;
	res->slow = true;
	va_start(args, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, args);
	va_end(args);
}

/*
 * The verified column's word: slow over yes and n/a alike, since a storm
 * past a bound measured the host's pauses, whatever its index holds.
 */
const char *pidx_verdict_name(const struct pidx_result *r)
{
	if (r->verdict != PIDX_FAILED && r->slow)
		return "slow";
	return pidx_verdict_names[r->verdict];
}

/* whether why holds the reason for the verdict pidx_verdict_name() gives */
bool pidx_verdict_says_why(const struct pidx_result *r)
{
	return r->verdict == PIDX_FAILED || r->slow;
}

/*
 * @tag appended to @res's extra whole, cutting the facts before it short
 * where it must: a label that a reader of the row needs (faults=, which
 * plot.py and the report leave out) never goes missing.
 */
void pidx_extra_tag(struct pidx_result *res, const char *tag)
{
	size_t size = sizeof(res->extra), len = strlen(res->extra), n = strlen(tag);

	if (len && len + 1 + n >= size)
		len = size - 2 - n;
	scnprintf(res->extra + len, size - len, "%s%s", len ? ";" : "", tag);
}

/* Cost of the two clock reads that bracket a sampled operation. */
static u64 pidx_clock_cost_milli(void)
{
	u64 t0, t1, best = U64_MAX;
	unsigned int i, j;

	for (i = 0; i < 16; i++) {
		t0 = ktime_get_ns();
		for (j = 0; j < 64; j++)
			ktime_get_ns();
		t1 = ktime_get_ns();
		/* 64 reads, i.e. 32 pairs; the best of 16 tries */
		best = min(best, pidx_milli_div(t1 - t0, 32));
	}
	return best;
}

/* "cpu:node" for each storm CPU, ';'-separated (no commas: CSV) */
static void pidx_fill_cpu_nodes(struct pidx_result *res,
				const struct pidx_config *cfg)
{
	size_t len = 0, size = sizeof(res->cpu_nodes);
	unsigned int cpu;

	for_each_cpu(cpu, &cfg->cpus) {
		len += scnprintf(res->cpu_nodes + len, size - len, "%s%u:%d",
				 len ? ";" : "", cpu, cpu_to_node(cpu));
		if (len >= size - 1)
			break;
	}
}

/*
 * A new row (@res zeroed) for a storm of @ops under @cfg: the settings it
 * runs with, its verdict until a check fails, and what a clock-read pair
 * costs on the calling CPU.
 */
void pidx_result_init(struct pidx_result *res, const struct pidx_ops *ops,
		      const struct pidx_config *cfg, u32 run, u32 repeat)
{
	res->run = run;
	res->repeat = repeat;
	res->index = ops->name;
	res->verdict = ops->no_contents ? PIDX_NOT_CHECKED : PIDX_VERIFIED;
	res->workload = cfg->workload;
	res->mode = cfg->mode;
	memcpy(res->mix, cfg->mix, sizeof(res->mix));
	pidx_cpulist(res->cpus, sizeof(res->cpus), &cfg->cpus);
	res->ncpus = cpumask_weight(&cfg->cpus);
	res->keys = cfg->keys;
	/* replay: the ops setting is not used; the most events one CPU replays */
	res->ops = cfg->replay ? cfg->replay->most : cfg->ops;
	res->ops_fitted = cfg->ops_fitted;
	res->pid_max = cfg->pid_max;
	res->seed = cfg->seed;
	res->trace_visits = cfg->trace_visits;
	res->dependent = cfg->dependent;
	res->fork_lookups = cfg->fork_lookups;
	/*
	 * The setting, whatever the CPU count: one CPU has no other to exit
	 * on, and a gain from 1 to 2 CPUs compares rows of one setting.
	 */
	res->fork_exit = cfg->fork_exit;
	res->pmu = cfg->pmu;
	res->shape = cfg->shape;
	res->dist = cfg->dist;
	res->dist_param = cfg->dist_param;
	res->levels = cfg->levels;
	res->numa_node = cfg->node;
	res->numa_note = "";
	pidx_fill_cpu_nodes(res, cfg);
	res->clock_milli = pidx_clock_cost_milli();
}

static int pidx_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static void pidx_summarize_visits(struct pidx_storm *s, struct pidx_result *res)
{
	struct pidx_visit_sum sum = { 0 };
	unsigned int i;

	if (!res->trace_visits)
		return;
	for (i = 0; i < s->nworkers; i++) {
		struct pidx_visit_sum *v = &s->workers[i].visits;

		sum.ops += v->ops;
		sum.nodes += v->nodes;
		sum.lines += v->lines;
		sum.nodes_max = max(sum.nodes_max, v->nodes_max);
		sum.lines_max = max(sum.lines_max, v->lines_max);
	}
	res->visits_milli = pidx_milli_div(sum.nodes, sum.ops);
	res->lines_milli = pidx_milli_div(sum.lines, sum.ops);
	res->visits_max = sum.nodes_max;
	res->lines_max = sum.lines_max;
}

/*
 * A counter is reported only when every storm CPU opened it and it ran for
 * part of the storm at least; a multiplexed one is scaled up by
 * enabled/running, as perf stat does.
 */
static void pidx_summarize_pmu(struct pidx_storm *s, struct pidx_result *res)
{
	unsigned int i, c;
	u64 total, ops = 0;

	res->pmu_why = "";
	if (s->cfg->pmu == PIDX_PMU_OFF) {
		res->pmu_why = "pmu off";
		return;
	}
	for (i = 0; i < s->nworkers; i++)
		ops += s->workers[i].done;
	for (c = 0; c < PIDX_PMU_NR; c++) {
		if (s->pmu_opened[c] != s->nworkers)
			continue;
		total = 0;
		for (i = 0; i < s->nworkers; i++) {
			struct pidx_pmu_set *p = &s->workers[i].pmu;

			if (!p->running[c])
				break;
			total += mul_u64_u64_div_u64(p->val[c], p->enabled[c],
						     p->running[c]);
		}
		if (i < s->nworkers)
			continue;
		res->pmu_ok |= BIT(c);
		res->pmu_milli[c] = pidx_milli_div(total, ops);
	}
	if (!res->pmu_ok)
		res->pmu_why = s->pmu_opened[PIDX_PMU_CYCLES] ?
			"counters never ran" : "no PMU: the kernel opened no hardware counter";
}

/*
 * A round or batch past PIDX_ROUND_BOUND_MS makes the row slow, naming the
 * bound and its figure: the host may have paused the guest for that long,
 * and nothing the storm did was wrong for it.
 */
static void pidx_check_bounds(struct pidx_storm *s, struct pidx_result *res)
{
	const u64 bound = (u64)PIDX_ROUND_BOUND_MS * NSEC_PER_MSEC;
	const struct pidx_worker *wi = &s->workers[0], *wb = wi;
	unsigned int i;

	for (i = 1; i < s->nworkers; i++) {
		if (s->workers[i].irqs_off_max_ns > wi->irqs_off_max_ns)
			wi = &s->workers[i];
		if (s->workers[i].batch_max_ns > wb->batch_max_ns)
			wb = &s->workers[i];
	}
	if (s->cfg->mode != PIDX_MODE_IPI) {
		res->round_max_ns = wb->batch_max_ns;
		if (res->round_max_ns > bound)
			pidx_slow(res, "CPU %u took %llu ms over one kthread batch (bound %u ms)",
				  wb->cpu, div_u64(res->round_max_ns, NSEC_PER_MSEC),
				  PIDX_ROUND_BOUND_MS);
		return;
	}
	res->round_max_ns = s->round_max_ns;
	res->irqs_off_max_ns = wi->irqs_off_max_ns;
	if (res->irqs_off_max_ns > bound)
		pidx_slow(res, "CPU %u kept interrupts off %llu ms in one ipi round (bound %u ms)",
			  wi->cpu, div_u64(res->irqs_off_max_ns, NSEC_PER_MSEC),
			  PIDX_ROUND_BOUND_MS);
	else if (res->round_max_ns > bound)
		pidx_slow(res, "one ipi round took %llu ms (bound %u ms)",
			  div_u64(res->round_max_ns, NSEC_PER_MSEC), PIDX_ROUND_BOUND_MS);
}

void pidx_summarize(struct pidx_storm *s, struct pidx_result *res)
{
	u64 ops = 0, timed = 0, ns = 0, mops = 0, nsop;
	u64 min = U64_MAX, max = 0;
	u32 *all, nall = 0, i;

	for (i = 0; i < s->nworkers; i++) {
		struct pidx_worker *w = &s->workers[i];

		ops += w->done;
		timed += w->timed_ops;
		ns += w->ns;
		res->fails += w->fails;
		res->errors += w->errors;
		res->fork_local_exits += w->local_exits;
		res->fork_wait_ns += w->wait_ns;
		res->replay_orphans += w->orphans;
		if (w->errors)
			pidx_fail(res, "CPU %u: %s (key %u)", w->cpu, w->bad_why,
				  w->bad_key);
		if (!w->timed_ops)
			continue;
		nsop = pidx_milli_div(w->ns, w->timed_ops);
		min = min(min, nsop);
		max = max(max, nsop);
		/* ops per ns x 1e3 = Mops/s; x 1e3 again for three decimals */
		if (w->ns)
			mops += div64_u64(w->timed_ops * 1000000ULL, w->ns);
		nall += w->nlat;
	}
	res->total_ops = ops;
	pidx_check_bounds(s, res);
	pidx_summarize_visits(s, res);
	pidx_summarize_pmu(s, res);
	res->nsop_milli = pidx_milli_div(ns, timed);
	res->mops_milli = mops;
	res->cpu_nsop_min_milli = min == U64_MAX ? 0 : min;
	res->cpu_nsop_max_milli = max;

	all = nall ? kvmalloc_array(nall, sizeof(u32), GFP_KERNEL) : NULL;
	if (all) {
		nall = 0;
		for (i = 0; i < s->nworkers; i++) {
			memcpy(all + nall, s->workers[i].lat,
			       s->workers[i].nlat * sizeof(u32));
			nall += s->workers[i].nlat;
		}
		sort(all, nall, sizeof(u32), pidx_cmp_u32, NULL);
		res->p50_ns = all[(u64)nall * 50 / 100];
		res->p90_ns = all[(u64)nall * 90 / 100];
		res->p99_ns = all[(u64)nall * 99 / 100];
		res->max_ns = all[nall - 1];
		kvfree(all);
	}
}

void pidx_fill_mem_nodes(struct pidx_result *res, struct pidx_storm *s)
{
	size_t len = 0, size = sizeof(res->mem_nodes);
	unsigned int n;

	if (!s->mem_nodes_known) {
		strscpy(res->mem_nodes, "n/a", size);
		return;
	}
	for (n = 0; n < PIDX_NODES_MAX; n++)
		if (s->mem_nodes[n])
			len += scnprintf(res->mem_nodes + len, size - len, "%s%u:%llu",
					 len ? ";" : "", n, s->mem_nodes[n]);
	if (!len)
		strscpy(res->mem_nodes, "none", size);
}

/*
 * replay: the trace's facts first in extra, so that the index's own do not
 * crowd them out: its events, that its PIDs were mapped to the index's
 * numbers, its initially-live PIDs, the events whose PID was not live, and
 * the events each CPU replayed ('/' between CPUs: no commas in a row).
 */
void pidx_replay_extra(struct pidx_storm *s, struct pidx_result *res)
{
	const struct pidx_replay *r = s->cfg->replay;
	char tag[sizeof(res->extra)];
	unsigned int i;
	size_t n;

	n = scnprintf(tag, sizeof(tag), "trace=%u;pids=mapped;initial=%u;orphans=%llu;cpu_events=",
		      r->events, r->initial, r->orphans + res->replay_orphans);
	for (i = 0; i < r->ncpus; i++)
		n += scnprintf(tag + n, sizeof(tag) - n, "%s%u", i ? "/" : "", r->cpu[i].nev);
	/* the index's facts after them, cut short if they must be */
	if (*res->extra)
		scnprintf(tag + n, sizeof(tag) - n, ";%s", res->extra);
	strscpy(res->extra, tag, sizeof(res->extra));
}

/* @r as a results.csv row, its newline included, in @buf (PIDX_CSV_ROW_MAX). */
void pidx_csv_row(char *buf, size_t size, const struct pidx_result *r,
		  const struct pidx_csv_sub *sub)
{
	struct pidx_milli b[6];
	char node[16], dist[PIDX_DIST_NAME_MAX], slow[sizeof(r->why) + 8];
	unsigned int c;
	size_t n;

	/*
	 * a slow row's bound and figure last in extra, where no index's
	 * facts cut them short: the report lists them (scripts/pidxreport)
	 */
	if (r->verdict == PIDX_FAILED || !r->slow)
		slow[0] = '\0';
	else
		scnprintf(slow, sizeof(slow), "%sslow=%s",
			  *r->extra || *sub->extra ? ";" : "", r->why);
	n = scnprintf(buf, size, "%u,%s,%s,%s,%u/%u/%u,%s,%u,%u,%u,%u,%llu,%u,%llu,%llu,%llu,%llu,",
		      r->run, r->index, pidx_workload_names[r->workload],
		      pidx_mode_names[r->mode], r->mix[0], r->mix[1], r->mix[2],
		      r->cpus, r->ncpus, r->keys, r->ops, r->pid_max, r->seed,
		      r->repeat, r->total_ops, r->fails, r->errors, r->elapsed_ns);
	n += scnprintf(buf + n, size - n, "%s,%s,%s,%s,%llu,%llu,%llu,%llu,%s,%llu,%s,%s,%s%s%s%s,",
		       pidx_milli(&b[0], r->nsop_milli), pidx_milli(&b[1], r->mops_milli),
		       pidx_milli(&b[2], r->cpu_nsop_min_milli),
		       pidx_milli(&b[3], r->cpu_nsop_max_milli),
		       r->p50_ns, r->p90_ns, r->p99_ns, r->max_ns,
		       pidx_milli(&b[4], r->clock_milli), r->mem_bytes,
		       pidx_milli(&b[5], r->bytes_per_key_milli),
		       pidx_verdict_name(r), r->extra,
		       *r->extra && *sub->extra ? ";" : "", sub->extra, slow);
	if (r->trace_visits)
		n += scnprintf(buf + n, size - n, "1,%s,%u,%s,%u,",
			       pidx_milli(&b[0], r->visits_milli), r->visits_max,
			       pidx_milli(&b[1], r->lines_milli), r->lines_max);
	else
		n += scnprintf(buf + n, size - n, "0,n/a,n/a,n/a,n/a,");
	if (sub->pmu) {
		n += scnprintf(buf + n, size - n, "%s", sub->pmu);
	} else {
		n += scnprintf(buf + n, size - n, "%s", pidx_pmu_mode_names[r->pmu]);
		for (c = 0; c < PIDX_PMU_NR; c++)
			n += scnprintf(buf + n, size - n, ",%s", r->pmu_ok & BIT(c) ?
				       pidx_milli(&b[0], r->pmu_milli[c]) : "n/a");
	}
	pidx_node_name(node, sizeof(node), r->numa_node);
	n += scnprintf(buf + n, size - n, ",%s,%s,%s,", node, r->cpu_nodes,
		       r->mem_nodes);
	/* interrupts are off for long only in the rounds of an ipi storm */
	if (sub->bounds)
		n += scnprintf(buf + n, size - n, "%llu,", r->round_max_ns);
	else
		n += scnprintf(buf + n, size - n, "n/a,");
	if (sub->bounds && r->mode == PIDX_MODE_IPI)
		n += scnprintf(buf + n, size - n, "%llu,", r->irqs_off_max_ns);
	else
		n += scnprintf(buf + n, size - n, "n/a,");
	n += scnprintf(buf + n, size - n, "%s,", sub->substrate);
	/* settings of fork storms only: other rows would split by them */
	if (r->workload == PIDX_WL_FORK)
		n += scnprintf(buf + n, size - n, "%u,%s,", r->fork_lookups,
			       pidx_fork_exit_names[r->fork_exit]);
	else if (r->workload == PIDX_WL_REPLAY)
		n += scnprintf(buf + n, size - n, "%u,n/a,", r->fork_lookups);
	else
		n += scnprintf(buf + n, size - n, "n/a,n/a,");
	/* the storms whose lookups it chains */
	if (r->workload == PIDX_WL_LOOKUP || r->workload == PIDX_WL_MIXED)
		n += scnprintf(buf + n, size - n, "%u,", r->dependent);
	else
		n += scnprintf(buf + n, size - n, "n/a,");
	n += scnprintf(buf + n, size - n, "%s,%u,", pidx_shape_names[r->shape],
		       r->shape_wraps);
	/* the storms that draw lookups: fork's only with fork_lookups */
	if (pidx_dist_applies(r->workload, r->mix[PIDX_MIX_LOOKUP],
			      r->fork_lookups, r->keys))
		pidx_dist_name(dist, sizeof(dist), r->dist, r->dist_param);
	else
		strscpy(dist, "n/a", sizeof(dist));
	scnprintf(buf + n, size - n, "%s,%u\n", dist, r->levels);
}
