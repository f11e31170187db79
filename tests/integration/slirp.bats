#!/usr/bin/env bats
# --net slirp (issue 17): a jail's own network namespace reaching out
# through a user-mode stack, pasta or (without it) slirp4netns; --publish
# through it; the program's life (it ends with the jail, however the jail
# or cell ends); the errors; and the same as a plain user (rootless).
#
# Never the host's network: every test makes a network namespace of its
# own (cell-slirp-PID-N) with an "uplink" (a veth pair: this kernel has no
# dummy interfaces) holding the documentation address 192.0.2.1/24 and a
# default route, a server on it, and runs cell in it (a wrapper, $CELL,
# that nsenter(1)s it).  The namespace is the stack's "host": its program
# and keeper run there, which is how the tests find them (slirp_procs).
# Teardown fails on a program or keeper left there, and deletes it.
load helpers

# netns_add, innet, netns_wrap_cell, netns_unwrap_cell; the /run/netns mount
# shellcheck source=../netns.bash
source "$BATS_TEST_DIRNAME/../netns.bash"
# throwaway_user_add, throwaway_as, throwaway_user_del (the rootless tests)
# shellcheck source=../rootless.bash
source "$BATS_TEST_DIRNAME/../rootless.bash"
setup_file() { netns_mount_note; }
teardown_file() { netns_mount_restore; }

setup() {
	command -v nsenter >/dev/null || skip "needs nsenter"
	command -v pasta >/dev/null || command -v slirp4netns >/dev/null ||
		skip "needs pasta or slirp4netns"
	cell_setup
	NETNS=cell-slirp-$$-${BATS_TEST_NUMBER}
	netns_add "$NETNS" uplink
	netns_wrap_cell "$WORK"
	HOOK_PIDS=()
	SERVER_PIDS=()
	RL_USER=
}

teardown() {
	local errors=() pid left
	for pid in "${HOOK_PIDS[@]}" "${SERVER_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	if [ -n "$RL_USER" ]; then
		rl_teardown || errors+=("rootless: jails or files left")
	fi
	cell_rm_all || errors+=("a jail outlived cell rm -f")
	if ! wait_no_slirp; then
		left=$(slirp_procs | tr '\n' ' ')
		errors+=("slirp programs or keepers left: $left")
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null || true
	fi
	cell_teardown || errors+=("cell_teardown")
	netns_unwrap_cell
	unset CELL_PASTA CELL_SLIRP4NETNS
	if [ "${#errors[@]}" -gt 0 ]; then
		printf 'teardown: %s\n' "${errors[@]}" >&2
		return 1
	fi
}

# serve ARG...: ARG... in the test's namespace, in the background, its
# pid (nsenter's, which execs it: no shell between) killed by teardown.
serve() {
	nsenter --net="/run/netns/$NETNS" "$@" 3>&- &
	SERVER_PIDS+=($!)
}

# use_prog pasta|slirp4netns: the program cell is to find (the other
# hidden from it by its override), or a skip when it is not installed.
use_prog() {
	command -v "$1" >/dev/null || skip "needs $1"
	if [ "$1" = slirp4netns ]; then
		export CELL_PASTA=/nonexistent
	else
		unset CELL_PASTA
	fi
}

# slirp_procs: the live programs (pasta, slirp4netns) and keepers
# (cell-slirp) of the test's namespace, one pid a line.
slirp_procs() {
	local ino p comm
	ino=$(stat -L -c %i "/run/netns/$NETNS")
	for p in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$p/comm" || continue
		case $comm in
		pasta* | passt* | slirp4netns | cell-slirp) ;;
		*) continue ;;
		esac
		[ "$(readlink "$p/ns/net" 2>/dev/null)" = "net:[$ino]" ] || continue
		pid_ended "${p#/proc/}" || echo "${p#/proc/}"
	done
}

# wait_no_slirp [TENTHS]: until no program or keeper is left (10 s).
wait_no_slirp() {
	local i
	for ((i = 0; i < ${1:-100}; i++)); do
		[ -z "$(slirp_procs)" ] && return 0
		sleep 0.1
	done
	return 1
}

