// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-systest: the storms.  One worker process per CPU, pinned there, creating and reaping
 * processes or threads as fast as it can, so that every CPU allocates and frees PIDs in the
 * index at once; and /proc readdir (find_ge in the index) walked while such a storm runs.
 */
#include "systest.h"

#include <dirent.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

enum storm_kind { STORM_FORK, STORM_THREAD };

/* What a worker sends back (one write, well under PIPE_BUF). */
struct storm_res {
	long ops;		/* fork+waitpid or pthread_create+join that completed */
	long fails;		/* fork or pthread_create failures */
	long bad_id;		/* a child pid <= 1, or a thread id <= 1 or the worker's own */
	long bad_wait;		/* waitpid/join that returned something else, or a bad status */
	long saw, want;		/* the first bad id or wait */
	int err;		/* first errno of a failure */
	int affinity_err;	/* errno of sched_setaffinity, 0 if pinned */
	int workers;		/* results received (set by the parent) */
};

struct storm {
	enum storm_kind kind;
	long iters;		/* per worker; 0: until *stop */
	int n;
	pid_t pid[CPU_SETSIZE];
	int go[2];		/* closed by the parent to start all workers at once */
	int res[2];
	int *stop;		/* shared with the workers */
	double t0;
};

static void *thread_fn(void *arg)
{
	(void)arg;
	return (void *)(long)syscall(SYS_gettid);
}

static void one_fork(struct storm_res *r)
{
	int status;
	pid_t pid, w;

	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0) {
		if (!r->fails++)
			r->err = errno;
		return;
	}
	if (pid <= 1) {
		if (!r->bad_id++ && !r->bad_wait) {
			r->saw = pid;
			r->want = 2;
		}
		return;
	}
	w = wait_pid(pid, &status);
	if (w != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		if (!r->bad_wait++ && !r->bad_id) {
			r->saw = w;
			r->want = pid;
		}
		return;
	}
	r->ops++;
}

static void one_thread(struct storm_res *r, pid_t me)
{
	pthread_t t;
	void *ret;
	long tid;
	int e;

	e = pthread_create(&t, NULL, thread_fn, NULL);
	if (e) {
		if (!r->fails++)
			r->err = e;
		return;
	}
	e = pthread_join(t, &ret);
	if (e) {
		if (!r->bad_wait++ && !r->bad_id) {
			r->saw = e;
			r->want = 0;
		}
		return;
	}
	tid = (long)ret;
	if (tid <= 1 || tid == me) {
		if (!r->bad_id++ && !r->bad_wait) {
			r->saw = tid;
			r->want = -1;
		}
		return;
	}
	r->ops++;
}

static void __noreturn storm_worker(struct storm *s, int cpu)
{
	struct storm_res r;
	pid_t me = getpid();
	cpu_set_t set;
	ssize_t w;
	long i;
	char c;

	memset(&r, 0, sizeof(r));
	close(s->go[1]);
	close(s->res[0]);
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		r.affinity_err = errno;
	while (read(s->go[0], &c, 1) < 0 && errno == EINTR)
		;
	for (i = 0; s->iters ? i < s->iters : !__atomic_load_n(s->stop, __ATOMIC_RELAXED); i++) {
		if (s->kind == STORM_FORK)
			one_fork(&r);
		else
			one_thread(&r, me);
	}
	w = write(s->res[1], &r, sizeof(r));
	_exit(w == sizeof(r) ? 0 : 1);
}

static int storm_start(struct storm *s, enum storm_kind kind, long iters)
{
	int i, err;

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->iters = iters;
	s->stop = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (s->stop == MAP_FAILED)
		return -errno;
	if (pipe(s->go))
		return -errno;
	if (pipe(s->res)) {
		err = -errno;
		close(s->go[0]);
		close(s->go[1]);
		return err;
	}
	for (i = 0; i < st.ncpus; i++) {
		s->pid[i] = fork();
		if (s->pid[i] == 0)
			storm_worker(s, st.cpus[i]);
		if (s->pid[i] < 0) {
			err = -errno;
			kill_reap(s->pid, i);
			close(s->go[0]);
			close(s->go[1]);
			close(s->res[0]);
			close(s->res[1]);
			return err;
		}
		s->n++;
	}
	close(s->go[0]);
	close(s->res[1]);
	return 0;
}

