// SPDX-License-Identifier: GPL-2.0
/*
 * A run: the settings checked as a whole, the run's live set made once,
 * and every selected index stormed (pidx_substrate.c) in an order drawn per
 * repeat; its rows kept in the module's state for test_result and
 * results.csv.  Beside it, and independent of it, is the selftest.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include "pidx_dist.h"
#include "pidx_hooks.h"
#include "pidx_state.h"
#include "pidx_substrate.h"
#include "pidx_trace.h"

/* Enough for a full sweep; the oldest rows go first beyond it. */
#define PIDX_RESULTS_MAX	20000

static void pidx_add_result(struct pidx_state *st, struct pidx_result *res)
{
	struct pidx_result *old;

	mutex_lock(&st->results_lock);
	if (st->nr_results >= PIDX_RESULTS_MAX) {
		old = list_first_entry(&st->results, struct pidx_result, node);
		list_del(&old->node);
		kfree(old);
		st->nr_results--;
	}
	list_add_tail(&res->node, &st->results);
	st->nr_results++;
	mutex_unlock(&st->results_lock);
}

static bool pidx_workload_writes(const struct pidx_config *cfg)
{
	switch (cfg->workload) {
	case PIDX_WL_LOOKUP:
	case PIDX_WL_ITERATE:
		return false;
	case PIDX_WL_MIXED:
		return cfg->mix[PIDX_MIX_INSERT] || cfg->mix[PIDX_MIX_DELETE];
	default:
		return true;
	}
}

static const char pidx_why_rt_ipi[] =
	"ipi writers take spinlocks in hard IRQ, which PREEMPT_RT forbids: echo kthread > mode";

/*
 * Checks that depend on several settings at once, made again at run time,
 * on the run's own copy of the settings: ops fitted to its CPUs where the
 * user left it alone.  A refusal that names a figure says why in
 * pidx_storm_why, which pidx_run() keeps for testcase.
 */
static int pidx_check_config(struct pidx_config *cfg, const char **why)
{
	unsigned int ncpus = cpumask_weight(&cfg->cpus);
	u32 slice, cap;
	int ret;

	if (!ncpus || !cpumask_subset(&cfg->cpus, cpu_online_mask)) {
		*why = "a CPU in cpus is not online";
		return -EINVAL;
	}
	if (cfg->keys > pidx_space(cfg->pid_max)) {
		*why = "keys exceed pid_max - 1";
		return -ENOSPC;
	}
	if (!cfg->indexes) {
		*why = "no index selected";
		return -EINVAL;
	}
	/* checked when written, but memory can be hot-removed since */
	if (cfg->node >= 0 && !pidx_node_has_memory(cfg->node)) {
		*why = "node has no memory now";
		return -EINVAL;
	}
	ret = pidx_plan_ops(cfg, ncpus, pidx_storm_why, sizeof(pidx_storm_why));
	if (ret) {
		*why = pidx_storm_why;
		return ret;
	}
	ret = pidx_plan(cfg, ncpus, &slice, &cap, why);
	if (ret)
		return ret;
	ret = pidx_shape_check(cfg, why);
	if (ret)
		return ret;
	/*
	 * on_each_cpu() callbacks run in hard IRQ on PREEMPT_RT too, where
	 * spinlock_t is a sleeping lock and no memory may be allocated: the
	 * index writers need both.  Readers take rcu_read_lock() only.
	 */
	if (IS_ENABLED(CONFIG_PREEMPT_RT) && cfg->mode == PIDX_MODE_IPI &&
	    pidx_workload_writes(cfg)) {
		*why = pidx_why_rt_ipi;
		return -EINVAL;
	}
	return 0;
}

/* Why a run whose storm failed with @ret ended, for testcase. */
static const char *pidx_storm_failed_why(int ret)
{
	static const char stopped[] =
		"a fatal signal stopped the run: rows of the index it stopped in are dropped";

	if (ret == -EINTR)
		return stopped;
	if (*pidx_storm_why)
		return pidx_storm_why;
	return "an index's storm failed: see dmesg";
}

