/*
 * The holds of the IDR's lock per reserve, publish and alloc_publish (issue
 * 30 item 5).  idr_onelock's alloc_publish() must reserve and publish each
 * number in one hold, as mainline's alloc_pid() does since "pid: only take
 * pidmap_lock once on alloc": no one who takes the lock may meet a number
 * reserved (NULL in the tree) but not yet published.  6.1's two holds are
 * the control: alloc() or insert() (both indexes' own, the contract's
 * reserve) is one hold let go with the number unpublished, publish() one
 * hold more that publishes it, which is what a split hold or a late publish
 * inside alloc_publish() looks like to these counts.  Every hold of the
 * file's one lock passes through hold_begin() and hold_end(); the IDR's
 * reserve, replace and preload are wrapped, and the reserve can be made to
 * fail with -ENOMEM: where the caller may sleep, alloc_publish() lets the
 * lock go, preloads and retries once (a second -ENOMEM is final); where it
 * may not, it preloads nothing and does not retry, and describe() says
 * retry=none; a reserve alone never retries, as 6.1's alloc_pid() does not.
 * A preload must come outside every hold and with preemption on (it may
 * sleep), and each call must end with the preempt count back at zero (an
 * idr_preload() without its idr_preload_end() leaves it raised); a retry
 * must hand out the number the cursor pointed at, as a call that never
 * failed would.  Between the steps, what lookups and find_ge() see, and that
 * publish() refuses a number published or not held in one hold, changing
 * nothing.  The writers make kernel/pid.c's calls and no other: with the
 * contract checks off, as in every storm, publish() and remove() and their
 * level forms look nothing up (no idr_find(), no IDR_FREE tag read), and
 * only with them on (the selftest's) do they refuse a published number or
 * an absent one.  Namespace levels: a group of three instances shares one lock;
 * idr_onelock's alloc_publish_levels() reserves in all and publishes all in
 * one hold (a retry per level, which lets the lock go with the deeper
 * levels reserved as mainline's does, and on a final -ENOMEM the levels
 * already reserved removed in the last hold); idr's alloc() is one hold per level, its
 * publish_levels() one for all, refusing all or none; remove_levels() of
 * either one hold.  Exit 1 on any count off, a wrong describe(), verify()
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
 * Whether a call is being counted; its holds, the holds that let go of a
 * reserved number, its preloads; the reserve's -ENOMEMs still to inject,
 * after fail_skip reserves let through.
 */
static int counting, holds, bad_ends, preloads, fail_next, fail_skip;
/*
 * the look-ups a call made that kernel/pid.c's writers never make, and
 * whether the IDR itself is running (idr_replace() reads the IDR_FREE tag
 * through radix_tree_tag_get(): the kernel's own step)
 */
static int looks, in_idr;
/* inside a hold now; preloads made inside one or with preemption off */
static int in_hold, bad_preloads;
/* the numbers reserved and not yet replaced or removed, and their trees */
#define NR_RESERVED 8
static struct {
	struct idr *idr;
	unsigned long id;
} reserved[NR_RESERVED];
static int nr_reserved;

static void reserved_add(struct idr *idr, unsigned long id)
{
	if (nr_reserved < NR_RESERVED)
		reserved[nr_reserved++] = (typeof(reserved[0])){ idr, id };
}

static void reserved_drop(struct idr *idr, unsigned long id)
{
	int i;

	for (i = 0; i < nr_reserved; i++) {
		if (reserved[i].idr != idr || reserved[i].id != id)
			continue;
		reserved[i] = reserved[--nr_reserved];
		return;
	}
}
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
	if (counting && nr_reserved)
		bad_ends++;
}

typedef int (*reserve_fn)(struct idr *idr, void *ptr, int start, int end, gfp_t gfp);

