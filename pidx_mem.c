// SPDX-License-Identifier: GPL-2.0
/*
 * The module-wide account of what the indexes allocate (pidx.h): its own
 * file at the bottom of the layers, because every index charges it and the
 * module's glue checks it at unload.  The user-space build has its own.
 */
#include "pidx.h"

struct pidx_mem_account pidx_mem;
