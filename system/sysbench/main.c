// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-sysbench: the driver.  It parses the command line, forks the keeper (leader of the
 * process group that every other process of the run joins, and holder of the parked threads
 * of procwalk and kill) and the workers, runs the warmup and the measured phase, tears
 * everything down and prints the one result line.
 *
 * Usage: pidx-sysbench WORKLOAD [ARG] [--seconds S] [--procs N] [--warmup S]
 *        pidx-sysbench --list | --help
 *
 * Bad input exits 2, a failure of the system 1; either way with one line on stderr.
 */
#include "sysbench.h"

#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

#define NSEC		1000000000LL
#define STOP_GRACE_NS	(10 * NSEC)	/* after PH_STOP, workers end their op and exit */

struct bench sb;

static const struct workload workloads[] = {
	{ "threadspawn", NULL, 0, 0, false, false, run_threadspawn,
	  "pthread_create of a thread that returns at once, and pthread_join" },
	{ "fork", NULL, 0, 0, false, false, run_fork,
	  "fork; the child exits at once; waitpid" },
	{ "vfork", NULL, 0, 0, false, false, run_vfork,
	  "vfork; the child exits at once; waitpid" },
	{ "nsfork", "D", 0, 8, false, false, run_nsfork,
	  "fork as above, D PID namespaces deep (each PID has D + 1 numbers)" },
	{ "procwalk", "N", 0, 100000, true, true, run_procwalk,
	  "ps-like walk of /proc/PID/stat, with N threads parked" },
	{ "kill", "N", 1, 100000, true, false, run_kill,
	  "kill(tid, 0) of a random one of N parked threads" },
};

static pid_t workers[MAX_PROCS];
static bool reaped[MAX_PROCS];		/* its pid may be reused: kill it no more */
static volatile sig_atomic_t got_signal;	/* the one thing a handler may set */

static void __noreturn __printf(1, 2) bad_input(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: " PROG_NAME " WORKLOAD [ARG] [--seconds S] [--procs N] [--warmup S]\n"
		"                     [--stats FILE --stats-out OUT]\n"
		"       " PROG_NAME " --list | --help\n\n"
		"  --seconds S  measured duration in seconds, 0 < S <= 3600 (default 1)\n"
		"  --warmup S   unmeasured run before it, 0 <= S <= 3600 (default 0.1)\n"
		"  --procs N    worker processes, 1..%d (default: the CPUs it may run on)\n"
		"  --stats FILE --stats-out OUT\n"
		"               the system kernel's pidx_system/stats, its timing on: zeroed\n"
		"               as the measured phase starts, copied to OUT as it ends\n\n"
		"Workloads:\n", MAX_PROCS);
	for (i = 0; i < ARRAY_SIZE(workloads); i++) {
		const struct workload *wl = &workloads[i];
		char name[32];

		snprintf(name, sizeof(name), "%s%s%s", wl->name, wl->arg_name ? " " : "",
			 wl->arg_name ? wl->arg_name : "");
		fprintf(f, "  %-12s %s", name, wl->help);
		if (wl->arg_name)
			fprintf(f, "; %s in %ld..%ld", wl->arg_name, wl->arg_min, wl->arg_max);
		fputc('\n', f);
	}
	fputs("\nOutput: one line of key=value pairs: workload= ops_per_s= ops= seconds= procs=\n"
	      "[arg=] ns_per_op= ops_min= ops_max= [entries=] [nspid_levels=]\n", f);
}

static double parse_secs(const char *opt, const char *s, bool zero_ok)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || isspace((unsigned char)*s) || *end || errno || !isfinite(v) ||
	    v < 0 || (v == 0 && !zero_ok) || v > 3600)
		bad_input("%s takes seconds, %s and <= 3600, not '%s'", opt,
			  zero_ok ? ">= 0" : "> 0", s);
	return v;
}

/* digits only: no sign, no space, no base prefix */
static long parse_ulong(const char *s, long min, long max, bool *ok)
{
	long v = 0;

	*ok = *s && strlen(s) <= 9;
	for (; *ok && *s; s++) {
		if (!isdigit((unsigned char)*s))
			*ok = false;
		else
			v = v * 10 + (*s - '0');
	}
	*ok = *ok && v >= min && v <= max;
	return v;
}