static void storm_go(struct storm *s)
{
	s->t0 = now_s();
	close(s->go[1]);
}

/* Collects every worker's result and reaps it; returns seconds since storm_go(). */
static double storm_collect(struct storm *s, struct storm_res *tot)
{
	struct storm_res r;
	double secs;
	size_t got;
	ssize_t n;
	int i;

	memset(tot, 0, sizeof(*tot));
	for (i = 0; i < s->n; i++) {
		for (got = 0; got < sizeof(r); got += n) {
			n = read(s->res[0], (char *)&r + got, sizeof(r) - got);
			if (n < 0 && errno == EINTR)
				n = 0;
			else if (n <= 0)
				break;
		}
		if (got != sizeof(r))
			break;
		tot->workers++;
		tot->ops += r.ops;
		if (r.fails && !tot->fails)
			tot->err = r.err;
		tot->fails += r.fails;
		if ((r.bad_id || r.bad_wait) && !tot->bad_id && !tot->bad_wait) {
			tot->saw = r.saw;
			tot->want = r.want;
		}
		tot->bad_id += r.bad_id;
		tot->bad_wait += r.bad_wait;
		if (r.affinity_err && !tot->affinity_err)
			tot->affinity_err = r.affinity_err;
	}
	secs = now_s() - s->t0;
	close(s->res[0]);
	kill_reap(s->pid, s->n);
	munmap(s->stop, sizeof(int));
	return secs;
}

/* The first thing wrong with a storm, for the FAIL line; NULL if nothing is. */
static const char *storm_wrong(const struct storm *s, const struct storm_res *t, long want_ops,
			       char *why, size_t len)
{
	const char *what = s->kind == STORM_FORK ? "fork" : "pthread_create";

	if (t->workers != s->n)
		snprintf(why, len, "worker results (saw %d, expected %d)", t->workers, s->n);
	else if (t->affinity_err)
		snprintf(why, len, "sched_setaffinity to one CPU: %s", strerror(t->affinity_err));
	else if (t->fails)
		snprintf(why, len, "%s failed %ld times, first with %s (expected no failure)", what,
			 t->fails, strerror(t->err));
	else if (t->bad_id && s->kind == STORM_FORK)
		snprintf(why, len, "%ld children with a bad pid (saw %ld, expected > 1)", t->bad_id,
			 t->saw);
	else if (t->bad_id)
		snprintf(why, len,
			 "%ld threads with a bad tid (saw %ld, expected > 1 and not the process's pid)",
			 t->bad_id, t->saw);
	else if (t->bad_wait && s->kind == STORM_FORK)
		snprintf(why, len,
			 "%ld waitpid calls returned another pid or status (saw %ld, expected %ld exited 0)",
			 t->bad_wait, t->saw, t->want);
	else if (t->bad_wait)
		snprintf(why, len, "%ld pthread_join failures, first %s", t->bad_wait,
			 strerror((int)t->saw));
	else if (want_ops >= 0 && t->ops != want_ops)
		snprintf(why, len, "completed (saw %ld, expected %ld)", t->ops, want_ops);
	else
		return NULL;
	return why;
}

static int storm_test(const char *check, enum storm_kind kind)
{
	long iters = st.quick ? 300 : 2000;
	struct storm_res tot;
	struct storm s;
	char why[512];
	double secs;
	int err;

	err = storm_start(&s, kind, iters);
	if (err)
		return report(false, check, "starting %d workers: %s", st.ncpus, strerror(-err));
	storm_go(&s);
	secs = storm_collect(&s, &tot);
	if (storm_wrong(&s, &tot, s.n * iters, why, sizeof(why)))
		return report(false, check, "%s", why);
	if (kind == STORM_FORK)
		return report(true, check,
			      "%d workers (one per CPU, pinned) x %ld fork+_exit+waitpid: all %ld children had pid > 1 and were reaped by their waitpid, no fork failed; %.0f forks/s",
			      s.n, iters, tot.ops, tot.ops / secs);
	return report(true, check,
		      "%d workers (one per CPU, pinned) x %ld pthread_create+join: all %ld threads had a tid > 1 of their own, none failed; %.0f threads/s",
		      s.n, iters, tot.ops, tot.ops / secs);
}

