// SPDX-License-Identifier: GPL-2.0
/*
 * pidx-sysbench: the workloads that look PIDs up (find_pid_ns, find_ge_pid) among a crowd of
 * parked threads, procwalk and kill, and the keeper process that parks those threads.
 */
#include "sysbench.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>

/* a parked thread only stores its tid and sleeps; the minimum stack is plenty */
#define PARK_STACK	(16 * 1024)

static void *park(void *arg)
{
	long i = (long)arg;

	sb.tids[i] = gettid();
	__atomic_add_fetch(&sb.sh->parked, 1, __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/*
 * The keeper leads the run's process group, so it must live until the driver kills the group;
 * for procwalk and kill it also holds the parked threads.  Their stacks are slices of one
 * mapping: a mapping (and guard page) each would cost two VMAs a thread, and 100000 threads
 * would pass the default vm.max_map_count of 65530.
 */
void keeper_main(void)
{
	size_t sz = small_stack(PARK_STACK);
	pthread_attr_t attr;
	char *stacks;
	pthread_t t;
	long i;
	int err;

	if (sb.wl->parks && sb.arg) {
		stacks = mmap(NULL, sb.arg * sz, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
		if (stacks == MAP_FAILED)
			wfail(errno, "mmap (stacks of %ld parked threads)", sb.arg);
		err = pthread_attr_init(&attr);
		if (err)
			wfail(err, "pthread_attr_init");
		for (i = 0; i < sb.arg; i++) {
			err = pthread_attr_setstack(&attr, stacks + i * sz, sz);
			if (!err)
				err = pthread_create(&t, &attr, park, (void *)i);
			if (err)
				wfail(err, "pthread_create (parked thread %ld of %ld)", i + 1,
				      sb.arg);
		}
	}
	for (;;)
		pause();
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * One ps-like walk.  /proc lists processes only, but its readdir steps over every thread's
 * number with find_ge_pid, so the parked threads make each walk do N more lookups without
 * adding entries; each stat open then finds its PID with find_pid_ns.  A process that ends
 * during the walk is no failure: its entry just vanishes (ENOENT, ESRCH).
 */
static uint64_t walk(void)
{
	struct dirent *e;
	char path[sizeof(e->d_name) + sizeof("/stat")], buf[1024];
	uint64_t seen = 0;
	ssize_t r;
	DIR *d;
	int fd;

	d = opendir("/proc");
	if (!d)
		wfail(errno, "opendir(/proc)");
	for (;;) {
		errno = 0;
		e = readdir(d);
		if (!e) {
			if (errno)
				wfail(errno, "readdir(/proc)");
			break;
		}
		if (!all_digits(e->d_name))
			continue;
		seen++;
		snprintf(path, sizeof(path), "%s/stat", e->d_name);
		/* relative to /proc's fd: the path walk of "/proc" is no PID work */
		fd = openat(dirfd(d), path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT || errno == ESRCH)
				continue;
			wfail(errno, "open(/proc/%s)", path);
		}
		r = read(fd, buf, sizeof(buf));
		if (r < 0 && errno != ESRCH && errno != ENOENT)
			wfail(errno, "read(/proc/%s)", path);
		close(fd);
	}
	closedir(d);
	return seen;
}

void run_procwalk(int w)
{
	uint64_t seen;

	worker_ready_wait();
	while (running()) {
		seen = walk();
		__atomic_store_n(&sb.sh->slot[w].entries, seen, __ATOMIC_RELAXED);
		count_op(w);
	}
}

/* kill(tid, 0) finds the thread's pid in the index and checks permission; it signals nobody */
void run_kill(int w)
{
	uint32_t x = 2463534242u ^ (uint32_t)(w * 0x9e3779b9u);
	pid_t tid;

	if (!x)
		x = 1;
	worker_ready_wait();
	while (running()) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		tid = sb.tids[x % sb.arg];
		if (kill(tid, 0))
			wfail(errno, "kill(%d, 0)", tid);
		count_op(w);
	}
}
