// SPDX-License-Identifier: GPL-2.0
/*
 * The lock-free PID bitmap and cyclic cursor of pidx_pidmap.h, shared by
 * the indexes whose writers take no common lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "pidx.h"
#include "pidx_pidmap.h"

/* lockless searches of a full space that releases overlapped, before the last pass */
#define PIDMAP_CLAIM_PASSES	64

int pidx_pidmap_init(struct pidx_pidmap *pm, u32 pid_max)
{
	u32 k;

	pm->pid_max = pid_max;
	pm->nwords = BITS_TO_LONGS(pid_max);
	atomic64_set(&pm->cursor, 0);
	pm->frozen = 0;
	pm->last_passes = 0;
	raw_spin_lock_init(&pm->last_pass);
	pm->map = kvcalloc(pm->nwords, sizeof(unsigned long), GFP_KERNEL);
	pm->full = bitmap_zalloc(pm->nwords, GFP_KERNEL);
	pm->releases = alloc_percpu(unsigned long);
	if (!pm->map || !pm->full || !pm->releases) {
		pidx_pidmap_free(pm);
		return -ENOMEM;
	}
	/* 0 and the tail past pid_max are never free: the last word can fill */
	__set_bit(0, pm->map);
	for (k = pid_max; k < pm->nwords * BITS_PER_LONG; k++)
		__set_bit(k, pm->map);
	return 0;
}

void pidx_pidmap_free(struct pidx_pidmap *pm)
{
	kvfree(pm->map);
	bitmap_free(pm->full);
	free_percpu(pm->releases);
	pm->map = NULL;
	pm->full = NULL;
	pm->releases = NULL;
}

size_t pidx_pidmap_bytes(const struct pidx_pidmap *pm)
{
	return (pm->nwords + BITS_TO_LONGS(pm->nwords)) * sizeof(unsigned long) +
	       sizeof(unsigned long) * num_possible_cpus();
}

/*
 * Claim number @k.  When that fills its bitmap word, mark the word full;
 * a release may have freed a bit meanwhile and already looked at the full
 * bit, so look at the word again after setting it (each side writes, then
 * reads what the other writes: one of them sees the other's write).  Until
 * that second look the full bit may be wrong, and a search would pass a
 * free number of the word by: so this counts as a release under way, and a
 * search that overlapped it tries again (pidmap_claim_any()).
 */
bool pidx_pidmap_claim(struct pidx_pidmap *pm, u32 k)
{
	unsigned long *releases = this_cpu_ptr(pm->releases);
	unsigned int w = k / BITS_PER_LONG;

	if (test_and_set_bit(k, pm->map))
		return false;
	if (READ_ONCE(pm->map[w]) == ~0UL) {
		WRITE_ONCE(*releases, *releases + 1);
		/* odd before the full bit */
		smp_mb__before_atomic();
		set_bit(w, pm->full);
		/* full bit before the second look at the word */
		smp_mb__after_atomic();
		if (READ_ONCE(pm->map[w]) != ~0UL)
			clear_bit(w, pm->full);
		/* the full bit settled before the count is even again */
		smp_wmb();
		WRITE_ONCE(*releases, *releases + 1);
	}
	return true;
}

/*
 * An allocator that claims @k from here on never meets what the index held
 * for it.  Interrupts off, so this CPU's releases never overlap.
 */
void pidx_pidmap_release(struct pidx_pidmap *pm, u32 k)
{
	unsigned long *releases = this_cpu_ptr(pm->releases);
	unsigned int w = k / BITS_PER_LONG;

	/* odd before the bit is free: the unlock orders the two */
	WRITE_ONCE(*releases, *releases + 1);
	clear_bit_unlock(k, pm->map);
	/* freed bit before the look at the full bit */
	smp_mb__after_atomic();
	if (test_bit(w, pm->full))
		clear_bit(w, pm->full);
	/* both bits settled before the count is even again */
	smp_wmb();
	WRITE_ONCE(*releases, *releases + 1);
	/*
	 * The barrier after the freed bit also orders the odd count before
	 * this look: pairs with the one in pidmap_last_pass().  A search that
	 * read the count even before it went odd has frozen the map, and must
	 * not see this CPU free another number (and claim one ahead of it)
	 * until its pass ends: wait for it, with the count even.
	 */
	if (unlikely(READ_ONCE(pm->frozen))) {
		raw_spin_lock(&pm->last_pass);
		raw_spin_unlock(&pm->last_pass);
	}
}

/* The bits word @w holds for good: number 0, and numbers past pid_max. */
static unsigned long pidmap_fixed_bits(const struct pidx_pidmap *pm,
				       unsigned int w)
{
	unsigned long bits = w ? 0 : 1;

	if (w == pm->nwords - 1 && pm->pid_max % BITS_PER_LONG)
		bits |= ~0UL << (pm->pid_max % BITS_PER_LONG);
	return bits;
}

