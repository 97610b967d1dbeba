/*
 * What a replay needs besides the index file it includes: the module's
 * globals that pidx-user's driver would define, and the handshakes of
 * replay_main.c by which its threads take turns.
 */
#include <linux/rcupdate.h>

bool pidx_fault_remove_alloc(void) { return false; }
DEFINE_STATIC_KEY_FALSE(pidx_race_delays);
void __pidx_race_delay(void) { }
DEFINE_STATIC_KEY_FALSE(pidx_contract_checks);
void kc_init(void);
void kc_set_cpu(int cpu);
void h_init(void);
void h_post(int i);
void h_wait(int i);
/* 1 when posted within @ms, 0 when the other thread is still busy */
int h_wait_ms(int i, int ms);
void *h_start(void *(*fn)(void *));
void h_join(void *t);
/* pin this thread to @cpu (0 or an error); the CPU it runs on */
int h_pin(int cpu);
int h_cpu(void);

/* the index a replay drives, where it drives one */
static struct pidx_index *idx __maybe_unused;
static const struct pidx_ops *ops __maybe_unused;

/* the checks a replay's threads make, counted in replay_wrong */
static int replay_wrong __maybe_unused;

static void __maybe_unused replay_expect(const char *what, long got, long want)
{
	printk("%s -> %ld%s\n", what, got, got == want ? "" : ", WRONG");
	if (got != want) {
		printk("  expected %ld\n", want);
		replay_wrong++;
	}
}

/* lookup() as its callers make it, under rcu_read_lock() */
static void * __maybe_unused replay_lookup(u32 pid)
{
	void *v;

	rcu_read_lock();
	v = ops->lookup(idx, pid);
	rcu_read_unlock();
	return v;
}