# host_servers: "hello host" over HTTP on 192.0.2.1:9000 and a UDP echo
# ("echo DATA") on 192.0.2.1:9001, in the test's namespace.
host_servers() {
	mkdir -p "$WORK/www"
	echo "hello host" >"$WORK/www/index.html"
	serve busybox httpd -f -p 192.0.2.1:9000 -h "$WORK/www"
	serve /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("192.0.2.1", 9001))
while True:
    d, a = s.recvfrom(512)
    s.sendto(b"echo " + d, a)'
	local i
	for ((i = 0; i < 50; i++)); do
		innet curl -sf -m 1 http://192.0.2.1:9000/ >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "the host's server did not start" >&2
	return 1
}

# UDP_CLIENT HOST PORT: a python3 -c that sends "ping" to HOST:PORT and
# prints the answer (tries 5 times, 1 s each).
UDP_CLIENT='import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
for _ in range(5):
    s.sendto(b"ping", (sys.argv[1], int(sys.argv[2])))
    try:
        print(s.recvfrom(512)[0].decode())
        break
    except socket.timeout:
        pass'

# a_server NAME ARG...: a detached slirp jail NAME serving "hello NAME"
# over HTTP on port 80 and a UDP echo on 53, with the extra ARGs of run.
a_server() {
	local name=$1
	shift
	cell run -d --name "$name" --net slirp "$@" -- sh -c "mkdir -p /tmp/www &&
		echo hello $name >/tmp/www/index.html || exit 1
		python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((\"0.0.0.0\", 53))
while True:
    d, a = s.recvfrom(512)
    s.sendto(b\"jail \" + d, a)' &
		exec busybox httpd -f -p 80 -h /tmp/www" >/dev/null
	wait_running "$name"
}

# fetch URL: curl of URL from the test's namespace, retried for up to
# 5 s while the jail's server starts.
fetch() {
	local i
	for ((i = 0; i < 25; i++)); do
		output=$(innet curl -sfg -m 2 "$1" 2>/dev/null) && return 0
		sleep 0.2
	done
	return 1
}

# The program of jail NAME, as its record names it.
helper_pid() {
	jq -r '.network.pid' "$STATE/$1/state.json"
}

outbound() {
	use_prog "$1"
	host_servers
	run cell run --net slirp -- curl -sf -m 5 http://192.0.2.1:9000/
	[ "$status" -eq 0 ]
	[ "$output" = "hello host" ]
	run cell run --net slirp -- python3 -c "$UDP_CLIENT" 192.0.2.1 9001
	[ "$status" -eq 0 ]
	[ "$output" = "echo ping" ]
}

@test "a slirp jail reaches a server of the host's network over TCP and UDP (pasta)" {
	outbound pasta
}

@test "a slirp jail reaches a server of the host's network over TCP and UDP (slirp4netns)" {
	outbound slirp4netns
}

published() {
	use_prog "$1"
	a_server web -p 8080:80 -p 5300:53/udp
	fetch http://127.0.0.1:8080/
	[ "$output" = "hello web" ]
	fetch http://192.0.2.1:8080/
	[ "$output" = "hello web" ]
	# UDP from the host's address: the loopback's datagrams reach the jail,
	# but the stacks that keep the jail off the host's loopback drop the
	# answers' way back there (slirp4netns --disable-host-loopback; pasta
	# -U none, in Debian 12's; docs/cell.8).
	run innet /usr/bin/python3 -c "$UDP_CLIENT" 192.0.2.1 5300
	[ "$output" = "jail ping" ]
	# A port not published does not answer.
	run innet curl -sf -m 2 http://127.0.0.1:80/
	[ "$status" -ne 0 ]
}

@test "a published port answers from the namespace's loopback and its address (pasta)" {
	published pasta
}

@test "a published port answers from the namespace's loopback and its address (slirp4netns)" {
	published slirp4netns
}

@test "a published port bound to a host address answers there only" {
	use_prog pasta
	a_server web -p 127.0.0.1:8080:80
	fetch http://127.0.0.1:8080/
	[ "$output" = "hello web" ]
	run innet curl -sf -m 2 http://192.0.2.1:8080/
	[ "$status" -ne 0 ]
}

@test "a slirp jail cannot reach the host's loopback (pasta and slirp4netns)" {
	local prog
	host_servers
	# Only on the namespace's loopback: what the stack must keep out.
	serve busybox httpd -f -p 127.0.0.1:9002 -h "$WORK/www"
	for prog in pasta slirp4netns; do
		command -v "$prog" >/dev/null || continue
		use_prog "$prog"
		# The same jail reaches the host's address (the stack works) but
		# not its loopback, through the gateway or otherwise.
		run cell run --net slirp -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" -- sh -c \
			"$JAIL_GUARD_SH
			curl -sf -m 5 http://192.0.2.1:9000/ || exit 3
			for a in 10.0.2.2 127.0.0.1 192.0.2.1; do
				curl -sf -m 2 http://\$a:9002/ && exit 4
			done
			exit 0"
		[ "$status" -eq 0 ] || { echo "$prog: $status $output" >&2; return 1; }
		[ "$output" = "hello host" ]
	done
}

@test "a slirp jail's resolv.conf names the stack's forwarder, its hosts its address" {
	use_prog pasta
	run cell run --net slirp --name web --domainname example.org -- \
		sh -c 'cat /etc/hosts /etc/hostname /etc/resolv.conf; ip -o -4 addr show dev eth0; ip route'
	[ "$status" -eq 0 ]
	[[ "$output" == *"127.0.0.1	localhost"* ]]
	[[ "$output" == *"10.0.2.100	web.example.org web"* ]]
	[ "$(grep nameserver <<<"$output")" = "nameserver 10.0.2.3" ]
	[[ "$output" == *"inet 10.0.2.100/24"* ]]
	[[ "$output" == *"default via 10.0.2.2 dev eth0"* ]]
	# --dns replaces the forwarder.
	run cell run --net slirp --dns 192.0.2.53 -- cat /etc/resolv.conf
	[ "$(grep nameserver <<<"$output")" = "nameserver 192.0.2.53" ]
}

@test "inspect names the stack, its program's pid and the published ports; ls shows net slirp" {
	use_prog pasta
	cell run -d --name web --net slirp -p 8080:80 -p 127.0.0.1:5353:53/udp -- sleep 1000 >/dev/null
	wait_running web
	run cell inspect --json web
	[ "$status" -eq 0 ]
	[ "$(jq -r .network.mode <<<"$output")" = slirp ]
	[ "$(jq -r .network.helper <<<"$output")" = pasta ]
	[ "$(jq -r .network.running <<<"$output")" = true ]
	[ "$(jq -r .network.address <<<"$output")" = 10.0.2.100/24 ]
	[ "$(jq -c .network.published <<<"$output")" = '["8080:80/tcp","127.0.0.1:5353:53/udp"]' ]
	pid=$(jq -r .network.pid <<<"$output")
	grep -qx "$pid" <<<"$(slirp_procs)"
	run cell ls -n -o name,net
	[ "$output" = "name=web net=slirp" ]
	cell stop web >/dev/null
	run cell inspect --json web
	[ "$(jq -r .network.running <<<"$output")" = false ]
}

@test "a jail file's vnet = slirp makes a slirp jail" {
	use_prog pasta
	cat >"$WORK/cell.conf" <<-EOF
		web {
		    vnet = slirp;
		    publish = 8080:80;
		    exec.start = "exec sleep 1000";
		}
	EOF
	run cell up -f "$WORK/cell.conf"
	[ "$status" -eq 0 ]
	run cell ls -n -o name,net,publish
	[ "$output" = "name=web net=slirp publish=8080:80/tcp" ]
	[ -n "$(slirp_procs)" ]
}

# --- the program's life -----------------------------------------------

lifecycle() {
	use_prog "$1"
	# A foreground jail's: gone when it ends.
	run cell run --net slirp -- true
	[ "$status" -eq 0 ]
	wait_no_slirp
	# A detached jail's outlives cell, and goes with cell stop.
	cell run -d --name web --net slirp -- sleep 1000 >/dev/null
	wait_running web
	pid=$(helper_pid web)
	grep -qx "$pid" <<<"$(slirp_procs)"
	cell stop web >/dev/null
	wait_no_slirp
	[ "$(jq -r .network.active "$STATE/web/state.json")" = false ]
	# Started again, a new one; gone with rm -f.
	cell start web >/dev/null
	wait_running web
	[ "$(helper_pid web)" != "$pid" ]
	[ -n "$(slirp_procs)" ]
	cell rm -f web >/dev/null
	wait_no_slirp
}

@test "the stack's program goes with a foreground jail, cell stop and rm of a detached one (pasta)" {
	lifecycle pasta
}

@test "the stack's program goes with a foreground jail, cell stop and rm of a detached one (slirp4netns)" {
	lifecycle slirp4netns
}

@test "a detached jail's program goes when the jail ends on its own, with no cell command" {
	local prog
	for prog in pasta slirp4netns; do
		command -v "$prog" >/dev/null || continue
		use_prog "$prog"
		cell run -d --name "w$prog" --net slirp -- sleep 3 >/dev/null
		wait_running "w$prog"
		[ -n "$(slirp_procs)" ]
		wait_no_slirp || { echo "$prog outlived its jail" >&2; return 1; }
	done
}

@test "the stack's program goes when cell is killed -9 while its foreground jail runs" {
	local prog
	for prog in pasta slirp4netns; do
		command -v "$prog" >/dev/null || continue
		use_prog "$prog"
		cell_bg "$WORK/out" --name fg --net slirp -- sleep 1000
		wait_running fg
		[ -n "$(slirp_procs)" ]
		kill -KILL "$BG_PID"
		wait "$BG_PID" 2>/dev/null || true
		wait_no_slirp || { echo "$prog outlived a killed cell" >&2; return 1; }
		# The next command finds the jail gone and removes it.
		run cell ls -a
		[ "$status" -eq 0 ]
		[ ! -e "$STATE/fg" ]
	done
}

@test "cell killed -9 in the net stage, before or after the program is ready, leaves nothing" {
	[ -x "${CELL_TESTPOINTS:-}" ] || skip "needs the testpoints build (CELL_TESTPOINTS)"
	use_prog pasta
	local stage
	for stage in run:net run:net-made; do
		PAUSE_CELL=$WORK/cell-tp pause_at "$stage" run -d --name web --net slirp -- sleep 1000
		[ "$stage" = run:net ] || [ -n "$(slirp_procs)" ]
		kill -KILL "$HOOK_PID"
		wait "$HOOK_PID" 2>/dev/null || true
		wait_no_slirp || { echo "a program outlived cell killed at $stage" >&2; return 1; }
		run cell ls -a
		[ "$status" -eq 0 ]
		[ -z "$(ls -A "$STATE" | grep -vx net.lock)" ] ||
			{ echo "after $stage: $(ls -A "$STATE")" >&2; return 1; }
	done
}

# --- errors -------------------------------------------------------------

@test "without pasta and slirp4netns, --net slirp fails with one line and leaves nothing" {
	export CELL_PASTA=/nonexistent CELL_SLIRP4NETNS=/nonexistent
	run cell run --net slirp -- true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "cell: run: --net slirp: needs pasta (Debian package passt) or slirp4netns, and neither is installed" ]
	run cell run -d --name web --net slirp -- sleep 1000
	[ "$status" -eq 125 ]
	[ -z "$(ls -A "$STATE" | grep -vx net.lock)" ]
	[ -z "$(slirp_procs)" ]
	# Found in PATH, absolute directories only, when not overridden.
	unset CELL_PASTA CELL_SLIRP4NETNS
	run innet env PATH=/nonexistent:bin "$REAL_CELL" --root "$STATE" run --net slirp -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"neither is installed" ]]
}

