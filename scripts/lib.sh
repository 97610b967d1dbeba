# shellcheck shell=bash
# Shared shell helpers for pidx scripts: messages, root check, Debian package prerequisites.
# Source it from a bash script (set -euo pipefail friendly); set PIDX_PROG first to name
# the script in messages.  Nothing here has side effects at source time.

: "${PIDX_PROG:=${0##*/}}"

# Messages go to stderr so that stdout stays the script's real output (console, tables).
info() { printf '%s: %s\n' "$PIDX_PROG" "$*" >&2; }
warn() { printf '%s: warning: %s\n' "$PIDX_PROG" "$*" >&2; }
# die [-c CODE] MESSAGE...: print and exit (1 unless -c is given).
die() {
	local code=1
	if [ "${1:-}" = -c ]; then code=$2; shift 2; fi
	printf '%s: error: %s\n' "$PIDX_PROG" "$*" >&2
	exit "$code"
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# The lib/ helpers that pidx calls on its own data (find_next_bit() and its family,
# bitmap_weight() and the like), as an extended regex on the function name: KCSAN's
# report whitelist in the guest takes them beside pidx's functions, and vm-run.sh counts
# a report in one when pidx called it (--kcsan-library).  The one list, for run-all.sh
# and tests/test-runner.sh.
# shellcheck disable=SC2034 # read by the scripts that source this file
PIDX_KCSAN_LIBRARY='^(_find_(first|next|last)_|__bitmap_)'

# pkg_installed PKG: true when dpkg knows PKG as installed (false on non-Debian systems).
pkg_installed() {
	command -v dpkg-query >/dev/null 2>&1 || return 1
	[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

# ensure_pkgs PKG...: install the Debian packages among PKG that are missing.  As root this
# runs apt-get (update first: a fresh CI image has empty package lists); otherwise it prints
# the one command to run and exits 2, because a half-set-up run helps nobody.
ensure_pkgs() {
	local p missing=()
	for p in "$@"; do
		pkg_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	local cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
	if ! command -v apt-get >/dev/null 2>&1; then
		die -c 2 "missing packages: ${missing[*]} (no apt-get here: install their equivalents)"
	fi
	if ! is_root; then
		info "missing packages: ${missing[*]}; run as root:"
		printf '  sudo sh -c "%s"\n' "$cmd" >&2
		exit 2
	fi
	info "installing ${missing[*]}"
	# Noninteractive: CI has no terminal, and a debconf prompt would hang the run.
	DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 ||
		die -c 2 "apt-get update failed"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 ||
		die -c 2 "apt-get install ${missing[*]} failed"
}

# need_cmds CMD:PKG...: make sure each command exists, installing its package if not.
# Checking commands (not packages) first keeps non-Debian hosts with the tools working.
need_cmds() {
	local spec pkgs=()
	for spec in "$@"; do
		command -v "${spec%%:*}" >/dev/null 2>&1 || pkgs+=("${spec#*:}")
	done
	[ ${#pkgs[@]} -eq 0 ] && return 0
	ensure_pkgs "${pkgs[@]}"
	for spec in "$@"; do
		command -v "${spec%%:*}" >/dev/null 2>&1 ||
			die -c 2 "${spec%%:*} still missing after installing ${spec#*:}"
	done
}
