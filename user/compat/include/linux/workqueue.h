/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: one worker thread runs every queued work item in
 * turn, as an unbound workqueue with one worker would (kcompat.c).
 */
#ifndef _KC_WORKQUEUE_H
#define _KC_WORKQUEUE_H
#include <kc_base.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	work_func_t func;
	struct work_struct *next;
	int state;		/* kcompat.c: idle, pending, running */
	unsigned int queued;	/* instances queued (a pending one absorbs more) */
	unsigned int done;	/* the last instance whose run has ended */
};

struct workqueue_struct;
extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *system_unbound_wq;

#define INIT_WORK(w, f) do { (w)->func = (f); (w)->next = NULL;	\
	(w)->state = 0; (w)->queued = 0; (w)->done = 0; } while (0)
bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool flush_work(struct work_struct *work);
bool cancel_work_sync(struct work_struct *work);
#define schedule_work(w)	queue_work(system_wq, (w))
#endif