static int default_procs(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set))
		n = CPU_COUNT(&set);
	else
		n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > MAX_PROCS ? MAX_PROCS : n;
}

static void parse_args(int argc, char **argv)
{
	const char *pos[2], *name, *val;
	int npos = 0, i;
	bool opts_done = false, ok;
	size_t k;

	sb.seconds = 1;
	sb.warmup = 0.1;
	sb.procs = default_procs();
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		/* "-1" is an ARG (refused by its range check), not an option */
		if (opts_done || a[0] != '-' || !a[1] || isdigit((unsigned char)a[1])) {
			if (npos == 2)
				bad_input("unexpected argument '%s'", a);
			pos[npos++] = a;
			continue;
		}
		if (!strcmp(a, "--")) {
			opts_done = true;
			continue;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		}
		if (!strcmp(a, "--list")) {
			for (k = 0; k < ARRAY_SIZE(workloads); k++)
				puts(workloads[k].name);
			exit(0);
		}
		name = a;
		val = strchr(a, '=');
		if (val) {
			name = strndupa(a, val - a);
			val++;
		}
		if (strcmp(name, "--seconds") && strcmp(name, "--warmup") &&
		    strcmp(name, "--procs") && strcmp(name, "--stats") &&
		    strcmp(name, "--stats-out"))
			bad_input("unknown option '%s' (see --help)", name);
		if (!val) {
			if (i + 1 == argc)
				bad_input("option %s needs a value", name);
			val = argv[++i];
		}
		if (!strcmp(name, "--seconds")) {
			sb.seconds = parse_secs(name, val, false);
		} else if (!strcmp(name, "--warmup")) {
			sb.warmup = parse_secs(name, val, true);
		} else if (!strcmp(name, "--stats")) {
			if (!*val)
				bad_input("--stats needs a file");
			sb.stats = val;
		} else if (!strcmp(name, "--stats-out")) {
			if (!*val)
				bad_input("--stats-out needs a file");
			sb.stats_out = val;
		} else {
			sb.procs = parse_ulong(val, 1, MAX_PROCS, &ok);
			if (!ok)
				bad_input("--procs takes an integer in 1..%d, not '%s'",
					  MAX_PROCS, val);
		}
	}

	if (!sb.stats != !sb.stats_out)
		bad_input("--stats and --stats-out go together");
	if (!npos)
		bad_input("no workload given (see --help)");
	for (k = 0; k < ARRAY_SIZE(workloads); k++)
		if (!strcmp(pos[0], workloads[k].name))
			sb.wl = &workloads[k];
	if (!sb.wl)
		bad_input("unknown workload '%s' (see --list)", pos[0]);
	if (!sb.wl->arg_name && npos > 1)
		bad_input("%s takes no argument, got '%s'", sb.wl->name, pos[1]);
	if (sb.wl->arg_name && npos < 2)
		bad_input("%s needs an argument %s in %ld..%ld", sb.wl->name, sb.wl->arg_name,
			  sb.wl->arg_min, sb.wl->arg_max);
	if (sb.wl->arg_name) {
		sb.arg = parse_ulong(pos[1], sb.wl->arg_min, sb.wl->arg_max, &ok);
		if (!ok)
			bad_input("%s: %s must be an integer in %ld..%ld, not '%s'", sb.wl->name,
				  sb.wl->arg_name, sb.wl->arg_min, sb.wl->arg_max, pos[1]);
	}
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC + ts.tv_nsec;
}

