// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-user's command line: --help, the defaults, and every option read
 * and range-checked into struct opts, with the exit status 2 and one line
 * on stderr for anything it refuses.  Apart from the storms (pidx_user.c)
 * because it only fills in settings.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include "pidx_user.h"
#include "compat/kcompat.h"

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

/* --trace: the whole trace parsed and checked before anything is built */
static void read_trace(struct opts *o)
{
	FILE *f = strcmp(o->trace_file, "-") ? fopen(o->trace_file, "r") : stdin;
	const char *why = "";
	char buf[4096];
	u32 line = 0;
	size_t n;
	int ret = 0;

	if (!f)
		die(2, "--trace %s: %s", o->trace_file, strerror(errno));
	pidx_trace_init(&o->trace);
	while (!ret && (n = fread(buf, 1, sizeof(buf), f)))
		ret = pidx_trace_feed(&o->trace, buf, n, &line, &why);
	if (!ret && ferror(f))
		die(2, "--trace %s: read error", o->trace_file);
	if (!ret)
		ret = pidx_trace_end(&o->trace, &line, &why);
	if (f != stdin)
		fclose(f);
	if (ret)
		die(2, "--trace %s: line %u: %s", o->trace_file, line, why);
	if (!o->trace.nev)
		die(2, "--trace %s: no event in the trace", o->trace_file);
}

static void usage(void)
{
	printf("Usage: pidx-user [options]\n"
	       "Runs pidx storms natively: the module's index files and the kernel's own\n"
	       "lib/idr.c, radix-tree.c, xarray.c, maple_tree.c built in user space.\n\n"
	       "  --indexes LIST   comma list, all (every index but null) or auto (all) [all]\n"
	       "  --workload W     lookup insert delete mixed fork iterate replay [lookup]\n"
	       "  --trace FILE     replay's trace (docs/traces.md), - for stdin; --ops is\n"
	       "                   not used: each CPU replays its share of the events\n"
	       "  --mix L/I/D      percentages of a mixed storm [90/5/5]\n"
	       "  --keys N         prefilled PIDs, K/M suffixes [1024]\n"
	       "  --pid-max N      PID space [1, N) [32768, or 1024 per CPU beyond 32]\n"
	       "  --ops N          operations per CPU [10000, or fewer where the\n"
	       "                   storm's PIDs would not fit: see docs/interface.md]\n"
	       "  --repeat N       storms per index, interleaved across indexes [1]\n"
	       "  --seed N         PRNG seed [1]\n"
	       "  --shape S        the live set: dense (1..keys), spread, aged [dense]\n"
	       "  --dump-keys      print the live set (first line: its facts), run nothing\n"
	       "  --dist D         which PIDs lookups draw: uniform, zipf:S (0 < S <= 5,\n"
	       "                   3 decimals), recent:H (half on the H newest), sequential\n"
	       "                   (ascending); lookup and mixed storms, fork's lookups [uniform]\n"
	       "  --dump-dist      print the dist's walk (first line: its facts), run nothing\n"
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
	       "  --levels N       namespace levels, 1-3: a number per level for each PID,\n"
	       "                   one index instance per level; lookups read the deepest [1]\n"
	       "  --failslab P     test only: P%% of the storm threads' slab allocations\n"
	       "                   fail, as the debug kernel's failslab; rows get\n"
	       "                   faults=failslab;injected=N in extra [0]\n"
	       "  --cachegrind     also count instructions, D1/LL misses and branch\n"
	       "                   mispredicts per operation under valgrind (pmu=cachegrind)\n"
	       "  --csv FILE       append results.csv rows (the header if FILE is new)\n"
	       "  --run N          the run column [1]\n"
	       "  --quiet          no table on stdout\n"
	       "  --list           the indexes\n"
	       "Exit status: 0 all verified, 1 a storm failed or was refused, 2 usage.\n");
}

