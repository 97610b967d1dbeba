/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings' table: one row a setting.  NAME is at once the debugfs
 * file, the module parameter (0444: the word given at load) and the field
 * of struct pidx_config that the setting is; what follows it says how a
 * value is parsed, checked and shown:
 *
 *   PIDX_U32(min, max, check)   a number in [min, max], that check(), where
 *                               there is one, may still refuse
 *   PIDX_WORDS(words, n)        one of the n words, kept as its number
 *   PIDX_OWN(parse, show)       a parser and a show of its own
 *
 * Every write is refused with -EBUSY while a run or selftest is in flight,
 * and a write taken marks the setting written (struct pidx_written).
 * pidx_settings.c includes this file once for each thing it makes of the
 * rows, with PIDX_SETTING defined for it, and pidx_engine.h once for the
 * flags of struct pidx_written.  pid_max comes before keys:
 * module parameters are applied in this order.  A new setting is one row
 * here, plus its docs (docs/interface.md).
 */
PIDX_SETTING(indexes, PIDX_OWN(parse_indexes, show_indexes));
PIDX_SETTING(workload, PIDX_WORDS(pidx_workload_names, PIDX_NR_WORKLOADS));
PIDX_SETTING(mix, PIDX_OWN(parse_mix, show_mix));
PIDX_SETTING(pid_max, PIDX_U32(PIDX_PID_MAX_MIN, PIDX_PID_MAX_LIMIT, pid_max_holds_keys));
PIDX_SETTING(keys, PIDX_U32(1, U32_MAX, keys_fit_pid_max));
PIDX_SETTING(ops, PIDX_U32(1, PIDX_OPS_MAX, NULL));
PIDX_SETTING(mode, PIDX_WORDS(pidx_mode_names, PIDX_NR_MODES));
PIDX_SETTING(cpus, PIDX_OWN(parse_cpus, show_cpus));
PIDX_SETTING(repeat, PIDX_U32(1, PIDX_REPEAT_MAX, NULL));
PIDX_SETTING(seed, PIDX_OWN(parse_seed, show_seed));
PIDX_SETTING(fork_window, PIDX_U32(1, PIDX_FORK_WINDOW_MAX, NULL));
PIDX_SETTING(sl_p, PIDX_U32(2, 16, power_of_2));
PIDX_SETTING(sl_max_level, PIDX_U32(0, PIDX_SL_LEVELS_MAX, NULL));
PIDX_SETTING(rb_level, PIDX_U32(0, PIDX_SL_LEVELS_MAX, NULL));
PIDX_SETTING(trace_visits, PIDX_U32(0, 1, NULL));
PIDX_SETTING(node, PIDX_OWN(parse_node, show_node));
PIDX_SETTING(pmu, PIDX_WORDS(pidx_pmu_mode_names, PIDX_NR_PMU_MODES));
PIDX_SETTING(fork_lookups, PIDX_U32(0, PIDX_FORK_LOOKUPS_MAX, NULL));
PIDX_SETTING(fork_exit, PIDX_WORDS(pidx_fork_exit_names, PIDX_NR_EXITS));
PIDX_SETTING(dependent, PIDX_U32(0, 1, NULL));
PIDX_SETTING(shape, PIDX_WORDS(pidx_shape_names, PIDX_NR_SHAPES));
PIDX_SETTING(dist, PIDX_OWN(parse_dist, show_dist));
PIDX_SETTING(levels, PIDX_U32(1, PIDX_LEVELS_MAX, NULL));
