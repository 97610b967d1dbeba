/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: per-CPU data laid out as the kernel lays it out.
 * Static per-CPU variables live in the kc_percpu section; at start-up each
 * possible CPU gets its own unit, a copy of that section (with room for
 * alloc_percpu() after the static part), and __per_cpu_offset[cpu] is the
 * distance from the section to the unit.  A __percpu pointer is an address
 * in the section; this_cpu_ptr() adds the offset of the CPU the running
 * thread stands for, read from a thread-local variable as the kernel reads
 * this_cpu_off through %gs (one add of an %fs-relative word here).
 *
 * A storm thread stands for the CPU it is pinned to, and only one thread
 * stands for a CPU at a time, so this_cpu_*() need no atomics, as in the
 * kernel.  Threads that stand for no CPU (liburcu's call_rcu threads, the
 * workqueue) have offset 0: the section itself, which several of them may
 * write at once.  Only pidx_mem (pidx.h) is charged there, by RCU
 * callbacks and the hash's resize, and it is atomic for that reason: a
 * this_cpu_add() on it would lose counts.
 */
#ifndef _KC_PERCPU_H
#define _KC_PERCPU_H
#include <kc_base.h>
#include <linux/preempt.h>
#include <linux/smp.h>

#define KC_PERCPU_SECTION	"kc_percpu"

extern unsigned long __per_cpu_offset[];
extern __thread unsigned long kc_this_cpu_off;

#define DECLARE_PER_CPU(type, name) \
	extern __section(KC_PERCPU_SECTION) __typeof__(type) name
#define DEFINE_PER_CPU(type, name) \
	__section(KC_PERCPU_SECTION) __typeof__(type) name
#define DEFINE_PER_CPU_ALIGNED(type, name) \
	__section(KC_PERCPU_SECTION) __typeof__(type) name ____cacheline_aligned
#define DEFINE_PER_CPU_SHARED_ALIGNED DEFINE_PER_CPU_ALIGNED
#define DECLARE_PER_CPU_SHARED_ALIGNED DECLARE_PER_CPU

#define per_cpu_offset(x)	(__per_cpu_offset[x])
#define SHIFT_PERCPU_PTR(p, off) ((typeof(p))((unsigned long)(p) + (off)))
#define per_cpu_ptr(ptr, cpu)	SHIFT_PERCPU_PTR((ptr), per_cpu_offset(cpu))
#define raw_cpu_ptr(ptr)	SHIFT_PERCPU_PTR((ptr), kc_this_cpu_off)
#define this_cpu_ptr(ptr)	raw_cpu_ptr(ptr)
#define per_cpu(var, cpu)	(*per_cpu_ptr(&(var), cpu))

#define raw_cpu_read(pcp)	(*raw_cpu_ptr(&(pcp)))
#define raw_cpu_write(pcp, v)	do { *raw_cpu_ptr(&(pcp)) = (v); } while (0)
#define raw_cpu_add(pcp, v)	do { *raw_cpu_ptr(&(pcp)) += (v); } while (0)
#define this_cpu_read(pcp)	READ_ONCE(*raw_cpu_ptr(&(pcp)))
#define this_cpu_write(pcp, v)	WRITE_ONCE(*raw_cpu_ptr(&(pcp)), v)
#define this_cpu_add(pcp, v)	raw_cpu_add(pcp, v)
#define this_cpu_sub(pcp, v)	raw_cpu_add(pcp, -(typeof(pcp))(v))
#define this_cpu_inc(pcp)	this_cpu_add(pcp, 1)
#define this_cpu_dec(pcp)	this_cpu_sub(pcp, 1)
#define this_cpu_add_return(pcp, v) ({ typeof(pcp) *__p = raw_cpu_ptr(&(pcp)); *__p += (v); })
#define this_cpu_inc_return(pcp) this_cpu_add_return(pcp, 1)
#define this_cpu_dec_return(pcp) this_cpu_add_return(pcp, -1)
#define this_cpu_xchg(pcp, v)	({ typeof(pcp) *__p = raw_cpu_ptr(&(pcp)); typeof(pcp) __o = *__p; *__p = (v); __o; })
#define this_cpu_cmpxchg(pcp, o, n) ({ typeof(pcp) *__p = raw_cpu_ptr(&(pcp));	\
	typeof(pcp) __o = *__p; if (__o == (o)) *__p = (n); __o; })
#define __this_cpu_read		raw_cpu_read
#define __this_cpu_write	raw_cpu_write
#define __this_cpu_add		raw_cpu_add
#define __this_cpu_inc(pcp)	raw_cpu_add(pcp, 1)
#define __this_cpu_dec(pcp)	raw_cpu_add(pcp, -1)
#define get_cpu_ptr(var)	({ preempt_disable(); this_cpu_ptr(var); })
#define put_cpu_ptr(var)	do { (void)(var); preempt_enable(); } while (0)

void __percpu *__alloc_percpu(size_t size, size_t align);
void free_percpu(void __percpu *ptr);
#define alloc_percpu(type) \
	((typeof(type) __percpu *)__alloc_percpu(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp)	alloc_percpu(type)
#define __alloc_percpu_gfp(size, align, gfp) __alloc_percpu(size, align)
#endif
