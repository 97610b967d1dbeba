// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-systest: result lines, file and /proc helpers, pid_max save/restore, debugfs parsing.
 */
#include "systest.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>

struct systest st = { .result_fd = -1, .hostproc_fd = -1 };

/*
 * Lines go to the driver through a pipe, so each is built whole and written with one write(2):
 * under PIPE_BUF that is atomic, and lines from concurrent processes cannot interleave.
 */
static void emit(const char *tag, const char *check, const char *fmt, va_list ap)
{
	char line[LINE_LEN];
	size_t n;
	int r;

	if (st.index)
		r = snprintf(line, sizeof(line), "%s systest %s/%s: ", tag, st.index, check);
	else
		r = snprintf(line, sizeof(line), "%s systest %s: ", tag, check);
	n = r < 0 ? 0 : (size_t)r;
	if (n < sizeof(line)) {
		r = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		n += r < 0 ? 0 : (size_t)r;
	}
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	line[n] = '\0';

	if (st.result_fd < 0) {
		driver_line(line);
		return;
	}
	while (write(st.result_fd, line, n) < 0 && errno == EINTR)
		;
}

int report(bool pass, const char *check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(pass ? "PASS" : "FAIL", check, fmt, ap);
	va_end(ap);
	return pass ? 0 : 1;
}

void note(const char *tag, const char *check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(tag, check, fmt, ap);
	va_end(ap);
}

ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;
	int fd, err;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got < len - 1) {
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = errno;
			close(fd);
			return -err;
		}
		if (r == 0)
			break;
		got += r;
	}
	buf[got] = '\0';
	close(fd);
	return got;
}

ssize_t read_file(const char *path, char *buf, size_t len)
{
	return read_file_at(AT_FDCWD, path, buf, len);
}

/* One write(2) of the whole string: sysctl and debugfs handlers take the value in one go. */
int write_file(const char *path, const char *s)
{
	ssize_t r;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		r = write(fd, s, strlen(s));
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		err = -errno;
	else if ((size_t)r != strlen(s))
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

long long read_ll(const char *path)
{
	char buf[64];

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* A number is free in the caller's namespace when nothing has it: kill(nr, 0) says ESRCH. */
bool pid_is_free(pid_t nr)
{
	return kill(nr, 0) < 0 && errno == ESRCH;
}

/*
 * First nr >= @prefer (wrapping to RESERVED_PIDS + 1) with nr .. nr + count - 1 all free and
 * below this namespace's pid_max, so a test can place its children on known numbers.
 */
pid_t find_free_run(pid_t prefer, int count)
{
	long long max = read_ll(PID_MAX_PATH);
	pid_t nr, i, tries;

	if (max <= RESERVED_PIDS + count)
		return -1;
	nr = prefer;
	for (tries = 0; tries < 64; tries++) {
		if (nr <= RESERVED_PIDS || nr + count >= max)
			nr = RESERVED_PIDS + 1;
		for (i = 0; i < count; i++)
			if (!pid_is_free(nr + i))
				break;
		if (i == count)
			return nr;
		nr += i + 1 + count;
	}
	return -1;
}

/* The numbers of the "NSpid:" line of a /proc/PID/status text, outermost first. */
int nspid_parse(const char *status, long *out, int max)
{
	const char *p = strstr(status, "\nNSpid:");
	char *end;
	int n = 0;

	if (!p)
		return -1;
	p += strlen("\nNSpid:");
	while (n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9')
			break;
		out[n++] = strtol(p, &end, 10);
		p = end;
	}
	return n;
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

pid_t wait_pid(pid_t pid, int *status)
{
	pid_t r;

	do {
		r = waitpid(pid, status, __WALL);
	} while (r < 0 && errno == EINTR);
	return r;
}

/* Child reaping that cannot hang the driver: a stuck namespace is reported, not waited for. */
pid_t wait_bounded(pid_t pid, int *status, double secs)
{
	double t0 = now_s();
	pid_t r;

	do {
		r = waitpid(pid, status, WNOHANG | __WALL);
		if (r != 0)
			return r;
		usleep(20000);
	} while (now_s() - t0 < secs);
	return 0;
}

/* Every path that made children ends here: SIGKILL them all, then reap each one. */
void kill_reap(const pid_t *pids, int n)
{
	int i, status;

	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++)
		if (pids[i] > 0)
			wait_pid(pids[i], &status);
}

void set_sig(int sig, void (*fn)(int), bool restart)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

/*
 * pid_max is global in 6.1 (per namespace only from 6.14), and the whole machine stops forking
 * while it is 301, so the value is kept as text ready for a signal handler to write back.
 */
static char pidmax_text[32];
static size_t pidmax_len;

int pidmax_save(void)
{
	char buf[32];
	ssize_t n = read_file(PID_MAX_PATH, buf, sizeof(buf));

	if (n <= 0)
		return n < 0 ? (int)n : -EIO;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	memcpy(pidmax_text, buf, n + 1);
	pidmax_len = n;
	return 0;
}

long pidmax_saved(void)
{
	return pidmax_len ? strtol(pidmax_text, NULL, 10) : -1;
}

void pidmax_restore(void)
{
	int fd, saved = errno;

	if (!pidmax_len)
		return;
	fd = open(PID_MAX_PATH, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, pidmax_text, pidmax_len) < 0)
			saved = errno;
		close(fd);
	}
	errno = saved;
}

