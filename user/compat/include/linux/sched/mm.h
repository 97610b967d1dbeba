/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: no allocation scopes */
#include <kc_base.h>
