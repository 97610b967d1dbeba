// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-systest: namespaces inside the test's namespace.  Nesting to depth 3 (each level is a
 * namespace of its own, with the index of the moment) and killing a namespace's init while it
 * has 200 children (zap_pid_ns_processes, then the index torn down after a grace period).
 */
#include "systest.h"

#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>

/* Messages from the nested levels: "E ..." for an error, "I ..." for what was seen. */
static int msg_fd = -1;

static void __printf(1, 2) nest_msg(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	if (write(msg_fd, line, n) < 0)
		_exit(3);
}

static void nspid_text(const long *v, int n, char *out, size_t len)
{
	size_t used = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(out + used, len - used, "%s%ld", i ? " " : "", v[i]);
}

/* In the init of @level: it is pid 1, self says so, and a proc of its own shows it as 1. */
static void check_level(int level)
{
	char index[NAME_LEN], buf[4096];
	long nspid[16];
	int n, got;

	if (getpid() != 1)
		nest_msg("E level %d: getpid() of the init (saw %d, expected 1)",
			 st.base_level + level, getpid());
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) {
		nest_msg("E level %d: mounting a proc of its own: %s", st.base_level + level,
			 strerror(errno));
		return;
	}
	if (st.debugfs) {
		if (read_self(index, sizeof(index), &got))
			nest_msg("E level %d: cannot parse %s", st.base_level + level, DBG_SELF);
		else if (strcmp(index, st.index) || got != st.base_level + level)
			nest_msg("E self (saw index=%s level=%d, expected index=%s level=%d)",
				 index, got, st.index, st.base_level + level);
	}
	n = read_file("/proc/self/status", buf, sizeof(buf)) > 0 ?
	    nspid_parse(buf, nspid, 16) : -1;
	if (n != 1 || nspid[0] != 1)
		nest_msg("E level %d: own proc's NSpid (saw %d numbers, first %ld; expected 1)",
			 st.base_level + level, n, n > 0 ? nspid[0] : -1L);
}

/* A child of the deepest init: its NSpid, seen through the driver's /proc, has a number a level. */
static int deepest_child(void)
{
	char buf[4096], text[128];
	long nspid[16], own[16];
	int n, m, want = st.host_nspid + 3;

	n = read_file_at(st.hostproc_fd, "self/status", buf, sizeof(buf)) > 0 ?
	    nspid_parse(buf, nspid, 16) : -1;
	m = read_file("/proc/self/status", buf, sizeof(buf)) > 0 ?
	    nspid_parse(buf, own, 16) : -1;
	if (n < 1) {
		nest_msg("E level 3 child: no NSpid line in the driver's /proc/self/status");
		return 1;
	}
	nspid_text(nspid, n, text, sizeof(text));
	if (n != want)
		nest_msg("E level 3 child: NSpid via host proc (saw %d numbers: %s; expected %d)",
			 n, text, want);
	else if (nspid[n - 1] != getpid())
		nest_msg("E level 3 child: last NSpid number (saw %ld, expected getpid() %d)",
			 nspid[n - 1], getpid());
	else if (m != 1 || own[0] != getpid())
		nest_msg("E level 3 child: own NSpid (saw %d numbers, first %ld; expected 1, %d)",
			 m, m > 0 ? own[0] : -1L, getpid());
	else
		nest_msg("I NSpid %s", text);
	return 0;
}