/* "index=NAME level=N": the reading task's namespace. */
int read_self(char *index, size_t len, int *level)
{
	char buf[256], name[NAME_LEN];
	ssize_t n = read_file(DBG_SELF, buf, sizeof(buf));

	if (n < 0)
		return n;
	if (sscanf(buf, "index=%63s level=%d", name, level) != 2)
		return -EINVAL;
	snprintf(index, len, "%s", name);
	return 0;
}

/* Value of "key=" among the space-separated words of one line, or NULL. */
static const char *kv(const char *line, const char *end, const char *key)
{
	size_t kl = strlen(key);
	const char *p = line;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) > kl && !strncmp(p, key, kl) && p[kl] == '=')
			return p + kl + 1;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
	}
	return NULL;
}

/*
 * The first line gives timing= and pidx_mem_bytes=, then one line per index.  Keys are looked up
 * by name and unknown ones ignored, so the kernel side may add counters.
 */
int read_stats(const char *index, struct pidx_stats *s)
{
	static char buf[16384];
	char *line, *end;
	const char *v;
	ssize_t n;
	size_t il = strlen(index);

	s->timing = -1;
	s->mem = -1;
	s->namespaces = -1;
	n = read_file(DBG_STATS, buf, sizeof(buf));
	if (n < 0)
		return n;
	for (line = buf; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (line == buf) {
			/* the totals are on the first line only */
			v = kv(line, end, "timing");
			if (v)
				s->timing = !strncmp(v, "on", 2);
			v = kv(line, end, "pidx_mem_bytes");
			if (v)
				s->mem = strtoll(v, NULL, 10);
			continue;
		}
		v = kv(line, end, "index");
		if (v && !strncmp(v, index, il) &&
		    (v + il == end || v[il] == ' ' || v[il] == '\t')) {
			v = kv(line, end, "namespaces");
			if (v)
				s->namespaces = strtoll(v, NULL, 10);
		}
	}
	return s->mem < 0 ? -EINVAL : 0;
}

/*
 * Namespaces of earlier tests are torn down after an RCU grace period and a work item, so a
 * baseline is taken only once the numbers have stayed put for a second.  Returns 0 when settled.
 */
