/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: include/linux/const.h over the UAPI one */
#ifndef _KC_CONST_H
#define _KC_CONST_H
#include_next <linux/const.h>

#define UL(x)		(_UL(x))
#define ULL(x)		(_ULL(x))
#define __is_constexpr(x) \
	(sizeof(int) == sizeof(*(8 ? ((void *)((long)(x) * 0l)) : (int *)8)))
#endif
