#!/usr/bin/env bats
# cell-net, the network helper of --net bridge jails (src/net/,
# docs/cell-net.8), driven directly as the engine drives it.
#
# Never in the host's network: every test makes its own network
# namespace ($OUTER, where cell-net runs and the bridges live) and the
# "jails'" namespaces ($J1, $J2: named namespaces, as a jail's
# /proc/PID/ns/net would be), and deletes them all in teardown, which
# takes everything made in them along.  Addresses come from the
# documentation ranges only.

bats_require_minimum_version 1.5.0

CELL=${CELL:-$BATS_TEST_DIRNAME/../../build/cell}
CELL_NET=${CELL_NET:-${CELL%/*}/cell-net}

# shellcheck source=../netns_mount.bash
source "$BATS_TEST_DIRNAME/../netns_mount.bash"
setup_file() { netns_mount_note; }
teardown_file() { netns_mount_restore; }

setup() {
	local base="cell-test-$$-$BATS_TEST_NUMBER"
	OUTER=$base-o
	J1=$base-j1
	J2=$base-j2
	NETNS=("$OUTER" "$J1" "$J2")
	BG_PIDS=()
	for ns in "${NETNS[@]}"; do
		ip netns add "$ns"
	done
	# Loopback up in each, as a jail's and a host's is.
	for ns in "${NETNS[@]}"; do
		ip -n "$ns" link set lo up
	done
	WORK=$(mktemp -d /tmp/cell-net-test.XXXXXX)
}

teardown() {
	local pid ns
	for pid in "${BG_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	for ns in "${NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf "$WORK"
}

# outer CMD...: CMD in the test's outer namespace.
outer() {
	nsenter --net="/run/netns/$OUTER" "$@"
}

# injail NS CMD...: CMD in the namespace NS of a "jail".
injail() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" "$@"
}

# cn ARG...: cell-net in the outer namespace.
cn() {
	outer "$CELL_NET" "$@"
}

# fnv PREFIX TEXT: PREFIX + FNV-1a-32 of TEXT in 8 hex digits.
fnv() {
	local s=$2 h=2166136261 i c
	for ((i = 0; i < ${#s}; i++)); do
		printf -v c '%d' "'${s:i:1}"
		h=$(((h ^ c) * 16777619 & 0xffffffff))
	done
	printf '%s%08x' "$1" "$h"
}

# The host end of KEY's veth.
host_if() {
	fnv cv "$1"
}

# setup_jail KEY NS ADDR4 ADDR6 [BRIDGE [GW4 GW6]] [ARG...]: a jail on a
# bridge with an IPv4 and an IPv6 address.
setup_jail() {
	local key=$1 ns=$2 a4=$3 a6=$4 br=${5:-cell0} g4=${6:-192.0.2.1/24} g6=${7:-2001:db8::1/64}
	shift 7 2>/dev/null || shift $#
	cn setup --key "$key" --netns "/run/netns/$ns" --bridge "$br" --gateway "$g4" \
		--gateway "$g6" --addr "$a4" --addr "$a6" "$@"
}

# Links of the outer namespace but lo (and other0, made by tests).
outer_links() {
	outer ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' |
		grep -vxE 'lo|other0' || true
}

# Fails unless the outer namespace has no link cell made and no table of
# cell's, and no namespace of a jail has a link but lo (and other0).  The
# veth of a jail whose namespace went is the kernel's to delete, in the
# background (teardown leaves it): waited for, at most 5 s.
assert_nothing_left() {
	local left i
	for ((i = 0; i < 50; i++)); do
		left=$(outer_links)
		[ -n "$left" ] || break
		sleep 0.1
	done
	[ -z "$left" ] || { echo "links left: $left" >&2; return 1; }
	if outer nft list table inet cell >/dev/null 2>&1; then
		echo "table inet cell left" >&2
		return 1
	fi
	for ns in "$J1" "$J2"; do
		[ -e "/run/netns/$ns" ] || continue
		left=$(injail "$ns" ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' |
			grep -vxE 'lo|other0' || true)
		[ -z "$left" ] || { echo "links left in $ns: $left" >&2; return 1; }
	done
}

# retry N CMD...: CMD until it succeeds, at most N times.
retry() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.2
	done
	return 1
}

# ping_from NS ADDR: one ping from a jail, answered within 2 s.
ping_from() {
	injail "$1" busybox ping -c 1 -W 2 "$2" >/dev/null 2>&1
}

# other_link NS: a link "other0" in namespace NS, up (a bridge: the
# kernel has no dummy links).
other_link() {
	nsenter --net="/run/netns/$1" ip link add other0 type bridge
	nsenter --net="/run/netns/$1" ip link set other0 up
}

# mtu_of NS LINK: the MTU of LINK in namespace NS (ip(8): the jail's
# /sys is not of its namespace here).
mtu_of() {
	nsenter --net="/run/netns/$1" ip -o link show "$2" | sed -E 's/.* mtu ([0-9]+) .*/\1/'
}

# An address for the outer namespace itself, on a link of its own: the
# host's "own address" of the published-port tests.
outer_address() {
	other_link "$OUTER"
	outer ip addr add 198.51.100.1/24 dev other0
}

# serve NS PROTO PORT: a server in a jail that answers each connection
# (tcp) or datagram (udp) with "hello from NS"; back once it listens.
# nsenter is started directly (it execs python3): $! is the server's
# pid, which teardown kills (a shell function in the background would be
# a subshell, and killing that left the server running).
serve() {
	local ready="$WORK/ready-$1-$2-$3"
	nsenter --net="/run/netns/$1" python3 -c '
import socket, sys
ns, proto, port, ready = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
s = socket.socket(socket.AF_INET6, kind)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("::", port))
if proto == "tcp":
    s.listen(8)
open(ready, "w").close()
while True:
    if proto == "tcp":
        c, _ = s.accept()
        c.sendall(b"hello from " + ns.encode() + b"\n")
        c.close()
    else:
        _, peer = s.recvfrom(100)
        s.sendto(b"hello from " + ns.encode() + b"\n", peer)
' "$1" "$2" "$3" "$ready" 3>&- &
	BG_PIDS+=($!)
	local i
	for ((i = 0; i < 50; i++)); do
		[ -e "$ready" ] && return 0
		sleep 0.1
	done
	echo "server in $1 did not start" >&2
	return 1
}