/*
 * replay: a trace at all; under cfg_lock, as the installs of trace are.
 * An installed trace holds whole lines only (pidx_debugfs.c), and a run
 * leaves it as it is.  0, or the refusal with its reason in st->trace_why.
 */
static int pidx_trace_ready(struct pidx_state *st)
{
	if (!st->trace.nev) {
		strscpy(st->trace_why, "workload replay: no trace loaded (write one to trace)",
			sizeof(st->trace_why));
		return -EINVAL;
	}
	return 0;
}

/*
 * replay: the trace laid out for the run's CPUs, and the live set's room
 * for its initially-live PIDs beside the keys, checked again with them.
 */
static int pidx_replay_plan(struct pidx_state *st, struct pidx_config *cfg,
			    struct pidx_replay *plan, const char **why)
{
	int ret;

	ret = pidx_replay_make(&st->trace, cpumask_weight(&cfg->cpus), plan);
	if (ret) {
		*why = "no memory for the trace's plan";
		return ret;
	}
	cfg->replay = plan;
	if (pidx_live_keys(cfg) > pidx_space(cfg->pid_max)) {
		*why = "keys + the trace's initially-live PIDs exceed pid_max - 1";
		return -ENOSPC;
	}
	return pidx_shape_check(cfg, why);
}