void parse_args(struct opts *o, int argc, char **argv)
{
	enum { O_INDEXES = 256, O_WORKLOAD, O_MIX, O_KEYS, O_PID_MAX, O_OPS, O_REPEAT,
	       O_SEED, O_CPUS, O_FORK_WINDOW, O_SL_P, O_SL_MAX_LEVEL, O_RB_LEVEL,
	       O_TRACE, O_CG, O_CG_CHILD, O_CSV, O_RUN, O_QUIET, O_LIST, O_MODE,
	       O_FORK_LOOKUPS, O_FORK_EXIT, O_DEPENDENT, O_SHAPE, O_DUMP_KEYS, O_CHURN, O_SHAPE_SEED,
	       O_DIST, O_DUMP_DIST, O_TRACE_FILE, O_LEVELS, O_FAILSLAB };
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
		{ "dist", 1, NULL, O_DIST }, { "dump-dist", 0, NULL, O_DUMP_DIST },
		{ "trace", 1, NULL, O_TRACE_FILE }, { "levels", 1, NULL, O_LEVELS },
		{ "failslab", 1, NULL, O_FAILSLAB },
		{ NULL, 0, NULL, 0 },
	};
	struct pidx_config *cfg = &o->cfg;
	unsigned int i;
	char why[128];
	u64 v;
	int c;

	memset(o, 0, sizeof(*o));
	o->run = 1;
	o->argv0 = argv[0];
	pidx_config_defaults(cfg);
	cfg->mode = PIDX_MODE_KTHREAD;
	cpumask_set_cpu(0, &cfg->cpus);
	cfg->pmu = PIDX_PMU_OFF;

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
		case O_DIST:
			if (pidx_dist_parse(optarg, &cfg->dist, &cfg->dist_param))
				die(2, "--dist wants uniform, zipf:S (0 < S <= 5, 3 decimals), recent:H (1 <= H <= %u) or sequential, not '%s'",
				    PIDX_PID_MAX_LIMIT, optarg);
			break;
		case O_DUMP_DIST:
			o->dump_dist = true;
			break;
		case O_TRACE_FILE:
			o->trace_file = optarg;
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
			cfg->written.ops = true;
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
		case O_LEVELS:
			cfg->levels = parse_u32_opt("levels", optarg, 1, PIDX_LEVELS_MAX);
			break;
		case O_FAILSLAB:
			kc_failslab_set(parse_u32_opt("failslab", optarg, 0, 100));
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
	/*
	 * ops fitted to the threads as the module fits it to its CPUs; keys
	 * beyond the space are main()'s to refuse, with their own reason
	 */
	if (cfg->keys <= pidx_space(cfg->pid_max) &&
	    pidx_plan_ops(cfg, cpumask_weight(&cfg->cpus), why, sizeof(why)))
		die(1, "run refused: %s", why);
	/* a failed allocation's path is no measurement of the index */
	if ((o->cachegrind || o->cg_child) && kc_failslab_percent)
		die(2, "--cachegrind counts storms without --failslab");
	if (o->cachegrind && cfg->trace_visits)
		die(2, "--cachegrind counts untraced storms: no --trace-visits");
	/* valgrind runs threads one at a time: spinning waits would be counted */
	if ((o->cachegrind || o->cg_child) && cpumask_weight(&cfg->cpus) != 1)
		die(2, "--cachegrind counts one storm thread: give --cpus a single CPU");
	if (o->cachegrind && cfg->ops < 2)
		die(2, "--cachegrind needs --ops 2 or more (it runs ops/2 and ops)");
	if (cfg->workload == PIDX_WL_REPLAY && !o->trace_file)
		die(2, "--workload replay needs --trace FILE");
	if (o->trace_file && cfg->workload != PIDX_WL_REPLAY)
		die(2, "--trace is read by --workload replay only");
	/* its events are not ops: the runs of ops/2 and ops would not differ */
	if (o->cachegrind && cfg->workload == PIDX_WL_REPLAY)
		die(2, "--cachegrind does not count replay storms");
	if (o->trace_file)
		read_trace(o);
}
