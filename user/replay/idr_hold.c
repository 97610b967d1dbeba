/*
 * The holds of the IDR's lock per alloc and insert (issue 30 item 5).
 * idr_onelock must reserve and publish each number in one hold, as
 * mainline's alloc_pid() does since "pid: only take pidmap_lock once on
 * alloc": no one who takes the lock may meet a number reserved (NULL in
 * the tree) but not yet published.  idr, 6.1's, is the control: two holds,
 * the first let go with the number unpublished, which is what a split hold
 * or a late publish looks like to these counts.  Every hold of the file's
 * one lock passes through hold_begin() and hold_end(); the IDR's reserve,
 * replace and preload are wrapped, and the reserve can be made to fail
 * with -ENOMEM: where the caller may sleep, idr_onelock lets the lock go,
 * preloads and retries once (a second -ENOMEM is final); where it may not,
 * it preloads nothing and does not retry, and describe() says retry=none.
 * A preload must come outside every hold and with preemption on (it may
 * sleep), and each take must end with the preempt count back at zero (an
 * idr_preload() without its idr_preload_end() leaves it raised); a retry
 * must hand out the number the cursor pointed at, as a take that never
 * failed would.  Exit 1 on any count off, a wrong describe(), verify()
 * unclean or the memory not back.
 */
#include <linux/kernel.h>
#include <linux/spinlock.h>

static void hold_begin(void);
static void hold_end(void);
#undef spin_lock_irqsave
#undef spin_unlock_irqrestore
#define spin_lock_irqsave(l, f) \
	do { local_irq_save(f); spin_lock(l); hold_begin(); } while (0)
#define spin_unlock_irqrestore(l, f) \
	do { hold_end(); spin_unlock(l); local_irq_restore(f); } while (0)

#include "pidx_idr_ref.c"

#include "replay.h"

/*
 * Whether a take is being counted; its holds, the holds that let go of a
 * reserved number, its preloads; the reserve's -ENOMEMs still to inject;
 * the number reserved and not yet replaced, or -1.
 */
static int counting, holds, bad_ends, preloads, fail_next;
/* inside a hold now; preloads made inside one or with preemption off */
static int in_hold, bad_preloads;
static long reserved = -1;
/* the counts found off */
static int bad;

static void hold_begin(void)
{
	holds += counting;
	in_hold = 1;
}

static void hold_end(void)
{
	in_hold = 0;
	if (counting && reserved >= 0)
		bad_ends++;
}

typedef int (*reserve_fn)(struct idr *idr, void *ptr, int start, int end, gfp_t gfp);

/* either reserve: an -ENOMEM injected, or the real one, its number noted */
static int reserve(reserve_fn real, struct idr *idr, void *ptr, int start,
		   int end, gfp_t gfp)
{
	int nr;

	if (fail_next) {
		fail_next--;
		return -ENOMEM;
	}
	nr = real(idr, ptr, start, end, gfp);
	if (nr >= 0)
		reserved = nr;
	return nr;
}

int __real_idr_alloc_cyclic(struct idr *idr, void *ptr, int start, int end, gfp_t gfp);
int __wrap_idr_alloc_cyclic(struct idr *idr, void *ptr, int start, int end, gfp_t gfp)
{
	return reserve(__real_idr_alloc_cyclic, idr, ptr, start, end, gfp);
}

int __real_idr_alloc(struct idr *idr, void *ptr, int start, int end, gfp_t gfp);
int __wrap_idr_alloc(struct idr *idr, void *ptr, int start, int end, gfp_t gfp)
{
	return reserve(__real_idr_alloc, idr, ptr, start, end, gfp);
}

void *__real_idr_replace(struct idr *idr, void *ptr, unsigned long id);
void *__wrap_idr_replace(struct idr *idr, void *ptr, unsigned long id)
{
	if ((long)id == reserved)
		reserved = -1;
	return __real_idr_replace(idr, ptr, id);
}

void __real_idr_preload(gfp_t gfp);
void __wrap_idr_preload(gfp_t gfp)
{
	preloads += counting;
	if (counting && (in_hold || preempt_count()))
		bad_preloads++;
	__real_idr_preload(gfp);
}

static void expect(const char *what, const char *count, int saw, int want);

/* one alloc (@pid 0) or insert, counted; @fails: -ENOMEMs to inject */
static int take(const struct pidx_ops *o, struct pidx_index *x, u32 pid,
		gfp_t gfp, int fails)
{
	int ret;

	holds = bad_ends = preloads = bad_preloads = 0;
	reserved = -1;
	fail_next = fails;
	counting = 1;
	ret = pid ? o->insert(x, pid, gfp) : o->alloc(x, gfp);
	counting = 0;
	fail_next = 0;
	expect(o->name, "preloads inside a hold or with preemption off",
	       bad_preloads, 0);
	expect(o->name, "preempt count after a take", preempt_count(), 0);
	return ret;
}

static void expect(const char *what, const char *count, int saw, int want)
{
	if (saw == want)
		return;
	if (bad++ < 10)
		printk("FAIL %s: %s %d, expected %d\n", what, count, saw, want);
}

