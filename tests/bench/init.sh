#!/bin/bash
# The cost of cell's reaper per detached jail: N (200) jails started with
# it (the default of run -d) and N with --no-init, side by side: the time
# of each `cell run -d` (median, mean, p95), the Pss of each jail's pid 1
# and of the whole jail (pid 1 and its payload) seen from the host, and
# the time `cell stop -t 2` takes for ten of them (a payload that does
# not catch SIGTERM, as sleep: without the reaper it waits the timeout).  docs/PERFORMANCE.md ("The reaper's cost")
# explains the output.
#
#   tests/bench/init.sh [CELL]     (as root)
#
# CELL is the binary to measure: the argument, else $CELL, else
# build/cell.  OLD=BINARY adds a third row: that cell's plain run -d (a
# cell of before the reaper was the default: its command is pid 1).  The jails' output is a pipe (read by one cat), so that
# their reaper keeps a log, as a service's does.  Every jail runs under a
# private --root in a temp dir, removed on exit, even on failure.
set -euo pipefail

CELL=${1:-${CELL:-build/cell}}
N=${N:-200}

die() {
	echo "init.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root"
[ -x "$CELL" ] || die "$CELL: no such executable (make build)"
CELL=$(cd "$(dirname "$CELL")" && pwd)/$(basename "$CELL")
tmp=$(mktemp -d /tmp/cell-bench-init.XXXXXX)
sink_pid=

cleanup() {
	local root
	set +e
	for root in "$tmp"/root-*; do
		[ -d "$root" ] || continue
		"$CELL" --root "$root" ls -aq 2>/dev/null |
			xargs -r -n 100 "$CELL" --root "$root" rm -f >/dev/null 2>&1
	done
	exec 6>&- 2>/dev/null
	[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# One reader for every jail's output: their stdout and stderr a pipe.
mkfifo "$tmp/sink"
cat "$tmp/sink" >/dev/null &
sink_pid=$!
exec 6>"$tmp/sink"

# stats FILE: median, mean and p95 of the numbers in FILE (one a line).
stats() {
	sort -n "$1" | awk '{ v[NR] = $1; s += $1 }
		END { printf "median %.2f  mean %.2f  p95 %.2f", v[int((NR + 1) / 2)], s / NR, v[int(NR * 0.95)] }'
}

# pss PID...: the Pss of each PID in kB (smaps_rollup), one a line.
pss() {
	local p
	for p in "$@"; do
		awk '/^Pss:/ { print $2 }' "/proc/$p/smaps_rollup"
	done
}

# bench MODE BINARY [FLAG]: N jails of BINARY under root-MODE, measured.
bench() {
	local mode=$1 bin=$2 root=$tmp/root-$1 i t0 t1 pid child
	shift 2
	mkdir -p "$root"
	: >"$tmp/$mode.start"
	for ((i = 1; i <= N; i++)); do
		t0=$EPOCHREALTIME
		"$bin" --root "$root" run -d --name "j$i" "$@" -- sleep 100000 >&6 2>&6
		t1=$EPOCHREALTIME
		echo "($t1 - $t0) * 1000" | bc -l >>"$tmp/$mode.start"
	done
	: >"$tmp/$mode.pid1"
	: >"$tmp/$mode.jail"
	for pid in $("$bin" --root "$root" ls --json | jq -r '.[].pid'); do
		pss "$pid" >>"$tmp/$mode.pid1"
		child=$(cat "/proc/$pid/task/$pid/children")
		# shellcheck disable=SC2086 # the children, one word each
		pss "$pid" $child | awk '{ s += $1 } END { print s }' >>"$tmp/$mode.jail"
	done
	t0=$EPOCHREALTIME
	for ((i = 1; i <= 10 && i <= N; i++)); do
		"$bin" --root "$root" stop -t 2 "j$i" >/dev/null
	done
	t1=$EPOCHREALTIME
	printf '%-9s run -d (ms): %s\n' "$mode" "$(stats "$tmp/$mode.start")"
	printf '%-9s Pss of pid 1 (kB): %s\n' "$mode" "$(stats "$tmp/$mode.pid1")"
	printf '%-9s Pss of the jail, pid 1 + payload (kB): %s\n' "$mode" "$(stats "$tmp/$mode.jail")"
	printf '%-9s stop -t 2, per jail (ms): %.1f\n' "$mode" \
		"$(echo "($t1 - $t0) * 1000 / ($i - 1)" | bc -l)"
	"$bin" --root "$root" ls -aq | xargs -r -n 100 "$bin" --root "$root" rm -f >/dev/null
}

echo "cell: $CELL, $N jails each, $(nproc) CPUs, $(uname -r)"
bench init "$CELL"
bench no-init "$CELL" --no-init
if [ -n "${OLD:-}" ]; then
	bench old "$OLD"
fi
