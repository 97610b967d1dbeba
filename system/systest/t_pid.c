// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-systest: the number rules.  clone3's set_tid (insert at a given number), ns_last_pid and
 * /proc/loadavg (the index's cursor), kill and pidfd (lookup before and after a reap), and
 * pid_max at its minimum (cyclic allocation wrapping to RESERVED_PIDS).
 */
#include "systest.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal	424
#endif
#ifndef SYS_clone3
#define SYS_clone3		435
#endif

static int pidfd_open(pid_t pid)
{
	return syscall(SYS_pidfd_open, pid, 0);
}

/* Like fork(), but the child gets @tid in this namespace (the innermost level). */
static pid_t clone3_tid(pid_t tid)
{
	struct clone_args args;

	memset(&args, 0, sizeof(args));
	args.exit_signal = SIGCHLD;
	args.set_tid = (uintptr_t)&tid;
	args.set_tid_size = 1;
	return syscall(SYS_clone3, &args, sizeof(args));
}

int t_set_tid(void)
{
	pid_t n, first, second, third, got = -1;
	int rp[2], hold[2], status, e2 = 0, e1 = 0, e3 = 0;
	char c;

	n = find_free_run(5000, 1);
	if (n < 0)
		return report(false, "set-tid", "no free number near 5000 below pid_max");
	if (pipe(rp) || pipe(hold))
		return report(false, "set-tid", "pipe: %s", strerror(errno));

	/*
	 * The first child reports the number it sees and stays alive (blocked on @hold) while a
	 * second clone3 asks for the same number.  A raw clone3 child keeps to raw syscalls.
	 */
	first = clone3_tid(n);
	if (first == 0) {
		got = syscall(SYS_getpid);
		close(hold[1]);
		if (write(rp[1], &got, sizeof(got)) != sizeof(got))
			_exit(1);
		while (read(hold[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	e1 = errno;
	close(hold[0]);
	close(rp[1]);
	if (first > 0 && read(rp[0], &got, sizeof(got)) != sizeof(got))
		got = -1;
	close(rp[0]);

	second = clone3_tid(n);
	if (second == 0)
		_exit(0);
	e2 = errno;
	if (second > 0)
		wait_pid(second, &status);

	close(hold[1]);
	if (first > 0)
		wait_pid(first, &status);

	third = clone3_tid(n);
	if (third == 0)
		_exit(0);
	e3 = errno;
	if (third > 0)
		wait_pid(third, &status);

	if (first != n)
		return report(false, "set-tid", "clone3 set_tid={%d} (saw %d%s%s, expected %d)", n,
			      first, first < 0 ? " " : "", first < 0 ? strerror(e1) : "", n);
	if (got != n)
		return report(false, "set-tid",
			      "the child's getpid() (saw %d, expected %d)",
			      got, n);
	if (second != -1 || e2 != EEXIST)
		return report(false, "set-tid",
			      "second clone3 for live %d (saw %d %s, expected -1 EEXIST)",
			      n, second, second < 0 ? strerror(e2) : "");
	if (third != n)
		return report(false, "set-tid",
			      "clone3 for %d after the reap (saw %d%s%s, expected %d)",
			      n, third, third < 0 ? " " : "", third < 0 ? strerror(e3) : "", n);
	return report(true, "set-tid",
		      "clone3 set_tid={%d}: returned %d, child's getpid() %d; again while it lived: EEXIST; again after the reap: %d",
		      n, first, got, third);
}

int t_ns_last_pid(void)
{
	long long last, avg;
	char buf[256], *sp;
	pid_t want, pid;
	int r, status;

	want = find_free_run(7001, 1);
	if (want < 0)
		return report(false, "ns-last-pid", "no free number near 7001 below pid_max");
	snprintf(buf, sizeof(buf), "%d", want - 1);
	r = write_file(NS_LAST_PID, buf);
	if (r)
		return report(false, "ns-last-pid", "writing %d to %s: %s", want - 1, NS_LAST_PID,
			      strerror(-r));
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return report(false, "ns-last-pid", "fork: %s", strerror(errno));
	last = read_ll(NS_LAST_PID);
	/* loadavg's last field is the reader's namespace's cursor - 1: the last PID handed out */
	avg = -1;
	if (read_file("/proc/loadavg", buf, sizeof(buf)) > 0) {
		sp = strrchr(buf, ' ');
		if (sp)
			avg = strtoll(sp + 1, NULL, 10);
	}
	wait_pid(pid, &status);

	if (pid != want)
		return report(false, "ns-last-pid",
			      "fork after ns_last_pid=%d (saw pid %d, expected %d)",
			      want - 1, pid, want);
	if (last != want)
		return report(false, "ns-last-pid",
			      "ns_last_pid after the fork (saw %lld, expected %d)",
			      last, want);
	if (avg != want)
		return report(false, "ns-last-pid",
			      "/proc/loadavg last pid (saw %lld, expected %d)",
			      avg, want);
	return report(true, "ns-last-pid",
		      "ns_last_pid=%d then fork: child %d, ns_last_pid reads %lld, /proc/loadavg's last pid %lld",
		      want - 1, pid, last, avg);
}

int t_kill_pidfd(void)
{
	int k1, e1, fd, e2, p1, k2, e3, fd2, e4, s2, e5, status;
	struct pollfd pfd;
	pid_t pid, w;

	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	if (pid < 0)
		return report(false, "kill-pidfd", "fork: %s", strerror(errno));
	k1 = kill(pid, 0);
	e1 = errno;
	fd = pidfd_open(pid);
	e2 = errno;
	pfd.fd = fd;
	pfd.events = POLLIN;
	p1 = fd >= 0 ? poll(&pfd, 1, 0) : -1;
	kill(pid, SIGKILL);
	w = wait_pid(pid, &status);
	k2 = kill(pid, 0);
	e3 = errno;
	fd2 = pidfd_open(pid);
	e4 = errno;
	s2 = fd >= 0 ? syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) : 0;
	e5 = errno;
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);

	if (k1)
		return report(false, "kill-pidfd",
			      "kill(%d, 0) on a live child (saw %s, expected 0)",
			      pid, strerror(e1));
	if (fd < 0)
		return report(false, "kill-pidfd",
			      "pidfd_open(%d) on a live child (saw %s, expected an fd)",
			      pid, strerror(e2));
	if (p1 != 0)
		return report(false, "kill-pidfd",
			      "poll of a live child's pidfd (saw %d, expected 0: not exited)",
			      p1);
	if (w != pid)
		return report(false, "kill-pidfd", "waitpid (saw %d, expected %d)", w, pid);
	if (k2 != -1 || e3 != ESRCH)
		return report(false, "kill-pidfd",
			      "kill(%d, 0) after the reap (saw %s, expected ESRCH)",
			      pid, k2 ? strerror(e3) : "0");
	if (fd2 >= 0 || e4 != ESRCH)
		return report(false, "kill-pidfd",
			      "pidfd_open(%d) after the reap (saw %s, expected ESRCH)",
			      pid, fd2 >= 0 ? "an fd" : strerror(e4));
	if (s2 != -1 || e5 != ESRCH)
		return report(false, "kill-pidfd",
			      "pidfd_send_signal on the old pidfd (saw %s, expected ESRCH)",
			      s2 ? strerror(e5) : "0");
	return report(true, "kill-pidfd",
		      "live child %d: kill(,0) = 0, pidfd_open gave an fd; after waitpid: kill, pidfd_open and pidfd_send_signal all ESRCH",
		      pid);
}

/* pid_max must come back even if this test is interrupted: the handler writes it back first. */
static void on_pidmax_sig(int sig)
{
	pidmax_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* One child at a time: its number, or -errno. */
static pid_t fork_one(void)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -errno;
	wait_pid(pid, &status);
	return pid;
}

/*
 * EAGAIN is right only where no number is left: here, once past the wrap, only 300 may be given;
 * and where pid_max is global (6.1), the driver's namespace also needs its 300 free, which the
 * driver's /proc shows.
 */
static const char *space_full(bool wrapped)
{
	if (wrapped && !pid_is_free(RESERVED_PIDS))
		return "300 is taken in this namespace";
	if (st.hostproc_fd >= 0 && !faccessat(st.hostproc_fd, "300", F_OK, 0))
		return "300 is taken in the driver's namespace";
	return NULL;
}

/*
 * Fork until @want[] is used up; returns 0 when every child got its expected number.  A fork
 * that fails with EAGAIN while the number space is full ends the sequence early, and @full says
 * why that was right.
 */
static int wrap_seq(const pid_t *want, int n, long long cursor, const char **full, char *why,
		    size_t len)
{
	pid_t got;
	int i;

	for (i = 0; i < n; i++) {
		got = fork_one();
		if (got == -EAGAIN) {
			*full = space_full(cursor > RESERVED_PIDS);
			if (*full)
				return 0;
		}
		if (got != want[i]) {
			snprintf(why, len, "fork %d of %d (saw %d%s%s, expected %d)", i + 1, n, got,
				 got < 0 ? " " : "", got < 0 ? strerror(-got) : "", want[i]);
			return 1;
		}
		cursor = got + 1;
	}
	return 0;
}

int t_pid_max(void)
{
	static pid_t seq[RESERVED_PIDS + 2];
	const char *full_a = NULL, *full_b = NULL;
	pid_t want_a[3] = { RESERVED_PIDS, RESERVED_PIDS, RESERVED_PIDS };
	long long cursor, now;
	char why[256] = "", num[16];
	int i, n = 0, r, bad = 0;
	pid_t start;
	long saved;

	if (pidmax_save())
		return report(false, "pid-max", "cannot read %s", PID_MAX_PATH);
	saved = pidmax_saved();
	set_sig(SIGALRM, on_pidmax_sig, true);
	set_sig(SIGINT, on_pidmax_sig, true);
	set_sig(SIGTERM, on_pidmax_sig, true);
	set_sig(SIGHUP, on_pidmax_sig, true);
	r = write_file(PID_MAX_PATH, "301");
	if (r) {
		pidmax_restore();
		return report(false, "pid-max",
			      "writing 301 to %s: %s",
			      PID_MAX_PATH, strerror(-r));
	}

	/* Phase A: the cursor is far past 300 after the earlier tests: each fork gets 300. */
	cursor = read_ll(NS_LAST_PID) + 1;
	if (cursor > RESERVED_PIDS)
		bad = wrap_seq(want_a, 3, cursor, &full_a, why, sizeof(why));

	/* Phase B: from below 300: every free number up to 300 in turn, then 300 again. */
	start = st.quick ? 280 : 200;
	if (!bad) {
		snprintf(num, sizeof(num), "%d", start);
		r = write_file(NS_LAST_PID, num);
		if (r) {
			snprintf(why, sizeof(why), "writing %d to ns_last_pid: %s", start,
				 strerror(-r));
			bad = 1;
		}
	}
	if (!bad) {
		for (i = start + 1; i <= RESERVED_PIDS; i++)
			if (pid_is_free(i))
				seq[n++] = i;
		seq[n++] = RESERVED_PIDS;
		seq[n++] = RESERVED_PIDS;
		bad = wrap_seq(seq, n, start + 1, &full_b, why, sizeof(why));
	}

	pidmax_restore();
	now = read_ll(PID_MAX_PATH);
	set_sig(SIGALRM, SIG_DFL, true);
	if (bad)
		return report(false, "pid-max",
			      "pid_max=301: %s; pid_max restored to %lld",
			      why, now);
	if (now != saved)
		return report(false, "pid-max",
			      "restoring pid_max (saw %lld, expected %ld)",
			      now, saved);
	if (full_a || full_b)
		return report(true, "pid-max",
			      "pid_max=301: forks got EAGAIN where the space was full (%s); numbers up to then as expected; pid_max restored to %ld",
			      full_a ? full_a : full_b, saved);
	return report(true, "pid-max",
		      "pid_max=301: from cursor %lld%s; after ns_last_pid=%d: %d forks got %d..%d in turn (every free number), then %d, %d again; pid_max restored to %ld",
		      cursor,
		      cursor > RESERVED_PIDS ? " three forks all got 300" : " (phase A skipped)",
		      start, n - 2, seq[0], n > 2 ? seq[n - 3] : 0, RESERVED_PIDS, RESERVED_PIDS,
		      saved);
}
