/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: user space cannot turn interrupts off.  The
 * sections the kernel runs with interrupts off (every writer's irqsave
 * lock, the skip lists' level draw) run with them on here, and cost
 * neither the pushf/cli/popf nor what they prevent.
 */
#ifndef _KC_IRQFLAGS_H
#define _KC_IRQFLAGS_H
#include <kc_base.h>

#define local_irq_save(flags)		do { (flags) = 0; barrier(); } while (0)
#define local_irq_restore(flags)	do { (void)(flags); barrier(); } while (0)
#define local_irq_disable()		barrier()
#define local_irq_enable()		barrier()
#define irqs_disabled()			0
#define raw_local_irq_save		local_irq_save
#define raw_local_irq_restore		local_irq_restore
#endif
