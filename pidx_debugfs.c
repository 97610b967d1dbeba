// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/pidx/: the control files.  A file for each row of the
 * settings' table (pidx_settings_table.h), which pidx_settings.c parses,
 * checks and shows; the commands, the reports and the trace.  Writes while
 * a run or selftest is in flight get -EBUSY.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "pidx_dist.h"
#include "pidx_settings.h"
#include "pidx_state.h"
#include "pidx_trace.h"
#include "selftest/selftest.h"

/* a cpulist of every CPU of a large machine fits; anything longer is junk */
#define PIDX_WRITE_MAX	512

static struct dentry *pidx_dir;
/* the state these files show and change: the module's, given at init */
static struct pidx_state *pidx_ui;

/* Copies a user write into @buf as a trimmed string; refuses empty/overlong. */
static int pidx_get_user_word(const char __user *ubuf, size_t count,
			      char *buf, char **word)
{
	if (!count || count >= PIDX_WRITE_MAX)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (strlen(buf) != count)
		return -EINVAL;
	*word = strim(buf);
	return **word ? 0 : -EINVAL;
}

/* A write of one word, which @take takes, or refuses with its answer. */
static ssize_t pidx_write_word(const char __user *ubuf, size_t count,
			       int (*take)(const void *data, char *word),
			       const void *data)
{
	char *buf, *word;
	int ret;

	buf = kmalloc(PIDX_WRITE_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = pidx_get_user_word(ubuf, count, buf, &word);
	if (!ret)
		ret = take(data, word);
	kfree(buf);
	return ret ? ret : count;
}

/* The newer kernels' DEFINE_SHOW_STORE_ATTRIBUTE, which 6.1 lacks */
#ifndef DEFINE_SHOW_STORE_ATTRIBUTE
#define DEFINE_SHOW_STORE_ATTRIBUTE(__name)				\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
									\
static const struct file_operations __name ## _fops = {			\
	.owner		= THIS_MODULE,					\
	.open		= __name ## _open,				\
	.read		= seq_read,					\
	.write		= __name ## _write,				\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}
#endif

/* a setting's file: its row in pidx_settings.c is the file's data */
static int pidx_setting_take(const void *set, char *word)
{
	return pidx_setting_set(pidx_ui, set, word);
}

static ssize_t pidx_setting_file_write(struct file *file, const char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	return pidx_write_word(ubuf, count, pidx_setting_take,
			       file_inode(file)->i_private);
}

static int pidx_setting_file_show(struct seq_file *m, void *v)
{
	pidx_setting_show(pidx_ui, m->private, m);
	return 0;
}
DEFINE_SHOW_STORE_ATTRIBUTE(pidx_setting_file);

/*
 * stall_test (tests only): milliseconds the next storm's first batch spins,
 * with interrupts off in ipi mode.  Validated like a setting, and kept under
 * the kernel's soft-lockup and RCU stall thresholds (PIDX_STALL_TEST_MAX_MS).
 */
static int pidx_stall_test_take(const void *data, char *word)
{
	u32 ms;
	int ret;

	ret = pidx_parse_u32(word, 0, PIDX_STALL_TEST_MAX_MS, &ms);
	if (ret)
		return ret;
	mutex_lock(&pidx_ui->cfg_lock);
	if (pidx_ui->running)
		ret = -EBUSY;
	else
		WRITE_ONCE(pidx_ui->stall_test_ms, ms);
	mutex_unlock(&pidx_ui->cfg_lock);
	return ret;
}

static ssize_t pidx_stall_test_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	return pidx_write_word(ubuf, count, pidx_stall_test_take, NULL);
}

static int pidx_stall_test_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%u\n", READ_ONCE(pidx_ui->stall_test_ms));
	return 0;
}
DEFINE_SHOW_STORE_ATTRIBUTE(pidx_stall_test);

static const char *const pidx_cmd_names[] = {
	[PIDX_CMD_NONE]		= "none",
	[PIDX_CMD_RUN]		= "run",
	[PIDX_CMD_RESET]	= "reset",
	[PIDX_CMD_SELFTEST]	= "selftest",
	[PIDX_CMD_RACETEST]	= "racetest",
	[PIDX_CMD_TRACE]	= "trace",
};

