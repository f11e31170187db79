#!/usr/bin/env bats
# Jail networking (issue 15): --net bridge, ns:PATH, addresses, published
# ports, the jail's hosts/hostname/resolv.conf, cell set ip4.addr+=, and
# cleanup after a cell killed at each pause point of the net stage.
#
# Never the host's network: every test makes a network namespace of its
# own (cell-test-PID-N) and runs cell in it (a wrapper, $CELL, that
# nsenter(1)s it), so that bridges, veths, addresses and nftables rules
# exist there only.  Addresses are the documentation ranges' only
# (192.0.2.0/24, 198.51.100.0/24, 2001:db8::/32).  Teardown removes the
# jails, fails on a veth, bridge or nftables rule left in the namespace,
# and deletes it.
load helpers

GW4=192.0.2.1/24
GW6=2001:db8::1/64
# The bridge and gateways every bridged jail of a test is given.
BR=(--net bridge:cellt0 --gateway "$GW4" --gateway "$GW6")

# netns_add, innet, netns_wrap_cell, netns_unwrap_cell; the /run/netns mount
# shellcheck source=../netns.bash
source "$BATS_TEST_DIRNAME/../netns.bash"
setup_file() { netns_mount_note; }
teardown_file() { netns_mount_restore; }

setup() {
	command -v nsenter >/dev/null || skip "needs nsenter"
	cell_setup
	NETNS=cell-test-$$-${BATS_TEST_NUMBER}
	netns_add "$NETNS"
	# cell-net beside cell (build/cell-net): the wrappers only enter
	# the namespace.
	netns_wrap_cell "$WORK"
	HOOK_PIDS=()
}

# What cell made in the test's namespace: veths (cv*), bridges, nftables.
# A gone jail's veth is the kernel's to delete with its namespace, in the
# background: waited for, at most 5 s.
net_leftovers() {
	local i
	for ((i = 0; i < 50; i++)); do
		innet ip -o link show | grep -q ': cv' || break
		sleep 0.1
	done
	innet ip -o link show | awk -F': ' '$2 ~ /^cv/ { print "veth " $2 }'
	innet ip -o link show type bridge | awk -F': ' '{ print "bridge " $2 }'
	innet nft list ruleset 2>/dev/null | grep -q . && echo "nftables rules"
	true
}

teardown() {
	local errors=() pid left
	for pid in "${HOOK_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	cell_rm_all || errors+=("a jail outlived cell rm -f")
	# The root's network lock (net.c) outlives its jails, as the root.
	rm -f "$STATE/net.lock"
	left=$(net_leftovers | tr '\n' ' ')
	[ -z "$left" ] || errors+=("left in the namespace: $left")
	cell_teardown || errors+=("cell_teardown")
	netns_unwrap_cell
	[ -z "${OUT_NETNS:-}" ] || ip netns del "$OUT_NETNS" 2>/dev/null || true
	if [ "${#errors[@]}" -gt 0 ]; then
		printf 'teardown: %s\n' "${errors[@]}" >&2
		return 1
	fi
}

# a_server NAME ARG...: a detached bridged jail NAME serving "hello NAME"
# over HTTP on port 80 (busybox httpd), with the extra ARGs of cell run.
a_server() {
	local name=$1
	shift
	cell run -d --name "$name" "$@" -- sh -c "mkdir -p /tmp/www &&
		echo hello $name >/tmp/www/index.html && exec busybox httpd -f -p 80 -h /tmp/www" \
		>/dev/null
	wait_running "$name"
}

# fetch URL [FROM]: curl of URL from jail FROM (or the test's
# namespace), retried for up to 5 s while the server starts.
fetch() {
	local i
	for ((i = 0; i < 25; i++)); do
		if [ -n "${2:-}" ]; then
			output=$(cell exec "$2" curl -sfg -m 2 "$1" 2>/dev/null) && return 0
		else
			output=$(innet curl -sfg -m 2 "$1" 2>/dev/null) && return 0
		fi
		sleep 0.2
	done
	return 1
}

