// SPDX-License-Identifier: GPL-2.0
/*
 * CPU counters around a storm: one kernel counter per storm CPU and event,
 * counting the kernel only, read when the CPU's storm starts and ends.
 *
 * perf_event_read_local(), which could read a counter with interrupts off
 * inside an ipi batch, is not exported to modules; perf_event_read_value()
 * sleeps.  So a kthread worker reads its own counters around its timed loop,
 * and an ipi storm's counters are read by the coordinator before the first
 * round and after the last: those then also count the cross-calls that
 * drive the rounds (compare with the null index, which pays the same).
 * Under QEMU's emulation there is no PMU; hardware events then fail to open
 * and the results say n/a.
 */
#include <linux/err.h>
#include <linux/perf_event.h>
#include "pidx_engine.h"

const char *const pidx_pmu_counter_names[PIDX_PMU_NR] = {
	[PIDX_PMU_CYCLES]		= "cycles",
	[PIDX_PMU_INSTRUCTIONS]		= "instructions",
	[PIDX_PMU_CACHE_REFS]		= "cache_refs",
	[PIDX_PMU_CACHE_MISSES]		= "cache_misses",
	[PIDX_PMU_LLC_LOAD_MISSES]	= "llc_load_misses",
};

static void pidx_pmu_attr(struct perf_event_attr *attr, unsigned int i,
			  enum pidx_pmu_mode mode)
{
	static const u64 hw[PIDX_PMU_NR] = {
		[PIDX_PMU_CYCLES]	= PERF_COUNT_HW_CPU_CYCLES,
		[PIDX_PMU_INSTRUCTIONS]	= PERF_COUNT_HW_INSTRUCTIONS,
		[PIDX_PMU_CACHE_REFS]	= PERF_COUNT_HW_CACHE_REFERENCES,
		[PIDX_PMU_CACHE_MISSES]	= PERF_COUNT_HW_CACHE_MISSES,
		[PIDX_PMU_LLC_LOAD_MISSES] = PERF_COUNT_HW_CACHE_LL |
			(PERF_COUNT_HW_CACHE_OP_READ << 8) |
			(PERF_COUNT_HW_CACHE_RESULT_MISS << 16),
	};

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->exclude_user = 1;
	attr->exclude_hv = 1;
	attr->exclude_idle = 1;
	if (mode == PIDX_PMU_SW) {
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
	} else {
		attr->type = i == PIDX_PMU_LLC_LOAD_MISSES ? PERF_TYPE_HW_CACHE :
							     PERF_TYPE_HARDWARE;
		attr->config = hw[i];
	}
}

/* Returns how many of the counters opened on @cpu (process context). */
int pidx_pmu_open(struct pidx_pmu_set *set, unsigned int cpu,
		  enum pidx_pmu_mode mode)
{
	struct perf_event_attr attr;
	struct perf_event *ev;
	unsigned int i;
	int n = 0;

	memset(set, 0, sizeof(*set));
	if (mode == PIDX_PMU_OFF)
		return 0;
	for (i = 0; i < PIDX_PMU_NR; i++) {
		pidx_pmu_attr(&attr, i, mode);
		ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (IS_ERR(ev))
			continue;
		set->ev[i] = ev;
		n++;
	}
	return n;
}

/*
 * At the start, remember the readings; at the end, keep the differences.
 * Process context; the counter may be on another CPU (perf reads it there).
 */
void pidx_pmu_mark(struct pidx_pmu_set *set, bool end)
{
	u64 v, e, r;
	unsigned int i;

	for (i = 0; i < PIDX_PMU_NR; i++) {
		if (!set->ev[i])
			continue;
		v = perf_event_read_value(set->ev[i], &e, &r);
		if (end) {
			set->val[i] = v - set->val[i];
			set->enabled[i] = e - set->enabled[i];
			set->running[i] = r - set->running[i];
		} else {
			set->val[i] = v;
			set->enabled[i] = e;
			set->running[i] = r;
		}
	}
}

void pidx_pmu_close(struct pidx_pmu_set *set)
{
	unsigned int i;

	for (i = 0; i < PIDX_PMU_NR; i++) {
		if (set->ev[i])
			perf_event_release_kernel(set->ev[i]);
		set->ev[i] = NULL;
	}
}