static ssize_t pidx_testcase_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	char buf[16], *cmd;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	ret = pidx_get_user_word(ubuf, count, buf, &cmd);
	if (ret)
		return ret;
	if (!strcmp(cmd, "run")) {
		ret = pidx_run(pidx_ui);
	} else if (!strcmp(cmd, "selftest")) {
		ret = pidx_selftest(pidx_ui, false);
	} else if (!strcmp(cmd, "racetest")) {
		ret = pidx_selftest(pidx_ui, true);
	} else if (!strcmp(cmd, "reset")) {
		if (!mutex_trylock(&pidx_ui->run_lock))
			return -EBUSY;
		pidx_reset(pidx_ui);
		mutex_unlock(&pidx_ui->run_lock);
	} else {
		ret = -EINVAL;
	}
	return ret ? ret : count;
}

static int pidx_testcase_show(struct seq_file *m, void *v)
{
	mutex_lock(&pidx_ui->cfg_lock);
	seq_printf(m, "state: %s\nlast: %s %d %s\nruns: %u\ncommands: run reset selftest racetest\n",
		   pidx_ui->running ? "running" : "idle",
		   pidx_cmd_names[pidx_ui->last_cmd], pidx_ui->last_rc, pidx_ui->last_why,
		   pidx_ui->run_no);
	mutex_unlock(&pidx_ui->cfg_lock);
	return 0;
}
DEFINE_SHOW_STORE_ATTRIBUTE(pidx_testcase);

/*
 * trace: the replay workload's trace (pidx_trace.h, docs/traces.md).  A
 * load is installed at its close, whole, or not at all.  Each open for
 * writing starts a load of its own: empty without O_APPEND; with O_APPEND,
 * at its first write, a copy of the trace as it is then.  Every write adds
 * to the load only, parsed as it comes (a last partial line held): a
 * malformed line gets -EINVAL (-EFBIG past PIDX_TRACE_EVENTS_MAX events),
 * testcase's last: line names it, and the load fails: later writes of
 * that open get the same error.  A write while a run is in flight gets
 * -EBUSY and fails the load too.  At close the outcome goes to testcase's
 * last: line: a load that did not fail is installed whole, its held
 * partial line read as its last line (a malformed one drops the load); an
 * O_APPEND load is dropped if another was installed since its copy, and
 * any load is dropped if a run is in flight.  An open that wrote nothing
 * changes nothing, but one with O_TRUNC clears the trace (": > trace";
 * "echo > trace" loads an empty trace, the same), unless another load was
 * installed since its open.  Each install bumps the trace's generation.  A truncating open is
 * refused with -EBUSY during a run.  Reading shows a summary, not the
 * text.  All under cfg_lock.
 */
#define PIDX_TRACE_CHUNK	4096

/* One open's load: seq_file's private. */
struct pidx_trace_load {
	struct pidx_trace t;
	/* the trace's generation at the O_APPEND copy, or at an O_TRUNC open */
	u32 gen;
	bool append;
	bool trunc;
	bool started;		/* a write came: t holds the load */
	int failed;		/* the error that failed the load, or 0 */
};

static struct pidx_trace_load *pidx_trace_load_of(struct file *file)
{
	return ((struct seq_file *)file->private_data)->private;
}

/* cfg_lock held: an outcome for testcase's last: line */
static void pidx_trace_outcome(int ret, u32 line, const char *why)
{
	if (ret && line)
		snprintf(pidx_ui->trace_why, sizeof(pidx_ui->trace_why),
			 "trace line %u: %s", line, why);
	else if (ret)
		strscpy(pidx_ui->trace_why, why, sizeof(pidx_ui->trace_why));
	pidx_ui->last_cmd = PIDX_CMD_TRACE;
	pidx_ui->last_rc = ret;
	pidx_ui->last_why = ret ? pidx_ui->trace_why : "";
}

