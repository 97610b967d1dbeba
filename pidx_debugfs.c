// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/pidx/: the control files, and module parameters that
 * take the same words.  Every write is parsed into a copy of the settings and
 * copied back only when the whole value is valid, so a refused write changes
 * nothing.  Writes while a run or selftest is in flight get -EBUSY.
 */
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "pidx_dist.h"
#include "pidx_state.h"
#include "pidx_trace.h"
#include "selftest/selftest.h"

/* a cpulist of every CPU of a large machine fits; anything longer is junk */
#define PIDX_WRITE_MAX	512

struct pidx_setting {
	const char *name;
	int (*parse)(struct pidx_config *cfg, char *val);
	/* NULL: the setting is the u32 at @u32_offset */
	void (*show)(struct seq_file *m, const struct pidx_config *cfg);
	size_t u32_offset;
};

static struct dentry *pidx_dir;
/* the state these files show and change: the module's, given at init */
static struct pidx_state *pidx_ui;

static int pidx_parse_word(const char *val, const char *const *words,
			   unsigned int n)
{
	int i = __sysfs_match_string(words, n, val);

	return i < 0 ? -EINVAL : i;
}

static int pidx_parse_u32(const char *val, u32 min, u32 max, u32 *out)
{
	u32 v;

	if (kstrtou32(val, 0, &v) || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_indexes(struct pidx_config *cfg, char *val)
{
	unsigned long mask = 0;
	char *name;
	int i;

	if (!strcmp(val, "all")) {
		cfg->indexes = pidx_indexes_all();
		return 0;
	}
	while ((name = strsep(&val, ",")) != NULL) {
		i = pidx_index_by_name(strim(name));
		if (i < 0)
			return i;
		mask |= BIT(i);
	}
	cfg->indexes = mask;
	return 0;
}

static void show_indexes(struct seq_file *m, const struct pidx_config *cfg)
{
	const char *sep = "";
	unsigned int i;

	for (i = 0; i < pidx_nr_indexes; i++) {
		if (cfg->indexes & BIT(i)) {
			seq_printf(m, "%s%s", sep, pidx_index_table[i]->name);
			sep = ",";
		}
	}
	seq_putc(m, '\n');
}

static int parse_workload(struct pidx_config *cfg, char *val)
{
	int i = pidx_parse_word(val, pidx_workload_names, PIDX_NR_WORKLOADS);

	if (i < 0)
		return i;
	cfg->workload = i;
	return 0;
}

static void show_workload(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%s\n", pidx_workload_names[cfg->workload]);
}

static int parse_mode(struct pidx_config *cfg, char *val)
{
	int i = pidx_parse_word(val, pidx_mode_names, PIDX_NR_MODES);

	if (i < 0)
		return i;
	cfg->mode = i;
	return 0;
}

static void show_mode(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%s\n", pidx_mode_names[cfg->mode]);
}

static int parse_mix(struct pidx_config *cfg, char *val)
{
	u32 mix[PIDX_NR_MIX];
	unsigned int i;
	char *part;

	for (i = 0; i < PIDX_NR_MIX; i++) {
		part = strsep(&val, "/");
		if (!part || pidx_parse_u32(part, 0, 100, &mix[i]))
			return -EINVAL;
	}
	if (val || mix[0] + mix[1] + mix[2] != 100)
		return -EINVAL;
	memcpy(cfg->mix, mix, sizeof(mix));
	return 0;
}

static void show_mix(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%u/%u/%u\n", cfg->mix[0], cfg->mix[1], cfg->mix[2]);
}

static int parse_cpus(struct pidx_config *cfg, char *val)
{
	int ret = 0;

	cpus_read_lock();
	if (!strcmp(val, "all"))
		cpumask_copy(&cfg->cpus, cpu_online_mask);
	else if (cpulist_parse(val, &cfg->cpus) || cpumask_empty(&cfg->cpus) ||
		 !cpumask_subset(&cfg->cpus, cpu_online_mask))
		ret = -EINVAL;
	cpus_read_unlock();
	return ret;
}

static void show_cpus(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%*pbl\n", cpumask_pr_args(&cfg->cpus));
}

static int parse_keys(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 1, pidx_space(cfg->pid_max), &cfg->keys);
}

static int parse_pid_max(struct pidx_config *cfg, char *val)
{
	u32 v;

	if (pidx_parse_u32(val, PIDX_PID_MAX_MIN, PIDX_PID_MAX_LIMIT, &v) ||
	    cfg->keys > pidx_space(v))
		return -EINVAL;
	cfg->pid_max = v;
	return 0;
}

static int parse_ops(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 1, PIDX_OPS_MAX, &cfg->ops);
}

