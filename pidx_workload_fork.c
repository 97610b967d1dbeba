// SPDX-License-Identifier: GPL-2.0
/*
 * pidx workloads, a PID's life as alloc_pid() and free_pid() lead it over
 * every namespace level: its numbers reserved and published, in the steps
 * 6.1 takes or in one where the index can, and removed at its exit; the
 * unwinds of a fork that failed, and the reservations whose removal an
 * index refused (stranded) until they can go.  The operations that call
 * them are pidx_workload.c's.  Built into the module and, unchanged, into
 * user/pidx-user (see pidx_workload.h).
 */
#include <linux/kernel.h>
#include "pidx_workload.h"

/*
 * free_pid(): every level's number of @pid removed, in one step where the
 * index frees a level group at once (remove_levels()), else level by level
 * from the first, the deepest (the one lookups read) last.  -ENOMEM
 * (remove_may_fail): the level refused and those after it are still held,
 * and the caller still owns the PID; the levels before it are gone, their
 * numbers zeroed in the object (no reader reads a level but the deepest),
 * and the next exit goes on from the refused one.
 */
int pidx_remove_levels(struct pidx_storm *s, struct pidx_pid *pid)
{
	u32 nr[PIDX_LEVELS_MAX];
	unsigned int i, n = s->nlevels;
	int ret;

	if (n == 1)
		return s->ops->remove(s->idx, pid->numbers[0].nr);
	if (s->ops->remove_levels) {
		for (i = 0; i < n; i++)
			nr[i] = pid->numbers[i].nr;
		return s->ops->remove_levels(s->lvl, n, nr);
	}
	for (i = 0; i < n; i++) {
		if (!pid->numbers[i].nr)
			continue;
		ret = s->ops->remove(s->lvl[i], pid->numbers[i].nr);
		if (ret)
			return ret;
		if (i != n - 1)
			pid->numbers[i].nr = 0;
	}
	return 0;
}

/*
 * Every level's number of @pid published: in one step where the index
 * publishes a level group at once (6.1's idr_replace() loop in one hold
 * of pidmap_lock), else level by level from the deepest, as that loop
 * goes.  An error leaves the levels before it published: the caller
 * removes them all.
 */
