#!/bin/bash
# The network benchmark (issue 15): what `--net bridge` adds to a jail's
# start against `--net none` and `--net host`, jail-to-jail TCP
# throughput on one bridge against loopback in one namespace (iperf3),
# and how `--net none` jails scale to 1000 (the kernel's network
# namespace creation and cleanup).  docs/PERFORMANCE.md ("Network")
# explains the output.
#
#   tests/bench/net.sh [CELL]     (as root; `make bench-net` runs it)
#
# CELL: the argument, else $CELL, else build/cell (with build/cell-net
# beside it).  RUNS (100) and WARMUP (10) tune hyperfine; BIG (1000) is
# the number of --net none jails; SECS (5) iperf3's run.  Everything runs
# in a network namespace of the benchmark's own (cell-bench-PID), under a
# private --root: the host's network is never touched.  The namespace,
# the jails and the temp dir go on exit, even on failure.  Raw results in
# tests/bench/results/net-DATE/, with summary.txt.
set -euo pipefail

CELL=${1:-${CELL:-build/cell}}
RUNS=${RUNS:-100}
WARMUP=${WARMUP:-10}
BIG=${BIG:-1000}
SECS=${SECS:-5}
here=$(cd "$(dirname "$0")" && pwd)

die() {
	echo "net.sh: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (namespaces, bridges, nftables)"
for tool in hyperfine iperf3 jq nsenter ip; do
	command -v "$tool" >/dev/null || die "$tool is missing (scripts/install-deps.sh bench)"
done
[ -x "$CELL" ] || die "$CELL: no such executable (make build)"
CELL=$(cd "$(dirname "$CELL")" && pwd)/$(basename "$CELL")
[ -x "$(dirname "$CELL")/cell-net" ] || die "no cell-net beside $CELL (make build)"

ns=cell-bench-$$
tmp=$(mktemp -d /tmp/cell-bench-net.XXXXXX)
state=$tmp/state
res=$here/results/net-$(date +%Y%m%dT%H%M%S)
mkdir -p "$state" "$res"

innet() { nsenter --net="/run/netns/$ns" "$@"; }
cell() { innet "$CELL" --root "$state" "$@"; }

cleanup() {
	local names
	set +e
	names=$(cell ls -aq 2>/dev/null)
	[ -n "$names" ] && echo "$names" | xargs -r -n 100 nsenter --net="/run/netns/$ns" \
		"$CELL" --root "$state" rm -f >/dev/null 2>&1
	ip netns del "$ns" 2>/dev/null
	rm -rf --one-file-system "$tmp"
	netns_mount_restore
}
# shellcheck source=../netns_mount.bash
source "$(dirname "$0")/../netns_mount.bash"
netns_mount_note
trap cleanup EXIT

ip netns add "$ns"
ip -n "$ns" link set lo up
exec > >(tee "$res/summary.txt") 2>&1

echo "cell: $CELL ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "kernel: $(uname -r), $(nproc) CPUs"
echo

# --- 1. the start of a foreground jail, by network mode -------------
# A bridge of the benchmark's own, kept up by one detached jail, so that
# each measured start adds a veth to an existing bridge (the common
# case); the first jail of a bridge also makes it (measured apart).
echo "== start: cell run -- /bin/true, by --net"
br=(--net bridge:cellb0 --gateway 192.0.2.1/24)
cell run -d --name keeper "${br[@]}" -- sleep 100000 >/dev/null
hyperfine -N -w "$WARMUP" -r "$RUNS" --export-json "$res/start.json" \
	-n none "nsenter --net=/run/netns/$ns $CELL --root $state run -- /bin/true" \
	-n host "nsenter --net=/run/netns/$ns $CELL --root $state run --net host -- /bin/true" \
	-n bridge "nsenter --net=/run/netns/$ns $CELL --root $state run ${br[*]} -- /bin/true" \
	-n bridge-publish \
	"nsenter --net=/run/netns/$ns $CELL --root $state run ${br[*]} -p 8080:80 -- /bin/true" |
	grep -E "^Benchmark|Time|±"
jq -r '.results[] | "\(.command): mean \(.mean * 1000 | floor) ms, median \(.median * 1000 * 100 | floor / 100) ms"' \
	"$res/start.json"
cell rm -f keeper >/dev/null
echo
echo "== the first jail of a bridge (makes it, its address, the nft table)"
hyperfine -N -w 3 -r 30 --export-json "$res/first.json" \
	-n bridge-first "nsenter --net=/run/netns/$ns $CELL --root $state run --net bridge:cellb1 --gateway 198.51.100.1/24 -- /bin/true" |
	grep -E "Time|±"
echo

# --- 2. jail-to-jail TCP throughput against loopback -------------------
echo "== TCP throughput (iperf3, ${SECS} s): jail to jail on one bridge, and loopback"
cell run -d --name srv "${br[@]}" --ip 192.0.2.10/24 -- iperf3 -s >/dev/null
cell run -d --name lo-srv -- sh -c 'iperf3 -s -D && exec sleep 100000' >/dev/null
# The servers start in the background: the clients retry for a while.
for ((i = 0; i < 50; i++)); do
	cell run "${br[@]}" --ip 192.0.2.11/24 -- iperf3 -c 192.0.2.10 -t "$SECS" -J \
		>"$res/bridge.json" 2>/dev/null && break
	sleep 0.1
done
for ((i = 0; i < 50; i++)); do
	cell exec lo-srv iperf3 -c 127.0.0.1 -t "$SECS" -J >"$res/loopback.json" 2>/dev/null && break
	sleep 0.1
done
b=$(jq '.end.sum_received.bits_per_second' "$res/bridge.json")
l=$(jq '.end.sum_received.bits_per_second' "$res/loopback.json")
awk -v b="$b" -v l="$l" 'BEGIN { printf "bridge %.2f Gbit/s, loopback %.2f Gbit/s: %.0f%% of loopback\n", b / 1e9, l / 1e9, 100 * b / l }'
cell rm -f srv lo-srv >/dev/null
echo

# --- 3. --net none scaling to BIG jails ---------------------------------
# Each detached jail: its own network namespace (copy_net_ns() under the
# kernel's net_rwsem/pernet_ops_rwsem), later torn down by the cleanup_net
# worker after an RCU grace period.  Timed: start of each Nth jail, then
# the removal of all.
echo "== --net none: $BIG detached jails, start and removal"
: >"$res/scale.txt"
t0=$(date +%s.%N)
for ((i = 1; i <= BIG; i++)); do
	s=$(date +%s%N)
	cell run -d --name "j$i" -- sleep 100000 >/dev/null
	e=$(date +%s%N)
	echo "$i $(((e - s) / 1000))" >>"$res/scale.txt"
done
t1=$(date +%s.%N)
awk -v big="$BIG" '{ us[NR] = $2 } END {
	for (k = 1; k <= big; k *= 10) {
		lo = k; hi = (k * 10 > big ? big : k * 10 - 1); n = 0; sum = 0
		for (i = lo; i <= hi; i++) { sum += us[i]; n++ }
		printf "jails %4d-%4d: start %.1f ms each\n", lo, hi, sum / n / 1000
	}
}' "$res/scale.txt"
awk -v a="$t0" -v b="$t1" -v n="$BIG" 'BEGIN { printf "all %d started in %.1f s\n", n, b - a }'
grep -E "^(Slab|SUnreclaim)" /proc/meminfo | tr -s ' ' | tr '\n' ' '
echo
t0=$(date +%s.%N)
cell ls -aq | xargs -r -n 100 nsenter --net="/run/netns/$ns" "$CELL" --root "$state" rm -f >/dev/null
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v n="$BIG" 'BEGIN { printf "all %d removed in %.1f s\n", n, b - a }'
echo "raw results: $res"
