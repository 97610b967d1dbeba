// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-user: the module's storms, natively.  The index files, the kernel's
 * lib/idr.c, radix-tree.c, xarray.c, maple_tree.c and rbtree.c, the
 * registry of indexes (pidx_registry.c), the storm operations
 * (pidx_workload.c) and the setup, prefill, checks and summaries of a storm
 * (pidx_storm.c) are the very files Kbuild builds, on the compat layer in
 * compat/.  This file is what pidx_core.c and pidx_debugfs.c are to the
 * module: settings, one thread pinned per listed CPU behind a start barrier
 * (as the module's kthread mode: warm-up, a spinning gate, batches timed
 * with two clock reads, one batch in eight timed op by op, a cool-down that
 * keeps every CPU busy), repeats interleaved across indexes, and
 * results.csv rows with substrate=user.
 *
 * With --cachegrind every storm also runs twice under valgrind's cachegrind
 * (ops/2 and ops operations per CPU, storms only: the process ends with the
 * storm); the difference of the two runs' counts over the difference of
 * their operations is what one operation costs, with setup, prefill and
 * start-up cancelled.  The counts go into the CPU counter columns with
 * pmu=cachegrind; the row's times and verdict are those of a native run of
 * the same configuration.  See README.md, "User-space build".
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "pidx_storm.h"
#include "compat/kcompat.h"

#define PROG "pidx-user"

struct pidx_mem_account pidx_mem;

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
 * The race delays belong to the module's selftest (pidx_selftest.c), which
 * the native build does not run: the key stays off, each site a nop.
 */
DEFINE_STATIC_KEY_FALSE(pidx_race_delays);

void __pidx_race_delay(void)
{
}

/* One node here (compat/): the prefill stays on the first storm CPU. */
bool pidx_prefill_move(int node)
{
	return false;
}

/* cachegrind's events, as its output file names them */
enum { CG_IR, CG_DR, CG_DW, CG_D1MR, CG_D1MW, CG_DLMR, CG_DLMW, CG_BC, CG_BCM,
       CG_BI, CG_BIM, CG_NR };
static const char *const cg_names[CG_NR] = {
	"Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

/* the process's CPUs before any thread was pinned, for --cachegrind's runs */
static cpu_set_t start_affinity;

struct opts {
	struct pidx_config cfg;
	const char *csv;
	u32 run;
	bool cachegrind;
	bool cg_child;
	bool quiet;
	bool dump_keys;
	bool shape_seed_set;
	u64 shape_seed;
	u32 churn;
	const char *argv0;
	/* the run's live set, made once before its first storm */
	struct pidx_shape_set shape;
};

/* one row; cg: what cachegrind counted per operation, x 1000 */
struct row {
	struct pidx_result r;
	/* lock waits, prefill to destroy, that outlasted a preempted holder */
	unsigned long long_spins;
	bool cg;
	s64 cg_milli[CG_NR];
};

static void die(int code, const char *fmt, ...) __printf(2, 3) __noreturn;
static void die(int code, const char *fmt, ...)
{
	va_list args;

	fprintf(stderr, PROG ": error: ");
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputc('\n', stderr);
	exit(code);
}

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

/* ------------------------------------------------------------ settings */

static bool parse_u64(const char *s, u64 *v)
{
	char *end;
	unsigned long long n;

	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno)
		return false;
	if (*end == 'K' || *end == 'k') {
		n *= 1024;
		end++;
	} else if (*end == 'M' || *end == 'm') {
		n *= 1048576;
		end++;
	}
	if (*end)
		return false;
	*v = n;
	return true;
}

static u32 parse_u32_opt(const char *name, const char *s, u64 lo, u64 hi)
{
	u64 v;

	if (!parse_u64(s, &v) || v < lo || v > hi)
		die(2, "--%s wants a number in [%llu, %llu], not '%s'", name, lo, hi, s);
	return v;
}

