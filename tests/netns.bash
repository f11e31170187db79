# shellcheck shell=bash
# A network namespace of a suite's or benchmark's own, so that nothing
# touches the host's network (tests/integration/network.bats, slirp.bats,
# tests/bench/net.sh, slirp.sh).  Sources netns_mount.bash: the caller
# still notes and restores /run/netns's mount (netns_mount_note,
# netns_mount_restore) around its namespaces.
#
#   netns_add NAME [uplink]  makes NAME, its loopback up; with "uplink"
#       also a veth pair up0/up1 (this kernel has no dummy interfaces),
#       up0 holding the documentation address 192.0.2.1/24 and a default
#       route via 192.0.2.254 (pasta and slirp4netns need one)
#   innet ARG...  ARG... in $NETNS
#   netns_wrap_cell DIR  $CELL (and $CELL_TESTPOINTS, when set) wrapped
#       by DIR/cell (DIR/cell-tp), scripts that nsenter $NETNS and exec
#       the binary (its pid stays the binary's: pause files name it);
#       REAL_CELL keeps the binary, CELL names the wrapper
#   netns_unwrap_cell  $NETNS deleted, CELL the binary again
#   netns_jails_rm CELL STATE  every jail of the state root STATE (as
#       CELL in $NETNS lists them) removed with rm -f
#   netns_end CELL STATE DIR  a benchmark's end, on success or failure:
#       STATE's jails removed, $NETNS deleted, DIR removed, the /run/netns
#       mount taken back if the run made it

# shellcheck source=netns_mount.bash
source "$(dirname "${BASH_SOURCE[0]}")/netns_mount.bash"

netns_add() {
	ip netns add "$1" || return 1
	ip -n "$1" link set lo up || return 1
	[ "${2:-}" = uplink ] || return 0
	ip -n "$1" link add up0 type veth peer name up1 &&
		ip -n "$1" link set up1 up &&
		ip -n "$1" addr add 192.0.2.1/24 dev up0 &&
		ip -n "$1" link set up0 up &&
		ip -n "$1" route add default via 192.0.2.254 dev up0
}

innet() {
	nsenter --net="/run/netns/$NETNS" "$@"
}

# _netns_wrapper BINARY FILE: FILE runs BINARY in $NETNS.
_netns_wrapper() {
	printf '#!/bin/sh\nexec nsenter --net=/run/netns/%s %s "$@"\n' "$NETNS" "$1" >"$2" &&
		chmod +x "$2"
}

netns_wrap_cell() {
	REAL_CELL=$CELL
	_netns_wrapper "$REAL_CELL" "$1/cell" || return 1
	CELL=$1/cell
	if [ -x "${CELL_TESTPOINTS:-}" ]; then
		_netns_wrapper "$CELL_TESTPOINTS" "$1/cell-tp" || return 1
	fi
}

netns_unwrap_cell() {
	ip netns del "$NETNS" 2>/dev/null || true
	CELL=$REAL_CELL
}

netns_jails_rm() {
	local names
	names=$(innet "$1" --root "$2" ls -aq 2>/dev/null)
	[ -z "$names" ] && return 0
	echo "$names" | xargs -r -n 100 nsenter --net="/run/netns/$NETNS" "$1" --root "$2" rm -f \
		>/dev/null 2>&1
}

netns_end() {
	netns_jails_rm "$1" "$2"
	ip netns del "$NETNS" 2>/dev/null
	rm -rf --one-file-system "$3"
	netns_mount_restore
}
