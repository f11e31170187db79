#!/usr/bin/env bats
# The devices and freezer cgroups: a jail that could reach a device node
# outside its /dev (a --rootfs, a --bind) gets a devices cgroup that
# allows only the standard set; every jail with cgroups gets a freezer,
# and `cell stop` freezes a v1 jail before it kills it.  The devices
# probes run inside the jail, behind JAIL_GUARD_SH.
load helpers

# A host character device that is no part of the standard set.
HOST_DEV=/dev/loop-control

setup() {
	cell_setup
	[ -c "$HOST_DEV" ] || skip "no $HOST_DEV on this host"
	# A node of that device that the jail's root could open but for the
	# devices cgroup: 0666 (the host's own is 0600 root's, which a jail's
	# root, with a user namespace of its own, cannot open anyway).
	DEV_NODE=$WORK/lc
	mknod -m 666 "$DEV_NODE" c "$((0x$(stat -c %t "$HOST_DEV")))" "$((0x$(stat -c %T "$HOST_DEV")))"
	make_rootfs "$WORK/root"
	ln -s busybox "$WORK/root/bin/head"
	ln -s busybox "$WORK/root/bin/wc"
}

# v1: the jail's directory of controller CTRL, from its record.
recorded() {
	jq -r ".cgroup.$2 // empty" "$STATE/$1/state.json"
}

v1_host() {
	[ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]
}