static void parse_indexes(struct pidx_config *cfg, const char *list)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ix;

	cfg->indexes = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "all")) {
			cfg->indexes |= pidx_indexes_all();
			continue;
		}
		if (!strcmp(tok, "auto")) {
			cfg->indexes |= GENMASK(pidx_nr_indexes - 1, 0);
			continue;
		}
		ix = pidx_index_by_name(tok);
		if (ix < 0)
			die(2, "unknown index '%s' (see --list)", tok);
		cfg->indexes |= BIT(ix);
	}
	free(copy);
	if (!cfg->indexes)
		die(2, "--indexes selects no index");
}

static void parse_mix(struct pidx_config *cfg, const char *s)
{
	unsigned int l, i, d;
	char tail;

	if (sscanf(s, "%u/%u/%u%c", &l, &i, &d, &tail) != 3 || l + i + d != 100)
		die(2, "--mix wants L/I/D percentages adding up to 100, not '%s'", s);
	cfg->mix[PIDX_MIX_LOOKUP] = l;
	cfg->mix[PIDX_MIX_INSERT] = i;
	cfg->mix[PIDX_MIX_DELETE] = d;
}

/* a cpulist: "0", "0-3", "0,2-3" */
static void parse_cpus(struct pidx_config *cfg, const char *s)
{
	cpu_set_t allowed;
	const char *p = s;
	unsigned long a, b;
	char *end;

	cpumask_clear(&cfg->cpus);
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	while (*p) {
		if (!isdigit((unsigned char)*p))
			die(2, "--cpus wants a CPU list like 0-1,3, not '%s'", s);
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				die(2, "--cpus wants a CPU list like 0-1,3, not '%s'", s);
			b = strtoul(p, &end, 10);
		}
		if (b < a || b >= nr_cpu_ids)
			die(2, "--cpus '%s': CPUs are 0-%u here", s, nr_cpu_ids - 1);
		for (; a <= b; a++) {
			if (!CPU_ISSET(a, &allowed))
				die(2, "--cpus '%s': CPU %lu is not in this process's affinity mask", s, a);
			cpumask_set_cpu(a, &cfg->cpus);
		}
		p = end;
		if (*p == ',')
			p++;
		else if (*p)
			die(2, "--cpus wants a CPU list like 0-1,3, not '%s'", s);
	}
	if (cpumask_empty(&cfg->cpus))
		die(2, "--cpus selects no CPU");
}

static void usage(void)
{
	printf("Usage: pidx-user [options]\n"
	       "Runs pidx storms natively: the module's index files and the kernel's own\n"
	       "lib/idr.c, radix-tree.c, xarray.c, maple_tree.c built in user space.\n\n"
	       "  --indexes LIST   comma list, all (every index but null) or auto (all) [all]\n"
	       "  --workload W     lookup insert delete mixed fork iterate [lookup]\n"
	       "  --mix L/I/D      percentages of a mixed storm [90/5/5]\n"
	       "  --keys N         prefilled PIDs, K/M suffixes [1024]\n"
	       "  --pid-max N      PID space [1, N) [32768]\n"
	       "  --ops N          operations per CPU [10000]\n"
	       "  --repeat N       storms per index, interleaved across indexes [1]\n"
	       "  --seed N         PRNG seed [1]\n"
	       "  --shape S        the live set: dense (1..keys), spread, aged [dense]\n"
	       "  --dump-keys      print the live set (first line: its facts), run nothing\n"
	       "  --churn N        after the prefill, N times remove a key and insert it again:\n"
	       "                   the same set in memory aged by churn [0]\n"
	       "  --cpus LIST      CPUs that storm, one thread pinned to each [0]\n"
	       "  --fork-window N  PIDs a fork storm CPU holds before it frees [64]\n"
	       "  --fork-lookups N lookups of each forked PID, 0-3 [0]\n"
	       "  --fork-exit E    remote (the next CPU frees a fork's PID) or local [remote]\n"
	       "  --sl-p N, --sl-max-level N, --rb-level N   skip list settings [4, 0, 0]\n"
	       "  --trace-visits   count nodes and cache lines per operation\n"
	       "  --dependent N    1: each lookup's key waits for the previous lookup's\n"
	       "                   result (lookup and mixed storms) [0]\n"
	       "  --cachegrind     also count instructions, D1/LL misses and branch\n"
	       "                   mispredicts per operation under valgrind (pmu=cachegrind)\n"
	       "  --csv FILE       append results.csv rows (the header if FILE is new)\n"
	       "  --run N          the run column [1]\n"
	       "  --quiet          no table on stdout\n"
	       "  --list           the indexes\n"
	       "Exit status: 0 all verified, 1 a storm failed or was refused, 2 usage.\n");
}

