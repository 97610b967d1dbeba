/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx: benchmark PID indexes inside the running kernel.
 *
 * Every index implements struct pidx_ops with the semantics of the kernel's
 * own PID index (kernel/pid.c): a map from a number to a value (the engine's
 * struct pidx_pid, as the kernel's maps to its struct pid), filled in two
 * phases as alloc_pid() fills it: a number is first reserved, invisible to
 * readers, then published with its value.
 *
 *  - alloc():   reserves a number cyclically, exactly as alloc_pid() +
 *               idr_alloc_cyclic() with a NULL entry: the floor is 1 while
 *               the cursor is at or below PIDX_RESERVED_PIDS and
 *               PIDX_RESERVED_PIDS once it has passed it; search
 *               [max(cursor, floor), pid_max); when nothing is free there and
 *               the search did not already start at the floor, search [floor,
 *               pid_max) once more; the cursor becomes pid + 1.  -ENOSPC when
 *               nothing is free (neither reserved nor published): for writers
 *               that take no common lock, at some instant during the call,
 *               however other CPUs free and take numbers meanwhile.
 *  - insert():  reserves a given number (clone3()'s set_tid); -EEXIST if it
 *               is reserved or published, -EINVAL outside [1, pid_max).  Does
 *               not move the cursor.
 *  - publish(): stores @value for a number the caller reserved: 0, then
 *               lookup() returns @value.  -ENOENT if the number is not held,
 *               -EEXIST if it is already published: both are contract
 *               violations, and the index stays as it was (an index that
 *               would need a search kernel/pid.c never makes to tell them
 *               apart tells them only under pidx_checking_contract(), see
 *               below).  Never allocates;
 *               any context, and never sleeps, except in an index that sets
 *               writers_need_irqs_on, whose writers (publish() among them)
 *               run in process context only.  It orders the caller's
 *               earlier stores to the object before the value becomes
 *               visible (release), so a reader that finds the value sees
 *               the object built.
 *  - alloc_publish(): optional; reserves a number as alloc() does, stores it
 *               at *@nr (a field of @value's object) and publishes @value, as
 *               one step that lookups never see half done: mainline's
 *               alloc_pid(), which reserves and publishes in one hold of
 *               pidmap_lock.  Errors as alloc()'s; nothing is held after one.
 *  - lookup():  the value of a published number, NULL when the number is
 *               absent or only reserved.  Lockless; the caller holds
 *               rcu_read_lock().  A number published for the whole call
 *               always returns its value, never another number's, a torn one
 *               or NULL.  The index never dereferences a value.
 *  - remove():  frees a number, reserved or published alike: 0, or -ENOENT
 *               if absent (under pidx_checking_contract() alone, where
 *               telling costs a search).  Only the number's owner calls it (the exit path,
 *               or alloc_pid()'s unwind of a reservation).  Memory is freed
 *               only after an RCU grace period, and the caller frees the
 *               value's object only after one too (free_pid()'s call_rcu()),
 *               so a reader that found the value may still read it.  A held
 *               number is always removed: only an index that sets
 *               remove_may_fail may instead return -ENOMEM, when an
 *               allocation its removal needs fails in a context that cannot
 *               sleep; the number is then still held as it was, the index
 *               unchanged, and the caller still owns it (the engine keeps it
 *               and counts a failed operation).
 *  - find_ge(): the smallest published number >= @pid, or -ENOENT;
 *               reserved numbers are skipped, as idr_get_next() skips NULL
 *               entries.  Lockless under rcu_read_lock() like lookup().
 *  - verify():  structural invariants, called with no writer running;
 *               returns the number of violations found (0: consistent) and
 *               reports each with pr_err().
 *  - mem_bytes(): memory the index holds now, in bytes (not the values'
 *               objects, which are the caller's).
 *  - alloc_publish_levels(), publish_levels(), remove_levels(): optional;
 *               the same steps over the @n instances of one level group
 *               (PID namespace levels, pidx_params.group), idx[0] the first
 *               level's, as alloc_pid() and free_pid() take them under
 *               pidmap_lock, which all namespaces share: alloc_publish()
 *               reserving in every level, deepest first, and publishing in
 *               all, as one step (on an error no level holds a number);
 *               publish() of nr[i] in every level as one step (all or
 *               none: -ENOENT or -EEXIST as publish()'s, and a refusal
 *               leaves every level as it was); remove() of nr[i] in every level as one step (0, or
 *               -ENOENT when some level did not hold its number; the others
 *               are removed).  An index without them is driven level by
 *               level through its one-instance writers.
 *  - set_cursor(): optional; with no writer running, after a prefill by
 *               insert(): the next alloc() searches from @next (in [1,
 *               pid_max]), as after idr_set_cursor().  The engine puts the
 *               cursor just past the last number a machine holding the
 *               prefilled set would have allocated.  An index with per-CPU
 *               ranges (alloc_ranges) moves the cursor its CPUs take their
 *               next ranges from.
 *
 * A value is a non-NULL pointer aligned to at least 4 bytes: an index may
 * use the two low bits of the word that holds it for its own marks.
 *
 * The writers (alloc, insert, publish, remove and their level forms) may be
 * called from any context, including the interrupts-off callback of
 * on_each_cpu(), unless the index sets writers_need_irqs_on: @gfp says
 * whether they may sleep (GFP_KERNEL from process context, GFP_ATOMIC
 * otherwise).  The writers of an index that sets
 * writers_need_irqs_on are called from process context only, and may sleep
 * whatever @gfp says (remove() has no @gfp).  Writers are serialized by each
 * index as it sees fit.
 *
 * Adding an index is one new file defining a struct pidx_ops and one line in
 * pidx_index_table[] (pidx_registry.c).
 */
#ifndef _PIDX_H
#define _PIDX_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/atomic.h>
#include <linux/jump_label.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/numa.h>
#include <linux/percpu.h>

/* kernel/pid.c: the first numbers are kept for daemons once the cursor wraps */
#define PIDX_RESERVED_PIDS	300
/* include/linux/threads.h PID_MAX_LIMIT on 64-bit */
#define PIDX_PID_MAX_LIMIT	(4 * 1024 * 1024)
#define PIDX_PID_MAX_MIN	(PIDX_RESERVED_PIDS + 1)
#define PIDX_PID_MAX_DEFAULT	32768
/* skip lists: the highest level a tower may reach (sl_max_level's bound) */
#define PIDX_SL_LEVELS_MAX	16
/* namespace levels a PID gets a number in (the levels setting's bound) */
#define PIDX_LEVELS_MAX		3

struct pidx_index;

/* Parameters every index is created with (snapshot of the settings). */
struct pidx_params {
	u32 pid_max;		/* numbers are in [1, pid_max) */
	u32 sl_p;		/* skip lists: a tower grows with probability 1/sl_p */
	u32 sl_max_level;	/* skip lists: 0 = derived from pid_max */
	u32 rb_level;		/* rbskip: towers this tall are in the tree; 0 = default */
	u64 seed;		/* for any randomness inside the index */
	/*
	 * NUMA placement of the index's own memory: a node number,
	 * NUMA_NO_NODE (the allocating CPU's node, the slab default) or
	 * PIDX_NODE_INTERLEAVE.  Pass pidx_mem_node(p->node, key) as the node
	 * of every kmem_cache_alloc_node()/kmalloc_node() of index memory,
	 * never p->node itself: only pidx_mem_node() resolves interleave and
	 * a node that can no longer serve.
	 */
	int node;
	/*
	 * Namespace levels: the group's first instance, NULL for that one
	 * itself.  Every instance of a group shares what the kernel shares
	 * across namespaces (the IDR references: pidmap_lock); an index with
	 * nothing to share ignores it.  The first is destroyed last.
	 */
	struct pidx_index *group;
};

#define PIDX_NODE_INTERLEAVE	(-2)
/* per-node object counts kept by ->nodes(); higher nodes land in the last */
#define PIDX_NODES_MAX		8

struct pidx_ops {
	const char *name;
	const char *desc;
	/* the null index: measures the engine only, its contents are not checked */
	bool no_contents;
	/*
	 * alloc/insert/remove must not run with interrupts off (the structure's
	 * allocator turns them back on): ipi storms that write skip this index.
	 */
	bool writers_need_irqs_on;
	/*
	 * remove() allocates (copy-on-write nodes) with interrupts possibly
	 * off, so it may fail with -ENOMEM, leaving the key in place.
	 */
	bool remove_may_fail;
	/*
	 * alloc() hands out numbers from per-CPU ranges: unique, in [floor,
	 * pid_max) and -ENOSPC only when that is full, but not in cyclic order
	 * across CPUs (a named option: checked for those rules, not the order).
	 */
	bool alloc_ranges;
	/*
	 * lookup/find_ge may wait for a writer to finish a step (maple's walk
	 * restarts until a killed node's replacement is linked), so a reader
	 * in an interrupt must never stop a writer on its own CPU.
	 */
	bool readers_may_wait;

	/* Process context; returns ERR_PTR() on failure. */
	struct pidx_index *(*create)(const struct pidx_params *p);
	/* Process context; frees everything, including RCU-deferred memory. */
	void (*destroy)(struct pidx_index *idx);

	int (*alloc)(struct pidx_index *idx, gfp_t gfp);
	int (*insert)(struct pidx_index *idx, u32 pid, gfp_t gfp);
	int (*publish)(struct pidx_index *idx, u32 pid, void *value);
	int (*alloc_publish)(struct pidx_index *idx, void *value, u32 *nr,
			     gfp_t gfp);
	int (*alloc_publish_levels)(struct pidx_index *const *idx, unsigned int n,
				    void *value, u32 *const *nr, gfp_t gfp);
	int (*publish_levels)(struct pidx_index *const *idx, unsigned int n,
			      const u32 *nr, void *value);
	int (*remove_levels)(struct pidx_index *const *idx, unsigned int n,
			     const u32 *nr);
	void *(*lookup)(struct pidx_index *idx, u32 pid);
	int (*remove)(struct pidx_index *idx, u32 pid);
	int (*find_ge)(struct pidx_index *idx, u32 pid);

	void (*set_cursor)(struct pidx_index *idx, u32 next);

	unsigned int (*verify)(struct pidx_index *idx);
	size_t (*mem_bytes)(struct pidx_index *idx);
	/*
	 * Optional: index-specific facts for the results ("key=value" pairs
	 * separated by ';', no commas), e.g. the level histogram.
	 */
	void (*describe)(struct pidx_index *idx, char *buf, size_t len);
	/*
	 * Optional, called with no writer running: add to @count[n] the
	 * number of index objects (nodes, buckets, tables) whose memory is on
	 * NUMA node n (page_to_nid(virt_to_page(obj))); nodes at or above
	 * PIDX_NODES_MAX count in the last slot.
	 */
	void (*nodes)(struct pidx_index *idx, u64 count[PIDX_NODES_MAX]);
};

extern const struct pidx_ops pidx_null_ops;
extern const struct pidx_ops pidx_idr_ops;
extern const struct pidx_ops pidx_idr_onelock_ops;
extern const struct pidx_ops pidx_skiplist_ops;
extern const struct pidx_ops pidx_rbskip_ops;
extern const struct pidx_ops pidx_hash_ops;
extern const struct pidx_ops pidx_maple_ops;
extern const struct pidx_ops pidx_ccskip_ops;
extern const struct pidx_ops pidx_lazyskip_ops;
extern const struct pidx_ops pidx_lfradix_ops;
extern const struct pidx_ops pidx_lfradix_pc_ops;

/*
 * Module-wide accounting of what the indexes allocate themselves: every
 * charge must be matched by an uncharge before unload.  Each CPU charges
 * its own account: one shared by all would be a line that every CPU's
 * writers pass between them on each node they allocate or free, a cost
 * that no kernel index pays and that the indexes whose nodes come from
 * the kernel's own caches (idr, maple) never charge.  Atomic all the same,
 * as a task may move to another CPU between finding its account and
 * changing it, and an object is often freed on another CPU than the one
 * that allocated it: only the sum over the CPUs means anything.
 */
struct pidx_mem_account {
	atomic_long_t bytes;	/* outstanding */
	atomic_long_t allocs;	/* objects allocated since load */
	atomic_long_t frees;	/* objects freed since load */
};

DECLARE_PER_CPU(struct pidx_mem_account, pidx_mem);

/* The accounts summed: exact while no index allocates or frees. */
struct pidx_mem_totals {
	long bytes;
	long allocs;
	long frees;
};

struct pidx_mem_totals pidx_mem_read(void);

static inline long pidx_mem_bytes(void)
{
	return pidx_mem_read().bytes;
}

static inline void pidx_mem_charge(size_t bytes)
{
	struct pidx_mem_account *a = raw_cpu_ptr(&pidx_mem);

	atomic_long_add(bytes, &a->bytes);
	atomic_long_inc(&a->allocs);
}

static inline void pidx_mem_uncharge(size_t bytes)
{
	struct pidx_mem_account *a = raw_cpu_ptr(&pidx_mem);

	atomic_long_sub(bytes, &a->bytes);
	atomic_long_inc(&a->frees);
}

/*
 * The cyclic floor of alloc_pid(): numbers below PIDX_RESERVED_PIDS are only
 * handed out before the cursor first passes it.
 */
static inline u32 pidx_alloc_floor(u32 cursor)
{
	return cursor > PIDX_RESERVED_PIDS ? PIDX_RESERVED_PIDS : 1;
}

/* Fast reproducible per-CPU generator (xorshift64*), never zero state. */
static inline u64 pidx_rand_next(u64 *state)
{
	u64 x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static inline u64 pidx_rand_seed(u64 seed, unsigned int stream)
{
	/* splitmix64 step: distinct well-mixed streams from one seed */
	u64 z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	z ^= z >> 31;
	return z ? z : 1;
}

/* Uniform in [0, n) without a division (Lemire's multiply-shift). */
static inline u32 pidx_rand_below(u64 *state, u32 n)
{
	return (u32)(((pidx_rand_next(state) >> 32) * (u64)n) >> 32);
}

/*
 * PIDX_SYSTEM: the index files compiled into a kernel as its PID index
 * (system/, docs/system.md).  The test hooks below are the module's: they
 * compile to nothing there, so that the kernel's timed paths are the
 * indexes' own and it carries no setting that only the selftest turns.
 */

/*
 * verify(): count a violation in *@bad, and log it under @who while few
 * have been (pidx_verify.c).
 */
__printf(3, 4)
void pidx_verify_bad(unsigned int *bad, const char *who, const char *fmt, ...);

/*
 * Test only (module parameter fail_remove_alloc = N > 0): every Nth node
 * allocation that a removal makes fails as if memory ran out, so that the
 * -ENOMEM path of an index whose removal allocates can be reached without
 * a fault-injection kernel.  Indexes call it just before such allocations.
 */
/*
 * The indexes' slab caches live while some instance uses them, so that the
 * module's unload leaves none.  In a kernel they are made at boot and
 * kept: a PID namespace's creation must not make or destroy a cache.
 */
#ifdef PIDX_SYSTEM
#define pidx_keep_caches()	true
#else
#define pidx_keep_caches()	false
#endif

#ifdef PIDX_SYSTEM
static inline bool pidx_fault_remove_alloc(void)
{
	return false;
}
#else
bool pidx_fault_remove_alloc(void);
/* the parameter itself: the selftest sets it for a while, under the run lock */
extern unsigned int pidx_fail_remove_alloc;
#endif

/*
 * The node for an allocation of index memory that holds @key: the setting
 * itself, or under PIDX_NODE_INTERLEAVE the nodes with memory in turn by
 * runs of 64 keys (so neighbouring keys share a node and the split is even).
 * Always a node with memory or NUMA_NO_NODE (one node only, or a node that
 * lost its memory since the setting was made), never a node the allocators
 * cannot serve.
 */
#ifdef PIDX_SYSTEM
/* a PID namespace's index takes the allocating CPU's node, as idr's nodes do */
static inline int pidx_mem_node(int setting, u32 key)
{
	return NUMA_NO_NODE;
}
#else
int pidx_mem_node(int setting, u32 key);
#endif

/* A node whose memory index objects can be asked for: online, with memory. */
static inline bool pidx_node_has_memory(int node)
{
	return node >= 0 && node < MAX_NUMNODES && node_state(node, N_MEMORY);
}

/*
 * For ->nodes(): counts @obj on the NUMA node of its page, slab or vmalloc
 * memory alike (a vmalloc'ed array by its first page).
 */
static inline void pidx_count_node(const void *obj, u64 count[PIDX_NODES_MAX])
{
	struct page *pg = is_vmalloc_addr(obj) ? vmalloc_to_page(obj) :
			  virt_to_page(obj);

	count[min_t(int, page_to_nid(pg), PIDX_NODES_MAX - 1)]++;
}

/*
 * Visit tracing (setting trace_visits): while it is on, the engine counts,
 * per operation, the index nodes it visits and the distinct cache lines it
 * reads from them.  Indexes call pidx_visit_node() once for every node
 * whose contents an operation reads (a key, a slot, a pointer in it), with
 * the bytes read, and pidx_visit_more() for further bytes read from a node
 * already counted.  Off (the default) each call is a static branch that
 * jumps over the call, so timing runs pay nothing measurable.
 */
/* declared for both builds: PIDX_SYSTEM's calls are dead code */
void __pidx_visit(const void *p, size_t len, bool node);

#ifdef PIDX_SYSTEM
static __always_inline bool pidx_visits_enabled(void)
{
	return false;
}

static __always_inline void pidx_visit_node(const void *p, size_t len)
{
}

static __always_inline void pidx_visit_more(const void *p, size_t len)
{
}
#else
DECLARE_STATIC_KEY_FALSE(pidx_visits_on);

/* for an index whose visits take a walk of their own to count */
static __always_inline bool pidx_visits_enabled(void)
{
	return static_branch_unlikely(&pidx_visits_on);
}

static __always_inline void pidx_visit_node(const void *p, size_t len)
{
	if (static_branch_unlikely(&pidx_visits_on))
		__pidx_visit(p, len, true);
}

static __always_inline void pidx_visit_more(const void *p, size_t len)
{
	if (static_branch_unlikely(&pidx_visits_on))
		__pidx_visit(p, len, false);
}
#endif

/*
 * Race hunting: writers call pidx_race_delay() in the windows where another
 * CPU can meet their work half done (a node initialised but not yet
 * published, a tower linked on some levels, a lock taken but not yet
 * validated, a resize between steps).  The selftest's concurrent phases
 * turn it on, and each call then waits a random 0-3 us half the time, so
 * that the other side of each window gets to run in it.  A static key, not
 * a build option: every build's selftest (make check runs the stock module)
 * hunts with it, while off each call is one NOP, so timing runs pay
 * nothing measurable, as with pidx_visits_on.
 */
#ifdef PIDX_SYSTEM
static __always_inline void pidx_race_delay(void)
{
}
#else
DECLARE_STATIC_KEY_FALSE(pidx_race_delays);
void __pidx_race_delay(void);

static __always_inline void pidx_race_delay(void)
{
	if (static_branch_unlikely(&pidx_race_delays))
		__pidx_race_delay();
}
#endif

/*
 * Contract checks: the refusals above that kernel/pid.c never needs, since
 * its caller owns every number it publishes or removes (publish()'s -EEXIST,
 * remove()'s -ENOENT).  An index that must find the number anyway to change
 * it answers them as it goes.  One that would need a search the kernel does
 * not make (idr: idr_find() before idr_replace() and idr_remove()) makes it
 * only while this key is on: the selftest turns it on for its phases, and
 * storms run with it off, so that a timed path does the kernel's steps and
 * no more.  Off, such an index leaves a publish of a number the caller does
 * not hold reserved undefined, as the kernel does (maple's publish() of an
 * absent number then stores it; idr's and lazyskip's still refuse it).
 */
#ifdef PIDX_SYSTEM
/* kernel/pid.c owns every number it publishes or removes */
static __always_inline bool pidx_checking_contract(void)
{
	return false;
}
#else
DECLARE_STATIC_KEY_FALSE(pidx_contract_checks);

static __always_inline bool pidx_checking_contract(void)
{
	return static_branch_unlikely(&pidx_contract_checks);
}
#endif

#endif /* _PIDX_H */