int settle_stats(const char *index, struct pidx_stats *s, double max_s)
{
	struct pidx_stats prev;
	double t0 = now_s();
	int same = 0;

	if (read_stats(index, &prev))
		return -1;
	while (now_s() - t0 < max_s) {
		usleep(100000);
		if (read_stats(index, s))
			return -1;
		if (s->namespaces == prev.namespaces && s->mem == prev.mem) {
			if (++same >= 10)
				return 0;
		} else {
			same = 0;
		}
		prev = *s;
	}
	return 1;
}

/* lfradix's leaf: LFR_SLOTS numbers */
#define FILL_WORD	64

/* 1 if none of the caller's numbers (NSpid, as the driver's /proc shows it) begins a word. */
static char mid_word(void)
{
	char buf[4096];
	long nspid[64];
	int n, i;

	n = read_file_at(st.hostproc_fd, "self/status", buf, sizeof(buf)) > 0 ?
	    nspid_parse(buf, nspid, 64) : -1;
	for (i = 0; i < n; i++)
		if (!(nspid[i] % FILL_WORD))
			return '0';
	return '1';
}

/* On @cpu: children kept alive until one's numbers are all mid-word; then none. */
static void __noreturn fill_cpu(int cpu)
{
	pid_t kids[8];
	cpu_set_t set;
	int p[2], n;
	char ok = '0';

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || pipe(p))
		_exit(1);
	for (n = 0; n < (int)ARRAY_SIZE(kids) && ok != '1'; ) {
		kids[n] = fork();
		if (kids[n] == 0) {
			ok = mid_word();
			if (write(p[1], &ok, 1) < 0)
				_exit(1);
			for (;;)
				pause();
		}
		if (kids[n++] < 0 || read(p[0], &ok, 1) != 1)
			break;
	}
	kill_reap(kids, n);
	_exit(0);
}

/*
 * Forks on each CPU that leave its per-CPU cache full: lfradix keeps a spare leaf for each CPU,
 * which a fork on that CPU refills before it takes a number and uses up when the number's word
 * (FILL_WORD numbers, a leaf) has no leaf yet.  A fork whose numbers all follow a live child's
 * in the same word finds the leaf there, and leaves the spare full.
 */
static void fork_each_cpu(void)
{
	pid_t pids[CPU_SETSIZE];
	int i, status;

	for (i = 0; i < st.ncpus; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			fill_cpu(st.cpus[i]);
	}
	while (i-- > 0)
		if (pids[i] > 0)
			wait_pid(pids[i], &status);
}

/*
 * Before a baseline of pidx_mem_bytes, which counts the initial namespace's index as well when
 * that is not the IDR.  A namespace's index is destroyed in a work item that waits for grace
 * periods, so frees that come together make the workqueue start kworkers, which then stay idle
 * for minutes, each with a number (and memory) in that index: @n namespaces freed at once start
 * them now.  Then forks on each CPU (fork_each_cpu()).  Returns 0 once the namespaces of
 * @index are back to their count from before, 1 if they are not within 20 s, or -errno.
 */
int stats_warmup(const char *index, int n)
{
	pid_t pids[NS_BURST_MAX], init;
	int go[2], rd[2], i, j, status;
	struct pidx_stats s0;
	char c;

	if (!st.debugfs)
		return 0;
	if (read_stats(index, &s0))
		return -EIO;
	if (pipe(go))
		return -errno;
	if (pipe(rd)) {
		close(go[0]);
		close(go[1]);
		return -errno;
	}
	for (i = 0; i < n && i < NS_BURST_MAX; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			close(go[1]);
			close(rd[0]);
			init = unshare(CLONE_NEWPID) ? -1 : fork();
			if (init == 0)
				_exit(0);
			if (init > 0)
				wait_pid(init, &status);
			/* ready; then all exit, and free their namespaces, together */
			if (write(rd[1], "r", 1) < 0)
				_exit(1);
			while (read(go[0], &c, 1) < 0 && errno == EINTR)
				;
			_exit(0);
		}
		if (pids[i] < 0)
			break;
	}
	close(rd[1]);
	close(go[0]);
	for (j = 0; j < i && read(rd[0], &c, 1) == 1; j++)
		;
	close(rd[0]);
	close(go[1]);
	for (j = 0; j < i; j++)
		wait_pid(pids[j], &status);
	i = wait_namespaces(index, s0.namespaces, 20);
	if (!i)
		fork_each_cpu();
	return i;
}

