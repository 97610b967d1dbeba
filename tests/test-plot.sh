#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Tests of scripts/plot.py on the synthetic fixtures tests/fixtures/plot-small
# (the columns up to `extra`), tests/fixtures/plot-numa (the columns after
# it, with trace_visits=1 rows and rows placed on NUMA nodes) and
# tests/fixtures/plot-substrates (kernel, user and cachegrind rows, as
# make bench writes under QEMU), and on modified copies of them.  One line per check: "PASS name" or
# "FAIL name: expected ..., saw ...".  Exit status: the number of failures
# (capped at 1).  Needs Debian's python3-matplotlib (PYTHON, default
# /usr/bin/python3).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
PLOT=${PLOT:-$root/scripts/plot.py}
FIX=$root/tests/fixtures/plot-small
NFIX=$root/tests/fixtures/plot-numa
SFIX=$root/tests/fixtures/plot-substrates
FIGS="nsop_vs_keys throughput_vs_cpus latency memory"
# the figures of the extra sweeps
NEWFIGS="visits numa"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-plot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# byte-identical figures for identical data: a fixed SVG id salt and date
mkdir -p "$tmp/mplrc"
echo "svg.hashsalt: test-plot" >"$tmp/mplrc/matplotlibrc"
export MATPLOTLIBRC=$tmp/mplrc SOURCE_DATE_EPOCH=0

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

