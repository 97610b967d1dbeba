// SPDX-License-Identifier: GPL-2.0
/*
 * The settings: parsed, checked and shown as their rows in
 * pidx_settings_table.h say, one row each.  From those rows come both the
 * debugfs files (pidx_debugfs.c makes one for each row) and the module
 * parameters of the same names, which take the same words.  A write is
 * parsed into a copy of the settings that replaces them only when the whole
 * value is valid, so a refused write changes nothing.
 */
#include <linux/cpu.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pidx_dist.h"
#include "pidx_settings.h"

enum pidx_setting_kind { PIDX_SET_U32, PIDX_SET_WORD, PIDX_SET_OWN };

struct pidx_setting {
	const char *name;
	/* the module parameter: the word given at load, or NULL */
	char **param;
	enum pidx_setting_kind kind;
	/* the field NAME in struct pidx_config: the u32 of U32 and WORD rows */
	size_t offset;
	/* and its flag in cfg->written, set by every write it takes */
	size_t written;
	/* PIDX_SET_U32: the bounds, and what else refuses a number in them */
	u32 min;
	u32 max;
	bool (*check)(const struct pidx_config *cfg, u32 v);
	/* PIDX_SET_WORD: the words, kept as the number of the one given */
	const char *const *words;
	unsigned int nr_words;
	/* PIDX_SET_OWN */
	int (*parse)(struct pidx_config *cfg, char *val);
	void (*show)(struct seq_file *m, const struct pidx_config *cfg);
};

int pidx_parse_u32(const char *val, u32 min, u32 max, u32 *out)
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

static int parse_seed(struct pidx_config *cfg, char *val)
{
	return kstrtou64(val, 0, &cfg->seed) ? -EINVAL : 0;
}

static void show_seed(struct seq_file *m, const struct pidx_config *cfg)
{
	seq_printf(m, "%llu\n", cfg->seed);
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

/* keys and pid_max, each checked against the other as it is now */
static bool pid_max_holds_keys(const struct pidx_config *cfg, u32 v)
{
	return cfg->keys <= pidx_space(v);
}

static bool keys_fit_pid_max(const struct pidx_config *cfg, u32 v)
{
	return v <= pidx_space(cfg->pid_max);
}

static bool power_of_2(const struct pidx_config *cfg, u32 v)
{
	return is_power_of_2(v);
}

/* U32 and WORDS rows write a u32: their fields are u32s, or enums that size */
#define PIDX_U32(lo, hi, chk)	true
#define PIDX_WORDS(w, nr)	true
#define PIDX_OWN(p, s)		false
#define PIDX_SETTING(n, ...)						\
	static_assert(!(__VA_ARGS__) || sizeof_field(struct pidx_config, n) == sizeof(u32))
#include "pidx_settings_table.h"
#undef PIDX_SETTING
#undef PIDX_U32
#undef PIDX_WORDS
#undef PIDX_OWN

/* How each row is parsed, checked and shown */
#define PIDX_U32(lo, hi, chk)						\
	.kind = PIDX_SET_U32, .min = (lo), .max = (hi), .check = (chk)
#define PIDX_WORDS(w, nr)	.kind = PIDX_SET_WORD, .words = (w), .nr_words = (nr)
#define PIDX_OWN(p, s)		.kind = PIDX_SET_OWN, .parse = (p), .show = (s)

/* Each row's flag in cfg->written, as a constant the row's setting can take */
#define PIDX_SETTING(n, ...)						\
	enum pidx_written_at_##n { pidx_written_##n = offsetof(struct pidx_config, written.n) }
#include "pidx_settings_table.h"
#undef PIDX_SETTING

/* Each row's setting, and where its module parameter keeps its word */
#define PIDX_SETTING(n, ...)						\
	static char *pidx_param_##n;					\
	static const struct pidx_setting pidx_setting_##n = {		\
		.name = #n, .param = &pidx_param_##n,			\
		.offset = offsetof(struct pidx_config, n),		\
		.written = pidx_written_##n, __VA_ARGS__		\
	}
#include "pidx_settings_table.h"
#undef PIDX_SETTING