addr_of() {
	jq -r ".\"$2\"[0]" "$STATE/$1/state.json" | cut -d/ -f1
}

@test "two jails on one bridge ping each other over IPv4 and IPv6 and talk TCP" {
	a_server web "${BR[@]}" --ip 192.0.2.10/24 --ip 2001:db8::10/64
	cell run -d --name client "${BR[@]}" --allow raw_sockets -- sleep 1000 >/dev/null
	wait_running client
	run cell exec client busybox ping -c 1 -W 3 192.0.2.10
	[ "$status" -eq 0 ]
	run cell exec client busybox ping -6 -c 1 -W 3 2001:db8::10
	[ "$status" -eq 0 ]
	fetch http://192.0.2.10/ client
	[ "$output" = "hello web" ]
	fetch "http://[2001:db8::10]/" client
	[ "$output" = "hello web" ]
}

@test "a jail without --ip gets the next free address of each gateway's subnet" {
	cell run -d --name a "${BR[@]}" -- sleep 1000 >/dev/null
	cell run -d --name b "${BR[@]}" -- sleep 1000 >/dev/null
	[ "$(jq -c '."ip4.addr"' "$STATE/a/state.json")" = '["192.0.2.2/24"]' ]
	[ "$(jq -c '."ip6.addr"' "$STATE/a/state.json")" = '["2001:db8::2/64"]' ]
	[ "$(jq -c '."ip4.addr"' "$STATE/b/state.json")" = '["192.0.2.3/24"]' ]
	run cell exec b ip -o addr show dev eth0
	[[ "$output" == *"inet 192.0.2.3/24"* ]]
	[[ "$output" == *"inet6 2001:db8::3/64"* ]]
	# A later jail of the bridge takes its gateways when it gives none.
	cell run -d --name c --net bridge:cellt0 -- sleep 1000 >/dev/null
	[ "$(jq -c '.gateway' "$STATE/c/state.json")" = '["192.0.2.1/24","2001:db8::1/64"]' ]
	[ "$(jq -c '."ip4.addr"' "$STATE/c/state.json")" = '["192.0.2.4/24"]' ]
}

@test "jails started at once never get one address" {
	local i pids=()
	for i in 1 2 3 4 5 6; do
		cell run -d --name "j$i" "${BR[@]}" -- sleep 1000 >/dev/null &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i"
	done
	run jq -r '."ip4.addr"[0]' "$STATE"/j*/state.json
	[ "${#lines[@]}" -eq 6 ]
	[ "$(sort -u <<<"$output" | wc -l)" -eq 6 ]
}

@test "a jail cannot reach a jail on another bridge" {
	a_server far --net bridge:cellt1 --gateway 198.51.100.1/24 --ip 198.51.100.10/24
	cell run -d --name near "${BR[@]}" --ip 192.0.2.10/24 -- sleep 1000 >/dev/null
	wait_running near
	# The server answers its own bridge's host...
	fetch http://198.51.100.10/
	[ "$output" = "hello far" ]
	# ...and its own gateway answers the jail, but the other bridge's
	# jail does not (dropped in cell's forward chain: a timeout).
	run cell exec near curl -sf -m 2 http://198.51.100.10/
	[ "$status" -ne 0 ]
	[[ "$output" != *hello* ]]
}

@test "a published port answers from the namespace's own address and from its loopback" {
	# The namespace's own address, on an interface of its own.
	innet ip link add tnet0 type veth peer name tnet1
	innet ip addr add 198.51.100.1/24 dev tnet0
	innet ip link set tnet0 up
	a_server pub "${BR[@]}" -p 8080:80
	fetch http://198.51.100.1:8080/
	[ "$output" = "hello pub" ]
	fetch http://127.0.0.1:8080/
	[ "$output" = "hello pub" ]
	cell rm -f pub
	run innet curl -sf -m 1 http://198.51.100.1:8080/
	[ "$status" -ne 0 ]
}