# ask PROTO HOST PORT: what a server says, asked from the outer
# namespace (5 s at most); ask_from NS PROTO HOST PORT: from NS.
ask() {
	ask_from "$OUTER" "$@"
}

ask_from() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" python3 -c '
import socket, sys
proto, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
if proto == "tcp":
    s = socket.create_connection((host, port), timeout=5)
    print(s.recv(100).decode().strip())
else:
    s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(5)
    s.sendto(b"hi", (host, port))
    print(s.recv(100).decode().strip())
' "$@"
}

@test "cell-net --help and each command's --help print a usage and exit 0" {
	run "$CELL_NET" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Usage: cell-net COMMAND"* ]]
	for cmd in setup teardown addr stats; do
		run "$CELL_NET" "$cmd" --help
		[ "$status" -eq 0 ]
		[[ "$output" == *"Usage: cell-net $cmd"* ]]
	done
}

@test "setup makes the bridge, the veth, the jail's addresses and its default routes" {
	run setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64
	[ "$status" -eq 0 ]
	[ "$output" = "{\"host_if\":\"$(host_if t-1)\",\"bridge\":\"cell0\",\"bridge_made\":true,\"mtu\":1500}" ]

	# The bridge: cell's (its alias), up, with the gateways.
	run outer ip -d link show cell0
	[[ "$output" == *"alias cell"* ]]
	[[ "$output" == *"bridge"* ]]
	run outer ip -br addr show cell0
	[[ "$output" == *"192.0.2.1/24"* ]]
	[[ "$output" == *"2001:db8::1/64"* ]]
	# The host end: a port of the bridge, up.
	run outer ip -o link show "$(host_if t-1)"
	[[ "$output" == *"master cell0"* ]]
	[[ "$output" == *",UP"* ]]
	# The jail's end, lo, addresses and routes.
	run injail "$J1" ip -br addr show eth0
	[[ "$output" == *"UP"* ]]
	[[ "$output" == *"192.0.2.2/24"* ]]
	[[ "$output" == *"2001:db8::2/64"* ]]
	run injail "$J1" ip -6 addr show eth0 scope global
	[[ "$output" == *"2001:db8::2/64"* ]]
	[[ "$output" != *tentative* ]]
	run injail "$J1" ip -br link show lo
	[[ "$output" == *UNKNOWN* || "$output" == *UP* ]]
	run injail "$J1" ip route show default
	[ "$output" = "default via 192.0.2.1 dev eth0 proto static " ] || [ "$output" = "default via 192.0.2.1 dev eth0 proto static" ]
	run injail "$J1" ip -6 route show default
	[[ "$output" == "default via 2001:db8::1 dev eth0 proto static"* ]]
	# No --nat and no --publish: no nftables at all.
	run outer nft list tables
	[ -z "$output" ]
}

