// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-user --cachegrind: the runs of this program under valgrind and the
 * per-operation counts taken from them, apart from the native storms
 * (pidx_user.c) whose rows they fill in.
 *
 * With --cachegrind every storm also runs twice under valgrind's cachegrind
 * (ops/2 and ops operations per CPU, storms only: the process ends with the
 * storm); the difference of the two runs' counts over the difference of
 * their operations is what one operation costs, with setup, prefill and
 * start-up cancelled.  The counts go into the CPU counter columns with
 * pmu=cachegrind; the row's times and verdict are those of a native run of
 * the same configuration.  See README.md, "User-space build".
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/cpumask.h>
#include "pidx_user.h"

static const char *const cg_names[CG_NR] = {
	"Ir", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw", "Bc", "Bcm", "Bi", "Bim",
};

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
	char dist[PIDX_DIST_NAME_MAX];
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
	push_arg(argv, &argc, "--levels=%u", cfg->levels);
	pidx_dist_name(dist, sizeof(dist), cfg->dist, cfg->dist_param);
	push_arg(argv, &argc, "--dist=%s", dist);
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

void cg_count(const struct opts *o, const struct pidx_ops *ops, struct row *row)
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
