#!/usr/bin/env bats
# Attacks through the roots and binds a jail is handed (security issue
# 13, "The root and its mounts"): a --rootfs that is, or leads to, the
# host's root; mount points that are symlinks, or become one while cell
# starts; device nodes in a writable root or a bind.
#
# Safety: every probe runs behind JAIL_GUARD_SH (helpers.bash): it exits
# 99 unless it is in a UTS and a pid namespace other than the host's.
# A probe only opens and reads; a write it tries is to a file of the
# test's own.
load ../integration/helpers

setup() {
	cell_setup
	SWAPPER=
}

teardown() {
	local r=0
	[ -n "$SWAPPER" ] && kill -KILL "$SWAPPER" 2>/dev/null && wait "$SWAPPER" 2>/dev/null
	cell_teardown || r=$?
	return $r
}

@test "a --rootfs that is a symlink to / is refused, not run on the host's root" {
	ln -s / "$WORK/root"
	run --separate-stderr cell run --rootfs "$WORK/root" --rw -- /bin/true
	[ "$status" -eq 125 ]
	[ "$stderr" = "cell: run: --rootfs $WORK/root: a symlink (give the directory itself): Too many levels of symbolic links" ]
	[ -z "$(ls -A "$STATE")" ]
}

@test "a --rootfs that is the host's own root is refused" {
	run --separate-stderr cell run --rootfs / -- /bin/true
	[ "$status" -eq 125 ]
	[[ "$stderr" == "cell: run: --rootfs /: the host's own root"* ]]
	mkdir "$WORK/again"
	mount --bind / "$WORK/again"
	run --separate-stderr cell run --rootfs "$WORK/again" -- /bin/true
	umount "$WORK/again"
	[ "$status" -eq 125 ]
	[[ "$stderr" == "cell: run: --rootfs $WORK/again: the host's own root"* ]]
	[ -z "$(ls -A "$STATE")" ]
}

@test "a --rootfs that others than root may change is refused" {
	make_rootfs "$WORK/r"
	chmod 0777 "$WORK/r"
	run --separate-stderr cell run --rootfs "$WORK/r" -- /bin/true
	[ "$status" -eq 125 ]
	[ "$stderr" = "cell: run: --rootfs $WORK/r: others than root may change it (owner 0, mode 0777): Operation not permitted" ]
	chmod 0755 "$WORK/r"
	# A parent of another user's, writable by them.
	mkdir -p "$WORK/p/q"
	make_rootfs "$WORK/p/q/r"
	chown 65534 "$WORK/p"
	run --separate-stderr cell run --rootfs "$WORK/p/q/r" -- /bin/true
	[ "$status" -eq 125 ]
	[[ "$stderr" == "cell: run: --rootfs $WORK/p/q/r: others than root may change its parent $WORK/p (owner 65534"* ]]
	chown 0 "$WORK/p"
	# Under a sticky directory anyone may write (/var/tmp): fine.
	run cell run --rootfs "$WORK/r" -- /bin/true
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$STATE")" ]
}

# A --rootfs whose proc is a symlink through a directory that a later
# mount of cell's covers: proc -> run/l/x, run/l -> /y.  Once, the
# jail's proc went to /y/x, with no read-only /proc/sys and no masks.
@test "a rootfs whose proc is a symlink is refused, not run unprotected" {
	make_rootfs "$WORK/r"
	mkdir -p "$WORK/r/run" "$WORK/r/y"
	ln -s run/l/x "$WORK/r/proc"
	ln -s /y "$WORK/r/run/l"
	run --separate-stderr jail_sh --rootfs "$WORK/r" '( exec 3>>/y/x/sys/kernel/core_pattern ) 2>/dev/null && echo WRITABLE
echo ran'
	[ "$status" -eq 125 ]
	[ "$output" = "" ]
	[[ "$stderr" == "cell: run: jail "*": mount point /proc: a symlink on the way (refused): Too many levels of symbolic links" ]]
	[ -z "$(ls -A "$STATE")" ]
}

