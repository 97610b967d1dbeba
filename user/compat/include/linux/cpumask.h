/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidx user-space compat: include/linux/cpumask.h.  Possible and online
 * CPUs are the machine's configured CPUs (sysconf), all of them online.
 */
#ifndef _KC_CPUMASK_H
#define _KC_CPUMASK_H
#include <kc_base.h>
#include <linux/bitmap.h>

#define NR_CPUS		CONFIG_NR_CPUS
struct cpumask {
	DECLARE_BITMAP(bits, NR_CPUS);
};
typedef struct cpumask cpumask_t;

extern unsigned int nr_cpu_ids;
#define nr_cpumask_bits		nr_cpu_ids
#define num_possible_cpus()	nr_cpu_ids
#define num_online_cpus()	nr_cpu_ids
#define num_present_cpus()	nr_cpu_ids
#define cpu_online(cpu)		((unsigned int)(cpu) < nr_cpu_ids)
#define cpu_possible(cpu)	cpu_online(cpu)
#define cpumask_bits(maskp)	((maskp)->bits)
#define cpumask_pr_args(maskp)	nr_cpu_ids, cpumask_bits(maskp)

#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)
#define for_each_online_cpu(cpu)   for_each_possible_cpu(cpu)
#define for_each_present_cpu(cpu)  for_each_possible_cpu(cpu)
#define for_each_cpu(cpu, mask)						\
	for ((cpu) = find_first_bit(cpumask_bits(mask), nr_cpu_ids);	\
	     (cpu) < nr_cpu_ids;					\
	     (cpu) = find_next_bit(cpumask_bits(mask), nr_cpu_ids, (cpu) + 1))

static inline void cpumask_set_cpu(unsigned int cpu, struct cpumask *m)
{
	__set_bit(cpu, cpumask_bits(m));
}

static inline void cpumask_clear_cpu(unsigned int cpu, struct cpumask *m)
{
	__clear_bit(cpu, cpumask_bits(m));
}

static inline bool cpumask_test_cpu(unsigned int cpu, const struct cpumask *m)
{
	return cpu < nr_cpu_ids && test_bit(cpu, cpumask_bits(m));
}

static inline void cpumask_clear(struct cpumask *m)
{
	bitmap_zero(cpumask_bits(m), NR_CPUS);
}

static inline unsigned int cpumask_weight(const struct cpumask *m)
{
	return bitmap_weight(cpumask_bits(m), nr_cpu_ids);
}

static inline unsigned int cpumask_first(const struct cpumask *m)
{
	return find_first_bit(cpumask_bits(m), nr_cpu_ids);
}

static inline void cpumask_copy(struct cpumask *d, const struct cpumask *s)
{
	bitmap_copy(cpumask_bits(d), cpumask_bits(s), NR_CPUS);
}

static inline bool cpumask_empty(const struct cpumask *m)
{
	return bitmap_empty(cpumask_bits(m), nr_cpu_ids);
}
#endif
