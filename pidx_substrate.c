// SPDX-License-Identifier: GPL-2.0
/*
 * The module's storm substrate: one index built, prefilled on the node
 * asked for, stormed from every selected CPU at once and checked, as one
 * row.  The setup, the prefill and the checks that the index still holds
 * exactly what the operations imply are pidx_storm.c's, pidx_prefill.c's
 * and pidx_oracle.c's, shared with user/pidx-user; the ways to storm are
 * this file's.
 *
 * Two ways to storm (see README):
 *  - ipi:     an untimed warm-up round of lookups, then rounds of
 *             on_each_cpu_mask().  Each round runs one bounded batch
 *             per CPU with interrupts off, so nothing sleeps and memory comes
 *             from GFP_ATOMIC (failures are counted, not hidden).  On
 *             PREEMPT_RT only the storms that do not write run this way,
 *             and the default mode there is kthread.
 *  - kthread: one kthread bound to each CPU, a spinning start gate, a warm-up
 *             before the gate and a cool-down that keeps every CPU busy until
 *             the last one finishes (as kernel/rcu/refscale.c does), batches
 *             separated by cond_resched(), GFP_KERNEL allocations.
 *
 * Only two clock reads are taken per batch; one batch in eight is instead
 * timed op by op to sample latencies, and is left out of ns/op.
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include "pidx_hooks.h"
#include "pidx_pid.h"
#include "pidx_sched.h"
#include "pidx_substrate.h"

/* the fault_inject mask of the storm in flight (runs are serialized) */
static unsigned int pidx_storm_faults;

/*
 * Under fault_inject the storm calls the writers through these, which count
 * the operations an index refused with -ENOMEM (fails counts them among
 * others); runs are serialized, so one set of pointers serves every storm.
 */
static const struct pidx_ops *pidx_nomem_real;
static struct pidx_ops pidx_nomem_ops;
static atomic_long_t pidx_nomem_count;

static int pidx_nomem_seen(int ret)
{
	if (ret == -ENOMEM)
		atomic_long_inc(&pidx_nomem_count);
	return ret;
}

static int pidx_nomem_alloc(struct pidx_index *idx, gfp_t gfp)
{
	return pidx_nomem_seen(pidx_nomem_real->alloc(idx, gfp));
}

static int pidx_nomem_insert(struct pidx_index *idx, u32 pid, gfp_t gfp)
{
	return pidx_nomem_seen(pidx_nomem_real->insert(idx, pid, gfp));
}

static int pidx_nomem_alloc_publish(struct pidx_index *idx, void *value, u32 *nr,
				    gfp_t gfp)
{
	return pidx_nomem_seen(pidx_nomem_real->alloc_publish(idx, value, nr, gfp));
}

static int pidx_nomem_alloc_publish_levels(struct pidx_index *const *idx,
					   unsigned int n, void *value,
					   u32 *const *nr, gfp_t gfp)
{
	return pidx_nomem_seen(pidx_nomem_real->alloc_publish_levels(idx, n, value,
								     nr, gfp));
}

static int pidx_nomem_remove(struct pidx_index *idx, u32 pid)
{
	return pidx_nomem_seen(pidx_nomem_real->remove(idx, pid));
}

static int pidx_nomem_remove_levels(struct pidx_index *const *idx,
				    unsigned int n, const u32 *nr)
{
	return pidx_nomem_seen(pidx_nomem_real->remove_levels(idx, n, nr));
}

/*
 * -ENOMEMs so far: the index's, and the engine's struct pid objects that
 * could not be had, as alloc_pid() fails with -ENOMEM when its
 * kmem_cache_alloc() does.
 */
static long pidx_nomem_read(void)
{
	return atomic_long_read(&pidx_nomem_count) + pidx_pid_failed();
}

