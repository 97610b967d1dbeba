/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx-systest: checks, inside the system kernel, that the PID rules still hold whichever
 * index a PID namespace was given.  Shared declarations.
 */
#ifndef PIDX_SYSTEST_H
#define PIDX_SYSTEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef DBG_DIR
#define DBG_DIR		"/sys/kernel/debug/pidx_system"
#endif
#define DBG_AVAILABLE	DBG_DIR "/available"
#define DBG_INDEX	DBG_DIR "/index"
#define DBG_SELF	DBG_DIR "/self"
#define DBG_STATS	DBG_DIR "/stats"

#define PID_MAX_PATH	"/proc/sys/kernel/pid_max"
#define NS_LAST_PID	"/proc/sys/kernel/ns_last_pid"

/* RESERVED_PIDS in include/linux/pid_namespace.h; pid_max cannot go below it + 1. */
#define RESERVED_PIDS	300

/* the kernel's spellings, so the code reads (and checkpatch checks) as kernel code does */
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define __noreturn	__attribute__((noreturn))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define NAME_LEN	64
#define LINE_LEN	1024

/* What every process of a run knows; set by the driver before it forks, so children inherit it. */
struct systest {
	const char *index;	/* index under test ("host" on a stock kernel); NULL: global */
	bool debugfs;		/* DBG_DIR exists: the system kernel */
	bool quick;
	bool faults;		/* --faults: t_faults.c's rounds instead of the tests */
	const char *only;	/* --only NAME: that test alone */
	const char *skip;	/* --skip NAME: all tests but that one */
	int result_fd;		/* where PASS/FAIL lines go; -1 in the driver itself */
	int hostproc_fd;	/* the driver's /proc, opened before any unshare */
	int base_level;		/* level of the driver's PID namespace (0 = initial) */
	int host_nspid;		/* NSpid entries the driver has in hostproc_fd's view */
	int ncpus;
	int cpus[CPU_SETSIZE];
};

extern struct systest st;

/* util.c: result lines (one write(2) each, so lines from many processes never interleave) */
int __printf(3, 4) report(bool pass, const char *check, const char *fmt, ...);
void __printf(3, 4) note(const char *tag, const char *check, const char *fmt, ...);
void driver_line(const char *line);	/* main.c: print and count one line */

/* util.c: files and /proc */
ssize_t read_file(const char *path, char *buf, size_t len);
ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t len);
int write_file(const char *path, const char *s);
long long read_ll(const char *path);
bool pid_is_free(pid_t nr);
pid_t find_free_run(pid_t prefer, int count);
int nspid_parse(const char *status, long *out, int max);
double now_s(void);
pid_t wait_pid(pid_t pid, int *status);
pid_t wait_bounded(pid_t pid, int *status, double secs);
void kill_reap(const pid_t *pids, int n);
void set_sig(int sig, void (*fn)(int), bool restart);

/* util.c: pid_max, saved by each process that may change it; restore is async-signal-safe */
int pidmax_save(void);
long pidmax_saved(void);
void pidmax_restore(void);

/* util.c: debugfs */
struct pidx_stats {
	int timing;		/* 1 on, 0 off, -1 absent */
	long long mem;		/* pidx_mem_bytes, -1 absent */
	long long namespaces;	/* of the asked index; -1 if it has no line */
};

int read_self(char *index, size_t len, int *level);
int read_stats(const char *index, struct pidx_stats *s);
int settle_stats(const char *index, struct pidx_stats *s, double max_s);
#define NS_BURST_MAX	16
int stats_warmup(const char *index, int n);
int wait_namespaces(const char *index, long long count, double max_s);

/* util.c: the processes in the driver's /proc */
#define SNAP_MAX	4096
int kill_strays(pid_t sid, bool marked);
int snap_pids(long *out, int max);
void new_tasks(const long *old, int n, char *out, size_t len);

/* runner.c: the init of each index's namespace */
int runner_main(void);

/* t_faults.c: --faults, instead of the runner's tests (the driver calls them) */
void faults_setup(void);
int faults_index(const char *name);

/* the per-index tests: each reports its own PASS/FAIL line and returns 0 on pass, 1 on fail */
int t_fork_storm(void);
int t_thread_storm(void);
int t_proc_readdir(void);
int t_nested(void);
int t_init_kill(void);
int t_set_tid(void);
int t_ns_last_pid(void);
int t_kill_pidfd(void);
int t_pid_max(void);

#endif /* PIDX_SYSTEST_H */