static void parse_args(struct opts *o, int argc, char **argv)
{
	enum { O_INDEXES = 256, O_WORKLOAD, O_MIX, O_KEYS, O_PID_MAX, O_OPS, O_REPEAT,
	       O_SEED, O_CPUS, O_FORK_WINDOW, O_SL_P, O_SL_MAX_LEVEL, O_RB_LEVEL,
	       O_TRACE, O_CG, O_CG_CHILD, O_CSV, O_RUN, O_QUIET, O_LIST, O_MODE,
	       O_FORK_LOOKUPS, O_FORK_EXIT, O_DEPENDENT, O_SHAPE, O_DUMP_KEYS, O_CHURN, O_SHAPE_SEED };
	static const struct option lo[] = {
		{ "indexes", 1, NULL, O_INDEXES }, { "workload", 1, NULL, O_WORKLOAD },
		{ "mix", 1, NULL, O_MIX }, { "keys", 1, NULL, O_KEYS },
		{ "pid-max", 1, NULL, O_PID_MAX }, { "ops", 1, NULL, O_OPS },
		{ "repeat", 1, NULL, O_REPEAT }, { "seed", 1, NULL, O_SEED },
		{ "cpus", 1, NULL, O_CPUS }, { "fork-window", 1, NULL, O_FORK_WINDOW },
		{ "sl-p", 1, NULL, O_SL_P }, { "sl-max-level", 1, NULL, O_SL_MAX_LEVEL },
		{ "rb-level", 1, NULL, O_RB_LEVEL }, { "trace-visits", 0, NULL, O_TRACE },
		{ "cachegrind", 0, NULL, O_CG }, { "cachegrind-child", 0, NULL, O_CG_CHILD },
		{ "csv", 1, NULL, O_CSV }, { "run", 1, NULL, O_RUN },
		{ "quiet", 0, NULL, O_QUIET }, { "list", 0, NULL, O_LIST },
		{ "mode", 1, NULL, O_MODE }, { "help", 0, NULL, 'h' },
		{ "fork-lookups", 1, NULL, O_FORK_LOOKUPS }, { "fork-exit", 1, NULL, O_FORK_EXIT },
		{ "dependent", 1, NULL, O_DEPENDENT },
		{ "shape", 1, NULL, O_SHAPE }, { "dump-keys", 0, NULL, O_DUMP_KEYS },
		{ "churn", 1, NULL, O_CHURN }, { "shape-seed", 1, NULL, O_SHAPE_SEED },
		{ NULL, 0, NULL, 0 },
	};
	struct pidx_config *cfg = &o->cfg;
	unsigned int i;
	u64 v;
	int c;

	memset(o, 0, sizeof(*o));
	o->run = 1;
	o->argv0 = argv[0];
	cfg->workload = PIDX_WL_LOOKUP;
	cfg->mix[PIDX_MIX_LOOKUP] = 90;
	cfg->mix[PIDX_MIX_INSERT] = 5;
	cfg->mix[PIDX_MIX_DELETE] = 5;
	cfg->keys = 1024;
	cfg->ops = 10000;
	cfg->mode = PIDX_MODE_KTHREAD;
	cpumask_set_cpu(0, &cfg->cpus);
	cfg->pid_max = PIDX_PID_MAX_DEFAULT;
	cfg->repeat = 1;
	cfg->seed = 1;
	cfg->fork_window = 64;
	cfg->fork_lookups = 0;
	cfg->fork_exit = PIDX_EXIT_REMOTE;
	cfg->sl_p = 4;
	cfg->node = NUMA_NO_NODE;
	cfg->pmu = PIDX_PMU_OFF;
	cfg->indexes = pidx_indexes_all();

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case O_INDEXES:
			parse_indexes(cfg, optarg);
			break;
		case O_WORKLOAD:
			for (i = 0; i < PIDX_NR_WORKLOADS; i++)
				if (!strcmp(optarg, pidx_workload_names[i]))
					break;
			if (i == PIDX_NR_WORKLOADS)
				die(2, "unknown workload '%s'", optarg);
			cfg->workload = i;
			break;
		case O_MIX:
			parse_mix(cfg, optarg);
			break;
		case O_SHAPE:
			for (i = 0; i < PIDX_NR_SHAPES; i++)
				if (!strcmp(optarg, pidx_shape_names[i]))
					break;
			if (i == PIDX_NR_SHAPES)
				die(2, "--shape wants dense, spread or aged, not '%s'", optarg);
			cfg->shape = i;
			break;
		case O_DUMP_KEYS:
			o->dump_keys = true;
			break;
		case O_SHAPE_SEED:
			/* a cachegrind child's: the run's set, not its repeat's seed */
			if (!parse_u64(optarg, &v))
				die(2, "--shape-seed wants a number, not '%s'", optarg);
			o->shape_seed = v;
			o->shape_seed_set = true;
			break;
		case O_CHURN:
			o->churn = parse_u32_opt("churn", optarg, 0, U32_MAX);
			break;
		case O_KEYS:
			cfg->keys = parse_u32_opt("keys", optarg, 0, PIDX_PID_MAX_LIMIT);
			break;
		case O_PID_MAX:
			cfg->pid_max = parse_u32_opt("pid-max", optarg, PIDX_PID_MAX_MIN,
						     PIDX_PID_MAX_LIMIT);
			break;
		case O_OPS:
			cfg->ops = parse_u32_opt("ops", optarg, 1, PIDX_OPS_MAX);
			break;
		case O_REPEAT:
			cfg->repeat = parse_u32_opt("repeat", optarg, 1, PIDX_REPEAT_MAX);
			break;
		case O_SEED:
			if (!parse_u64(optarg, &v))
				die(2, "--seed wants a number, not '%s'", optarg);
			cfg->seed = v;
			break;
		case O_CPUS:
			parse_cpus(cfg, optarg);
			break;
		case O_FORK_WINDOW:
			cfg->fork_window = parse_u32_opt("fork-window", optarg, 1,
							 PIDX_FORK_WINDOW_MAX);
			break;
		case O_FORK_LOOKUPS:
			cfg->fork_lookups = parse_u32_opt("fork-lookups", optarg, 0,
							  PIDX_FORK_LOOKUPS_MAX);
			break;
		case O_FORK_EXIT:
			for (i = 0; i < PIDX_NR_EXITS; i++)
				if (!strcmp(optarg, pidx_fork_exit_names[i]))
					break;
			if (i == PIDX_NR_EXITS)
				die(2, "--fork-exit wants remote or local, not '%s'", optarg);
			cfg->fork_exit = i;
			break;
		case O_SL_P:
			cfg->sl_p = parse_u32_opt("sl-p", optarg, 2, 16);
			if (!is_power_of_2(cfg->sl_p))
				die(2, "--sl-p wants 2, 4, 8 or 16");
			break;
		case O_SL_MAX_LEVEL:
			cfg->sl_max_level = parse_u32_opt("sl-max-level", optarg, 0,
							  PIDX_SL_LEVELS_MAX);
			break;
		case O_RB_LEVEL:
			cfg->rb_level = parse_u32_opt("rb-level", optarg, 0, PIDX_SL_LEVELS_MAX);
			break;
		case O_TRACE:
			cfg->trace_visits = 1;
			break;
		case O_DEPENDENT:
			cfg->dependent = parse_u32_opt("dependent", optarg, 0, 1);
			break;
		case O_CG:
			o->cachegrind = true;
			break;
		case O_CG_CHILD:
			o->cg_child = true;
			break;
		case O_CSV:
			o->csv = optarg;
			break;
		case O_RUN:
			o->run = parse_u32_opt("run", optarg, 0, U32_MAX);
			break;
		case O_QUIET:
			o->quiet = true;
			break;
		case O_MODE:
			if (strcmp(optarg, "kthread"))
				die(2, "--mode: user space has kthread mode only (threads, no IPIs)");
			break;
		case O_LIST:
			for (i = 0; i < pidx_nr_indexes; i++)
				printf("%s\t%s\n", pidx_index_table[i]->name,
				       pidx_index_table[i]->desc);
			exit(0);
		case 'h':
			usage();
			exit(0);
		default:
			die(2, "see --help");
		}
	}
	if (optind < argc)
		die(2, "unexpected argument '%s'", argv[optind]);
	if (o->cachegrind && cfg->trace_visits)
		die(2, "--cachegrind counts untraced storms: no --trace-visits");
	/* valgrind runs threads one at a time: spinning waits would be counted */
	if ((o->cachegrind || o->cg_child) && cpumask_weight(&cfg->cpus) != 1)
		die(2, "--cachegrind counts one storm thread: give --cpus a single CPU");
	if (o->cachegrind && cfg->ops < 2)
		die(2, "--cachegrind needs --ops 2 or more (it runs ops/2 and ops)");
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
	while (w->done < s->cfg->ops)
		pidx_run_batch(w);
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
 * of a random key and allocates it anew, as the fork/exit churn that made
 * an aged set would have, so that the memory layout of a churned index
 * can be held against that of one filled in order (docs/design.md).
 */
