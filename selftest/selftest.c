// SPDX-License-Identifier: GPL-2.0
/*
 * selftest: every index against an oracle that implements alloc_pid()'s
 * cyclic rule and the two-phase map (a number reserved, then published
 * with a value that lookups return), then in phases that hunt races:
 * allocs from every CPU, inserts, publishes and removes of the same keys,
 * readers in hard-irq context and an index grown and shrunk under
 * readers, the readers checking every value they find against the
 * generation its writer last gave the key.  Checks count and report
 * instead of crashing (the test_xarray.c way), ending with "N of M checks
 * passed" per index.
 *
 * This file is the command: it runs the phases of each index selected and
 * publishes the log.  The phases are in seq.c (against the oracle),
 * alloc.c (alloc() from every CPU), race.c (inserts, publishes and removes
 * racing) and readers.c (lockless readers under writers), on the kit in
 * kit.c, each layer only calling down (layers.txt).
 */
#include <linux/bits.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include "pidx_hooks.h"
#include "pidx_registry.h"
#include "pidx_state.h"
#include "kit.h"
#include "phases.h"
#include "selftest.h"

/*
 * A sanitizer reports a bad access the first time it happens, and under KASAN
 * or KCSAN every operation costs ten times as much: a fifth of the long
 * random sequence still takes every path thousands of times, and the stock
 * kernel's selftest compares the whole one with the oracle.
 */
#if IS_ENABLED(CONFIG_KASAN) || IS_ENABLED(CONFIG_KCSAN)
#define ST_RANDOM_OPS		20000
#else
#define ST_RANDOM_OPS		100000
#endif

static unsigned int pidx_selftest_index(const struct pidx_ops *ops,
					const struct pidx_config *cfg,
					struct pidx_log *log,
					unsigned int *checks, bool races_only)
{
	struct pidx_st st = { .ops = ops, .cfg = cfg, .log = log };
	long mem_before = pidx_mem_bytes();

	if (!races_only) {
		pidx_st_faults(&st);
		pidx_st_basic(&st);
		pidx_st_map(&st);
		pidx_st_alloc_publish(&st);
		pidx_st_set_cursor(&st);
		pidx_st_random(&st, 1024, 20000);
		pidx_st_random(&st, 65536, ST_RANDOM_OPS);
	}
	pidx_race_delays_start(st.cfg->seed);
	pidx_st_alloc_fill(&st);
	pidx_st_alloc_wrap(&st);
	pidx_st_race(&st);
	pidx_st_irq(&st);
	pidx_st_grow(&st);
	pidx_race_delays_stop();
	if (!races_only)
		pidx_st_remove_present(&st);
	CHECK_EQ(&st, pidx_mem_bytes() - mem_before, 0,
		 "bytes still allocated after destroy");
	pidx_log_printf(log, "selftest %s: %u of %u checks passed\n", ops->name,
			st.passed, st.total);
	pr_info("pidx: selftest %s: %u of %u checks passed\n", ops->name,
		st.passed, st.total);
	*checks = st.total;
	return st.total - st.passed;
}

/* cfg_lock held: a finished selftest's log becomes test_result's. */
static void pidx_selftest_publish(struct pidx_state *ps)
{
	lockdep_assert_held(&ps->cfg_lock);
	pidx_log_free(&ps->selftest_shown);
	ps->selftest_shown = ps->selftest_log;
	ps->selftest_log = (struct pidx_log){};
}

/*
 * @races_only: the concurrent phases alone (the "racetest" command), so that
 * they can run at every CPU count under the checkers' slow kernels.
 */
int pidx_selftest(struct pidx_state *ps, bool races_only)
{
	enum pidx_last_cmd cmd = races_only ? PIDX_CMD_RACETEST : PIDX_CMD_SELFTEST;
	/* serialized by run_lock */
	static struct pidx_config cfg;
	unsigned int i, checks, failed = 0, total = 0;
	unsigned long indexes;

	if (!mutex_trylock(&ps->run_lock))
		return -EBUSY;
	mutex_lock(&ps->cfg_lock);
	cfg = ps->cfg;
	/* the indexes selected for runs, but for one without contents (null) */
	indexes = cfg.indexes & pidx_indexes_all();
	if (!indexes) {
		ps->last_cmd = cmd;
		ps->last_rc = -EINVAL;
		ps->last_why = "indexes holds no index with contents to check";
		mutex_unlock(&ps->cfg_lock);
		mutex_unlock(&ps->run_lock);
		return -EINVAL;
	}
	ps->running = true;
	mutex_unlock(&ps->cfg_lock);
	pidx_log_free(&ps->selftest_log);
	/* the refusals it checks, which storms leave to the caller's ownership */
	pidx_contract_checks_set(true);
	for (i = 0; i < pidx_nr_indexes; i++) {
		if (!(indexes & BIT(i)))
			continue;
		failed += pidx_selftest_index(pidx_index_table[i], &cfg,
					      &ps->selftest_log, &checks,
					      races_only);
		total += checks;
	}
	pidx_contract_checks_set(false);
	pidx_log_printf(&ps->selftest_log, "selftest: %u of %u checks passed: %s\n",
			total - failed, total, failed ? "FAILED" : "ok");
	mutex_lock(&ps->cfg_lock);
	ps->running = false;
	ps->last_cmd = cmd;
	ps->last_rc = failed ? -EUCLEAN : 0;
	ps->last_why = failed ? "checks failed: see test_result" : "";
	pidx_selftest_publish(ps);
	mutex_unlock(&ps->cfg_lock);
	mutex_unlock(&ps->run_lock);
	return failed ? -EUCLEAN : 0;
}
