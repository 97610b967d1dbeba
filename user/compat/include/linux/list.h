/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: the kernel's own header, unmodified */
#include <include/linux/list.h>