/* either reserve: an -ENOMEM injected, or the real one, its number noted */
static int reserve(reserve_fn real, struct idr *idr, void *ptr, int start,
		   int end, gfp_t gfp)
{
	int nr;

	if (fail_next && fail_skip) {
		fail_skip--;
	} else if (fail_next) {
		fail_next--;
		return -ENOMEM;
	}
	nr = real(idr, ptr, start, end, gfp);
	if (nr >= 0 && !ptr)
		reserved_add(idr, nr);
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
	void *old;

	in_idr = 1;
	old = __real_idr_replace(idr, ptr, id);
	in_idr = 0;

	/* publish_levels() puts a level back to reserved on a refusal */
	if (!IS_ERR(old) && ptr)
		reserved_drop(idr, id);
	else if (!IS_ERR(old))
		reserved_add(idr, id);
	return old;
}

void *__real_idr_remove(struct idr *idr, unsigned long id);
void *__wrap_idr_remove(struct idr *idr, unsigned long id)
{
	reserved_drop(idr, id);
	return __real_idr_remove(idr, id);
}

void *__real_idr_find(const struct idr *idr, unsigned long id);
void *__wrap_idr_find(const struct idr *idr, unsigned long id)
{
	looks += counting;
	return __real_idr_find(idr, id);
}

int __real_radix_tree_tag_get(const struct radix_tree_root *root,
			      unsigned long index, unsigned int tag);
int __wrap_radix_tree_tag_get(const struct radix_tree_root *root,
			      unsigned long index, unsigned int tag)
{
	looks += counting && !in_idr;
	return __real_radix_tree_tag_get(root, index, tag);
}

/* the selftest's contract checks (pidx.h), on or off */
static void contract_checks(bool on)
{
	if (on)
		static_branch_enable(&pidx_contract_checks);
	else
		static_branch_disable(&pidx_contract_checks);
}

void __real_idr_preload(gfp_t gfp);
void __wrap_idr_preload(gfp_t gfp)
{
	preloads += counting;
	if (counting && (in_hold || preempt_count()))
		bad_preloads++;
	__real_idr_preload(gfp);
}

static void expect(const char *what, const char *count, int saw, int want)
{
	if (saw == want)
		return;
	if (bad++ < 10)
		printk("FAIL %s: %s %d, expected %d\n", what, count, saw, want);
}

/* a value for a number published by publish(): never dereferenced */
static void *fake(u32 nr)
{
	return (void *)(((unsigned long)nr << 4) | 0x8);
}

/* the objects alloc_publish() publishes: it writes the number into each */
#define NR_OBJS 2048
static u32 objs[NR_OBJS];
static unsigned int next_obj;

/* starts counting a call; @fails: -ENOMEMs to inject into its reserve */
static void count_begin(int fails)
{
	holds = bad_ends = preloads = bad_preloads = looks = 0;
	fail_next = fails;
	fail_skip = 0;
	counting = 1;
}

static void count_end(const char *what)
{
	counting = 0;
	fail_next = 0;
	expect(what, "preloads inside a hold or with preemption off",
	       bad_preloads, 0);
	expect(what, "preempt count after the call", preempt_count(), 0);
}

/* one reserve, alloc (@pid 0) or insert, counted */
static int take(const struct pidx_ops *o, struct pidx_index *x, u32 pid,
		gfp_t gfp, int fails)
{
	int ret;

	nr_reserved = 0;
	count_begin(fails);
	ret = pid ? o->insert(x, pid, gfp) : o->alloc(x, gfp);
	count_end(o->name);
	return ret;
}

/* one publish, counted: a reservation it publishes is still noted */
static int publish(const struct pidx_ops *o, struct pidx_index *x, u32 pid,
		   void *value)
{
	int ret;

	count_begin(0);
	ret = o->publish(x, pid, value);
	count_end(o->name);
	return ret;
}