bool pidx_pidmap_word_unclaimed(struct pidx_pidmap *pm, unsigned int w)
{
	return READ_ONCE(pm->map[w]) == pidmap_fixed_bits(pm, w);
}

u32 pidx_pidmap_next_claimed(struct pidx_pidmap *pm, u32 k)
{
	unsigned long val;
	unsigned int w;

	pidx_visit_node(pm->map, sizeof(unsigned long));
	while (k < pm->pid_max) {
		w = k / BITS_PER_LONG;
		pidx_visit_more(&pm->map[w], sizeof(unsigned long));
		val = READ_ONCE(pm->map[w]) & ~(BIT(k % BITS_PER_LONG) - 1);
		if (val)
			return min_t(u32, w * BITS_PER_LONG + __ffs(val), pm->pid_max);
		k = (w + 1) * BITS_PER_LONG;
	}
	return pm->pid_max;
}

/*
 * The first map word at or after @w not marked full, or nwords.  Claims set
 * the summary's bits and releases clear them while this reads, so each
 * summary word is read once, marked, here rather than by
 * find_next_zero_bit(), whose plain reads KCSAN reports (in lib/, where the
 * report filter of the suite once left them out).  A stale bit is safe: a
 * word passed by as full had its release under way, which the caller's
 * pass counts (pidmap_claim_any()), and a word wrongly seen open is read.
 */
static unsigned int pidmap_next_open(struct pidx_pidmap *pm, unsigned int w)
{
	unsigned int i = w / BITS_PER_LONG, n = BITS_TO_LONGS(pm->nwords);
	unsigned long open;

	if (w >= pm->nwords)
		return pm->nwords;
	pidx_visit_more(&pm->full[i], sizeof(unsigned long));
	open = ~READ_ONCE(pm->full[i]) & (~0UL << (w % BITS_PER_LONG));
	while (!open) {
		if (++i >= n)
			return pm->nwords;
		pidx_visit_more(&pm->full[i], sizeof(unsigned long));
		open = ~READ_ONCE(pm->full[i]);
	}
	/* the summary's bits past nwords are clear: those read open too */
	return min_t(unsigned int, i * BITS_PER_LONG + __ffs(open), pm->nwords);
}

u32 pidx_pidmap_next_free(struct pidx_pidmap *pm, u32 k, u32 end)
{
	unsigned long val;
	unsigned int w;

	pidx_visit_node(pm->map, sizeof(unsigned long));
	while (k < end) {
		w = k / BITS_PER_LONG;
		pidx_visit_more(&pm->map[w], sizeof(unsigned long));
		val = READ_ONCE(pm->map[w]) | (BIT(k % BITS_PER_LONG) - 1);
		if (val != ~0UL)
			return min_t(u32, w * BITS_PER_LONG + __ffs(~val), end);
		w = pidmap_next_open(pm, w + 1);
		if (w >= pm->nwords)
			break;
		k = w * BITS_PER_LONG;
	}
	return end;
}

int pidx_pidmap_claim_in(struct pidx_pidmap *pm, u32 k, u32 end)
{
	for (;;) {
		k = pidx_pidmap_next_free(pm, k, end);
		if (k >= end)
			return -ENOSPC;
		if (pidx_pidmap_claim(pm, k))
			return k;
		/* another writer got it first: its number is not free */
		k++;
	}
}

/* Claim the first free number in [@k, pid_max), or -ENOSPC. */
static int pidmap_claim_from(struct pidx_pidmap *pm, u32 k)
{
	return pidx_pidmap_claim_in(pm, k, pm->pid_max);
}

/* The sum of the per-CPU release counts; @busy: one is under way. */
static unsigned long pidmap_releases(struct pidx_pidmap *pm, bool *busy)
{
	unsigned long sum = 0, r;
	unsigned int cpu;

	*busy = false;
	for_each_possible_cpu(cpu) {
		r = READ_ONCE(*per_cpu_ptr(pm->releases, cpu));
		*busy |= r & 1;
		sum += r;
	}
	return sum;
}

/*
 * The sum of the per-CPU release counts, each read once it is even: a CPU
 * with an odd count is inside a release, or a claim that set a full bit,
 * with interrupts off and waiting for nothing (never this CPU, whose writers
 * have them off too), though its vCPU may lose the host a while.
 */
static unsigned long pidmap_releases_settled(struct pidx_pidmap *pm)
{
	unsigned long sum = 0, r;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		while ((r = READ_ONCE(*per_cpu_ptr(pm->releases, cpu))) & 1)
			cpu_relax();
		sum += r;
	}
	return sum;
}

/*
 * The last pass, which no CPU can fool: with the map frozen, a release
 * waits after it, so each other CPU frees at most one number until the
 * search ends, and claims only take numbers.  So each pass that a release
 * or a word-filling claim overlapped used up one of finitely many changes,
 * and a pass that none overlapped decides, as in pidmap_claim_any().
 * Releases begun before the freeze are waited for: each side writes (the
 * flag here, the odd count there), then reads what the other writes.  Taken
 * with interrupts off, as the releases waiting for it have them off.
 */
