/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: the CPU a thread stands for (see linux/percpu.h) */
#ifndef _KC_SMP_H
#define _KC_SMP_H
#include <kc_base.h>
#include <linux/cpumask.h>

extern __thread int kc_cpu;
#define raw_smp_processor_id()	(kc_cpu)
#define smp_processor_id()	(kc_cpu)
#define get_cpu()		({ preempt_disable(); smp_processor_id(); })
#define put_cpu()		preempt_enable()
#endif
