#!/bin/bash
# What cell-net's commands cost: setup and teardown of a bridged jail's
# network in each of their cases (no nftables work; a bridge whose rules
# are there; a batch of published ports; the first jail on a new bridge,
# which makes the bridge and its rules), stats, and --help (the exec
# alone).  For docs/PERFORMANCE.md's bridged start.
#
#   tests/bench/cell-net.sh [CELL-NET [OLD]]     (as root)
#
# CELL-NET: the argument, else $CELL_NET, else build/cell-net.  OLD (the
# second argument, else $OLD): another build's cell-net, each row of
# which runs beside CELL-NET's in the same hyperfine run.  RUNS (30)
# and WARMUP (3) tune hyperfine.  Everything runs in a network namespace
# of its own (unshare --net) with named namespaces for the "jails",
# removed on exit: the host's network is never touched.
set -euo pipefail

CN=$(realpath "${1:-${CELL_NET:-build/cell-net}}")
OLD=${2:-${OLD:-}}
[ -z "$OLD" ] || OLD=$(realpath "$OLD")
RUNS=${RUNS:-30}
WARMUP=${WARMUP:-3}

if [ "${CELL_NET_BENCH_INNER:-}" != 1 ]; then
	# shellcheck disable=SC2086 # no OLD: no argument
	exec env CELL_NET_BENCH_INNER=1 RUNS="$RUNS" WARMUP="$WARMUP" unshare --net "$0" "$CN" $OLD
fi

J1=cell-net-bench-$$-1
J2=cell-net-bench-$$-2
ip link set lo up
ip netns add "$J1"
ip netns add "$J2"
# S BIN, T BIN: the setup and teardown of the measured jail.
S() { echo "$1 setup --key b-1 --netns /run/netns/$J1 --gateway 192.0.2.1/24 --addr 192.0.2.2/24"; }
T() { echo "$1 teardown --key b-1"; }
cleanup() {
	$(T "$CN") --bridge cell0 || true
	$(T "$CN") --bridge cell1 || true
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
# rows KIND: the hyperfine rows of KIND (setup, teardown, other), for
# OLD (named "old ...") then CELL-NET.
rows() {
	local bin name s t
	for bin in $OLD "$CN"; do
		name=""
		[ "$bin" = "$OLD" ] && name="old "
		s=$(S "$bin") t=$(T "$bin")
		case $1 in
		setup)
			echo -n "$name""setup, no nftables"; echo -e "\t$t --bridge cell0\t$s --bridge cell0"
			echo -n "$name""setup --nat, the bridge's rules there"; echo -e "\t$t --bridge cell0\t$s --bridge cell0 --nat"
			echo -n "$name""setup --nat --publish (a batch)"; echo -e "\t$t --bridge cell0\t$s --bridge cell0 --nat --publish tcp::8080:80"
			echo -n "$name""setup --nat, first jail on a new bridge"; echo -e "\t$t --bridge cell1\t$s --bridge cell1 --nat"
			;;
		teardown)
			# The jail's namespace stays alive: the veth is deleted by
			# cell-net (a gone jail's goes with its namespace).
			echo -n "$name""teardown, the bridge stays"; echo -e "\t$s --bridge cell0 --nat\t$t --bridge cell0"
			echo -n "$name""teardown with published ports"; echo -e "\t$s --bridge cell0 --nat --publish tcp::8080:80\t$t --bridge cell0"
			echo -n "$name""teardown, last jail on its bridge"; echo -e "\t$s --bridge cell1 --nat\t$t --bridge cell1"
			;;
		esac
	done
}
# hf_rows KIND: hyperfine over KIND's rows (name, prepare, command).
hf_rows() {
	local args=() name prep cmd
	while IFS=$'\t' read -r name prep cmd; do
		args+=(--prepare "$prep" -n "$name" "$cmd")
	done < <(rows "$1")
	hf "${args[@]}"
}
hf_rows setup
$(T "$CN") --bridge cell0
$(T "$CN") --bridge cell1
hf_rows teardown
args=()
for bin in $OLD "$CN"; do
	name=""
	[ "$bin" = "$OLD" ] && name="old "
	args+=(-n "$name""stats" "$bin stats --netns /run/netns/$J2"
		-n "$name""help (the exec alone)" "$bin --help")
done
hf "${args[@]}"
