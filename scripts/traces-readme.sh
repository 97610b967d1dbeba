#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# traces-readme.sh: writes results/traces/README.md from the committed traces
# (results/traces/*.trace.xz): each one's command line, date, kernel and
# counts, taken from its header and from scripts/check-trace.py, so that
# nothing in it is typed by hand.  The preparation of each trace's working
# directory, which no header records, is in PREP below.  Run it after
# adding a trace.
#
# Usage: scripts/traces-readme.sh [DIR]     (default: results/traces)
set -euo pipefail

SELF_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SELF_DIR/.." && pwd)
DIR=${1:-$REPO/results/traces}

# what was done before each recording, in the directory its header names
declare -A PREP=(
	[make-j2-user.trace.xz]='cp -a REPOSITORY /tmp/trace-build && cd /tmp/trace-build && make -C user clean'
	[test-runner.trace.xz]='the same scratch copy, after the build above'
)

# hdr FILE NAME: the value of the header line "# NAME: VALUE"
hdr() { xz -dc "$1" | sed -n "s/^# $2: //p" | head -n 1; }

{
	cat <<'EOF'
# PID traces

Real workloads' PID events, recorded with `scripts/record-trace.sh` in the
format of [docs/traces.md](../../docs/traces.md) and checked with
`scripts/check-trace.py`.  Written by `scripts/traces-readme.sh` from the
traces' headers and the checker's counts.
EOF
	for f in "$DIR"/*.trace.xz; do
		[ -e "$f" ] || continue
		name=${f##*/}
		cmd=$(hdr "$f" command)
		rec=$(hdr "$f" recorder)
		rows=$("$REPO/scripts/check-trace.py" "$f" |
			sed 's/^\([^:]*\): \(.*\)$/| check-trace.py: \1 | \2 |/')
		cat <<EOF

## $name

Recorded, as root, with:

\`\`\`sh
${PREP[$name]:+# ${PREP[$name]}
}cd $(hdr "$f" directory) && $rec -o $name -- $cmd
\`\`\`

| | |
|---|---|
| date | $(hdr "$f" date) |
| kernel | $(hdr "$f" kernel), $(hdr "$f" cpus) CPUs |
| scope | $(hdr "$f" scope) |
| size | $(stat -c %s "$f") bytes xz-compressed, $(xz -dc "$f" | wc -c) bytes |
| events recorded | $(hdr "$f" 'events recorded') |
| events dropped | $(hdr "$f" 'events dropped') |
| wait events of any child left out | $(hdr "$f" 'wait events of any child left out') |
| exits without a recorded free | $(hdr "$f" 'exits without a recorded free') |
| command exit status | $(hdr "$f" 'command exit status') |
$rows
EOF
	done
} >"$DIR/README.md"
echo "traces-readme: wrote $DIR/README.md" >&2
