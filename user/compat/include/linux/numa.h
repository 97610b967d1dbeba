/* SPDX-License-Identifier: GPL-2.0 */
/* pidx user-space compat: one NUMA node (node 0) */
#ifndef _KC_NUMA_H
#define _KC_NUMA_H
#include <kc_base.h>
#define NUMA_NO_NODE	(-1)
#define MAX_NUMNODES	1
#define num_online_nodes()	1
#define for_each_online_node(nid) for ((nid) = 0; (nid) < 1; (nid)++)
#define node_online(nid)	((nid) == 0)
/* node_states[] of one node: node 0 is online, has memory and CPUs */
enum node_states { N_POSSIBLE, N_ONLINE, N_NORMAL_MEMORY, N_HIGH_MEMORY,
		   N_MEMORY, N_CPU, NR_NODE_STATES };
#define node_state(nid, state)	((nid) == 0 && (state) < NR_NODE_STATES)
#define for_each_node_state(nid, state) for_each_online_node(nid)
#define num_node_state(state)	1
#define cpu_to_node(cpu)	0
#define numa_node_id()		0
#define cpumask_of_node(nid)	((const struct cpumask *)NULL)
#endif
