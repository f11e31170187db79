#!/usr/bin/env bats
# A rootless cell's limits (cgroup_deleg.c): cgroups only beneath a
# cgroup v2 subtree delegated to the user; without one, a jail without
# limits runs without cgroups, and a limit that needs one is refused in
# one line that says why and how, before anything is made.  The user is
# nobody (setpriv), its state root $WORK/xdg/cell.  On a hybrid host like
# the build machine the cgroup2 at /sys/fs/cgroup/unified has no pids,
# memory or cpu controller, so even a directory root delegates there is
# no delegation for them; the limits applied through one are
# tests/vm's (cgroup2-guest.sh) and test_cgroup_deleg's.
load helpers

setup() {
	cell_setup
	nobody_xdg
	ROOTLESS_STATE=$WORK/xdg/cell
	DELEG=""
}

teardown() {
	local d
	for d in "$ROOTLESS_STATE"/*/; do
		[ -d "$d" ] && as_user rm -f "$(basename "$d")" >/dev/null 2>&1
	done
	# the cgroups this test made (cell's own beneath them would fail
	# the rmdir, and the test)
	if [ -n "$DELEG" ]; then
		rmdir "$DELEG/shell" 2>/dev/null || true
		rmdir "$DELEG" || echo "# cgroup $DELEG left behind" >&3
	fi
	cell_teardown
}

# as_user ARG...: cell ARG... as nobody, rootless, its state in $WORK/xdg.
as_user() {
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		env XDG_RUNTIME_DIR="$WORK/xdg" "$CELL" "$@"
}

# The cgroup2 mount: the whole /sys/fs/cgroup, or a hybrid host's unified.
v2_mount() {
	if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
		echo /sys/fs/cgroup
	elif [ "$(stat -f -c %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
		echo /sys/fs/cgroup/unified
	fi
}

# A directory of the cgroup2 that root made and gave to nobody, as
# systemd delegates (it, cgroup.procs, cgroup.subtree_control,
# cgroup.threads); a "shell" beneath it, root's, for cell to run in.
delegate() {
	local mnt
	mnt=$(v2_mount)
	[ -n "$mnt" ] || skip "no cgroup2 mount"
	DELEG=$mnt/cell-test-deleg-$$
	mkdir "$DELEG" || skip "cannot make a cgroup in $mnt"
	mkdir "$DELEG/shell"
	chown 65534:65534 "$DELEG" "$DELEG"/cgroup.{procs,subtree_control,threads}
}

@test "without root or a delegated cgroup v2 subtree, --memory is refused in one line saying how to get one, exit 125, nothing made" {
	# (no user of this host's cgroup2 is nobody's)
	run --separate-stderr as_user run --memory 64M -- true
	[ "$status" -eq 125 ]
	[ -z "$output" ]
	[ "$stderr" = 'cell: run: --memory 64M: needs a delegated cgroup v2 subtree (rootless, and none found): run in a scope of "systemd-run --user --scope -p Delegate=yes" or have root delegate a directory (chown it to you) and pass --cgroup-parent' ]
	[ -z "$(ls -A "$ROOTLESS_STATE" 2>/dev/null)" ]
	for flag in "--nrtask 20" "--cpus 0.5"; do
		# shellcheck disable=SC2086
		run --separate-stderr as_user run $flag -- true
		[ "$status" -eq 125 ]
		[ "$stderr" = "cell: run: $flag: needs a delegated cgroup v2 subtree (rootless, and none found): run in a scope of \"systemd-run --user --scope -p Delegate=yes\" or have root delegate a directory (chown it to you) and pass --cgroup-parent" ]
	done
	[ -z "$(ls -A "$ROOTLESS_STATE" 2>/dev/null)" ]
}

@test "without root, a jail without cgroup limits runs with its rlimits and no cgroup of its own" {
	run --separate-stderr as_user run --nofile 64 --memlock 1M -- \
		sh -c 'ulimit -n; ulimit -l; grep "^0::" /proc/self/cgroup'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 64 ]
	[ "${lines[1]}" = 1024 ]
	# cell's own cgroup, where the user's cell ran: none made for it
	[ "${lines[2]}" = "$(grep '^0::' /proc/self/cgroup)" ]
}

@test "without root, inspect says a jail has no cgroup, set of a limit is refused, stop ends every process of the jail" {
	as_user run -d --name w -- sh -c 'sleep 100 & sleep 100'
	run --separate-stderr as_user inspect w
	[ "$status" -eq 0 ]
	grep -qx 'cgroup=none (rootless, no delegated cgroup v2 subtree)' <<<"$output"
	pid=$(jq -r .pid "$ROOTLESS_STATE/w/state.json")
	pidns=$(readlink "/proc/$pid/ns/pid")

	run --separate-stderr as_user set w memory=64M
	[ "$status" -eq 125 ]
	[ "$stderr" = 'cell: set: jail w: memory=64M: needs a delegated cgroup v2 subtree (rootless, and none found): run in a scope of "systemd-run --user --scope -p Delegate=yes" or have root delegate a directory (chown it to you) and pass cgroup_parent' ]
	[ "$(jq -r '.cgroup, .memory' "$ROOTLESS_STATE/w/state.json")" = "null
null" ]

	# its pid namespace's init killed: the kernel ends the rest
	run --separate-stderr as_user stop -t 0 w
	[ "$status" -eq 0 ]
	for _ in $(seq 50); do
		left=$(in_pidns "$pidns")
		[ -z "$left" ] && break
		sleep 0.1
	done
	[ -z "$left" ]
	as_user rm w
}

@test "without root, a --cgroup-parent that is not the user's is refused, exit 125, nothing made" {
	mnt=$(v2_mount)
	[ -n "$mnt" ] || skip "no cgroup2 mount"
	run --separate-stderr as_user run --cgroup-parent / -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "cell: run: --cgroup-parent /: $mnt: not a cgroup v2 directory of yours (rootless: it, its cgroup.procs and its cgroup.subtree_control must be yours)" ]
	[ -z "$(ls -A "$ROOTLESS_STATE" 2>/dev/null)" ]
}

@test "without root, a delegated --cgroup-parent beside cell's own cgroup is refused: the move needs their common ancestor" {
	delegate
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	run --separate-stderr as_user run --cgroup-parent "${DELEG#"$(v2_mount)"}" --nrtask 5 -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == "cell: run: --cgroup-parent ${DELEG#"$(v2_mount)"}: cell runs in the cgroup $own, outside it, and a move from there needs write access to "*"/cgroup.procs, their common ancestor's (run cell inside the delegated directory)" ]]
	[ -z "$(ls "$DELEG" | grep '^cell')" ]
}

@test "without root, a delegated subtree without the controller a limit needs is refused naming it" {
	delegate
	[ "$(v2_mount)" = /sys/fs/cgroup/unified ] || skip "not a hybrid host"
	grep -qw pids "$(v2_mount)/cgroup.controllers" && skip "pids is on the unified hierarchy here"
	# root puts the user's shell in DELEG/shell; cell finds DELEG, the
	# topmost directory above it that is nobody's
	run --separate-stderr sh -c 'echo $$ >"$1/shell/cgroup.procs" && shift && exec "$@"' sh \
		"$DELEG" setpriv --reuid=65534 --regid=65534 --clear-groups \
		env XDG_RUNTIME_DIR="$WORK/xdg" "$CELL" run --nrtask 5 -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == "cell: run: --nrtask 5: needs the pids controller of a delegated cgroup v2 subtree (rootless, and $DELEG has "*"): run in a scope of"* ]]
	[ -z "$(ls "$DELEG" | grep '^cell')" ]
	[ -z "$(ls -A "$ROOTLESS_STATE" 2>/dev/null)" ]
}
