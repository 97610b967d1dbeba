// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-user: the module's storms, natively.  The index files, the kernel's
 * lib/idr.c, radix-tree.c, xarray.c, maple_tree.c and rbtree.c, the
 * registry of indexes (pidx_registry.c), the storm operations
 * (pidx_workload*.c) and the setup, prefill, checks and summaries of a storm
 * (pidx_storm.c, pidx_prefill.c, pidx_oracle.c, pidx_result.c) are the very
 * files Kbuild builds, on the compat layer in compat/.  This file and
 * pidx_user_opts.c are what pidx_substrate.c, pidx_run.c and
 * pidx_debugfs.c are to the module: settings, one thread pinned per listed
 * CPU behind a start barrier (as the module's kthread mode: warm-up, a
 * spinning gate, batches timed with two clock reads, one batch in eight
 * timed op by op, a cool-down that keeps every CPU busy), repeats
 * interleaved across indexes, and results.csv rows with substrate=user.
 *
 * The command line is read in pidx_user_opts.c, --cachegrind's runs are
 * in pidx_user_cg.c, and the table and the rows are written by
 * pidx_user_print.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include "pidx_user.h"
#include "compat/kcompat.h"

/*
 * The module's test-only fail_remove_alloc parameter fails ccskip's removal
 * allocations on purpose; the native build measures and checks the indexes
 * as they run, so its removals are never failed.
 */
bool pidx_fault_remove_alloc(void)
{
	return false;
}

/*
 * The race delays belong to the module's selftest (pidx_hooks.c), which
 * the native build does not run: the key stays off, each site a nop.
 */
DEFINE_STATIC_KEY_FALSE(pidx_race_delays);

void __pidx_race_delay(void)
{
}

/* and so do the contract checks: storms make the kernel's calls alone */
DEFINE_STATIC_KEY_FALSE(pidx_contract_checks);

/* One node here (compat/): the prefill stays on the first storm CPU. */
bool pidx_prefill_move(int node)
{
	return false;
}

/* the process's CPUs before any thread was pinned, for --cachegrind's runs */
cpu_set_t start_affinity;

void die(int code, const char *fmt, ...)
{
	va_list args;

	fprintf(stderr, PROG ": error: ");
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputc('\n', stderr);
	exit(code);
}

/* ------------------------------------------------------------ one storm */

static void pin_to(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		die(1, "cannot pin a thread to CPU %u", cpu);
}

/* The module's kthread worker (pidx_kthread_fn): its storm. */
static void worker_storm(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;

	pidx_untimed_lookups(w, PIDX_WARMUP_OPS);
	if (atomic_inc_return(&s->ready) == (int)s->nworkers) {
		s->t_go = ktime_get_ns();
		smp_store_release(&s->go, true);
	} else {
		while (!smp_load_acquire(&s->go))
			cpu_relax();
	}
	/* --failslab: the storm's operations, as the module marks its kthreads */
	kc_fault_mark(true, pidx_rand_seed(s->cfg->seed, 0xfa11 + w->cpu));
	while (w->done < w->nops)
		pidx_run_batch(w);
	kc_fault_mark(false, 0);
	if (atomic_inc_return(&s->finished) == (int)s->nworkers)
		s->t_end = ktime_get_ns();
	/* cool-down: stay busy so the last CPU is not measured alone */
	while (atomic_read(&s->finished) < (int)s->nworkers)
		pidx_untimed_lookups(w, 64);
}

/* ... as a pinned thread. */
static void *worker_main(void *arg)
{
	struct pidx_worker *w = arg;

	pin_to(w->cpu);
	rcu_register_thread();
	kc_set_cpu(w->cpu);
	worker_storm(w);
	kc_set_cpu(-1);
	rcu_unregister_thread();
	return NULL;
}

/*
 * --churn: the prefilled set unchanged, but each of @n steps frees the node
 * of a random key and its object, and allocates both anew, as the
 * fork/exit churn that made an aged set would have, so that the memory
 * layout of a churned index can be held against that of one filled in
 * order (docs/design.md).
 */