static void sleep_to(int64_t t)
{
	struct timespec ts = { .tv_sec = t / NSEC, .tv_nsec = t % NSEC };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/*
 * The group kill reaches every descendant, in child PID namespaces too, and the kernel makes a
 * fork that races with it fail; the explicit kills cover a worker that had not joined the group
 * yet.  Being a subreaper, the driver inherits the orphans of a killed worker and reaps them all.
 */
static void kill_all(void)
{
	int i;

	if (sb.keeper > 0) {
		kill(-sb.keeper, SIGKILL);
		kill(sb.keeper, SIGKILL);
	}
	for (i = 0; i < sb.procs; i++)
		if (workers[i] > 0 && !reaped[i])
			kill(workers[i], SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	sb.keeper = 0;
	memset(workers, 0, sizeof(workers));
}

static void __noreturn __printf(2, 3) sys_fail(int err, const char *fmt, ...)
{
	va_list ap;

	kill_all();
	fputs(PROG_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s", strerror(err));
	fputc('\n', stderr);
	exit(1);
}

/* A worker's (or the keeper's) failure: the first one's message reaches the driver. */
void wfail(int err, const char *fmt, ...)
{
	struct shared *sh = sb.sh;
	int unset = 0, n;
	va_list ap;

	if (__atomic_compare_exchange_n(&sh->failed, &unset, -1, false, __ATOMIC_ACQ_REL,
					__ATOMIC_RELAXED)) {
		va_start(ap, fmt);
		n = vsnprintf(sh->msg, MSG_LEN, fmt, ap);
		va_end(ap);
		if (err && n >= 0 && n < MSG_LEN)
			snprintf(sh->msg + n, MSG_LEN - n, ": %s", strerror(err));
		__atomic_store_n(&sh->failed, 1, __ATOMIC_RELEASE);
	}
	_exit(1);
}

static void __noreturn print_failure(void)
{
	int64_t end = now_ns() + NSEC;

	/* the writer sets failed to -1, writes msg, then 1; wait (boundedly) for the 1 */
	while (__atomic_load_n(&sb.sh->failed, __ATOMIC_ACQUIRE) < 0 && now_ns() < end)
		usleep(1000);
	if (__atomic_load_n(&sb.sh->failed, __ATOMIC_ACQUIRE) < 0)
		sys_fail(0, "a worker failed and did not say why");
	sys_fail(0, "%.*s", MSG_LEN, sb.sh->msg);
}

static const char *who(pid_t pid, char *buf, size_t len)
{
	int i;

	if (pid == sb.keeper)
		return "the keeper";
	for (i = 0; i < sb.procs; i++)
		if (workers[i] == pid)
			break;
	if (i < sb.procs)
		snprintf(buf, len, "worker %d", i);
	else
		snprintf(buf, len, "a worker's child");
	return buf;
}

static void __noreturn child_died(pid_t pid, bool by_signal, int code)
{
	char buf[32];

	if (__atomic_load_n(&sb.sh->failed, __ATOMIC_ACQUIRE))
		print_failure();
	if (by_signal)
		sys_fail(0, "%s (pid %d) was killed by signal %d (%s)", who(pid, buf, sizeof(buf)),
			 pid, code, strsignal(code));
	sys_fail(0, "%s (pid %d) exited early with status %d", who(pid, buf, sizeof(buf)), pid,
		 code);
}

/* Stop at a failure, an exited child (none exits before PH_STOP) or a signal. */
static void check_health(void)
{
	siginfo_t si;
	int sig = got_signal;

	if (sig) {
		kill_all();
		signal(sig, SIG_DFL);
		raise(sig);
		exit(1);
	}
	if (__atomic_load_n(&sb.sh->failed, __ATOMIC_ACQUIRE))
		print_failure();
	si.si_pid = 0;
	if (!waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid)
		child_died(si.si_pid, si.si_code != CLD_EXITED, si.si_status);
}

/* Sleep until t, checking health every 20 ms, so a failed worker ends the run promptly. */
static void run_until(int64_t t)
{
	int64_t now;

	for (;;) {
		check_health();
		now = now_ns();
		if (now >= t)
			return;
		sleep_to(now + 20000000 < t ? now + 20000000 : t);
	}
}

static void wait_count(int *ctr, int target)
{
	for (;;) {
		check_health();
		if (__atomic_load_n(ctr, __ATOMIC_ACQUIRE) >= target)
			return;
		usleep(1000);
	}
}

static void on_signal(int sig)
{
	got_signal = sig;
}

static const int caught_signals[] = { SIGINT, SIGTERM, SIGHUP };

/*
 * In every child: signals back to default (the driver's handlers would only set a flag nobody
 * reads), and death with the parent as a safety net should the driver be killed outright.
 * check_parent: a fork in the driver's namespace, where getppid() tells if it died already.
 */
void child_safety_net(bool check_parent)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(caught_signals); i++)
		signal(caught_signals[i], SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (check_parent && getppid() != sb.parent)
		_exit(1);
}

size_t small_stack(size_t want)
{
	long min = sysconf(_SC_THREAD_STACK_MIN);

	return min > 0 && (size_t)min > want ? (size_t)min : want;
}

void worker_ready_wait(void)
{
	__atomic_add_fetch(&sb.sh->ready, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&sb.sh->phase, __ATOMIC_ACQUIRE) == PH_SETUP)
		syscall(SYS_futex, &sb.sh->phase, FUTEX_WAIT, PH_SETUP, NULL, NULL, 0);
}

static void snapshot(uint64_t *ops)
{
	int i;

	for (i = 0; i < sb.procs; i++)
		ops[i] = __atomic_load_n(&sb.sh->slot[i].ops, __ATOMIC_RELAXED);
}

static void start_children(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	size_t i;
	int w;

	/* an inherited SIG_IGN would have children reaped unseen, and waitpid fail */
	signal(SIGCHLD, SIG_DFL);
	for (i = 0; i < ARRAY_SIZE(caught_signals); i++)
		sigaction(caught_signals[i], &sa, NULL);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		sys_fail(errno, "prctl(PR_SET_CHILD_SUBREAPER)");

	sb.keeper = fork();
	if (sb.keeper < 0)
		sys_fail(errno, "fork (keeper)");
	if (!sb.keeper) {
		sb.keeper = getpid();
		if (setpgid(0, 0))
			wfail(errno, "setpgid (keeper)");
		child_safety_net(true);
		keeper_main();
	}
	/* both sides set the group, so it exists whichever runs first */
	setpgid(sb.keeper, sb.keeper);
	if (sb.wl->parks)
		wait_count(&sb.sh->parked, sb.arg);

	for (w = 0; w < sb.procs; w++) {
		pid_t pid = fork();

		if (pid < 0)
			sys_fail(errno, "fork (worker %d of %d)", w, sb.procs);
		if (!pid) {
			if (setpgid(0, sb.keeper))
				wfail(errno, "setpgid (worker %d)", w);
			child_safety_net(true);
			sb.wl->run(w);
			_exit(0);
		}
		setpgid(pid, sb.keeper);
		workers[w] = pid;
	}
	wait_count(&sb.sh->ready, sb.procs);
}

/* PH_STOP is set: let the workers finish their op and exit, then kill whatever is left. */
static void stop_children(void)
{
	int64_t end = now_ns() + STOP_GRACE_NS;
	int left = sb.procs, w, st;
	pid_t bad = 0;
	int bad_st = 0;

	while (left) {
		for (w = 0; w < sb.procs; w++) {
			if (reaped[w] || waitpid(workers[w], &st, WNOHANG) != workers[w])
				continue;
			if (!bad && !(WIFEXITED(st) && !WEXITSTATUS(st))) {
				bad = workers[w];
				bad_st = st;
			}
			reaped[w] = true;
			left--;
		}
		if (!left || got_signal || now_ns() > end)
			break;
		usleep(1000);
	}
	if (got_signal)
		check_health();
	if (__atomic_load_n(&sb.sh->failed, __ATOMIC_ACQUIRE))
		print_failure();
	if (bad)
		child_died(bad, WIFSIGNALED(bad_st),
			   WIFSIGNALED(bad_st) ? WTERMSIG(bad_st) : WEXITSTATUS(bad_st));
	if (left)
		sys_fail(0, "%d of %d workers did not stop within %lld s", left, sb.procs,
			 STOP_GRACE_NS / NSEC);
	kill_all();
}

/* --stats: its counts zeroed, a failure naming the file */
static void stats_zero(void)
{
	int fd;

	if (!sb.stats)
		return;
	fd = open(sb.stats, O_WRONLY);
	if (fd < 0)
		sys_fail(errno, "open %s", sb.stats);
	if (write(fd, "0", 1) != 1)
		sys_fail(errno, "write '0' to %s", sb.stats);
	close(fd);
}

/* --stats: its text as the measured phase ends, into --stats-out */
static void stats_copy(void)
{
	char buf[8192];
	ssize_t n, len = 0;
	int in, out;

	if (!sb.stats)
		return;
	in = open(sb.stats, O_RDONLY);
	if (in < 0)
		sys_fail(errno, "open %s", sb.stats);
	while ((n = read(in, buf + len, sizeof(buf) - len)) > 0)
		len += n;
	if (n < 0)
		sys_fail(errno, "read %s", sb.stats);
	close(in);
	out = open(sb.stats_out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		sys_fail(errno, "open %s", sb.stats_out);
	if (write(out, buf, len) != len)
		sys_fail(errno, "write %s", sb.stats_out);
	close(out);
}

int main(int argc, char **argv)
{
	static uint64_t ops0[MAX_PROCS], ops1[MAX_PROCS];
	uint64_t ops = 0, lo = UINT64_MAX, hi = 0, d;
	int64_t t0, t1;
	double secs;
	int w;

	parse_args(argc, argv);
	sb.parent = getpid();

	sb.sh = mmap(NULL, sizeof(*sb.sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (sb.sh == MAP_FAILED)
		sys_fail(errno, "mmap (shared page)");
	if (sb.wl->parks && sb.arg) {
		sb.tids = mmap(NULL, sb.arg * sizeof(pid_t), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (sb.tids == MAP_FAILED)
			sys_fail(errno, "mmap (%ld tids)", sb.arg);
	}

	start_children();
	__atomic_store_n(&sb.sh->phase, PH_RUN, __ATOMIC_RELEASE);
	syscall(SYS_futex, &sb.sh->phase, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	if (sb.warmup > 0)
		run_until(now_ns() + (int64_t)(sb.warmup * NSEC));

	/*
	 * The kernel's index counts cover the measured phase alone: not the parked threads'
	 * creation, the workers' start or their teardown, whose PIDs are no operation's.  The
	 * caller turns the timing on and off while nothing runs: the switch patches code (a
	 * static key), and QEMU's multi-threaded TCG before 8.1 can run a stale int3 of such
	 * a patch on another vCPU, which then oopses.
	 */
	stats_zero();
	t0 = now_ns();
	snapshot(ops0);
	run_until(t0 + (int64_t)(sb.seconds * NSEC));
	t1 = now_ns();
	snapshot(ops1);
	stats_copy();
	__atomic_store_n(&sb.sh->phase, PH_STOP, __ATOMIC_RELEASE);
	stop_children();

	for (w = 0; w < sb.procs; w++) {
		d = ops1[w] - ops0[w];
		ops += d;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	secs = (double)(t1 - t0) / NSEC;
	/* a rate of nothing is no measurement */
	if (!ops)
		sys_fail(0, "no operation completed in %.6f s (a longer --seconds?)", secs);
	printf("workload=%s ops_per_s=%.1f ops=%llu seconds=%.6f procs=%d", sb.wl->name,
	       ops / secs, (unsigned long long)ops, secs, sb.procs);
	if (sb.wl->arg_name)
		printf(" arg=%ld", sb.arg);
	if (ops)
		printf(" ns_per_op=%.1f", secs * 1e9 * sb.procs / ops);
	else
		printf(" ns_per_op=inf");
	printf(" ops_min=%llu ops_max=%llu", (unsigned long long)lo, (unsigned long long)hi);
	if (sb.wl->entries)
		printf(" entries=%llu", (unsigned long long)sb.sh->slot[0].entries);
	if (sb.wl->run == run_nsfork)
		printf(" nspid_levels=%llu", (unsigned long long)sb.sh->slot[0].nspid);
	putchar('\n');
	if (fflush(stdout) || ferror(stdout))
		sys_fail(errno, "writing the result");
	return 0;
}
