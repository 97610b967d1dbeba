// SPDX-License-Identifier: GPL-2.0
/*
 * pidx's indexes as the kernel's own PID index (system/patches/ apply the
 * hooks to kernel/pid.c; this file is copied to kernel/pidx/ with the index
 * files it uses).  A PID namespace gets the index chosen when it is
 * created: pidx.index= at boot for the initial one, the debugfs file
 * pidx_system/index for later ones.  idr is the kernel's IDR itself
 * (ns->pidx == NULL): its code path is the stock one behind a static
 * branch.
 *
 * Every index here keeps kernel/pid.c's rules: its writers run under
 * pidmap_lock with interrupts off and allocate with GFP_ATOMIC, its
 * remove() never fails or allocates, its readers are lockless under RCU,
 * and it is destroyed after a grace period.  An index that cannot keep
 * them is refused, with its reason, at boot and on a write to index.
 */
#define pr_fmt(fmt) "pidx_system: " fmt

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/pidx_system.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "pidx.h"

DEFINE_STATIC_KEY_FALSE(pidx_sys_in_use);
DEFINE_STATIC_KEY_FALSE(pidx_sys_timing);

struct pidx_sys_index {
	const char *name;
	/* NULL: the kernel's IDR, or an index refused for @refused */
	const struct pidx_ops *ops;
	const char *refused;
	atomic_t namespaces;	/* live PID namespaces that use it */
};

/* Every index of the module's table but null; idr first, the default. */
static struct pidx_sys_index pidx_sys_indexes[] = {
	{ .name = "idr" },
	{ .name = "idr_onelock", .ops = &pidx_idr_onelock_ops },
	{ .name = "skiplist", .ops = &pidx_skiplist_ops },
	{ .name = "rbskip", .ops = &pidx_rbskip_ops },
	{ .name = "hash", .ops = &pidx_hash_ops },
	/* free_pid() can neither fail nor allocate */
	{ .name = "ccskip",
	  .refused = "its remove() allocates, and may fail" },
	{ .name = "lazyskip", .ops = &pidx_lazyskip_ops },
	{ .name = "lfradix", .ops = &pidx_lfradix_ops },
	/* ns_last_pid's next fork would not get the next number */
	{ .name = "lfradix_pc",
	  .refused = "its per-CPU ranges are not cyclic" },
	/*
	 * made to keep the rule, it would have to preallocate under a lock
	 * of its own outside pidmap_lock: the work that held up a maple
	 * tree for pidfs
	 */
	{ .name = "maple",
	  .refused = "its writers need interrupts on, and pidmap_lock has them off" },
	{ .name = "null",
	  .refused = "it keeps no contents" },
};

#define PIDX_SYS_NR	ARRAY_SIZE(pidx_sys_indexes)

/* A namespace's index, beside its struct pid_namespace. */
struct pidx_sys_ns {
	const struct pidx_ops *ops;
	struct pidx_index *idx;
	struct pidx_sys_index *si;
	/* idr_get_cursor()'s value: one past the last number alloc() gave */
	int cursor;
	struct work_struct free_work;
};

struct pidx_sys_cpu_stats {
	u64 calls[PIDX_SYS_NR][PIDX_SYS_NR_SITES];
	u64 ns[PIDX_SYS_NR][PIDX_SYS_NR_SITES];
};

static DEFINE_PER_CPU(struct pidx_sys_cpu_stats, pidx_sys_stats);

/* the index namespaces created from now on get */
static struct pidx_sys_index *pidx_sys_chosen = &pidx_sys_indexes[0];
static char pidx_sys_boot[32] __initdata;

static struct pidx_sys_index *pidx_sys_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < PIDX_SYS_NR; i++)
		if (!strcmp(name, pidx_sys_indexes[i].name))
			return &pidx_sys_indexes[i];
	return NULL;
}

/*
 * Each index is made for the whole PID space: pid_max may be raised to
 * PID_MAX_LIMIT at any time, and pidx_sys_reserve() keeps the bound of
 * the moment.
 */
static struct pidx_sys_ns *pidx_sys_make(struct pidx_sys_index *si)
{
	struct pidx_params p = {
		.pid_max = PIDX_PID_MAX_LIMIT,
		.sl_p = 4,
		.seed = get_random_u64(),
		.node = NUMA_NO_NODE,
	};
	struct pidx_sys_ns *px;

