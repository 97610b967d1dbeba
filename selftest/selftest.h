/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The selftest's entry point, for the layers above it (the debugfs
 * commands "selftest" and "racetest"): every index selected checked
 * against the oracle, the log published as test_result.
 */
#ifndef _PIDX_SELFTEST_H
#define _PIDX_SELFTEST_H

#include <linux/types.h>

struct pidx_state;

int pidx_selftest(struct pidx_state *ps, bool races_only);

#endif /* _PIDX_SELFTEST_H */