@test "--ip and --gateway are refused with --net slirp, saying why" {
	run cell run --net slirp --ip 10.0.2.5/24 -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --ip 10.0.2.5/24: not with --net slirp: its user-mode stack gives the jail 10.0.2.100/24 and the gateway 10.0.2.2" ]
	run cell run --net slirp --gateway 10.0.2.1 -- true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: --gateway 10.0.2.1: not with --net slirp: "* ]]
	[ -z "$(ls -A "$STATE" | grep -vx net.lock)" ]
}

@test "a program that fails to start fails the jail's start with its reason, and nothing is left" {
	use_prog pasta
	# A host port taken: pasta cannot bind it.
	serve busybox httpd -f -p 8080 -h /
	for ((i = 0; i < 50; i++)); do
		innet ss -Hltn 'sport = :8080' | grep -q . && break
		sleep 0.1
	done
	run cell run -d --name web --net slirp -p 8080:80 -- sleep 1000
	if [ "$status" -eq 0 ]; then
		skip "this pasta starts without the port it cannot bind"
	fi
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: "*"--net slirp: pasta: "* ]]
	[ -z "$(ls -A "$STATE" | grep -vx net.lock)" ]
	wait_no_slirp
}

# --- rootless -----------------------------------------------------------

# rl_setup: a throwaway user with subordinate ids (tests/rootless.bash),
# cell copied where it can run it; RL runs a command as that user in the
# test's namespace, with no XDG_RUNTIME_DIR (its state root
# /tmp/cell-UID) and CELL_PASTA passed on.
rl_setup() {
	command -v setpriv >/dev/null || skip "needs setpriv"
	throwaway_user_add SL sl
	RL_USER=$SL_USER RL_UID=$SL_UID
	RL_BIN=$(mktemp -d /tmp/cell-slirp-bin.XXXXXX)
	cp "$REAL_CELL" "$RL_BIN/cell"
	chmod 755 "$RL_BIN" "$RL_BIN/cell"
	RL_STATE=/tmp/cell-$RL_UID
	rl_tun 0666
}