@test "a jail cannot bind an address that is not its own" {
	run cell run "${BR[@]}" --ip 192.0.2.10/24 -- /usr/bin/python3 -c '
import errno, socket
for a in ("192.0.2.10", "198.51.100.77", "192.0.2.1"):
    s = socket.socket()
    try:
        s.bind((a, 0)); print(a, "ok")
    except OSError as e:
        print(a, errno.errorcode[e.errno])'
	[ "$status" -eq 0 ]
	[ "$output" = "192.0.2.10 ok
198.51.100.77 EADDRNOTAVAIL
192.0.2.1 EADDRNOTAVAIL" ]
}

@test "cell set ip4.addr+= adds an address the jail then uses, and -= removes it" {
	a_server web "${BR[@]}" --ip 192.0.2.10/24
	run cell set web ip4.addr+=192.0.2.20
	[ "$status" -eq 0 ]
	run cell ls -n -o name,ip4.addr
	[ "$output" = "name=web ip4.addr='192.0.2.10/24, 192.0.2.20/24'" ]
	fetch http://192.0.2.20/
	[ "$output" = "hello web" ]
	# Its /etc/hosts names the new address, and a new hostname.
	run cell set web hostname=www
	[ "$status" -eq 0 ]
	run cell exec web cat /etc/hosts
	[[ "$output" == *"192.0.2.20	www"* ]]
	run cell set web ip4.addr-=192.0.2.20/24
	[ "$status" -eq 0 ]
	run cell exec web ip -o addr show dev eth0
	[[ "$output" != *192.0.2.20* ]]
	run cell ls -n -o name,ip4.addr
	[ "$output" = 'name=web ip4.addr=192.0.2.10/24' ]
}

@test "an address another jail holds is refused, naming that jail, and nothing is left" {
	cell run -d --name web "${BR[@]}" --ip 192.0.2.10/24 -- sleep 1000 >/dev/null
	run cell run --name other "${BR[@]}" --ip 192.0.2.10/24 -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --ip 192.0.2.10/24: held by jail web" ]
	[ ! -e "$STATE/other" ]
	cell run -d --name two "${BR[@]}" -- sleep 1000 >/dev/null
	run cell set two ip4.addr+=192.0.2.10/24
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: ip4.addr+=192.0.2.10/24: held by jail web" ]
	# The gateway's address is no jail's either.
	run cell run "${BR[@]}" --ip 192.0.2.1 -- true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "a bridged jail sees its hosts, hostname -f and resolv.conf" {
	run cell run "${BR[@]}" --ip 192.0.2.10/24 --name web --domainname example.org \
		--dns 192.0.2.53 -- sh -c 'cat /etc/hosts; hostname -f; cat /etc/hostname /etc/resolv.conf'
	[ "$status" -eq 0 ]
	[[ "$output" == *"127.0.0.1	localhost"* ]]
	[[ "$output" == *"192.0.2.10	web.example.org web"* ]]
	[ "$(grep -cx web.example.org <<<"$output")" -eq 1 ]
	[ "$(grep -cx web <<<"$output")" -eq 1 ]
	[ "$(grep nameserver <<<"$output")" = "nameserver 192.0.2.53" ]
	# Read-only inside.
	run cell run "${BR[@]}" -- sh -c 'echo x >>/etc/hosts'
	[ "$status" -ne 0 ]
}

@test "--net ns:PATH joins that network namespace" {
	run cell run --net "ns:/run/netns/$NETNS" -- readlink /proc/self/ns/net
	[ "$status" -eq 0 ]
	[ "$output" = "net:[$(stat -L -c %i "/run/netns/$NETNS")]" ]
	run cell run --net ns:/proc/self/ns/uts -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --net ns:/proc/self/ns/uts: not a network namespace" ]
}

@test "a jail file's ip4.addr, vnet and gateway make a bridged jail" {
	cat >"$WORK/cell.conf" <<-EOF
		web {
		    vnet = "bridge:cellt0";
		    gateway = $GW4;
		    ip4.addr = 192.0.2.7/24;
		    ip4.addr += 192.0.2.8/24;
		    exec.start = "exec sleep 1000";
		}
	EOF
	run cell up -f "$WORK/cell.conf"
	[ "$status" -eq 0 ]
	run cell ls -n -o name,net,ip4.addr
	[ "$output" = "name=web net=bridge:cellt0 ip4.addr='192.0.2.7/24, 192.0.2.8/24'" ]
	run cell exec web ip -o -4 addr show dev eth0
	[[ "$output" == *192.0.2.7/24* ]]
	[[ "$output" == *192.0.2.8/24* ]]
}

@test "--mtu makes the bridge and eth0 at that MTU, a later jail takes the bridge's, another is refused leaving nothing" {
	cell run -d --name a "${BR[@]}" --mtu 9000 -- sleep 1000 >/dev/null
	wait_running a
	run cell exec a cat /sys/class/net/eth0/mtu
	[ "$output" = 9000 ]
	[ "$(innet ip -o link show cellt0 | sed -E 's/.* mtu ([0-9]+) .*/\1/')" = 9000 ]
	# Another MTU than the bridge's: one line naming the bridge and its
	# MTU, no record, no veth.
	run cell run --name c "${BR[@]}" --mtu 1500 -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --net bridge:cellt0: bridge cellt0 has MTU 9000, not 1500" ]
	[ ! -e "$STATE/c" ]
	[ "$(innet ip -o link show | grep -c ': cv')" -eq 1 ]
	# Without --mtu, the bridge's.
	cell run -d --name b --net bridge:cellt0 -- sleep 1000 >/dev/null
	wait_running b
	run cell exec b cat /sys/class/net/eth0/mtu
	[ "$output" = 9000 ]
	# ls and inspect: the parameter as given, and the MTU each got.
	run cell ls -n -o name,vnet.mtu
	[ "${lines[0]}" = "name=a vnet.mtu=9000" ]
	[[ "${lines[1]}" == "name=b"* ]]
	run cell inspect --json a
	[ "$(jq -c '[."vnet.mtu", .network.mtu, .network.counters.mtu]' <<<"$output")" = '[9000,9000,9000]' ]
	run cell inspect --json b
	[ "$(jq -c '[."vnet.mtu", .network.mtu, .network.counters.mtu]' <<<"$output")" = '[null,9000,9000]' ]
	# Not a live parameter.
	run cell set a vnet.mtu=1500
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: vnet.mtu=1500: cannot be changed in a running jail" ]
}

@test "a jail file's vnet.mtu makes its bridge at that MTU" {
	cat >"$WORK/cell.conf" <<-EOF
		web {
		    vnet = "bridge:cellt0";
		    vnet.mtu = 9000;
		    gateway = $GW4;
		    exec.start = "exec sleep 1000";
		}
	EOF
	run cell up -f "$WORK/cell.conf"
	[ "$status" -eq 0 ]
	run cell ls -n -o name,vnet.mtu
	[ "$output" = "name=web vnet.mtu=9000" ]
	run cell exec web cat /sys/class/net/eth0/mtu
	[ "$output" = 9000 ]
}

@test "ls shows a jail's address and inspect its network" {
	cell run -d --name web "${BR[@]}" --ip 192.0.2.10/24 -p 8080:80 -- sleep 1000 >/dev/null
	cell run -d --name plain -- sleep 1000 >/dev/null
	run cell ls
	[ "${lines[0]}" = "$(head -1 <<<"$output")" ]
	[[ "${lines[0]}" == *IP4.ADDR* ]]
	[[ "$output" == *192.0.2.10/24* ]]
	run cell inspect --json web
	[ "$status" -eq 0 ]
	[ "$(jq -r .network.mode <<<"$output")" = bridge ]
	[ "$(jq -r .network.bridge <<<"$output")" = cellt0 ]
	[ "$(jq -r .network.interface <<<"$output")" = eth0 ]
	[[ "$(jq -r .network.host_interface <<<"$output")" == cv* ]]
	[ "$(jq -c .network.addresses <<<"$output")" = '["192.0.2.10/24"]' ]
	[ "$(jq -c .network.published <<<"$output")" = '["8080:80/tcp"]' ]
	[ "$(jq -r '.network.counters.rx_packets | type' <<<"$output")" = number ]
	run cell inspect --json plain
	[ "$(jq -c .network <<<"$output")" = '{"mode":"none"}' ]
}

@test "a jail cannot change its interfaces, addresses or routes (no CAP_NET_ADMIN)" {
	run cell run "${BR[@]}" --ip 192.0.2.10/24 -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" \
		-- sh -c "$JAIL_GUARD_SH"'
		ip addr add 192.0.2.99/24 dev eth0 2>&1
		ip link set eth0 down 2>&1
		ip route add 198.51.100.0/24 via 192.0.2.1 2>&1
		ip link add x0 type dummy 2>&1
		echo ---
		ip -o -4 addr show dev eth0; ip -o link show eth0; ip route'
	[ "$status" -eq 0 ]
	[ "$(grep -c "Operation not permitted" <<<"$output")" -eq 4 ]
	after=${output#*---}
	[[ "$after" != *192.0.2.99* ]]
	[[ "$after" == *"state UP"* ]]
	[[ "$after" != *198.51.100.0* ]]
}

@test "bad network input is one line, exit 125, and leaves nothing" {
	local bad
	for bad in "--net bogus" "--net bridge:a/b" "--net ns:relative" "--ip 192.0.2.5/24" \
		"--net bridge --ip 192.0.2.500" "--net bridge --ip 192.0.2.5/40" \
		"--net bridge --gateway gw" "--net bridge -p 80" "--net bridge -p 1:2:3:4" \
		"--net bridge -p 80:80/sctp" "--dns 192.0.2.53" "--net bridge --dns x" \
		"-p 80:80" "--gateway 192.0.2.1/24" "--net ns:/nonexistent" \
		"--net bridge:cellt9 --ip 198.51.100.5/24" "--mtu 9000" "--net host --mtu 9000" \
		"--net bridge --mtu 1279" "--net bridge --mtu 65536" "--net bridge --mtu abc"; do
		# shellcheck disable=SC2086
		run cell run $bad -- true
		[ "$status" -eq 125 ] || { echo "$bad: $status" >&2; return 1; }
		[ "${#lines[@]}" -eq 1 ] || { echo "$bad: $output" >&2; return 1; }
		[[ "${lines[0]}" == "cell: run: "* ]]
	done
	[ -z "$(ls -A "$STATE" | grep -v net.lock)" ]
	[ -z "$(net_leftovers)" ]
}

# --- kill -9 of cell in the net stage (the testpoints build) ----------

needs_testpoints() {
	[ -x "${CELL_TESTPOINTS:-}" ] || skip "needs the testpoints build (CELL_TESTPOINTS)"
}

# crash_at STAGE ARG...: `cell ARG...` of the testpoints build paused at
# STAGE, then killed -9 there.
crash_at() {
	PAUSE_CELL=$WORK/cell-tp pause_at "$@" || return 1
	kill -KILL "$HOOK_PID"
	wait "$HOOK_PID" 2>/dev/null || true
}

# After a crash, the next command (ls) and rm leave nothing.
check_clean_after() {
	run cell ls -a
	[ "$status" -eq 0 ]
	[ -z "$(net_leftovers)" ] || { net_leftovers >&2; return 1; }
	cell rm -f web >/dev/null 2>&1 || true
	[ -z "$(ls -A "$STATE" | grep -v net.lock)" ]
	[ -z "$(net_leftovers)" ]
}

@test "cell killed at each pause point of the net stage leaves nothing after the next command" {
	needs_testpoints
	local stage
	for stage in run:net-locked run:net-recorded run:net run:net-made; do
		crash_at "$stage" run -d --name web "${BR[@]}" -p 8080:80 -- sleep 1000
		check_clean_after || { echo "after a kill at $stage" >&2; return 1; }
	done
}

@test "cell rm killed while tearing a network down leaves nothing after the next command" {
	needs_testpoints
	cell run -d --name web "${BR[@]}" -p 8080:80 -- sleep 1000 >/dev/null
	[ -n "$(net_leftovers)" ]
	crash_at release:net rm -f web
	check_clean_after
}

@test "bridged jails run one after the other at once, the last one's veth still going" {
	cell run -d --name keeper "${BR[@]}" -- sleep 1000 >/dev/null
	# Each run takes the JID the last one freed; its veth goes with its
	# namespace, in the background, and is not in the next one's way.
	# (One shell in the namespace: no wrapper between the runs.)
	run innet sh -c 'for i in 1 2 3 4 5 6 7 8; do
		"$@" || { echo "run $i failed"; exit 1; }
	done' sh "$REAL_CELL" --root "$STATE" run "${BR[@]}" -- true
	[ "$status" -eq 0 ]
	cell rm -f keeper
	[ -z "$(net_leftovers)" ]
}

# out_ping JAIL [TRIES]: JAIL pings the outside's 198.51.100.1 (one try a
# second, TRIES of them, 5 unless given).
out_ping() {
	local i
	for ((i = 0; i < ${2:-5}; i++)); do
		cell exec "$1" busybox ping -c 1 -W 1 198.51.100.1 >/dev/null 2>&1 && return 0
	done
	return 1
}

@test "a FORWARD policy of drop (docker's) stops a bridged jail's traffic out until cell(8)'s two rules let the bridge through" {
	command -v iptables >/dev/null || skip "needs iptables"
	# The outside: a namespace behind a veth, the test namespace's route
	# out; the jail's traffic is forwarded and masqueraded to it.
	OUT_NETNS=$NETNS-out
	ip netns add "$OUT_NETNS"
	ip -n "$NETNS" link add up0 type veth peer name out0 netns "$OUT_NETNS"
	ip -n "$OUT_NETNS" addr add 198.51.100.1/24 dev out0
	ip -n "$OUT_NETNS" link set out0 up
	ip -n "$NETNS" addr add 198.51.100.2/24 dev up0
	ip -n "$NETNS" link set up0 up
	ip -n "$NETNS" route add default via 198.51.100.1
	cell run -d --name a "${BR[@]}" --allow raw_sockets -- sleep 1000 >/dev/null
	wait_running a
	out_ping a
	# What docker does to the host's forwarding (iptables, here in the
	# test's namespace): cell's own accepting chain does not help, a
	# packet must pass every chain of the hook.
	innet iptables -P FORWARD DROP
	run out_ping a 1
	[ "$status" -ne 0 ]
	[[ "$(innet iptables -L FORWARD -v -x -n | head -n 1)" =~ "policy DROP "[1-9] ]]
	innet iptables -I FORWARD -i cellt0 -j ACCEPT
	innet iptables -I FORWARD -o cellt0 -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
	out_ping a
	cell rm -f a >/dev/null
	innet iptables -F FORWARD
	innet iptables -P FORWARD ACCEPT
	innet nft delete table ip filter 2>/dev/null || true
}

@test "a jail's network goes with it, the bridge with its last jail, and comes back with cell start" {
	cell run -d --name a "${BR[@]}" -- sleep 1000 >/dev/null
	cell run -d --name b "${BR[@]}" -p 8080:80 -- sleep 1000 >/dev/null
	[ "$(innet ip -o link show type bridge | wc -l)" -eq 1 ]
	cell rm -f b
	[ "$(innet ip -o link show type bridge | wc -l)" -eq 1 ]
	run innet nft list ruleset
	[[ "$output" != *8080* ]]
	cell stop a
	[ -z "$(net_leftovers)" ]
	[ "$(jq -r .network.active "$STATE/a/state.json")" = false ]
	# Started again, it has its address back, on a bridge made anew.
	addr=$(jq -c '."ip4.addr"' "$STATE/a/state.json")
	cell start a >/dev/null
	[ "$(jq -c '."ip4.addr"' "$STATE/a/state.json")" = "$addr" ]
	run cell exec a ip -o -4 addr show dev eth0
	[[ "$output" == *"$(jq -r '."ip4.addr"[0]' "$STATE/a/state.json")"* ]]
	cell rm -f a
}
