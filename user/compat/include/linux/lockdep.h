/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: CONFIG_LOCKDEP is off in Debian's 6.1 */
#ifndef _KC_LOCKDEP_H
#define _KC_LOCKDEP_H
#include <kc_base.h>

struct lock_class_key { };
struct lockdep_map { };
#define lockdep_is_held(lock)		1
#define lock_is_held(map)		1
#define lockdep_assert_held(l)		do { (void)(l); } while (0)
#define lockdep_assert_held_write(l)	do { (void)(l); } while (0)
#define lockdep_assert_held_once(l)	do { (void)(l); } while (0)
#define lockdep_assert_irqs_disabled()	do { } while (0)
#define lockdep_assert_irqs_enabled()	do { } while (0)
#define lockdep_assert_preemption_disabled() do { } while (0)
#define lockdep_set_class(l, k)		do { } while (0)
#define lockdep_set_class_and_name(l, k, n) do { } while (0)
#endif
