/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: the maple tree's tracepoints, off (as in tools/testing/radix-tree) */
#define trace_ma_op(a, b)		do { } while (0)
#define trace_ma_read(a, b)		do { } while (0)
#define trace_ma_write(a, b, c, d)	do { } while (0)
