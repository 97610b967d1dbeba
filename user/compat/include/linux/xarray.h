/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: the kernel's own header, unmodified.  Unlike
 * tools/testing/radix-tree, which defines XA_CHUNK_SHIFT 3 (8-slot nodes)
 * to exercise deep trees, nothing here overrides it: CONFIG_BASE_SMALL 0
 * from autoconf.h gives the kernel's 64-slot nodes.
 */
#include <include/linux/xarray.h>
