// SPDX-License-Identifier: GPL-2.0
/*
 * pidx storms: what every storm does before and after its operations, and
 * whether the index came out right, for the module and, unchanged, for
 * user/pidx-user (see pidx_storm.h).  The prefill checks each number it is
 * given; the oracle checks that the index holds exactly what the storm's
 * operations imply; the summaries turn each storm CPU's counts into the
 * result's columns, and pidx_csv_row() those into a results.csv row.
 */
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
/* kvmalloc_array(), kvfree(): in mm.h, not slab.h, before v5.16 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/topology.h>
#include "pidx_dist.h"
#include "pidx_storm.h"
#include "pidx_trace.h"

char pidx_storm_why[PIDX_STORM_WHY_MAX];

const char *pidx_milli(struct pidx_milli *b, u64 v)
{
	snprintf(b->s, sizeof(b->s), "%llu.%03llu", v / 1000, v % 1000);
	return b->s;
}

u64 pidx_milli_div(u64 num, u64 den)
{
	return den ? div64_u64(num * 1000, den) : 0;
}

void pidx_node_name(char *buf, size_t len, int node)
{
	if (node == NUMA_NO_NODE)
		strscpy(buf, "any", len);
	else if (node == PIDX_NODE_INTERLEAVE)
		strscpy(buf, "interleave", len);
	else
		snprintf(buf, len, "%d", node);
}

static size_t pidx_cpulist_range(char *buf, size_t len, size_t at,
				 unsigned int first, unsigned int last)
{
	const char *sep = at ? ";" : "";

	if (first == last)
		return scnprintf(buf + at, len - at, "%s%u", sep, first);
	return scnprintf(buf + at, len - at, "%s%u-%u", sep, first, last);
}

/* The CPUs of @mask as "%*pbl" lists them, with ';' for ',' (no commas: CSV). */
void pidx_cpulist(char *buf, size_t len, const struct cpumask *mask)
{
	unsigned int cpu, first = 0, last = 0;
	bool open = false;
	size_t at = 0;

	buf[0] = '\0';
	for_each_cpu(cpu, mask) {
		if (open && cpu == last + 1) {
			last = cpu;
			continue;
		}
		if (open)
			at += pidx_cpulist_range(buf, len, at, first, last);
		first = cpu;
		last = cpu;
		open = true;
	}
	if (open)
		pidx_cpulist_range(buf, len, at, first, last);
}

void pidx_fail(struct pidx_result *res, const char *fmt, ...)
{
	va_list args;

	if (res->verdict == PIDX_FAILED)
		return;
	res->verdict = PIDX_FAILED;
	va_start(args, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, args);
	va_end(args);
}

/*
 * @tag appended to @res's extra whole, cutting the facts before it short
 * where it must: a label that a reader of the row needs (faults=, which
 * plot.py and the report leave out) never goes missing.
 */
void pidx_extra_tag(struct pidx_result *res, const char *tag)
{
	size_t size = sizeof(res->extra), len = strlen(res->extra), n = strlen(tag);

	if (len && len + 1 + n >= size)
		len = size - 2 - n;
	scnprintf(res->extra + len, size - len, "%s%s", len ? ";" : "", tag);
}

/* Cost of the two clock reads that bracket a sampled operation. */
static u64 pidx_clock_cost_milli(void)
{
	u64 t0, t1, best = U64_MAX;
	unsigned int i, j;

	for (i = 0; i < 16; i++) {
		t0 = ktime_get_ns();
		for (j = 0; j < 64; j++)
			ktime_get_ns();
		t1 = ktime_get_ns();
		/* 64 reads, i.e. 32 pairs; the best of 16 tries */
		best = min(best, pidx_milli_div(t1 - t0, 32));
	}
	return best;
}

/* "cpu:node" for each storm CPU, ';'-separated (no commas: CSV) */
static void pidx_fill_cpu_nodes(struct pidx_result *res,
				const struct pidx_config *cfg)
{
	size_t len = 0, size = sizeof(res->cpu_nodes);
	unsigned int cpu;

	for_each_cpu(cpu, &cfg->cpus) {
		len += scnprintf(res->cpu_nodes + len, size - len, "%s%u:%d",
				 len ? ";" : "", cpu, cpu_to_node(cpu));
		if (len >= size - 1)
			break;
	}
}

/*
 * A new row (@res zeroed) for a storm of @ops under @cfg: the settings it
 * runs with, its verdict until a check fails, and what a clock-read pair
 * costs on the calling CPU.
 */
void pidx_result_init(struct pidx_result *res, const struct pidx_ops *ops,
		      const struct pidx_config *cfg, u32 run, u32 repeat)
{
	res->run = run;
	res->repeat = repeat;
	res->index = ops->name;
	res->verdict = ops->no_contents ? PIDX_NOT_CHECKED : PIDX_VERIFIED;
	res->workload = cfg->workload;
	res->mode = cfg->mode;
	memcpy(res->mix, cfg->mix, sizeof(res->mix));
	pidx_cpulist(res->cpus, sizeof(res->cpus), &cfg->cpus);
	res->ncpus = cpumask_weight(&cfg->cpus);
	res->keys = cfg->keys;
	/* replay: the ops setting is not used; the most events one CPU replays */
	res->ops = cfg->replay ? cfg->replay->most : cfg->ops;
	res->pid_max = cfg->pid_max;
	res->seed = cfg->seed;
	res->trace_visits = cfg->trace_visits;
	res->dependent = cfg->dependent;
	res->fork_lookups = cfg->fork_lookups;
	/*
	 * The setting, whatever the CPU count: one CPU has no other to exit
	 * on, and a gain from 1 to 2 CPUs compares rows of one setting.
	 */
	res->fork_exit = cfg->fork_exit;
	res->pmu = cfg->pmu;
	res->shape = cfg->shape;
	res->dist = cfg->dist;
	res->dist_param = cfg->dist_param;
	res->levels = cfg->levels;
	res->numa_node = cfg->node;
	res->numa_note = "";
	pidx_fill_cpu_nodes(res, cfg);
	res->clock_milli = pidx_clock_cost_milli();
}

