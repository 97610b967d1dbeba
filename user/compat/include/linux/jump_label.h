/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: static keys as x86's jump labels.  Each
 * static_branch_unlikely() site is a 5-byte nop recorded in the __jump_table
 * section, exactly as arch/x86/include/asm/jump_label.h emits it;
 * static_branch_enable() rewrites the nops of the key's sites into jumps to
 * the out-of-line branch (kcompat.c, mprotect() and a write), disable() back
 * into nops.  Off, a site costs one nop, as in the kernel.  Keys are
 * changed only while no other thread runs the patched code.
 */
#ifndef _KC_JUMP_LABEL_H
#define _KC_JUMP_LABEL_H
#include <kc_base.h>

struct static_key {
	atomic_t enabled;
};

struct static_key_true {
	struct static_key key;
};

struct static_key_false {
	struct static_key key;
};

struct jump_entry {
	unsigned long code;
	unsigned long target;
	unsigned long key;	/* struct static_key *, bit 0: the branch sense */
};

#define STATIC_KEY_INIT_TRUE	{ .enabled = ATOMIC_INIT(1) }
#define STATIC_KEY_INIT_FALSE	{ .enabled = ATOMIC_INIT(0) }
#define DEFINE_STATIC_KEY_TRUE(name) \
	struct static_key_true name = { .key = STATIC_KEY_INIT_TRUE }
#define DEFINE_STATIC_KEY_FALSE(name) \
	struct static_key_false name = { .key = STATIC_KEY_INIT_FALSE }
#define DECLARE_STATIC_KEY_TRUE(name)	extern struct static_key_true name
#define DECLARE_STATIC_KEY_FALSE(name)	extern struct static_key_false name

static __always_inline bool arch_static_branch(struct static_key *key, bool branch)
{
	asm_volatile_goto("1: .byte 0x0f,0x1f,0x44,0x00,0x00\n\t"
			  ".pushsection __jump_table, \"aw\"\n\t"
			  ".balign 8\n\t"
			  ".quad 1b, %l[l_yes], %c0 + %c1\n\t"
			  ".popsection\n\t"
			  : : "i" (key), "i" (branch) : : l_yes);
	return false;
l_yes:
	return true;
}

#define static_key_enabled(x)	(atomic_read(&(x)->key.enabled) > 0)
/* only false keys are used: their sites start as nops */
#define static_branch_unlikely(x) ({					\
	BUILD_BUG_ON(!__same_type(*(x), struct static_key_false));	\
	unlikely(arch_static_branch(&(x)->key, false)); })
#define static_branch_likely(x)	likely(static_key_enabled(x))

void kc_static_key_set(struct static_key *key, bool on);
#define static_branch_enable(x)		kc_static_key_set(&(x)->key, true)
#define static_branch_disable(x)	kc_static_key_set(&(x)->key, false)
#endif