	px = kzalloc(sizeof(*px), GFP_KERNEL);
	if (!px)
		return NULL;
	px->idx = si->ops->create(&p);
	if (IS_ERR(px->idx)) {
		kfree(px);
		return NULL;
	}
	px->ops = si->ops;
	px->si = si;
	return px;
}

static void pidx_sys_attach(struct pid_namespace *ns, struct pidx_sys_ns *px)
{
	ns->pidx = px;
	/* synchronous: every CPU follows ns->pidx before ns can be used */
	if (px && !static_key_enabled(&pidx_sys_in_use))
		static_branch_enable(&pidx_sys_in_use);
}

int pidx_sys_ns_create(struct pid_namespace *ns)
{
	struct pidx_sys_index *si = READ_ONCE(pidx_sys_chosen);
	struct pidx_sys_ns *px = NULL;

	if (si->ops) {
		px = pidx_sys_make(si);
		if (!px)
			return -ENOMEM;
	}
	atomic_inc(&si->namespaces);
	pidx_sys_attach(ns, px);
	return 0;
}

static void pidx_sys_free_work(struct work_struct *w)
{
	struct pidx_sys_ns *px = container_of(w, struct pidx_sys_ns, free_work);

	px->ops->destroy(px->idx);
	atomic_dec(&px->si->namespaces);
	kfree(px);
}

void pidx_sys_ns_free(struct pid_namespace *ns)
{
	struct pidx_sys_ns *px = ns->pidx;

	if (!px) {
		atomic_dec(&pidx_sys_indexes[0].namespaces);
		return;
	}
	ns->pidx = NULL;
	/* destroy() waits for grace periods, and this may be a callback */
	INIT_WORK(&px->free_work, pidx_sys_free_work);
	queue_work(system_unbound_wq, &px->free_work);
}

/* early: parsed with the architecture's, long before pid_idr_init() */
static int __init pidx_sys_setup(char *s)
{
	if (!s)
		return -EINVAL;
	strscpy(pidx_sys_boot, s, sizeof(pidx_sys_boot));
	return 0;
}
early_param("pidx.index", pidx_sys_setup);

/*
 * The refusals above are written by hand: an accepted index that gains one
 * of the flags that break kernel/pid.c's rules must be refused too.
 */
static bool __init pidx_sys_keeps_rules(const struct pidx_ops *ops)
{
	return !ops->writers_need_irqs_on && !ops->remove_may_fail &&
	       !ops->alloc_ranges && !ops->no_contents &&
	       !ops->readers_may_wait && ops->set_cursor;
}

/* A bad choice at boot leaves the initial namespace the IDR: never a panic. */
void __init pidx_sys_init_ns(struct pid_namespace *ns)
{
	struct pidx_sys_index *si = &pidx_sys_indexes[0];
	struct pidx_sys_ns *px = NULL;
	unsigned int i;

	for (i = 0; i < PIDX_SYS_NR; i++) {
		si = &pidx_sys_indexes[i];
		if (si->ops && WARN(!pidx_sys_keeps_rules(si->ops),
				    "%s breaks a rule of kernel/pid.c\n", si->name))
			si->refused = "it breaks a rule of kernel/pid.c (see its flags)";
	}
	si = &pidx_sys_indexes[0];

	if (pidx_sys_boot[0]) {
		si = pidx_sys_by_name(pidx_sys_boot);
		if (!si) {
			pr_warn("unknown index '%s' in pidx.index=: the initial PID namespace keeps idr\n",
				pidx_sys_boot);
			si = &pidx_sys_indexes[0];
		} else if (si->refused) {
			pr_warn("pidx.index=%s refused, %s: the initial PID namespace keeps idr\n",
				si->name, si->refused);
			si = &pidx_sys_indexes[0];
		}
	}
	if (si->ops) {
		px = pidx_sys_make(si);
		if (!px) {
			pr_err("could not create %s: the initial PID namespace keeps idr\n",
			       si->name);
			si = &pidx_sys_indexes[0];
		}
	}
	pidx_sys_chosen = si;
	atomic_inc(&si->namespaces);
	pidx_sys_attach(ns, px);
	pr_info("the initial PID namespace's index is %s\n", si->name);
}

/*
 * idr_alloc() of @tid, or idr_alloc_cyclic() in [pid_min, @pid_max) with
 * alloc_pid()'s pid_min.  An index searches up to PID_MAX_LIMIT, so a
 * number at or past @pid_max means nothing was free below it: that one is
 * given back and the search starts again from the floor, as the IDR's
 * second pass does.  Only the wrap pays for it.
 */
