// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-systest --faults: PID namespaces, forks and clone3's set_tid while slab allocations fail.
 *
 * The guest turns failslab on for the tasks marked make-it-fail.  For each index the driver
 * (unmarked: its stats reads and index writes must not fail) forks a worker that marks itself
 * (its descendants inherit the mark) and runs rounds: a round's process unshares a PID namespace
 * and forks its init; the init forks children (half exit and are reaped at once, half wait),
 * nests one more namespace whose init forks two children and one clone3 child with set_tid at
 * both levels; then the round's process kills the init and reaps it, and the whole namespace
 * must be gone with it.  ENOMEM (and EAGAIN for a fork) is a refusal the faults may cause:
 * counted.  Any other error, a child that is not reaped or a hang is a FAIL.  Afterwards, with
 * every marked process gone, the index's namespace count and pidx_mem_bytes must come back to
 * where they were before the rounds.  That baseline is taken after a few rounds unmarked: the
 * total counts the initial namespace's index too, which holds a number for each kworker that
 * the namespaces' frees start.
 */
#include "systest.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_clone3
#define SYS_clone3	435
#endif

#define MAKE_IT_FAIL	"/proc/self/make-it-fail"
#define FAILSLAB_DIR	DBG_DIR "/../failslab"

#define ROUNDS		30
#define ROUNDS_QUICK	10
#define ROUNDS_S	30	/* no round starts after this long (half with --quick) */
#define ROUND_ALARM_S	20	/* a round's process still there after this long: a hang */
#define READY_S		10	/* the namespace's init has done its work within this long */
#define SETTLE_S	20	/* the stats are back within this long after the rounds */
#define KIDS		6	/* children of a round's init: the odd ones exit at once */
#define NESTED_KIDS	2	/* children of the nested namespace's init, besides clone3's */
/* for a fork, unshare or clone3 a round cannot go on without: each makes dozens of allocations */
#define TRIES		20
#define TID_INNER	1000	/* clone3's child: its number in the nested namespace, */
#define TID_OUTER	2000	/* and in the round's namespace */
#define NS_BURST	8	/* namespaces freed at once before the baseline (stats_warmup()) */
#define WARM_S		5	/* the unmarked rounds before the baseline stop after this long */

/* Counted by every process of the rounds, in memory the driver mapped before the fork. */
struct faults_shared {
	long rounds;
	long ns_made, ns_refused;
	long forks, fork_refused;
	long tid_done, tid_refused;
	long enomem, eagain;
	long bad;
	int ready;		/* the round's init has done its work */
	int nested_ready;	/* the nested init has */
	char why[512];		/* the first thing wrong */
};

static struct faults_shared *sh;
/* in the rounds' processes: the held namespace (faults_index()), or -1 */
static int held_fd = -1;