int pidx_publish_levels(struct pidx_storm *s, struct pidx_pid *pid)
{
	u32 nr[PIDX_LEVELS_MAX];
	unsigned int i, n = s->nlevels;
	int ret;

	if (n == 1)
		return s->ops->publish(s->idx, pid->numbers[0].nr, pid);
	if (s->ops->publish_levels) {
		for (i = 0; i < n; i++)
			nr[i] = pid->numbers[i].nr;
		return s->ops->publish_levels(s->lvl, n, nr, pid);
	}
	for (i = n; i-- > 0;) {
		ret = s->ops->publish(s->lvl[i], pid->numbers[i].nr, pid);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * alloc_pid()'s unwind: the levels @pid holds a reservation of (a nonzero
 * number) removed, each zeroed once gone.  -ENOMEM (remove_may_fail) stops
 * at the level refused, a failed operation: true then, the object still
 * holding it and the levels after it.
 */
static bool pidx_unreserve(struct pidx_worker *w, struct pidx_pid *pid)
{
	struct pidx_storm *s = w->storm;
	unsigned int i;
	int ret;

	for (i = 0; i < s->nlevels; i++) {
		if (!pid->numbers[i].nr)
			continue;
		ret = s->ops->remove(s->lvl[i], pid->numbers[i].nr);
		if (ret == -ENOMEM && s->ops->remove_may_fail) {
			w->fails++;
			return true;
		}
		if (ret)
			pidx_worker_error(w, pid->numbers[i].nr,
					  "unwind of a reservation failed");
		pid->numbers[i].nr = 0;
	}
	return false;
}

/*
 * The end of a fork that failed once it had its object: the object freed,
 * or, where a number it holds was refused removal, kept on this CPU's
 * stranded list: alloc_pid() cannot keep a number, and pidx.h leaves a
 * number whose removal was refused with its owner.
 */
static void pidx_unwind_pid(struct pidx_worker *w, struct pidx_pid *pid)
{
	if (pidx_unreserve(w, pid)) {
		pid->stranded_next = w->stranded;
		w->stranded = pid;
		return;
	}
	pidx_pid_free(pid);
}

/*
 * The stranded reservations of this CPU's failed forks removed, before
 * its next fork, until one is refused again.
 */
static void pidx_unstrand(struct pidx_worker *w)
{
	struct pidx_pid *pid;

	while ((pid = w->stranded) && !pidx_unreserve(w, pid)) {
		w->stranded = pid->stranded_next;
		pidx_pid_free(pid);
	}
}

/*
 * alloc_pid()'s reservations, level by level from the deepest, each
 * number stored in the object: 0, or the error of the level that failed,
 * the levels reserved before it held (nonzero numbers), the others zero.
 */
static int pidx_reserve_levels(struct pidx_worker *w, struct pidx_pid *pid)
{
	struct pidx_storm *s = w->storm;
	unsigned int i;
	int nr;

	for (i = s->nlevels; i-- > 0;) {
		nr = s->ops->alloc(s->lvl[i], s->gfp);
		if (nr < 1 || nr >= s->cfg->pid_max) {
			if (nr != -ENOSPC && nr != -ENOMEM)
				pidx_worker_error(w, nr, nr < 0 ?
						  "alloc returned an unexpected error" :
						  "alloc returned a number outside [1, pid_max)");
			do
				pid->numbers[i].nr = 0;
			while (i-- > 0);
			return nr < 0 ? nr : -ERANGE;
		}
		pid->numbers[i].nr = nr;
	}
	return 0;
}

/*
 * The exit of @pid, which its caller owns: every level's number removed,
 * free_pid()'s call_rcu() the object.  -ENOMEM: still held (pidx.h), and
 * still the caller's.
 */
int pidx_exit_pid(struct pidx_worker *w, struct pidx_pid *pid)
{
	struct pidx_storm *s = w->storm;
	int ret = s->nlevels == 1 ? s->ops->remove(s->idx, pid->numbers[0].nr) :
		  pidx_remove_levels(s, pid);

	if (!ret) {
		pidx_pid_free(pid);
		return 0;
	}
	if (ret == -ENOMEM && s->ops->remove_may_fail)
		return ret;
	pidx_worker_error(w, pid->numbers[0].nr, "remove of a PID this storm owns failed");
	return ret;
}

/*
 * alloc_pid() at one level, the path every run took before levels, kept
 * apart so that a one-level fork costs what it cost then: the object, a
 * number reserved for it, the object built with it, and the number
 * published, in two steps, or one where the index has alloc_publish().
 */
static struct pidx_pid *pidx_alloc_pid_one(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;
	struct pidx_pid *pid = pidx_pid_new(1, s->gfp);
	int nr, ret;

	if (!pid) {
		w->fails++;
		return NULL;
	}
	if (s->ops->alloc_publish) {
		pidx_pid_set(pid, 1);
		nr = s->ops->alloc_publish(s->idx, pid, &pid->numbers[0].nr, s->gfp);
		if (nr > 0 && pid->numbers[0].nr != nr) {
			/* published: the object goes with the number, or stays */
			pidx_worker_error(w, nr, "alloc_publish stored another number");
			if (nr < s->cfg->pid_max && !s->ops->remove(s->idx, nr))
				pidx_pid_free(pid);
			return NULL;
		}
	} else {
		nr = s->ops->alloc(s->idx, s->gfp);
	}
	if (nr == -ENOSPC || nr == -ENOMEM) {
		w->fails++;
		pidx_pid_free(pid);
		return NULL;
	}
	/* the oracle's bitmap is pid_max bits: a number past it is no PID */
	if (nr < 1 || nr >= s->cfg->pid_max) {
		pidx_worker_error(w, nr, nr < 0 ? "alloc returned an unexpected error" :
				  "alloc returned a number outside [1, pid_max)");
		/* the index's error: an object it may hold stays, the run fails */
		if (!s->ops->alloc_publish)
			pidx_pid_free(pid);
		return NULL;
	}
	if (s->ops->alloc_publish)
		return pid;
	pidx_pid_set(pid, 1);
	pid->numbers[0].nr = nr;
	ret = s->ops->publish(s->idx, nr, pid);
	if (likely(!ret))
		return pid;
	/* alloc_pid()'s unwind: the reservation goes, then the object */
	pidx_worker_error(w, nr, "publish of a number just reserved failed");
	if (!s->ops->remove(s->idx, nr))
		pidx_pid_free(pid);
	return NULL;
}

/*
 * alloc_pid(): the object first, then a number reserved for it in every
 * level, the object built with them, and the numbers published: two
 * steps, as 6.1 takes pidmap_lock for each level's reservation and once
 * for the publish, or one where the index has alloc_publish_levels()
 * (mainline's one hold).  NULL when there is no memory or no number (a
 * failed operation) or on an error; nothing is held then, but a
 * reservation whose removal was refused, on this CPU's stranded list.
 */
struct pidx_pid *pidx_alloc_pid(struct pidx_worker *w)
{
	struct pidx_storm *s = w->storm;
	struct pidx_pid *pid;
	u32 *nrp[PIDX_LEVELS_MAX];
	unsigned int i;
	int ret;

	if (s->nlevels == 1)
		return pidx_alloc_pid_one(w);
	if (unlikely(w->stranded))
		pidx_unstrand(w);
	pid = pidx_pid_new(s->nlevels, s->gfp);
	if (!pid) {
		w->fails++;
		return NULL;
	}
	if (s->ops->alloc_publish_levels) {
		pidx_pid_set(pid, s->nlevels);
		for (i = 0; i < s->nlevels; i++)
			nrp[i] = &pid->numbers[i].nr;
		ret = s->ops->alloc_publish_levels(s->lvl, s->nlevels, pid, nrp,
						   s->gfp);
		for (i = 0; !ret && i < s->nlevels; i++) {
			if (pid->numbers[i].nr >= 1 &&
			    pid->numbers[i].nr < s->cfg->pid_max)
				continue;
			/* the index's error: the object it holds stays, the run fails */
			pidx_worker_error(w, pid->numbers[i].nr,
					  "alloc_publish stored a number outside [1, pid_max)");
			return NULL;
		}
		if (!ret)
			return pid;
		if (ret != -ENOSPC && ret != -ENOMEM)
			pidx_worker_error(w, ret, "alloc_publish returned an unexpected error");
	} else {
		ret = pidx_reserve_levels(w, pid);
		if (ret) {
			if (ret == -ENOSPC || ret == -ENOMEM)
				w->fails++;
			pidx_unwind_pid(w, pid);
			return NULL;
		}
		pidx_pid_set(pid, s->nlevels);
		ret = pidx_publish_levels(s, pid);
		if (likely(!ret))
			return pid;
		/*
		 * alloc_pid()'s unwind: the numbers go as an exit's, the
		 * deepest last since readers may have found the object, then
		 * the object; one a refusal keeps stays, the run failed
		 */
		pidx_worker_error(w, pid->numbers[0].nr,
				  "publish of a number just reserved failed");
		if (pidx_exit_pid(w, pid) == -ENOMEM)
			w->fails++;
		return NULL;
	}
	if (ret == -ENOSPC || ret == -ENOMEM)
		w->fails++;
	pidx_pid_free(pid);
	return NULL;
}
