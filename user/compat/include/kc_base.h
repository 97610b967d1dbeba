/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat, base layer: types, compiler.h, barriers, bit
 * operations, atomics and printk as x86-64 Linux 6.1 defines them, for the
 * kernel's lib/ files and pidx's index files built natively.  Modelled on
 * tools/testing/radix-tree and tools/include, with their test settings and
 * shortcuts corrected (see README.md, "User-space build"):
 *  - min_t()/max_t() are the kernel's own (include/linux/minmax.h, used
 *    as is), not the tools' versions that cast only the first token;
 *  - the cache line is 64 bytes (X86_L1_CACHE_SHIFT), not 32;
 *  - spinlocks spin (linux/spinlock.h), GFP_ATOMIC allocations succeed
 *    (slub.c), per-CPU data is per thread (linux/percpu.h), static keys
 *    are patched jumps (linux/jump_label.h).
 */
#ifndef _KC_BASE_H
#define _KC_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>
#include <limits.h>
#include <errno.h>
#include <string.h>
/* before swab() becomes the kernel's macro: liburcu includes it later */
#include <unistd.h>

/* glibc's <endian.h> always defines __BIG_ENDIAN; the kernel only on BE */
#undef __BIG_ENDIAN
#ifndef __LITTLE_ENDIAN
#define __LITTLE_ENDIAN 1234
#endif

#include <linux/types.h>
#include <linux/limits.h>
#include <linux/const.h>
#include <linux/stddef.h>
#include <linux/errno.h>

/* ------------------------------------------------------------ compiler.h */

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define likely_notrace(x)	likely(x)
#define unlikely_notrace(x)	unlikely(x)

#define __READ_ONCE(x)	(*(const volatile __unqual_scalar_typeof(x) *)&(x))
#define READ_ONCE(x)	({ __unqual_scalar_typeof(x) __x = __READ_ONCE(x); (typeof(x))__x; })
#define __WRITE_ONCE(x, val)	do { *(volatile typeof(x) *)&(x) = (val); } while (0)
#define WRITE_ONCE(x, val)	__WRITE_ONCE(x, val)
#define data_race(expr)		({ __unqual_scalar_typeof(({ expr; })) __v = ({ expr; }); __v; })
/* KCSAN's annotations: no checker here */
#define kcsan_nestable_atomic_begin()	do { } while (0)
#define kcsan_nestable_atomic_end()	do { } while (0)

#define OPTIMIZER_HIDE_VAR(var)	__asm__ ("" : "=r" (var) : "0" (var))
#define RELOC_HIDE(ptr, off)	({ unsigned long __ptr; \
	__asm__ ("" : "=r"(__ptr) : "0"(ptr)); (typeof(ptr))(__ptr + (off)); })
#define __must_be_array(a)	BUILD_BUG_ON_ZERO(__same_type((a), &(a)[0]))
#define is_signed_type(type)	(((type)(-1)) < (__force type)1)
#define statically_true(x)	(__builtin_constant_p(x) && (x))
#define __stringify_1(x...)	#x
#define __stringify(x...)	__stringify_1(x)

#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]) + __must_be_array(arr))
#define typecheck(type, x) \
({	type __dummy; \
	typeof(x) __dummy2; \
	(void)(&__dummy == &__dummy2); \
	1; \
})

#include <include/linux/build_bug.h>
#include <include/linux/container_of.h>

/* ------------------------------------------------------------ cache.h */

#define L1_CACHE_SHIFT		6	/* CONFIG_X86_L1_CACHE_SHIFT */
#define L1_CACHE_BYTES		(1 << L1_CACHE_SHIFT)
#define SMP_CACHE_BYTES		L1_CACHE_BYTES
#define INTERNODE_CACHE_SHIFT	6
#define ____cacheline_aligned	__attribute__((__aligned__(SMP_CACHE_BYTES)))
#define ____cacheline_aligned_in_smp ____cacheline_aligned
#define __cacheline_aligned	____cacheline_aligned
#define __cacheline_aligned_in_smp ____cacheline_aligned
#define ____cacheline_internodealigned_in_smp ____cacheline_aligned
#define __read_mostly
#define __ro_after_init
#define cache_line_size()	L1_CACHE_BYTES