/* The init of @level (2 or 3): checks itself, then makes the next level or the deepest child. */
static int nest_init(int level)
{
	int status;
	pid_t pid;

	check_level(level);
	if (level < 3 && unshare(CLONE_NEWPID)) {
		nest_msg("E level %d: unshare(CLONE_NEWPID): %s", st.base_level + level,
			 strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0)
		_exit(level < 3 ? nest_init(level + 1) : deepest_child());
	if (pid < 0) {
		nest_msg("E level %d: fork: %s", st.base_level + level, strerror(errno));
		return 1;
	}
	if (wait_pid(pid, &status) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		nest_msg("E level %d: its child ended badly (status 0x%x)", st.base_level + level,
			 status);
		return 1;
	}
	return 0;
}

int t_nested(void)
{
	char buf[8192], *e, *i;
	size_t got = 0;
	int p[2], status;
	ssize_t r;
	pid_t pid;

	if (getppid() != 1)
		return report(false, "nested",
			      "level %d: parent of the test is not the init (saw %d, expected 1)",
			      st.base_level + 1, getppid());
	if (pipe(p))
		return report(false, "nested", "pipe: %s", strerror(errno));
	msg_fd = p[1];
	if (unshare(CLONE_NEWPID))
		return report(false, "nested", "unshare(CLONE_NEWPID) at level %d: %s",
			      st.base_level + 1, strerror(errno));
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(nest_init(2));
	}
	close(p[1]);
	if (pid < 0)
		return report(false, "nested", "fork of the level %d init: %s", st.base_level + 2,
			      strerror(errno));
	while (got < sizeof(buf) - 1) {
		r = read(p[0], buf + got, sizeof(buf) - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
	}
	buf[got] = '\0';
	close(p[0]);
	wait_pid(pid, &status);

	e = strstr(buf, "E ");
	if (e && (e == buf || e[-1] == '\n')) {
		*strchrnul(e, '\n') = '\0';
		return report(false, "nested", "%s", e + 2);
	}
	i = strstr(buf, "I NSpid ");
	if (!i || !WIFEXITED(status) || WEXITSTATUS(status))
		return report(false, "nested",
			      "the nested levels ended without a result (status 0x%x)",
			      status);
	*strchrnul(i, '\n') = '\0';
	return report(true, "nested",
		      "levels %d-%d: each init has getpid() 1%s and a proc of its own showing it as 1; the deepest child's NSpid (driver's /proc) is %s",
		      st.base_level + 1, st.base_level + 3,
		      st.debugfs ? " and self gives its level and index" : "", i + 8);
}

#define KIDS	200

/* The caller's number in the test's namespace: /proc is still the test's, "self" says it. */
static pid_t test_nr(void)
{
	char link[32];
	ssize_t n;

	n = readlink("/proc/self", link, sizeof(link) - 1);
	link[n > 0 ? n : 0] = '\0';
	return n > 0 ? atoi(link) : 0;
}

/* The init of the doomed namespace: its own number, then 200 children that report theirs. */
static void __noreturn doomed_init(int fd)
{
	pid_t c, me = test_nr();
	int i, e;

	if (write(fd, &me, sizeof(me)) != sizeof(me))
		_exit(1);
	for (i = 0; i < KIDS; i++) {
		c = fork();
		if (c == 0) {
			me = test_nr();
			if (write(fd, &me, sizeof(me)) != sizeof(me))
				_exit(1);
			for (;;)
				pause();
		}
		if (c < 0) {
			e = -errno;
			if (write(fd, &e, sizeof(e)) < 0)
				break;
		}
	}
	for (;;)
		pause();
}

/*
 * The init's number here, then its children's, as they report them (a failed unshare or fork
 * sends -errno instead); 1 (and @why) if any is missing or failed.
 */
static int read_kids(int fd, pid_t *inner, pid_t *kids, char *why, size_t len)
{
	pid_t got;
	ssize_t r;
	int n;

	for (n = 0; n <= KIDS; ) {
		r = read(fd, &got, sizeof(got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r != sizeof(got)) {
			snprintf(why, len, "init and children reported (saw %d, expected %d)", n,
				 KIDS + 1);
			return 1;
		}
		if (got <= 0) {
			snprintf(why, len, "%s: %s", n ? "fork in the namespace's init" :
				 "unshare or fork of the namespace's init", strerror(-got));
			return 1;
		}
		if (n)
			kids[n - 1] = got;
		else
			*inner = got;
		n++;
	}
	return 0;
}

/*
 * The doomed namespace is made by a child that forks its init and exits: a process that
 * unshared keeps the namespace (its pid_ns_for_children) as long as it lives, and the namespace
 * and its index are freed only after that.  The test, a subreaper, inherits the init.
 */
static pid_t spawn_doomed(int p[2])
{
	pid_t spawner, inner;
	int e, status;

	spawner = fork();
	if (spawner == 0) {
		close(p[0]);
		inner = unshare(CLONE_NEWPID) ? -1 : fork();
		if (inner == 0)
			doomed_init(p[1]);
		e = -errno;
		if (inner < 0 && write(p[1], &e, sizeof(e)) < 0)
			_exit(2);
		_exit(inner < 0);
	}
	e = errno;
	close(p[1]);
	if (spawner > 0)
		wait_pid(spawner, &status);
	errno = e;
	return spawner;
}

int t_init_kill(void)
{
	bool idrish = !strcmp(st.index, "idr") || !strcmp(st.index, "idr_onelock");
	struct pidx_stats base = { 0 }, live = { 0 }, after = { 0 };
	pid_t kids[KIDS + 2], inner = 0, start;
	char why[256] = "", num[16];
	int i, r, p[2], status, left = 0, settled = 0;
	double t0, secs = 0;

	/*
	 * Warm up: put KIDS + 2 processes on the numbers that the child making the doomed namespace
	 * and the namespace's processes will get here, then reap them, so that the baseline already
	 * holds whatever this namespace's own index keeps for those numbers; the drop measured
	 * later is then the doomed one's index.
	 */
	start = find_free_run(20000, KIDS + 2);
	if (start < 0)
		return report(false, "init-kill", "no %d free numbers below pid_max", KIDS + 2);
	snprintf(num, sizeof(num), "%d", start - 1);
	r = write_file(NS_LAST_PID, num);
	if (r)
		return report(false, "init-kill", "writing ns_last_pid: %s", strerror(-r));
	for (i = 0; i < KIDS + 2; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			for (;;)
				pause();
		}
		if (kids[i] < 0) {
			r = errno;
			kill_reap(kids, i);
			return report(false, "init-kill", "warm-up fork %d: %s", i, strerror(r));
		}
	}
	kill_reap(kids, i);
	/* kworkers and per-CPU caches as the frees will leave them (util.c) */
	if (stats_warmup(st.index, 8))
		return report(false, "init-kill",
			      "8 namespaces freed at once before the baseline: namespaces for %s not back within 20 s",
			      st.index);
	if (st.debugfs)
		settled = settle_stats(st.index, &base, 20) == 0;
	r = write_file(NS_LAST_PID, num);
	if (r)
		return report(false, "init-kill", "writing ns_last_pid: %s", strerror(-r));

	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		return report(false, "init-kill", "prctl(PR_SET_CHILD_SUBREAPER): %s",
			      strerror(errno));
	if (pipe(p))
		return report(false, "init-kill", "pipe: %s", strerror(errno));
	if (spawn_doomed(p) < 0)
		return report(false, "init-kill", "fork of the namespace's maker: %s",
			      strerror(errno));
	if (read_kids(p[0], &inner, kids, why, sizeof(why))) {
		kill_reap(&inner, 1);
		return report(false, "init-kill", "%s", why);
	}
	close(p[0]);
	for (i = 0; i < KIDS; i++) {
		if (kill(kids[i], 0)) {
			kill_reap(&inner, 1);
			return report(false, "init-kill", "child %d not alive before the kill: %s",
				      kids[i], strerror(errno));
		}
	}
	/* counted at creation, but allow the kernel side a moment */
	for (t0 = now_s(); st.debugfs && now_s() - t0 < 5; usleep(50000))
		if (read_stats(st.index, &live) || live.namespaces == base.namespaces + 1)
			break;
	if (st.debugfs && live.namespaces != base.namespaces + 1) {
		kill_reap(&inner, 1);
		return report(false, "init-kill",
			      "namespaces for %s while the new one lives (saw %lld, expected %lld)",
			      st.index, live.namespaces, base.namespaces + 1);
	}

	kill(inner, SIGKILL);
	if (wait_pid(inner, &status) != inner || !WIFSIGNALED(status) ||
	    WTERMSIG(status) != SIGKILL)
		return report(false, "init-kill",
			      "waitpid of the killed init %d (status 0x%x, expected killed by SIGKILL)",
			      inner, status);
	for (i = 0; i < KIDS; i++)
		if (!pid_is_free(kids[i]))
			left++;
	if (left)
		return report(false, "init-kill",
			      "children alive after their init was reaped (saw %d, expected 0)",
			      left);
	if (!st.debugfs)
		return report(true, "init-kill",
			      "init (pid %d here) of a namespace with %d children SIGKILLed: waitpid got it, all %d children gone (ESRCH); stats skipped: stock kernel",
			      inner, KIDS, KIDS);

	t0 = now_s();
	do {
		if (read_stats(st.index, &after))
			break;
		secs = now_s() - t0;
		if (after.namespaces == base.namespaces && (idrish || after.mem <= base.mem))
			break;
		usleep(100000);
	} while (now_s() - t0 < 20);
	if (after.namespaces != base.namespaces)
		return report(false, "init-kill",
			      "namespaces for %s 20 s after the kill (saw %lld, expected %lld)",
			      st.index, after.namespaces, base.namespaces);
	if (!idrish && after.mem > base.mem)
		return report(false, "init-kill",
			      "pidx_mem_bytes 20 s after the kill (saw %lld, expected <= %lld, the baseline%s; %lld while it lived)",
			      after.mem, base.mem, settled ? "" : " taken unsettled", live.mem);
	if (idrish)
		return report(true, "init-kill",
			      "init (pid %d here) of a namespace with %d children SIGKILLed: all %d children gone; namespaces for %s %lld -> %lld -> %lld in %.2f s (idr nodes are the kernel's own: only the namespace count is checked)",
			      inner, KIDS, KIDS, st.index, base.namespaces, live.namespaces,
			      after.namespaces, secs);
	return report(true, "init-kill",
		      "init (pid %d here) of a namespace with %d children SIGKILLed: all %d children gone; namespaces for %s %lld -> %lld -> %lld, pidx_mem_bytes %lld -> %lld -> %lld (<= baseline) in %.2f s",
		      inner, KIDS, KIDS, st.index, base.namespaces, live.namespaces,
		      after.namespaces, base.mem, live.mem, after.mem, secs);
}
