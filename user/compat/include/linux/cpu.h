/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: no CPU hotplug */
#ifndef _KC_CPU_H
#define _KC_CPU_H
#include <linux/cpumask.h>
enum cpuhp_state { CPUHP_RADIX_DEAD, CPUHP_ONLINE };
#define cpuhp_setup_state_nocalls(state, name, up, down) ({ (void)(down); 0; })
#define cpus_read_lock()	do { } while (0)
#define cpus_read_unlock()	do { } while (0)
#endif