/* Every level's instance, the group's first last. */
static void pidx_storm_destroy(struct pidx_storm *s)
{
	while (s->nlevels)
		s->ops->destroy(s->lvl[--s->nlevels]);
	s->idx = NULL;
}

/*
 * The index, empty: one instance per namespace level, the first made
 * first, the others in its group; on failure none is left and s->idx is
 * NULL.
 */
int pidx_storm_create(struct pidx_storm *s)
{
	struct pidx_params params;
	struct pidx_index *idx;
	unsigned int i;

	pidx_fill_params(s->cfg, &params);
	for (i = 0; i < s->cfg->levels; i++) {
		idx = s->ops->create(&params);
		if (IS_ERR(idx)) {
			pidx_storm_destroy(s);
			return PTR_ERR(idx);
		}
		s->lvl[i] = idx;
		s->nlevels = i + 1;
		params.group = s->lvl[0];
	}
	s->look_level = s->nlevels - 1;
	s->idx = s->lvl[s->look_level];
	return 0;
}

/* The storm's plan, its workers and their rings, before the prefill. */
int pidx_storm_setup(struct pidx_storm *s, const char **why)
{
	const struct pidx_config *cfg = s->cfg;
	unsigned int cpu, wi = 0;
	u32 slice, ring_cap;
	int ret;

	s->nworkers = cpumask_weight(&cfg->cpus);
	ret = pidx_plan(cfg, s->nworkers, &slice, &ring_cap, why);
	if (ret)
		return ret;
	if (cfg->workload == PIDX_WL_REPLAY &&
	    (!cfg->replay || cfg->replay->ncpus != s->nworkers)) {
		*why = "replay: no plan of the trace for these CPUs";
		return -EINVAL;
	}
	s->batch = pidx_batch(cfg->replay ? cfg->replay->most : cfg->ops);
	s->workers = kcalloc(s->nworkers, sizeof(*s->workers), GFP_KERNEL);
	s->worker_of = kcalloc(nr_cpu_ids, sizeof(*s->worker_of), GFP_KERNEL);
	if (!s->workers || !s->worker_of)
		return -ENOMEM;
	s->nkeys = cfg->keys;
	s->stable = cfg->keys - slice * s->nworkers;
	s->slice = slice;
	/*
	 * replay: the trace's initially-live PIDs are prefilled after the
	 * keys (the background, never deleted), and may be freed by it
	 */
	if (cfg->replay)
		s->nkeys = cfg->keys + cfg->replay->initial;
	s->check_values = !s->ops->no_contents;
	s->objs = kvmalloc_array(max(s->nkeys, 1U), sizeof(*s->objs), GFP_KERNEL);
	if (!s->objs)
		return -ENOMEM;

	for_each_cpu(cpu, &cfg->cpus) {
		struct pidx_worker *w = &s->workers[wi];

		w->storm = s;
		w->cpu = cpu;
		w->rng = pidx_rand_seed(cfg->seed, cpu);
		w->nops = cfg->ops;
		if (cfg->replay) {
			const struct pidx_replay_cpu *rc = &cfg->replay->cpu[wi];

			w->nops = rc->nev;
			w->rev = rc->ev;
			w->rmap = kvcalloc(max(rc->ninc, 1U), sizeof(*w->rmap), GFP_KERNEL);
			if (!w->rmap)
				return -ENOMEM;
		}
		w->ring_cap = ring_cap;
		if (ring_cap) {
			w->ring = kvmalloc_array(ring_cap, sizeof(*w->ring), GFP_KERNEL);
			if (!w->ring)
				return -ENOMEM;
		}
		w->lat = kvmalloc_array(PIDX_LAT_MAX, sizeof(u32), GFP_KERNEL);
		if (!w->lat)
			return -ENOMEM;
		raw_spin_lock_init(&w->ring_lock);
		s->worker_of[cpu] = wi++;
	}
	/*
	 * fork_exit=remote: each CPU frees the PIDs of the next one in the
	 * storm's CPU list, as a child exits wherever it last ran, not where
	 * it was forked.  With one CPU there is no other: the row says local.
	 */
	s->remote_exit = pidx_fork_remote(cfg, s->nworkers);
	s->fork_full = ring_cap - (s->remote_exit ? 2 : 0);
	for (wi = 0; wi < s->nworkers; wi++)
		s->workers[wi].exit_from = s->remote_exit ?
			&s->workers[(wi + 1) % s->nworkers] : &s->workers[wi];
	return 0;
}

/*
 * How often the prefill asks again for a key's object, and then for its
 * number, whose allocation failed, before it gives up: each gets its own
 * tries, as a key's two allocations would otherwise fail together far
 * more often than one.  A passing shortage (or an injected failure) costs
 * a retry, a lasting one fails the run before any storm, saying why in
 * testcase, and the part-built index is destroyed unstormed.  Like the rest
 * of a run's setup (create, the key, ring and latency arrays) it passes
 * GFP_KERNEL without __GFP_NOWARN: a failure there is no counted operation
 * but the run's end, and the allocator's warning says why.  An index may
 * still allocate more quietly under its own lock (ccskip's copies are
 * GFP_ATOMIC | __GFP_NOWARN, maple's first try GFP_NOWAIT): then the
 * prefill's own line in dmesg and testcase is what says why.
 */
#define PIDX_PREFILL_TRIES	8