@test "two jails on one bridge ping each other over IPv4 and IPv6" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64
	run setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64
	[ "$status" -eq 0 ]
	[[ "$output" == *'"bridge_made":false'* ]]
	retry 5 ping_from "$J1" 192.0.2.3
	retry 5 ping_from "$J2" 192.0.2.2
	retry 5 ping_from "$J1" 2001:db8::3
	retry 5 ping_from "$J2" 2001:db8::2
}

@test "jails on two bridges cannot reach each other, though forwarding is on" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8:1::2/64 cellA 192.0.2.1/24 2001:db8:1::1/64 --nat
	setup_jail t-2 "$J2" 198.51.100.2/24 2001:db8:2::2/64 cellB 198.51.100.1/24 2001:db8:2::1/64 --nat
	[ "$(outer cat /proc/sys/net/ipv4/ip_forward)" = 1 ]
	[ "$(outer cat /proc/sys/net/ipv6/conf/all/forwarding)" = 1 ]
	# The other bridge's gateway (the host itself) answers: routing is
	# there; the jail behind it does not.
	retry 5 ping_from "$J1" 198.51.100.1
	run ! ping_from "$J1" 198.51.100.2
	run ! ping_from "$J2" 192.0.2.2
	run ! ping_from "$J1" 2001:db8:2::2
	# The rules are what stops them: without them the jails meet.
	outer nft flush chain inet cell forward
	retry 5 ping_from "$J1" 198.51.100.2
	retry 5 ping_from "$J2" 2001:db8:1::2
}

@test "a published TCP port answers on the outer namespace's own address and on its loopback" {
	outer_address
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--nat --publish tcp::8080:80 --publish tcp:198.51.100.1:8081:80
	serve "$J1" tcp 80
	run ask tcp 198.51.100.1 8080
	[ "$output" = "hello from $J1" ]
	run ask tcp 127.0.0.1 8080
	[ "$output" = "hello from $J1" ]
	run ask tcp 198.51.100.1 8081
	[ "$output" = "hello from $J1" ]
	# IPv6: the jail's first IPv6 address.
	run ask tcp 2001:db8::1 8080
	[ "$output" = "hello from $J1" ]
	[ "$(outer cat /proc/sys/net/ipv4/conf/cell0/route_localnet)" = 1 ]
}

@test "a jail reaches another jail's published port on the same bridge through the host's address" {
	outer_address
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--nat --publish tcp::8080:80
	setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	# Bridged frames kept out of the host's conntrack (br_netfilter, if
	# loaded, would un-NAT the answer on the bridge by itself; the
	# setting is the test namespace's own).
	if [ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]; then
		outer sh -c 'echo 0 >/proc/sys/net/bridge/bridge-nf-call-iptables'
	fi
	serve "$J1" tcp 80
	# The answer comes back through the host (masqueraded), not
	# straight from 192.0.2.2, which the client would not take.
	run ask_from "$J2" tcp 198.51.100.1 8080
	[ "$output" = "hello from $J1" ]
}

@test "a published UDP port forwards datagrams to the jail and its answers back" {
	outer_address
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--publish udp::5353:53
	serve "$J1" udp 53
	run ask udp 198.51.100.1 5353
	[ "$output" = "hello from $J1" ]
	run ask udp 127.0.0.1 5353
	[ "$output" = "hello from $J1" ]
}

