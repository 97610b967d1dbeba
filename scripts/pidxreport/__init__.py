# SPDX-License-Identifier: GPL-2.0
"""pidx's report generator: results.csv and meta in, REPORT.md out.

data     reads a results directory into rows, each with its substrate
stats    paired ratios, medians and their distribution-free intervals
targets  results/targets.toml and the verdict of each target
render   the markdown report and the README blocks
answer   the answer in at most five sentences, and the end of a run's text
glossary docs/glossary.md's terms, linked at their first use
"""
