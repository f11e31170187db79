#!/bin/bash
# The start cost of `--net slirp` (issue 17): `cell run -- /bin/true` with
# --net none against --net slirp through pasta and through slirp4netns,
# foreground (the program started, ready, then ended with the jail) and
# detached (started and ready only; `rm -f` timed apart).
# docs/PERFORMANCE.md ("Network", "--net slirp") explains the output.
#
#   tests/bench/slirp.sh [CELL]     (as root)
#
# CELL: the argument, else $CELL, else build/cell.  RUNS (50) and WARMUP
# (5) tune hyperfine.  Everything runs in a network namespace of the
# benchmark's own (cell-bench-slirp-PID) with a veth "uplink" holding
# 192.0.2.1/24 and a default route (pasta and slirp4netns need one), under
# a private --root: the host's network is never touched.  The namespace,
# the jails and the temp dir go on exit, even on failure.  Raw results in
# tests/bench/results/slirp-DATE/, with summary.txt.
set -euo pipefail

CELL=${1:-${CELL:-build/cell}}
RUNS=${RUNS:-50}
WARMUP=${WARMUP:-5}
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "slirp.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (network namespaces)"
for tool in hyperfine jq nsenter ip; do
	command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh bench)"
done
[ -x "$CELL" ] || die "$CELL: no such executable (make build)"
CELL=$(cd "$(dirname "$CELL")" && pwd)/$(basename "$CELL")

ns=cell-bench-slirp-$$
tmp=$(mktemp -d /tmp/cell-bench-slirp.XXXXXX)
state=$tmp/state
res=$here/results/slirp-$(date +%Y%m%dT%H%M%S)
mkdir -p "$state" "$res"

NETNS=$ns
# netns_add, innet, netns_end; the /run/netns mount
# shellcheck source=../netns.bash
source "$(dirname "$0")/../netns.bash"
cell() { innet "$CELL" --root "$state" "$@"; }

cleanup() {
	set +e
	netns_end "$CELL" "$state" "$tmp"
}
netns_mount_note
trap cleanup EXIT

netns_add "$ns" uplink
exec > >(tee "$res/summary.txt") 2>&1

echo "cell: $CELL ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "kernel: $(uname -r), $(nproc) CPUs"
echo "pasta: $(command -v pasta || echo missing), slirp4netns: $(command -v slirp4netns || echo missing)"
echo

run="nsenter --net=/run/netns/$ns $CELL --root $state run"
cmds=(-n none "$run -- /bin/true")
command -v pasta >/dev/null &&
	cmds+=(-n "slirp (pasta)" "$run --net slirp -- /bin/true")
command -v slirp4netns >/dev/null &&
	cmds+=(-n "slirp (slirp4netns)" "env CELL_PASTA=/nonexistent $run --net slirp -- /bin/true")

echo "== foreground: cell run [--net slirp] -- /bin/true"
hyperfine -N -w "$WARMUP" -r "$RUNS" --export-json "$res/start.json" "${cmds[@]}"
echo

# Detached: the start alone (the program lives on); each run's jail is
# removed before the next (hyperfine --prepare), outside the measured time.
echo "== detached: cell run -d [--net slirp] -- sleep 1000"
rmall="sh -c 'nsenter --net=/run/netns/$ns $CELL --root $state ls -aq | xargs -r nsenter --net=/run/netns/$ns $CELL --root $state rm -f >/dev/null'"
dcmds=(-n none "$run -d -- sleep 1000")
command -v pasta >/dev/null &&
	dcmds+=(-n "slirp (pasta)" "$run -d --net slirp -- sleep 1000")
command -v slirp4netns >/dev/null &&
	dcmds+=(-n "slirp (slirp4netns)" "env CELL_PASTA=/nonexistent $run -d --net slirp -- sleep 1000")
hyperfine -N -w "$WARMUP" -r "$RUNS" --prepare "$rmall" --export-json "$res/detached.json" \
	"${dcmds[@]}"