@test "teardown removes the rules, the veth, the bridge cell made and the empty table" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--nat --publish tcp::8080:80
	run outer nft list table inet cell
	[[ "$output" == *'comment "cell:t-1"'* ]]
	run cn teardown --key t-1 --bridge cell0
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	assert_nothing_left
}

@test "teardown twice, or of a key never set up, succeeds" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	cn teardown --key t-1 --bridge cell0
	run cn teardown --key t-1 --bridge cell0
	[ "$status" -eq 0 ]
	run cn teardown --key never-made
	[ "$status" -eq 0 ]
	assert_nothing_left
}

@test "teardown of one jail leaves the other's rules, veth and bridge" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--nat --publish tcp::8080:80
	setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--nat --publish tcp::8081:80
	cn teardown --key t-1 --bridge cell0
	run outer nft list table inet cell
	[[ "$output" != *'"cell:t-1"'* ]]
	[[ "$output" == *'dport 8081 dnat ip to 192.0.2.3:80 comment "cell:t-2"'* ]]
	outer ip link show cell0
	outer ip link show "$(host_if t-2)"
	run ! outer ip link show "$(host_if t-1)" 2>/dev/null
	retry 5 ping_from "$J2" 192.0.2.1
	cn teardown --key t-2 --bridge cell0
	assert_nothing_left
}

@test "the veth that went with the jail's namespace is no error for teardown" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	ip netns del "$J1"
	# The kernel removes the pair with the namespace, in the background.
	retry 25 bash -c "! nsenter --net=/run/netns/$OUTER ip link show $(host_if t-1) 2>/dev/null"
	run cn teardown --key t-1 --bridge cell0
	[ "$status" -eq 0 ]
	run outer_links
	[ -z "$output" ]
	run ! outer nft list table inet cell 2>/dev/null
}

@test "teardown --ended leaves the veth to its namespace and does not count it: the bridge goes" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--nat --publish tcp::8080:80
	# The jail's processes have ended, its namespace (held here by
	# ip netns) not yet dismantled: the veth stays with it.
	run cn teardown --key t-1 --bridge cell0 --ended
	[ "$status" -eq 0 ]
	outer ip link show "$(host_if t-1)"
	injail "$J1" ip link show eth0
	run ! outer ip link show cell0
	run ! outer nft list table inet cell
	# The namespace released: the kernel takes the pair.
	ip netns del "$J1"
	assert_nothing_left
}

@test "teardown without --ended deletes the veth of a namespace still alive" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64
	cn teardown --key t-1 --bridge cell0
	run ! outer ip link show "$(host_if t-1)"
	run ! injail "$J1" ip link show eth0
	assert_nothing_left
}

@test "teardown just after the jail's namespace went removes the bridge and rules, and the kernel the veth" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--nat --publish tcp::8080:80
	setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	# Both namespaces released, and torn down at once: a port whose
	# namespace is being dismantled keeps no bridge.
	ip netns del "$J1"
	ip netns del "$J2"
	NETNS=("$OUTER")
	run cn teardown --key t-1 --bridge cell0
	[ "$status" -eq 0 ]
	run cn teardown --key t-2 --bridge cell0
	[ "$status" -eq 0 ]
	run ! outer ip link show cell0
	run ! outer nft list table inet cell
	assert_nothing_left
}

@test "setup refuses a key whose veth is a live jail's, and replaces one whose jail's namespace went" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	run cn setup --key t-1 --netns "/run/netns/$J2" --bridge cell0 --gateway 192.0.2.1/24 \
		--addr 192.0.2.3/24
	[ "$status" -eq 1 ]
	[[ "$output" == *"veth $(host_if t-1): create"*"File exists"* ]]
	retry 5 ping_from "$J1" 192.0.2.1
	ip netns del "$J1"
	NETNS=("$OUTER" "$J2")
	run cn setup --key t-1 --netns "/run/netns/$J2" --bridge cell0 --gateway 192.0.2.1/24 \
		--addr 192.0.2.3/24
	[ "$status" -eq 0 ]
	retry 5 ping_from "$J2" 192.0.2.1
	cn teardown --key t-1 --bridge cell0
	assert_nothing_left
}