static void churn(struct pidx_storm *s, u32 n)
{
	u64 rng = pidx_rand_seed(s->cfg->seed, 0xfffd);
	u32 i, key;
	int ret;

	for (i = 0; i < n && s->nkeys; i++) {
		key = pidx_shape_key(s->shape, pidx_rand_below(&rng, s->nkeys));
		do
			ret = s->ops->remove(s->idx, key);
		while (ret == -ENOMEM && s->ops->remove_may_fail);
		if (!ret)
			ret = s->ops->insert(s->idx, key, GFP_KERNEL);
		if (ret)
			die(1, "--churn: %s: key %u: %d", s->ops->name, key, ret);
	}
	/* the frees run now, on liburcu's thread, not inside the storm */
	rcu_barrier();
}

/*
 * pidx_prepare() of pidx_core.c, the prefill on this thread, which stands
 * for the first storm CPU.
 */
static int prepare(const struct opts *o, struct pidx_storm *s, const char **why)
{
	const struct pidx_config *cfg = s->cfg;
	int ret;

	ret = pidx_storm_setup(s, why);
	if (ret)
		return ret;
	/* memory the storm will take is mapped now, not during the storm */
	kc_arena_prefault(((size_t)cfg->keys + (size_t)cfg->ops * s->nworkers) * 256 +
			  (32UL << 20));
	ret = pidx_prefill(s);
	if (ret)
		return ret;
	churn(s, o->churn);
	return pidx_storm_deal(s);
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
	long mem_before = atomic_long_read(&pidx_mem.bytes);
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
out:
	pidx_storm_end(&s, res, mem_before, ret);
	if (!ret && !ops->no_contents && kc_err_messages != msgs && res->verdict != PIDX_FAILED)
		pidx_fail(res, "the index printed %lu error message(s)", kc_err_messages - msgs);
	if (ret)
		fprintf(stderr, PROG ": %s: storm refused or failed: %s (%d)\n", ops->name,
			*why ? why : strerror(-ret), ret);
	return ret;
}