/* ------------------------------------------------------------ asm/barrier.h (x86-64) */

#define mb()	__asm__ __volatile__("mfence" ::: "memory")
#define rmb()	__asm__ __volatile__("lfence" ::: "memory")
#define wmb()	__asm__ __volatile__("sfence" ::: "memory")
/* arch/x86/include/asm/barrier.h: a locked add to the stack is a full barrier */
#define smp_mb()	__asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")
#define smp_rmb()	barrier()
#define smp_wmb()	barrier()
#define __smp_mb()	smp_mb()
#define smp_mb__before_atomic()	barrier()
#define smp_mb__after_atomic()	barrier()
#define smp_mb__after_spinlock() do { } while (0)
#define smp_store_mb(var, value) do { (void)__atomic_exchange_n(&(var), (value), __ATOMIC_SEQ_CST); } while (0)
#define smp_store_release(p, v)	do { barrier(); WRITE_ONCE(*(p), v); } while (0)
#define smp_load_acquire(p)	({ typeof(*(p)) ___p1 = READ_ONCE(*(p)); barrier(); ___p1; })
#define smp_acquire__after_ctrl_dep() smp_rmb()
#define smp_cond_load_relaxed(ptr, cond_expr) ({		\
	typeof(ptr) __PTR = (ptr);				\
	__unqual_scalar_typeof(*ptr) VAL;			\
	for (;;) {						\
		VAL = READ_ONCE(*__PTR);			\
		if (cond_expr)					\
			break;					\
		cpu_relax();					\
	}							\
	(typeof(*ptr))VAL;					\
})
#define smp_cond_load_acquire(ptr, cond_expr) ({		\
	__unqual_scalar_typeof(*ptr) _val;			\
	_val = smp_cond_load_relaxed(ptr, cond_expr);		\
	barrier();						\
	(typeof(*ptr))_val;					\
})

static __always_inline void cpu_relax(void)
{
	__asm__ __volatile__("rep; nop" ::: "memory");
}

/* ------------------------------------------------------------ bits.h, bitops.h */

#define BITS_PER_LONG		64
#define BITS_PER_LONG_LONG	64
#define BITS_PER_BYTE		8
#define BITS_PER_TYPE(type)	(sizeof(type) * BITS_PER_BYTE)
#define BITS_TO_LONGS(nr)	__KERNEL_DIV_ROUND_UP(nr, BITS_PER_TYPE(long))
#define BITS_TO_U64(nr)		__KERNEL_DIV_ROUND_UP(nr, BITS_PER_TYPE(u64))
#define BITS_TO_U32(nr)		__KERNEL_DIV_ROUND_UP(nr, BITS_PER_TYPE(u32))
#define BIT(nr)			(UL(1) << (nr))
#define BIT_ULL(nr)		(ULL(1) << (nr))
#define BIT_MASK(nr)		(UL(1) << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr)		((nr) / BITS_PER_LONG)
#define BIT_ULL_MASK(nr)	(ULL(1) << ((nr) % BITS_PER_LONG_LONG))
#define BIT_ULL_WORD(nr)	((nr) / BITS_PER_LONG_LONG)
#define GENMASK_INPUT_CHECK(h, l) 0
#define __GENMASK(h, l) \
	(((~UL(0)) - (UL(1) << (l)) + 1) & \
	 (~UL(0) >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK(h, l)	(GENMASK_INPUT_CHECK(h, l) + __GENMASK(h, l))
#define __GENMASK_ULL(h, l) \
	(((~ULL(0)) - (ULL(1) << (l)) + 1) & \
	 (~ULL(0) >> (BITS_PER_LONG_LONG - 1 - (h))))
#define GENMASK_ULL(h, l) (GENMASK_INPUT_CHECK(h, l) + __GENMASK_ULL(h, l))
#define small_const_nbits(nbits) \
	(__builtin_constant_p(nbits) && (nbits) <= BITS_PER_LONG && (nbits) > 0)

#define __bitop_word(nr, addr)	(((unsigned long *)(addr)) + BIT_WORD(nr))

/* x86: locked read-modify-write instructions, full barriers */
static __always_inline void set_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or(__bitop_word(nr, addr), BIT_MASK(nr), __ATOMIC_SEQ_CST);
}

static __always_inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and(__bitop_word(nr, addr), ~BIT_MASK(nr), __ATOMIC_SEQ_CST);
}