int pidx_run(struct pidx_state *st)
{
	/* serialized by run_lock */
	static struct pidx_config cfg;
	static struct pidx_shape_set shape;
	static struct pidx_replay plan;
	u8 order[PIDX_MAX_INDEXES];
	struct pidx_storm_ctx ctx = {};
	struct pidx_result *res;
	const char *why = "";
	unsigned long skipped;
	unsigned int i, n;
	u64 base_seed;
	u32 rep;
	int ret;

	if (!mutex_trylock(&st->run_lock))
		return -EBUSY;
	mutex_lock(&st->cfg_lock);
	cfg = st->cfg;
	ret = cfg.workload == PIDX_WL_REPLAY ? pidx_trace_ready(st) : 0;
	if (ret) {
		pr_err("pidx: run refused (%d): %s\n", ret, st->trace_why);
		st->last_cmd = PIDX_CMD_RUN;
		st->last_rc = ret;
		st->last_why = st->trace_why;
		mutex_unlock(&st->cfg_lock);
		mutex_unlock(&st->run_lock);
		return ret;
	}
	st->running = true;
	mutex_unlock(&st->cfg_lock);

	/*
	 * With one node there is nothing to interleave over: the placement is
	 * the slab default, so the run says so rather than recording a
	 * placement that never happened.
	 */
	ctx.node_note = "";
	if (cfg.node == PIDX_NODE_INTERLEAVE && num_node_state(N_MEMORY) < 2) {
		cfg.node = NUMA_NO_NODE;
		ctx.node_note = "interleave on 1 node: ran as any";
	}
	/* one mask for the whole run: its marks and its rows' labels agree */
	ctx.faults = READ_ONCE(pidx_fault_inject);
	pidx_storm_why[0] = '\0';

	cpus_read_lock();
	ret = pidx_check_config(&cfg, &why);
	cpus_read_unlock();
	if (!ret && cfg.workload == PIDX_WL_REPLAY)
		ret = pidx_replay_plan(st, &cfg, &plan, &why);
	if (ret) {
		pr_err("pidx: run refused (%d): %s\n", ret, why);
		goto out;
	}
	if (cfg.ops_fitted)
		pr_info("pidx: ops fitted to %u per CPU: the default %u does not fit %u CPUs\n",
			cfg.ops, cfg.ops_fitted, cpumask_weight(&cfg.cpus));
	skipped = 0;
	for (i = 0; i < pidx_nr_indexes; i++) {
		if ((cfg.indexes & BIT(i)) && cfg.mode == PIDX_MODE_IPI &&
		    pidx_index_table[i]->writers_need_irqs_on &&
		    pidx_workload_writes(&cfg)) {
			skipped |= BIT(i);
			pr_info("pidx: %s skipped: its writers cannot run with interrupts off\n",
				pidx_index_table[i]->name);
		}
	}
	/* test_result reads them during the run */
	mutex_lock(&st->cfg_lock);
	st->run_no++;
	st->run_skipped = skipped;
	mutex_unlock(&st->cfg_lock);
	ctx.run_no = st->run_no;
	ctx.stall_test_ms = &st->stall_test_ms;
	/* dmesg marks: the VM runner tells a stall inside a run from a host pause */
	pr_info("pidx: run %u begins\n", st->run_no);
	/*
	 * One live set for every storm of the run, made from the run's seed:
	 * aged is simulated once.
	 */
	ret = pidx_shape_make(&cfg, &shape);
	if (ret) {
		why = ret == -ENOMEM ? "no memory for the run's live set" :
		      "the run's live set was not made: see dmesg";
		pr_err("pidx: run %u: shape %s not made (%d)\n", st->run_no,
		       pidx_shape_names[cfg.shape], ret);
	} else if (cfg.shape == PIDX_SHAPE_AGED) {
		pr_info("pidx: aged set: %llu forks, %u wraps, cursor %u\n",
			shape.forks, shape.wraps, shape.cursor);
	}
	/* and the walk its lookups read, under a dist other than uniform */
	if (!ret) {
		ret = pidx_dist_make(&cfg, &shape);
		if (ret) {
			why = ret == -ENOMEM ? "no memory for the run's dist walk" :
			      "the run's dist walk was not made: see dmesg";
			pr_err("pidx: run %u: dist walk not made (%d)\n", st->run_no, ret);
		}
	}
	/*
	 * Repeats interleave the indexes so drift hits them all alike.  Each
	 * repeat has its own seed, the run's plus the repeat, so repeats
	 * sample structures (skip list heights, hash seeds, key orders) and
	 * not only the clock, and its own order of indexes.
	 */
	base_seed = cfg.seed;
	for (rep = 0; rep < cfg.repeat && !ret; rep++) {
		cfg.seed = base_seed + rep;
		/* the selection's order, as pidx-user draws it; then the skips */
		n = pidx_round_order(cfg.indexes, cfg.seed, order);
		for (i = 0; i < n && !ret; i++) {
			if (st->run_skipped & BIT(order[i]))
				continue;
			ctx.repeat = rep;
			ret = pidx_storm_one(pidx_index_table[order[i]], &cfg,
					     &shape, &ctx, &res);
			if (!ret)
				pidx_add_result(st, res);
		}
	}
	pidx_shape_free(&shape);
	/* after every storm: each worker has finished with its events */
	pidx_replay_free(&plan);
	/* a live set not made has said why already */
	if (ret && !*why)
		why = pidx_storm_failed_why(ret);
	pr_info("pidx: run %u ends (%d)\n", st->run_no, ret);
out:
	pidx_replay_free(&plan);
	mutex_lock(&st->cfg_lock);
	if (why == pidx_storm_why) {
		strscpy(st->storm_why_shown, pidx_storm_why, sizeof(st->storm_why_shown));
		why = st->storm_why_shown;
	}
	st->running = false;
	st->last_cmd = PIDX_CMD_RUN;
	st->last_rc = ret;
	st->last_why = ret ? why : "";
	mutex_unlock(&st->cfg_lock);
	mutex_unlock(&st->run_lock);
	return ret;
}

static void pidx_free_results(struct pidx_state *st)
{
	struct pidx_result *res, *tmp;

	mutex_lock(&st->results_lock);
	list_for_each_entry_safe(res, tmp, &st->results, node) {
		list_del(&res->node);
		kfree(res);
	}
	st->nr_results = 0;
	mutex_unlock(&st->results_lock);
}

void pidx_reset(struct pidx_state *st)
{
	pidx_free_results(st);
	/* the log and last_cmd together: test_result reads both under the lock */
	mutex_lock(&st->cfg_lock);
	pidx_log_free(&st->selftest_log);
	pidx_log_free(&st->selftest_shown);
	st->last_cmd = PIDX_CMD_RESET;
	st->run_skipped = 0;
	st->last_rc = 0;
	st->last_why = "";
	mutex_unlock(&st->cfg_lock);
}