/* ------------------------------------------------------------ cachegrind */

static void cg_read(const char *path, u64 v[CG_NR])
{
	char line[4096], *names = NULL, *tok, *save;
	u64 vals[64];
	char *ev[64];
	int nev = 0, nval = 0, i, j;
	FILE *f = fopen(path, "r");

	if (!f)
		die(1, "cachegrind wrote no %s", path);
	memset(v, 0, CG_NR * sizeof(*v));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "events: ", 8)) {
			names = strdup(line + 8);
			for (tok = strtok_r(names, " ", &save); tok && nev < 64;
			     tok = strtok_r(NULL, " ", &save))
				ev[nev++] = tok;
		} else if (!strncmp(line, "summary: ", 9)) {
			for (tok = strtok_r(line + 9, " ", &save); tok && nval < 64;
			     tok = strtok_r(NULL, " ", &save))
				vals[nval++] = strtoull(tok, NULL, 10);
		}
	}
	fclose(f);
	if (!nev || nval != nev)
		die(1, "%s: no events/summary lines cachegrind would write", path);
	for (i = 0; i < CG_NR; i++)
		for (j = 0; j < nev; j++)
			if (!strcmp(ev[j], cg_names[i]))
				v[i] = vals[j];
	free(names);
}

static void push_arg(char **argv, int *argc, const char *fmt, ...) __printf(3, 4);
static void push_arg(char **argv, int *argc, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	if (vasprintf(&argv[(*argc)++], fmt, args) < 0)
		die(1, "out of memory");
	va_end(args);
}

