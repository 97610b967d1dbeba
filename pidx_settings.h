/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settings (pidx_settings.c): one row each in pidx_settings_table.h,
 * from which both the debugfs files (pidx_debugfs.c) and the module
 * parameters of the same names are made.
 */
#ifndef _PIDX_SETTINGS_H
#define _PIDX_SETTINGS_H

#include <linux/seq_file.h>
#include "pidx_state.h"

struct pidx_setting;

/* @fn on every row, in table order */
void pidx_settings_for_each(void (*fn)(const struct pidx_setting *set, void *arg),
			    void *arg);
const char *pidx_setting_name(const struct pidx_setting *set);

/*
 * @val, a trimmed word, into @st's settings: -EINVAL for a value the
 * setting refuses, -EBUSY while a run or selftest is in flight.
 */
int pidx_setting_set(struct pidx_state *st, const struct pidx_setting *set,
		     char *val);
void pidx_setting_show(struct pidx_state *st, const struct pidx_setting *set,
		       struct seq_file *m);

/* The module parameters given at load, into @st's settings. */
int pidx_settings_load(struct pidx_state *st);

/* A number in [@min, @max], as every numeric setting takes it. */
int pidx_parse_u32(const char *val, u32 min, u32 max, u32 *out);

#endif /* _PIDX_SETTINGS_H */