/* Each row's module parameter, applied at load (pidx_settings_load()) */
#define PIDX_SETTING(n, ...)	module_param_named(n, pidx_param_##n, charp, 0444)
#include "pidx_settings_table.h"
#undef PIDX_SETTING
MODULE_PARM_DESC(indexes, "initial settings: each parameter takes the words of the debugfs file of its name");
MODULE_PARM_DESC(mode, "ipi or kthread; the default is ipi, or kthread on PREEMPT_RT (where ipi storms may only read)");

void pidx_settings_for_each(void (*fn)(const struct pidx_setting *set, void *arg),
			    void *arg)
{
#define PIDX_SETTING(n, ...)	fn(&pidx_setting_##n, arg)
#include "pidx_settings_table.h"
#undef PIDX_SETTING
}

const char *pidx_setting_name(const struct pidx_setting *set)
{
	return set->name;
}

static u32 pidx_cfg_u32(const struct pidx_setting *set,
			const struct pidx_config *cfg)
{
	return *(const u32 *)((const char *)cfg + set->offset);
}

static int pidx_setting_parse(const struct pidx_setting *set,
			      struct pidx_config *cfg, char *val)
{
	u32 *field = (u32 *)((char *)cfg + set->offset);
	int i, ret;
	u32 v;

	switch (set->kind) {
	case PIDX_SET_U32:
		if (pidx_parse_u32(val, set->min, set->max, &v) ||
		    (set->check && !set->check(cfg, v)))
			return -EINVAL;
		*field = v;
		break;
	case PIDX_SET_WORD:
		i = __sysfs_match_string(set->words, set->nr_words, val);
		if (i < 0)
			return -EINVAL;
		*field = i;
		break;
	default:
		ret = set->parse(cfg, val);
		if (ret)
			return ret;
	}
	/* the default's own value, written, is written too: never fitted */
	*(bool *)((char *)cfg + set->written) = true;
	return 0;
}

/* one setting at a time: writers hold st->cfg_lock */
static struct pidx_config pidx_cfg_new;

/*
 * A run or selftest copies the settings and sets st->running under
 * st->cfg_lock, so testing st->running here refuses exactly the writes
 * that would land while one is in flight; two settings writers only wait
 * for each other.  The value is parsed into a copy of the settings that
 * replaces them only when the whole value is valid, so a refused write
 * changes nothing.
 */
int pidx_setting_set(struct pidx_state *st, const struct pidx_setting *set,
		     char *val)
{
	int ret = -EBUSY;

	mutex_lock(&st->cfg_lock);
	if (!st->running) {
		pidx_cfg_new = st->cfg;
		ret = pidx_setting_parse(set, &pidx_cfg_new, val);
		if (!ret)
			st->cfg = pidx_cfg_new;
	}
	mutex_unlock(&st->cfg_lock);
	return ret;
}

void pidx_setting_show(struct pidx_state *st, const struct pidx_setting *set,
		       struct seq_file *m)
{
	mutex_lock(&st->cfg_lock);
	switch (set->kind) {
	case PIDX_SET_U32:
		seq_printf(m, "%u\n", pidx_cfg_u32(set, &st->cfg));
		break;
	case PIDX_SET_WORD:
		seq_printf(m, "%s\n", set->words[pidx_cfg_u32(set, &st->cfg)]);
		break;
	default:
		set->show(m, &st->cfg);
	}
	mutex_unlock(&st->cfg_lock);
}

struct pidx_params_load {
	struct pidx_state *st;
	bool last;		/* the second try: refusals are logged */
	int ret;
};

static void pidx_param_apply(const struct pidx_setting *set, void *arg)
{
	struct pidx_params_load *ld = arg;
	char *val;

	if (!*set->param || ld->ret == -ENOMEM)
		return;
	val = kstrdup(*set->param, GFP_KERNEL);
	if (!val) {
		ld->ret = -ENOMEM;
		return;
	}
	if (pidx_setting_set(ld->st, set, strim(val))) {
		if (ld->last)
			pr_err("pidx: invalid parameter %s=%s\n", set->name,
			       *set->param);
		ld->ret = -EINVAL;
	}
	kfree(val);
}

/* In table order; a pair that depends on each other gets a second try. */
int pidx_settings_load(struct pidx_state *st)
{
	struct pidx_params_load ld = { .st = st };

	pidx_settings_for_each(pidx_param_apply, &ld);
	if (ld.ret == -EINVAL) {
		ld.last = true;
		ld.ret = 0;
		pidx_settings_for_each(pidx_param_apply, &ld);
	}
	return ld.ret;
}