static __always_inline void change_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_xor(__bitop_word(nr, addr), BIT_MASK(nr), __ATOMIC_SEQ_CST);
}

static __always_inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_or(__bitop_word(nr, addr), BIT_MASK(nr),
				 __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

static __always_inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_and(__bitop_word(nr, addr), ~BIT_MASK(nr),
				  __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

static __always_inline bool test_and_set_bit_lock(long nr, volatile unsigned long *addr)
{
	return test_and_set_bit(nr, addr);
}

static __always_inline void clear_bit_unlock(long nr, volatile unsigned long *addr)
{
	barrier();
	clear_bit(nr, addr);
}

static __always_inline void __set_bit(long nr, volatile unsigned long *addr)
{
	*__bitop_word(nr, addr) |= BIT_MASK(nr);
}

static __always_inline void __clear_bit(long nr, volatile unsigned long *addr)
{
	*__bitop_word(nr, addr) &= ~BIT_MASK(nr);
}

static __always_inline void __change_bit(long nr, volatile unsigned long *addr)
{
	*__bitop_word(nr, addr) ^= BIT_MASK(nr);
}

/* x86's __clear_bit_unlock(): a compiler barrier, then a plain store */
static __always_inline void __clear_bit_unlock(long nr, volatile unsigned long *addr)
{
	barrier();
	__clear_bit(nr, addr);
}

static __always_inline bool __test_and_set_bit(long nr, volatile unsigned long *addr)
{
	unsigned long *p = __bitop_word(nr, addr), old = *p;

	*p = old | BIT_MASK(nr);
	return old & BIT_MASK(nr);
}

static __always_inline bool __test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	unsigned long *p = __bitop_word(nr, addr), old = *p;

	*p = old & ~BIT_MASK(nr);
	return old & BIT_MASK(nr);
}

/* x86's variable_test_bit() reads the word through a volatile operand */
static __always_inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return 1UL & (addr[BIT_WORD(nr)] >> (nr & (BITS_PER_LONG - 1)));
}

#define test_bit_acquire(nr, addr) ({ bool __b = test_bit(nr, addr); barrier(); __b; })

static __always_inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

static __always_inline unsigned long __fls(unsigned long word)
{
	return BITS_PER_LONG - 1 - __builtin_clzl(word);
}

#define ffz(x) __ffs(~(x))

/* a macro: <strings.h> declares an extern ffs() */
#define ffs(x)	__builtin_ffs(x)

static __always_inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static __always_inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

/* the @n'th set bit of @word (include/linux/bitops.h) */
static inline unsigned long fns(unsigned long word, unsigned int n)
{
	unsigned int bit;

	while (word) {
		bit = __ffs(word);
		if (n-- == 0)
			return bit;
		word &= word - 1;
	}
	return BITS_PER_LONG;
}

static __always_inline unsigned int fls_long(unsigned long l)
{
	return fls64(l);
}

static __always_inline unsigned int hweight32(unsigned int w)
{
	return __builtin_popcount(w);
}

static __always_inline unsigned long hweight64(u64 w)
{
	return __builtin_popcountll(w);
}

#define hweight8(w)	hweight32((u8)(w))
#define hweight16(w)	hweight32((u16)(w))
#define hweight_long(w)	hweight64(w)

static inline u32 rol32(u32 word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}

#define swab16(x)	__builtin_bswap16(x)
#define swab32(x)	__builtin_bswap32(x)
#define swab64(x)	__builtin_bswap64(x)
#define swab(x)		swab64(x)

/* ------------------------------------------------------------ atomics */

