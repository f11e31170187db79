#!/bin/bash
# The network benchmark (issue 15): what `--net bridge` adds to a jail's
# start against `--net none` and `--net host`, jail-to-jail TCP
# throughput on one bridge (at the default MTU 1500, and on a bridge of
# its own at `--mtu 65520`) against loopback in one namespace (iperf3),
# and how `--net none` jails scale to 1000 (the kernel's network
# namespace creation and cleanup).  docs/PERFORMANCE.md ("Network")
# explains the output.
#
#   tests/bench/net.sh [CELL [OLD]]   (as root; `make bench-net` runs it)
#
# CELL: the argument, else $CELL, else build/cell (with build/cell-net
# beside it).  OLD (the second argument, else $OLD): another build's
# cell, with its cell-net beside it (e.g. main's, built in a scratch
# dir), measured side by side with CELL in the same hyperfine runs and
# in alternate iperf3 rounds.  RUNS (100) and WARMUP (10) tune
# hyperfine; BIG (1000) is the number of --net none jails (0: none);
# SECS (5) iperf3's run, ROUNDS (3) its rounds (the median is kept).  Everything runs
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
ROUNDS=${ROUNDS:-3}
OLD=${2:-${OLD:-}}
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
if [ -n "$OLD" ]; then
	if [ ! -x "$OLD" ] || [ ! -x "$(dirname "$OLD")/cell-net" ]; then
		die "$OLD: no cell with cell-net beside it"
	fi
	OLD=$(cd "$(dirname "$OLD")" && pwd)/$(basename "$OLD")
fi

ns=cell-bench-$$
tmp=$(mktemp -d /tmp/cell-bench-net.XXXXXX)
state=$tmp/state
ostate=$tmp/old-state
res=$here/results/net-$(date +%Y%m%dT%H%M%S)
mkdir -p "$state" "$ostate" "$res"

NETNS=$ns
# netns_add, innet, netns_end; the /run/netns mount
# shellcheck source=../netns.bash
source "$(dirname "$0")/../netns.bash"
cell() { innet "$CELL" --root "$state" "$@"; }

cleanup() {
	set +e
	[ -n "$OLD" ] && innet "$OLD" --root "$ostate" rm -f keeper srv cli >/dev/null 2>&1
	netns_end "$CELL" "$state" "$tmp"
}
netns_mount_note
trap cleanup EXIT

netns_add "$ns"
exec > >(tee "$res/summary.txt") 2>&1

echo "cell: $CELL ($(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?'))"
echo "kernel: $(uname -r), $(nproc) CPUs"
echo

# --- 1. the start of a jail, by network mode ---------------------------
# A bridge of the benchmark's own, kept up by one detached jail, so that
# each measured start adds a veth to an existing bridge (the common
# case); the first jail of a bridge also makes it (measured apart).
# Foreground runs pay cell-net's setup and teardown; detached ones
# (run -d, the jail removed before the next run by hyperfine's
# --prepare) its setup alone.  With OLD, each row twice, OLD's first.
echo "== start: cell run -- /bin/true, by --net (foreground), and run -d"
br=(--net bridge:cellb0 --gateway 192.0.2.1/24)
# shellcheck disable=SC2016 # the script's own arguments
printf '#!/bin/sh\n"$1" --root "$2" rm -f x >/dev/null 2>&1\nexit 0\n' >"$tmp/rmx"
chmod +x "$tmp/rmx"
rows=()
for build in ${OLD:+old} new; do
	c=$CELL st=$state
	[ "$build" = old ] && c=$OLD st=$ostate
	innet "$c" --root "$st" run -d --name keeper "${br[@]}" -- sleep 100000 >/dev/null
	run="nsenter --net=/run/netns/$ns $c --root $st run"
	# hyperfine wants a --prepare for every command or for none.
	prep=(--prepare "nsenter --net=/run/netns/$ns $tmp/rmx $c $st")
	rows+=(-n "$build none" "${prep[@]}" "$run -- /bin/true"
		-n "$build host" "${prep[@]}" "$run --net host -- /bin/true"
		-n "$build bridge" "${prep[@]}" "$run ${br[*]} -- /bin/true"
		-n "$build bridge-publish" "${prep[@]}" "$run ${br[*]} -p 8080:80 -- /bin/true"
		-n "$build none -d" "${prep[@]}" "$run -d --name x -- sleep 100000"
		-n "$build bridge -d" "${prep[@]}" "$run -d --name x ${br[*]} -- sleep 100000")
done
hyperfine -N -w "$WARMUP" -r "$RUNS" --export-json "$res/start.json" "${rows[@]}" |
	grep -E "^Benchmark|Time|±"
jq -r '.results[] | "\(.command): mean \(.mean * 1000 * 10 | floor / 10) ms, median \(.median * 1000 * 10 | floor / 10) ms, cpu (user+sys) \((.user + .system) * 1000 * 10 | floor / 10) ms"' \
	"$res/start.json"
