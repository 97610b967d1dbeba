/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: ktime_get_ns() is clock_gettime(CLOCK_MONOTONIC) */
#ifndef _KC_KTIME_H
#define _KC_KTIME_H
#include <kc_base.h>
u64 ktime_get_ns(void);
#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L
#endif
