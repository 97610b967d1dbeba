// SPDX-License-Identifier: GPL-2.0
/*
 * pidx storm engine, the module's part: builds each selected index, storms
 * it from every selected CPU at once, times the storm with ktime, and
 * records the result.  The setup, the prefill and the checks that the index
 * still holds exactly what the operations imply are pidx_storm.c's, shared
 * with user/pidx-user; the prefill's placement on a node is this file's.
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
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
/* kvzalloc(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include "pidx_shape.h"
#include "pidx_storm.h"

struct pidx_mem_account pidx_mem;
struct pidx_config pidx_cfg;
/* guards pidx_cfg and the last-command state against torn reads */
DEFINE_MUTEX(pidx_cfg_lock);
/* one run, selftest or reset at a time */
DEFINE_MUTEX(pidx_run_lock);
LIST_HEAD(pidx_results);
/* guards pidx_results: readers of results.csv may read during a run */
DEFINE_MUTEX(pidx_results_lock);
u32 pidx_run_no;
unsigned long pidx_run_skipped;
enum pidx_last_cmd pidx_last_cmd;
int pidx_last_rc;
const char *pidx_last_why = "";
struct pidx_log pidx_selftest_log;
struct pidx_log pidx_selftest_shown;
bool pidx_running;
u32 pidx_stall_test_ms;

static unsigned int pidx_nr_results;

unsigned int pidx_fail_remove_alloc;
module_param_named(fail_remove_alloc, pidx_fail_remove_alloc, uint, 0644);
MODULE_PARM_DESC(fail_remove_alloc, "test only: fail every Nth node allocation of a removal (0: never)");
static atomic_t pidx_fault_count;

bool pidx_fault_remove_alloc(void)
{
	unsigned int n = READ_ONCE(pidx_fail_remove_alloc);

	return n && !((unsigned int)atomic_inc_return(&pidx_fault_count) % n);
}

unsigned int pidx_fault_inject;
module_param_named(fault_inject, pidx_fault_inject, uint, 0644);
MODULE_PARM_DESC(fault_inject, "test only: contexts failslab may fail (mask: 1 storm kthreads, 2 prefill, 4 selftest phase, 8 load/unload); rows get faults=failslab");

/* the mask as the run in flight read it at its start (pidx_run_lock) */
static unsigned int pidx_run_faults;

int pidx_fault_mark(bool on)
{
#ifdef CONFIG_FAULT_INJECTION
	int old = current->make_it_fail;

	if (on)
		current->make_it_fail = 1;
	return old;
#else
	return 0;
#endif
}

void pidx_fault_restore(int old)
{
#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = old;
#endif
}

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

static int pidx_nomem_remove(struct pidx_index *idx, u32 pid)
{
	return pidx_nomem_seen(pidx_nomem_real->remove(idx, pid));
}

static const struct pidx_ops *pidx_nomem_wrap(const struct pidx_ops *ops)
{
	pidx_nomem_real = ops;
	pidx_nomem_ops = *ops;
	pidx_nomem_ops.alloc = pidx_nomem_alloc;
	pidx_nomem_ops.insert = pidx_nomem_insert;
	pidx_nomem_ops.remove = pidx_nomem_remove;
	return &pidx_nomem_ops;
}

/* how this run applies the node setting, when not as written (pidx_run_lock) */
static const char *pidx_node_note = "";

/* Enough for a full sweep; the oldest rows go first beyond it. */
#define PIDX_RESULTS_MAX	20000

