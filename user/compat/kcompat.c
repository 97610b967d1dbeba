// SPDX-License-Identifier: GPL-2.0
/*
 * pidx user-space compat, run time: printk with the kernel's %pV, per-CPU
 * units, the spinlock slow path, mutexes, static key patching, the
 * workqueue, ktime, bitmaps, sort, and start-up (kc_init(): per-CPU data,
 * slab, radix_tree_init(), maple_tree_init(), as the kernel's boot runs
 * them).  See compat/include/kc_base.h.
 */
#include <ctype.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>

#include <linux/kernel.h>
#include <linux/bitmap.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/ktime.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/radix-tree.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "kcompat.h"

unsigned long kc_err_messages;
__thread int kc_preempt_count;
__thread int kc_cpu = -1;
__thread unsigned long kc_this_cpu_off;
unsigned int nr_cpu_ids;
unsigned long __per_cpu_offset[NR_CPUS];

/* ------------------------------------------------------------ printk */

struct kc_out {
	char *buf;
	size_t size;
	size_t len;	/* what would have been written */
};

static void kc_emit(struct kc_out *o, const char *s, size_t n)
{
	if (o->len < o->size) {
		size_t room = o->size - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len += n;
}

static void kc_vformat(struct kc_out *o, const char *fmt, va_list *ap);

/* One conversion of glibc's, its arguments fetched by type. */
static void kc_one(struct kc_out *o, const char *spec, size_t slen, int stars,
		   char lmod, char conv, va_list *ap)
{
	char one[48], tmp[512];
	int a[2] = { 0, 0 }, i, n;

	if (slen >= sizeof(one))
		slen = sizeof(one) - 1;
	memcpy(one, spec, slen);
	one[slen] = 0;
	for (i = 0; i < stars; i++)
		a[i] = va_arg(*ap, int);
#define KC_PRINT(val) (stars == 2 ? snprintf(tmp, sizeof(tmp), one, a[0], a[1], val) : \
		       stars == 1 ? snprintf(tmp, sizeof(tmp), one, a[0], val) :	\
		       snprintf(tmp, sizeof(tmp), one, val))
	switch (conv) {
	case 'd': case 'i':
		if (lmod == 'l' || lmod == 'z' || lmod == 't' || lmod == 'j')
			n = KC_PRINT(va_arg(*ap, long));
		else if (lmod == 'L')
			n = KC_PRINT(va_arg(*ap, long long));
		else
			n = KC_PRINT(va_arg(*ap, int));
		break;
	case 'u': case 'o': case 'x': case 'X': case 'c':
		if (lmod == 'l' || lmod == 'z' || lmod == 't' || lmod == 'j')
			n = KC_PRINT(va_arg(*ap, unsigned long));
		else if (lmod == 'L')
			n = KC_PRINT(va_arg(*ap, unsigned long long));
		else
			n = KC_PRINT(va_arg(*ap, unsigned int));
		break;
	case 's':
		n = KC_PRINT(va_arg(*ap, const char *));
		break;
	case 'p':
		n = KC_PRINT(va_arg(*ap, void *));
		break;
	default:	/* no floating point in the kernel */
		n = snprintf(tmp, sizeof(tmp), "<%%%c?>", conv);
		break;
	}
#undef KC_PRINT
	if (n > 0)
		kc_emit(o, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void kc_vformat(struct kc_out *o, const char *fmt, va_list *ap)
{
	const char *p = fmt, *start;
	int stars;
	char lmod;

	while (*p) {
		if (*p != '%') {
			start = p;
			while (*p && *p != '%')
				p++;
			kc_emit(o, start, p - start);
			continue;
		}
		start = p++;
		if (*p == '%') {
			kc_emit(o, "%", 1);
			p++;
			continue;
		}
		stars = 0;
		while (*p && strchr("-+ #0", *p))
			p++;
		if (*p == '*') {
			stars++;
			p++;
		}
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '.') {
			p++;
			if (*p == '*') {
				stars++;
				p++;
			}
			while (isdigit((unsigned char)*p))
				p++;
		}
		lmod = 0;
		if (*p == 'h') {
			lmod = 'h';
			while (*p == 'h')
				p++;
		} else if (*p == 'l') {
			lmod = 'l';
			if (*++p == 'l') {
				lmod = 'L';
				p++;
			}
		} else if (*p == 'z' || *p == 't' || *p == 'j') {
			lmod = *p++;
		}
		if (!*p)
			break;
		if (*p == 'p' && p[1] == 'V') {
			/* the kernel's %pV: a struct va_format, printed in place */
			struct va_format *vaf = va_arg(*ap, struct va_format *);
			va_list inner;

			va_copy(inner, *vaf->va);
			kc_vformat(o, vaf->fmt, &inner);
			va_end(inner);
			p += 2;
			continue;
		}
		p++;
		kc_one(o, start, p - start, stars, lmod, p[-1], ap);
	}
}

int vscnprintf(char *buf, size_t size, const char *fmt, va_list args)
{
	struct kc_out o = { .buf = buf, .size = size };
	va_list ap;

	if (!size)
		return 0;
	va_copy(ap, args);
	kc_vformat(&o, fmt, &ap);
	va_end(ap);
	if (o.len >= size)
		o.len = size - 1;
	buf[o.len] = 0;
	return o.len;
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list args;
	int n;

	va_start(args, fmt);
	n = vscnprintf(buf, size, fmt, args);
	va_end(args);
	return n;
}

/* Messages go to stderr, one line at a time, and are counted. */
int printk(const char *fmt, ...)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	char line[1024];
	va_list args;
	int n;

	va_start(args, fmt);
	n = vscnprintf(line, sizeof(line), fmt, args);
	va_end(args);
	pthread_mutex_lock(&lock);
	kc_err_messages++;
	fputs(line, stderr);
	pthread_mutex_unlock(&lock);
	return n;
}