static int pidmap_last_pass(struct pidx_pidmap *pm, u32 floor)
{
	unsigned long before;
	bool busy;
	int pid;

	raw_spin_lock(&pm->last_pass);
	WRITE_ONCE(pm->last_passes, pm->last_passes + 1);
	WRITE_ONCE(pm->frozen, 1);
	/* the flag before the counts: pairs with pidx_pidmap_release() */
	smp_mb();
	do {
		before = pidmap_releases_settled(pm);
		/* the counts before the bitmap */
		smp_rmb();
		pid = pidmap_claim_from(pm, floor);
		/* the bitmap before the counts again */
		smp_rmb();
	} while (pid < 0 && pidmap_releases(pm, &busy) != before);
	WRITE_ONCE(pm->frozen, 0);
	raw_spin_unlock(&pm->last_pass);
	return pid;
}

/*
 * Claim the first free number in [@floor, pid_max).  -ENOSPC only from a
 * pass during which no release began or ended, as a seqcount reader would
 * check, per CPU: a lockless pass can otherwise miss every free number, each
 * freed behind it while the one ahead was taken, and report a full space
 * that never was.  With no release, the free numbers only shrank while the
 * pass ran, so the space was full when it ended.  A claim that fills a word
 * counts as a release while its full bit may be wrong.  The first pass
 * reads no count: it mostly finds a number.  Lockless passes that releases
 * overlapped are bounded, as interrupts are off; each one means another CPU
 * changed the map.  Past the bound, another CPU may be freeing and taking
 * numbers in step with the search, and the last pass stops it.
 */
static int pidmap_claim_any(struct pidx_pidmap *pm, u32 floor)
{
	unsigned long before;
	int pid, pass;
	bool busy;

	pid = pidmap_claim_from(pm, floor);
	for (pass = 0; pid < 0; pass++) {
		if (pass == PIDMAP_CLAIM_PASSES)
			return pidmap_last_pass(pm, floor);
		before = pidmap_releases_settled(pm);
		/*
		 * the counts before the bitmap: pairs with pidx_pidmap_release()
		 * and pidx_pidmap_claim()
		 */
		smp_rmb();
		pid = pidmap_claim_from(pm, floor);
		if (pid >= 0)
			break;
		/* the bitmap before the counts again: a window begun meanwhile changed them */
		smp_rmb();
		if (pidmap_releases(pm, &busy) == before)
			break;
	}
	return pid;
}

int pidx_pidmap_claim_cyclic(struct pidx_pidmap *pm, s64 *cur, u64 *lap)
{
	s64 c = atomic64_read(&pm->cursor);
	u32 cursor = (u32)c, floor = pidx_alloc_floor(cursor);
	u32 start = max(cursor, floor);
	int pid;

	*cur = c;
	*lap = (u64)c >> 32;
	pid = pidmap_claim_from(pm, start);
	if (pid < 0) {
		/* from the floor: a new lap unless the first pass began there */
		if (start > floor)
			(*lap)++;
		pid = pidmap_claim_any(pm, floor);
	}
	return pid;
}

void pidx_pidmap_advance(struct pidx_pidmap *pm, s64 cur, u64 lap, u32 next)
{
	s64 want = (s64)(lap << 32 | next);

	while (cur < want && !atomic64_try_cmpxchg(&pm->cursor, &cur, want))
		;
}

unsigned int pidx_pidmap_verify(struct pidx_pidmap *pm, const char *who,
				long *claimed)
{
	unsigned int bad = 0, w, cpu;
	long bits = 0;
	u32 k, cursor;

	for (k = 1; k < pm->pid_max; k++)
		bits += test_bit(k, pm->map);
	*claimed = bits;
	if (!test_bit(0, pm->map))
		pidx_verify_bad(&bad, who, "number 0 free in the bitmap");
	for (k = pm->pid_max; k < pm->nwords * BITS_PER_LONG; k++)
		if (!test_bit(k, pm->map))
			pidx_verify_bad(&bad, who, "number %u past pid_max free in the bitmap", k);
	for (w = 0; w < pm->nwords; w++)
		if (test_bit(w, pm->full) && pm->map[w] != ~0UL)
			pidx_verify_bad(&bad, who, "bitmap word %u marked full: %#lx",
					w, pm->map[w]);
	if (pm->frozen)
		pidx_verify_bad(&bad, who, "left frozen by a last pass");
	for_each_possible_cpu(cpu)
		if (*per_cpu_ptr(pm->releases, cpu) & 1)
			pidx_verify_bad(&bad, who, "CPU %u: a release under way", cpu);
	cursor = pidx_pidmap_cursor(pm);
	if (cursor > pm->pid_max)
		pidx_verify_bad(&bad, who, "cursor %u past pid_max %u", cursor, pm->pid_max);
	return bad;
}
