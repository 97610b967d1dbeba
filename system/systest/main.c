// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-systest: the driver.  For each index the system kernel offers it selects the index,
 * creates a PID namespace (which gets it) and relays the result lines of the tests that the
 * namespace's init (runner.c) runs in there.  On a stock kernel it runs them once, as "host".
 *
 * Usage: pidx-systest [--index NAME|all] [--quick] [--faults] [--cpus N]
 *                     [--only TEST | --skip TEST]
 *
 * --faults runs t_faults.c's rounds for each index instead of the tests, while the guest has
 * failslab on for the tasks marked make-it-fail.
 */
#include "systest.h"

#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#define DEBUGFS_MAGIC	0x64626720
#define DEBUGFS_MNT	"/sys/kernel/debug"
#define MAX_INDEXES	32

/*
 * Every test bounds itself with alarm(2) (at most 240 s) and the runner kills a test 15 s after
 * that; a runner silent for longer than this is stuck, and its namespace is killed whole.
 */
#define DRIVER_IDLE_S	330

static int npass, nfail;
/* read by on_signal(): stored with __atomic_store_n(), so the handler sees each store */
static pid_t runner_pid;
static char orig_index[NAME_LEN];
static size_t orig_index_len;

void driver_line(const char *line)
{
	fputs(line, stdout);
	fflush(stdout);
	if (!strncmp(line, "PASS ", 5))
		npass++;
	else if (!strncmp(line, "FAIL ", 5))
		nfail++;
}

/* Async-signal-safe: a ^C or a kill must not leave pid_max at 301 or the index changed. */
static void on_signal(int sig)
{
	static const char msg[] = "pidx-systest: interrupted; pid_max and index restored\n";
	pid_t rp = __atomic_load_n(&runner_pid, __ATOMIC_SEQ_CST);
	ssize_t w;
	int fd;

	if (rp > 0)
		kill(rp, SIGKILL);
	pidmax_restore();
	if (orig_index_len) {
		fd = open(DBG_INDEX, O_WRONLY);
		if (fd >= 0) {
			w = write(fd, orig_index, orig_index_len);
			close(fd);
		}
	}
	w = write(STDERR_FILENO, msg, sizeof(msg) - 1);
	(void)w;
	_exit(128 + sig);
}

static void print_usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: pidx-systest [--index NAME|all] [--quick] [--faults] [--cpus N] [--only TEST | --skip TEST]\n");
	exit(code);
}

static void setup_cpus(int want)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		st.cpus[0] = 0;
		st.ncpus = 1;
		return;
	}
	for (i = 0; i < CPU_SETSIZE && (want <= 0 || st.ncpus < want); i++)
		if (CPU_ISSET(i, &set))
			st.cpus[st.ncpus++] = i;
	if (want > st.ncpus)
		note("INFO", "cpus", "--cpus %d asked, only %d CPUs usable: using %d", want,
		     st.ncpus, st.ncpus);
}

/*
 * The guest may not have sysfs or debugfs mounted yet; mount them, and unmount debugfs again if
 * this turns out to be a stock kernel, so that a native run leaves the machine as it was.
 */
static bool find_debugfs(void)
{
	struct statfs sf;

	if (!access(DBG_DIR, F_OK))
		return true;
	if (access("/sys/kernel", F_OK))
		mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	if (!statfs(DEBUGFS_MNT, &sf) && sf.f_type == DEBUGFS_MAGIC)
		return false;
	if (mount("debugfs", DEBUGFS_MNT, "debugfs", 0, NULL))
		return false;
	if (!access(DBG_DIR, F_OK))
		return true;
	umount(DEBUGFS_MNT);
	return false;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = '\0';
}