innet "$CELL" --root "$state" rm -f keeper x >/dev/null 2>&1 || true
[ -n "$OLD" ] && { innet "$OLD" --root "$ostate" rm -f keeper x >/dev/null 2>&1 || true; }
echo
echo "== the first jail of a bridge (makes it, its address, the nft table)"
rows=()
for build in ${OLD:+old} new; do
	c=$CELL st=$state
	[ "$build" = old ] && c=$OLD st=$ostate
	rows+=(-n "$build bridge-first" "nsenter --net=/run/netns/$ns $c --root $st run --net bridge:cellb1 --gateway 198.51.100.1/24 -- /bin/true")
done
hyperfine -N -w 3 -r 30 --export-json "$res/first.json" "${rows[@]}" | grep -E "^Benchmark|Time|±"
echo

# --- 2. jail-to-jail TCP throughput against loopback -------------------
# ROUNDS rounds, each: loopback in one jail's namespace, then bridge for
# each build (OLD's jails on a bridge of their own), then CELL's jails on
# a new bridge of their own at --mtu 65520 (the loopback's is 65536; at
# the default 1500 TCP pays per 1.5 KB frame); the medians.
echo "== TCP throughput (iperf3, ${SECS} s, median of $ROUNDS): jail to jail on one bridge (MTU 1500, and a new bridge at --mtu 65520), and loopback"
cell run -d --name lo-srv -- sh -c 'iperf3 -s -D && exec sleep 100000' >/dev/null
for build in ${OLD:+old} new mtu; do
	c=$CELL st=$state b=cellb0 n=192.0.2 mtu=() sfx=
	[ "$build" = old ] && c=$OLD st=$ostate b=cellb2 n=203.0.113
	[ "$build" = mtu ] && b=cellb3 n=198.51.100 mtu=(--mtu 65520) sfx=-mtu
	innet "$c" --root "$st" run -d --name "srv$sfx" --net "bridge:$b" --gateway "$n.1/24" \
		--ip "$n.10/24" "${mtu[@]}" -- iperf3 -s >/dev/null
	innet "$c" --root "$st" run -d --name "cli$sfx" --net "bridge:$b" --gateway "$n.1/24" \
		--ip "$n.11/24" "${mtu[@]}" -- sleep 100000 >/dev/null
done
# iperf3 SERVER FROM-CELL FROM-STATE FROM-JAIL: Gbit/s, retried while the
# server starts.
iperf() {
	local i out
	for ((i = 0; i < 50; i++)); do
		out=$(innet "$2" --root "$3" exec "$4" iperf3 -c "$1" -t "$SECS" -J 2>/dev/null) &&
			{ jq '.end.sum_received.bits_per_second / 1e9' <<<"$out"; return; }
		sleep 0.1
	done
	echo 0
}
: >"$res/throughput.txt"
for ((r = 1; r <= ROUNDS; r++)); do
	echo "loopback $(iperf 127.0.0.1 "$CELL" "$state" lo-srv)" >>"$res/throughput.txt"
	[ -n "$OLD" ] && echo "old $(iperf 203.0.113.10 "$OLD" "$ostate" cli)" >>"$res/throughput.txt"
	echo "new $(iperf 192.0.2.10 "$CELL" "$state" cli)" >>"$res/throughput.txt"
	echo "mtu $(iperf 198.51.100.10 "$CELL" "$state" cli-mtu)" >>"$res/throughput.txt"
done
# median KIND: the median of KIND's rounds.
median() {
	awk -v k="$1" '$1 == k { print $2 }' "$res/throughput.txt" | sort -g |
		awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : 0 }'
}
lo=$(median loopback)
for build in loopback ${OLD:+old} new mtu; do
	m=$(median "$build")
	echo "$build: $(awk -v k="$build" '$1 == k { printf "%.2f ", $2 }' "$res/throughput.txt")Gbit/s, median $m"
	case $build in
	loopback) continue ;;
	mtu) what="new bridge mtu 65520" ;;
	*) what="$build bridge mtu 1500" ;;
	esac
	awk -v b="$m" -v l="$lo" -v k="$what" 'BEGIN { printf "%s: %.0f%% of loopback\n", k, 100 * b / l }'
done
cell rm -f srv cli srv-mtu cli-mtu lo-srv >/dev/null
[ -n "$OLD" ] && innet "$OLD" --root "$ostate" rm -f srv cli >/dev/null
echo

# --- 3. --net none scaling to BIG jails ---------------------------------
# Each detached jail: its own network namespace (copy_net_ns() under the
# kernel's net_rwsem/pernet_ops_rwsem), later torn down by the cleanup_net
# worker after an RCU grace period.  Timed: start of each Nth jail, then
# the removal of all.
[ "$BIG" -gt 0 ] || { echo "raw results: $res"; exit 0; }
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
