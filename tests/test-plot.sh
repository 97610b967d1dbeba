#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of scripts/plot.py on the synthetic fixture tests/fixtures/plot-small
# and on malformed copies of it.  One line per check: "PASS name" or
# "FAIL name: expected ..., saw ...".  Exit status: the number of failures
# (capped at 1).  Needs Debian's python3-matplotlib (PYTHON, default
# /usr/bin/python3).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
PLOT=${PLOT:-$root/scripts/plot.py}
FIX=$root/tests/fixtures/plot-small
FIGS="nsop_vs_keys throughput_vs_cpus latency memory"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# run_plot NAME ARGS...: runs plot.py, leaves status in $rc, output in
# $tmp/NAME.out and $tmp/NAME.err
run_plot() {
	local name=$1
	shift
	rc=0
	"$PYTHON" "$PLOT" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
}

# check_figs NAME DIR PREFIX: every figure as non-empty PNG (magic bytes)
# and SVG
check_figs() {
	local name=$1 dir=$2 prefix=$3 f magic
	for f in $FIGS; do
		f=$dir/$prefix$f
		if [[ ! -s $f.png ]]; then
			fail "$name ${f##*/}.png" "expected a non-empty file, saw $(
				[[ -e $f.png ]] && echo "an empty file" || echo "no file")"
			continue
		fi
		magic=$(head -c 8 "$f.png" | od -An -tx1 | tr -d ' \n')
		if [[ $magic == 89504e470d0a1a0a ]]; then
			pass "$name ${f##*/}.png"
		else
			fail "$name ${f##*/}.png" "expected PNG magic 89504e470d0a1a0a, saw $magic"
		fi
		if [[ -s $f.svg ]] && grep -q '<svg' "$f.svg"; then
			pass "$name ${f##*/}.svg"
		else
			fail "$name ${f##*/}.svg" "expected a non-empty SVG with <svg, saw $(
				[[ -e $f.svg ]] && echo "$(wc -c <"$f.svg") bytes without it" ||
					echo "no file")"
		fi
	done
}

# expect_error NAME ARGS...: exit 1 and exactly one stderr line, which
# starts with "plot.py: error:"
expect_error() {
	local name=$1 lines first
	shift
	run_plot "$name" "$@"
	lines=$(wc -l <"$tmp/$name.err")
	first=$(head -n 1 "$tmp/$name.err")
	if [[ $rc -ne 1 ]]; then
		fail "$name" "expected exit status 1, saw $rc (stderr: $first)"
	elif [[ $lines -ne 1 ]]; then
		fail "$name" "expected one stderr line, saw $lines: $(tr '\n' '|' <"$tmp/$name.err" | cut -c1-300)"
	elif [[ $first != "plot.py: error:"* ]]; then
		fail "$name" "expected 'plot.py: error: ...', saw '$first'"
	else
		pass "$name"
	fi
}

# fixture_copy DIR: a fresh copy of the fixture to break
fixture_copy() {
	mkdir -p "$1"
	cp "$FIX/results.csv" "$FIX/meta" "$1/"
}

# column number (1-based) of a header name in the fixture
col() {
	head -n 1 "$FIX/results.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1
}

# --- prerequisites -------------------------------------------------------
if ! "$PYTHON" -c 'import matplotlib' 2>/dev/null; then
	fail "matplotlib" "expected $PYTHON to import matplotlib (apt-get install python3-matplotlib), saw an ImportError"
	echo "$passed passed, $failed failed"
	exit 1
fi
if grep -q '^fixture=synthetic (not a measurement)$' "$FIX/meta"; then
	pass "fixture meta marks it synthetic"
else
	fail "fixture meta marks it synthetic" "expected 'fixture=synthetic (not a measurement)' in $FIX/meta, saw none"
fi

# --- the fixture draws every figure ---------------------------------------
run_plot fixture --out "$tmp/plots" "$FIX"
if [[ $rc -eq 0 && ! -s $tmp/fixture.err ]]; then
	pass "fixture plots: exit 0, quiet stderr"
else
	fail "fixture plots: exit 0, quiet stderr" "expected 0 and no stderr, saw $rc and '$(head -n 2 "$tmp/fixture.err" | tr '\n' '|')'"
fi
check_figs fixture "$tmp/plots" ""

# default output directory is RESULTS_DIR/plots
fixture_copy "$tmp/default"
run_plot default "$tmp/default"
if [[ $rc -eq 0 && -s $tmp/default/plots/latency.png ]]; then
	pass "default --out is RESULTS_DIR/plots"
else
	fail "default --out is RESULTS_DIR/plots" "expected exit 0 and $tmp/default/plots/latency.png, saw $rc and $(find "$tmp/default" -name '*.png' | tr '\n' ' ')"
fi

# --- --compare of the fixture with itself ---------------------------------
run_plot compare --compare --out "$tmp/cmp" "$FIX" "$FIX"
if [[ $rc -eq 0 ]]; then
	pass "compare: exit 0"
else
	fail "compare: exit 0" "expected 0, saw $rc: $(head -n 1 "$tmp/compare.err")"
fi
check_figs compare "$tmp/cmp" "compare_"
expect_error "compare needs two dirs" --compare --out "$tmp/x" "$FIX"

# --- FAILED rows are left out with one warning ----------------------------
fixture_copy "$tmp/failed"
vcol=$(col verified)
awk -F, -v OFS=, -v c="$vcol" 'NR == 2 || NR == 3 { $c = "FAILED" } 1' \
	"$FIX/results.csv" >"$tmp/failed/results.csv"
run_plot failed --out "$tmp/failed/plots" "$tmp/failed"
if [[ $rc -eq 0 ]] && grep -q '^plot.py: warning: .*left out 2 row(s) with verified=FAILED' "$tmp/failed.err"; then
	pass "verified=FAILED rows excluded with a warning"
else
	fail "verified=FAILED rows excluded with a warning" "expected exit 0 and a warning counting 2 rows, saw $rc and '$(tr '\n' '|' <"$tmp/failed.err")'"
fi

# --- malformed input: exit 1, one line "plot.py: error: ..." -------------
fixture_copy "$tmp/nocol"
cut -d, -f"$(col mops)" --complement "$FIX/results.csv" >"$tmp/nocol/results.csv"
expect_error "missing column" --out "$tmp/x" "$tmp/nocol"

fixture_copy "$tmp/nonnum"
awk -F, -v OFS=, -v c="$(col ns_per_op)" 'NR == 5 { $c = "12.5abc" } 1' \
	"$FIX/results.csv" >"$tmp/nonnum/results.csv"
expect_error "non-numeric cell" --out "$tmp/x" "$tmp/nonnum"

fixture_copy "$tmp/empty"
: >"$tmp/empty/results.csv"
expect_error "empty file" --out "$tmp/x" "$tmp/empty"

fixture_copy "$tmp/header"
head -n 1 "$FIX/results.csv" >"$tmp/header/results.csv"
expect_error "header only, zero data rows" --out "$tmp/x" "$tmp/header"

expect_error "missing dir" --out "$tmp/x" "$tmp/does-not-exist"

mkdir -p "$tmp/nocsv"
expect_error "dir without results.csv" --out "$tmp/x" "$tmp/nocsv"

# --- --help ----------------------------------------------------------------
run_plot help --help
if [[ $rc -eq 0 ]] && grep -q -- '--compare' "$tmp/help.out"; then
	pass "--help"
else
	fail "--help" "expected exit 0 and --compare documented, saw $rc"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