/* one alloc_publish, counted; its object at *@obj */
static int alloc_publish(const struct pidx_ops *o, struct pidx_index *x,
			 gfp_t gfp, int fails, u32 **obj)
{
	int ret;

	*obj = &objs[next_obj++ % NR_OBJS];
	**obj = 0;
	nr_reserved = 0;
	count_begin(fails);
	ret = o->alloc_publish(x, *obj, *obj, gfp);
	count_end(o->name);
	return ret;
}

/* what readers see of @nr: @value (NULL: nothing) from lookup and find_ge */
static void sees(const char *what, const struct pidx_ops *o,
		 struct pidx_index *x, u32 nr, void *value)
{
	void *got;
	int ge;

	rcu_read_lock();
	got = o->lookup(x, nr);
	ge = o->find_ge(x, nr);
	rcu_read_unlock();
	expect(what, "lookup returns the value published", got == value, 1);
	expect(what, value ? "find_ge finds the number" :
	       "find_ge skips the number", ge == (int)nr, !!value);
}

/*
 * @n reserves (allocs, then inserts of the numbers from @base) each
 * published at once, with @gfp: a reserve is one hold let go with its
 * number unpublished and one preload where it may sleep; a publish one
 * hold, none let go unpublished, no preload.  Then, where the index has
 * one, @n alloc_publish calls: @ap_holds holds each, @ap_bad of them let go
 * unpublished, one preload where it may sleep.
 */
static void takes(const struct pidx_ops *o, struct pidx_index *x, gfp_t gfp,
		  u32 base, int n, int ap_holds, int ap_bad)
{
	int i, nr, ret, may_sleep = gfpflags_allow_blocking(gfp);
	const char *mode = may_sleep ? "GFP_KERNEL" : "GFP_ATOMIC";
	char what[80];
	u32 *obj;

	for (i = 0; i < 2 * n; i++) {
		u32 pid = i < n ? 0 : base + i - n;

		ret = take(o, x, pid, gfp, 0);
		snprintf(what, sizeof(what), "%s %s #%d, %s", o->name,
			 pid ? "insert" : "alloc", i, mode);
		expect(what, "error", ret < 0 ? ret : 0, 0);
		expect(what, "holds", holds, 1);
		expect(what, "holds let go unpublished", bad_ends, 1);
		expect(what, "preloads", preloads, may_sleep);
		if (ret < 0)
			continue;
		nr = pid ? pid : ret;
		sees(what, o, x, nr, NULL);
		ret = publish(o, x, nr, fake(nr));
		snprintf(what, sizeof(what), "%s publish #%d, %s", o->name, i,
			 mode);
		expect(what, "error", ret, 0);
		expect(what, "holds", holds, 1);
		expect(what, "holds let go unpublished", bad_ends, 0);
		expect(what, "preloads", preloads, 0);
		expect(what, "look-ups kernel/pid.c never makes", looks, 0);
		sees(what, o, x, nr, fake(nr));
	}
	for (i = 0; o->alloc_publish && i < n; i++) {
		ret = alloc_publish(o, x, gfp, 0, &obj);
		snprintf(what, sizeof(what), "%s alloc_publish #%d, %s",
			 o->name, i, mode);
		expect(what, "error", ret < 0 ? ret : 0, 0);
		expect(what, "holds", holds, ap_holds);
		expect(what, "holds let go unpublished", bad_ends, ap_bad);
		expect(what, "preloads", preloads, may_sleep);
		if (ret < 0)
			continue;
		expect(what, "number stored in the object", *obj, ret);
		sees(what, o, x, ret, obj);
	}
}

static void describes(struct pidx_index *x, const char *want)
{
	char buf[192];

	idr_onelock_describe(x, buf, sizeof(buf));
	if (!strstr(buf, want) && bad++ < 10)
		printk("FAIL describe: '%s', expected '%s' in it\n", buf, want);
}

/*
 * publish() of a number published or not held: refused in one hold, the
 * value in place or the number still absent; remove() of a reservation.
 */