static void count(long *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static long get(const long *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

/* The first one's message is kept for the FAIL line; no allocation, as the mark may fail it. */
static void __printf(1, 2) fault_err(const char *fmt, ...)
{
	char buf[sizeof(sh->why)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!__atomic_fetch_add(&sh->bad, 1, __ATOMIC_SEQ_CST))
		memcpy(sh->why, buf, sizeof(buf));
}

/* A refusal that failing allocations explain is counted; anything else is a FAIL. */
static bool refusal(int err, bool eagain_ok, const char *what)
{
	if (err == ENOMEM) {
		count(&sh->enomem);
		return true;
	}
	if (err == EAGAIN && eagain_ok) {
		count(&sh->eagain);
		return true;
	}
	fault_err("%s (saw %s, expected success or ENOMEM%s)", what, strerror(err),
		  eagain_ok ? " or EAGAIN" : "");
	return false;
}

/* fork(), tried again while it is refused: the child's 0, the parent's pid, or -1. */
static pid_t fork_tries(const char *what, int tries)
{
	pid_t pid;
	int i;

	for (i = 0; i < tries; i++) {
		pid = fork();
		if (pid > 0)
			count(&sh->forks);
		if (pid >= 0)
			return pid;
		count(&sh->fork_refused);
		if (!refusal(errno, true, what))
			break;
	}
	return -1;
}

/* unshare(CLONE_NEWPID), tried again while it is refused: 0 when the namespace was made. */
static int new_ns(const char *what)
{
	int i;

	for (i = 0; i < TRIES; i++) {
		if (!unshare(CLONE_NEWPID)) {
			count(&sh->ns_made);
			return 0;
		}
		count(&sh->ns_refused);
		if (!refusal(errno, false, what))
			break;
	}
	return -1;
}

/* Polls @flag (set by a descendant): 0 once it is set, 1 if @pid ended first, -1 after READY_S. */
static int wait_ready(const int *flag, pid_t pid, int *status)
{
	double t0 = now_s();

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (waitpid(pid, status, WNOHANG | __WALL) == pid)
			return 1;
		if (now_s() - t0 > READY_S)
			return -1;
		usleep(2000);
	}
	return 0;
}

static void __noreturn wait_forever(void)
{
	for (;;)
		pause();
}

/* A child with both numbers asked for: TID_INNER here, TID_OUTER in the round's namespace. */
static pid_t clone3_tids(void)
{
	pid_t tids[2] = { TID_INNER, TID_OUTER };
	struct clone_args args;

	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	args.set_tid = (uintptr_t)tids;
	args.set_tid_size = 2;
	return syscall(SYS_clone3, &args, sizeof(args));
}

/* The nested namespace's init. */
static void __noreturn nested_init(void)
{
	pid_t c;
	int i;

	if (getpid() != 1)
		fault_err("the nested namespace's init: getpid() (saw %d, expected 1)", getpid());
	for (i = 0; i < NESTED_KIDS; i++)
		if (!fork_tries("fork in the nested namespace", 1))
			wait_forever();
	for (i = 0; i < TRIES; i++) {
		c = clone3_tids();
		if (c >= 0)
			break;
		/* a refused clone3 must leave both numbers free for the next try */
		count(&sh->tid_refused);
		if (!refusal(errno, true, "clone3 set_tid={1000, 2000} in fresh namespaces"))
			break;
	}
	if (c == 0) {
		/* a raw clone3 child: raw syscalls only */
		c = syscall(SYS_getpid);
		if (c != TID_INNER)
			fault_err("clone3 set_tid={%d, %d}: the child's getpid() (saw %d, expected %d)",
				  TID_INNER, TID_OUTER, c, TID_INNER);
		for (;;)
			syscall(SYS_pause);
	}
	if (c > 0 && c != TID_INNER) {
		fault_err("clone3 set_tid={%d, %d} (saw %d, expected %d)", TID_INNER, TID_OUTER, c,
			  TID_INNER);
	} else if (c > 0) {
		count(&sh->tid_done);
	}
	__atomic_store_n(&sh->nested_ready, 1, __ATOMIC_RELEASE);
	wait_forever();
}

/*
 * The round's first process: its namespace's init, or a process in the held namespace.
 * Children, then the nested namespace.
 */
static void __noreturn round_init(void)
{
	pid_t kids[KIDS], nested;
	int i, r, status;

	if (held_fd < 0 && getpid() != 1)
		fault_err("the namespace's init: getpid() (saw %d, expected 1)", getpid());
	else if (held_fd >= 0 && getpid() <= 1)
		fault_err("a process in the held namespace: getpid() (saw %d, expected > 1)",
			  getpid());
	/* the whole round in a group of its own: the round checks that none of it is left */
	if (setpgid(0, 0))
		fault_err("setpgid in the round's first process: %s", strerror(errno));
	for (i = 0; i < KIDS; i++) {
		kids[i] = fork_tries("fork in the namespace", 1);
		if (kids[i] == 0) {
			if (i % 2)
				_exit(0);
			wait_forever();
		}
	}
	for (i = 1; i < KIDS; i += 2) {
		if (kids[i] <= 0)
			continue;
		if (wait_pid(kids[i], &status) != kids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			fault_err("reaping child %d in the namespace (status 0x%x, expected exit 0)",
				  kids[i], status);
	}
	if (!new_ns("unshare(CLONE_NEWPID) in the namespace's init")) {
		nested = fork_tries("fork of the nested namespace's init", TRIES);
		if (nested == 0)
			nested_init();
		r = nested > 0 ? wait_ready(&sh->nested_ready, nested, &status) : 0;
		if (r > 0)
			fault_err("the nested namespace's init ended before its work (status 0x%x)",
				  status);
		else if (r < 0)
			fault_err("the nested namespace's init's work (saw a hang, expected it done within %d s)",
				  READY_S);
	}
	__atomic_store_n(&sh->ready, 1, __ATOMIC_RELEASE);
	wait_forever();
}

/* setns() into the held namespace, tried again while it is refused: 0 once in. */
static int join_held(void)
{
	int i;

	for (i = 0; i < TRIES; i++) {
		if (!setns(held_fd, CLONE_NEWPID))
			return 0;
		if (!refusal(errno, false, "setns(CLONE_NEWPID) into the held namespace"))
			break;
	}
	return -1;
}

/*
 * Whether the round's group is gone (kill(-@pgid, 0) says ESRCH): at once where its init was
 * reaped (the namespace died with it), within 10 s in the held namespace (its init reaps).
 */
static void check_gone(pid_t pgid)
{
	double t0 = now_s();

	while (!kill(-pgid, 0) && held_fd >= 0 && now_s() - t0 < 10)
		usleep(10000);
	if (!kill(-pgid, 0))
		fault_err("processes of the round after it was killed and reaped (saw kill(-%d, 0) find some, expected ESRCH)",
			  pgid);
	else if (errno != ESRCH)
		fault_err("kill(-%d, 0) after the round (saw %s, expected ESRCH)", pgid,
			  strerror(errno));
}

/*
 * A round's process: a namespace and its init, or a first process in the held namespace; then
 * the kill (of the whole group in the held namespace) and the reap.
 */
static int fault_round(void)
{
	int ready, status = 0;
	pid_t init, r;

	alarm(ROUND_ALARM_S);
	if (held_fd >= 0 ? join_held() : new_ns("unshare(CLONE_NEWPID)"))
		return 0;
	__atomic_store_n(&sh->ready, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sh->nested_ready, 0, __ATOMIC_RELAXED);
	init = fork_tries("fork of the round's first process", TRIES);
	if (init == 0)
		round_init();
	if (init < 0)
		return 0;
	ready = wait_ready(&sh->ready, init, &status);
	if (ready > 0) {
		fault_err("the round's first process ended before its work (status 0x%x)", status);
		return 0;
	}
	if (ready < 0)
		fault_err("the round's first process's work (saw a hang, expected it done within %d s)",
			  READY_S);
	kill(init, SIGKILL);
	if (held_fd >= 0)
		kill(-init, SIGKILL);
	r = wait_pid(init, &status);
	if (r != init || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
		fault_err("waitpid of the killed first process %d (saw %d, status 0x%x; expected it, killed by SIGKILL)",
			  init, r, status);
	else if (!ready)
		check_gone(init);
	return 0;
}

static void __noreturn fault_worker(bool mark, int rounds, double secs, int fd)
{
	int i, r, status;
	pid_t pid;
	double t0;

	set_sig(SIGINT, SIG_DFL, true);
	set_sig(SIGTERM, SIG_DFL, true);
	set_sig(SIGHUP, SIG_DFL, true);
	set_sig(SIGALRM, SIG_DFL, true);
	held_fd = fd;
	/* the driver finds every process of the rounds by this session */
	if (setsid() < 0)
		fault_err("setsid in the worker: %s", strerror(errno));
	alarm(secs + ROUND_ALARM_S + 10);
	if (mark) {
		r = write_file(MAKE_IT_FAIL, "1");
		if (r)
			fault_err("writing 1 to %s: %s", MAKE_IT_FAIL, strerror(-r));
	}
	t0 = now_s();
	for (i = 0; i < rounds && now_s() - t0 < secs; i++) {
		count(&sh->rounds);
		pid = fork_tries("fork of a round's process", TRIES);
		if (pid == 0)
			_exit(fault_round());
		if (pid < 0)
			continue;
		if (wait_pid(pid, &status) != pid) {
			fault_err("round %d: waitpid: %s", i + 1, strerror(errno));
			break;
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
			fault_err("round %d: hang (saw it still running after %d s, expected an end)",
				  i + 1, ROUND_ALARM_S);
			break;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fault_err("round %d: its process ended with status 0x%x (expected exit 0)",
				  i + 1, status);
			break;
		}
	}
	_exit(0);
}

static bool marks;

/* Once, before the first index: whether tasks can be marked, and failslab's settings. */
void faults_setup(void)
{
	char p[32] = "", f[32] = "", g[32] = "", t[32] = "";

	marks = !access(MAKE_IT_FAIL, W_OK);
	/* the driver itself stays unmarked, whatever its parent was */
	if (marks && write_file(MAKE_IT_FAIL, "0"))
		note("INFO", "faults", "writing 0 to the driver's %s failed", MAKE_IT_FAIL);
	if (!marks) {
		note("SKIP", "faults",
		     "%s absent (no fault injection in this kernel): the rounds run without failures",
		     MAKE_IT_FAIL);
		return;
	}
	if (read_file(FAILSLAB_DIR "/probability", p, sizeof(p)) < 0) {
		note("INFO", "faults",
		     "no failslab in debugfs: marked tasks, but no slab failures to expect");
		return;
	}
	read_file(FAILSLAB_DIR "/task-filter", f, sizeof(f));
	read_file(FAILSLAB_DIR "/ignore-gfp-wait", g, sizeof(g));
	read_file(FAILSLAB_DIR "/times", t, sizeof(t));
	p[strcspn(p, "\n")] = '\0';
	f[strcspn(f, "\n")] = '\0';
	g[strcspn(g, "\n")] = '\0';
	t[strcspn(t, "\n")] = '\0';
	note("INFO", "faults",
	     "failslab: probability=%s%% task-filter=%s ignore-gfp-wait=%s times=%s", p, f, g, t);
}

/* Kills and reaps whatever of the rounds is left: how many were, or -1 if some stay. */
static int faults_cleanup(pid_t sid)
{
	double t0 = now_s();
	int status, n, left = 0;

	while ((n = kill_strays(sid, marks)) > 0) {
		if (!left)
			left = n;
		while (waitpid(-1, &status, WNOHANG | __WALL) > 0)
			;
		if (now_s() - t0 > 10)
			return -1;
		usleep(20000);
	}
	while (waitpid(-1, &status, WNOHANG | __WALL) > 0)
		;
	return left;
}

/* The index's namespace count back to @base's, and pidx_mem_bytes to it or below. */
static bool faults_settled(const char *name, const struct pidx_stats *base,
			   struct pidx_stats *after, double *secs)
{
	double t0 = now_s();

	do {
		if (read_stats(name, after))
			return false;
		*secs = now_s() - t0;
		if (after->namespaces == base->namespaces && after->mem <= base->mem)
			return true;
		usleep(100000);
	} while (now_s() - t0 < SETTLE_S);
	return false;
}

/*
 * The rounds in a worker, marked or not, and everything of them killed and reaped after; the
 * problems go to sh.  Returns the seconds it ran.
 */
static double run_worker(bool mark, int rounds, double secs, int fd)
{
	int status = 0, left;
	double t0 = now_s();
	pid_t w, r;

	fflush(stdout);
	w = fork();
	if (w == 0)
		fault_worker(mark, rounds, secs, fd);
	if (w < 0) {
		fault_err("fork of the worker: %s", strerror(errno));
		return 0;
	}
	r = wait_bounded(w, &status, secs + ROUND_ALARM_S + 20);
	secs = now_s() - t0;
	left = faults_cleanup(w);
	if (mark && write_file(MAKE_IT_FAIL, "0"))
		fault_err("writing 0 to the driver's %s failed", MAKE_IT_FAIL);
	if (r != w)
		fault_err("the worker (saw it still running after %.0f s, expected it done)", secs);
	else if (WIFSIGNALED(status))
		fault_err("the worker killed by signal %d (%s)", WTERMSIG(status),
			  strsignal(WTERMSIG(status)));
	if (left < 0)
		fault_err("processes of the rounds still there 10 s after SIGKILL");
	else if (left && !sh->bad)
		fault_err("processes of the rounds left after the worker ended (saw %d, expected 0)",
			  left);
	return secs;
}

/*
 * A PID namespace of the index made unmarked, with an init that reaps whatever is left to it:
 * the init's pid, and *@fd open on the namespace.
 */
static pid_t hold_ns(int *fd)
{
	pid_t h, init = -1;
	char path[32];
	int p[2], status;

	if (pipe(p)) {
		fault_err("pipe: %s", strerror(errno));
		return -1;
	}
	h = fork();
	if (h == 0) {
		close(p[0]);
		init = unshare(CLONE_NEWPID) ? -1 : fork();
		if (init == 0) {
			set_sig(SIGINT, SIG_DFL, true);
			set_sig(SIGTERM, SIG_DFL, true);
			set_sig(SIGHUP, SIG_DFL, true);
			set_sig(SIGCHLD, SIG_IGN, true);
			wait_forever();
		}
		if (init < 0)
			init = -errno;
		_exit(write(p[1], &init, sizeof(init)) != sizeof(init));
	}
	close(p[1]);
	if (h < 0 || read(p[0], &init, sizeof(init)) != sizeof(init))
		init = -EIO;
	close(p[0]);
	if (h > 0)
		wait_pid(h, &status);
	/* the driver, a subreaper, is the init's parent now */
	snprintf(path, sizeof(path), "%d/ns/pid", init);
	*fd = init > 0 ? openat(st.hostproc_fd, path, O_RDONLY | O_CLOEXEC) : -1;
	if (*fd < 0) {
		fault_err("the held namespace (made unmarked): %s",
			  strerror(init < 0 ? -init : errno));
		kill_reap(&init, 1);
		return -1;
	}
	return init;
}

int faults_index(const char *name)
{
	struct pidx_stats pre, base = { .namespaces = -1, .mem = -1 }, after = base;
	static long pids[SNAP_MAX];
	char stats[256], why[256];
	const char *how = "";
	int npids = -1, r = 0, n, fd;
	double secs = 0, run = 0;
	pid_t holder;

	st.index = name;
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		sh = NULL;
		return report(false, "faults", "mmap of the counters: %s", strerror(errno));
	}
	if (st.debugfs) {
		/*
		 * The baseline comes after a few rounds unmarked and their namespaces' frees, so
		 * that it holds the kworkers those frees start (stats_warmup()).
		 */
		r = read_stats(name, &pre);
		if (!r) {
			run_worker(false, ROUNDS_QUICK, WARM_S, -1);
			if (sh->bad)
				goto out;
			memset(sh, 0, sizeof(*sh));
			r = wait_namespaces(name, pre.namespaces, 20);
		}
		r = r ?: stats_warmup(name, NS_BURST);
		if (r) {
			fault_err("before the baseline: the namespaces of the unmarked rounds %s",
				  r > 0 ? "not freed within 20 s" : "(reading stats failed)");
			goto out;
		}
		r = settle_stats(name, &base, 10);
		how = r ? " (taken unsettled)" : "";
		npids = snap_pids(pids, SNAP_MAX);
	}

	/*
	 * Half the rounds with no other namespace of the index, so that each makes the index's
	 * slab caches too; half in one made unmarked, which holds the caches and needs no
	 * making, so that their forks go through the index while it fails (and their nested
	 * namespaces are made more often).
	 */
	n = st.quick ? ROUNDS_QUICK : ROUNDS;
	secs = (st.quick ? ROUNDS_S / 2 : ROUNDS_S) / 2.0;
	run = run_worker(marks, n / 2, secs, -1);
	if (!sh->bad) {
		holder = hold_ns(&fd);
		if (holder > 0) {
			run += run_worker(marks, n - n / 2, secs, fd);
			close(fd);
			kill_reap(&holder, 1);
		}
	}
	secs = 0;
	if (!sh->bad && st.debugfs && !faults_settled(name, &base, &after, &secs)) {
		new_tasks(pids, npids, why, sizeof(why));
		fault_err("stats %d s after the rounds (saw namespaces=%lld pidx_mem_bytes=%lld, expected namespaces=%lld and pidx_mem_bytes <= %lld, the baseline%s); %s",
			  SETTLE_S, after.namespaces, after.mem, base.namespaces, base.mem, how,
			  why);
	}
out:
	if (st.debugfs)
		snprintf(stats, sizeof(stats),
			 "stats namespaces %lld -> %lld, pidx_mem_bytes %lld -> %lld (baseline%s) within %.2f s",
			 base.namespaces, after.namespaces, base.mem, after.mem, how, secs);
	else
		snprintf(stats, sizeof(stats), "stats skipped: stock kernel");
	if (sh->bad)
		report(false, "faults", "%ld wrong, the first: %s", sh->bad, sh->why);
	else
		report(true, "faults",
		       "%ld rounds (the second half in a namespace made unmarked) in %.1f s%s: namespaces made %ld, refused %ld; forks done %ld, refused %ld; clone3 set_tid done %ld, refused %ld (refusals: %ld ENOMEM, %ld EAGAIN, no other error); every process reaped; %s",
		       get(&sh->rounds), run, marks ? "" : " (nothing marked)",
		       get(&sh->ns_made), get(&sh->ns_refused), get(&sh->forks),
		       get(&sh->fork_refused), get(&sh->tid_done), get(&sh->tid_refused),
		       get(&sh->enomem), get(&sh->eagain), stats);
	r = sh->bad ? 1 : 0;
	munmap(sh, sizeof(*sh));
	sh = NULL;
	st.index = NULL;
	return r;
}