@test "a --rootfs jail cannot open a host device bound in: EPERM from its devices cgroup" {
	run jail_sh --rootfs "$WORK/root" --bind "$DEV_NODE:/tmp/lc:dev" \
		'(: </tmp/lc); echo "status $?"'
	[ "$status" -eq 0 ]
	[ "$output" = "sh: can't open /tmp/lc: Operation not permitted
status 1" ]
	# Without the policy there is no devices cgroup, and the jail's
	# root opens it: the EPERM above is the cgroup's.
	run jail_sh --no-policy --rootfs "$WORK/root" --bind "$DEV_NODE:/tmp/lc:dev" \
		'(: </tmp/lc); echo "status $?"'
	[ "$status" -eq 0 ]
	[ "$output" = "status 0" ]
}

@test "a --bind on the embedded root gets the devices cgroup too" {
	# (The embedded root is nodev, binds in it too: the open fails
	# with EACCES before the cgroup is asked.)
	cell run -d --name dev --bind "$DEV_NODE:/tmp/lc:dev" -- sleep 100 >/dev/null
	if v1_host; then
		[ -d "$(recorded dev devices)" ]
		[ "$(wc -l <"$(recorded dev devices)/devices.list")" -eq 8 ]
	else
		[ -d "$(recorded dev path)" ]
	fi
}

@test "a process cell exec adds to a --rootfs jail is held by its devices cgroup" {
	cell run -d --name dev --rootfs "$WORK/root" --bind "$DEV_NODE:/tmp/lc:dev" -- sleep 100 \
		>/dev/null
	run cell exec -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" dev sh -c \
		"$JAIL_GUARD_SH"$'\n''(: </tmp/lc); echo "status $?"; cat /dev/null && echo null'
	[ "$output" = "sh: can't open /tmp/lc: Operation not permitted
status 1
null" ]
}

@test "the standard devices still work in a --rootfs jail" {
	run jail_sh --rootfs "$WORK/root" '
echo x >/dev/null && echo null
test "$(head -c 4 /dev/zero | wc -c)" -eq 4 && echo zero
test "$(head -c 16 /dev/urandom | wc -c)" -eq 16 && echo urandom
head -c 1 /dev/random >/dev/null && echo random
echo x >/dev/full 2>/dev/null || echo full
exec 3<>/dev/ptmx && echo ptmx'
	[ "$status" -eq 0 ]
	[ "$output" = "null
zero
urandom
random
full
ptmx" ]
}

@test "a --rootfs jail with a pty (-t) has its terminal" {
	run_in_pty_held "$CELL --root $STATE run -t --rootfs $WORK/root -- sh -c 'tty; echo hi >/dev/console && echo console; echo ok >/dev/tty && echo tty'"
	[ "$status" -eq 0 ]
	[ "$output" = "/dev/pts/0
hi
console
ok
tty" ]
}

@test "devices.list of a --rootfs jail shows the standard set only (v1)" {
	v1_host || skip "cgroup v2: the rules are an eBPF program (tests/vm)"
	cell run -d --name dev --rootfs "$WORK/root" -- sleep 100 >/dev/null
	run cat "$(recorded dev devices)/devices.list"
	[ "$output" = "c 1:3 rwm
c 1:5 rwm
c 1:7 rwm
c 1:8 rwm
c 1:9 rwm
c 5:0 rwm
c 5:2 rwm
c 136:* rwm" ]
	# The jail sees the same in its own /sys/fs/cgroup.
	[ "$(cell exec dev cat /sys/fs/cgroup/devices/devices.list)" = "$output" ]
}

@test "a jail on the embedded root without binds gets no cgroups" {
	cell run -d --name plain -- sleep 100 >/dev/null
	[ "$(jq -r .cgroup "$STATE/plain/state.json")" = null ]
	cell run -d --name nopol --no-policy --rootfs "$WORK/root" -- sleep 100 >/dev/null
	[ "$(jq -r .cgroup "$STATE/nopol/state.json")" = null ]
}

@test "a --rootfs jail's devices and freezer cgroups are removed with it" {
	v1_host || skip "cgroup v2: one directory (tests/vm)"
	cell run -d --name dev --rootfs "$WORK/root" -- sleep 100 >/dev/null
	devices=$(recorded dev devices)
	freezer=$(recorded dev freezer)
	[ -d "$devices" ] && [ -d "$freezer" ]
	[ "$(cat "$freezer/freezer.state")" = THAWED ]
	[ -z "$(recorded dev pids)" ]
	pid=$(jq -r .pid "$STATE/dev/state.json")
	grep -qx "$pid" "$freezer/cgroup.procs"
	cell rm -f dev
	[ ! -e "$devices" ]
	[ ! -e "$freezer" ]
}

@test "a jail with a limit gets a freezer too, removed with it" {
	v1_host || skip "cgroup v2: cgroup.freeze of its one directory (tests/vm)"
	run cell run --name lim --nrtask 20 -- sh -c 'cat /sys/fs/cgroup/freezer/freezer.state; ls /sys/fs/cgroup'
	[ "$status" -eq 0 ]
	[ "$output" = "THAWED
freezer
pids" ]
	[ -z "$(find /sys/fs/cgroup/freezer -maxdepth 6 -type d -name "$(cell_cgroup_leaf lim)" 2>/dev/null)" ]
}

@test "cell stop of a jail that forks in a loop ends with its cgroups gone and no process left" {
	cell run -d --name bomb --rootfs "$WORK/root" --nrtask 100 -- \
		sh -c 'while :; do (sleep 100 &) 2>/dev/null; done' >/dev/null
	wait_running bomb
	pid=$(jq -r .pid "$STATE/bomb/state.json")
	ns=$(readlink "/proc/$pid/ns/pid")
	dirs=$(jq -r '.cgroup | to_entries[] | select(.key != "layout") | .value' "$STATE/bomb/state.json")
	[ -n "$dirs" ]
	# The loop is running: the pids cgroup fills up.
	for _ in $(seq 50); do
		[ "$(cat "$(jq -r '.cgroup.pids // .cgroup.path' "$STATE/bomb/state.json")/pids.current")" -ge 20 ] && break
		sleep 0.1
	done
	run cell stop -t 0 bomb
	[ "$status" -eq 0 ]
	for d in $dirs; do [ ! -e "$d" ]; done
	[ -z "$(in_pidns "$ns")" ]
	[ "$(jq -r .cgroup "$STATE/bomb/state.json")" = null ]
}

@test "cell stop freezes a v1 jail before its SIGKILL, and thaws it after" {
	[ -x "${CELL_TESTPOINTS:-}" ] || skip "needs the test-testpoints build (CELL_TESTPOINTS)"
	v1_host || skip "v2 kills through cgroup.kill, without a freeze"
	cell run -d --name bomb --rootfs "$WORK/root" -- \
		sh -c 'while :; do (sleep 100 &) 2>/dev/null; done' >/dev/null
	wait_running bomb
	freezer=$(recorded bomb freezer)
	CELL_TEST_PAUSE=stop:frozen CELL_TEST_PAUSE_FILE=$WORK/paused \
		"$CELL_TESTPOINTS" --root "$STATE" stop -t 0 bomb 3>&- &
	stopper=$!
	wait_for "$WORK/paused"
	[ "$(cat "$freezer/freezer.state")" = FROZEN ]
	kill -USR1 "$(cat "$WORK/paused")"
	wait_exit "$stopper"
	[ "$status" -eq 0 ]
	[ ! -e "$freezer" ]
}

@test "a jail left frozen by a cell stop killed mid-way is ended by the next stop" {
	[ -x "${CELL_TESTPOINTS:-}" ] || skip "needs the test-testpoints build (CELL_TESTPOINTS)"
	v1_host || skip "v2 kills through cgroup.kill, without a freeze"
	cell run -d --name frozen --rootfs "$WORK/root" -- sleep 100 >/dev/null
	wait_running frozen
	pid=$(jq -r .pid "$STATE/frozen/state.json")
	freezer=$(recorded frozen freezer)
	CELL_TEST_PAUSE=stop:frozen CELL_TEST_PAUSE_FILE=$WORK/paused \
		"$CELL_TESTPOINTS" --root "$STATE" stop -t 0 frozen 3>&- &
	stopper=$!
	wait_for "$WORK/paused"
	kill -KILL "$(cat "$WORK/paused")"
	wait "$stopper" || true
	[ "$(cat "$freezer/freezer.state")" = FROZEN ]
	run cell stop -t 0 frozen
	[ "$status" -eq 0 ]
	wait_ended "$pid"
	[ ! -e "$freezer" ]
}

@test "set of a limit gives a jail without cgroups a freezer too, removed with it" {
	v1_host || skip "cgroup v2: cgroup.freeze of its one directory (tests/vm)"
	cell run -d --name grow -- sh -c 'sleep 100 & exec sleep 100' >/dev/null
	wait_running grow
	[ "$(jq -r .cgroup "$STATE/grow/state.json")" = null ]
	pid=$(jq -r .pid "$STATE/grow/state.json")
	cell set grow nrtask=30
	freezer=$(recorded grow freezer)
	[ -d "$freezer" ] && [ -d "$(recorded grow pids)" ]
	grep -qx "$pid" "$freezer/cgroup.procs"
	[ "$(grep -c . "$freezer/cgroup.procs")" -eq "$(grep -c . "$(recorded grow pids)/cgroup.procs")" ]
	run cell stop -t 0 grow
	[ "$status" -eq 0 ]
	[ ! -e "$freezer" ]
}

@test "set of a limit on a --rootfs jail keeps its devices cgroup" {
	cell run -d --name grow --rootfs "$WORK/root" --bind "$DEV_NODE:/tmp/lc:dev" -- sleep 100 \
		>/dev/null
	cell set grow nrtask=30
	[ "$(cat "$(jq -r '.cgroup.pids // .cgroup.path' "$STATE/grow/state.json")/pids.max")" = 30 ]
	run cell exec -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" grow sh -c \
		"$JAIL_GUARD_SH"$'\n''(: </tmp/lc); echo "status $?"'
	[ "$output" = "sh: can't open /tmp/lc: Operation not permitted
status 1" ]
}