static void refusals(const struct pidx_ops *o, struct pidx_index *x)
{
	int ret, nr;

	ret = publish(o, x, 20000, fake(1));
	expect("publish of a published number", "result", ret, -EEXIST);
	expect("publish of a published number", "holds", holds, 1);
	sees("publish of a published number", o, x, 20000, fake(20000));
	expect("remove of a published number", "result", o->remove(x, 20000), 0);
	sees("remove of a published number", o, x, 20000, NULL);
	ret = publish(o, x, 20000, fake(20000));
	expect("publish of a number not held", "result", ret, -ENOENT);
	expect("publish of a number not held", "holds", holds, 1);
	sees("publish of a number not held", o, x, 20000, NULL);
	/* beyond what the tree covers: no path at all */
	ret = publish(o, x, 1 << 20, fake(1 << 20));
	expect("publish beyond the tree", "result", ret, -ENOENT);
	ret = take(o, x, 20000, GFP_KERNEL, 0);
	expect("insert of a removed number", "result", ret, 0);
	expect("remove of a reservation", "result", o->remove(x, 20000), 0);
	expect("remove of a removed reservation", "result", o->remove(x, 20000),
	       -ENOENT);
	expect("remove beyond the tree", "result", o->remove(x, 1 << 20),
	       -ENOENT);
	ret = publish(o, x, 20000, fake(20000));
	expect("publish of a removed reservation", "result", ret, -ENOENT);
	/* the number is free again, and taken again */
	ret = take(o, x, 20000, GFP_KERNEL, 0);
	expect("insert after a reservation removed", "result", ret, 0);
	ret = publish(o, x, 20000, fake(20000));
	expect("publish after a reservation removed", "result", ret, 0);
	/* a reserve alone never retries: one hold, -ENOMEM */
	nr = idr_get_cursor(&to_pidx_idr(x)->idr);
	ret = take(o, x, 0, GFP_KERNEL, 1);
	expect("alloc, one -ENOMEM, GFP_KERNEL", "result", ret, -ENOMEM);
	expect("alloc, one -ENOMEM, GFP_KERNEL", "holds", holds, 1);
	expect("alloc, one -ENOMEM, GFP_KERNEL", "preloads", preloads, 1);
	expect("alloc, one -ENOMEM, GFP_KERNEL", "cursor",
	       idr_get_cursor(&to_pidx_idr(x)->idr), nr);
}