/*
 * @n allocs, then @n inserts of the numbers from @base, with @gfp: each
 * must take @want_holds holds, @want_bad of them let go with the number
 * reserved but unpublished, and preload once where it may sleep.
 */
static void takes(const struct pidx_ops *o, struct pidx_index *x, gfp_t gfp,
		  u32 base, int n, int want_holds, int want_bad)
{
	int i, ret, may_sleep = gfpflags_allow_blocking(gfp);
	char what[64];

	for (i = 0; i < 2 * n; i++) {
		u32 pid = i < n ? 0 : base + i - n;

		ret = take(o, x, pid, gfp, 0);
		snprintf(what, sizeof(what), "%s %s #%d, %s", o->name,
			 pid ? "insert" : "alloc", i,
			 may_sleep ? "GFP_KERNEL" : "GFP_ATOMIC");
		expect(what, "error", ret < 0 ? ret : 0, 0);
		expect(what, "holds", holds, want_holds);
		expect(what, "holds let go unpublished", bad_ends, want_bad);
		expect(what, "preloads", preloads, may_sleep);
	}
}

static void describes(struct pidx_index *x, const char *want)
{
	char buf[192];

	idr_onelock_describe(x, buf, sizeof(buf));
	if (!strstr(buf, want) && bad++ < 10)
		printk("FAIL describe: '%s', expected '%s' in it\n", buf, want);
}

static void one_index(const struct pidx_ops *o, int want_holds, int want_bad)
{
	struct pidx_params p = { .pid_max = 32768, .seed = 1, .node = NUMA_NO_NODE };
	struct pidx_index *x = o->create(&p);
	bool onelock = o == &pidx_idr_onelock_ops;
	unsigned int violations;
	int ret, next;

	takes(o, x, GFP_KERNEL, 20000, 500, want_holds, want_bad);
	if (onelock)
		describes(x, ";retry=preload;retries=0");
	takes(o, x, GFP_ATOMIC | __GFP_NOWARN, 25000, 500, want_holds, want_bad);
	/* a present number: one hold, nothing reserved */
	ret = take(o, x, 20000, GFP_KERNEL, 0);
	expect("insert of a present number", "result", ret, -EEXIST);
	expect("insert of a present number", "holds", holds, 1);
	if (onelock) {
		describes(x, ";retry=none(atomic);retries=0");
		/*
		 * the cursor's number is free (the allocs above stayed low),
		 * and so is one below it: a retry that lost the cursor would
		 * hand that one out
		 */
		expect("remove of an allocated number", "result", o->remove(x, 5), 0);
		next = idr_get_cursor(&to_pidx_idr(x)->idr);
		ret = take(o, x, 0, GFP_KERNEL, 1);
		expect("alloc, one -ENOMEM, GFP_KERNEL", "the cursor's number",
		       ret, next);
		expect("alloc, one -ENOMEM, GFP_KERNEL", "holds", holds, 2);
		expect("alloc, one -ENOMEM, GFP_KERNEL", "preloads", preloads, 2);
		expect("alloc, one -ENOMEM, GFP_KERNEL", "holds let go unpublished",
		       bad_ends, 0);
		ret = take(o, x, 30000, GFP_KERNEL, 1);
		expect("insert, one -ENOMEM, GFP_KERNEL", "result", ret, 0);
		expect("insert, one -ENOMEM, GFP_KERNEL", "holds", holds, 2);
		ret = take(o, x, 0, GFP_KERNEL, 2);
		expect("alloc, two -ENOMEMs, GFP_KERNEL", "result", ret, -ENOMEM);
		expect("alloc, two -ENOMEMs, GFP_KERNEL", "holds", holds, 2);
		expect("alloc, two -ENOMEMs, GFP_KERNEL", "preloads", preloads, 2);
		ret = take(o, x, 0, GFP_ATOMIC | __GFP_NOWARN, 1);
		expect("alloc, one -ENOMEM, GFP_ATOMIC", "result", ret, -ENOMEM);
		expect("alloc, one -ENOMEM, GFP_ATOMIC", "holds", holds, 1);
		expect("alloc, one -ENOMEM, GFP_ATOMIC", "preloads", preloads, 0);
		describes(x, ";retry=none(atomic);retries=3");
	}
	violations = o->verify(x);
	expect(o->name, "verify() violations", violations, 0);
	printk("%s: verify() %u violations\n", o->name, violations);
	o->destroy(x);
}

int demo_main(void)
{
	kc_init();
	rcu_register_thread();
	kc_set_cpu(0);
	one_index(&pidx_idr_onelock_ops, 1, 0);
	/* the control: 6.1's two holds must read as two here */
	one_index(&pidx_idr_ops, 2, 1);
	rcu_barrier();
	expect("after destroy", "pidx_mem.bytes", atomic_long_read(&pidx_mem.bytes), 0);
	printk("verify: %d counts off (idr_onelock: 1 hold per take, none let go with its number unpublished, -ENOMEM retried once where it may sleep, never where not; idr, the control: 2 and 1)\n",
	       bad);
	rcu_unregister_thread();
	return !!bad;
}
