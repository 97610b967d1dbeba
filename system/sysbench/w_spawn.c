// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-sysbench: the workloads that create and end tasks, so that each op allocates a PID
 * (alloc_pid) and frees it (free_pid): threadspawn, fork, vfork and nsfork.
 */
#include "sysbench.h"

#include <pthread.h>
#include <sys/wait.h>

/*
 * glibc gives a thread 8 MiB of stack by default; when its stack cache misses, each create then
 * maps (and each join unmaps) that much and faults in its top.  64 KiB keeps that cost small, so
 * that the PID work (and the rest of clone and exit) dominates the op, as in will-it-scale's
 * threadspawn1.
 */
#define SPAWN_STACK	(64 * 1024)

static void *thread_returns(void *arg)
{
	return arg;
}

void run_threadspawn(int w)
{
	pthread_attr_t attr;
	pthread_t t;
	int err;

	err = pthread_attr_init(&attr);
	if (!err)
		err = pthread_attr_setstacksize(&attr, small_stack(SPAWN_STACK));
	if (err)
		wfail(err, "pthread_attr_setstacksize");
	worker_ready_wait();
	while (running()) {
		err = pthread_create(&t, &attr, thread_returns, NULL);
		if (err)
			wfail(err, "pthread_create");
		err = pthread_join(t, NULL);
		if (err)
			wfail(err, "pthread_join");
		count_op(w);
	}
}

static void reap(const char *call, pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			wfail(errno, "waitpid (%s child %d)", call, pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		wfail(0, "%s child %d ended with wait status 0x%x", call, pid, st);
}

static void fork_loop(int w)
{
	pid_t pid;

	while (running()) {
		pid = fork();
		if (pid < 0)
			wfail(errno, "fork");
		if (!pid)
			_exit(0);
		reap("fork", pid);
		count_op(w);
	}
}

void run_fork(int w)
{
	worker_ready_wait();
	fork_loop(w);
}

/* its own function, so that nothing of the caller's lives across vfork's shared stack */
static __attribute__((noinline)) pid_t vfork_exit(void)
{
	pid_t pid = vfork();

	if (!pid)
		_exit(0);
	return pid;
}

void run_vfork(int w)
{
	pid_t pid;

	worker_ready_wait();
	while (running()) {
		pid = vfork_exit();
		if (pid < 0)
			wfail(errno, "vfork");
		reap("vfork", pid);
		count_op(w);
	}
}

/* the numbers on /proc/self/status's NSpid line: one per PID namespace level, 0 if unknown */
static uint64_t nspid_numbers(void)
{
	char line[256];
	uint64_t n = 0;
	FILE *f = fopen("/proc/self/status", "r");
	char *tok;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "NSpid:", 6))
			continue;
		for (tok = strtok(line + 6, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
			n++;
		break;
	}
	fclose(f);
	return n;
}

/*
 * Each level unshares a PID namespace and forks its init, which does the same, arg times; the
 * innermost init runs the fork loop, so each PID it allocates has arg + 1 numbers.  Every level
 * above only waits for its child and exits as that child did.  The innermost exits at PH_STOP,
 * after its loop reaped its last child, and the kernel's killing of its namespace then finds
 * nobody; its count is in the shared page already, so no order of exits can lose any.
 */
void run_nsfork(int w)
{
	pid_t pid;
	long level;
	int st;

	for (level = 1; level <= sb.arg; level++) {
		if (unshare(CLONE_NEWPID)) {
			if (errno == EPERM)
				wfail(errno, "nsfork needs CAP_SYS_ADMIN: unshare(CLONE_NEWPID)");
			wfail(errno, "unshare(CLONE_NEWPID) (level %ld)", level);
		}
		pid = fork();
		if (pid < 0)
			wfail(errno, "fork (init of PID namespace level %ld)", level);
		if (pid) {
			while (waitpid(pid, &st, 0) < 0)
				if (errno != EINTR)
					wfail(errno, "waitpid (init of level %ld)", level);
			if (WIFEXITED(st))
				_exit(WEXITSTATUS(st));
			wfail(0, "init of PID namespace level %ld was killed by signal %d", level,
			      WTERMSIG(st));
		}
		/* an init's getppid() is 0: there is no parent to check for */
		child_safety_net(false);
	}
	/* the proof of the nesting, for the result line: the forks' PIDs have as many numbers */
	__atomic_store_n(&sb.sh->slot[w].nspid, nspid_numbers(), __ATOMIC_RELAXED);
	run_fork(w);
}
