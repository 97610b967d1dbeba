#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# recipe.sh: runs, in the guest, the lines of README.md's manual recipe that
# belong inside the running kernel (insmod, the debugfs writes and reads,
# rmmod), exactly as written, one `sh -c` each, from /pidx/recipe.txt.  The
# guest is root and has no sudo, so a sudo that runs its arguments stands in
# for it.  Prints "PASS recipe: LINE" or "FAIL recipe: LINE: why" per line
# and copies what the recipe wrote under /tmp/pidx-run to /out.

mkdir -p /tmp/bin
printf '#!/bin/sh\nexec "$@"\n' >/tmp/bin/sudo
chmod 755 /tmp/bin/sudo
PATH=/tmp/bin:$PATH
export PATH
cd "${PIDX_DIR:-/pidx}" || exit 1

n=0
bad=0
while IFS= read -r line; do
	n=$((n + 1))
	if sh -c "$line" >"/out/recipe-$n.out" 2>&1; then
		echo "PASS recipe: $line"
	else
		echo "FAIL recipe: $line: exit $?, $(tail -n 2 "/out/recipe-$n.out" | tr '\n' ' ')"
		bad=1
	fi
done <recipe.txt
[ -d /tmp/pidx-run ] && cp -r /tmp/pidx-run /out/
echo "GUEST-SUMMARY $n lines, $bad failed"
exit "$bad"