/* cfg_lock held: @count bytes of @ubuf parsed into @t, in chunks */
static int pidx_trace_feed_user(struct pidx_trace *t, const char __user *ubuf,
				size_t count, char *buf, u32 *line, const char **why)
{
	size_t done, n;
	int ret;

	for (done = 0; done < count; done += n) {
		n = min_t(size_t, count - done, PIDX_TRACE_CHUNK);
		if (copy_from_user(buf, ubuf + done, n)) {
			/* no line of the trace is at fault */
			*line = 0;
			*why = "bad address in the write's buffer";
			return -EFAULT;
		}
		ret = pidx_trace_feed(t, buf, n, line, why);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

static ssize_t pidx_trace_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct pidx_trace_load *ld = pidx_trace_load_of(file);
	const char *why = "";
	u32 line = 0;
	char *buf;
	int ret;

	if (!count)
		return 0;
	buf = kmalloc(PIDX_TRACE_CHUNK, GFP_KERNEL);
	mutex_lock(&pidx_ui->cfg_lock);
	if (ld->failed) {
		ret = ld->failed;
		goto out;
	}
	if (!buf) {
		ret = -ENOMEM;
		why = "trace: no memory for a write: the load failed";
	} else if (pidx_ui->running) {
		ret = -EBUSY;
		why = "trace: a write during a run: the load failed";
	} else if (!ld->started && ld->append) {
		ret = pidx_trace_copy(&ld->t, &pidx_ui->trace);
		ld->gen = pidx_ui->trace_gen;
		why = "trace: no memory for a copy of the trace: the load failed";
	} else {
		ret = 0;
	}
	if (!ret) {
		ld->started = true;
		ret = pidx_trace_feed_user(&ld->t, ubuf, count, buf, &line, &why);
	}
	if (ret) {
		ld->failed = ret;
		pidx_trace_outcome(ret, line, why);
	}
out:
	mutex_unlock(&pidx_ui->cfg_lock);
	kfree(buf);
	if (ret)
		return ret;
	*ppos += count;
	return count;
}

static int pidx_trace_show(struct seq_file *m, void *v)
{
	struct pidx_trace_sum sum;
	int ret;

	mutex_lock(&pidx_ui->cfg_lock);
	ret = pidx_trace_summary(&pidx_ui->trace, &sum);
	mutex_unlock(&pidx_ui->cfg_lock);
	if (ret)
		return ret;
	seq_printf(m, "events: %u\nforks: %u\nexits: %u\nwaits: %u\nfrees: %u\n",
		   sum.events, sum.count[PIDX_TEV_FORK], sum.count[PIDX_TEV_EXIT],
		   sum.count[PIDX_TEV_WAIT], sum.count[PIDX_TEV_FREE]);
	seq_printf(m, "initial: %u\norphans: %u\ncpus: %u\nlines: %u\npending: %u\nreused: %u\n",
		   sum.initial, sum.orphans, sum.cpus, sum.lines, sum.pending, sum.reused);
	return 0;
}

static int pidx_trace_open(struct inode *inode, struct file *file)
{
	struct pidx_trace_load *ld = NULL;
	int ret;

	if (file->f_mode & FMODE_WRITE) {
		if ((file->f_flags & O_TRUNC) && READ_ONCE(pidx_ui->running))
			return -EBUSY;
		ld = kzalloc(sizeof(*ld), GFP_KERNEL);
		if (!ld)
			return -ENOMEM;
		pidx_trace_init(&ld->t);
		/* O_APPEND | O_TRUNC truncates: the load starts empty */
		ld->append = (file->f_flags & O_APPEND) && !(file->f_flags & O_TRUNC);
		ld->trunc = file->f_flags & O_TRUNC;
		mutex_lock(&pidx_ui->cfg_lock);
		ld->gen = pidx_ui->trace_gen;
		mutex_unlock(&pidx_ui->cfg_lock);
	}
	ret = single_open(file, pidx_trace_show, ld);
	if (ret)
		kfree(ld);
	return ret;
}

/* cfg_lock held: the load's outcome at close */
static void pidx_trace_close(struct pidx_trace_load *ld)
{
	const char *why = "";
	u32 line = 0;
	int ret;

	if (ld->failed)
		return;
	if (!ld->started && !ld->trunc)
		return;
	if (pidx_ui->running) {
		pidx_trace_outcome(-EBUSY, 0,
				   "trace: a run was in flight at close: the load dropped");
		return;
	}
	if (ld->started && ld->append && ld->gen != pidx_ui->trace_gen) {
		pidx_trace_outcome(-EAGAIN, 0,
				   "trace: another load replaced the trace during this O_APPEND one: dropped");
		return;
	}
	/* a truncation never clears a trace loaded since its open */
	if (!ld->started && ld->gen != pidx_ui->trace_gen) {
		pidx_trace_outcome(-EAGAIN, 0,
				   "trace: another load came since this truncating open: not cleared");
		return;
	}
	ret = pidx_trace_end(&ld->t, &line, &why);
	if (ret) {
		pidx_trace_outcome(ret, line, why);
		strlcat(pidx_ui->trace_why, " (at close: the load dropped)",
			sizeof(pidx_ui->trace_why));
		return;
	}
	/* installed whole: an open with O_TRUNC that wrote nothing, empty */
	pidx_trace_free(&pidx_ui->trace);
	pidx_ui->trace = ld->t;
	pidx_trace_init(&ld->t);
	pidx_ui->trace_gen++;
	pidx_trace_outcome(0, 0, "");
}

static int pidx_trace_release(struct inode *inode, struct file *file)
{
	struct pidx_trace_load *ld = pidx_trace_load_of(file);

	if (ld) {
		mutex_lock(&pidx_ui->cfg_lock);
		pidx_trace_close(ld);
		mutex_unlock(&pidx_ui->cfg_lock);
		pidx_trace_free(&ld->t);
		kfree(ld);
	}
	return single_release(inode, file);
}

static const struct file_operations pidx_trace_fops = {
	.owner		= THIS_MODULE,
	.open		= pidx_trace_open,
	.read		= seq_read,
	.write		= pidx_trace_write,
	.llseek		= seq_lseek,
	.release	= pidx_trace_release,
};

static void pidx_show_hypervisor(struct seq_file *m)
{
#ifdef CONFIG_X86
	unsigned int eax, sig[3];

	if (!boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return;
	cpuid(0x40000000, &eax, &sig[0], &sig[1], &sig[2]);
	seq_printf(m, "hypervisor: %.12s; under CPU emulation (QEMU TCG) absolute times are not hardware times: compare indexes within one run\n",
		   (char *)sig);
#endif
}

static void pidx_show_header(struct seq_file *m, const struct pidx_result *r)
{
	char dist[PIDX_DIST_NAME_MAX];
	struct pidx_milli b;

	seq_printf(m, "pidx run %u: workload %s", r->run,
		   pidx_workload_names[r->workload]);
	if (r->workload == PIDX_WL_MIXED)
		seq_printf(m, " %u/%u/%u", r->mix[0], r->mix[1], r->mix[2]);
	if (r->workload == PIDX_WL_FORK)
		seq_printf(m, " (%u lookups, %s exit)", r->fork_lookups,
			   pidx_fork_exit_names[r->fork_exit]);
	/* replay: ops is the most events one CPU replays; extra has the rest */
	if (r->workload == PIDX_WL_REPLAY)
		seq_printf(m, " of the trace (%u lookups a fork; ops setting not used)",
			   r->fork_lookups);
	seq_printf(m, ", mode %s, cpus %s (%u), keys %u, ops %u per CPU",
		   pidx_mode_names[r->mode], r->cpus, r->ncpus, r->keys, r->ops);
	if (r->ops_fitted)
		seq_printf(m, " (fitted: the default %u does not fit)", r->ops_fitted);
	seq_printf(m, ", pid_max %u, seed %llu, shape %s", r->pid_max, r->seed,
		   pidx_shape_names[r->shape]);
	if (r->shape == PIDX_SHAPE_AGED)
		seq_printf(m, " (%u wraps)", r->shape_wraps);
	if (pidx_dist_applies(r->workload, r->mix[PIDX_MIX_LOOKUP],
			      r->fork_lookups, r->keys)) {
		pidx_dist_name(dist, sizeof(dist), r->dist, r->dist_param);
		seq_printf(m, ", dist %s", dist);
	}
	if (r->levels > 1)
		seq_printf(m, ", %u namespace levels (lookups read the deepest)",
			   r->levels);
	seq_printf(m, "%s\n", r->dependent ? ", dependent lookups" : "");
	seq_printf(m, "clock: one ktime_get_ns() pair costs %s ns; it is inside p50..max, not inside ns/op\n",
		   pidx_milli(&b, r->clock_milli));
	pidx_show_hypervisor(m);
	seq_printf(m, "\n%-9s %3s %10s %10s %10s %9s %21s %7s %7s %8s %9s %s\n",
		   "index", "rep", "ops", "time_ms", "ns/op", "Mops/s",
		   "cpu_ns/op_min..max", "p50_ns", "p99_ns", "fails",
		   "bytes/key", "verified");
}

static void pidx_show_row(struct seq_file *m, const struct pidx_result *r)
{
	struct pidx_milli b[5];

	seq_printf(m, "%-9s %3u %10llu %10llu %10s %9s %10s..%-10s %7llu %7llu %8llu %9s %s",
		   r->index, r->repeat, r->total_ops, r->elapsed_ns / 1000000,
		   pidx_milli(&b[0], r->nsop_milli), pidx_milli(&b[1], r->mops_milli),
		   pidx_milli(&b[2], r->cpu_nsop_min_milli),
		   pidx_milli(&b[3], r->cpu_nsop_max_milli),
		   r->p50_ns, r->p99_ns, r->fails,
		   pidx_milli(&b[4], r->bytes_per_key_milli),
		   pidx_verdict_name(r));
	if (pidx_verdict_says_why(r))
		seq_printf(m, " (%s)", r->why);
	seq_putc(m, '\n');
}

/* The row's counters per op, or n/a for each one that was not read. */
static void pidx_show_pmu(struct seq_file *m, const struct pidx_result *r,
			  char sep)
{
	struct pidx_milli b;
	unsigned int c;

	for (c = 0; c < PIDX_PMU_NR; c++)
		seq_printf(m, "%c%s", sep, r->pmu_ok & BIT(c) ?
			   pidx_milli(&b, r->pmu_milli[c]) : "n/a");
}

/* The longest round (or batch) and irqs-off stretch of the run's storms. */
static void pidx_show_bounds(struct seq_file *m, const struct pidx_result *r)
{
	const struct pidx_result *s = r;
	struct pidx_milli b[2];
	u64 round = 0, irqs_off = 0;

	list_for_each_entry_from(s, &pidx_ui->results, node) {
		if (s->run != r->run)
			break;
		round = max(round, s->round_max_ns);
		irqs_off = max(irqs_off, s->irqs_off_max_ns);
	}
	if (r->mode == PIDX_MODE_IPI)
		seq_printf(m, "\nbounds: longest ipi round %s ms, interrupts off %s ms on one CPU; bound %u ms\n",
			   pidx_milli(&b[0], div_u64(round, 1000)),
			   pidx_milli(&b[1], div_u64(irqs_off, 1000)),
			   PIDX_ROUND_BOUND_MS);
	else
		seq_printf(m, "\nbounds: longest kthread batch %s ms; bound %u ms\n",
			   pidx_milli(&b[0], div_u64(round, 1000)),
			   PIDX_ROUND_BOUND_MS);
}

/* What trace_visits, the pmu and the node setting add to the rows. */
static void pidx_show_more(struct seq_file *m, struct list_head *first)
{
	const struct pidx_result *r = list_entry(first, struct pidx_result, node);
	const struct pidx_result *s;
	struct pidx_milli b[2];
	char node[16];
	unsigned int c;

	if (r->trace_visits) {
		seq_puts(m, "\nvisits per op (trace_visits=1: times above include the tracing):\n");
		seq_printf(m, "%-9s %3s %12s %10s %12s %10s\n", "index", "rep",
			   "nodes_mean", "nodes_max", "lines_mean", "lines_max");
		s = r;
		list_for_each_entry_from(s, &pidx_ui->results, node) {
			if (s->run != r->run)
				break;
			seq_printf(m, "%-9s %3u %12s %10u %12s %10u\n", s->index,
				   s->repeat, pidx_milli(&b[0], s->visits_milli),
				   s->visits_max, pidx_milli(&b[1], s->lines_milli),
				   s->lines_max);
		}
	}
	if (r->pmu != PIDX_PMU_OFF) {
		seq_printf(m, "\nCPU counters per op, kernel only (pmu=%s%s%s%s):\n%-9s %3s",
			   pidx_pmu_mode_names[r->pmu],
			   r->pmu == PIDX_PMU_SW ? "; software cpu-clock ns in every column" : "",
			   r->pmu_ok ? "" : "; ", r->pmu_ok ? "" : r->pmu_why,
			   "index", "rep");
		for (c = 0; c < PIDX_PMU_NR; c++)
			seq_printf(m, " %s", pidx_pmu_counter_names[c]);
		seq_putc(m, '\n');
		s = r;
		list_for_each_entry_from(s, &pidx_ui->results, node) {
			if (s->run != r->run)
				break;
			seq_printf(m, "%-9s %3u", s->index, s->repeat);
			pidx_show_pmu(m, s, ' ');
			seq_putc(m, '\n');
		}
	}
	pidx_show_bounds(m, r);
	pidx_node_name(node, sizeof(node), r->numa_node);
	seq_printf(m, "\nNUMA: node %s%s%s%s; storm cpu:node %s\n", node,
		   *r->numa_note ? " (" : "", r->numa_note,
		   *r->numa_note ? ")" : "", r->cpu_nodes);
	s = r;
	list_for_each_entry_from(s, &pidx_ui->results, node)
		if (s->run == r->run && !s->repeat)
			seq_printf(m, "%-9s index objects per node (node:count) after prefill: %s\n",
				   s->index, s->mem_nodes);
}

static int pidx_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* median [min..max] of ns/op over the repeats of each index in the last run */
static void pidx_show_summary(struct seq_file *m, struct list_head *first)
{
	const struct pidx_result *r, *s;
	struct pidx_milli b[3];
	unsigned int n;
	u32 run;
	u64 *v;

	v = kmalloc_array(PIDX_REPEAT_MAX, sizeof(*v), GFP_KERNEL);
	if (!v)
		return;
	seq_puts(m, "\nns/op over repeats: median [min..max]; extra\n");
	r = list_entry(first, struct pidx_result, node);
	run = r->run;
	list_for_each_entry_from(r, &pidx_ui->results, node) {
		if (r->run != run)
			break;
		if (r->repeat)
			continue;
		n = 0;
		s = r;
		list_for_each_entry_from(s, &pidx_ui->results, node)
			if (s->run == run && s->index == r->index &&
			    n < PIDX_REPEAT_MAX)
				v[n++] = s->nsop_milli;
		sort(v, n, sizeof(*v), pidx_cmp_u64, NULL);
		seq_printf(m, "%-9s %s [%s..%s] n=%u%s; %s\n",
			   r->index, pidx_milli(&b[0], v[n / 2]),
			   pidx_milli(&b[1], v[0]), pidx_milli(&b[2], v[n - 1]), n,
			   strcmp(r->index, "null") ? "" : " (engine cost only)",
			   r->extra);
	}
	kfree(v);
}

static void pidx_show_skipped(struct seq_file *m, unsigned long skipped)
{
	unsigned int i;

	for (i = 0; i < pidx_nr_indexes; i++)
		if (skipped & BIT(i))
			seq_printf(m, "skipped: %s: its writers cannot run with interrupts off, as ipi storms that write need\n",
				   pidx_index_table[i]->name);
}

/*
 * Never waits for a run or selftest (they hold pidx_ui->run_lock, not the locks
 * taken here only briefly): during a selftest, the previous command's text;
 * during a run, its rows so far.  Every section shows one run's rows alone,
 * though the next run may have added its first while this one was read.
 */
static int pidx_result_show(struct seq_file *m, void *v)
{
	struct pidx_result *r, *first = NULL;
	unsigned long skipped;
	u32 run_no;

	mutex_lock(&pidx_ui->cfg_lock);
	if ((pidx_ui->last_cmd == PIDX_CMD_SELFTEST ||
	     pidx_ui->last_cmd == PIDX_CMD_RACETEST) && pidx_ui->selftest_shown.buf) {
		seq_puts(m, pidx_ui->selftest_shown.buf);
		mutex_unlock(&pidx_ui->cfg_lock);
		return 0;
	}
	run_no = pidx_ui->run_no;
	skipped = pidx_ui->run_skipped;
	mutex_unlock(&pidx_ui->cfg_lock);

	mutex_lock(&pidx_ui->results_lock);
	list_for_each_entry(r, &pidx_ui->results, node) {
		if (r->run != run_no)
			continue;
		if (!first) {
			first = r;
			pidx_show_header(m, r);
		}
		pidx_show_row(m, r);
	}
	if (first) {
		pidx_show_summary(m, &first->node);
		pidx_show_more(m, &first->node);
	} else {
		seq_puts(m, "no results: write run to testcase\n");
	}
	pidx_show_skipped(m, skipped);
	mutex_unlock(&pidx_ui->results_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pidx_result);

static void *pidx_csv_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&pidx_ui->results_lock);
	return seq_list_start_head(&pidx_ui->results, *pos);
}

static void *pidx_csv_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &pidx_ui->results, pos);
}