@test "a bridge a killed setup left under its first name goes with the next setup or teardown" {
	# A setup makes the bridge under "cb" + FNV-1a-32 of its name, then
	# renames it and gives it its alias at once.
	local tmp
	tmp=$(fnv cb cell0)
	outer ip link add "$tmp" type bridge
	run setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64
	[ "$status" -eq 0 ]
	[[ "$output" == *'"bridge_made":true'* ]]
	run outer ip link show "$tmp"
	[ "$status" -ne 0 ]
	run outer ip -d link show cell0
	[[ "$output" == *"alias cell"* ]]
	cn teardown --key t-1 --bridge cell0
	outer ip link add "$tmp" type bridge
	cn teardown --key t-1 --bridge cell0
	assert_nothing_left
}

@test "a bridge cell did not make is used but never removed" {
	outer ip link add br-ext type bridge
	outer ip link set br-ext up
	run setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 br-ext 192.0.2.1/24 2001:db8::1/64 --nat
	[ "$status" -eq 0 ]
	[[ "$output" == *'"bridge_made":false'* ]]
	retry 5 ping_from "$J1" 192.0.2.1
	cn teardown --key t-1 --bridge br-ext
	run outer ip -d link show br-ext
	[ "$status" -eq 0 ]
	[[ "$output" != *"alias cell"* ]]
	run ! outer ip link show "$(host_if t-1)" 2>/dev/null
	run ! outer nft list table inet cell 2>/dev/null
}

@test "setup --mtu makes the bridge and both ends of the veth at that MTU, and a jail without --mtu takes the bridge's" {
	run setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--mtu 9000
	[ "$status" -eq 0 ]
	[ "$(jq -r .mtu <<<"$output")" = 9000 ]
	[ "$(mtu_of "$OUTER" cell0)" = 9000 ]
	[ "$(mtu_of "$OUTER" "$(host_if t-1)")" = 9000 ]
	[ "$(mtu_of "$J1" eth0)" = 9000 ]
	run setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.bridge_made, .mtu]' <<<"$output")" = '[false,9000]' ]
	[ "$(mtu_of "$OUTER" "$(host_if t-2)")" = 9000 ]
	[ "$(mtu_of "$J2" eth0)" = 9000 ]
	[ "$(mtu_of "$OUTER" cell0)" = 9000 ]
	# A packet of the whole MTU goes from jail to jail in one frame (at
	# 1500 it would be 7 fragments).
	retry 5 ping_from "$J1" 192.0.2.3
	local before
	before=$(stats_of "$J1" tx_packets)
	injail "$J1" busybox ping -c 1 -W 2 -s 8972 192.0.2.3 >/dev/null
	[ "$(($(stats_of "$J1" tx_packets) - before))" -lt 3 ]
}

# stats_of NS KEY: a counter of the jail's eth0 in NS.
stats_of() {
	cn stats --netns "/run/netns/$1" | jq -r ".$2"
}

@test "a setup asking for another MTU than its bridge's fails in one line and takes nothing of the other jail's" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	local rules
	rules=$(outer nft list table inet cell)
	run --separate-stderr setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64 cell0 \
		198.51.100.1/24 2001:db8::1/64 --nat --mtu 9000
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "bridge cell0 has MTU 1500, not 9000" ]
	# Nothing of its own: no veth, no gateway, no rule; the first
	# jail's bridge, veth, address and rules as they were.
	run ! outer ip link show "$(host_if t-2)" 2>/dev/null
	run injail "$J2" ip -o link show
	[[ "$output" != *eth0* ]]
	run outer ip -br addr show cell0
	[[ "$output" != *198.51.100.1* ]]
	[ "$(outer nft list table inet cell)" = "$rules" ]
	[ "$(mtu_of "$OUTER" cell0)" = 1500 ]
	retry 5 ping_from "$J1" 192.0.2.1
	# The same MTU as the bridge's is no change.
	run setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--mtu 1500
	[ "$status" -eq 0 ]
}