#define xchg(ptr, v)		__atomic_exchange_n((ptr), (v), __ATOMIC_SEQ_CST)
#define cmpxchg(ptr, o, n) ({					\
	typeof(*(ptr)) __o = (o);				\
	__atomic_compare_exchange_n((ptr), &__o, (n), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__o; })
#define cmpxchg_relaxed		cmpxchg
#define cmpxchg_acquire		cmpxchg
#define cmpxchg_release		cmpxchg
#define try_cmpxchg(ptr, oldp, n)				\
	__atomic_compare_exchange_n((ptr), (oldp), (n), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)

#define ATOMIC_INIT(i)		{ (i) }
#define ATOMIC64_INIT(i)	{ (i) }
#define ATOMIC_LONG_INIT(i)	ATOMIC64_INIT(i)

#define KC_ATOMIC_OPS(pfx, atype, ctype)					\
static __always_inline ctype pfx##_read(const atype *v)			\
{ return READ_ONCE(v->counter); }						\
static __always_inline void pfx##_set(atype *v, ctype i)		\
{ WRITE_ONCE(v->counter, i); }						\
static __always_inline void pfx##_add(ctype i, atype *v)		\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static __always_inline void pfx##_sub(ctype i, atype *v)		\
{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST); }		\
static __always_inline void pfx##_inc(atype *v)				\
{ pfx##_add(1, v); }							\
static __always_inline void pfx##_dec(atype *v)				\
{ pfx##_sub(1, v); }							\
static __always_inline ctype pfx##_add_return(ctype i, atype *v)	\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline ctype pfx##_sub_return(ctype i, atype *v)	\
{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline ctype pfx##_fetch_add(ctype i, atype *v)		\
{ return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline ctype pfx##_inc_return(atype *v)			\
{ return pfx##_add_return(1, v); }					\
static __always_inline ctype pfx##_dec_return(atype *v)			\
{ return pfx##_sub_return(1, v); }					\
static __always_inline bool pfx##_dec_and_test(atype *v)		\
{ return pfx##_sub_return(1, v) == 0; }					\
static __always_inline ctype pfx##_xchg(atype *v, ctype i)		\
{ return __atomic_exchange_n(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static __always_inline ctype pfx##_cmpxchg(atype *v, ctype o, ctype n)	\
{ __atomic_compare_exchange_n(&v->counter, &o, n, false,		\
			      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
  return o; }								\
static __always_inline bool pfx##_try_cmpxchg(atype *v, ctype *o, ctype n) \
{ return __atomic_compare_exchange_n(&v->counter, o, n, false,		\
				     __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }

KC_ATOMIC_OPS(atomic, atomic_t, int)
KC_ATOMIC_OPS(atomic64, atomic64_t, s64)
KC_ATOMIC_OPS(atomic_long, atomic_long_t, long)

#define atomic_inc_not_zero(v) ({ int __c = atomic_read(v);		\
	while (__c && !atomic_try_cmpxchg((v), &__c, __c + 1))		\
		;							\
	__c != 0; })

/* ------------------------------------------------------------ printk, bug */

#define KERN_EMERG	""
#define KERN_ALERT	""
#define KERN_CRIT	""
#define KERN_ERR	""
#define KERN_WARNING	""
#define KERN_NOTICE	""
#define KERN_INFO	""
#define KERN_DEBUG	""
#define KERN_CONT	""

struct va_format {
	const char *fmt;
	va_list *va;
};

/* kcompat.c: vsnprintf() with the kernel's %pV, stderr for messages */
__printf(1, 2) int printk(const char *fmt, ...);
/* glibc's, which the kernel's match for the formats the index files use */
int snprintf(char *buf, size_t size, const char *fmt, ...);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list args);
__printf(3, 4) int scnprintf(char *buf, size_t size, const char *fmt, ...);
int vscnprintf(char *buf, size_t size, const char *fmt, va_list args);

/* lib/string.c's: @src cut to fit @count and terminated; -E2BIG when cut */
static inline ssize_t strscpy(char *dest, const char *src, size_t count)
{
	size_t len = strnlen(src, count);

	if (!count)
		return -E2BIG;
	if (len == count) {
		memcpy(dest, src, count - 1);
		dest[count - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dest, src, len + 1);
	return len;
}
__noreturn void kc_bug(const char *file, int line, const char *what);
void kc_warn(const char *file, int line, const char *what);
/* messages are counted; the driver reports the count with each row */
extern unsigned long kc_err_messages;
/*
 * Lock acquisitions that waited past KC_SPIN_LONG pauses: the holder was
 * preempted by the host (kcompat.c); the driver flags the rows they hit.
 */
#define KC_SPIN_LONG		4096
extern unsigned long kc_long_spins;

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define pr_emerg(fmt, ...)	printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)	printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)	printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_notice(fmt, ...)	printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...)	printk(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	do { if (0) printk(pr_fmt(fmt), ##__VA_ARGS__); } while (0)
#define pr_err_ratelimited	pr_err
#define pr_warn_once		pr_warn
#define pr_info_once		pr_info

#define BUG()		kc_bug(__FILE__, __LINE__, "BUG")
#define BUG_ON(c)	do { if (unlikely(c)) kc_bug(__FILE__, __LINE__, #c); } while (0)
#define WARN_ON(c)	({ int __w = !!(c); if (unlikely(__w)) kc_warn(__FILE__, __LINE__, #c); unlikely(__w); })
#define WARN_ON_ONCE(c)	({ static bool __once; int __w = !!(c);			\
	if (unlikely(__w) && !__once) { __once = true; kc_warn(__FILE__, __LINE__, #c); } \
	unlikely(__w); })
#define WARN(c, fmt...)	({ int __w = !!(c); if (unlikely(__w)) { printk(fmt); kc_warn(__FILE__, __LINE__, #c); } unlikely(__w); })
#define WARN_ONCE(c, fmt...) WARN(c, fmt)
#define VM_BUG_ON(c)	BUILD_BUG_ON_INVALID(c)
#define VM_WARN_ON(c)	BUILD_BUG_ON_INVALID(c)

/* ------------------------------------------------------------ kernel.h, math */

#define __ALIGN_MASK(x, mask)	__ALIGN_KERNEL_MASK((x), (mask))
#define ALIGN(x, a)		__ALIGN_KERNEL((x), (a))
#define ALIGN_DOWN(x, a)	__ALIGN_KERNEL((x) - ((a) - 1), (a))
#define PTR_ALIGN(p, a)		((typeof(p))ALIGN((unsigned long)(p), (a)))
#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)
#define DIV_ROUND_UP		__KERNEL_DIV_ROUND_UP
#define DIV_ROUND_UP_ULL(ll, d) ({ unsigned long long _tmp = (ll) + (d) - 1; _tmp / (d); })
#define DIV_ROUND_CLOSEST(x, divisor) (((x) + ((divisor) / 2)) / (divisor))
#define round_up(x, y)		((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#define round_down(x, y)	((x) & ~((__typeof__(x))((y) - 1)))
#define roundup(x, y)		((((x) + ((y) - 1)) / (y)) * (y))
#define upper_32_bits(n)	((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define swap(a, b) \
	do { typeof(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)
#define _RET_IP_		((unsigned long)__builtin_return_address(0))
#define _THIS_IP_		({ __label__ __here; __here: (unsigned long)&&__here; })
#define might_sleep()		do { } while (0)
#define might_sleep_if(c)	do { } while (0)
#define might_fault()		do { } while (0)
#define might_alloc(gfp)	do { (void)(gfp); } while (0)
#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_PER_CPU_SYMBOL(sym)
#define EXPORT_PER_CPU_SYMBOL_GPL(sym)
#define __init
#define __exit
#define __initdata
#define __exitdata
#define __initconst

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}

#define div64_ul div64_u64

/* x86-64: a 128-bit product, one division (arch/x86/include/asm/div64.h) */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 mul, u64 div)
{
	return (u64)(((unsigned __int128)a * mul) / div);
}

#include <include/linux/minmax.h>
#include <include/linux/overflow.h>
#include <include/linux/log2.h>

#endif /* _KC_BASE_H */
