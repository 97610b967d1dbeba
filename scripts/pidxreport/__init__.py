# SPDX-License-Identifier: GPL-2.0
"""pidx's report generator: results.csv and meta in, REPORT.md out.

data     reads a results directory into rows, each with its substrate
stats    paired ratios, medians and their distribution-free intervals
targets  results/targets.toml and the verdict of each target
render   the markdown report, the terminal table and the README blocks
"""