# check_figs NAME DIR PREFIX [FIGURES]: every figure (default $FIGS) as
# non-empty PNG (magic bytes) and SVG
check_figs() {
	local name=$1 dir=$2 prefix=$3 figs=${4:-$FIGS} f magic
	for f in $figs; do
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

# ncol NAME: the same in the numa fixture
ncol() {
	head -n 1 "$NFIX/results.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1
}

# nfixture_copy DIR: a fresh copy of the numa fixture
nfixture_copy() {
	mkdir -p "$1"
	cp "$NFIX/results.csv" "$NFIX/meta" "$1/"
}

# same_figs NAME DIR1 DIR2: the $FIGS PNGs and SVGs of both are identical
same_figs() {
	local name=$1 a=$2 b=$3 f ext differ=""
	for f in $FIGS; do
		for ext in png svg; do
			cmp -s "$a/$f.$ext" "$b/$f.$ext" || differ+=" $f.$ext"
		done
	done
	if [[ -z $differ ]]; then
		pass "$name"
	else
		fail "$name" "expected identical figures, saw differences in$differ"
	fi
}

# listing DIR: the file names in DIR, sorted, on one line
listing() {
	find "$1" -maxdepth 1 -type f -printf '%f\n' | sort | tr '\n' ' '
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

# plot_excludes NAME COLUMN ROWS VALUE WARNING: the fixture with VALUE in
# COLUMN of the rows the awk condition ROWS picks must plot (exit 0) with
# one warning, WARNING, that says what was left out
plot_excludes() {
	local name=$1 c=$2 rows=$3 value=$4 warning=$5 what
	what="$name rows excluded with a warning ($warning)"
	fixture_copy "$tmp/$name"
	awk -F, -v OFS=, -v c="$(col "$c")" -v v="$value" "$rows { \$c = v } 1" \
		"$FIX/results.csv" >"$tmp/$name/results.csv"
	run_plot "$name" --out "$tmp/$name/plots" "$tmp/$name"
	if [[ $rc -eq 0 ]] && grep '^plot.py: warning: ' "$tmp/$name.err" | grep -qF "$warning" &&
		[[ $(grep -c '^plot.py: warning: ' "$tmp/$name.err") -eq 1 ]]; then
		pass "$what"
	else
		fail "$what" "expected exit 0 and one warning, saw $rc and '$(tr '\n' '|' <"$tmp/$name.err")'"
	fi
}

# --- FAILED rows, and rows run under fault injection, are left out --------
plot_excludes failed verified 'NR == 2 || NR == 3' FAILED \
	'left out 2 row(s) with verified=FAILED'
plot_excludes faulted extra 'NR == 2 || NR == 4 || NR == 5' \
	'faults=failslab;nomem=3;prefill_nomem=0' 'left out 3 row(s) run under fault injection'
fixture_copy "$tmp/allfaulted"
awk -F, -v OFS=, -v c="$(col extra)" 'NR > 1 { $c = "faults=failslab" } 1' \
	"$FIX/results.csv" >"$tmp/allfaulted/results.csv"
expect_error "only rows under fault injection" --out "$tmp/x" "$tmp/allfaulted"

# --- rows of a dist other than uniform are left out, with a warning ------
# the fixture with a dist column, uniform, and beside each row a copy whose
# lookups zipf:0.99 drew, three times as slow: the figures are the
# uniform rows' alone
fixture_copy "$tmp/dist"
fixture_copy "$tmp/distu"
awk -F, -v OFS=, 'NR == 1 { print $0 ",dist"; next } { print $0 ",uniform" }' \
	"$FIX/results.csv" >"$tmp/distu/results.csv"
awk -F, -v OFS=, -v c="$(col ns_per_op)" 'NR == 1 { print $0 ",dist"; next }
	{ print $0 ",uniform"; $c = $c * 3; print $0 ",zipf:0.99" }' \
	"$FIX/results.csv" >"$tmp/dist/results.csv"
run_plot distu --out "$tmp/distu/plots" "$tmp/distu"
run_plot dist --out "$tmp/dist/plots" "$tmp/dist"
if [[ $rc -eq 0 ]] && [[ $(grep -c '^plot.py: warning: ' "$tmp/dist.err") -eq 1 ]] &&
	grep -q "left out $(($(wc -l <"$FIX/results.csv") - 1)) row(s) whose lookups another dist than uniform drew" "$tmp/dist.err"; then
	pass "dist rows other than uniform left out with one warning"
else
	fail "dist rows other than uniform left out with one warning" "exit 0 and the warning, saw $rc and '$(tr '\n' '|' <"$tmp/dist.err")'"
fi
same_figs "figures of uniform rows beside zipf ones are the uniform rows' figures" \
	"$tmp/dist/plots" "$tmp/distu/plots"

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

# --- the old fixture: exactly the figures it always drew -----------------
expect="latency.png latency.svg memory.png memory.svg nsop_vs_keys.png nsop_vs_keys.svg throughput_vs_cpus.png throughput_vs_cpus.svg "
if [[ $(listing "$tmp/plots") == "$expect" ]]; then
	pass "old fixture: exactly the four figures, no visits/numa/pmu"
else
	fail "old fixture: exactly the four figures, no visits/numa/pmu" "expected '$expect', saw '$(listing "$tmp/plots")'"
fi
if grep -qx 'plot.py: pmu: no hardware counter values (n/a), no pmu plot' "$tmp/fixture.out"; then
	pass "old fixture: one line says there is no pmu plot"
else
	fail "old fixture: one line says there is no pmu plot" "expected the pmu line on stdout, saw '$(grep -v '^/' "$tmp/fixture.out" | tr '\n' '|')'"
fi

# the old fixture with the new columns appended as an old results.csv
# means them (trace_visits=0, node=any, pmu n/a) draws the same bytes
fixture_copy "$tmp/upgraded"
awk 'NR == 1 { print $0 ",trace_visits,visits_per_op,visits_max,lines_per_op,lines_max,pmu,cycles_per_op,instructions_per_op,cache_refs_per_op,cache_misses_per_op,llc_load_misses_per_op,node,cpu_nodes,mem_nodes"; next }
	{ print $0 ",0,n/a,n/a,n/a,n/a,off,n/a,n/a,n/a,n/a,n/a,any,0:0,n/a" }' \
	"$FIX/results.csv" >"$tmp/upgraded/results.csv"
run_plot upgraded --out "$tmp/upgraded/plots" "$tmp/upgraded"
if [[ $rc -eq 0 && ! -s $tmp/upgraded.err ]]; then
	pass "old fixture with the new columns: exit 0, quiet stderr"
else
	fail "old fixture with the new columns: exit 0, quiet stderr" "expected 0 and no stderr, saw $rc and '$(head -n 2 "$tmp/upgraded.err" | tr '\n' '|')'"
fi
same_figs "missing new columns read as trace_visits=0, node=any, pmu n/a" \
	"$tmp/plots" "$tmp/upgraded/plots"

# --- the numa fixture: visits and numa drawn, pmu not ---------------------
if grep -q '^fixture=synthetic (not a measurement)$' "$NFIX/meta"; then
	pass "numa fixture meta marks it synthetic"
else
	fail "numa fixture meta marks it synthetic" "expected 'fixture=synthetic (not a measurement)' in $NFIX/meta, saw none"
fi
run_plot numa --out "$tmp/nplots" "$NFIX"
if [[ $rc -eq 0 && ! -s $tmp/numa.err ]]; then
	pass "numa fixture plots: exit 0, quiet stderr"
else
	fail "numa fixture plots: exit 0, quiet stderr" "expected 0 and no stderr, saw $rc and '$(head -n 2 "$tmp/numa.err" | tr '\n' '|')'"
fi
check_figs numa "$tmp/nplots" "" "$FIGS $NEWFIGS"
if [[ ! -e $tmp/nplots/pmu.png ]] &&
	grep -qx 'plot.py: pmu: no hardware counter values (n/a), no pmu plot' "$tmp/numa.out"; then
	pass "numa fixture: counters all n/a, no pmu plot, one line says so"
else
	fail "numa fixture: counters all n/a, no pmu plot, one line says so" "expected no pmu.png and the pmu line, saw $(listing "$tmp/nplots")/ '$(grep -v '^/' "$tmp/numa.out" | tr '\n' '|')'"
fi

# svg_has NAME FILE TEXT: the SVG's text (svg.fonttype none keeps it as
# text) contains TEXT
svg_has() {
	if grep -qF -- "$3" "$2"; then
		pass "$1"
	else
		fail "$1" "expected '$3' in ${2##*/}, saw none"
	fi
}
svg_has "visits title: counted, not timed" "$tmp/nplots/visits.svg" "deterministic for a seed; counted, not timed"
svg_has "visits legend: dashed lines are cache lines" "$tmp/nplots/visits.svg" "dashed: distinct cache lines"
svg_has "numa: TCG caveat on remote memory" "$tmp/nplots/numa.svg" "remote memory costs nothing extra"
svg_has "numa: remote placement labelled" "$tmp/nplots/numa.svg" "(remote)"
svg_has "numa: mem_nodes of the first repeat" "$tmp/nplots/numa.svg" "idr 1:18"
svg_has "numa: cpu_nodes" "$tmp/nplots/numa.svg" "storm cpu:node 0:0"

# the numa caveat is left out where remote memory costs what it costs
nfixture_copy "$tmp/kvm"
sed -i 's/^accel=tcg$/accel=kvm/' "$tmp/kvm/meta"
run_plot kvm --out "$tmp/kvm/plots" "$tmp/kvm"
if [[ $rc -eq 0 && -s $tmp/kvm/plots/numa.svg ]] &&
	! grep -qF "remote memory costs nothing extra" "$tmp/kvm/plots/numa.svg"; then
	pass "numa under KVM: no TCG caveat"
else
	fail "numa under KVM: no TCG caveat" "expected exit 0 and numa.svg without the caveat, saw $rc and $(grep -c "costs nothing extra" "$tmp/kvm/plots/numa.svg" 2>/dev/null) mention(s)"
fi

# --- traced and placed rows stay out of the time figures -------------------
# the same fixture without them must draw the same bytes; the traced rows
# have a keys size (4K) and ns/op the timed ones lack, the placed rows
# other ns/op, so a figure that let them in would differ
nfixture_copy "$tmp/plain"
awk -F, -v t="$(ncol trace_visits)" -v n="$(ncol node)" \
	'NR == 1 || ($t == 0 && $n == "any")' \
	"$NFIX/results.csv" >"$tmp/plain/results.csv"
kept=$(($(wc -l <"$tmp/plain/results.csv") - 1))
all=$(($(wc -l <"$NFIX/results.csv") - 1))
if [[ $kept -gt 0 && $kept -lt $all ]]; then
	pass "numa fixture has timed rows and extra rows ($kept of $all timed)"
else
	fail "numa fixture has timed rows and extra rows" "expected 0 < timed rows < $all, saw $kept"
fi
run_plot plain --out "$tmp/plain/plots" "$tmp/plain"
same_figs "trace_visits=1 and node!=any rows left out of the time figures" \
	"$tmp/nplots" "$tmp/plain/plots"
if [[ ! -e $tmp/plain/plots/visits.png && ! -e $tmp/plain/plots/numa.png ]] &&
	grep -q '^plot.py: skipping visits: ' "$tmp/plain.out" &&
	grep -q '^plot.py: skipping numa: ' "$tmp/plain.out"; then
	pass "no traced or placed rows: no visits or numa figure, said so"
else
	fail "no traced or placed rows: no visits or numa figure, said so" "expected neither figure and two skipping lines, saw $(listing "$tmp/plain/plots")/ '$(grep -v '^/' "$tmp/plain.out" | tr '\n' '|')'"
fi

# --- counter values draw pmu -----------------------------------------------
nfixture_copy "$tmp/pmu"
awk -F, -v OFS=, -v t="$(ncol trace_visits)" -v ns="$(ncol ns_per_op)" \
	-v p="$(ncol pmu)" -v c="$(ncol cycles_per_op)" \
	-v i="$(ncol instructions_per_op)" -v m="$(ncol cache_misses_per_op)" \
	'NR > 1 && $t == 0 { $p = "auto"; $c = $ns * 2.1; $i = $ns * 1.4; $m = $ns / 90 } 1' \
	"$NFIX/results.csv" >"$tmp/pmu/results.csv"
run_plot pmu --out "$tmp/pmu/plots" "$tmp/pmu"
if [[ $rc -eq 0 && ! -s $tmp/pmu.err ]]; then
	pass "counter values: exit 0, quiet stderr"
else
	fail "counter values: exit 0, quiet stderr" "expected 0 and no stderr, saw $rc and '$(head -n 2 "$tmp/pmu.err" | tr '\n' '|')'"
fi
check_figs pmu "$tmp/pmu/plots" "" "pmu"
svg_has "pmu: cycles panel" "$tmp/pmu/plots/pmu.svg" "cycles per operation"

# --- --compare with the new rows: the time figures only --------------------
run_plot ncompare --compare --out "$tmp/ncmp" "$NFIX" "$FIX"
if [[ $rc -eq 0 && ! -s $tmp/ncompare.err ]]; then
	pass "compare numa fixture with old fixture: exit 0, quiet stderr"
else
	fail "compare numa fixture with old fixture: exit 0, quiet stderr" "expected 0 and no stderr, saw $rc and '$(head -n 2 "$tmp/ncompare.err" | tr '\n' '|')'"
fi
check_figs ncompare "$tmp/ncmp" "compare_"

# --- bad values in the new columns ------------------------------------------
nfixture_copy "$tmp/badtv"
awk -F, -v OFS=, -v c="$(ncol trace_visits)" 'NR == 3 { $c = 2 } 1' \
	"$NFIX/results.csv" >"$tmp/badtv/results.csv"
expect_error "trace_visits not 0 or 1" --out "$tmp/x" "$tmp/badtv"

nfixture_copy "$tmp/badnode"
awk -F, -v OFS=, -v c="$(ncol node)" 'NR == 3 { $c = "far" } 1' \
	"$NFIX/results.csv" >"$tmp/badnode/results.csv"
expect_error "node not any, interleave or a number" --out "$tmp/x" "$tmp/badnode"

nfixture_copy "$tmp/badvis"
awk -F, -v OFS=, -v c="$(ncol visits_per_op)" 'NR == 3 { $c = "lots" } 1' \
	"$NFIX/results.csv" >"$tmp/badvis/results.csv"
expect_error "non-numeric visits_per_op" --out "$tmp/x" "$tmp/badvis"

# --- kernel, user and cachegrind rows: plot-substrates ----------------------
# scol NAME: column number of NAME in the substrates fixture
scol() {
	head -n 1 "$SFIX/results.csv" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1
}
# sfilter DIR WHICH: a copy of the substrates fixture with the header and
# the rows WHICH names: kernel, user (cachegrind's included), nocg (all but
# cachegrind's), noidr (all but idr's)
sfilter() {
	mkdir -p "$1"
	cp "$SFIX/meta" "$1/"
	awk -F, -v s="$(scol substrate)" -v p="$(scol pmu)" -v i="$(scol index)" -v w="$2" '
		NR == 1 || (w == "kernel" && $s == "kernel") || (w == "user" && $s == "user") ||
			(w == "nocg" && $p != "cachegrind") || (w == "noidr" && $i != "idr")' \
		"$SFIX/results.csv" >"$1/results.csv"
}
# ratio SOURCE WORKLOAD KEYS INDEX: the ratio column of ratio_to_idr.csv
ratio() {
	awk -F, -v src="$2" -v w="$3" -v k="$4" -v x="$5" '
		NR > 1 { l = $0; sub(/^"/, "", l) }
		NR > 1 && index(l, src) == 1 && $(NF - 11) == w && $(NF - 10) == k &&
			$(NF - 7) == x { print $(NF - 5) }' "$1"
}
if grep -q '^fixture=synthetic (not a measurement)$' "$SFIX/meta"; then
	pass "substrates fixture meta marks it synthetic"
else
	fail "substrates fixture meta marks it synthetic" "expected 'fixture=synthetic (not a measurement)' in $SFIX/meta, saw none"
fi
nk=$(awk -F, -v s="$(scol substrate)" -v p="$(scol pmu)" 'NR > 1 { n[$s "/" ($p == "cachegrind" ? "cg" : "timed")]++ }
	END { print n["kernel/timed"] + 0, n["user/timed"] + 0, n["user/cg"] + 0 }' "$SFIX/results.csv")
if [[ $nk =~ ^[1-9][0-9]*\ [1-9][0-9]*\ [1-9][0-9]*$ ]]; then
	pass "substrates fixture: kernel, user and cachegrind rows ($nk)"
else
	fail "substrates fixture: kernel, user and cachegrind rows" "expected three non-zero counts, saw '$nk'"
fi
run_plot subst --out "$tmp/splots" "$SFIX"
if [[ $rc -eq 0 && ! -s $tmp/subst.err ]]; then
	pass "substrates fixture plots: exit 0, quiet stderr"
else
	fail "substrates fixture plots: exit 0, quiet stderr" "expected 0 and no stderr, saw $rc and '$(head -n 2 "$tmp/subst.err" | tr '\n' '|')'"
fi
UFIGS="user_nsop_vs_keys user_throughput_vs_cpus user_latency user_memory user_pmu"
check_figs subst "$tmp/splots" "" "$FIGS $UFIGS ratio_to_idr"
if [[ ! -e $tmp/splots/pmu.png ]] && grep -qx 'plot.py: kernel rows: pmu: no hardware counter values (n/a), no pmu plot' "$tmp/subst.out"; then
	pass "substrates: no kernel pmu figure under TCG, said for the kernel rows"
else
	fail "substrates: no kernel pmu figure under TCG" "expected no pmu.png and a 'kernel rows: pmu:' line, saw $(listing "$tmp/splots")"
fi
svg_has "ratio_to_idr: the kernel's bars say EMULATED" "$tmp/splots/ratio_to_idr.svg" "kernel, QEMU TCG: EMULATED: ns/op"
svg_has "ratio_to_idr: a note says what TCG is" "$tmp/splots/ratio_to_idr.svg" "in-kernel behaviour, not hardware times"
svg_has "ratio_to_idr: native user space bars" "$tmp/splots/ratio_to_idr.svg" "user space, native: ns/op"
svg_has "ratio_to_idr: cachegrind D1 bars" "$tmp/splots/ratio_to_idr.svg" "cachegrind: D1 misses/op"
svg_has "ratio_to_idr: cachegrind LL bars" "$tmp/splots/ratio_to_idr.svg" "cachegrind: LL misses/op"
svg_has "ratio_to_idr: the user rows ran on the host" "$tmp/splots/ratio_to_idr.svg" "user rows: kernel 6.99.0-fixture-host"
svg_has "ratio_to_idr: a fork panel" "$tmp/splots/ratio_to_idr.svg" "fork · 32K keys"
svg_has "user figures describe the host, not the VM" "$tmp/splots/user_nsop_vs_keys.svg" "kernel 6.99.0-fixture-host, user space (pidx-user)"
if ! grep -qF "QEMU TCG emulation" "$tmp/splots/user_nsop_vs_keys.svg" &&
	grep -qF "QEMU TCG emulation" "$tmp/splots/nsop_vs_keys.svg"; then
	pass "TCG note on the kernel's time figures, not on user space's"
else
	fail "TCG note on the kernel's figures only" "expected it in nsop_vs_keys.svg and not in user_nsop_vs_keys.svg, saw $(grep -c "QEMU TCG emulation" "$tmp/splots/nsop_vs_keys.svg" "$tmp/splots/user_nsop_vs_keys.svg" | tr '\n' ' ')"
fi
# the fixture's counts make these ratios exact
rc_=$tmp/splots/ratio_to_idr.csv
for t in "cachegrind: D1 misses/op|lookup|32768|skiplist|10" \
	"cachegrind: LL misses/op|lookup|32768|skiplist|8" \
	"cachegrind: D1 misses/op|fork|32768|ccskip|8" \
	"cachegrind: instructions/op|lookup|1024|ccskip|1.35"; do
	IFS='|' read -r src w k x want <<<"$t"
	got=$(ratio "$rc_" "$src" "$w" "$k" "$x")
	if [[ $got == "$want" ]]; then
		pass "ratio_to_idr.csv: $x $w $k $src = $want"
	else
		fail "ratio_to_idr.csv: $x $w $k $src" "expected $want, saw '$got'"
	fi
done
got=$(ratio "$rc_" "cachegrind: LL misses/op" lookup 1024 skiplist)
if [[ -z $got ]] && grep -qF "not drawn, idr's count per op below 0.01: lookup 1K: cachegrind: LL misses/op" "$tmp/splots/ratio_to_idr.svg"; then
	pass "ratio_to_idr: no ratio to an idr count of about 0, said so"
else
	fail "ratio_to_idr: idr count below the floor" "expected no ratio and a 'not drawn' line, saw '$got'"
fi
kmed=$(ratio "$rc_" "kernel, QEMU TCG" lookup 32768 skiplist)
if awk -v r="$kmed" 'BEGIN { exit !(r > 1.5 && r < 4) }'; then
	pass "ratio_to_idr.csv: the kernel's skiplist lookup ratio at 32K ($kmed)"
else
	fail "ratio_to_idr.csv: kernel ratio" "expected about 2.4, saw '$kmed'"
fi

# the kernel's figures are those of its rows alone
sfilter "$tmp/konly" kernel
run_plot konly --out "$tmp/konly/plots" "$tmp/konly"
same_figs "user and cachegrind rows stay out of the kernel's figures" "$tmp/splots" "$tmp/konly/plots"
if [[ ! -e $tmp/konly/plots/ratio_to_idr.png ]] && grep -q '^plot.py: skipping ratio_to_idr: rows of one source only' "$tmp/konly.out"; then
	pass "one source of rows: no ratio_to_idr, said so"
else
	fail "one source of rows: no ratio_to_idr" "expected no figure and a skipping line, saw $(listing "$tmp/konly/plots")"
fi
# cachegrind's rows stay out of user space's time figures
sfilter "$tmp/nocg" nocg
run_plot nocg --out "$tmp/nocg/plots" "$tmp/nocg"
differ=""
for f in user_nsop_vs_keys user_throughput_vs_cpus user_latency user_memory; do
	cmp -s "$tmp/splots/$f.svg" "$tmp/nocg/plots/$f.svg" || differ+=" $f"
done
if [[ -z $differ && ! -e $tmp/nocg/plots/user_pmu.png ]]; then
	pass "cachegrind rows feed only the pmu and ratio figures"
else
	fail "cachegrind rows feed only the pmu and ratio figures" "expected identical user time figures and no user_pmu, saw differences in$differ"
fi

# dependent lookups (dependent=1) are bars of their own in ratio_to_idr and
# in no other figure: the copy's dependent rows double skiplist's time and
# quadruple idr's, so their ratio is half the batched one, and a figure
# that let them in would differ
mkdir -p "$tmp/dep"
cp "$SFIX/meta" "$tmp/dep/"
awk -F, -v OFS=, -v s="$(scol substrate)" -v p="$(scol pmu)" -v w="$(scol workload)" \
	-v ns="$(scol ns_per_op)" -v i="$(scol index)" '
	NR == 1 { print $0 ",dependent"; next }
	{ print $0 ",0" }
	$s == "user" && $p != "cachegrind" && $w == "lookup" {
		$ns = $ns * ($i == "idr" ? 4 : 2); print $0 ",1" }' \
	"$SFIX/results.csv" >"$tmp/dep/results.csv"
run_plot dep --out "$tmp/dep/plots" "$tmp/dep"
differ=""
for f in $FIGS $UFIGS; do
	cmp -s "$tmp/splots/$f.svg" "$tmp/dep/plots/$f.svg" 2>/dev/null ||
		[[ ! -e $tmp/splots/$f.svg && ! -e $tmp/dep/plots/$f.svg ]] || differ+=" $f"
done
b=$(ratio "$tmp/dep/plots/ratio_to_idr.csv" "user space, native: ns/op" lookup 32768 skiplist)
d=$(ratio "$tmp/dep/plots/ratio_to_idr.csv" "user space, native, dependent lookups: ns/op" lookup 32768 skiplist)
if [[ $rc -eq 0 && -z $differ && -n $b ]] && awk -v b="$b" -v d="$d" 'BEGIN { exit !(d != "" && d * 2 > b * 0.99 && d * 2 < b * 1.01) }'; then
	pass "dependent rows: bars of their own in ratio_to_idr ($d against batched $b), no other figure changed"
else
	fail "dependent rows" "exit 0, the same time figures, a dependent ratio half the batched one, saw $rc, differences in '$differ', ratios '$b' '$d'"
fi
awk -F, -v OFS=, 'NR == 3 { $NF = 2 } 1' "$tmp/dep/results.csv" >"$tmp/dep/bad.csv"
mkdir -p "$tmp/baddep"
cp "$SFIX/meta" "$tmp/baddep/"
mv "$tmp/dep/bad.csv" "$tmp/baddep/results.csv"
expect_error "dependent not 0 or 1" --out "$tmp/x" "$tmp/baddep"

# columns are read by name: another order and a column more (another
# branch's) draw the same figures and ratios (the directory keeps its name:
# ratio_to_idr names where each source's rows are)
od=$tmp/order/plot-substrates
mkdir -p "$od"
cp "$SFIX/meta" "$od/"
awk -F, -v OFS=, 'NR == 1 { $0 = "storm_bound," $0 } NR > 1 { $0 = "12.5," $0 }
	{ t = $NF; $NF = $2; $2 = t; print }' "$SFIX/results.csv" >"$od/results.csv"
if [[ $(head -n 1 "$od/results.csv") == storm_bound,substrate,* ]]; then
	pass "reordered copy: storm_bound first, substrate second"
else
	fail "reordered copy" "expected a header starting storm_bound,substrate, saw $(head -c 40 "$od/results.csv")"
fi
run_plot order --out "$tmp/order/plots" "$od"
differ=""
for f in $FIGS $UFIGS ratio_to_idr; do
	for ext in png svg; do
		cmp -s "$tmp/splots/$f.$ext" "$tmp/order/plots/$f.$ext" || differ+=" $f.$ext"
	done
done
cmp -s "$rc_" "$tmp/order/plots/ratio_to_idr.csv" || differ+=" ratio_to_idr.csv"
if [[ $rc -eq 0 && -z $differ ]]; then
	pass "columns by name: another order, one column more, same figures"
else
	fail "columns by name" "expected exit 0 and identical files, saw $rc and differences in$differ"
fi

# --with: the kernel rows of another directory beside this one's
sfilter "$tmp/uonly" user
run_plot with --out "$tmp/uonly/plots" --with "$tmp/konly" "$tmp/uonly"
if [[ $rc -eq 0 && -s $tmp/uonly/plots/ratio_to_idr.png ]] &&
	[[ $(ratio "$tmp/uonly/plots/ratio_to_idr.csv" "kernel, QEMU TCG" lookup 32768 skiplist) == "$kmed" ]] &&
	grep -qF "with: kernel 6.1.0-fixture-amd64, VM (QEMU TCG)" "$tmp/uonly/plots/ratio_to_idr.svg"; then
	pass "--with DIR: its kernel rows join ratio_to_idr, named"
else
	fail "--with DIR" "exit 0, ratio_to_idr with the kernel ratio $kmed and a 'with:' line, saw $rc: $(head -n 1 "$tmp/with.err")"
fi
expect_error "--with and --compare" --with "$tmp/konly" --compare --out "$tmp/x" "$SFIX" "$SFIX"

# without idr there is nothing to divide by
sfilter "$tmp/noidr" noidr
run_plot noidr --out "$tmp/noidr/plots" "$tmp/noidr"
if [[ $rc -eq 0 && ! -e $tmp/noidr/plots/ratio_to_idr.png ]] && grep -q '^plot.py: skipping ratio_to_idr: no idr rows' "$tmp/noidr.out"; then
	pass "no idr rows: no ratio_to_idr, said so"
else
	fail "no idr rows: no ratio_to_idr" "expected exit 0, no figure and a skipping line, saw $rc, $(listing "$tmp/noidr/plots")"
fi

# --- --help ----------------------------------------------------------------
run_plot help --help
if [[ $rc -eq 0 ]] && grep -q -- '--compare' "$tmp/help.out"; then
	pass "--help"
else
	fail "--help" "expected exit 0 and --compare documented, saw $rc"
fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