static const struct pidx_ops *pidx_nomem_wrap(const struct pidx_ops *ops)
{
	pidx_nomem_real = ops;
	pidx_nomem_ops = *ops;
	pidx_nomem_ops.alloc = pidx_nomem_alloc;
	pidx_nomem_ops.insert = pidx_nomem_insert;
	pidx_nomem_ops.remove = pidx_nomem_remove;
	/* one level's forks take alloc_publish(), more levels' the level form */
	if (ops->alloc_publish)
		pidx_nomem_ops.alloc_publish = pidx_nomem_alloc_publish;
	if (ops->alloc_publish_levels)
		pidx_nomem_ops.alloc_publish_levels = pidx_nomem_alloc_publish_levels;
	if (ops->remove_levels)
		pidx_nomem_ops.remove_levels = pidx_nomem_remove_levels;
	return &pidx_nomem_ops;
}

static void pidx_ipi_round(void *info)
{
	struct pidx_storm *s = info;
	struct pidx_worker *w = &s->workers[s->worker_of[smp_processor_id()]];
	u64 t0 = ktime_get_ns();

	if (w->done < w->nops)
		pidx_run_batch(w);
	/* interrupts are off for the whole callback */
	w->irqs_off_max_ns = max(w->irqs_off_max_ns, ktime_get_ns() - t0);
}

/* untimed, as the kthread mode's warm-up before its gate */
static void pidx_ipi_warmup(void *info)
{
	struct pidx_storm *s = info;

	pidx_untimed_lookups(&s->workers[s->worker_of[smp_processor_id()]],
			     PIDX_WARMUP_OPS);
}

static int pidx_storm_ipi(struct pidx_storm *s)
{
	unsigned int i;
	u32 r, rounds = 0;
	u64 t0;

	/* replay: as many rounds as the CPU with the most events needs */
	for (i = 0; i < s->nworkers; i++)
		rounds = max(rounds, DIV_ROUND_UP(s->workers[i].nops, s->batch));

	for (i = 0; i < s->nworkers; i++)
		pidx_pmu_mark(&s->workers[i].pmu, false);
	for (r = 0; r < rounds; r++) {
		/* the round, not a preemption of this task before it */
		preempt_disable();
		t0 = ktime_get_ns();
		on_each_cpu_mask(&s->cfg->cpus, pidx_ipi_round, s, true);
		s->round_max_ns = max(s->round_max_ns, ktime_get_ns() - t0);
		preempt_enable();
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	for (i = 0; i < s->nworkers; i++)
		pidx_pmu_mark(&s->workers[i].pmu, true);
	return 0;
}

static int pidx_kthread_fn(void *arg)
{
	struct pidx_worker *w = arg;
	struct pidx_storm *s = w->storm;
	int old_mark;
	u64 t0;

	pidx_untimed_lookups(w, PIDX_WARMUP_OPS);
	if (atomic_inc_return(&s->ready) == s->nworkers) {
		s->t_go = ktime_get_ns();
		/* publishes t_go to whoever reads it after the gate opens */
		smp_store_release(&s->go, true);
	} else {
		/* pairs with the release above */
		while (!smp_load_acquire(&s->go))
			cond_resched();
	}
	/* the storm's own allocations, not the thread's exit, may be failed */
	old_mark = pidx_fault_mark(pidx_storm_faults & PIDX_FAULT_STORM);
	pidx_pmu_mark(&w->pmu, false);
	while (w->done < w->nops && !READ_ONCE(s->abort)) {
		t0 = ktime_get_ns();
		pidx_run_batch(w);
		w->batch_max_ns = max(w->batch_max_ns, ktime_get_ns() - t0);
		cond_resched();
	}
	pidx_pmu_mark(&w->pmu, true);
	pidx_fault_restore(old_mark);
	if (atomic_inc_return(&s->finished) == s->nworkers) {
		s->t_end = ktime_get_ns();
		complete(&s->all_done);
	}
	/* cool-down: stay busy so the last CPU is not measured alone */
	while (atomic_read(&s->finished) < s->nworkers) {
		pidx_untimed_lookups(w, 64);
		cond_resched();
	}
	pidx_kthread_wait_stop();
	return 0;
}

static int pidx_storm_kthread(struct pidx_storm *s)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < s->nworkers; i++) {
		struct pidx_worker *w = &s->workers[i];
		struct task_struct *t;

		t = kthread_create_on_node(pidx_kthread_fn, w, cpu_to_node(w->cpu),
					   "pidx/%u", w->cpu);
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		kthread_bind(t, w->cpu);
		w->task = t;
	}
	if (ret) {
		for (i = 0; i < s->nworkers; i++)
			if (s->workers[i].task)
				kthread_stop(s->workers[i].task);
		return ret;
	}
	for (i = 0; i < s->nworkers; i++)
		wake_up_process(s->workers[i].task);
	/* a timed wait, so a long storm never looks like a hung task */
	while (!wait_for_completion_timeout(&s->all_done, HZ)) {
		if (fatal_signal_pending(current) && !s->abort) {
			WRITE_ONCE(s->abort, true);
			ret = -EINTR;
		}
	}
	for (i = 0; i < s->nworkers; i++)
		kthread_stop(s->workers[i].task);
	return ret;
}

