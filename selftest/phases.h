/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The selftest's phases, a file per kind of test, each checking one index
 * on the kit (kit.h) and counting its checks in @st.  The command
 * (selftest.c) calls them in turn; no phase calls another.
 */
#ifndef _PIDX_SELFTEST_PHASES_H
#define _PIDX_SELFTEST_PHASES_H

#include <linux/types.h>

struct pidx_st;

/* seq.c: the sequential phases, against the oracle */
void pidx_st_basic(struct pidx_st *st);
void pidx_st_map(struct pidx_st *st);
void pidx_st_alloc_publish(struct pidx_st *st);
void pidx_st_set_cursor(struct pidx_st *st);
void pidx_st_faults(struct pidx_st *st);
void pidx_st_random(struct pidx_st *st, u32 pid_max, u32 nops);
void pidx_st_remove_present(struct pidx_st *st);

/* alloc.c: alloc() from every CPU, filling and wrapping */
void pidx_st_alloc_fill(struct pidx_st *st);
void pidx_st_alloc_wrap(struct pidx_st *st);

/* race.c: insert(), publish() and remove() of the same keys racing */
void pidx_st_race(struct pidx_st *st);

/* readers.c: lockless readers in hard irq and while resizing */
void pidx_st_irq(struct pidx_st *st);
void pidx_st_grow(struct pidx_st *st);

#endif /* _PIDX_SELFTEST_PHASES_H */
