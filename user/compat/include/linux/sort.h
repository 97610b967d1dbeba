/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: lib/sort.c's interface */
#ifndef _KC_SORT_H
#define _KC_SORT_H
#include <kc_base.h>
void sort(void *base, size_t num, size_t size,
	  int (*cmp)(const void *, const void *),
	  void (*swap)(void *, void *, int));
#endif