@test "a bridge cell made at an MTU keeps it when its last port went, and one it did not make is held to its own" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 --mtu 9000
	# The jail's veth gone (its namespace's), the bridge left portless:
	# the kernel would set a portless bridge to 1500 unless its MTU was
	# set on it.
	injail "$J1" ip link del eth0
	[ "$(mtu_of "$OUTER" cell0)" = 9000 ]
	run setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--mtu 9000
	[ "$status" -eq 0 ]
	cn teardown --key t-1 --bridge cell0
	cn teardown --key t-2 --bridge cell0
	# A user's bridge, at 4000: taken as it is.
	outer ip link add br-ext mtu 4000 type bridge
	outer ip link set br-ext up
	run --separate-stderr setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 br-ext \
		192.0.2.1/24 2001:db8::1/64 --mtu 1500
	[ "$status" -eq 1 ]
	[ "$stderr" = "bridge br-ext has MTU 4000, not 1500" ]
	run setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 br-ext
	[ "$status" -eq 0 ]
	[ "$(jq -r .mtu <<<"$output")" = 4000 ]
	[ "$(mtu_of "$J1" eth0)" = 4000 ]
	cn teardown --key t-1 --bridge br-ext
	outer ip link show br-ext >/dev/null
}

@test "addr add and del change a jail's addresses live; add with --gateway gives the family a default route" {
	cn setup --key t-1 --netns "/run/netns/$J1" --bridge cell0 --gateway 192.0.2.1/24 \
		--gateway 2001:db8::1/64 --addr 192.0.2.2/24
	run injail "$J1" ip -6 route show default
	[ -z "$output" ]
	run cn addr add --netns "/run/netns/$J1" --ifname eth0 2001:db8::7/64 --gateway 2001:db8::1
	[ "$status" -eq 0 ]
	run injail "$J1" ip -br addr show eth0
	[[ "$output" == *"2001:db8::7/64"* ]]
	run injail "$J1" ip -6 route show default
	[[ "$output" == "default via 2001:db8::1 dev eth0"* ]]
	retry 5 ping_from "$J1" 2001:db8::1
	# A second IPv4 address: the family has its route already.
	run cn addr add --netns "/run/netns/$J1" 192.0.2.9/24 --gateway 192.0.2.1
	[ "$status" -eq 0 ]
	run cn addr del --netns "/run/netns/$J1" --ifname eth0 2001:db8::7/64
	[ "$status" -eq 0 ]
	run injail "$J1" ip -br addr show eth0
	[[ "$output" != *"2001:db8::7"* ]]
	[[ "$output" == *"192.0.2.9/24"* ]]
	# Deleting what is not there is an error, in one line.
	run cn addr del --netns "/run/netns/$J1" 2001:db8::7/64
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "jail eth0: delete address 2001:db8::7/64: "* ]]
}

@test "stats reports the jail link's counters, which grow with traffic, and its addresses" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64
	run cn stats --netns "/run/netns/$J1"
	[ "$status" -eq 0 ]
	local before=$output mac
	mac=$(injail "$J1" cat /sys/class/net/eth0/address 2>/dev/null ||
		injail "$J1" ip -o link show eth0 | sed -E 's/.*link\/ether ([0-9a-f:]+).*/\1/')
	[ "$(jq -r .ifname <<<"$before")" = eth0 ]
	[ "$(jq -r .mtu <<<"$before")" = 1500 ]
	[ "$(jq -c .addrs <<<"$before")" = '["192.0.2.2/24","2001:db8::2/64"]' ]
	[ "$(jq -r .mac <<<"$before")" = "$(injail "$J1" ip -o link show eth0 | sed -E 's/.*link\/ether ([0-9a-f:]+).*/\1/')" ]
	retry 5 ping_from "$J1" 192.0.2.1
	injail "$J1" busybox ping -c 3 -i 0.2 -W 2 192.0.2.1 >/dev/null
	run cn stats --netns "/run/netns/$J1" --ifname eth0
	for k in rx_bytes rx_packets tx_bytes tx_packets; do
		[ "$(jq -r ".$k" <<<"$output")" -gt "$(jq -r ".$k" <<<"$before")" ]
	done
	[ "$(jq -r .tx_packets <<<"$output")" -ge 4 ]
}

