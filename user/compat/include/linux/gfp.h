/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: the kernel's GFP flags (gfp_types.h, unmodified) */
#ifndef _KC_GFP_H
#define _KC_GFP_H
#include <kc_base.h>
#include <include/linux/gfp_types.h>

static inline bool gfpflags_allow_blocking(const gfp_t gfp_flags)
{
	return !!(gfp_flags & __GFP_DIRECT_RECLAIM);
}

#endif