/*
 * The prefill's number #@i was @pid, and the prefill has run on other CPUs
 * than @cpu, where it began, if @moved.  An index with per-CPU ranges gives
 * 1..keys only from one CPU: the prefill is pinned to one, but a CPU that
 * goes offline sends it elsewhere, and a pin to a CPU going offline may not
 * take at all (then a later balance moves it), which is no fault of the
 * index.  Any other wrong number is.
 */
static int pidx_prefill_misordered(struct pidx_storm *s, u32 i, int pid,
				   unsigned int cpu, bool moved)
{
	if (s->ops->alloc_ranges && moved) {
		snprintf(pidx_storm_why, sizeof(pidx_storm_why),
			 "prefill of %s left CPU %u (hotplug?) by key %u: that index not stormed",
			 s->ops->name, cpu, i + 1);
		pr_err("pidx: %s\n", pidx_storm_why);
		return -EAGAIN;
	}
	pr_err("pidx: %s: prefill alloc #%u returned %d, expected %u\n",
	       s->ops->name, i, pid, i + 1);
	return -EUCLEAN;
}

/* Key #@i's object or number could not be had in all its tries: why. */
static int pidx_prefill_nomem(struct pidx_storm *s, u32 i)
{
	snprintf(pidx_storm_why, sizeof(pidx_storm_why),
		 "prefill of %s: no memory for key %u of %u in %u tries: not stormed",
		 s->ops->name, i + 1, s->nkeys, PIDX_PREFILL_TRIES);
	pr_err("pidx: %s\n", pidx_storm_why);
	return -ENOMEM;
}

/*
 * A prefill reservation in one level: @key, or (0) the next number, its
 * allocation asked again while it fails for memory.
 */
static int pidx_prefill_reserve(struct pidx_storm *s, unsigned int level,
				u32 key)
{
	unsigned int tries;
	int nr = -ENOMEM;

	for (tries = 0; nr == -ENOMEM && tries < PIDX_PREFILL_TRIES; tries++) {
		if (tries)
			cond_resched();
		nr = key ? s->ops->insert(s->lvl[level], key, GFP_KERNEL) :
			   s->ops->alloc(s->lvl[level], GFP_KERNEL);
	}
	return nr < 0 ? nr : key ?: nr;
}

/* The prefill's unwind of @pid's first @n levels, never published. */
static void pidx_prefill_unreserve(struct pidx_storm *s, struct pidx_pid *pid,
				   unsigned int n)
{
	while (n--)
		while (s->ops->remove(s->lvl[n], pid->numbers[n].nr) == -ENOMEM)
			cond_resched();
}

/*
 * Key #@i of the prefill reserved in every level (by alloc() where @key is
 * 0, insert() otherwise), given its object and published: each level
 * numbers the same process with the same number, the one the shape gives
 * it.  Returns @want where every level's number is @want (or with @key
 * given), else the first that is not, or an error.  The object is
 * s->objs[@i] from then on.
 */
static int pidx_prefill_one(struct pidx_storm *s, u32 i, u32 key, u32 want)
{
	struct pidx_pid *pid = NULL;
	unsigned int tries, level;
	int nr, got = want;

	for (tries = 0; !pid && tries < PIDX_PREFILL_TRIES; tries++) {
		if (tries)
			cond_resched();
		pid = pidx_pid_new(s->nlevels, GFP_KERNEL);
	}
	if (!pid)
		return pidx_prefill_nomem(s, i);
	pidx_pid_set(pid, s->nlevels);
	for (level = 0; level < s->nlevels; level++) {
		nr = pidx_prefill_reserve(s, level, key);
		if (nr < 0) {
			pidx_prefill_unreserve(s, pid, level);
			pidx_pid_free(pid);
			return nr == -ENOMEM ? pidx_prefill_nomem(s, i) : nr;
		}
		pid->numbers[level].nr = nr;
		if (nr != want && got == want)
			got = nr;
	}
	if (pidx_publish_levels(s, pid)) {
		pr_err("pidx: %s: prefill publish of %u failed\n", s->ops->name,
		       pid->numbers[0].nr);
		/* no reader holds it: the numbers must go first */
		while (pidx_remove_levels(s, pid) == -ENOMEM)
			cond_resched();
		pidx_pid_free(pid);
		return -EUCLEAN;
	}
	s->objs[i] = pid;
	s->nobjs = i + 1;
	return got;
}

/*
 * The spread and aged prefill: the set's keys inserted in the shape's
 * order (aged: the order they were allocated in), then the cursor put
 * just past the last number allocated, where a machine that made the set
 * would have it.
 */
static int pidx_prefill_shape(struct pidx_storm *s)
{
	const struct pidx_config *cfg = s->cfg;
	int ret, node = NUMA_NO_NODE;
	u32 i, key;

	for (i = 0; i < s->nkeys; i++) {
		key = pidx_shape_key(s->shape, i);
		/* a sparse set has no key at most multiples of 64: a new run */
		if (cfg->node == PIDX_NODE_INTERLEAVE && !s->ops->alloc_ranges &&
		    (!i || key >> 6 != pidx_shape_key(s->shape, i - 1) >> 6) &&
		    pidx_mem_node(cfg->node, key) != node) {
			node = pidx_mem_node(cfg->node, key);
			pidx_prefill_move(node);
		}
		ret = pidx_prefill_one(s, i, key, key);
		if (ret < 0) {
			pr_err("pidx: %s: prefill insert of %u returned %d\n",
			       s->ops->name, key, ret);
			return ret == -ENOMEM ? ret : -EUCLEAN;
		}
		if (!(i & 0xfff)) {
			if (READ_ONCE(s->abort))
				return -EINTR;
			cond_resched();
		}
	}
	for (i = 0; s->ops->set_cursor && i < s->nlevels; i++)
		s->ops->set_cursor(s->lvl[i], s->shape->cursor);
	return 0;
}

