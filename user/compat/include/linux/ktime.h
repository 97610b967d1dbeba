/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: ktime_get_ns() is clock_gettime(CLOCK_MONOTONIC) */
#ifndef _KC_KTIME_H
#define _KC_KTIME_H
#include <kc_base.h>
u64 ktime_get_ns(void);
#endif
