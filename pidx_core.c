// SPDX-License-Identifier: GPL-2.0
/*
 * pidx: the module's glue, the top of its layers (README.md, "Files").
 * Load gives the state its defaults and opens the control files over it;
 * unload closes them, which waits for any command in flight, frees every
 * row and log, and checks that the indexes gave back all they took.  The
 * state lives here and is handed down, so that nothing below reaches up.
 */
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/numa.h>
#include "pidx_hooks.h"
#include "pidx_pid.h"
#include "pidx_state.h"

static struct pidx_state pidx_state = {
	.cfg_lock = __MUTEX_INITIALIZER(pidx_state.cfg_lock),
	.run_lock = __MUTEX_INITIALIZER(pidx_state.run_lock),
	.results = LIST_HEAD_INIT(pidx_state.results),
	.results_lock = __MUTEX_INITIALIZER(pidx_state.results_lock),
	.last_why = "",
};

static void pidx_defaults(struct pidx_config *cfg)
{
	pidx_config_defaults(cfg);
	/* ipi storms that write cannot run on PREEMPT_RT (pidx_run.c) */
	cfg->mode = IS_ENABLED(CONFIG_PREEMPT_RT) ? PIDX_MODE_KTHREAD : PIDX_MODE_IPI;
	cpumask_copy(&cfg->cpus, cpu_online_mask);
}

static int __init pidx_init(void)
{
	int ret, old_mark;

	pidx_defaults(&pidx_state.cfg);
	/*
	 * Before fault injection is marked: kmem_cache_create() reports its
	 * own failure with a stack dump that no gfp flag quiets, which a
	 * checker kernel's run counts as a kernel problem.
	 */
	ret = pidx_pid_cache_init();
	if (ret) {
		pr_info("pidx: not loaded: %d\n", ret);
		return ret;
	}
	/* fault_inject=8 at insmod: init's own allocations may fail */
	old_mark = pidx_fault_mark(pidx_fault_inject & PIDX_FAULT_LOAD);
	ret = pidx_debugfs_init(&pidx_state);
	pidx_fault_restore(old_mark);
	if (ret) {
		pidx_pid_cache_exit();
		pr_info("pidx: not loaded: %d\n", ret);
		return ret;
	}
	pr_info("pidx: loaded; %u indexes; /sys/kernel/debug/pidx/\n",
		pidx_nr_indexes);
	return 0;
}

static void __exit pidx_exit(void)
{
	int old_mark = pidx_fault_mark(pidx_fault_inject & PIDX_FAULT_LOAD);
	struct pidx_mem_totals mem;

	/* waits for any file operation in flight, so no run is left */
	pidx_debugfs_exit();
	pidx_reset(&pidx_state);
	pidx_trace_free(&pidx_state.trace);
	pidx_pid_cache_exit();
	pidx_fault_restore(old_mark);
	mem = pidx_mem_read();
	if (pidx_pid_live())
		pr_err("pidx: leak: %ld struct pid objects\n", pidx_pid_live());
	if (mem.bytes || mem.allocs != mem.frees)
		pr_err("pidx: leak: %ld bytes, %ld allocations, %ld frees\n",
		       mem.bytes, mem.allocs, mem.frees);
	else
		pr_info("pidx: unloaded; %ld allocations, all freed\n", mem.allocs);
}

module_init(pidx_init);
module_exit(pidx_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("PID index benchmark: IDR vs skip list vs red-black skip list");
MODULE_VERSION(PIDX_VERSION);