/* One storm of @ops operations per CPU under cachegrind; its totals in @v. */
static void cg_run(const struct opts *o, const struct pidx_ops *ops, u32 nops,
		   const char *dir, u64 v[CG_NR])
{
	const struct pidx_config *cfg = &o->cfg;
	const char *valgrind = getenv("PIDX_VALGRIND");
	char *argv[64], out[4200], log[4200], cpus[64], self[4096];
	int argc = 0, status, fd;
	pid_t pid;

	/* this very program, even if a rebuild has replaced its file since */
	snprintf(self, sizeof(self), "/proc/%d/exe", (int)getpid());
	if (access(self, X_OK))
		die(1, "cannot find this program (%s)", self);
	snprintf(out, sizeof(out), "%s/cachegrind.%s.%u.out", dir, ops->name, nops);
	snprintf(log, sizeof(log), "%s/cachegrind.%s.%u.log", dir, ops->name, nops);
	pidx_cpulist(cpus, sizeof(cpus), &cfg->cpus);
	for (char *c = cpus; *c; c++)
		if (*c == ';')
			*c = ',';
	push_arg(argv, &argc, "%s", valgrind ? valgrind : "valgrind");
	push_arg(argv, &argc, "--tool=cachegrind");
	push_arg(argv, &argc, "--cache-sim=yes");
	push_arg(argv, &argc, "--branch-sim=yes");
	/* stated, not the host's: 32 KiB 8-way L1s, a 1 MiB 16-way last level */
	push_arg(argv, &argc, "--I1=32768,8,64");
	push_arg(argv, &argc, "--D1=32768,8,64");
	push_arg(argv, &argc, "--LL=1048576,16,64");
	push_arg(argv, &argc, "--cachegrind-out-file=%s", out);
	push_arg(argv, &argc, "%s", self);
	push_arg(argv, &argc, "--cachegrind-child");
	push_arg(argv, &argc, "--quiet");
	push_arg(argv, &argc, "--indexes=%s", ops->name);
	push_arg(argv, &argc, "--workload=%s", pidx_workload_names[cfg->workload]);
	push_arg(argv, &argc, "--mix=%u/%u/%u", cfg->mix[0], cfg->mix[1], cfg->mix[2]);
	push_arg(argv, &argc, "--keys=%u", cfg->keys);
	push_arg(argv, &argc, "--pid-max=%u", cfg->pid_max);
	push_arg(argv, &argc, "--ops=%u", nops);
	push_arg(argv, &argc, "--seed=%llu", cfg->seed);
	push_arg(argv, &argc, "--shape=%s", pidx_shape_names[cfg->shape]);
	push_arg(argv, &argc, "--shape-seed=%llu", o->shape.seed);
	push_arg(argv, &argc, "--churn=%u", o->churn);
	push_arg(argv, &argc, "--cpus=%s", cpus);
	push_arg(argv, &argc, "--fork-window=%u", cfg->fork_window);
	push_arg(argv, &argc, "--fork-lookups=%u", cfg->fork_lookups);
	push_arg(argv, &argc, "--fork-exit=%s", pidx_fork_exit_names[cfg->fork_exit]);
	push_arg(argv, &argc, "--sl-p=%u", cfg->sl_p);
	push_arg(argv, &argc, "--sl-max-level=%u", cfg->sl_max_level);
	push_arg(argv, &argc, "--rb-level=%u", cfg->rb_level);
	push_arg(argv, &argc, "--dependent=%u", cfg->dependent);
	argv[argc] = NULL;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die(1, "fork failed");
	if (!pid) {
		/* this thread is pinned to the first storm CPU: unpin the child */
		sched_setaffinity(0, sizeof(start_affinity), &start_affinity);
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		/* valgrind maps what the arena reserves: keep it small */
		setenv("PIDX_USER_ARENA_GB", "4", 0);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die(1, "the cachegrind run of %s (%u ops) failed: see %s", ops->name, nops, log);
	cg_read(out, v);
	while (argc)
		free(argv[--argc]);
}

static void cg_count(const struct opts *o, const struct pidx_ops *ops, struct row *row)
{
	u32 n2 = o->cfg.ops, n1 = n2 / 2;
	u64 ops_diff = (u64)(n2 - n1) * cpumask_weight(&o->cfg.cpus);
	char dir[] = "/tmp/pidx-user-cg.XXXXXX";
	u64 a[CG_NR], b[CG_NR];
	char cmd[64];
	int i;

	if (!mkdtemp(dir))
		die(1, "no temporary directory");
	cg_run(o, ops, n1, dir, a);
	cg_run(o, ops, n2, dir, b);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, PROG ": warning: could not remove %s\n", dir);
	row->cg = true;
	for (i = 0; i < CG_NR; i++)
		row->cg_milli[i] = ((s64)b[i] - (s64)a[i]) * 1000 / (s64)ops_diff;
}