/* The counters go before pidx_storm_end() frees the workers that hold them. */
static void pidx_pmu_close_all(struct pidx_storm *s)
{
	unsigned int i;

	if (s->workers)
		for (i = 0; i < s->nworkers; i++)
			pidx_pmu_close(&s->workers[i].pmu);
}

struct pidx_prefill_job {
	struct pidx_storm *s;
	int ret;
	struct completion done;
};

static int pidx_prefill_fn(void *arg)
{
	struct pidx_prefill_job *job = arg;
	const struct pidx_config *cfg = job->s->cfg;
	int old_mark;

	/*
	 * A node whose CPUs are all offline gets the placement of "any", as
	 * does interleave for an index that does not move (pidx_prefill()).
	 */
	if (cfg->node == NUMA_NO_NODE ||
	    (cfg->node == PIDX_NODE_INTERLEAVE && job->s->ops->alloc_ranges) ||
	    (cfg->node >= 0 && !pidx_prefill_move(cfg->node)))
		set_cpus_allowed_ptr(current, cpumask_of(cpumask_first(&cfg->cpus)));
	old_mark = pidx_fault_mark(pidx_storm_faults & PIDX_FAULT_PREFILL);
	job->ret = pidx_prefill(job->s);
	pidx_fault_restore(old_mark);
	complete(&job->done);
	pidx_kthread_wait_stop();
	return 0;
}

/*
 * The prefill runs in a kthread: on the first storm CPU when node is "any",
 * so a seed gives the same structure whichever CPU wrote testcase (skip list
 * heights come from per-CPU generators); on the node's CPUs otherwise, so
 * structures the kernel allocates for us land there too.  The writer of
 * testcase keeps its own CPU affinity.
 */
static int pidx_prefill_placed(struct pidx_storm *s)
{
	struct pidx_prefill_job job = { .s = s };
	struct task_struct *t;

	init_completion(&job.done);
	t = kthread_create(pidx_prefill_fn, &job, "pidx-fill");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	/*
	 * Millions of keys take minutes under emulation: a timed wait keeps
	 * the writer off the hung-task list, and a fatal signal stops the
	 * prefill, whose kthread must finish before @job goes out of scope.
	 */
	while (!wait_for_completion_timeout(&job.done, HZ))
		if (fatal_signal_pending(current))
			WRITE_ONCE(s->abort, true);
	kthread_stop(t);
	return job.ret;
}

static int pidx_prepare(struct pidx_storm *s)
{
	unsigned int wi, i;
	const char *why;
	int ret;

	ret = pidx_storm_setup(s, &why);
	if (ret)
		return ret;
	ret = pidx_prefill_placed(s);
	if (ret)
		return ret;
	ret = pidx_storm_deal(s);
	if (ret)
		return ret;
	for (wi = 0; wi < s->nworkers; wi++) {
		struct pidx_worker *w = &s->workers[wi];

		pidx_pmu_open(&w->pmu, w->cpu, s->cfg->pmu);
		for (i = 0; i < PIDX_PMU_NR; i++)
			s->pmu_opened[i] += !!w->pmu.ev[i];
	}
	return 0;
}

/*
 * Rows of a run under fault injection say so in extra, and how many of the
 * operations the index refused with -ENOMEM, in the storm and (retried) in
 * the prefill; the label goes in whole, cutting the index's facts short if
 * it must.  Such rows are no ordinary result: plot.py leaves them out.
 */