int pidx_sys_reserve(struct pidx_sys_ns *px, int tid, int pid_max)
{
	const struct pidx_ops *ops = px->ops;
	int floor = pidx_alloc_floor(px->cursor);
	int nr, ret;

	if (tid) {
		ret = ops->insert(px->idx, tid, GFP_ATOMIC);
		return ret ? ret : tid;
	}
	nr = ops->alloc(px->idx, GFP_ATOMIC);
	if (nr >= pid_max) {
		WARN_ON_ONCE(ops->remove(px->idx, nr));
		ops->set_cursor(px->idx, floor);
		nr = ops->alloc(px->idx, GFP_ATOMIC);
		if (nr >= pid_max) {
			WARN_ON_ONCE(ops->remove(px->idx, nr));
			nr = -ENOSPC;
		}
		if (nr < 0)
			ops->set_cursor(px->idx, clamp(px->cursor, 1,
						       PIDX_PID_MAX_LIMIT));
	}
	if (nr >= 0)
		WRITE_ONCE(px->cursor, nr + 1);
	return nr;
}

void pidx_sys_publish(struct pidx_sys_ns *px, int nr, struct pid *pid)
{
	WARN_ON_ONCE(px->ops->publish(px->idx, nr, pid));
}

void pidx_sys_remove(struct pidx_sys_ns *px, int nr)
{
	WARN_ON_ONCE(px->ops->remove(px->idx, nr));
}

/* idr_set_cursor(): 0 after a namespace's first fork failed, as the IDR. */
void pidx_sys_set_cursor(struct pidx_sys_ns *px, int cursor)
{
	px->ops->set_cursor(px->idx, clamp(cursor, 1, PIDX_PID_MAX_LIMIT));
	WRITE_ONCE(px->cursor, cursor);
}

int pidx_sys_cursor(struct pidx_sys_ns *px)
{
	return READ_ONCE(px->cursor);
}

/*
 * find_pid_ns()'s callers hold RCU or tasklist_lock; an index's lookup
 * wants rcu_read_lock() itself, as its rcu_dereference()s say.
 */
struct pid *pidx_sys_find(struct pidx_sys_ns *px, int nr)
{
	struct pid *pid;

	if (nr <= 0)
		return NULL;
	rcu_read_lock();
	pid = px->ops->lookup(px->idx, nr);
	rcu_read_unlock();
	return pid;
}

/*
 * idr_get_next(): find_ge() gives a number, and its value may be gone by
 * the lookup (the task exited meanwhile); then the walk goes on past it.
 */
struct pid *pidx_sys_next(struct pidx_sys_ns *px, int *nr)
{
	struct pid *pid = NULL;
	int n = max(*nr, 0);

	rcu_read_lock();
	while ((n = px->ops->find_ge(px->idx, n)) >= 0) {
		pid = px->ops->lookup(px->idx, n);
		if (pid)
			break;
		n++;
	}
	rcu_read_unlock();
	if (pid)
		*nr = n;
	return pid;
}

void __pidx_sys_account(struct pidx_sys_ns *px, enum pidx_sys_site site,
			u64 t0)
{
	unsigned int i = px ? px->si - pidx_sys_indexes : 0;
	s64 d = local_clock() - t0;

	/* t0 of 0: the stats were turned on in the middle of the call */
	if (!t0 || d < 0)
		return;
	this_cpu_inc(pidx_sys_stats.calls[i][site]);
	this_cpu_add(pidx_sys_stats.ns[i][site], d);
}

/* debugfs: pidx_system/{available,index,self,stats} */

static int pidx_sys_available_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < PIDX_SYS_NR; i++)
		if (!pidx_sys_indexes[i].refused)
			seq_printf(m, "%s\n", pidx_sys_indexes[i].name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pidx_sys_available);

static int pidx_sys_index_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%s\n", READ_ONCE(pidx_sys_chosen)->name);
	return 0;
}

static int pidx_sys_index_open(struct inode *inode, struct file *file)
{
	return single_open(file, pidx_sys_index_show, NULL);
}

static ssize_t pidx_sys_index_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	struct pidx_sys_index *si;
	char buf[32];

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	si = pidx_sys_by_name(strim(buf));
	if (!si)
		return -EINVAL;
	if (si->refused) {
		pr_warn("%s refused as a PID namespace's index: %s\n",
			si->name, si->refused);
		return -EINVAL;
	}
	WRITE_ONCE(pidx_sys_chosen, si);
	return len;
}