static int parse_repeat(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 1, PIDX_REPEAT_MAX, &cfg->repeat);
}

static int parse_fork_window(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 1, PIDX_FORK_WINDOW_MAX, &cfg->fork_window);
}

static int parse_fork_lookups(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 0, PIDX_FORK_LOOKUPS_MAX, &cfg->fork_lookups);
}

static int parse_fork_exit(struct pidx_config *cfg, char *val)
{
	int i = pidx_parse_word(val, pidx_fork_exit_names, PIDX_NR_EXITS);

	if (i < 0)
		return i;
	cfg->fork_exit = i;
	return 0;
}

static void show_fork_exit(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%s\n", pidx_fork_exit_names[cfg->fork_exit]);
}

static int parse_seed(struct pidx_config *cfg, char *val)
{
	return kstrtou64(val, 0, &cfg->seed) ? -EINVAL : 0;
}

static void show_seed(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%llu\n", cfg->seed);
}

static int parse_sl_p(struct pidx_config *cfg, char *val)
{
	u32 v;

	if (pidx_parse_u32(val, 2, 16, &v) || !is_power_of_2(v))
		return -EINVAL;
	cfg->sl_p = v;
	return 0;
}

static int parse_sl_max_level(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 0, PIDX_SL_LEVELS_MAX, &cfg->sl_max_level);
}

static int parse_rb_level(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 0, PIDX_SL_LEVELS_MAX, &cfg->rb_level);
}

static int parse_trace_visits(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 0, 1, &cfg->trace_visits);
}

static int parse_dependent(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 0, 1, &cfg->dependent);
}

static int parse_levels(struct pidx_config *cfg, char *val)
{
	return pidx_parse_u32(val, 1, PIDX_LEVELS_MAX, &cfg->levels);
}

/* "any" (the allocating CPU's node), "interleave", or a node with memory */
static int parse_node(struct pidx_config *cfg, char *val)
{
	u32 v;

	if (!strcmp(val, "any")) {
		cfg->node = NUMA_NO_NODE;
	} else if (!strcmp(val, "interleave")) {
		cfg->node = PIDX_NODE_INTERLEAVE;
	} else {
		if (pidx_parse_u32(val, 0, MAX_NUMNODES - 1, &v) ||
		    !pidx_node_has_memory(v))
			return -EINVAL;
		cfg->node = v;
	}
	return 0;
}

static void show_node(struct seq_file *m, const struct pidx_config *cfg)
{
	char buf[16];

	pidx_node_name(buf, sizeof(buf), cfg->node);
	seq_printf(m, "%s\n", buf);
}

static int parse_pmu(struct pidx_config *cfg, char *val)
{
	int i = pidx_parse_word(val, pidx_pmu_mode_names, PIDX_NR_PMU_MODES);

	if (i < 0)
		return i;
	cfg->pmu = i;
	return 0;
}

static void show_pmu(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%s\n", pidx_pmu_mode_names[cfg->pmu]);
}

static int parse_shape(struct pidx_config *cfg, char *val)
{
	int i = pidx_parse_word(val, pidx_shape_names, PIDX_NR_SHAPES);

	if (i < 0)
		return i;
	cfg->shape = i;
	return 0;
}

static void show_shape(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%s\n", pidx_shape_names[cfg->shape]);
}

/* "uniform", "zipf:S", "recent:H" or "sequential" (pidx_dist.h) */
static int parse_dist(struct pidx_config *cfg, char *val)
{
	return pidx_dist_parse(val, &cfg->dist, &cfg->dist_param);
}

static void show_dist(struct seq_file *m, const struct pidx_config *cfg)
{
	char buf[PIDX_DIST_NAME_MAX];

	pidx_dist_name(buf, sizeof(buf), cfg->dist, cfg->dist_param);
	seq_printf(m, "%s\n", buf);
}

#define PIDX_SETTING(n) { .name = #n, .parse = parse_##n, .show = show_##n }
#define PIDX_SETTING_U32(n)						\
	{ .name = #n, .parse = parse_##n,				\
	  .u32_offset = offsetof(struct pidx_config, n) }