static void pidx_ipi_round(void *info)
{
	struct pidx_storm *s = info;
	struct pidx_worker *w = &s->workers[s->worker_of[smp_processor_id()]];
	u64 t0 = ktime_get_ns();

	if (w->done < s->cfg->ops)
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
	u32 rounds = DIV_ROUND_UP(s->cfg->ops, s->batch);
	unsigned int i;
	u64 t0;
	u32 r;

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
	old_mark = pidx_fault_mark(pidx_run_faults & PIDX_FAULT_STORM);
	pidx_pmu_mark(&w->pmu, false);
	while (w->done < s->cfg->ops && !READ_ONCE(s->abort)) {
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

/*
 * Runs on a CPU of the node whose memory the prefill should take, one CPU
 * and not the node's set, so that an index handing out numbers from per-CPU
 * ranges (alloc_ranges) gives the prefill 1..keys in order.  Not for
 * NUMA_NO_NODE or a node without memory: cpumask_of_node() indexes a
 * per-node table and has no entry for them.
 */
bool pidx_prefill_move(int node)
{
	unsigned int cpu;

	if (!pidx_node_has_memory(node))
		return false;
	cpu = cpumask_first_and(cpumask_of_node(node), cpu_online_mask);
	return cpu < nr_cpu_ids &&
	       !set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

/* the copy testcase shows of pidx_storm_why, as pidx_last_why (pidx_cfg_lock) */
static char pidx_storm_why_shown[PIDX_STORM_WHY_MAX];

/*
 * A kthread whose work is done sleeps until kthread_stop(): returning
 * earlier would let the task go away under the kthread_stop() of its owner.
 */
void pidx_kthread_wait_stop(void)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
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
	old_mark = pidx_fault_mark(pidx_run_faults & PIDX_FAULT_PREFILL);
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

static void pidx_add_result(struct pidx_result *res)
{
	struct pidx_result *old;

	mutex_lock(&pidx_results_lock);
	if (pidx_nr_results >= PIDX_RESULTS_MAX) {
		old = list_first_entry(&pidx_results, struct pidx_result, node);
		list_del(&old->node);
		kfree(old);
		pidx_nr_results--;
	}
	list_add_tail(&res->node, &pidx_results);
	pidx_nr_results++;
	mutex_unlock(&pidx_results_lock);
}

/*
 * Rows of a run under fault injection say so in extra, and how many of the
 * operations the index refused with -ENOMEM, in the storm and (retried) in
 * the prefill; the label goes in whole, cutting the index's facts short if
 * it must.  Such rows are no ordinary result: plot.py leaves them out.
 */
static void pidx_label_faults(struct pidx_result *res, long prefill, long storm)
{
	size_t size = sizeof(res->extra), len = strlen(res->extra);
	char tag[72];
	int n;

	n = scnprintf(tag, sizeof(tag), "faults=failslab;nomem=%ld;prefill_nomem=%ld",
		      storm, prefill);
	if (len && len + 1 + n >= size)
		len = size - 2 - n;
	scnprintf(res->extra + len, size - len, "%s%s", len ? ";" : "", tag);
}

static int pidx_storm_one(const struct pidx_ops *ops, const struct pidx_config *cfg,
			  const struct pidx_shape_set *shape, u32 repeat)
{
	struct pidx_storm s = {
		.ops = pidx_run_faults ? pidx_nomem_wrap(ops) : ops,
		.cfg = cfg,
		.shape = shape,
	};
	long nomem_start = atomic_long_read(&pidx_nomem_count), nomem_filled;
	struct pidx_result *res;
	long mem_before = atomic_long_read(&pidx_mem.bytes);
	u64 t0 = 0, t1 = 0;
	int ret;

	res = kzalloc(sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	pidx_result_init(res, ops, cfg, pidx_run_no, repeat);
	res->numa_note = pidx_node_note;
	ret = pidx_storm_create(&s);
	if (ret)
		goto out;
	ret = pidx_prepare(&s);
	if (ret)
		goto out;
	nomem_filled = atomic_long_read(&pidx_nomem_count);
	s.workers[0].stall_ms = min(xchg(&pidx_stall_test_ms, 0),
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
	if (pidx_run_faults)
		pidx_label_faults(res, nomem_filled - nomem_start,
				  atomic_long_read(&pidx_nomem_count) - nomem_filled);
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
	pidx_add_result(res);
	return 0;
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

/* Checks that depend on several settings at once, made again at run time. */
static int pidx_check_config(const struct pidx_config *cfg, const char **why)
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

int pidx_run(void)
{
	/* serialized by pidx_run_lock */
	static struct pidx_config cfg;
	static struct pidx_shape_set shape;
	u8 order[PIDX_MAX_INDEXES];
	const char *why = "";
	unsigned long skipped;
	unsigned int i, n;
	u64 base_seed;
	u32 rep;
	int ret;

	if (!mutex_trylock(&pidx_run_lock))
		return -EBUSY;
	mutex_lock(&pidx_cfg_lock);
	cfg = pidx_cfg;
	pidx_running = true;
	mutex_unlock(&pidx_cfg_lock);

	/*
	 * With one node there is nothing to interleave over: the placement is
	 * the slab default, so the run says so rather than recording a
	 * placement that never happened.
	 */
	pidx_node_note = "";
	if (cfg.node == PIDX_NODE_INTERLEAVE && num_node_state(N_MEMORY) < 2) {
		cfg.node = NUMA_NO_NODE;
		pidx_node_note = "interleave on 1 node: ran as any";
	}
	/* one mask for the whole run: its marks and its rows' labels agree */
	pidx_run_faults = READ_ONCE(pidx_fault_inject);
	pidx_storm_why[0] = '\0';

	cpus_read_lock();
	ret = pidx_check_config(&cfg, &why);
	cpus_read_unlock();
	if (ret) {
		pr_err("pidx: run refused (%d): %s\n", ret, why);
		goto out;
	}
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
	mutex_lock(&pidx_cfg_lock);
	pidx_run_no++;
	pidx_run_skipped = skipped;
	mutex_unlock(&pidx_cfg_lock);
	/* dmesg marks: the VM runner tells a stall inside a run from a host pause */
	pr_info("pidx: run %u begins\n", pidx_run_no);
	/*
	 * One live set for every storm of the run, made from the run's seed:
	 * aged is simulated once.
	 */
	ret = pidx_shape_make(&cfg, &shape);
	if (ret) {
		why = ret == -ENOMEM ? "no memory for the run's live set" :
		      "the run's live set was not made: see dmesg";
		pr_err("pidx: run %u: shape %s not made (%d)\n", pidx_run_no,
		       pidx_shape_names[cfg.shape], ret);
	} else if (cfg.shape == PIDX_SHAPE_AGED) {
		pr_info("pidx: aged set: %llu forks, %u wraps, cursor %u\n",
			shape.forks, shape.wraps, shape.cursor);
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
		for (i = 0; i < n && !ret; i++)
			if (!(pidx_run_skipped & BIT(order[i])))
				ret = pidx_storm_one(pidx_index_table[order[i]], &cfg,
						     &shape, rep);
	}
	pidx_shape_free(&shape);
	/* a live set not made has said why already */
	if (ret && !*why)
		why = pidx_storm_failed_why(ret);
	pr_info("pidx: run %u ends (%d)\n", pidx_run_no, ret);
out:
	mutex_lock(&pidx_cfg_lock);
	if (why == pidx_storm_why) {
		strscpy(pidx_storm_why_shown, pidx_storm_why, sizeof(pidx_storm_why_shown));
		why = pidx_storm_why_shown;
	}
	pidx_running = false;
	pidx_last_cmd = PIDX_CMD_RUN;
	pidx_last_rc = ret;
	pidx_last_why = ret ? why : "";
	mutex_unlock(&pidx_cfg_lock);
	mutex_unlock(&pidx_run_lock);
	return ret;
}

static void pidx_free_results(void)
{
	struct pidx_result *res, *tmp;

	mutex_lock(&pidx_results_lock);
	list_for_each_entry_safe(res, tmp, &pidx_results, node) {
		list_del(&res->node);
		kfree(res);
	}
	pidx_nr_results = 0;
	mutex_unlock(&pidx_results_lock);
}

/* pidx_cfg_lock held: a finished selftest's log becomes test_result's. */
void pidx_selftest_publish(void)
{
	lockdep_assert_held(&pidx_cfg_lock);
	kvfree(pidx_selftest_shown.buf);
	pidx_selftest_shown = pidx_selftest_log;
	pidx_selftest_log = (struct pidx_log){};
}

/* pidx_run_lock held, or nothing else left (unload). */
void pidx_reset(void)
{
	pidx_free_results();
	/* the log and last_cmd together: test_result reads both under the lock */
	mutex_lock(&pidx_cfg_lock);
	kvfree(pidx_selftest_log.buf);
	pidx_selftest_log = (struct pidx_log){};
	kvfree(pidx_selftest_shown.buf);
	pidx_selftest_shown = (struct pidx_log){};
	pidx_last_cmd = PIDX_CMD_RESET;
	pidx_run_skipped = 0;
	pidx_last_rc = 0;
	pidx_last_why = "";
	mutex_unlock(&pidx_cfg_lock);
}

void pidx_log_printf(struct pidx_log *log, const char *fmt, ...)
{
	va_list args;
	size_t room;

	if (!log->buf) {
		log->size = 32768;
		log->buf = kvzalloc(log->size, GFP_KERNEL);
		if (!log->buf) {
			log->size = 0;
			return;
		}
	}
	room = log->size - log->len;
	if (room <= 1)
		return;
	va_start(args, fmt);
	log->len += vscnprintf(log->buf + log->len, room, fmt, args);
	va_end(args);
}

static int __init pidx_init(void)
{
	int ret, old_mark;

	pidx_cfg.workload = PIDX_WL_LOOKUP;
	pidx_cfg.mix[PIDX_MIX_LOOKUP] = 90;
	pidx_cfg.mix[PIDX_MIX_INSERT] = 5;
	pidx_cfg.mix[PIDX_MIX_DELETE] = 5;
	pidx_cfg.keys = 1024;
	pidx_cfg.ops = 10000;
	/* ipi storms that write cannot run on PREEMPT_RT: see pidx_check_config() */
	pidx_cfg.mode = IS_ENABLED(CONFIG_PREEMPT_RT) ? PIDX_MODE_KTHREAD : PIDX_MODE_IPI;
	cpumask_copy(&pidx_cfg.cpus, cpu_online_mask);
	pidx_cfg.pid_max = PIDX_PID_MAX_DEFAULT;
	pidx_cfg.repeat = 1;
	pidx_cfg.seed = 1;
	pidx_cfg.fork_window = 64;
	/* fork() looks nothing up; a child exits wherever it last ran */
	pidx_cfg.fork_lookups = 0;
	pidx_cfg.fork_exit = PIDX_EXIT_REMOTE;
	pidx_cfg.sl_p = 4;
	pidx_cfg.node = NUMA_NO_NODE;
	pidx_cfg.indexes = pidx_indexes_all();

	/* fault_inject=8 at insmod: init's own allocations may fail */
	old_mark = pidx_fault_mark(pidx_fault_inject & PIDX_FAULT_LOAD);
	ret = pidx_debugfs_init();
	pidx_fault_restore(old_mark);
	if (ret) {
		pr_info("pidx: not loaded: %d\n", ret);
		return ret;
	}
	pr_info("pidx: loaded; %u indexes; /sys/kernel/debug/pidx/\n",
		pidx_nr_indexes);
	return 0;
}

static void __exit pidx_exit(void)
{
	int old_mark = pidx_fault_mark(pidx_fault_inject & PIDX_FAULT_LOAD);
	long bytes, allocs, frees;

	/* waits for any file operation in flight, so no run is left */
	pidx_debugfs_exit();
	pidx_reset();
	pidx_fault_restore(old_mark);
	bytes = atomic_long_read(&pidx_mem.bytes);
	allocs = atomic_long_read(&pidx_mem.allocs);
	frees = atomic_long_read(&pidx_mem.frees);
	if (bytes || allocs != frees)
		pr_err("pidx: leak: %ld bytes, %ld allocations, %ld frees\n",
		       bytes, allocs, frees);
	else
		pr_info("pidx: unloaded; %ld allocations, all freed\n", allocs);
}

module_init(pidx_init);
module_exit(pidx_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PID index benchmark: IDR vs skip list vs red-black skip list");
MODULE_VERSION(PIDX_VERSION);
