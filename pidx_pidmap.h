/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PID bitmap that lock-free writers claim numbers from: bit k set means
 * a writer owns number k (it is being inserted, is present, or is being
 * removed), as in the kernel's pidmap before 4.15.  test_and_set_bit() is
 * what keeps two allocators from handing out one number, so the index
 * behind it never meets a second writer of the same key from alloc().
 *
 * A second bitmap has one bit per word of the first, set while that word is
 * full, so the search for a free number skips 4096 taken numbers per word
 * it reads: finding the first free number at or after the cursor costs one
 * word when the space there is sparse and pid_max / 4096 words when it is
 * full (8 at pid_max 32768, 1024 at 4M).  The price is pid_max / 8 bytes
 * (+1/64): 4 KiB at 32768, 512 KiB at 4M.
 *
 * The cursor is a 64-bit value, the lap in the high half and the next number
 * in the low half, moved only forward with cmpxchg: of two racing
 * allocators the later number wins, and a wrap wins over every number of
 * the lap before.  It sits on a line of its own.
 *
 * Users: lazyskip and lfradix (pidx_lazyskip.c, pidx_lfradix.c).
 */
#ifndef _PIDX_PIDMAP_H
#define _PIDX_PIDMAP_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct pidx_pidmap {
	unsigned long *map;	/* bit k: number k claimed */
	unsigned long *full;	/* bit w: map word w is all ones */
	/* per CPU, releases begun plus ended: odd during one */
	unsigned long __percpu *releases;
	u32 nwords;
	u32 pid_max;
	/*
	 * Set while a search makes its last pass of pidmap_claim_any(): a
	 * release that sees it waits for @last_pass before it returns.  On
	 * the line every release reads anyway, and written only then.
	 */
	int frozen;
	raw_spinlock_t last_pass;
	/* last passes made, for describe(): written under @last_pass */
	unsigned long last_passes;
	atomic64_t cursor ____cacheline_aligned_in_smp;
};

/* Process context: a map for numbers [1, @pid_max), 0 and the tail taken. */
int pidx_pidmap_init(struct pidx_pidmap *pm, u32 pid_max);
void pidx_pidmap_free(struct pidx_pidmap *pm);
/* What init allocated: the two bitmaps and the per-CPU counts. */
size_t pidx_pidmap_bytes(const struct pidx_pidmap *pm);

/* With interrupts off: false when @k was claimed already. */
bool pidx_pidmap_claim(struct pidx_pidmap *pm, u32 k);
/*
 * With interrupts off, after the index no longer holds @k.  Waits, at most
 * for a few passes over the map, while another CPU's search makes the last
 * pass that decides -ENOSPC.
 */
void pidx_pidmap_release(struct pidx_pidmap *pm, u32 k);
/* No number of word @w is claimed: number 0 and the tail past pid_max aside. */
bool pidx_pidmap_word_unclaimed(struct pidx_pidmap *pm, unsigned int w);
/*
 * The first claimed number in [@k, pid_max), or pid_max; @k >= 1.  Its reads
 * are marked, as writers change the map under it.
 */
u32 pidx_pidmap_next_claimed(struct pidx_pidmap *pm, u32 k);
/* The first number in [@k, @end) that looks free, or @end. */
u32 pidx_pidmap_next_free(struct pidx_pidmap *pm, u32 k, u32 end);
/* With interrupts off: claims the first free number in [@k, @end), or -ENOSPC. */
int pidx_pidmap_claim_in(struct pidx_pidmap *pm, u32 k, u32 end);

/*
 * The cyclic search of alloc_pid() on the map: claims the first free number
 * at or after the cursor, else from the floor (a new lap), and returns it,
 * or -ENOSPC when the space was full.  *@cur and *@lap return the cursor it
 * started from and the lap of the number, for pidx_pidmap_advance() once
 * the number is published.  Interrupts off (the release counts of this CPU
 * must not change under the search).
 */
int pidx_pidmap_claim_cyclic(struct pidx_pidmap *pm, s64 *cur, u64 *lap);
/* Moves the cursor forward only, to @next of lap @lap. */
void pidx_pidmap_advance(struct pidx_pidmap *pm, s64 cur, u64 lap, u32 next);

/* With no writer running: the next cyclic search starts at @next, same lap. */
static inline void pidx_pidmap_set_cursor(struct pidx_pidmap *pm, u32 next)
{
	atomic64_set(&pm->cursor, (s64)((u64)atomic64_read(&pm->cursor) >> 32 << 32 | next));
}

static inline u32 pidx_pidmap_cursor(struct pidx_pidmap *pm)
{
	return (u32)atomic64_read(&pm->cursor);
}

static inline u64 pidx_pidmap_laps(struct pidx_pidmap *pm)
{
	return (u64)atomic64_read(&pm->cursor) >> 32;
}

/* Searches that made the last pass of a full space (pidx_pidmap.c). */
static inline unsigned long pidx_pidmap_last_passes(struct pidx_pidmap *pm)
{
	return READ_ONCE(pm->last_passes);
}

/*
 * With no writer running: 0 and the tail past pid_max are taken, full bits
 * mark full words only, no release is under way, the cursor is in range.
 * Reports up to a few violations with pr_err() under @who and returns their
 * number; *@claimed returns the count of claimed numbers in [1, pid_max),
 * for the caller to hold against its own count of keys.
 */
unsigned int pidx_pidmap_verify(struct pidx_pidmap *pm, const char *who,
				long *claimed);

#endif /* _PIDX_PIDMAP_H */