# bad_setup STATUS ARG...: setup with ARG... exits STATUS with one line
# on stderr, and nothing is left.
bad_setup() {
	local want=$1
	shift
	run --separate-stderr cn setup "$@"
	echo "setup $*: status $status, stderr: $stderr" >&2
	[ "$status" -eq "$want" ]
	[ -z "$output" ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	assert_nothing_left
}

@test "bad input is refused in one line, with exit 2 (usage) or 1, leaving nothing" {
	local ok=(--key t-1 --netns "/run/netns/$J1" --gateway 192.0.2.1/24)
	bad_setup 2 "${ok[@]}" --addr 192.0.2.300/24
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/33
	bad_setup 2 "${ok[@]}" --addr 2001:db8::2/129
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --publish tcp::0:80
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --publish tcp::8080:65536
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --publish sctp::8080:80
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --publish tcp:8080:80
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --publish tcp:2001:db8::1:8080:80
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --ifname abcdefghijklmnop
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --bridge 'br"x'
	bad_setup 2 --key 'Bad_Key' --netns "/run/netns/$J1" --addr 192.0.2.2/24
	bad_setup 2 --key "$(printf 'k%.0s' {1..41})" --netns "/run/netns/$J1" --addr 192.0.2.2/24
	bad_setup 2 --netns "/run/netns/$J1" --addr 192.0.2.2/24
	bad_setup 2 --key t-1 --addr 192.0.2.2/24
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --mtu 0
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --mtu 1279
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --mtu 65536
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --mtu abc
	bad_setup 2 "${ok[@]}" --addr 192.0.2.2/24 --mtu ''
	bad_setup 2 "${ok[@]}" --bogus
	bad_setup 2 "${ok[@]}" --net "/run/netns/$J1"
	bad_setup 1 --key t-1 --netns "/run/netns/no-such-$$" --addr 192.0.2.2/24 --nat
	bad_setup 1 --key t-1 --netns /etc/hostname --addr 192.0.2.2/24 --nat
	run --separate-stderr cn frobnicate
	[ "$status" -eq 2 ]
	run --separate-stderr cn teardown --key 'a b'
	[ "$status" -eq 2 ]
	run --separate-stderr cn addr add --netns "/run/netns/$J1" 192.0.2.2/99
	[ "$status" -eq 2 ]
	run --separate-stderr cn stats --netns "/run/netns/$J1" --ifname nosuch0
	[ "$status" -eq 1 ]
	[ "$stderr" = "jail nosuch0: No such device" ]
}

@test "a setup that fails half-way, on an address already in the jail, leaves nothing" {
	other_link "$J1"
	injail "$J1" ip addr add 192.0.2.2/24 dev other0
	run --separate-stderr setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 \
		2001:db8::1/64 --nat --publish tcp::8080:80
	[ "$status" -eq 1 ]
	[ "$stderr" = "jail eth0: add address 192.0.2.2/24: Address already in use" ]
	assert_nothing_left
	# The jail's own link is as it was.
	run injail "$J1" ip -br addr show other0
	[[ "$output" == *"192.0.2.2/24"* ]]
}

@test "a setup whose gateway is not on the jail's subnet fails at the route and leaves nothing" {
	run --separate-stderr cn setup --key t-1 --netns "/run/netns/$J1" --bridge cell0 \
		--gateway 198.51.100.1/24 --addr 192.0.2.2/24 --nat --publish tcp::8080:80
	[ "$status" -eq 1 ]
	[[ "$stderr" == "jail eth0: default route via 198.51.100.1: "* ]]
	assert_nothing_left
}

@test "a failed setup on an existing bridge takes back only what it added" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	# A third gateway, then a failure at the jail's route (a gateway of
	# another subnet first in its family).
	run --separate-stderr cn setup --key t-2 --netns "/run/netns/$J2" --bridge cell0 \
		--gateway 203.0.113.1/24 --gateway 192.0.2.1/24 --addr 192.0.2.3/24 --nat
	[ "$status" -eq 1 ]
	run outer ip -br addr show cell0
	[[ "$output" != *"203.0.113.1"* ]]
	[[ "$output" == *"192.0.2.1/24"* ]]
	run ! outer ip link show "$(host_if t-2)" 2>/dev/null
	run outer nft list table inet cell
	[[ "$output" == *'masquerade comment "cell-bridge:cell0:192.0.2.0/24"'* ]]
	[[ "$output" != *"203.0.113"* ]]
	retry 5 ping_from "$J1" 192.0.2.1
}