void kc_bug(const char *file, int line, const char *what)
{
	fprintf(stderr, "pidx-user: BUG at %s:%d: %s\n", file, line, what);
	abort();
}

void kc_warn(const char *file, int line, const char *what)
{
	printk("WARNING: %s:%d: %s\n", file, line, what);
}

/* ------------------------------------------------------------ per-CPU units */

/*
 * The section holds the static per-CPU variables and, after them, the room
 * alloc_percpu() takes from; each CPU's unit is a copy of it.
 */
#define KC_PCPU_DYN_SIZE	(256 * 1024)
#define KC_PCPU_DYN_CHUNK	64
static char kc_pcpu_dyn[KC_PCPU_DYN_SIZE] __section(KC_PERCPU_SECTION) __aligned(4096);
extern char __start_kc_percpu[], __stop_kc_percpu[];
static unsigned char kc_pcpu_used[KC_PCPU_DYN_SIZE / KC_PCPU_DYN_CHUNK];
static DEFINE_SPINLOCK(kc_pcpu_lock);

static void kc_percpu_init(void)
{
	size_t size = __stop_kc_percpu - __start_kc_percpu;
	size_t unit = ALIGN(size, 2UL << 20);
	unsigned int cpu;
	char *base;

	base = mmap(NULL, unit * nr_cpu_ids, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		kc_bug(__FILE__, __LINE__, "no memory for the per-CPU units");
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		memcpy(base + cpu * unit, __start_kc_percpu, size);
		__per_cpu_offset[cpu] = (unsigned long)(base + cpu * unit) -
					(unsigned long)__start_kc_percpu;
	}
}

void __percpu *__alloc_percpu(size_t size, size_t align)
{
	size_t n = DIV_ROUND_UP(size, KC_PCPU_DYN_CHUNK), i, j;
	unsigned int cpu;
	void *p = NULL;

	if (!size || align > KC_PCPU_DYN_CHUNK)
		return NULL;
	spin_lock(&kc_pcpu_lock);
	for (i = 0; i + n <= ARRAY_SIZE(kc_pcpu_used); i++) {
		for (j = 0; j < n && !kc_pcpu_used[i + j]; j++)
			;
		if (j == n) {
			kc_pcpu_used[i] = 2;	/* the first chunk of an area */
			for (j = 1; j < n; j++)
				kc_pcpu_used[i + j] = 1;
			p = kc_pcpu_dyn + i * KC_PCPU_DYN_CHUNK;
			break;
		}
	}
	spin_unlock(&kc_pcpu_lock);
	if (p) {
		/* alloc_percpu() memory is zeroed, the CPU-less threads' copy too */
		memset(p, 0, size);
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(p, cpu), 0, size);
	}
	return (void __percpu *)p;
}