/* prefill in process context, as fork does, checking each number */
int pidx_prefill(struct pidx_storm *s)
{
	const struct pidx_config *cfg = s->cfg;
	unsigned int cpu = raw_smp_processor_id();
	bool moved = false;
	u32 i;

	if (s->shape->shape != PIDX_SHAPE_DENSE)
		return pidx_prefill_shape(s);
	for (i = 0; i < s->nkeys; i++) {
		int pid;

		/*
		 * The kernel's own structures (idr, maple) take memory from
		 * the allocating CPU's node: interleaving moves the prefill
		 * to each node in turn, for the same runs of 64 keys that
		 * pidx_mem_node() spreads our own indexes' nodes by.  Not
		 * an index whose numbers come from per-CPU ranges: from two
		 * CPUs its numbers would not be 1..keys, and it places its
		 * memory by key itself.
		 */
		if (cfg->node == PIDX_NODE_INTERLEAVE && !s->ops->alloc_ranges &&
		    (!i || !((i + 1) & 63)))
			pidx_prefill_move(pidx_mem_node(cfg->node, i + 1));
		pid = pidx_prefill_one(s, i, 0, i + 1);
		if (pid < 0)
			return pid;
		/* sticky: a move there and back still mixed two CPUs' ranges */
		moved |= raw_smp_processor_id() != cpu;
		if (!s->ops->no_contents && pid != i + 1)
			return pidx_prefill_misordered(s, i, pid, cpu, moved);
		if (!(i & 0xfff)) {
			if (READ_ONCE(s->abort))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}

/*
 * After the prefill: where the index's objects lie, the storm's order of
 * the keys, and each CPU's slice of them in its ring.
 */
int pidx_storm_deal(struct pidx_storm *s)
{
	u64 rng = pidx_rand_seed(s->cfg->seed, 0xffff);
	unsigned int wi;
	u32 n;

	for (n = 0; s->ops->nodes && n < s->nlevels; n++) {
		s->ops->nodes(s->lvl[n], s->mem_nodes);
		s->mem_nodes_known = true;
	}
	/*
	 * replay: the keys in the shape's own order, so that [0, stable) are
	 * the background and the initially-live PIDs follow (pidx_trace.h)
	 */
	if (s->cfg->replay) {
		s->perm_mul = 1;
		s->perm_add = 0;
		s->perm_inv = 1;
	} else {
		pidx_order_init(s, &rng);
	}
	/* a miss of a key off the dense range finds its owner here */
	if (s->shape->shape != PIDX_SHAPE_DENSE && s->stable && s->stable < s->nkeys) {
		s->stable_map = bitmap_zalloc(s->cfg->pid_max, GFP_KERNEL);
		if (!s->stable_map)
			return -ENOMEM;
		for (n = 0; n < s->stable; n++)
			__set_bit(pidx_key_of(s, n), s->stable_map);
	}
	for (wi = 0; wi < s->nworkers; wi++) {
		struct pidx_worker *w = &s->workers[wi];

		for (n = 0; n < s->slice; n++)
			w->ring[n] = s->objs[pidx_shape_index_of(s, s->stable + wi * s->slice + n)];
		w->ring_len = s->slice;
		if (s->cfg->replay) {
			const struct pidx_replay_cpu *rc = &s->cfg->replay->cpu[wi];

			for (n = 0; n < rc->ninit; n++)
				w->rmap[rc->init[2 * n]] =
					s->objs[pidx_shape_index_of(s, s->stable +
								    rc->init[2 * n + 1])];
		}
		/* the CPUs' walks start apart, so they do not look up in step */
		w->walk_pos = (u64)(s->shape->dist_walk ? s->shape->dist_len : s->nkeys) *
			      wi / s->nworkers;
	}
	s->dealt = true;
	return 0;
}

struct pidx_oracle {
	struct pidx_result *res;
	unsigned long *expect;
	u32 nexpect;
	/*
	 * where set: a second pass over the held objects puts each at the
	 * rank of its number among expect's bits, counted from rank_base[]
	 * per word, for the lookups in ascending order
	 */
	struct pidx_pid **byrank;
	u32 *rank_base;
	unsigned int level;	/* the level checked */
	const char *at;		/* where more than one: " at level N" */
};

/*
 * An object the storm holds: its number of @o's level, marked held once
 * in the oracle; 0 where there is none to check (or it was handed out
 * twice, and the row failed), or where @o is NULL and the object freed.
 */
static u32 pidx_held_once(struct pidx_storm *s, struct pidx_pid *pid,
			  struct pidx_oracle *o)
{
	u32 key;

	/* the storm's end: the index is gone, and with it every reader */
	if (!o) {
		pidx_pid_free_now(pid);
		return 0;
	}
	key = pid->numbers[o->level].nr;
	/* a level an exit, or a refused unwind, removed already */
	if (!key)
		return 0;
	if (key >= s->cfg->pid_max || __test_and_set_bit(key, o->expect)) {
		pidx_fail(o->res, "PID %u handed out twice%s", key, o->at);
		return 0;
	}
	return key;
}

/* Each held object's number is expected once; the second pass ranks it. */
static void pidx_held(struct pidx_storm *s, struct pidx_pid *pid,
		      struct pidx_oracle *o)
{
	unsigned int word;
	u32 key;

	if (!o || !o->byrank) {
		if (pidx_held_once(s, pid, o))
			o->nexpect++;
		return;
	}
	key = pid->numbers[o->level].nr;
	/*
	 * 0: a level already removed; beyond pid_max: failed already; a bit
	 * the first pass did not set would put @pid in another's slot
	 */
	if (!key || key >= s->cfg->pid_max || WARN_ON_ONCE(!test_bit(key, o->expect)))
		return;
	word = key / BITS_PER_LONG;
	o->byrank[o->rank_base[word] +
		  hweight_long(o->expect[word] & (BIT(key % BITS_PER_LONG) - 1))] = pid;
}

/*
 * A stranded reservation (pidx_workload.h) of @o's level: a number held
 * once, as every number, and still held, but never published, so no
 * lookup finds it and the walk skips it.
 */
static void pidx_stranded_held(struct pidx_storm *s, struct pidx_pid *pid,
			       struct pidx_oracle *o)
{
	u32 key = pidx_held_once(s, pid, o);
	struct pidx_index *idx;
	void *v;
	int ret;

	if (!key)
		return;
	idx = s->lvl[o->level];
	rcu_read_lock();
	v = s->ops->lookup(idx, key);
	rcu_read_unlock();
	if (v) {
		pidx_fail(o->res, "PID %u only reserved by a failed fork but lookup finds it%s",
			  key, o->at);
		return;
	}
	/*
	 * A removal that said -ENOMEM must have left the number held: no
	 * writer runs now, and insert() refuses a held number (-ENOMEM
	 * tells nothing)
	 */
	ret = s->ops->insert(idx, key, GFP_KERNEL);
	if (ret == -EEXIST || ret == -ENOMEM)
		return;
	pidx_fail(o->res, "PID %u of a refused unwind is no longer held (insert: %d)%s",
		  key, ret, o->at);
	if (!ret)
		s->ops->remove(idx, key);
}

/*
 * The objects the storm holds at its end, each once: the prefill's stable
 * ones, then each CPU's ring, replay map and stranded reservations; before
 * the deal, the prefill's objects made so far: each checked against the
 * oracle @o (or, in its second pass, ranked), or freed where @o is NULL.
 */
static void pidx_all_held(struct pidx_storm *s, struct pidx_oracle *o)
{
	struct pidx_pid *pid, *next;
	u32 i, n;

	if (!s->dealt) {
		for (i = 0; i < s->nobjs; i++)
			pidx_held(s, s->objs[i], o);
		return;
	}
	for (i = 0; i < s->stable; i++) {
		pidx_held(s, s->objs[pidx_shape_index_of(s, i)], o);
		/* millions of objects under KASAN: seconds */
		if (!(i & 0xfff))
			cond_resched();
	}
	for (i = 0; i < s->nworkers; i++) {
		struct pidx_worker *w = &s->workers[i];

		for (n = 0; n < w->ring_len; n++)
			pidx_held(s, w->ring[(w->ring_head + n) % w->ring_cap], o);
		/* replay: the incarnations live at the end */
		for (n = 0; w->rmap && n < s->cfg->replay->cpu[i].ninc; n++)
			if (w->rmap[n])
				pidx_held(s, w->rmap[n], o);
		/*
		 * the stranded are checked apart from the lookups, so the
		 * second pass leaves them out; the free may be of the object
		 * that holds the link, which is read first
		 */
		if (!o || !o->byrank) {
			for (pid = w->stranded; pid; pid = next) {
				next = pid->stranded_next;
				pidx_stranded_held(s, pid, o);
			}
		}
		cond_resched();
	}
}

/*
 * Every number the storm holds published looks up to its own object.  The
 * lookups go in ascending order, not in the order the objects are held
 * (the shape's permutation): at 1M keys a skip list's lookups in that
 * order missed the cache on most levels, and the untimed check took
 * several times the storm's own wall time.
 */
static void pidx_lookup_held(struct pidx_storm *s, struct pidx_oracle *o)
{
	struct pidx_index *idx = s->lvl[o->level];
	u32 pid_max = s->cfg->pid_max;
	u32 words = BITS_TO_LONGS(pid_max);
	u32 nbits = bitmap_weight(o->expect, pid_max);
	struct pidx_pid *want;
	unsigned long key;
	u32 i, r = 0;
	void *v;

	if (!nbits)
		return;
	o->rank_base = kvmalloc_array(words, sizeof(*o->rank_base), GFP_KERNEL);
	o->byrank = kvcalloc(nbits, sizeof(*o->byrank), GFP_KERNEL);
	if (!o->rank_base || !o->byrank) {
		pidx_fail(o->res, "no memory for the oracle");
		goto out;
	}
	for (i = 0; i < words; i++) {
		o->rank_base[i] = r;
		r += hweight_long(o->expect[i]);
	}
	pidx_all_held(s, o);
	r = 0;
	for_each_set_bit(key, o->expect, pid_max) {
		want = o->byrank[r++];
		/* a stranded reservation's: pidx_stranded_held() checked it */
		if (!want)
			continue;
		rcu_read_lock();
		v = s->ops->lookup(idx, key);
		rcu_read_unlock();
		if (!v)
			pidx_fail(o->res, "PID %lu expected but lookup misses it%s", key, o->at);
		else if (v != want)
			pidx_fail(o->res, "PID %lu: lookup returned another object%s", key,
				  o->at);
		if (!(r & 0xfff))
			cond_resched();
	}
out:
	kvfree(o->byrank);
	kvfree(o->rank_base);
	o->byrank = NULL;
	o->rank_base = NULL;
}

/*
 * The oracle of one level: the prefilled keys that nobody owned, plus
 * whatever each CPU still owns, must be exactly what the level's instance
 * holds, each with its own object; both by iteration and by lookup.
 */
static u32 pidx_check_level(struct pidx_storm *s, struct pidx_result *res,
			    unsigned int level)
{
	struct pidx_index *idx = s->lvl[level];
	struct pidx_oracle o = { .res = res, .level = level };
	u32 pid_max = s->cfg->pid_max;
	char at[16] = "";
	u32 seen = 0;
	int pid, prev = -1;

	if (s->nlevels > 1)
		snprintf(at, sizeof(at), " at level %u", level);
	o.at = at;
	o.expect = bitmap_zalloc(pid_max, GFP_KERNEL);
	if (!o.expect) {
		pidx_fail(res, "no memory for the oracle");
		return 0;
	}
	pidx_all_held(s, &o);
	pidx_lookup_held(s, &o);

	rcu_read_lock();
	for (pid = s->ops->find_ge(idx, 0); pid >= 0;
	     pid = s->ops->find_ge(idx, pid + 1)) {
		if (pid <= prev) {
			pidx_fail(res, "find_ge returned %d after %d%s", pid, prev, at);
			break;
		}
		if (pid >= pid_max || !test_bit(pid, o.expect))
			pidx_fail(res, "PID %d present but should not be%s", pid, at);
		prev = pid;
		seen++;
		if (!(seen & 0xfff)) {
			rcu_read_unlock();
			cond_resched();
			rcu_read_lock();
		}
	}
	rcu_read_unlock();
	if (seen != o.nexpect)
		pidx_fail(res, "find_ge walk saw %u PIDs, expected %u%s", seen,
			  o.nexpect, at);
	bitmap_free(o.expect);
	return seen;
}

/*
 * Every level checked, verify() then the oracle: returns the PIDs the
 * level lookups read holds.
 */
static u32 pidx_check_contents(struct pidx_storm *s, struct pidx_result *res,
			       const char *log)
{
	unsigned int level, bad;
	u32 present = 0;

	for (level = 0; level < s->nlevels; level++) {
		bad = s->ops->verify(s->lvl[level]);
		if (bad && s->nlevels > 1)
			pidx_fail(res, "verify found %u violations at level %u (see %s)",
				  bad, level, log);
		else if (bad)
			pidx_fail(res, "verify found %u violations (see %s)", bad, log);
		present = pidx_check_level(s, res, level);
	}
	return present;
}

static int pidx_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static void pidx_summarize_visits(struct pidx_storm *s, struct pidx_result *res)
{
	struct pidx_visit_sum sum = { 0 };
	unsigned int i;

	if (!res->trace_visits)
		return;
	for (i = 0; i < s->nworkers; i++) {
		struct pidx_visit_sum *v = &s->workers[i].visits;

		sum.ops += v->ops;
		sum.nodes += v->nodes;
		sum.lines += v->lines;
		sum.nodes_max = max(sum.nodes_max, v->nodes_max);
		sum.lines_max = max(sum.lines_max, v->lines_max);
	}
	res->visits_milli = pidx_milli_div(sum.nodes, sum.ops);
	res->lines_milli = pidx_milli_div(sum.lines, sum.ops);
	res->visits_max = sum.nodes_max;
	res->lines_max = sum.lines_max;
}

/*
 * A counter is reported only when every storm CPU opened it and it ran for
 * part of the storm at least; a multiplexed one is scaled up by
 * enabled/running, as perf stat does.
 */
static void pidx_summarize_pmu(struct pidx_storm *s, struct pidx_result *res)
{
	unsigned int i, c;
	u64 total, ops = 0;

	res->pmu_why = "";
	if (s->cfg->pmu == PIDX_PMU_OFF) {
		res->pmu_why = "pmu off";
		return;
	}
	for (i = 0; i < s->nworkers; i++)
		ops += s->workers[i].done;
	for (c = 0; c < PIDX_PMU_NR; c++) {
		if (s->pmu_opened[c] != s->nworkers)
			continue;
		total = 0;
		for (i = 0; i < s->nworkers; i++) {
			struct pidx_pmu_set *p = &s->workers[i].pmu;

			if (!p->running[c])
				break;
			total += mul_u64_u64_div_u64(p->val[c], p->enabled[c],
						     p->running[c]);
		}
		if (i < s->nworkers)
			continue;
		res->pmu_ok |= BIT(c);
		res->pmu_milli[c] = pidx_milli_div(total, ops);
	}
	if (!res->pmu_ok)
		res->pmu_why = s->pmu_opened[PIDX_PMU_CYCLES] ?
			"counters never ran" : "no PMU: the kernel opened no hardware counter";
}

/* A round or batch past PIDX_ROUND_BOUND_MS fails the run, naming its figure. */
static void pidx_check_bounds(struct pidx_storm *s, struct pidx_result *res)
{
	const u64 bound = (u64)PIDX_ROUND_BOUND_MS * NSEC_PER_MSEC;
	const struct pidx_worker *wi = &s->workers[0], *wb = wi;
	unsigned int i;

	for (i = 1; i < s->nworkers; i++) {
		if (s->workers[i].irqs_off_max_ns > wi->irqs_off_max_ns)
			wi = &s->workers[i];
		if (s->workers[i].batch_max_ns > wb->batch_max_ns)
			wb = &s->workers[i];
	}
	if (s->cfg->mode != PIDX_MODE_IPI) {
		res->round_max_ns = wb->batch_max_ns;
		if (res->round_max_ns > bound)
			pidx_fail(res, "CPU %u took %llu ms over one kthread batch (bound %u ms)",
				  wb->cpu, div_u64(res->round_max_ns, NSEC_PER_MSEC),
				  PIDX_ROUND_BOUND_MS);
		return;
	}
	res->round_max_ns = s->round_max_ns;
	res->irqs_off_max_ns = wi->irqs_off_max_ns;
	if (res->irqs_off_max_ns > bound)
		pidx_fail(res, "CPU %u kept interrupts off %llu ms in one ipi round (bound %u ms)",
			  wi->cpu, div_u64(res->irqs_off_max_ns, NSEC_PER_MSEC),
			  PIDX_ROUND_BOUND_MS);
	else if (res->round_max_ns > bound)
		pidx_fail(res, "one ipi round took %llu ms (bound %u ms)",
			  div_u64(res->round_max_ns, NSEC_PER_MSEC), PIDX_ROUND_BOUND_MS);
}

static void pidx_summarize(struct pidx_storm *s, struct pidx_result *res)
{
	u64 ops = 0, timed = 0, ns = 0, mops = 0, nsop;
	u64 min = U64_MAX, max = 0;
	u32 *all, nall = 0, i;

	for (i = 0; i < s->nworkers; i++) {
		struct pidx_worker *w = &s->workers[i];

		ops += w->done;
		timed += w->timed_ops;
		ns += w->ns;
		res->fails += w->fails;
		res->errors += w->errors;
		res->fork_local_exits += w->local_exits;
		res->replay_orphans += w->orphans;
		if (w->errors)
			pidx_fail(res, "CPU %u: %s (key %u)", w->cpu, w->bad_why,
				  w->bad_key);
		if (!w->timed_ops)
			continue;
		nsop = pidx_milli_div(w->ns, w->timed_ops);
		min = min(min, nsop);
		max = max(max, nsop);
		/* ops per ns x 1e3 = Mops/s; x 1e3 again for three decimals */
		if (w->ns)
			mops += div64_u64(w->timed_ops * 1000000ULL, w->ns);
		nall += w->nlat;
	}
	res->total_ops = ops;
	pidx_check_bounds(s, res);
	pidx_summarize_visits(s, res);
	pidx_summarize_pmu(s, res);
	res->nsop_milli = pidx_milli_div(ns, timed);
	res->mops_milli = mops;
	res->cpu_nsop_min_milli = min == U64_MAX ? 0 : min;
	res->cpu_nsop_max_milli = max;

	all = nall ? kvmalloc_array(nall, sizeof(u32), GFP_KERNEL) : NULL;
	if (all) {
		nall = 0;
		for (i = 0; i < s->nworkers; i++) {
			memcpy(all + nall, s->workers[i].lat,
			       s->workers[i].nlat * sizeof(u32));
			nall += s->workers[i].nlat;
		}
		sort(all, nall, sizeof(u32), pidx_cmp_u32, NULL);
		res->p50_ns = all[(u64)nall * 50 / 100];
		res->p90_ns = all[(u64)nall * 90 / 100];
		res->p99_ns = all[(u64)nall * 99 / 100];
		res->max_ns = all[nall - 1];
		kvfree(all);
	}
}

static void pidx_fill_mem_nodes(struct pidx_result *res, struct pidx_storm *s)
{
	size_t len = 0, size = sizeof(res->mem_nodes);
	unsigned int n;

	if (!s->mem_nodes_known) {
		strscpy(res->mem_nodes, "n/a", size);
		return;
	}
	for (n = 0; n < PIDX_NODES_MAX; n++)
		if (s->mem_nodes[n])
			len += scnprintf(res->mem_nodes + len, size - len, "%s%u:%llu",
					 len ? ";" : "", n, s->mem_nodes[n]);
	if (!len)
		strscpy(res->mem_nodes, "none", size);
}

/*
 * replay: the trace's facts first in extra, so that the index's own do not
 * crowd them out: its events, that its PIDs were mapped to the index's
 * numbers, its initially-live PIDs, the events whose PID was not live, and
 * the events each CPU replayed ('/' between CPUs: no commas in a row).
 */
static void pidx_replay_extra(struct pidx_storm *s, struct pidx_result *res)
{
	const struct pidx_replay *r = s->cfg->replay;
	char tag[sizeof(res->extra)];
	unsigned int i;
	size_t n;

	n = scnprintf(tag, sizeof(tag), "trace=%u;pids=mapped;initial=%u;orphans=%llu;cpu_events=",
		      r->events, r->initial, r->orphans + res->replay_orphans);
	for (i = 0; i < r->ncpus; i++)
		n += scnprintf(tag + n, sizeof(tag) - n, "%s%u", i ? "/" : "", r->cpu[i].nev);
	/* the index's facts after them, cut short if they must be */
	if (*res->extra)
		scnprintf(tag + n, sizeof(tag) - n, ";%s", res->extra);
	strscpy(res->extra, tag, sizeof(res->extra));
}

/*
 * After a storm that ran to its end: its figures, then whether the index
 * is consistent (verify(), which reports to @log, where the substrate's
 * messages go) and holds what the storm implies (the oracle), its memory
 * and its own facts for extra.
 */
void pidx_storm_check(struct pidx_storm *s, struct pidx_result *res,
		      const char *log)
{
	const struct pidx_ops *ops = s->ops;
	unsigned int level;
	u32 present = 0;

	pidx_summarize(s, res);
	pidx_fill_mem_nodes(res, s);
	if (!ops->no_contents)
		present = pidx_check_contents(s, res, log);
	res->shape_wraps = s->shape->wraps;
	/* a PID's cost: its entries in every level */
	res->mem_bytes = 0;
	for (level = 0; level < s->nlevels; level++)
		res->mem_bytes += ops->mem_bytes(s->lvl[level]);
	res->bytes_per_key_milli = pidx_milli_div(res->mem_bytes, present);
	/* the group's first: where a level group keeps its counters */
	if (ops->describe)
		ops->describe(s->lvl[0], res->extra, sizeof(res->extra));
	if (res->fork_local_exits) {
		size_t len = strlen(res->extra);

		scnprintf(res->extra + len, sizeof(res->extra) - len, "%slocal_exits=%llu",
			  len ? ";" : "", res->fork_local_exits);
	}
	if (s->cfg->replay)
		pidx_replay_extra(s, res);
}

/*
 * The index destroyed and the storm freed, however far it got; a storm
 * that ran (@ret 0) fails if the index did not give back every byte it
 * held when @mem_before was read.
 */
void pidx_storm_end(struct pidx_storm *s, struct pidx_result *res,
		    long mem_before, int ret)
{
	unsigned int i;

	pidx_storm_destroy(s);
	/* the index is gone, and with it every reader: the objects go too */
	if (s->objs)
		pidx_all_held(s, NULL);
	kvfree(s->objs);
	if (s->workers) {
		for (i = 0; i < s->nworkers; i++) {
			kvfree(s->workers[i].ring);
			kvfree(s->workers[i].lat);
			kvfree(s->workers[i].rmap);
		}
	}
	kfree(s->workers);
	kfree(s->worker_of);
	bitmap_free(s->stable_map);
	if (!ret && atomic_long_read(&pidx_mem.bytes) != mem_before)
		pidx_fail(res, "index leaked %ld bytes",
			  atomic_long_read(&pidx_mem.bytes) - mem_before);
}

/* @r as a results.csv row, its newline included, in @buf (PIDX_CSV_ROW_MAX). */
void pidx_csv_row(char *buf, size_t size, const struct pidx_result *r,
		  const struct pidx_csv_sub *sub)
{
	struct pidx_milli b[6];
	char node[16], dist[PIDX_DIST_NAME_MAX];
	unsigned int c;
	size_t n;

	n = scnprintf(buf, size, "%u,%s,%s,%s,%u/%u/%u,%s,%u,%u,%u,%u,%llu,%u,%llu,%llu,%llu,%llu,",
		      r->run, r->index, pidx_workload_names[r->workload],
		      pidx_mode_names[r->mode], r->mix[0], r->mix[1], r->mix[2],
		      r->cpus, r->ncpus, r->keys, r->ops, r->pid_max, r->seed,
		      r->repeat, r->total_ops, r->fails, r->errors, r->elapsed_ns);
	n += scnprintf(buf + n, size - n, "%s,%s,%s,%s,%llu,%llu,%llu,%llu,%s,%llu,%s,%s,%s%s%s,",
		       pidx_milli(&b[0], r->nsop_milli), pidx_milli(&b[1], r->mops_milli),
		       pidx_milli(&b[2], r->cpu_nsop_min_milli),
		       pidx_milli(&b[3], r->cpu_nsop_max_milli),
		       r->p50_ns, r->p90_ns, r->p99_ns, r->max_ns,
		       pidx_milli(&b[4], r->clock_milli), r->mem_bytes,
		       pidx_milli(&b[5], r->bytes_per_key_milli),
		       pidx_verdict_names[r->verdict], r->extra,
		       *r->extra && *sub->extra ? ";" : "", sub->extra);
	if (r->trace_visits)
		n += scnprintf(buf + n, size - n, "1,%s,%u,%s,%u,",
			       pidx_milli(&b[0], r->visits_milli), r->visits_max,
			       pidx_milli(&b[1], r->lines_milli), r->lines_max);
	else
		n += scnprintf(buf + n, size - n, "0,n/a,n/a,n/a,n/a,");
	if (sub->pmu) {
		n += scnprintf(buf + n, size - n, "%s", sub->pmu);
	} else {
		n += scnprintf(buf + n, size - n, "%s", pidx_pmu_mode_names[r->pmu]);
		for (c = 0; c < PIDX_PMU_NR; c++)
			n += scnprintf(buf + n, size - n, ",%s", r->pmu_ok & BIT(c) ?
				       pidx_milli(&b[0], r->pmu_milli[c]) : "n/a");
	}
	pidx_node_name(node, sizeof(node), r->numa_node);
	n += scnprintf(buf + n, size - n, ",%s,%s,%s,", node, r->cpu_nodes,
		       r->mem_nodes);
	/* interrupts are off for long only in the rounds of an ipi storm */
	if (sub->bounds)
		n += scnprintf(buf + n, size - n, "%llu,", r->round_max_ns);
	else
		n += scnprintf(buf + n, size - n, "n/a,");
	if (sub->bounds && r->mode == PIDX_MODE_IPI)
		n += scnprintf(buf + n, size - n, "%llu,", r->irqs_off_max_ns);
	else
		n += scnprintf(buf + n, size - n, "n/a,");
	n += scnprintf(buf + n, size - n, "%s,", sub->substrate);
	/* settings of fork storms only: other rows would split by them */
	if (r->workload == PIDX_WL_FORK)
		n += scnprintf(buf + n, size - n, "%u,%s,", r->fork_lookups,
			       pidx_fork_exit_names[r->fork_exit]);
	else if (r->workload == PIDX_WL_REPLAY)
		n += scnprintf(buf + n, size - n, "%u,n/a,", r->fork_lookups);
	else
		n += scnprintf(buf + n, size - n, "n/a,n/a,");
	/* the storms whose lookups it chains */
	if (r->workload == PIDX_WL_LOOKUP || r->workload == PIDX_WL_MIXED)
		n += scnprintf(buf + n, size - n, "%u,", r->dependent);
	else
		n += scnprintf(buf + n, size - n, "n/a,");
	n += scnprintf(buf + n, size - n, "%s,%u,", pidx_shape_names[r->shape],
		       r->shape_wraps);
	/* the storms that draw lookups: fork's only with fork_lookups */
	if (pidx_dist_applies(r->workload, r->mix[PIDX_MIX_LOOKUP],
			      r->fork_lookups, r->keys))
		pidx_dist_name(dist, sizeof(dist), r->dist, r->dist_param);
	else
		strscpy(dist, "n/a", sizeof(dist));
	scnprintf(buf + n, size - n, "%s,%u\n", dist, r->levels);
}
