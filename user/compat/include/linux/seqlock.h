/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: the sequence counts of include/linux/seqlock.h used here */
#ifndef _KC_SEQLOCK_H
#define _KC_SEQLOCK_H
#include <kc_base.h>

typedef struct seqcount {
	unsigned int sequence;
} seqcount_t;

typedef struct {
	seqcount_t seqcount;
} seqcount_latch_t;

#define SEQCNT_ZERO(name)		{ .sequence = 0 }
#define seqcount_init(s)		do { (s)->sequence = 0; } while (0)
#define seqcount_latch_init(s)		seqcount_init(&(s)->seqcount)

static __always_inline unsigned int raw_read_seqcount_latch(const seqcount_latch_t *s)
{
	return READ_ONCE(s->seqcount.sequence);
}

static __always_inline int raw_read_seqcount_latch_retry(const seqcount_latch_t *s,
							 unsigned int start)
{
	smp_rmb();
	return unlikely(READ_ONCE(s->seqcount.sequence) != start);
}

static __always_inline void raw_write_seqcount_latch(seqcount_latch_t *s)
{
	smp_wmb();
	s->seqcount.sequence++;
	smp_wmb();
}

static __always_inline int read_seqcount_retry(const seqcount_t *s, unsigned int start)
{
	smp_rmb();
	return unlikely(READ_ONCE(s->sequence) != start);
}

static __always_inline unsigned int raw_read_seqcount(const seqcount_t *s)
{
	unsigned int seq = READ_ONCE(s->sequence);

	smp_rmb();
	return seq;
}
#endif