/* ------------------------------------------------------------ output */

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

static void write_csv(const char *path, const struct row *rows, unsigned int n)
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
static void print_table(const struct opts *o, const struct row *rows, unsigned int n)
{
	const struct pidx_config *cfg = &o->cfg;
	char b[6][32], cpus[64];
	u64 v[PIDX_REPEAT_MAX];
	unsigned int i, j, k;

	pidx_cpulist(cpus, sizeof(cpus), &cfg->cpus);
	printf("pidx-user run %u: workload %s", o->run, pidx_workload_names[cfg->workload]);
	if (cfg->workload == PIDX_WL_MIXED)
		printf(" %u/%u/%u", cfg->mix[0], cfg->mix[1], cfg->mix[2]);
	printf(", threads on cpus %s (%u), keys %u, ops %u per CPU, pid_max %u, seed %llu, shape %s",
	       cpus, cpumask_weight(&cfg->cpus), cfg->keys, cfg->ops, cfg->pid_max, cfg->seed,
	       pidx_shape_names[cfg->shape]);
	if (cfg->shape == PIDX_SHAPE_AGED)
		printf(" (%u wraps)", o->shape.wraps);
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
		       pidx_verdict_names[r->verdict]);
		if (r->verdict == PIDX_FAILED)
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
static void dump_keys(const struct opts *o)
{
	const struct pidx_shape_set *set = &o->shape;
	u32 i;

	printf("shape=%s keys=%u pid_max=%u wraps=%u cursor=%u forks=%llu daemons=%u\n",
	       pidx_shape_names[set->shape], set->nkeys, o->cfg.pid_max, set->wraps,
	       set->cursor, set->forks, set->daemons);
	for (i = 0; i < set->nkeys; i++)
		printf("%u\n", pidx_shape_key(set, i));
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
	if (o.cfg.keys > pidx_space(o.cfg.pid_max))
		die(1, "--keys %u exceeds pid_max - 1", o.cfg.keys);
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
	if (o.dump_keys) {
		dump_keys(&o);
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
	kc_set_cpu(-1);
	if (!o.cg_child)
		kc_rcu_percpu_callbacks_end();
	rcu_unregister_thread();
	return ret || bad ? 1 : 0;
}
