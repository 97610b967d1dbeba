// SPDX-License-Identifier: GPL-2.0
/*
 * How verify() reports a violation: the first few in the log, named by
 * index, the rest only counted, so that a badly broken structure cannot
 * flood the log from a loop over every key.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/printk.h>

#include "pidx.h"

#define PIDX_VERIFY_REPORT_MAX	10

void pidx_verify_bad(unsigned int *bad, const char *who, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (*bad < PIDX_VERIFY_REPORT_MAX) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_err("%s verify: %pV\n", who, &vaf);
		va_end(args);
	} else if (*bad == PIDX_VERIFY_REPORT_MAX) {
		pr_err("%s verify: further violations only counted\n", who);
	}
	(*bad)++;
}