void free_percpu(void __percpu *ptr)
{
	size_t i;

	if (!ptr)
		return;
	i = ((char *)ptr - kc_pcpu_dyn) / KC_PCPU_DYN_CHUNK;
	spin_lock(&kc_pcpu_lock);
	if (kc_pcpu_used[i] != 2)
		kc_bug(__FILE__, __LINE__, "free_percpu() of no area");
	kc_pcpu_used[i++] = 0;
	while (i < ARRAY_SIZE(kc_pcpu_used) && kc_pcpu_used[i] == 1)
		kc_pcpu_used[i++] = 0;
	spin_unlock(&kc_pcpu_lock);
}

void kc_set_cpu(int cpu)
{
	kc_cpu = cpu;
	kc_this_cpu_off = cpu >= 0 ? __per_cpu_offset[cpu] : 0;
}

/* ------------------------------------------------------------ locks */

/*
 * Waiters spin on the word.  A kernel lock holder cannot be preempted; a
 * thread here can, by anything else on the machine (on a VM, by the host:
 * nothing inside the guest prevents it), and spinning on for the rest of a
 * time slice would then measure the scheduler: after KC_SPIN_LONG pauses (a
 * few hundred microseconds, where every critical section of the indexes
 * takes well under one) a waiter yields its CPU between rounds, and the
 * acquisition is counted in kc_long_spins, once, so the row says that its
 * time holds a preempted holder.
 */
unsigned long kc_long_spins;

