/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: what include/linux/compiler_types.h gives every
 * kernel object (force-included, as Kbuild does).  glibc's <sys/cdefs.h>
 * spells some of the same names its own way: it is read first and those
 * names are redefined as the kernel has them.
 */
#ifndef _KC_COMPILER_TYPES_H
#define _KC_COMPILER_TYPES_H

#include <sys/cdefs.h>

#undef __always_inline
#undef __attribute_const__
#undef __noreturn

/* sparse annotations: nothing to the compiler */
#define __user
#define __kernel
#define __iomem
#define __percpu
#define __rcu
#define __force
#define __bitwise
#define __safe
#define __private
#define ACCESS_PRIVATE(p, member) ((p)->member)
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#define __acquire(x)	((void)0)
#define __release(x)	((void)0)
#define __cond_lock(x, c) (c)

#define __always_inline		inline __attribute__((__always_inline__))
#define noinline		__attribute__((__noinline__))
#define notrace
#define noinstr
#define __no_kcsan
#define __attribute_const__	__attribute__((__const__))
#define __maybe_unused		__attribute__((__unused__))
#define __always_unused		__attribute__((__unused__))
#define __used			__attribute__((__used__))
#define __packed		__attribute__((__packed__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __scanf(a, b)		__attribute__((__format__(scanf, a, b)))
#define __section(s)		__attribute__((__section__(s)))
#define __cold			__attribute__((__cold__))
#define __pure			__attribute__((__pure__))
#define __weak			__attribute__((__weak__))
#define __noreturn		__attribute__((__noreturn__))
#define __must_check		__attribute__((__warn_unused_result__))
#define __malloc		__attribute__((__malloc__))
#define __noclone		__attribute__((__noclone__))
#define __randomize_layout
#define __no_randomize_layout
#define __latent_entropy
#define __visible		__attribute__((__externally_visible__))
/* 6.1's lib/maple_tree.c uses it; the tools headers lacked it */
#define fallthrough		__attribute__((__fallthrough__))

#define ___PASTE(a, b) a##b
#define __PASTE(a, b) ___PASTE(a, b)
#define __UNIQUE_ID(prefix) __PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)

#define __same_type(a, b) __builtin_types_compatible_p(typeof(a), typeof(b))
#define __native_word(t) \
	(sizeof(t) == sizeof(char) || sizeof(t) == sizeof(short) || \
	 sizeof(t) == sizeof(int) || sizeof(t) == sizeof(long))

#define __compiletime_assert(condition, msg, prefix, suffix)		\
	do {								\
		extern void prefix ## suffix(void) __attribute__((__error__(msg))); \
		if (!(condition))					\
			prefix ## suffix();				\
	} while (0)
#define _compiletime_assert(condition, msg, prefix, suffix) \
	__compiletime_assert(condition, msg, prefix, suffix)
#define compiletime_assert(condition, msg) \
	_compiletime_assert(condition, msg, __compiletime_assert_, __COUNTER__)
#define compiletime_assert_atomic_type(t)				\
	compiletime_assert(__native_word(t),				\
		"Need native word sized stores/loads for atomicity.")

#define __scalar_type_to_expr_cases(type)				\
		unsigned type:	(unsigned type)0,			\
		signed type:	(signed type)0
#define __unqual_scalar_typeof(x) typeof(				\
		_Generic((x),						\
			 char:	(char)0,				\
			 __scalar_type_to_expr_cases(char),		\
			 __scalar_type_to_expr_cases(short),		\
			 __scalar_type_to_expr_cases(int),		\
			 __scalar_type_to_expr_cases(long),		\
			 __scalar_type_to_expr_cases(long long),	\
			 default: (x)))

#define asm_volatile_goto(x...) asm goto(x)
#define barrier() __asm__ __volatile__("" : : : "memory")

#endif /* _KC_COMPILER_TYPES_H */
