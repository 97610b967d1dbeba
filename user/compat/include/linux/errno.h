/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: include/linux/errno.h over the UAPI one glibc uses */
#ifndef _KC_ERRNO_H
#define _KC_ERRNO_H
#include_next <linux/errno.h>

#define ERESTARTSYS	512
#define EPROBE_DEFER	517
#define ENOTSUPP	524
#endif