static const struct file_operations pidx_sys_index_fops = {
	.owner = THIS_MODULE,
	.open = pidx_sys_index_open,
	.read = seq_read,
	.write = pidx_sys_index_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int pidx_sys_self_show(struct seq_file *m, void *v)
{
	struct pid_namespace *ns = task_active_pid_ns(current);
	struct pidx_sys_ns *px = READ_ONCE(ns->pidx);

	seq_printf(m, "index=%s level=%u\n",
		   px ? px->si->name : pidx_sys_indexes[0].name, ns->level);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pidx_sys_self);

static const char *const pidx_sys_site_names[PIDX_SYS_NR_SITES] = {
	[PIDX_SYS_ALLOC] = "alloc",
	[PIDX_SYS_FREE] = "free",
	[PIDX_SYS_FIND] = "find",
	[PIDX_SYS_FIND_GE] = "find_ge",
};

static int pidx_sys_stats_show(struct seq_file *m, void *v)
{
	unsigned int i, s;
	int cpu;

	seq_printf(m, "timing=%s pidx_mem_bytes=%ld\n",
		   static_key_enabled(&pidx_sys_timing) ? "on" : "off",
		   pidx_mem_bytes());
	for (i = 0; i < PIDX_SYS_NR; i++) {
		struct pidx_sys_index *si = &pidx_sys_indexes[i];

		if (si->refused)
			continue;
		seq_printf(m, "index=%s namespaces=%d", si->name,
			   atomic_read(&si->namespaces));
		for (s = 0; s < PIDX_SYS_NR_SITES; s++) {
			u64 calls = 0, ns = 0;

			for_each_possible_cpu(cpu) {
				struct pidx_sys_cpu_stats *st;

				st = per_cpu_ptr(&pidx_sys_stats, cpu);
				calls += READ_ONCE(st->calls[i][s]);
				ns += READ_ONCE(st->ns[i][s]);
			}
			seq_printf(m, " %s_calls=%llu %s_ns=%llu",
				   pidx_sys_site_names[s], calls,
				   pidx_sys_site_names[s], ns);
		}
		seq_putc(m, '\n');
	}
	return 0;
}

static int pidx_sys_stats_open(struct inode *inode, struct file *file)
{
	return single_open(file, pidx_sys_stats_show, NULL);
}

/* "0" zeroes the counters, "on" and "off" start and stop the timing. */
static ssize_t pidx_sys_stats_write(struct file *file, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	char buf[8];
	int cpu;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	if (!strcmp(buf, "on")) {
		static_branch_enable(&pidx_sys_timing);
	} else if (!strcmp(buf, "off")) {
		static_branch_disable(&pidx_sys_timing);
	} else if (!strcmp(buf, "0")) {
		/* exact while nothing forks: counts added meanwhile may stay */
		for_each_possible_cpu(cpu)
			memset(per_cpu_ptr(&pidx_sys_stats, cpu), 0,
			       sizeof(struct pidx_sys_cpu_stats));
	} else {
		return -EINVAL;
	}
	return len;
}

static const struct file_operations pidx_sys_stats_fops = {
	.owner = THIS_MODULE,
	.open = pidx_sys_stats_open,
	.read = seq_read,
	.write = pidx_sys_stats_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * Each index's slab caches, made once here and kept (pidx_keep_caches()):
 * a namespace's creation then never makes a cache, whose failure would
 * print a stack and whose names any user with CLONE_NEWPID could churn.
 */
static void __init pidx_sys_make_caches(void)
{
	struct pidx_sys_ns *px;
	unsigned int i;

	for (i = 0; i < PIDX_SYS_NR; i++) {
		if (!pidx_sys_indexes[i].ops || pidx_sys_indexes[i].refused)
			continue;
		px = pidx_sys_make(&pidx_sys_indexes[i]);
		if (!px) {
			pr_warn("could not make %s's caches at boot\n",
				pidx_sys_indexes[i].name);
			continue;
		}
		px->ops->destroy(px->idx);
		kfree(px);
	}
}

static int __init pidx_sys_late_init(void)
{
	struct dentry *dir = debugfs_create_dir("pidx_system", NULL);

	pidx_sys_make_caches();

	debugfs_create_file("available", 0444, dir, NULL,
			    &pidx_sys_available_fops);
	debugfs_create_file("index", 0644, dir, NULL, &pidx_sys_index_fops);
	debugfs_create_file("self", 0444, dir, NULL, &pidx_sys_self_fops);
	debugfs_create_file("stats", 0644, dir, NULL, &pidx_sys_stats_fops);
	return 0;
}
late_initcall(pidx_sys_late_init);