static void one_index(const struct pidx_ops *o)
{
	struct pidx_params p = { .pid_max = 32768, .seed = 1, .node = NUMA_NO_NODE };
	struct pidx_index *x = o->create(&p);
	bool onelock = o == &pidx_idr_onelock_ops;
	unsigned int violations;
	u32 *obj;
	int ret, next;

	expect(o->name, "has alloc_publish", !!o->alloc_publish, onelock);
	takes(o, x, GFP_KERNEL, 20000, 500, 1, 0);
	if (onelock)
		describes(x, ";retry=preload;retries=0");
	takes(o, x, GFP_ATOMIC | __GFP_NOWARN, 25000, 500, 1, 0);
	/* a present number: one hold, nothing reserved */
	ret = take(o, x, 20000, GFP_KERNEL, 0);
	expect("insert of a present number", "result", ret, -EEXIST);
	expect("insert of a present number", "holds", holds, 1);
	expect("insert of a present number", "holds let go unpublished",
	       bad_ends, 0);
	/* a reservation left for verify(), which must take it as it is */
	ret = take(o, x, 0, GFP_KERNEL, 0);
	expect("alloc left reserved", "error", ret < 0 ? ret : 0, 0);
	violations = o->verify(x);
	expect("verify() with a reservation", "violations", violations, 0);
	expect("publish of the reservation verify() saw", "result",
	       publish(o, x, ret, fake(ret)), 0);
	/* free_pid(): the number removed, nothing looked up first */
	count_begin(0);
	ret = o->remove(x, ret);
	count_end(o->name);
	expect("remove of a published number", "result", ret, 0);
	expect("remove of a published number", "holds", holds, 1);
	expect("remove of a published number", "look-ups kernel/pid.c never makes",
	       looks, 0);
	contract_checks(true);
	refusals(o, x);
	contract_checks(false);
	if (onelock) {
		describes(x, ";retry=none(atomic);retries=0");
		/*
		 * the cursor's number is free (the allocs above stayed low),
		 * and so is one below it: a retry that lost the cursor would
		 * hand that one out
		 */
		expect("remove of an allocated number", "result", o->remove(x, 5), 0);
		next = idr_get_cursor(&to_pidx_idr(x)->idr);
		ret = alloc_publish(o, x, GFP_KERNEL, 1, &obj);
		expect("alloc_publish, one -ENOMEM, GFP_KERNEL", "the cursor's number",
		       ret, next);
		expect("alloc_publish, one -ENOMEM, GFP_KERNEL", "holds", holds, 2);
		expect("alloc_publish, one -ENOMEM, GFP_KERNEL", "preloads", preloads, 2);
		expect("alloc_publish, one -ENOMEM, GFP_KERNEL",
		       "holds let go unpublished", bad_ends, 0);
		if (ret > 0)
			sees("alloc_publish, one -ENOMEM, GFP_KERNEL", o, x, ret, obj);
		ret = alloc_publish(o, x, GFP_KERNEL, 2, &obj);
		expect("alloc_publish, two -ENOMEMs, GFP_KERNEL", "result", ret, -ENOMEM);
		expect("alloc_publish, two -ENOMEMs, GFP_KERNEL", "holds", holds, 2);
		expect("alloc_publish, two -ENOMEMs, GFP_KERNEL", "preloads", preloads, 2);
		ret = alloc_publish(o, x, GFP_ATOMIC | __GFP_NOWARN, 1, &obj);
		expect("alloc_publish, one -ENOMEM, GFP_ATOMIC", "result", ret, -ENOMEM);
		expect("alloc_publish, one -ENOMEM, GFP_ATOMIC", "holds", holds, 1);
		expect("alloc_publish, one -ENOMEM, GFP_ATOMIC", "preloads", preloads, 0);
		describes(x, ";retry=none(atomic);retries=2");
	}
	violations = o->verify(x);
	expect(o->name, "verify() violations", violations, 0);
	printk("%s: verify() %u violations\n", o->name, violations);
	o->destroy(x);
}

#define LEVELS 3

/* what readers see at every level: @obj (NULL: nothing) at nr[i] */
static void sees_levels(const char *what, const struct pidx_ops *o,
			struct pidx_index **x, const u32 *nr, void *obj)
{
	int i;

	for (i = 0; i < LEVELS; i++)
		sees(what, o, x[i], nr[i], obj);
}

/*
 * A level group of LEVELS instances: one lock; each writer's holds, and
 * what every level holds after it.
 */
