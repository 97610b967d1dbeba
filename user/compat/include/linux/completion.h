/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: the type only (the driver waits with pthreads) */
#ifndef _KC_COMPLETION_H
#define _KC_COMPLETION_H
#include <kc_base.h>
struct completion {
	unsigned int done;
};
#define init_completion(x)	do { (x)->done = 0; } while (0)
#endif
