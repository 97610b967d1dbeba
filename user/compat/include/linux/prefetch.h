/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: x86's prefetch() is prefetcht0, as this is */
#ifndef _KC_LINUX_PREFETCH_H
#define _KC_LINUX_PREFETCH_H

#define prefetch(x)	__builtin_prefetch(x)
#define prefetchw(x)	__builtin_prefetch(x, 1)

#endif