/* Levels and NSpid counts that the nested tests compare against. */
static void find_levels(void)
{
	char buf[4096], name[NAME_LEN];
	long nspid[64];
	int n, level;

	n = read_file_at(st.hostproc_fd, "self/status", buf, sizeof(buf)) > 0 ?
	    nspid_parse(buf, nspid, 64) : -1;
	st.host_nspid = n > 0 ? n : 1;
	st.base_level = st.host_nspid - 1;
	if (st.debugfs && !read_self(name, sizeof(name), &level))
		st.base_level = level;
}

/* The interface itself: available, index (and its refusal of a bad name), stats, self. */
static int check_debugfs(char names[][NAME_LEN], int *n)
{
	static const char bogus[] = "pidx-systest-no-such-index";
	char buf[4096], now[NAME_LEN], self[NAME_LEN], *line, *save;
	struct pidx_stats s;
	int i, r, level;

	*n = 0;
	if (read_file(DBG_AVAILABLE, buf, sizeof(buf)) < 0)
		return report(false, "debugfs", "reading %s: %s", DBG_AVAILABLE, strerror(errno));
	for (line = strtok_r(buf, "\n", &save); line && *n < MAX_INDEXES;
	     line = strtok_r(NULL, "\n", &save)) {
		chomp(line);
		if (*line)
			snprintf(names[(*n)++], NAME_LEN, "%.*s", NAME_LEN - 1, line);
	}
	if (!*n || strcmp(names[0], "idr"))
		return report(false, "debugfs", "available: first name (saw \"%s\", expected idr)",
			      *n ? names[0] : "");

	if (read_file(DBG_INDEX, buf, sizeof(buf)) < 0)
		return report(false, "debugfs", "reading %s: %s", DBG_INDEX, strerror(errno));
	chomp(buf);
	snprintf(orig_index, sizeof(orig_index), "%.*s", NAME_LEN - 1, buf);
	orig_index_len = strlen(orig_index);

	r = write_file(DBG_INDEX, bogus);
	if (r != -EINVAL)
		return report(false, "debugfs",
			      "writing an unknown name to index (saw %s, expected %s)",
			      r ? strerror(-r) : "success", strerror(EINVAL));
	read_file(DBG_INDEX, now, sizeof(now));
	chomp(now);
	if (strcmp(now, orig_index))
		return report(false, "debugfs", "index after a refused write (saw %s, expected %s)",
			      now, orig_index);

	if (read_stats(names[0], &s) || s.timing < 0)
		return report(false, "debugfs", "stats first line: no timing= or pidx_mem_bytes=");
	for (i = 0; i < *n; i++) {
		if (read_stats(names[i], &s) || s.namespaces < 0)
			return report(false, "debugfs", "stats: no namespaces= for index %s",
				      names[i]);
	}
	if (read_self(self, sizeof(self), &level))
		return report(false, "debugfs", "self: cannot parse \"index=NAME level=N\"");
	return report(true, "debugfs",
		      "%d indexes available (%s first), index=%s, an unknown name is refused with EINVAL, stats has all %d, driver's self index=%s level=%d",
		      *n, names[0], orig_index, *n, self, level);
}

static void relay_line(const char *line, bool *done)
{
	char out[LINE_LEN + 2];

	if (!strncmp(line, "RUNNER ", 7)) {
		__atomic_store_n(&runner_pid, atoi(line + 7), __ATOMIC_SEQ_CST);
	} else if (!strcmp(line, "DONE")) {
		*done = true;
	} else {
		snprintf(out, sizeof(out), "%.*s\n", LINE_LEN, line);
		driver_line(out);
	}
}

