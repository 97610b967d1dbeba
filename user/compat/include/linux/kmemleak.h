/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: nothing to track */
static inline void kmemleak_update_trace(const void *ptr) { }
