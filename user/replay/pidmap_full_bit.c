/*
 * Replay of a race that made the PID bitmap's search answer -ENOSPC with a
 * number free (seen as "-ENOSPC while fewer numbers were claimed than free"
 * in lazyskip's alloc wrap storm on 4 vCPUs).  C claims the last free
 * number k of word 1 and reads the word full; before C sets the word's full
 * bit, R releases y of that word and finds no full bit to clear; C sets it,
 * and before C looks at the word again, S searches: it skips word 1 by its
 * full bit, finds nothing, and no release overlapped its pass.  The claim
 * now counts as a release while its full bit may be wrong, so S waits for
 * C and finds y.  Expected: S claims y (65); exit 1 if it gets -ENOSPC.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/bitops.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>

static void replay_hook(void);
#undef smp_mb__before_atomic
#undef smp_mb__after_atomic
#define smp_mb__before_atomic()	replay_hook()
#define smp_mb__after_atomic()	replay_hook()

#include "pidx_pidmap.c"

#include "replay.h"
int usleep(unsigned int);

static struct pidx_pidmap pm;
static __thread int is_c;
static int hooks;
static int found;

/* C's first barrier comes between its look at the word and the full bit */
static void replay_hook(void)
{
	barrier();
	if (!is_c)
		return;
	if (hooks++ == 0) {
		h_post(0);	/* R releases y */
		h_wait(1);
	} else if (hooks == 2) {
		h_post(2);	/* S searches */
		usleep(200000);
	}
}

static void *thread_c(void *arg)
{
	kc_set_cpu(1);
	is_c = 1;
	pidx_pidmap_claim(&pm, 64);
	is_c = 0;
	return NULL;
}

static void *thread_s(void *arg)
{
	s64 cur;
	u64 lap;

	kc_set_cpu(2);
	h_wait(2);
	found = pidx_pidmap_claim_cyclic(&pm, &cur, &lap);
	return NULL;
}

int demo_main(void)
{
	void *tc, *ts;
	unsigned long flags;
	long claimed;
	u32 k;

	kc_init();
	h_init();
	kc_set_cpu(0);
	if (pidx_pidmap_init(&pm, 1024))
		return 2;
	/* every number but 64, the last free one of word 1 */
	for (k = 1; k < 1024; k++)
		if (k != 64)
			pidx_pidmap_claim(&pm, k);
	tc = h_start(thread_c);
	ts = h_start(thread_s);
	h_wait(0);
	local_irq_save(flags);
	pidx_pidmap_release(&pm, 65);	/* R: y = 65 */
	local_irq_restore(flags);
	h_post(1);
	h_join(tc);
	h_join(ts);
	printk("S: claim_cyclic -> %d (65 was free)\n", found);
	printk("verify: %u violations\n", pidx_pidmap_verify(&pm, "pidmap", &claimed));
	pidx_pidmap_free(&pm);
	return found != 65;
}