@test "a bridge's rules are made by its first jail, shared by the next, and go with the bridge" {
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	run outer nft -a list table inet cell
	local first=$output
	[ "$(grep -c 'comment "cell-bridge:cell0' <<<"$first")" -eq 5 ]
	[[ "$first" == *'iifname "cell0" oifname @bridges oifname != "cell0" drop comment "cell-bridge:cell0"'* ]]
	[[ "$first" == *'ip6 saddr 2001:db8::/64 oifname != "cell0" masquerade comment "cell-bridge:cell0:2001:db8::/64"'* ]]
	[[ "$first" == *'iifname "cell0" ip daddr 192.0.2.0/24 ip daddr != 192.0.2.1 notrack comment "cell-bridge:cell0:notrack:192.0.2.0/24"'* ]]
	[[ "$first" == *'iifname "cell0" ip6 daddr 2001:db8::/64 ip6 daddr != 2001:db8::1 notrack comment "cell-bridge:cell0:notrack:2001:db8::/64"'* ]]
	# The second jail adds nothing: the same rules, the same handles.
	setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	run outer nft -a list table inet cell
	[ "$output" = "$first" ]
	# Its first jail gone, the bridge keeps them for the second.
	cn teardown --key t-1 --bridge cell0
	run outer nft -a list table inet cell
	[ "$output" = "$first" ]
	cn teardown --key t-2 --bridge cell0
	assert_nothing_left
}

@test "conntrack skips what goes between two jails of a bridge, not what goes through its gateway" {
	[ "$(outer cat /proc/sys/net/bridge/bridge-nf-call-iptables 2>/dev/null)" = 1 ] ||
		skip "needs br_netfilter (bridged IPv4 handed to the IP hooks)"
	setup_jail t-1 "$J1" 192.0.2.2/24 2001:db8::2/64 cell0 192.0.2.1/24 2001:db8::1/64 \
		--nat --publish tcp::8080:80
	setup_jail t-2 "$J2" 192.0.2.3/24 2001:db8::3/64 cell0 192.0.2.1/24 2001:db8::1/64 --nat
	retry 5 ping_from "$J2" 192.0.2.2
	run outer cat /proc/net/nf_conntrack
	[[ "$output" != *"src=192.0.2.3 dst=192.0.2.2"* ]]
	# Through the gateway's published port: tracked (DNAT needs it).
	# Nothing listens: a SYN, answered by a reset, is enough.
	injail "$J2" busybox nc -w 1 192.0.2.1 8080 </dev/null >/dev/null 2>&1 || true
	run outer cat /proc/net/nf_conntrack
	[[ "$output" == *"src=192.0.2.3 dst=192.0.2.1 sport="*" dport=8080 "*"src=192.0.2.2 dst=192.0.2.3 sport=80"* ]]
	cn teardown --key t-1 --bridge cell0
	cn teardown --key t-2 --bridge cell0
	assert_nothing_left
}

@test "setups and teardowns of six jails at once on one bridge leave nothing" {
	local i pids=()
	for i in 1 2 3 4 5 6; do
		NETNS+=("$OUTER-p$i")
		ip netns add "$OUTER-p$i"
	done
	for i in 1 2 3 4 5 6; do
		cn setup --key p-$i --netns "/run/netns/$OUTER-p$i" --bridge cell0 \
			--gateway 192.0.2.1/24 --addr 192.0.2.$((10 + i))/24 --nat \
			--publish tcp::$((8080 + i)):80 >"$WORK/setup-$i" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || { cat "$WORK/setup-$((i + 1))" >&2; return 1; }
	done
	run outer nft list table inet cell
	for i in 1 2 3 4 5 6; do
		[[ "$output" == *"dport $((8080 + i)) dnat ip to 192.0.2.$((10 + i)):80 comment \"cell:p-$i\""* ]]
		outer ip link show "$(host_if p-$i)" | grep -q 'master cell0'
	done
	[ "$(grep -c 'comment "cell-bridge:cell0' <<<"$output")" -eq 3 ]
	retry 5 ping_from "$OUTER-p1" 192.0.2.16
	pids=()
	for i in 1 2 3 4 5 6; do
		cn teardown --key p-$i --bridge cell0 &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
	done
	assert_nothing_left
}