/* pid_max before keys: module parameters are applied in this order */
static const struct pidx_setting pidx_settings[] = {
	PIDX_SETTING(indexes),
	PIDX_SETTING(workload),
	PIDX_SETTING(mix),
	PIDX_SETTING_U32(pid_max),
	PIDX_SETTING_U32(keys),
	PIDX_SETTING_U32(ops),
	PIDX_SETTING(mode),
	PIDX_SETTING(cpus),
	PIDX_SETTING_U32(repeat),
	PIDX_SETTING(seed),
	PIDX_SETTING_U32(fork_window),
	PIDX_SETTING_U32(sl_p),
	PIDX_SETTING_U32(sl_max_level),
	PIDX_SETTING_U32(rb_level),
	PIDX_SETTING_U32(trace_visits),
	PIDX_SETTING(node),
	PIDX_SETTING(pmu),
	PIDX_SETTING_U32(fork_lookups),
	PIDX_SETTING(fork_exit),
	PIDX_SETTING_U32(dependent),
	PIDX_SETTING(shape),
	PIDX_SETTING(dist),
	PIDX_SETTING_U32(levels),
};

/* Module parameters: the same words as the files, applied at load. */
static char *pidx_params[ARRAY_SIZE(pidx_settings)];
module_param_named(indexes, pidx_params[0], charp, 0444);
module_param_named(workload, pidx_params[1], charp, 0444);
module_param_named(mix, pidx_params[2], charp, 0444);
module_param_named(pid_max, pidx_params[3], charp, 0444);
module_param_named(keys, pidx_params[4], charp, 0444);
module_param_named(ops, pidx_params[5], charp, 0444);
module_param_named(mode, pidx_params[6], charp, 0444);
module_param_named(cpus, pidx_params[7], charp, 0444);
module_param_named(repeat, pidx_params[8], charp, 0444);
module_param_named(seed, pidx_params[9], charp, 0444);
module_param_named(fork_window, pidx_params[10], charp, 0444);
module_param_named(sl_p, pidx_params[11], charp, 0444);
module_param_named(sl_max_level, pidx_params[12], charp, 0444);
module_param_named(rb_level, pidx_params[13], charp, 0444);
module_param_named(trace_visits, pidx_params[14], charp, 0444);
module_param_named(node, pidx_params[15], charp, 0444);
module_param_named(pmu, pidx_params[16], charp, 0444);
module_param_named(fork_lookups, pidx_params[17], charp, 0444);
module_param_named(fork_exit, pidx_params[18], charp, 0444);
module_param_named(dependent, pidx_params[19], charp, 0444);
module_param_named(shape, pidx_params[20], charp, 0444);
module_param_named(dist, pidx_params[21], charp, 0444);
module_param_named(levels, pidx_params[22], charp, 0444);
MODULE_PARM_DESC(indexes, "initial settings: each parameter takes the words of the debugfs file of its name");
MODULE_PARM_DESC(mode, "ipi or kthread; the default is ipi, or kthread on PREEMPT_RT (where ipi storms may only read)");

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

/* one setting at a time: writers hold pidx_ui->cfg_lock */
static struct pidx_config pidx_cfg_new;

/*
 * A run or selftest copies the settings and sets pidx_ui->running under
 * pidx_ui->cfg_lock, so testing pidx_ui->running here refuses exactly the writes
 * that would land while one is in flight; two settings writers only wait
 * for each other.
 */
static int pidx_apply_setting(const struct pidx_setting *set, char *val)
{
	int ret = -EBUSY;

	mutex_lock(&pidx_ui->cfg_lock);
	if (!pidx_ui->running) {
		pidx_cfg_new = pidx_ui->cfg;
		ret = set->parse(&pidx_cfg_new, val);
		if (!ret)
			pidx_ui->cfg = pidx_cfg_new;
	}
	mutex_unlock(&pidx_ui->cfg_lock);
	return ret;
}

static ssize_t pidx_setting_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	const struct pidx_setting *set = file_inode(file)->i_private;
	char *buf, *val;
	int ret;

	buf = kmalloc(PIDX_WRITE_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = pidx_get_user_word(ubuf, count, buf, &val);
	if (!ret)
		ret = pidx_apply_setting(set, val);
	kfree(buf);
	return ret ? ret : count;
}

static int pidx_setting_show(struct seq_file *m, void *v)
{
	const struct pidx_setting *set = m->private;

	mutex_lock(&pidx_ui->cfg_lock);
	if (set->show)
		set->show(m, &pidx_ui->cfg);
	else
		seq_printf(m, "%u\n", *(u32 *)((char *)&pidx_ui->cfg + set->u32_offset));
	mutex_unlock(&pidx_ui->cfg_lock);
	return 0;
}