RL() {
	local -a TU_ARGV
	throwaway_argv SL ""
	# In a mount namespace of its own where RL_TUN is /dev/net/tun: the
	# host's is left as it is (0600 where no udev made it 0666).
	unshare -m --propagation private sh -c 'mount --bind "$0" /dev/net/tun && exec "$@"' \
		"$RL_TUN" nsenter --net="/run/netns/$NETNS" \
		"${TU_ARGV[@]}" ${CELL_PASTA:+CELL_PASTA=$CELL_PASTA} "$@"
}

# rl_tun MODE: RL's /dev/net/tun, a node of the tun device with MODE.
rl_tun() {
	rm -f "$RL_BIN/tun"
	mknod -m "$1" "$RL_BIN/tun" c 10 200
	RL_TUN=$RL_BIN/tun
}

rl_teardown() {
	local ret=0 name
	for name in $(RL "$RL_BIN/cell" ls -aq 2>/dev/null); do
		RL "$RL_BIN/cell" rm -f "$name" >/dev/null 2>&1 || ret=1
	done
	[ -z "$(ls -A "$RL_STATE" 2>/dev/null)" ] || ret=1
	rm -rf "$RL_BIN"
	throwaway_user_del SL || ret=1
	RL_USER=
	return $ret
}

rootless() {
	use_prog "$1"
	rl_setup
	host_servers
	run RL "$RL_BIN/cell" run --net slirp -- curl -sf -m 5 http://192.0.2.1:9000/
	[ "$status" -eq 0 ]
	[ "$output" = "hello host" ]
	run RL "$RL_BIN/cell" run -d --name web --net slirp -p 8080:80 -- sh -c \
		'mkdir -p /tmp/www && echo hello rootless >/tmp/www/index.html &&
		exec busybox httpd -f -p 80 -h /tmp/www'
	[ "$status" -eq 0 ]
	fetch http://127.0.0.1:8080/
	[ "$output" = "hello rootless" ]
	pid=$(jq -r .network.pid "$RL_STATE/web/state.json")
	grep -qx "$pid" <<<"$(slirp_procs)"
	# The program is the user's, not root's.
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = "$RL_UID" ]
	run RL "$RL_BIN/cell" stop web
	[ "$status" -eq 0 ]
	wait_no_slirp
	RL "$RL_BIN/cell" rm web >/dev/null
}

@test "a rootless slirp jail reaches out and publishes a port (pasta)" {
	rootless pasta
}

@test "a rootless slirp jail reaches out and publishes a port (slirp4netns)" {
	rootless slirp4netns
}

@test "a rootless slirp jail on a host whose /dev/net/tun users cannot open is refused at once, saying why" {
	for prog in pasta slirp4netns; do
		command -v "$prog" >/dev/null || continue
		use_prog "$prog"
		[ -n "$RL_USER" ] || rl_setup
		rl_tun 0600
		run RL "$RL_BIN/cell" run --net slirp -- true
		[ "$status" -eq 125 ]
		[ "${#lines[@]}" -eq 1 ]
		[ "$output" = "cell: run: --net slirp: $prog cannot open /dev/net/tun as uid $RL_UID (Permission denied): a rootless slirp needs it open to users (mode 0666, as udev makes it)" ]
		[ -z "$(ls -A "$RL_STATE" 2>/dev/null)" ]
		wait_no_slirp
	done
}
