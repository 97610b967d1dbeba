/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: include/linux/stddef.h over the UAPI one */
#ifndef _KC_STDDEF_H
#define _KC_STDDEF_H
#include_next <linux/stddef.h>
#include <stddef.h>

#define sizeof_field(TYPE, MEMBER) sizeof((((TYPE *)0)->MEMBER))
#define offsetofend(TYPE, MEMBER) \
	(offsetof(TYPE, MEMBER)	+ sizeof_field(TYPE, MEMBER))
#endif
