/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx-sysbench: a system benchmark whose workloads stress the kernel's PID index (alloc_pid,
 * free_pid, find_pid_ns, find_ge_pid).  Shared declarations: the page that the driver and the
 * workers count and signal through, the workload table's entries and the workloads.
 */
#ifndef PIDX_SYSBENCH_H
#define PIDX_SYSBENCH_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <linux/futex.h>

/* the kernel's spellings, so the code reads (and checkpatch checks) as kernel code does */
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noreturn	__attribute__((noreturn))
#define __aligned(x)	__attribute__((aligned(x)))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define PROG_NAME	"pidx-sysbench"
#define MAX_PROCS	1024
#define MSG_LEN		256

/* the driver moves phase forward only; workers count from PH_RUN until they see PH_STOP */
enum { PH_SETUP, PH_RUN, PH_STOP };

/* one per worker, a cache line each, so counting never bounces a line between CPUs */
struct slot {
	uint64_t ops;
	uint64_t entries;	/* procwalk: digit entries of the latest walk */
	uint64_t nspid;		/* nsfork: the numbers of the forking init's PID */
} __aligned(64);

/* MAP_SHARED anonymous memory, mapped before any fork, so every process of the run sees it */
struct shared {
	int phase;		/* futex word: workers sleep on it until PH_RUN */
	int ready;		/* workers set up and waiting for PH_RUN */
	int parked;		/* keeper threads whose tid is in tids[] */
	int failed;		/* 0; -1 while the message is written; 1 once msg is whole */
	char msg[MSG_LEN];	/* the first failure, for the driver to print */
	struct slot slot[MAX_PROCS];
};

struct workload {
	const char *name;
	const char *arg_name;	/* NULL: takes no ARG */
	long arg_min, arg_max;
	bool parks;		/* the keeper parks ARG threads before the workers start */
	bool entries;		/* the result line has entries= */
	void (*run)(int w);	/* worker w: set up, worker_ready_wait(), loop until PH_STOP */
	const char *help;
};

/* What every process of a run knows; set by the driver before it forks, so children inherit it. */
struct bench {
	const struct workload *wl;
	long arg;
	int procs;
	double seconds, warmup;
	const char *stats;	/* --stats: the kernel's index counts, zeroed at the phase's start */
	const char *stats_out;	/* --stats-out: where they go as it ends */
	pid_t parent;		/* the driver */
	pid_t keeper;		/* leader of the process group that holds every other process */
	struct shared *sh;
	pid_t *tids;		/* parks: the parked threads' tids, MAP_SHARED */
};

extern struct bench sb;

static inline bool running(void)
{
	return __atomic_load_n(&sb.sh->phase, __ATOMIC_RELAXED) != PH_STOP;
}

/* only worker w writes its slot, so a plain increment published by a relaxed store is enough */
static inline void count_op(int w)
{
	struct slot *s = &sb.sh->slot[w];

	__atomic_store_n(&s->ops, s->ops + 1, __ATOMIC_RELAXED);
}

/* main.c */
void __noreturn __printf(2, 3) wfail(int err, const char *fmt, ...);
void worker_ready_wait(void);
void child_safety_net(bool check_parent);
size_t small_stack(size_t want);

/* w_spawn.c */
void run_threadspawn(int w);
void run_fork(int w);
void run_vfork(int w);
void run_nsfork(int w);

/* w_proc.c */
void __noreturn keeper_main(void);
void run_procwalk(int w);
void run_kill(int w);

#endif /* PIDX_SYSBENCH_H */
