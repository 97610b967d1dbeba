# SPDX-License-Identifier: GPL-2.0
"""pidx's figures: a results directory in, PNG and SVG out (scripts/plot.py).

common   messages, the null and cachegrind names, emulation notes, medians
rows     reads a results directory into rows, the substrates' views
style    colours and markers per index, the frame of a figure, axes, bars
scaling  nsop_vs_keys and throughput_vs_cpus
latency  latency: p50 and p99 of single operations
memory   memory: bytes per key
visits   visits: index nodes and cache lines per operation
numa     numa: ns/op by memory placement
pmu      pmu: CPU counters per operation
ratios   ratio_to_idr: the figure and its CSV
"""
