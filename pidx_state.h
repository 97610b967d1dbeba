/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's state, in one structure that the module's glue (pidx_core.c)
 * owns and hands down: the settings, the last command's outcome, the
 * results and the selftest's log.  The debugfs interface reads and writes
 * it, and the run and the selftest take it as their argument, so that no
 * layer reaches up into another's globals (README.md, "Files").
 */
#ifndef _PIDX_STATE_H
#define _PIDX_STATE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include "pidx_engine.h"
#include "pidx_storm.h"
#include "pidx_trace.h"

/* Text of a selftest, see struct pidx_state's selftest_log and _shown. */
struct pidx_log {
	char *buf;
	size_t len;
	size_t size;
};

__printf(2, 3) void pidx_log_printf(struct pidx_log *log, const char *fmt, ...);
void pidx_log_free(struct pidx_log *log);

enum pidx_last_cmd {
	PIDX_CMD_NONE, PIDX_CMD_RUN, PIDX_CMD_RESET, PIDX_CMD_SELFTEST,
	PIDX_CMD_RACETEST, PIDX_CMD_TRACE,
};

struct pidx_state {
	/* guards cfg and the last-command state against torn reads */
	struct mutex cfg_lock;
	/* one run, selftest or reset at a time, held for the whole of it */
	struct mutex run_lock;
	/* settings: under cfg_lock, and never written while running */
	struct pidx_config cfg;
	bool running;

	/* the last command: under cfg_lock */
	enum pidx_last_cmd last_cmd;
	int last_rc;
	const char *last_why;		/* why the last command was refused */
	/* the copy that last_why points to of pidx_storm_why (cfg_lock) */
	char storm_why_shown[PIDX_STORM_WHY_MAX];

	/* written with run_lock and cfg_lock held: either one to read */
	u32 run_no;
	/* indexes the last run left out: they cannot take its writers (pidx.h) */
	unsigned long run_skipped;

	/* results since load or reset, oldest first, under results_lock */
	struct list_head results;
	/* readers of results.csv may read during a run */
	struct mutex results_lock;
	unsigned int nr_results;

	/*
	 * The log a selftest is writing, its own under run_lock, and the log
	 * of the last one to finish, which test_result shows: under cfg_lock,
	 * so a reader never meets a log being written or freed.
	 */
	struct pidx_log selftest_log;
	struct pidx_log selftest_shown;

	/* debugfs stall_test, ms: taken (and zeroed) by the next storm */
	u32 stall_test_ms;

	/*
	 * The replay workload's trace (debugfs trace): written under cfg_lock
	 * while no run is in flight; a run reads it without the lock, since
	 * every write is refused while st->running.
	 */
	struct pidx_trace trace;
	/* bumped at each install of a load into trace (cfg_lock) */
	u32 trace_gen;
	/* why the last trace write or replay run was refused (cfg_lock) */
	char trace_why[PIDX_TRACE_WHY_MAX + 32];
};

/* The run (pidx_run.c): the selected indexes stormed and their rows kept. */
int pidx_run(struct pidx_state *st);
/* run_lock held, or nothing else left (unload) */
void pidx_reset(struct pidx_state *st);

/* The control files (pidx_debugfs.c) over @st, which outlives them. */
int pidx_debugfs_init(struct pidx_state *st);
void pidx_debugfs_exit(void);

#endif /* _PIDX_STATE_H */
