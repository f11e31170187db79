#!/bin/bash
# What cell-net's commands cost: setup and teardown of a bridged jail's
# network in each of their cases (no nftables work; a bridge whose rules
# are there; a batch of published ports; the first jail on a new bridge,
# which makes the bridge and its rules), stats, and --help (the dynamic
# loader alone).  For docs/PERFORMANCE.md's bridged start.
#
#   tests/bench/cell-net.sh [CELL-NET]     (as root)
#
# CELL-NET: the argument, else $CELL_NET, else build/cell-net.  RUNS (30)
# and WARMUP (3) tune hyperfine.  Everything runs in a network namespace
# of its own (unshare --net) with named namespaces for the "jails",
# removed on exit: the host's network is never touched.
set -euo pipefail

CN=$(realpath "${1:-${CELL_NET:-build/cell-net}}")
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}

if [ "${CELL_NET_BENCH_INNER:-}" != 1 ]; then
	exec env CELL_NET_BENCH_INNER=1 RUNS="$RUNS" WARMUP="$WARMUP" unshare --net "$0" "$CN"
fi

J1=cell-net-bench-$$-1
J2=cell-net-bench-$$-2
ip link set lo up
ip netns add "$J1"
ip netns add "$J2"
S="$CN setup --key b-1 --netns /run/netns/$J1 --gateway 192.0.2.1/24 --addr 192.0.2.2/24"
T="$CN teardown --key b-1"
cleanup() {
	$T --bridge cell0 || true
	$T --bridge cell1 || true
	"$CN" teardown --key keep --bridge cell0 || true
	ip netns del "$J1" || true
	ip netns del "$J2" || true
	netns_mount_restore
}
# shellcheck source=../netns_mount.bash
source "$(dirname "$0")/../netns_mount.bash"
netns_mount_note
trap cleanup EXIT

# A second jail keeps bridge cell0 and its rules: the steady state of a
# host with jails.
"$CN" setup --key keep --netns "/run/netns/$J2" --bridge cell0 --gateway 192.0.2.1/24 \
	--addr 192.0.2.3/24 --nat >/dev/null
hf() {
	hyperfine -N -w "$WARMUP" -r "$RUNS" "$@"
}
hf --prepare "$T --bridge cell0" -n "setup, no nftables" "$S --bridge cell0" \
	--prepare "$T --bridge cell0" -n "setup --nat, the bridge's rules there" "$S --bridge cell0 --nat" \
	--prepare "$T --bridge cell0" -n "setup --nat --publish (a batch)" \
	"$S --bridge cell0 --nat --publish tcp::8080:80" \
	--prepare "$T --bridge cell1" -n "setup --nat, first jail on a new bridge" "$S --bridge cell1 --nat"
$T --bridge cell0
$T --bridge cell1
# Teardown with the jail's namespace alive: the veth is deleted by
# cell-net (normally it goes with the namespace, in the background).
hf --prepare "$S --bridge cell0 --nat" -n "teardown, the bridge stays" "$T --bridge cell0" \
	--prepare "$S --bridge cell0 --nat --publish tcp::8080:80" -n "teardown with published ports" \
	"$T --bridge cell0" \
	--prepare "$S --bridge cell1 --nat" -n "teardown, last jail on its bridge" "$T --bridge cell1"
hf -n "stats" "$CN stats --netns /run/netns/$J2" -n "help (the loader alone)" "$CN --help"