int t_fork_storm(void)
{
	return storm_test("fork-storm", STORM_FORK);
}

int t_thread_storm(void)
{
	return storm_test("thread-storm", STORM_THREAD);
}

#define PARKED	100
#define WALKS	20		/* at least this many walks, */
#define WALK_S	1.0		/* and for at least this long (a quarter of it with --quick) */

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/*
 * One readdir of /proc (proc_pid_readdir: find_ge_pid on the index, in increasing order).  Each
 * parked pid must be seen exactly once, and no number twice.
 */
static int walk_proc(const pid_t *parked, int k, long *entries, char *why, size_t len)
{
	static long *seen;
	static size_t cap;
	struct dirent *de;
	size_t n = 0, i;
	const char *p;
	long key, *hit;
	DIR *d;

	d = opendir("/proc");
	if (!d) {
		snprintf(why, len, "opendir /proc: %s", strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		for (p = de->d_name; *p >= '0' && *p <= '9'; p++)
			;
		if (*p || p == de->d_name)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			seen = realloc(seen, cap * sizeof(*seen));
			if (!seen) {
				closedir(d);
				snprintf(why, len, "out of memory");
				return 1;
			}
		}
		seen[n++] = strtol(de->d_name, NULL, 10);
	}
	closedir(d);
	*entries = n;
	qsort(seen, n, sizeof(*seen), cmp_long);
	for (i = 1; i < n; i++) {
		if (seen[i] == seen[i - 1]) {
			snprintf(why, len, "/proc/%ld listed twice in one walk (saw 2, expected 1)",
				 seen[i]);
			return 1;
		}
	}
	for (i = 0; i < (size_t)k; i++) {
		key = parked[i];
		hit = bsearch(&key, seen, n, sizeof(*seen), cmp_long);
		if (!hit) {
			snprintf(why, len,
				 "parked pid %d missing from a walk (saw 0 times, expected 1)",
				 parked[i]);
			return 1;
		}
	}
	return 0;
}

int t_proc_readdir(void)
{
	long entries = 0, emin = -1, emax = 0;
	pid_t parked[PARKED];
	struct storm_res tot;
	char why[512] = "";
	int i, k, err, status, bad = 0;
	struct storm s;
	double secs, t0;

	for (k = 0; k < PARKED; k++) {
		parked[k] = fork();
		if (parked[k] == 0) {
			for (;;)
				pause();
		}
		if (parked[k] < 0) {
			err = errno;
			kill_reap(parked, k);
			return report(false, "proc-readdir", "forking parked child %d: %s", k,
				      strerror(err));
		}
	}
	err = storm_start(&s, STORM_FORK, 0);
	if (err) {
		kill_reap(parked, PARKED);
		return report(false, "proc-readdir", "starting the storm: %s", strerror(-err));
	}
	storm_go(&s);
	/* let the workers get going, so the walks really race with forks and exits */
	usleep(50000);
	t0 = now_s();
	for (i = 0; !bad && (i < WALKS || now_s() - t0 < (st.quick ? WALK_S / 4 : WALK_S)); i++) {
		bad = walk_proc(parked, PARKED, &entries, why, sizeof(why));
		if (emin < 0 || entries < emin)
			emin = entries;
		if (entries > emax)
			emax = entries;
	}
	__atomic_store_n(s.stop, 1, __ATOMIC_RELAXED);
	secs = storm_collect(&s, &tot);
	for (k = 0; k < PARKED && !bad; k++) {
		if (waitpid(parked[k], &status, WNOHANG) != parked[k])
			continue;
		snprintf(why, sizeof(why), "parked pid %d died during the walks", parked[k]);
		parked[k] = 0;
		bad = 1;
	}
	kill_reap(parked, PARKED);
	if (bad)
		return report(false, "proc-readdir", "walk %d: %s", i, why);
	if (storm_wrong(&s, &tot, -1, why, sizeof(why)))
		return report(false, "proc-readdir", "the storm beside the walks: %s", why);
	return report(true, "proc-readdir",
		      "%d walks of /proc during a fork storm (%ld forks by %d workers in %.2f s): each of %d parked pids seen exactly once per walk, no entry twice; %ld-%ld entries per walk",
		      i, tot.ops, s.n, secs, PARKED, emin, emax);
}
