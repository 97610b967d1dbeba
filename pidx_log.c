// SPDX-License-Identifier: GPL-2.0
/*
 * The text log that a selftest writes and test_result shows (pidx_state.h):
 * a helper of its own so that the selftest needs nothing of the run's.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/kernel.h>
#include "pidx_state.h"

void pidx_log_printf(struct pidx_log *log, const char *fmt, ...)
{
	va_list args;
	size_t room;

	if (!log->buf) {
		log->size = 32768;
		log->buf = kvzalloc(log->size, GFP_KERNEL);
		if (!log->buf) {
			log->size = 0;
			return;
		}
	}
	room = log->size - log->len;
	if (room <= 1)
		return;
	va_start(args, fmt);
	log->len += vscnprintf(log->buf + log->len, room, fmt, args);
	va_end(args);
}

void pidx_log_free(struct pidx_log *log)
{
	kvfree(log->buf);
	*log = (struct pidx_log){};
}
