/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: linux/kern_levels.h is part of the base layer */
#include <kc_base.h>