static void pidx_csv_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&pidx_ui->results_lock);
}

static int pidx_csv_show(struct seq_file *m, void *v)
{
	/* substrate: user/pidx-user writes "user" rows */
	static const struct pidx_csv_sub kernel = {
		.substrate = "kernel",
		.extra = "",
		.bounds = true,
	};
	/* one reader at a time: pidx_csv_start() holds pidx_ui->results_lock */
	static char row[PIDX_CSV_ROW_MAX];

	if (v == &pidx_ui->results) {
		seq_puts(m, PIDX_CSV_HEADER);
		return 0;
	}
	pidx_csv_row(row, sizeof(row), list_entry(v, struct pidx_result, node),
		     &kernel);
	seq_puts(m, row);
	return 0;
}

static const struct seq_operations pidx_csv_sops = {
	.start	= pidx_csv_start,
	.next	= pidx_csv_next,
	.stop	= pidx_csv_stop,
	.show	= pidx_csv_show,
};
DEFINE_SEQ_ATTRIBUTE(pidx_csv);

static int pidx_available_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < pidx_nr_indexes; i++)
		seq_printf(m, "%s\t%s\n", pidx_index_table[i]->name,
			   pidx_index_table[i]->desc);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pidx_available);

static int pidx_memory_show(struct seq_file *m, void *v)
{
	struct pidx_mem_totals mem = pidx_mem_read();

	seq_printf(m, "bytes %ld\nallocs %ld\nfrees %ld\n", mem.bytes,
		   mem.allocs, mem.frees);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pidx_memory);