void kc_spin_lock_slowpath(spinlock_t *lock)
{
	unsigned int spins = 0;
	u32 val;

	for (;;) {
		while (READ_ONCE(lock->val)) {
			cpu_relax();
			if (++spins % KC_SPIN_LONG)
				continue;
			if (spins == KC_SPIN_LONG)
				__atomic_fetch_add(&kc_long_spins, 1, __ATOMIC_RELAXED);
			sched_yield();
		}
		val = 0;
		if (__atomic_compare_exchange_n(&lock->val, &val, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return;
	}
}

static long kc_futex(int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Drepper's three-state futex mutex ("Futexes Are Tricky", mutex 2). */
void mutex_lock(struct mutex *m)
{
	int c = 0;

	if (__atomic_compare_exchange_n(&m->state, &c, 1, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	if (c != 2)
		c = __atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE);
	while (c) {
		kc_futex(&m->state, FUTEX_WAIT_PRIVATE, 2);
		c = __atomic_exchange_n(&m->state, 2, __ATOMIC_ACQUIRE);
	}
}

int mutex_trylock(struct mutex *m)
{
	int c = 0;

	return __atomic_compare_exchange_n(&m->state, &c, 1, false,
					   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void mutex_unlock(struct mutex *m)
{
	if (__atomic_fetch_sub(&m->state, 1, __ATOMIC_RELEASE) != 1) {
		__atomic_store_n(&m->state, 0, __ATOMIC_RELEASE);
		kc_futex(&m->state, FUTEX_WAKE_PRIVATE, 1);
	}
}

/* ------------------------------------------------------------ static keys */

/* weak: a program with no static branch has no such section */
extern struct jump_entry __start___jump_table[] __weak, __stop___jump_table[] __weak;

/* arch/x86/kernel/jump_label.c: a 5-byte nop or a jmp rel32 at the site */
static void kc_jump_label_patch(struct jump_entry *e, bool jump)
{
	static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	unsigned long page = e->code & ~(PAGE_SIZE - 1);
	u8 code[5];
	s32 rel;

	if (jump) {
		rel = (s32)(e->target - (e->code + 5));
		code[0] = 0xe9;
		memcpy(code + 1, &rel, sizeof(rel));
	} else {
		memcpy(code, nop5, sizeof(nop5));
	}
	if (!memcmp((void *)e->code, code, sizeof(code)))
		return;
	if (mprotect((void *)page, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC))
		kc_bug(__FILE__, __LINE__, "mprotect() of a static key site failed");
	memcpy((void *)e->code, code, sizeof(code));
	__builtin___clear_cache((char *)e->code, (char *)e->code + 5);
	mprotect((void *)page, 2 * PAGE_SIZE, PROT_READ | PROT_EXEC);
}

void kc_static_key_set(struct static_key *key, bool on)
{
	struct jump_entry *e;

	if (static_key_enabled((struct static_key_false *)key) == on)
		return;
	atomic_set(&key->enabled, on);
	for (e = __start___jump_table; e < __stop___jump_table; e++) {
		if ((struct static_key *)(e->key & ~1UL) != key)
			continue;
		/* a false key's unlikely site jumps to its branch when on */
		kc_jump_label_patch(e, on ^ (e->key & 1));
	}
}

/* ------------------------------------------------------------ workqueue */

enum { KC_WORK_IDLE, KC_WORK_PENDING, KC_WORK_RUNNING };

static pthread_mutex_t kc_wq_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kc_wq_cond = PTHREAD_COND_INITIALIZER;
static struct work_struct *kc_wq_head, **kc_wq_tail = &kc_wq_head;
static bool kc_wq_started;
struct workqueue_struct *system_wq, *system_unbound_wq;

static void *kc_wq_thread(void *arg)
{
	struct work_struct *w;
	unsigned int instance;

	rcu_register_thread();
	kc_set_cpu(-1);
	pthread_mutex_lock(&kc_wq_lock);
	for (;;) {
		while (!kc_wq_head)
			pthread_cond_wait(&kc_wq_cond, &kc_wq_lock);
		w = kc_wq_head;
		kc_wq_head = w->next;
		if (!kc_wq_head)
			kc_wq_tail = &kc_wq_head;
		w->state = KC_WORK_RUNNING;
		instance = w->queued;
		pthread_mutex_unlock(&kc_wq_lock);
		w->func(w);
		pthread_mutex_lock(&kc_wq_lock);
		/* queued again while it ran: it is on the list once more */
		if (w->state == KC_WORK_RUNNING)
			w->state = KC_WORK_IDLE;
		w->done = instance;
		pthread_cond_broadcast(&kc_wq_cond);
	}
	return NULL;
}

/* A pending work is queued once; one running may be queued again. */
bool queue_work(struct workqueue_struct *wq, struct work_struct *work)
{
	pthread_t t;
	bool queued = false;

	pthread_mutex_lock(&kc_wq_lock);
	if (!kc_wq_started) {
		kc_wq_started = true;
		if (pthread_create(&t, NULL, kc_wq_thread, NULL))
			kc_bug(__FILE__, __LINE__, "no workqueue thread");
		pthread_detach(t);
	}
	if (work->state != KC_WORK_PENDING) {
		work->state = KC_WORK_PENDING;
		work->queued++;
		work->next = NULL;
		*kc_wq_tail = work;
		kc_wq_tail = &work->next;
		queued = true;
		pthread_cond_broadcast(&kc_wq_cond);
	}
	pthread_mutex_unlock(&kc_wq_lock);
	return queued;
}

/* Waits for the last instance queued before the call, as the kernel's does. */
bool flush_work(struct work_struct *work)
{
	unsigned int target;
	bool waited = false;

	pthread_mutex_lock(&kc_wq_lock);
	target = work->queued;
	while ((int)(work->done - target) < 0) {
		waited = true;
		pthread_cond_wait(&kc_wq_cond, &kc_wq_lock);
	}
	pthread_mutex_unlock(&kc_wq_lock);
	return waited;
}

bool cancel_work_sync(struct work_struct *work)
{
	struct work_struct **pp;
	bool pending = false;

	pthread_mutex_lock(&kc_wq_lock);
	if (work->state == KC_WORK_PENDING) {
		for (pp = &kc_wq_head; *pp; pp = &(*pp)->next) {
			if (*pp == work) {
				*pp = work->next;
				if (!*pp)
					kc_wq_tail = pp;
				break;
			}
		}
		/* the dropped instance counts as done; a running one is waited for */
		work->state = work->done + 1 == work->queued ? KC_WORK_IDLE : KC_WORK_RUNNING;
		if (work->state == KC_WORK_IDLE)
			work->done = work->queued;
		pending = true;
	}
	while (work->state == KC_WORK_RUNNING)
		pthread_cond_wait(&kc_wq_cond, &kc_wq_lock);
	work->done = work->queued;
	pthread_mutex_unlock(&kc_wq_lock);
	return pending;
}

/* ------------------------------------------------------------ CONFIG_DEBUG_LIST */

/* lib/list_debug.c: Debian's 6.1 checks every list_add() and list_del() */
bool __list_add_valid(struct list_head *new, struct list_head *prev,
		      struct list_head *next)
{
	if (unlikely(next->prev != prev || prev->next != next ||
		     new == prev || new == next)) {
		printk("list_add corruption: prev %p next %p new %p\n", prev, next, new);
		return false;
	}
	return true;
}

bool __list_del_entry_valid(struct list_head *entry)
{
	struct list_head *prev = entry->prev, *next = entry->next;

	if (unlikely(next == LIST_POISON1 || prev == LIST_POISON2 ||
		     prev->next != entry || next->prev != entry)) {
		printk("list_del corruption: %p (prev %p, next %p)\n", entry, prev, next);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------ ktime, bitmaps, sort */

u64 ktime_get_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

unsigned long *bitmap_alloc(unsigned int nbits, gfp_t flags)
{
	return kmalloc_array(BITS_TO_LONGS(nbits), sizeof(unsigned long), flags);
}

unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags)
{
	return bitmap_alloc(nbits, flags | __GFP_ZERO);
}

unsigned long *bitmap_alloc_node(unsigned int nbits, gfp_t flags, int node)
{
	return bitmap_alloc(nbits, flags);
}

unsigned long *bitmap_zalloc_node(unsigned int nbits, gfp_t flags, int node)
{
	return bitmap_alloc(nbits, flags | __GFP_ZERO);
}

void bitmap_free(const unsigned long *bitmap)
{
	kfree(bitmap);
}

unsigned int __bitmap_weight(const unsigned long *bitmap, unsigned int bits)
{
	unsigned int k, lim = bits / BITS_PER_LONG, w = 0;

	for (k = 0; k < lim; k++)
		w += hweight_long(bitmap[k]);
	if (bits % BITS_PER_LONG)
		w += hweight_long(bitmap[k] & BITMAP_LAST_WORD_MASK(bits));
	return w;
}

void __bitmap_set(unsigned long *map, unsigned int start, int len)
{
	while (len-- > 0)
		__set_bit(start++, map);
}

void __bitmap_clear(unsigned long *map, unsigned int start, int len)
{
	while (len-- > 0)
		__clear_bit(start++, map);
}

bool __bitmap_full(const unsigned long *bitmap, unsigned int bits)
{
	return find_first_zero_bit(bitmap, bits) >= bits;
}

bool __bitmap_empty(const unsigned long *bitmap, unsigned int bits)
{
	return find_first_bit(bitmap, bits) >= bits;
}

void sort(void *base, size_t num, size_t size,
	  int (*cmp)(const void *, const void *),
	  void (*swap_fn)(void *, void *, int))
{
	qsort(base, num, size, cmp);
}

/* ------------------------------------------------------------ start-up */

/*
 * The kernel runs a CPU's RCU callbacks on that CPU, where the objects they
 * free were last touched.  liburcu's default is one call_rcu thread that
 * the scheduler places anywhere; one thread per CPU, bound to it
 * (call_rcu() picks the queuing CPU's), runs them there.  The thread stands
 * for no CPU (kc_set_cpu()), so its frees take the slab's locked path for
 * frees from elsewhere: it runs beside the storm thread of its CPU, not
 * between its instructions as a softirq would, and may not share that
 * CPU's per-CPU slab.
 */
int kc_rcu_percpu_callbacks(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF), cpu;
	struct call_rcu_data *crdp;
	cpu_set_t set;
	int ret;

	ret = create_all_cpu_call_rcu_data(0);
	if (ret)
		return ret;
	/*
	 * liburcu's thread applies its CPU only every 256th batch (its
	 * SET_AFFINITY_CHECK_PERIOD), so the first 255 would run anywhere:
	 * bind each thread now.  A CPU this process may not use keeps an
	 * unbound thread, as liburcu leaves it.
	 */
	for (cpu = 0; cpu < n; cpu++) {
		crdp = get_cpu_call_rcu_data(cpu);
		if (!crdp)
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_setaffinity_np(get_call_rcu_thread(crdp), sizeof(set), &set);
	}
	return 0;
}

/* back to the default thread, the per-CPU ones drained and gone */
void kc_rcu_percpu_callbacks_end(void)
{
	free_all_cpu_call_rcu_data();
}

void kc_init(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	nr_cpu_ids = n > 0 && n <= NR_CPUS ? n : 1;
	kc_percpu_init();
	kc_slab_init();
	radix_tree_init();
	maple_tree_init();
}