static int pidx_setting_open(struct inode *inode, struct file *file)
{
	return single_open(file, pidx_setting_show, inode->i_private);
}

static const struct file_operations pidx_setting_fops = {
	.owner		= THIS_MODULE,
	.open		= pidx_setting_open,
	.read		= seq_read,
	.write		= pidx_setting_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

/*
 * stall_test (tests only): milliseconds the next storm's first batch spins,
 * with interrupts off in ipi mode.  Validated like a setting, and kept under
 * the kernel's soft-lockup and RCU stall thresholds (PIDX_STALL_TEST_MAX_MS).
 */
static ssize_t pidx_stall_test_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	char *buf, *val;
	u32 ms;
	int ret;

	buf = kmalloc(PIDX_WRITE_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = pidx_get_user_word(ubuf, count, buf, &val);
	if (!ret)
		ret = pidx_parse_u32(val, 0, PIDX_STALL_TEST_MAX_MS, &ms);
	kfree(buf);
	if (ret)
		return ret;
	mutex_lock(&pidx_ui->cfg_lock);
	if (pidx_ui->running)
		ret = -EBUSY;
	else
		WRITE_ONCE(pidx_ui->stall_test_ms, ms);
	mutex_unlock(&pidx_ui->cfg_lock);
	return ret ? ret : count;
}

static int pidx_stall_test_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%u\n", READ_ONCE(pidx_ui->stall_test_ms));
	return 0;
}

static int pidx_stall_test_open(struct inode *inode, struct file *file)
{
	return single_open(file, pidx_stall_test_show, NULL);
}

static const struct file_operations pidx_stall_test_fops = {
	.owner		= THIS_MODULE,
	.open		= pidx_stall_test_open,
	.read		= seq_read,
	.write		= pidx_stall_test_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

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

static int pidx_testcase_open(struct inode *inode, struct file *file)
{
	return single_open(file, pidx_testcase_show, NULL);
}

static const struct file_operations pidx_testcase_fops = {
	.owner		= THIS_MODULE,
	.open		= pidx_testcase_open,
	.read		= seq_read,
	.write		= pidx_testcase_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

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
	seq_printf(m, ", mode %s, cpus %s (%u), keys %u, ops %u per CPU, pid_max %u, seed %llu, shape %s",
		   pidx_mode_names[r->mode], r->cpus, r->ncpus, r->keys,
		   r->ops, r->pid_max, r->seed, pidx_shape_names[r->shape]);
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
		   pidx_verdict_names[r->verdict]);
	if (r->verdict == PIDX_FAILED)
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

static int pidx_result_open(struct inode *inode, struct file *file)
{
	return single_open(file, pidx_result_show, NULL);
}

static const struct file_operations pidx_result_fops = {
	.owner		= THIS_MODULE,
	.open		= pidx_result_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
};

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

/* Module parameters, in table order; a pair that depends on each other gets a second try. */
static int pidx_apply_params(void)
{
	unsigned int pass, i;
	int ret = 0;

	for (pass = 0; pass < 2; pass++) {
		ret = 0;
		for (i = 0; i < ARRAY_SIZE(pidx_settings); i++) {
			char *val;

			if (!pidx_params[i])
				continue;
			val = kstrdup(pidx_params[i], GFP_KERNEL);
			if (!val)
				return -ENOMEM;
			if (pidx_apply_setting(&pidx_settings[i], strim(val))) {
				if (pass)
					pr_err("pidx: invalid parameter %s=%s\n",
					       pidx_settings[i].name, pidx_params[i]);
				ret = -EINVAL;
			}
			kfree(val);
		}
		if (!ret)
			break;
	}
	return ret;
}

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

int pidx_debugfs_init(struct pidx_state *st)
{
	unsigned int i;
	int ret;

	pidx_ui = st;
	ret = pidx_apply_params();
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
	for (i = 0; i < ARRAY_SIZE(pidx_settings); i++)
		pidx_debugfs_file(pidx_settings[i].name, 0600,
				  (void *)&pidx_settings[i], &pidx_setting_fops, &ret);
	if (ret)
		debugfs_remove_recursive(pidx_dir);
	return ret;
}

void pidx_debugfs_exit(void)
{
	debugfs_remove_recursive(pidx_dir);
}