static void churn(struct pidx_storm *s, u32 n)
{
	u64 rng = pidx_rand_seed(s->cfg->seed, 0xfffd);
	struct pidx_pid *pid;
	unsigned int level;
	u32 i, j, key;
	int ret;

	for (i = 0; i < n && s->nkeys; i++) {
		j = pidx_rand_below(&rng, s->nkeys);
		key = pidx_shape_key(s->shape, j);
		do
			ret = pidx_remove_levels(s, s->objs[j]);
		while (ret == -ENOMEM && s->ops->remove_may_fail);
		if (ret)
			die(1, "--churn: %s: key %u: %d", s->ops->name, key, ret);
		pidx_pid_free(s->objs[j]);
		pid = pidx_pid_new(s->nlevels, GFP_KERNEL);
		if (!pid)
			die(1, "out of memory");
		pidx_pid_set(pid, s->nlevels);
		for (level = 0, ret = 0; level < s->nlevels && !ret; level++) {
			pid->numbers[level].nr = key;
			ret = s->ops->insert(s->lvl[level], key, GFP_KERNEL);
		}
		if (!ret)
			ret = pidx_publish_levels(s, pid);
		if (ret)
			die(1, "--churn: %s: key %u: %d", s->ops->name, key, ret);
		s->objs[j] = pid;
	}
	/* the frees run now, on liburcu's thread, not inside the storm */
	rcu_barrier();
}

/*
 * pidx_prepare() of pidx_substrate.c, the prefill on this thread, which stands
 * for the first storm CPU.
 */
static int prepare(const struct opts *o, struct pidx_storm *s, const char **why)
{
	const struct pidx_config *cfg = s->cfg;
	size_t grow;
	int ret;

	ret = pidx_storm_setup(s, why);
	if (ret)
		return ret;
	/*
	 * memory the storm will take is mapped now, not during the storm: a
	 * replay ignores ops and forks at most once an event
	 */
	if (cfg->replay)
		grow = (size_t)cfg->replay->initial + cfg->replay->events;
	else
		grow = (size_t)cfg->ops * s->nworkers;
	kc_arena_prefault(((size_t)cfg->keys + grow) * 256 + (32UL << 20));
	ret = pidx_prefill(s);
	if (ret)
		return ret;
	churn(s, o->churn);
	return pidx_storm_deal(s);
}

/*
 * A row of a storm under --failslab says so, as the module's do, and how
 * many allocations failed: plot.py and the report leave such rows out.
 */
static void label_faults(struct pidx_result *res, long injected)
{
	char tag[48];

	snprintf(tag, sizeof(tag), "faults=failslab;injected=%ld", injected);
	pidx_extra_tag(res, tag);
}

/*
 * pidx_storm_one(): create, prefill, storm, verify, destroy.  A cachegrind
 * child ends the process right after the storm: what comes after it would
 * cost more for the longer run and not cancel.
 */
static int storm_one(const struct opts *o, const struct pidx_ops *ops, u32 repeat,
		     struct pidx_result *res)
{
	const struct pidx_config *cfg = &o->cfg;
	struct pidx_storm s = { .ops = ops, .cfg = cfg, .gfp = GFP_KERNEL,
				.shape = &o->shape };
	unsigned int first = cpumask_first(&cfg->cpus), i;
	long mem_before = pidx_mem_bytes();
	long injected = atomic_long_read(&kc_failslab_injected);
	unsigned long msgs = kc_err_messages;
	const char *why = "";
	pthread_t *threads;
	int ret;

	/* the prefill, the oracle and destroy run on the first storm CPU */
	pin_to(first);
	kc_set_cpu(first);
	memset(res, 0, sizeof(*res));
	pidx_result_init(res, ops, cfg, o->run, repeat);
	ret = pidx_storm_create(&s);
	if (ret)
		goto out;
	ret = prepare(o, &s, &why);
	if (ret)
		goto out;
	atomic_set(&s.ready, 0);
	atomic_set(&s.finished, 0);
	if (cfg->trace_visits)
		static_branch_enable(&pidx_visits_on);
	if (o->cg_child) {
		/*
		 * Its one storm CPU is this thread's.  A second thread would
		 * make the counts depend on host timing: valgrind runs one
		 * thread at a time and hands over at syscalls, so how the new
		 * thread's start interleaves with this one's next steps (which
		 * lines each brings into the simulated caches first) varies
		 * from run to run on a busy host, and the ops/2 and ops runs
		 * no longer cancel.  make check saw D1 misses per op of 0.065
		 * and 0.071 in two runs of one seed.
		 */
		worker_storm(&s.workers[0]);
		_exit(0);
	}
	threads = calloc(s.nworkers, sizeof(*threads));
	if (!threads) {
		ret = -ENOMEM;
		goto out;
	}
	/* this thread's CPU goes to its worker for the storm */
	kc_set_cpu(-1);
	for (i = 0; i < s.nworkers; i++)
		if (pthread_create(&threads[i], NULL, worker_main, &s.workers[i]))
			die(1, "cannot create a storm thread");
	for (i = 0; i < s.nworkers; i++)
		pthread_join(threads[i], NULL);
	free(threads);
	kc_set_cpu(first);
	if (o->cg_child)
		_exit(0);
	if (cfg->trace_visits)
		static_branch_disable(&pidx_visits_on);
	res->elapsed_ns = s.t_end - s.t_go;
	pidx_storm_check(&s, res, "above");
	if (kc_failslab_percent)
		label_faults(res, atomic_long_read(&kc_failslab_injected) - injected);
out:
	pidx_storm_end(&s, res, mem_before, ret);
	if (!ret && !ops->no_contents && kc_err_messages != msgs && res->verdict != PIDX_FAILED)
		pidx_fail(res, "the index printed %lu error message(s)", kc_err_messages - msgs);
	if (ret)
		fprintf(stderr, PROG ": %s: storm refused or failed: %s (%d)\n", ops->name,
			*why ? why : strerror(-ret), ret);
	return ret;
}