static void pidx_label_faults(struct pidx_result *res, long prefill, long storm)
{
	char tag[72];

	scnprintf(tag, sizeof(tag), "faults=failslab;nomem=%ld;prefill_nomem=%ld",
		  storm, prefill);
	pidx_extra_tag(res, tag);
}

int pidx_storm_one(const struct pidx_ops *ops, const struct pidx_config *cfg,
		   const struct pidx_shape_set *shape,
		   const struct pidx_storm_ctx *ctx, struct pidx_result **resp)
{
	struct pidx_storm s = {
		.ops = ctx->faults ? pidx_nomem_wrap(ops) : ops,
		.cfg = cfg,
		.shape = shape,
	};
	long nomem_start = pidx_nomem_read(), nomem_filled;
	struct pidx_result *res;
	long mem_before = pidx_mem_bytes();
	u64 t0 = 0, t1 = 0;
	int ret;

	*resp = NULL;
	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	pidx_storm_faults = ctx->faults;
	pidx_result_init(res, ops, cfg, ctx->run_no, ctx->repeat);
	res->numa_note = ctx->node_note;
	ret = pidx_storm_create(&s);
	if (ret)
		goto out;
	ret = pidx_prepare(&s);
	if (ret)
		goto out;
	nomem_filled = pidx_nomem_read();
	s.workers[0].stall_ms = min(xchg(ctx->stall_test_ms, 0),
				    PIDX_STALL_TEST_MAX_MS);

	atomic_set(&s.ready, 0);
	atomic_set(&s.finished, 0);
	init_completion(&s.all_done);
	/*
	 * Visits are counted in the storm only: a traced prefill or oracle
	 * check of 1M keys would take minutes under emulation.
	 */
	if (cfg->trace_visits)
		static_branch_enable(&pidx_visits_on);
	/* only the storm itself pins the CPUs: destroy may wait for RCU */
	cpus_read_lock();
	if (!cpumask_subset(&cfg->cpus, cpu_online_mask)) {
		ret = -EINVAL;
	} else if (cfg->mode == PIDX_MODE_IPI) {
		/*
		 * __GFP_NOWARN: a storm's atomic allocation that fails is an
		 * operation counted in fails, expected under pressure, and a
		 * splat for each would flood the log (failslab too reports
		 * none for it).  The kthread storm's GFP_KERNEL keeps the
		 * warning: it fails only once reclaim has, which is news.
		 */
		s.gfp = GFP_ATOMIC | __GFP_NOWARN;
		/*
		 * Untimed: the first timed round would otherwise pay for what
		 * the prefill, run on one CPU, left cold in the others' caches
		 * and TLBs.
		 */
		on_each_cpu_mask(&cfg->cpus, pidx_ipi_warmup, &s, true);
		t0 = ktime_get_ns();
		ret = pidx_storm_ipi(&s);
		t1 = ktime_get_ns();
	} else {
		s.gfp = GFP_KERNEL;
		ret = pidx_storm_kthread(&s);
		t0 = s.t_go;
		t1 = s.t_end;
	}
	cpus_read_unlock();
	if (cfg->trace_visits)
		static_branch_disable(&pidx_visits_on);
	if (ret)
		goto out;
	res->elapsed_ns = t1 - t0;
	pidx_storm_check(&s, res, "dmesg");
	if (*res->numa_note) {
		size_t len = strlen(res->extra);

		scnprintf(res->extra + len, sizeof(res->extra) - len, "%snuma=%s",
			  len ? ";" : "", res->numa_note);
	}
	if (ctx->faults)
		pidx_label_faults(res, nomem_filled - nomem_start,
				  pidx_nomem_read() - nomem_filled);
out:
	pidx_pmu_close_all(&s);
	pidx_storm_end(&s, res, mem_before, ret);
	if (ret) {
		pr_err("pidx: %s: storm failed: %d\n", ops->name, ret);
		kfree(res);
		return ret;
	}
	if (res->verdict == PIDX_FAILED)
		pr_err("pidx: %s %s: FAILED: %s\n", ops->name,
		       pidx_workload_names[cfg->workload], res->why);
	else if (res->slow)
		pr_warn("pidx: %s %s: slow: %s\n", ops->name,
			pidx_workload_names[cfg->workload], res->why);
	*resp = res;
	return 0;
}
