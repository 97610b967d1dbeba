/*
 * Replay of the corner of pidmap_claim_any() that issue 30 names: with
 * pid_max 1024, every number is taken but x = 500, and B (CPU 1) holds
 * y = 900.  Just before S's search reads each bitmap word, B swaps x and y,
 * releasing the one it holds before it claims the other, so that every pass
 * finds x taken when it reads word 7 and y taken when it reads word 14,
 * though x or y is free at every instant.  Passes that a release overlapped
 * were bounded at 64, and the call then answered -ENOSPC (66 passes with
 * claim_cyclic()'s own).  The last pass freezes the map: B's release then
 * waits for it, and S finds the number B gave up.  Expected: S claims x or
 * y within 70 passes; exit 1 if it gets -ENOSPC, or if B has to stop
 * swapping for the search to end (a last pass that rescans while B's
 * releases go on would otherwise run as long as B keeps in step).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/bitops.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>

#include "pidx_pidmap.c"

#include "replay.h"

#define X	500
#define Y	900
/* two words a pass: the 66 lockless passes and a few more */
#define MAX_READS	140

static struct pidx_pidmap pm;
static __thread int is_s;
static int b_holds = Y, b_busy, done, swaps, words_read, b_waited;

/* S reads a bitmap word (the search's pidx_visit_more() before each read) */
void __wrap___pidx_visit(const void *p, size_t len, bool node)
{
	const unsigned long *w = p;

	if (!is_s || node || w < pm.map || w >= pm.map + pm.nwords)
		return;
	/* a step that waited for S's last pass ends with that pass */
	if (++words_read > MAX_READS || b_busy)
		return;
	h_post(0);
	if (!h_wait_ms(1, 100)) {
		b_busy = 1;
		b_waited++;
	}
}

static void *thread_b(void *arg)
{
	unsigned long flags;
	u32 give, take;

	kc_set_cpu(1);
	for (;;) {
		h_wait(0);
		if (READ_ONCE(done))
			break;
		give = b_holds;
		take = give == X ? Y : X;
		local_irq_save(flags);
		pidx_pidmap_release(&pm, give);
		b_holds = pidx_pidmap_claim(&pm, take) ? take : 0;
		local_irq_restore(flags);
		swaps++;
		h_post(1);
	}
	return NULL;
}

int demo_main(void)
{
	unsigned long flags;
	long claimed;
	unsigned int bad;
	void *tb;
	s64 cur;
	u64 lap;
	int pid;
	u32 k;

	kc_init();
	h_init();
	kc_set_cpu(0);
	if (pidx_pidmap_init(&pm, 1024))
		return 2;
	for (k = 1; k < 1024; k++)
		if (k != X)
			pidx_pidmap_claim(&pm, k);
	static_branch_enable(&pidx_visits_on);
	tb = h_start(thread_b);
	is_s = 1;
	local_irq_save(flags);
	pid = pidx_pidmap_claim_cyclic(&pm, &cur, &lap);
	local_irq_restore(flags);
	is_s = 0;
	if (b_busy)
		h_wait(1);
	WRITE_ONCE(done, 1);
	h_post(0);
	h_join(tb);
	static_branch_disable(&pidx_visits_on);
	printk("S: claim_cyclic -> %d after %d word reads, %d swaps by B (%d waited for the last pass)\n",
	       pid, words_read, swaps, b_waited);
	printk("B holds %u\n", b_holds);
	bad = pidx_pidmap_verify(&pm, "pidmap", &claimed);
	printk("verify: %u violations, %ld claimed\n", bad, claimed);
	pidx_pidmap_free(&pm);
	if (words_read > MAX_READS)
		printk("S: still searching after %d word reads: B stopped\n", MAX_READS);
	return pid != X && pid != Y ? 1 : bad || words_read > MAX_READS;
}