static void levels(const struct pidx_ops *o)
{
	struct pidx_params p = { .pid_max = 32768, .seed = 1, .node = NUMA_NO_NODE };
	bool onelock = o == &pidx_idr_onelock_ops;
	struct pidx_index *x[LEVELS];
	u32 obj[LEVELS], *nrp[LEVELS], nr[LEVELS], other[LEVELS];
	unsigned long entries;
	char what[96];
	int i, ret;

	for (i = 0; i < LEVELS; i++) {
		x[i] = o->create(&p);
		p.group = x[0];
		nrp[i] = &obj[i];
	}
	for (i = 1; i < LEVELS; i++)
		expect(o->name, "levels sharing the first's lock",
		       to_pidx_idr(x[i])->lock == to_pidx_idr(x[0])->lock, 1);
	expect(o->name, "has alloc_publish_levels", !!o->alloc_publish_levels, onelock);
	expect(o->name, "has publish_levels and remove_levels",
	       o->publish_levels && o->remove_levels, 1);
	/* the deepest level first: a number each, the cursors apart */
	for (i = 0; i < LEVELS; i++)
		idr_set_cursor(&to_pidx_idr(x[i])->idr, 1000 * (i + 1));
	if (onelock) {
		nr_reserved = 0;
		count_begin(0);
		ret = o->alloc_publish_levels(x, LEVELS, obj, nrp, GFP_KERNEL);
		count_end(o->name);
		snprintf(what, sizeof(what), "%s alloc_publish_levels", o->name);
		expect(what, "result", ret, 0);
		expect(what, "holds", holds, 1);
		expect(what, "holds let go unpublished", bad_ends, 0);
		expect(what, "preloads", preloads, 1);
	} else {
		snprintf(what, sizeof(what), "%s alloc per level", o->name);
		nr_reserved = 0;
		for (i = LEVELS - 1; i >= 0; i--) {
			count_begin(0);
			ret = o->alloc(x[i], GFP_KERNEL);
			count_end(o->name);
			expect(what, "holds", holds, 1);
			obj[i] = ret;
		}
		expect(what, "reservations left unpublished", nr_reserved, LEVELS);
		count_begin(0);
		ret = o->publish_levels(x, LEVELS, obj, obj);
		count_end(o->name);
		snprintf(what, sizeof(what), "%s publish_levels", o->name);
		expect(what, "result", ret, 0);
		expect(what, "holds", holds, 1);
		expect(what, "holds let go unpublished", bad_ends, 0);
		expect(what, "preloads", preloads, 0);
		expect(what, "look-ups kernel/pid.c never makes", looks, 0);
	}
	for (i = 0; i < LEVELS; i++)
		expect(what, "each level's number from its own cursor", obj[i],
		       1000 * (i + 1));
	sees_levels(what, o, x, obj, obj);
	memcpy(nr, obj, sizeof(nr));

	/* published again at every level, or at one: all refused, nothing moves */
	contract_checks(true);
	count_begin(0);
	ret = o->publish_levels(x, LEVELS, nr, other);
	count_end(o->name);
	expect("publish_levels of published numbers", "result", ret, -EEXIST);
	expect("publish_levels of published numbers", "holds", holds, 1);
	sees_levels("publish_levels of published numbers", o, x, nr, obj);
	for (i = 0; i < LEVELS; i++)
		other[i] = 2000 + i;
	for (i = 1; i < LEVELS; i++)
		o->insert(x[i], other[i], GFP_KERNEL);
	/* level 0's number never reserved: levels 1 and 2 stay reserved */
	ret = o->publish_levels(x, LEVELS, other, other);
	expect("publish_levels with a level not held", "result", ret, -ENOENT);
	for (i = 0; i < LEVELS; i++)
		sees("publish_levels with a level not held", o, x[i], other[i], NULL);
	entries = idr_ref_walk(to_pidx_idr(x[0]), NULL).entries;
	expect("publish_levels with a level not held", "level 0's entries", entries, 1);
	for (i = 1; i < LEVELS; i++) {
		entries = idr_ref_walk(to_pidx_idr(x[i]), NULL).entries;
		expect("publish_levels with a level not held", "entries of a deeper level",
		       entries, 2);
		expect("remove of the reservation left", "result",
		       o->remove(x[i], other[i]), 0);
	}
	contract_checks(false);
	/*
	 * with the checks off too, a level not held refuses all, and a value
	 * stored over at a deeper level is put back, not lost
	 */
	for (i = 0; i < LEVELS; i++)
		other[i] = 3000 + i;
	o->insert(x[2], other[2], GFP_KERNEL);
	o->publish(x[2], other[2], fake(other[2]));
	o->insert(x[1], other[1], GFP_KERNEL);
	ret = o->publish_levels(x, LEVELS, other, obj);
	snprintf(what, sizeof(what), "publish_levels, level 0 not held, checks off");
	expect(what, "result", ret, -ENOENT);
	sees(what, o, x[2], other[2], fake(other[2]));
	sees(what, o, x[1], other[1], NULL);
	expect(what, "remove of level 2's", o->remove(x[2], other[2]), 0);
	expect(what, "remove of level 1's", o->remove(x[1], other[1]), 0);

	count_begin(0);
	ret = o->remove_levels(x, LEVELS, nr);
	count_end(o->name);
	expect("remove_levels", "result", ret, 0);
	expect("remove_levels", "holds", holds, 1);
	expect("remove_levels", "look-ups kernel/pid.c never makes", looks, 0);
	sees_levels("remove_levels", o, x, nr, NULL);
	contract_checks(true);
	expect("remove_levels of removed numbers", "result",
	       o->remove_levels(x, LEVELS, nr), -ENOENT);
	contract_checks(false);

	if (onelock) {
		/* one -ENOMEM at the middle level: a retry there, the same numbers */
		nr_reserved = 0;
		count_begin(1);
		fail_skip = 1;
		ret = o->alloc_publish_levels(x, LEVELS, obj, nrp, GFP_KERNEL);
		count_end(o->name);
		snprintf(what, sizeof(what), "alloc_publish_levels, one -ENOMEM at level 1");
		expect(what, "result", ret, 0);
		expect(what, "holds", holds, 2);
		expect(what, "preloads", preloads, 2);
		/* the retry lets the lock go with level 2 reserved, as mainline's */
		expect(what, "holds let go unpublished", bad_ends, 1);
		sees_levels(what, o, x, obj, obj);
		memcpy(nr, obj, sizeof(nr));
		/* two at level 1: final; level 2's reservation removed in the hold */
		nr_reserved = 0;
		count_begin(2);
		fail_skip = 1;
		ret = o->alloc_publish_levels(x, LEVELS, other, nrp, GFP_KERNEL);
		count_end(o->name);
		snprintf(what, sizeof(what), "alloc_publish_levels, two -ENOMEMs at level 1");
		expect(what, "result", ret, -ENOMEM);
		expect(what, "holds", holds, 2);
		expect(what, "holds let go unpublished", bad_ends, 1);
		for (i = 0; i < LEVELS; i++) {
			entries = idr_ref_walk(to_pidx_idr(x[i]), NULL).entries;
			expect(what, "entries of each level: the PID before only",
			       entries, 1);
		}
		expect(what, "remove_levels of the PID before", o->remove_levels(x, LEVELS, nr), 0);
	}
	for (i = LEVELS - 1; i >= 0; i--) {
		expect(o->name, "verify() of a level", o->verify(x[i]), 0);
		o->destroy(x[i]);
	}
	printk("%s: %d levels in one group checked\n", o->name, LEVELS);
}

int demo_main(void)
{
	kc_init();
	rcu_register_thread();
	kc_set_cpu(0);
	one_index(&pidx_idr_onelock_ops);
	/* the control: 6.1's two holds, reserve and publish, read as two here */
	one_index(&pidx_idr_ops);
	levels(&pidx_idr_onelock_ops);
	levels(&pidx_idr_ops);
	rcu_barrier();
	expect("after destroy", "pidx_mem.bytes", pidx_mem_bytes(), 0);
	printk("verify: %d counts off (reserve: 1 hold let go unpublished; publish: 1 hold; idr_onelock's alloc_publish: 1 hold, none let go unpublished, -ENOMEM retried once where it may sleep, never where not; 3 levels: one lock, alloc_publish_levels, publish_levels and remove_levels 1 hold each, a refused publish_levels changing no level; publish and remove look nothing up but under the contract checks)\n",
	       bad);
	rcu_unregister_thread();
	return !!bad;
}
