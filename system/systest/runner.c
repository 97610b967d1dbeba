// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-systest: the init (pid 1) of the PID namespace that one index's tests run in.
 *
 * Each test runs in a process of its own, bounded by alarm(2); whatever it leaves behind is
 * killed and reaped before the next test starts, so tests never overlap (the pid_max test needs
 * that: while pid_max is 301 only one new process at a time can get a number).
 */
#include "systest.h"

#include <sys/mount.h>
#include <sys/wait.h>

struct test {
	const char *name;
	int (*fn)(void);
	unsigned int timeout;	/* seconds of alarm(2) in the test's process */
};

/* pid-max last: nothing else may fork while it runs (see above). */
static const struct test tests[] = {
	{ "fork-storm", t_fork_storm, 240 },
	{ "thread-storm", t_thread_storm, 240 },
	{ "nested", t_nested, 60 },
	{ "set-tid", t_set_tid, 60 },
	{ "ns-last-pid", t_ns_last_pid, 60 },
	{ "kill-pidfd", t_kill_pidfd, 60 },
	{ "proc-readdir", t_proc_readdir, 240 },
	{ "init-kill", t_init_kill, 120 },
	{ "pid-max", t_pid_max, 120 },
};

/* grace the runner gives a test past its own alarm before it SIGKILLs it */
#define RUNNER_GRACE_S	15

static volatile sig_atomic_t alarmed;

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

/* The namespace dies with its init; pid_max must not stay changed when that happens. */
static void on_term(int sig)
{
	pidmax_restore();
	_exit(128 + sig);
}

/*
 * Kill everything left in the namespace and reap it.  kill(-1) from a namespace's init reaches
 * exactly the processes of that namespace (and those below it); anywhere else it would reach the
 * whole machine, hence the check.
 */
static void reap_all(const char *check)
{
	int status, left = 0;

	if (getpid() != 1)
		return;
	kill(-1, SIGKILL);
	alarmed = 0;
	alarm(30);
	while (waitpid(-1, &status, __WALL) > 0 || errno == EINTR) {
		if (alarmed) {
			left = 1;
			break;
		}
	}
	alarm(0);
	if (left)
		report(false, check,
		       "cleanup: processes still alive 30 s after SIGKILL (saw a hang, expected all reaped)");
}

static void run_test(const struct test *t)
{
	bool killed = false;
	int status = 0;
	long long now;
	pid_t pid, r;

	pid = fork();
	if (pid < 0) {
		report(false, t->name, "fork of the test's process: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		set_sig(SIGALRM, SIG_DFL, true);
		alarm(t->timeout);
		_exit(t->fn());
	}

	alarmed = 0;
	alarm(t->timeout + RUNNER_GRACE_S);
	for (;;) {
		r = waitpid(pid, &status, __WALL);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (alarmed && !killed) {
			kill(pid, SIGKILL);
			killed = true;
			alarmed = 0;
			alarm(RUNNER_GRACE_S);
		} else if (alarmed) {
			break;
		}
	}
	alarm(0);

	if (r != pid)
		report(false, t->name, "test process %d did not exit even after SIGKILL", pid);
	else if (killed)
		report(false, t->name, "timed out: still running %d s after its %u s alarm; killed",
		       RUNNER_GRACE_S, t->timeout);
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		report(false, t->name,
		       "timed out after %u s (saw a hang, expected the test to end)",
		       t->timeout);
	else if (WIFSIGNALED(status))
		report(false, t->name, "test process killed by signal %d (%s) before its result",
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WEXITSTATUS(status) > 1)
		report(false, t->name, "test process exited %d without a result",
		       WEXITSTATUS(status));

	now = read_ll(PID_MAX_PATH);
	if (now != pidmax_saved()) {
		pidmax_restore();
		report(false, t->name, "pid_max left changed (saw %lld, expected %ld); restored",
		       now, pidmax_saved());
	}
	reap_all(t->name);
}

/* The namespace itself: we are its pid 1, and (on the system kernel) it got the index. */
static void check_init(void)
{
	char index[NAME_LEN];
	struct pidx_stats s;
	int level;

	if (getpid() != 1) {
		report(false, "ns-init", "getpid() in the new PID namespace (saw %d, expected 1)",
		       getpid());
		return;
	}
	if (!st.debugfs) {
		report(true, "ns-init",
		       "getpid() == 1 in the new PID namespace (self check skipped: stock kernel)");
		return;
	}
	if (read_self(index, sizeof(index), &level)) {
		report(false, "ns-init", "reading %s: cannot parse \"index=NAME level=N\"",
		       DBG_SELF);
		return;
	}
	if (strcmp(index, st.index) || level != st.base_level + 1) {
		report(false, "ns-init", "self (saw index=%s level=%d, expected index=%s level=%d)",
		       index, level, st.index, st.base_level + 1);
		return;
	}
	if (read_stats(st.index, &s) || s.namespaces < 1) {
		report(false, "ns-init", "stats: namespaces for %s (saw %lld, expected >= 1)",
		       st.index, s.namespaces);
		return;
	}
	report(true, "ns-init",
	       "getpid() == 1; self reads index=%s level=%d; stats: %lld namespaces use %s",
	       index, level, s.namespaces, st.index);
}

int runner_main(void)
{
	static const char done[] = "DONE\n";
	size_t i;

	set_sig(SIGALRM, on_alarm, false);
	set_sig(SIGINT, on_term, true);
	set_sig(SIGTERM, on_term, true);
	set_sig(SIGHUP, on_term, true);

	/*
	 * A private copy of the mounts, and a proc of our own over /proc, so /proc (readdir,
	 * loadavg) and /proc/sys/kernel/ns_last_pid show this namespace.
	 */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return report(false, "namespace", "mount --make-rprivate /: %s", strerror(errno));
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return report(false, "namespace", "mount proc on /proc: %s", strerror(errno));

	check_init();
	if (pidmax_save())
		report(false, "namespace", "cannot read %s", PID_MAX_PATH);

	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if ((st.only && strcmp(st.only, tests[i].name)) ||
		    (st.skip && !strcmp(st.skip, tests[i].name)))
			continue;
		run_test(&tests[i]);
	}

	pidmax_restore();
	if (write(st.result_fd, done, sizeof(done) - 1) < 0)
		return 1;
	return 0;
}