int main(int argc, char **argv)
{
	struct pidx_config shape_cfg;
	struct opts o;
	u8 order[PIDX_MAX_INDEXES];
	struct row *rows;
	unsigned int i, n = 0, nsel, nord;
	unsigned long spins;
	u64 base_seed;
	const char *why = "";
	u32 rep, slice, cap;
	int ret = 0, bad = 0;

	if (sched_getaffinity(0, sizeof(start_affinity), &start_affinity))
		CPU_ZERO(&start_affinity);
	kc_init();
	rcu_register_thread();
	parse_args(&o, argc, argv);
	/*
	 * Not in a cachegrind child: its counts must not depend on how
	 * valgrind interleaves threads, and it has one CPU.
	 */
	if (!o.cg_child && kc_rcu_percpu_callbacks())
		die(1, "cannot start a call_rcu thread per CPU");
	if (pidx_pid_cache_init())
		die(1, "out of memory");
	if (o.cfg.keys > pidx_space(o.cfg.pid_max))
		die(1, "--keys %u exceeds pid_max - 1", o.cfg.keys);
	/* replay: the trace laid out for the CPUs; its initially-live PIDs beside the keys */
	if (o.cfg.workload == PIDX_WL_REPLAY) {
		ret = pidx_replay_make(&o.trace, cpumask_weight(&o.cfg.cpus), &o.plan);
		if (ret)
			die(1, "the trace's plan was not made: %s", strerror(-ret));
		o.cfg.replay = &o.plan;
		if (pidx_live_keys(&o.cfg) > pidx_space(o.cfg.pid_max))
			die(1, "run refused: keys + %u initially-live PIDs exceed pid_max - 1",
			    o.plan.initial);
	}
	if (pidx_plan(&o.cfg, cpumask_weight(&o.cfg.cpus), &slice, &cap, &why) ||
	    pidx_shape_check(&o.cfg, &why))
		die(1, "run refused: %s", why);
	/* from the run's seed, before the repeats add theirs */
	shape_cfg = o.cfg;
	if (o.shape_seed_set)
		shape_cfg.seed = o.shape_seed;
	ret = pidx_shape_make(&shape_cfg, &o.shape);
	if (ret)
		die(1, "the live set was not made: %s", strerror(-ret));
	ret = pidx_dist_make(&shape_cfg, &o.shape);
	if (ret)
		die(1, "the dist walk was not made: %s", strerror(-ret));
	if (o.dump_keys) {
		dump_keys(&o);
		return 0;
	}
	if (o.dump_dist) {
		dump_dist(&o);
		return 0;
	}
	nsel = hweight_long(o.cfg.indexes);
	rows = calloc(nsel * o.cfg.repeat, sizeof(*rows));
	if (!rows)
		die(1, "out of memory");
	/* as the module's pidx_run(): a seed and an order of indexes per repeat */
	base_seed = o.cfg.seed;
	for (rep = 0; rep < o.cfg.repeat && !ret; rep++) {
		o.cfg.seed = base_seed + rep;
		nord = pidx_round_order(o.cfg.indexes, o.cfg.seed, order);
		for (i = 0; i < nord && !ret; i++) {
			const struct pidx_ops *ops = pidx_index_table[order[i]];

			spins = kc_long_spins;
			ret = storm_one(&o, ops, rep, &rows[n].r);
			if (ret)
				break;
			rows[n].long_spins = kc_long_spins - spins;
			if (o.cachegrind)
				cg_count(&o, ops, &rows[n]);
			if (rows[n].r.verdict == PIDX_FAILED)
				bad++;
			n++;
		}
	}
	o.cfg.seed = base_seed;
	if (!o.quiet)
		print_table(&o, rows, n);
	if (o.csv)
		write_csv(o.csv, rows, n);
	free(rows);
	pidx_shape_free(&o.shape);
	/* every storm's workers have finished with the plan's events */
	pidx_replay_free(&o.plan);
	pidx_trace_free(&o.trace);
	kc_set_cpu(-1);
	if (!o.cg_child)
		kc_rcu_percpu_callbacks_end();
	rcu_unregister_thread();
	return ret || bad ? 1 : 0;
}