# The same by a race: a host process swaps proc with a symlink
# (renameat2 RENAME_EXCHANGE) while jails start.  Each start is refused,
# or its every proc is protected: sysctls read-only, kallsyms masked.
# The guard is JAIL_GUARD_SH's, reading the jail's proc where the swap,
# still going on, has left it for the moment (/proc or /procl).
RACE_PROBE='u= p=
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	for P in /proc /procl /y/x; do
		u=$(readlink $P/self/ns/uts 2>/dev/null) && p=$(readlink $P/self/ns/pid 2>/dev/null) && break 2
	done
done
[ -n "$u" ] && [ -n "$p" ] && [ "$u" != "$HOST_UTS" ] && [ "$p" != "$HOST_PID" ] || exit 99
for P in /proc /procl /y/x; do grep " - proc " $P/self/mountinfo 2>/dev/null; done | cut -d" " -f5 | sort -u >/tmp/procs
for m in $(cat /tmp/procs) /proc /procl /y/x; do
	[ -e "$m/sys/kernel/core_pattern" ] || continue
	# Opened for appending, nothing written: EROFS unless writable.
	( exec 3>>"$m/sys/kernel/core_pattern" ) 2>/dev/null && echo "WRITABLE $m"
	[ -s "$m/kallsyms" ] && echo "KALLSYMS $m"
done
echo ran'

@test "a proc swapped with a symlink while cell starts is never mounted unprotected" {
	make_rootfs "$WORK/r"
	ln -s busybox "$WORK/r/bin/cut"
	ln -s busybox "$WORK/r/bin/sort"
	mkdir -p "$WORK/r/proc" "$WORK/r/run" "$WORK/r/y/x"
	ln -s run/l/x "$WORK/r/procl"
	ln -s /y "$WORK/r/run/l"
	python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
d = os.open(sys.argv[1], os.O_PATH | os.O_DIRECTORY)
AT_RENAME_EXCHANGE = 2
while True:
    libc.renameat2(d, b"proc", d, b"procl", AT_RENAME_EXCHANGE)
' "$WORK/r" &
	SWAPPER=$!
	local i refused=0 ran=0
	for i in $(seq 60); do
		run cell run -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" --rootfs "$WORK/r" \
			--name "race$i" -- sh -c "$RACE_PROBE"
		case $status in
		0) ran=$((ran + 1)) ;;
		125) refused=$((refused + 1)) ;;
		*)
			echo "start $i: status $status: $output" >&2
			return 1
			;;
		esac
		[[ "$output" != *WRITABLE* ]]
		[[ "$output" != *KALLSYMS* ]]
	done
	echo "ran $ran, refused $refused"
	[ -z "$(ls -A "$STATE")" ]
}

@test "device nodes in a --rw rootfs do not work" {
	make_rootfs "$WORK/r"
	mkdir -p "$WORK/r/devs"
	mknod "$WORK/r/devs/zero" c 1 5
	ln -s busybox "$WORK/r/bin/head"
	run jail_sh --rootfs "$WORK/r" --rw 'head -c1 /devs/zero >/dev/null 2>&1 && echo opened; echo done'
	[ "$status" -eq 0 ]
	[ "$output" = done ]
	# The jail's own /dev still works.
	run jail_sh --rootfs "$WORK/r" --rw 'head -c1 /dev/zero >/dev/null && echo opened'
	[ "$output" = opened ]
}

@test "device nodes in a --bind, even read-only, do not work unless :dev" {
	mkdir -p "$WORK/devs"
	mknod "$WORK/devs/zero" c 1 5
	run jail_sh --bind "$WORK/devs:/tmp/devs:ro" 'head -c1 /tmp/devs/zero >/dev/null 2>&1 && echo opened; echo done'
	[ "$status" -eq 0 ]
	[ "$output" = done ]
	run jail_sh --bind "$WORK/devs:/tmp/devs:ro:dev" 'head -c1 /tmp/devs/zero >/dev/null 2>&1 && echo opened; echo done'
	[ "$status" -eq 0 ]
	[ "$output" = "opened
done" ]
}
