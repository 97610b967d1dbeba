/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: include/linux/kernel.h over the UAPI one glibc uses */
#ifndef _KC_KERNEL_H
#define _KC_KERNEL_H
#include_next <linux/kernel.h>
#include <kc_base.h>
#endif
