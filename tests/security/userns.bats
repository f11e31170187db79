#!/usr/bin/env bats
# The jail's root is not the host's root (security issue 13): every jail
# has a user namespace of its own whose ids 0-65535 are a range of host
# ids of its own, so its root reads no root-only host file, connects to
# no root-only host socket, shares no per-uid kernel quota with the
# host's root, and two jails never share ids.  --userns host keeps the
# old, weaker model (the jail's root is the host's root without
# capabilities), which some tests run too, to show what the attack
# would reach.
#
# Safety: every probe runs behind a guard that exits 99 unless it is in
# a UTS and a pid namespace other than the host's (JAIL_GUARD_SH of
# helpers.bash, and its python twin below).  A probe only reads, opens
# or connects; the inotify probe holds instances in the jail's own
# quota only (never under --userns host, where it would take root's).
load ../integration/helpers

GUARD_PY=$JAIL_GUARD_PY

setup() {
	cell_setup
	SERVER=
	# A directory the embedded root shows to anyone ($WORK itself is
	# 0700), holding root's own things.
	PUB=$WORK/pub
	chmod 755 "$WORK"
	mkdir -m 755 "$PUB"
}

teardown() {
	local r=0
	[ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null
	cell_teardown || r=$?
	return $r
}

# field NAME KEY: KEY of `cell inspect NAME`.
field() {
	cell inspect "$1" | sed -n "s/^$2=//p"
}

# The first host uid of jail NAME's range, from its running pid 1.
range_of() {
	local pid
	pid=$(field "$1" pid)
	awk '{ print $2; exit }' "/proc/$pid/uid_map"
}

@test "a jail's root cannot read a root-only host file that the embedded root shows: EACCES" {
	echo secret >"$PUB/secret"
	chmod 600 "$PUB/secret"
	echo public >"$PUB/public"
	chmod 644 "$PUB/public"
	code="
try_call('read 0600', open, '$PUB/secret')
try_call('read 0644', open, '$PUB/public')"
	run jail_py "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "read 0600 EACCES
read 0644 ok" ]
	# What it was: the host's root without capabilities still owned it.
	run jail_py --userns host "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "read 0600 ok
read 0644 ok" ]
}

@test "a jail's root sees the host root's files as nobody's, and owns only its own" {
	run jail_sh 'stat -c "%u:%g" /etc/passwd /tmp /run /dev/shm; id -u; id -g'
	[ "$status" -eq 0 ]
	[ "$output" = "65534:65534
0:0
0:0
0:0
0
0" ]
}

@test "a jail's root cannot connect to a root-only host unix socket: EACCES" {
	python3 -c "
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind('$PUB/sock')
os.chmod('$PUB/sock', 0o600)
s.listen(8)
open('$PUB/ready', 'w').close()
while True:
    s.accept()[0].close()" &
	SERVER=$!
	wait_for "$PUB/ready"
	code="
s = socket.socket(socket.AF_UNIX)
try_call('connect', s.connect, '$PUB/sock')"
	run jail_py "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "connect EACCES" ]
	run jail_py --userns host "$code"
	[ "$status" -eq 0 ]
	[ "$output" = "connect ok" ]
}

@test "a jail's root is uid 0 inside and its range's first uid on the host" {
	cell run -d --name r -- sleep 100 >/dev/null
	pid=$(field r pid)
	base=$(range_of r)
	[ "$base" -ge 65536 ]
	[ "$(field r idmap.uid_map)" = "0 $base 65536" ]
	[[ "$(field r idmap.gid_map)" == "0 "*" 65536" ]]
	[ "$(field r userns)" = private ]
	[ "$(field r namespaces.user)" != "$(stat -L -c %i /proc/self/ns/user)" ]
	# host side
	[ "$(awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$pid/status")" = "$base $base $base $base" ]
	[ "$(stat -c %u "/proc/$pid")" = "$base" ]
	# jail side, from a process cell exec adds: it joins the namespace
	run cell exec -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" r sh -c "$JAIL_GUARD_SH
id -u; id -G; awk '/^Uid:/ { print \$2 }' /proc/1/status; cat /proc/self/uid_map"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = 0 ]
	[ "${lines[2]}" = 0 ]
	[ "$(echo ${lines[3]})" = "0 $base 65536" ]
}

@test "two jails get disjoint ranges, and each holds its range in /run/cell-ids" {
	cell run -d --name a -- sleep 100 >/dev/null
	cell run -d --name b -- sleep 100 >/dev/null
	a=$(range_of a)
	b=$(range_of b)
	[ "$a" -ne "$b" ]
	[ $((a > b ? a - b : b - a)) -ge 65536 ]
	ga=$(field a idmap.gid_map | cut -d' ' -f2)
	gb=$(field b idmap.gid_map | cut -d' ' -f2)
	[ $((ga > gb ? ga - gb : gb - ga)) -ge 65536 ]
	grep -qx "root $STATE" "/run/cell-ids/u$a-g$ga"
	grep -qx "name a" "/run/cell-ids/u$a-g$ga"
	grep -qx "name b" "/run/cell-ids/u$b-g$gb"
}

@test "a jail's range is held while it exists, released by rm, and a new jail can get it" {
	cell run -d --name a -- sleep 100 >/dev/null
	a=$(range_of a)
	ga=$(field a idmap.gid_map | cut -d' ' -f2)
	cell stop a
	# stopped, not removed: still held (its files may carry its ids)
	[ -e "/run/cell-ids/u$a-g$ga" ]
	cell rm a
	[ ! -e "/run/cell-ids/u$a-g$ga" ]
	# the lowest free range is taken: the one a gave back
	cell run -d --name b -- sleep 100 >/dev/null
	[ "$(range_of b)" = "$a" ]
	cell rm -f b
	[ ! -e "/run/cell-ids/u$a-g$ga" ]
	# a foreground jail gives its range back when it ends
	run cell run -- cat /proc/self/uid_map
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "0 $a 65536" ]
	[ ! -e "/run/cell-ids/u$a-g$ga" ]
}

@test "a file the jail's root writes into a --bind is root's on the host, and the bind's owners show as on disk" {
	mkdir "$WORK/data"
	touch "$WORK/data/users"
	chown 1000:1000 "$WORK/data/users"
	run jail_sh --bind "$WORK/data:/srv" 'echo x >/srv/new && mkdir /srv/dir && stat -c "%u:%g" /srv /srv/users'
	[ "$status" -eq 0 ]
	[ "$output" = "0:0
1000:1000" ]
	[ "$(stat -c %u:%g "$WORK/data/new" "$WORK/data/dir")" = "0:0
0:0" ]
}

@test "a --rootfs is idmapped: its owners show as on disk, and what the jail writes keeps them" {
	make_rootfs "$WORK/root"
	mkdir -p "$WORK/root/home/u"
	chown 1000:1000 "$WORK/root/home/u"
	echo s >"$WORK/root/etc-secret"
	chmod 600 "$WORK/root/etc-secret"
	run cell run --rootfs "$WORK/root" --rw -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" -- \
		sh -c "$JAIL_GUARD_SH"'
stat -c "%u:%g" /home/u /bin/busybox
cat /etc-secret
touch /made'
	[ "$status" -eq 0 ]
	[ "$output" = "1000:1000
0:0
s" ]
	[ "$(stat -c %u:%g "$WORK/root/made")" = "0:0" ]
}

@test "a jail's inotify instances count against its own quota, not the host root's" {
	max=$(cat /proc/sys/fs/inotify/max_user_instances)
	[ "$max" -lt 1000 ] || skip "fs.inotify.max_user_instances is $max"
	# The jail takes every instance it can (at most 1000), says how
	# many, and holds them.
	# (its output to the log: cell's stdout is bats's pipe)
	run cell run -d --name ino -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" -- \
		python3 -c "$GUARD_PY"'
import time
libc = ctypes.CDLL(None, use_errno=True)
fds = []
while len(fds) < 1000 and libc.inotify_init1(0o2000000) >= 0:
    fds.append(1)
print(len(fds), errno.errorcode[ctypes.get_errno()], flush=True)
time.sleep(100)'
	[ "$status" -eq 0 ]
	for _ in $(seq 50); do [ -n "$(cell logs ino)" ] && break; sleep 0.1; done
	# All of the jail's own: none taken by root's processes on the host.
	[ "$(cell logs ino)" = "$max EMFILE" ]
	# and the host's root still gets one while the jail holds its all
	python3 -c 'import ctypes; l = ctypes.CDLL(None, use_errno=True); assert l.inotify_init1(0) >= 0'
}

@test "with --userns host the jail's root is the host's root without capabilities, as before" {
	cell run -d --name h --userns host -- sleep 100 >/dev/null
	pid=$(field h pid)
	[ "$(field h userns)" = host ]
	[ -z "$(field h idmap)" ] || [ "$(field h idmap)" = "" ]
	[ "$(field h namespaces.user)" = "$(stat -L -c %i /proc/self/ns/user)" ]
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" = 0 ]
	[[ "$(field h rules.host_root)" == off* ]]
	run jail_sh --userns host 'cat /proc/self/uid_map; stat -c %u /etc/passwd'
	[ "$status" -eq 0 ]
	[ "$(echo ${lines[0]})" = "0 0 4294967295" ]
	[ "${lines[1]}" = 0 ]
	ls /run/cell-ids 2>/dev/null | while read -r slot; do
		! grep -qx "root $STATE" "/run/cell-ids/$slot"
	done
}

@test "userns = host in a jail file is --userns host" {
	cat >"$WORK/cell.conf" <<EOF
h {
	userns = host;
	exec.start = "exec sleep 100";
}
EOF
	cell up -f "$WORK/cell.conf"
	[ "$(field h userns)" = host ]
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$(field h pid)/status")" = 0 ]
	cell down -f "$WORK/cell.conf"
}

@test "a bad --userns is a one-line error, exit 125, nothing left" {
	run cell run --userns nobody -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --userns nobody: expected private or host" ]
	[ -z "$(ls -A "$STATE")" ]
	cat >"$WORK/cell.conf" <<EOF
j {
	userns = shared;
	exec.start = true;
}
EOF
	run cell up -f "$WORK/cell.conf"
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"userns = shared: expected private or host" ]]
}
