# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# docs.sh: the checks that the documents say what the data and the code do,
# sourced by tests/run-all.sh (its pass, fail, boot, REPO, SRC, WORK, KDIR,
# REL).
#   docs_drift_tests   every committed REPORT.md and the README's generated
#                      blocks equal what scripts/report.py writes now, and a
#                      hand-edited number is caught
#   docs_recipe_tests  README.md's manual recipe, taken from its text and run
#                      line by line where each belongs: make and plot.py on
#                      the host, the rest in the stock kernel under QEMU

docs_drift_tests() {
	section "documents against their data: scripts/report.py --check"
	local d=$WORK/drift out ref
	if /usr/bin/python3 "$REPO/scripts/report.py" --check >"$WORK/drift.log" 2>&1; then
		pass "every REPORT.md and generated block equals its data ($(tail -n 1 "$WORK/drift.log" | sed 's/^report.py: //'))"
	else
		fail "documents drifted from their data" "no difference, saw: $(head -n 12 "$WORK/drift.log" | tr '\n' ' ' | cut -c1-400)"
	fi
	# the check must be able to fail: a hand-edited number in a copy
	mkdir -p "$d"
	cp -a "$REPO/results" "$REPO/README.md" "$REPO/scripts" "$d/"
	ref=$(sed -n 's/^<!-- pidx-report:begin \(\S*\) -->$/\1/p' "$REPO/README.md" | head -n 1)
	if [ -z "$ref" ] || [ ! -s "$d/$ref/REPORT.md" ]; then
		fail "drift control" "README.md names a results directory with a REPORT.md, saw '$ref'"
		return
	fi
	# the first ratio in brackets of the first table row that has one
	sed -i '0,/\[[0-9][0-9.]*-/s/\[\([0-9]\)/[9\1/' "$d/$ref/REPORT.md"
	if cmp -s "$REPO/$ref/REPORT.md" "$d/$ref/REPORT.md"; then
		fail "drift control" "an edited copy of $ref/REPORT.md, saw no change made"
	elif out=$(/usr/bin/python3 "$d/scripts/report.py" --check --repo "$d" 2>&1); then
		fail "drift control" "--check fails on a hand-edited number, saw it pass: $(echo "$out" | tail -n 1)"
	elif echo "$out" | grep -q "^-.*\[9"; then
		pass "drift control: a hand-edited number in $ref/REPORT.md fails --check, with its diff"
	else
		fail "drift control" "the edited line in --check's diff, saw: $(echo "$out" | head -n 5 | tr '\n' ' ')"
	fi
}

docs_recipe_tests() {
	section "README.md's manual recipe, as written"
	local r=$WORK/recipe line host=() guest=() n=0 plot=
	mkdir -p "$r/out"
	while IFS= read -r line; do
		case $line in
		make | make\ *) host+=("$line") ;;
		*scripts/plot.py*) plot=$line ;;
		*) guest+=("$line") ;;
		esac
		n=$((n + 1))
	done < <(awk '/^<!-- pidx-recipe -->$/ { on = 1; next }
		on && /^```sh$/ { inb = 1; next }
		inb && /^```$/ { exit }
		inb && NF { print }' "$REPO/README.md")
	if [ "$n" -lt 4 ] || [ ${#host[@]} = 0 ] || [ -z "$plot" ] || [ ${#guest[@]} = 0 ]; then
		fail "readme recipe" "a <!-- pidx-recipe --> block with make, guest and plot lines, saw $n lines"
		return
	fi
	cp -a "$SRC" "$r/src"
	make -C "$r/src" clean >/dev/null 2>&1
	for line in "${host[@]}"; do
		# the host's make, against the guest kernel's headers
		# as written, on every CPU (a user's make takes MAKEFLAGS too)
		if (cd "$r/src" && KDIR=$KDIR MAKEFLAGS="-j$(nproc)" bash -c "$line") >"$r/make.log" 2>&1 &&
			[ -s "$r/src/pidx.ko" ]; then
			pass "recipe on the host: $line (KDIR of $REL)"
		else
			fail "recipe on the host: $line" "pidx.ko built, saw: $(tail -n 3 "$r/make.log" | tr '\n' ' ')"
			return
		fi
	done
	printf '%s\n' "${guest[@]}" >"$r/recipe.txt"
	boot recipe "$r/out" --smp 2 --timeout 900 --ko "$r/src/pidx.ko" --release "$REL" \
		--file "$r/recipe.txt" "$REPO/tests/guest/recipe.sh"
	count_lines "" "$r/out/console.log"
	if [ ! -s "$r/out/pidx-run/results.csv" ]; then
		fail "recipe in the guest" "the recipe's /tmp/pidx-run/results.csv back on the host, saw none"
		return
	fi
	# the plot line on the host, on what the guest wrote
	line=${plot//\/tmp\/pidx-run/$r/out/pidx-run}
	if (cd "$r/src" && bash -c "$line") >"$r/plot.log" 2>&1 &&
		[ -s "$r/out/pidx-run/plots/latency.png" ] && [ -s "$r/out/pidx-run/plots/memory.png" ]; then
		pass "recipe on the host: $plot (on the guest's results.csv)"
	else
		fail "recipe on the host: $plot" "latency.png and memory.png from one run's results (one keys size, so no nsop_vs_keys), saw: $(find "$r/out/pidx-run/plots" -name '*.png' -printf '%f ' 2>/dev/null) $(tail -n 3 "$r/plot.log" | tr '\n' ' ')"
	fi
}
