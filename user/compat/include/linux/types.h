/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: include/linux/types.h.  The UAPI part is the
 * system's <linux/types.h> (glibc and liburcu headers include it too);
 * the kernel-only types follow.
 */
#ifndef _KC_TYPES_H
#define _KC_TYPES_H
#include_next <linux/types.h>
#include <stddef.h>
#include <stdbool.h>
#include <sys/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned int __bitwise gfp_t;
typedef unsigned int __bitwise slab_flags_t;
typedef unsigned long phys_addr_t;

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

typedef atomic64_t atomic_long_t;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};
#endif