/* 0 once @index has at most @count namespaces, 1 if not within @max_s, -EIO. */
int wait_namespaces(const char *index, long long count, double max_s)
{
	struct pidx_stats s;
	double t0;

	for (t0 = now_s(); now_s() - t0 < max_s; usleep(50000)) {
		if (read_stats(index, &s))
			return -EIO;
		if (s.namespaces <= count)
			return 0;
	}
	return 1;
}

/* The driver's /proc as a directory stream of its own, or NULL. */
static DIR *hostproc_dir(void)
{
	int fd = openat(st.hostproc_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d && fd >= 0)
		close(fd);
	return d;
}

/*
 * SIGKILLs every process that the driver's /proc shows in session @sid, or, with @marked, with
 * make-it-fail set.  Returns how many it found.
 */
int kill_strays(pid_t sid, bool marked)
{
	char path[64], buf[512], *p;
	struct dirent *de;
	int n = 0, sess;
	long pid;
	DIR *d;

	d = hostproc_dir();
	if (!d)
		return kill(-sid, SIGKILL) ? 0 : 1;
	while ((de = readdir(d))) {
		pid = strtol(de->d_name, &p, 10);
		if (*p || pid <= 1 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "%ld/stat", pid);
		if (read_file_at(st.hostproc_fd, path, buf, sizeof(buf)) <= 0)
			continue;
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %*d %*d %d", &sess) != 1)
			continue;
		if (sess != sid && marked) {
			snprintf(path, sizeof(path), "%ld/make-it-fail", pid);
			if (read_file_at(st.hostproc_fd, path, buf, sizeof(buf)) <= 0 ||
			    buf[0] != '1')
				continue;
		} else if (sess != sid) {
			continue;
		}
		kill(pid, SIGKILL);
		n++;
	}
	closedir(d);
	return n;
}

static int cmp_pid(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* The numbers in the driver's /proc, sorted; how many, or -1. */
int snap_pids(long *out, int max)
{
	struct dirent *de;
	int n = 0;
	char *end;
	long pid;
	DIR *d;

	d = hostproc_dir();
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < max) {
		pid = strtol(de->d_name, &end, 10);
		if (!*end && pid > 0)
			out[n++] = pid;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), cmp_pid);
	return n;
}

/*
 * For a FAIL of a memory bound: the tasks there now that were not in @old (kernel threads
 * started meanwhile hold numbers, and memory, in the initial namespace's index).
 */
void new_tasks(const long *old, int n, char *out, size_t len)
{
	static long now[SNAP_MAX];
	char path[64], comm[32];
	int m, i, k = 0;
	size_t used;

	m = n < 0 ? -1 : snap_pids(now, SNAP_MAX);
	if (m < 0) {
		snprintf(out, len, "no task list");
		return;
	}
	used = snprintf(out, len, "tasks new since the baseline:");
	for (i = 0; i < m && used < len; i++) {
		if (bsearch(&now[i], old, n, sizeof(*old), cmp_pid))
			continue;
		if (++k > 6)
			continue;
		snprintf(path, sizeof(path), "%ld/comm", now[i]);
		if (read_file_at(st.hostproc_fd, path, comm, sizeof(comm)) <= 0)
			comm[0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		used += snprintf(out + used, len - used, " %ld %s", now[i], comm);
	}
	if (used < len)
		snprintf(out + used, len - used, k > 6 ? " ... (%d in all)" : k ? "" : " none", k);
}