/* Lines from the namespace until every writer is gone (EOF) or it has been silent too long. */
static int relay(int fd, bool *done)
{
	static char buf[16384];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t have = 0;
	char *nl, *line;
	ssize_t r;

	for (;;) {
		r = poll(&p, 1, DRIVER_IDLE_S * 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return -ETIMEDOUT;
		r = read(fd, buf + have, sizeof(buf) - 2 - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += r;
		buf[have] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			relay_line(line, done);
			line = nl + 1;
		}
		have -= line - buf;
		memmove(buf, line, have + 1);
		if (have == sizeof(buf) - 2) {
			relay_line(buf, done);
			have = 0;
		}
	}
	if (have)
		relay_line(buf, done);
	return 0;
}

/*
 * A helper unshares the PID and mount namespaces (the new PID namespace takes the index selected
 * now) and forks the namespace's init, then exits; the driver is a child subreaper, so the init
 * becomes its child and it can kill it (and so the whole namespace) if it hangs.
 */
static void run_index(const char *name)
{
	int rp[2], status = 0;
	bool done = false;
	pid_t helper, runner, r;

	st.index = name;
	if (pipe(rp))
		goto fail_pipe;
	fflush(stdout);
	helper = fork();
	if (helper < 0) {
		close(rp[0]);
		close(rp[1]);
		goto fail_pipe;
	}
	if (helper == 0) {
		char line[64];

		set_sig(SIGINT, SIG_DFL, true);
		set_sig(SIGTERM, SIG_DFL, true);
		set_sig(SIGHUP, SIG_DFL, true);
		close(rp[0]);
		st.result_fd = rp[1];
		if (unshare(CLONE_NEWPID | CLONE_NEWNS))
			_exit(report(false, "namespace", "unshare(CLONE_NEWPID|CLONE_NEWNS): %s",
				     strerror(errno)));
		runner = fork();
		if (runner < 0)
			_exit(report(false, "namespace", "fork of the namespace's init: %s",
				     strerror(errno)));
		if (runner == 0)
			_exit(runner_main());
		snprintf(line, sizeof(line), "RUNNER %d\n", runner);
		if (write(rp[1], line, strlen(line)) < 0)
			kill(runner, SIGKILL);
		_exit(0);
	}
	close(rp[1]);
	if (relay(rp[0], &done) == -ETIMEDOUT) {
		report(false, "runner",
		       "no result for %d s: killing the namespace (saw a hang, expected every test to end within its alarm)",
		       DRIVER_IDLE_S);
		if (runner_pid > 0)
			kill(runner_pid, SIGKILL);
	}
	close(rp[0]);
	wait_bounded(helper, &status, 30);
	if (runner_pid > 0) {
		r = wait_bounded(runner_pid, &status, 60);
		if (r <= 0)
			report(false, "runner",
			       "the namespace's init did not exit within 60 s of SIGKILL");
		else if (!done)
			report(false, "runner",
			       "the namespace's init ended before its tests (saw %s %d, expected DONE)",
			       WIFSIGNALED(status) ? "signal" : "exit status",
			       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	} else if (!done) {
		report(false, "runner", "the namespace's init never started");
	}
	__atomic_store_n(&runner_pid, 0, __ATOMIC_SEQ_CST);
	/* strays reparented to the subreaper */
	while (waitpid(-1, &status, WNOHANG | __WALL) > 0)
		;
	st.index = NULL;
	return;
fail_pipe:
	report(false, "runner", "pipe/fork: %s", strerror(errno));
	st.index = NULL;
}

/* pid_max is checked after each namespace: a test that left it changed breaks the machine. */
static void check_pid_max(const char *name)
{
	long long now = read_ll(PID_MAX_PATH);

	if (now == pidmax_saved())
		return;
	pidmax_restore();
	st.index = name;
	report(false, "pid_max-restore",
	       "pid_max after the run (saw %lld, expected %ld; restored now)",
	       now, pidmax_saved());
	st.index = NULL;
}

/* The index's tests in a namespace of its own, or with --faults the rounds under failslab. */
static void run_one(const char *name)
{
	double t0 = now_s();

	if (st.faults) {
		faults_index(name);
	} else {
		run_index(name);
		check_pid_max(name);
	}
	st.index = name;
	note("INFO", "time", "%.1f s", now_s() - t0);
	st.index = NULL;
}

static void select_and_run(const char *name)
{
	char now[NAME_LEN];
	int r;

	st.index = name;
	r = write_file(DBG_INDEX, name);
	if (r) {
		report(false, "select", "writing %s to %s (saw %s, expected success)", name,
		       DBG_INDEX, strerror(-r));
		st.index = NULL;
		return;
	}
	read_file(DBG_INDEX, now, sizeof(now));
	chomp(now);
	if (strcmp(now, name)) {
		report(false, "select", "index after writing %s (saw %s, expected %s)", name, now,
		       name);
		st.index = NULL;
		return;
	}
	st.index = NULL;
	run_one(name);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "index", required_argument, NULL, 'i' },
		{ "quick", no_argument, NULL, 'q' },
		{ "faults", no_argument, NULL, 'f' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'o' },
		{ "skip", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static char names[MAX_INDEXES][NAME_LEN];
	const char *want = "all";
	char now[NAME_LEN];
	int c, i, n, cpus = 0;
	bool found;

	while ((c = getopt_long(argc, argv, "i:qfc:o:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			want = optarg;
			break;
		case 'q':
			st.quick = true;
			break;
		case 'f':
			st.faults = true;
			break;
		case 'o':
			st.only = optarg;
			break;
		case 's':
			st.skip = optarg;
			break;
		case 'c':
			cpus = atoi(optarg);
			if (cpus <= 0)
				print_usage(2);
			break;
		case 'h':
			print_usage(0);
			break;
		default:
			print_usage(2);
		}
	}
	if (optind != argc)
		print_usage(2);
	if (geteuid()) {
		fprintf(stderr, "pidx-systest: must run as root\n");
		return 2;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	setup_cpus(cpus);
	/* a bare guest may not have mounted proc yet */
	if (access("/proc/self", F_OK))
		mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	/* opened before any unshare, so it keeps the driver's view for NSpid and host pids */
	st.hostproc_fd = open("/proc", O_RDONLY | O_DIRECTORY);
	st.debugfs = find_debugfs();
	find_levels();
	if (pidmax_save())
		fprintf(stderr, "pidx-systest: cannot read %s\n", PID_MAX_PATH);
	else if (pidmax_saved() <= 4096)
		note("INFO", "pid_max", "pid_max is %ld at the start (left low by an earlier run?)",
		     pidmax_saved());
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		report(false, "subreaper", "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
	set_sig(SIGINT, on_signal, true);
	set_sig(SIGTERM, on_signal, true);
	set_sig(SIGHUP, on_signal, true);
	set_sig(SIGPIPE, SIG_IGN, true);
	note("INFO", "start", "%d CPUs, %s%s, driver at PID namespace level %d", st.ncpus,
	     st.quick ? "quick" : "full", st.faults ? ", faults" : "", st.base_level);
	if (st.faults)
		faults_setup();

	if (!st.debugfs) {
		note("SKIP", "debugfs",
		     "%s absent (a stock kernel): index selection, the self and stats checks are skipped; the tests run once, as index \"host\"",
		     DBG_DIR);
		if (strcmp(want, "all"))
			note("INFO", "debugfs", "--index %s ignored on a stock kernel", want);
		run_one("host");
		goto out;
	}

	if (check_debugfs(names, &n) && !n)
		goto out;
	for (i = 0, found = false; i < n; i++) {
		if (strcmp(want, "all") && strcmp(want, names[i]))
			continue;
		found = true;
		select_and_run(names[i]);
	}
	if (!found)
		report(false, "select", "--index %s: not in %s", want, DBG_AVAILABLE);

	if (orig_index_len) {
		i = write_file(DBG_INDEX, orig_index);
		read_file(DBG_INDEX, now, sizeof(now));
		chomp(now);
		report(!i && !strcmp(now, orig_index), "index-restore",
		       "index back to its value before the run (saw %s, expected %s)", now,
		       orig_index);
	}
out:
	printf("SYSTEST-SUMMARY %d passed, %d failed\n", npass, nfail);
	return nfail || !npass;
}
