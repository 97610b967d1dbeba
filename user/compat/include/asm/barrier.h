/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: x86-64 barriers are in the base layer */
#include <kc_base.h>