/*
 * One control file in pidx_dir; the first failure sticks in *@err.  The
 * files are all of pidx's interface, so unlike most debugfs users the module
 * does not load without every one of them (debugfs fails only for memory).
 */
static void pidx_debugfs_file(const char *name, umode_t mode, void *data,
			      const struct file_operations *fops, int *err)
{
	struct dentry *d = debugfs_create_file(name, mode, pidx_dir, data, fops);

	if (IS_ERR(d) && !*err)
		*err = PTR_ERR(d);
}

static void pidx_setting_file(const struct pidx_setting *set, void *err)
{
	pidx_debugfs_file(pidx_setting_name(set), 0600, (void *)set,
			  &pidx_setting_file_fops, err);
}

int pidx_debugfs_init(struct pidx_state *st)
{
	int ret;

	pidx_ui = st;
	ret = pidx_settings_load(st);
	if (ret)
		return ret;
	pidx_dir = debugfs_create_dir("pidx", NULL);
	if (IS_ERR(pidx_dir))
		return PTR_ERR(pidx_dir);
	pidx_debugfs_file("testcase", 0600, NULL, &pidx_testcase_fops, &ret);
	pidx_debugfs_file("test_result", 0400, NULL, &pidx_result_fops, &ret);
	pidx_debugfs_file("results.csv", 0400, NULL, &pidx_csv_fops, &ret);
	pidx_debugfs_file("available", 0400, NULL, &pidx_available_fops, &ret);
	pidx_debugfs_file("memory", 0400, NULL, &pidx_memory_fops, &ret);
	pidx_debugfs_file("stall_test", 0600, NULL, &pidx_stall_test_fops, &ret);
	pidx_debugfs_file("trace", 0600, NULL, &pidx_trace_fops, &ret);
	pidx_settings_for_each(pidx_setting_file, &ret);
	if (ret)
		debugfs_remove_recursive(pidx_dir);
	return ret;
}

void pidx_debugfs_exit(void)
{
	debugfs_remove_recursive(pidx_dir);
}
