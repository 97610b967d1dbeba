/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: what the driver calls (kcompat.c, slub.c) */
#ifndef _KCOMPAT_H
#define _KCOMPAT_H

/* per-CPU data, slab, radix_tree_init(), maple_tree_init(): once, first */
void kc_init(void);
/* the CPU this thread stands for from now on, -1 for none */
void kc_set_cpu(int cpu);
/* call_rcu() callbacks run on the CPU that queued them; 0 or -errno */
int kc_rcu_percpu_callbacks(void);
void kc_rcu_percpu_callbacks_end(void);
/* touch @bytes of arena pages beyond those in use, outside any timing */
void kc_arena_prefault(size_t bytes);
/*
 * failslab (--failslab): kc_failslab_set(P) makes P % of the slab
 * allocations (a bulk one counting as one) of a thread marked by
 * kc_fault_mark(true, seed) fail, each counted in kc_failslab_injected
 */
extern unsigned int kc_failslab_percent;
extern atomic_long_t kc_failslab_injected;
void kc_failslab_set(unsigned int percent);
void kc_fault_mark(bool on, u64 seed);
#endif
