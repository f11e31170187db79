#!/usr/bin/env bats
# A jail's root: a --rootfs DIR (read-only unless --rw) or the embedded
# root (the host's files, read-only, its secrets masked), with fresh
# /proc /dev /sys /tmp /run, the --bind mounts, and nothing of the host's
# tree beyond them.  Symlinks inside a rootfs are resolved inside it.
load helpers

setup() {
	cell_setup
	DIR=$WORK/root
	make_rootfs "$DIR"
	# Applets beyond the helpers' set, for looking around.
	for applet in find wc sort tr; do
		ln -s busybox "$DIR/bin/$applet"
	done
}

# The mountinfo "root" field the host shows for PATH: the path of PATH
# inside its filesystem.
fs_root_of() {
	local mnt root rel
	mnt=$(stat -c %m "$1")
	root=$(awk -v m="$mnt" '$5 == m { r = $4 } END { print r }' /proc/self/mountinfo)
	rel=${1#"$mnt"}
	[ "$mnt" = / ] && rel=$1
	echo "${root%/}$rel"
}

# The filesystem type and source the host's mountinfo shows for PATH.
fs_type_of() {
	local mnt
	mnt=$(stat -c %m "$1")
	awk -v m="$mnt" '$5 == m { sub(/.* - /, ""); r = $1 " " $2 } END { print r }' \
		/proc/self/mountinfo
}

@test "/ inside the jail is the --rootfs directory" {
	echo "from the rootfs" >"$DIR/marker"
	run cell run --rootfs "$DIR" -- cat /marker
	[ "$status" -eq 0 ]
	[ "$output" = "from the rootfs" ]
}

@test "/.. is / inside the jail" {
	touch "$DIR/marker"
	run cell run --rootfs "$DIR" -- sh -c 'cd /.. && pwd'
	[ "$status" -eq 0 ]
	[ "$output" = / ]
	run cell run --rootfs "$DIR" -- ls /..
	[ "$status" -eq 0 ]
	[ "$output" = "$(ls -1 "$DIR")" ]
	[[ "$output" == *marker* ]]
}

@test "the jail's mountinfo has one root, the rootfs, and no trace of the host's" {
	run cell run --rootfs "$DIR" -- cat /proc/self/mountinfo
	[ "$status" -eq 0 ]
	# Exactly one mount on /: the old root was detached, not stacked.
	[ "$(awk '$5 == "/"' <<<"$output" | wc -l)" -eq 1 ]
	root_line=$(awk '$5 == "/"' <<<"$output")
	read -r _ _ devno fsroot _ <<<"$root_line"
	[ "$devno" = "$(stat -c '%Hd:%Ld' "$DIR")" ]
	[ "$fsroot" = "$(fs_root_of "$DIR")" ]
	fstype=$(sed 's/.* - //' <<<"$root_line" | cut -d' ' -f1,2)
	[ "$fstype" = "$(fs_type_of "$DIR")" ]
	# Every mount hangs from that root; none is at a host path.
	run awk -v w="$WORK" -v s="$STATE" '
		{ id[$1] = 1; parent[$1] = $2 }
		$5 == "/" { root = $1 }
		index($5, w) == 1 || index($5, s) == 1 { print "host path:", $5 }
		END { for (m in id) if (m != root && !(parent[m] in id)) print "orphan:", m }' \
		<<<"$output"
	[ "$output" = "" ]
}

@test "host files outside the rootfs are not reachable from the jail" {
	touch "$DIR/inside-marker"
	mkdir "$WORK/outside"
	touch "$WORK/outside/outside-marker" "$WORK/outside-marker"
	run cell run --rootfs "$DIR" -- \
		find / '(' -path /proc -o -path /sys ')' -prune -o -name '*-marker' -print
	[ "$status" -eq 0 ]
	[ "$output" = /inside-marker ]
	run cell run --rootfs "$DIR" -- cat "$WORK/outside-marker"
	[ "$status" -ne 0 ]
	[[ "$output" == *"No such file or directory"* ]]
}

@test "an absolute symlink in the rootfs resolves inside the rootfs" {
	mkdir "$DIR/etc"
	echo "the rootfs's hostname file" >"$DIR/etc/hostname"
	ln -s /etc "$DIR/etc-link"
	[ "$(cat /etc/hostname)" != "the rootfs's hostname file" ]
	run cell run --rootfs "$DIR" -- cat /etc-link/hostname
	[ "$status" -eq 0 ]
	[ "$output" = "the rootfs's hostname file" ]
}

@test "a --bind destination through a symlink is mounted inside the rootfs" {
	mkdir "$WORK/src" "$WORK/outside"
	echo bound >"$WORK/src/file"
	# On the host the link names $WORK/outside; inside DIR, its copy.
	mkdir -p "$DIR$WORK/outside"
	ln -s "/../../..$WORK/outside" "$DIR/evil"
	run cell run --rootfs "$DIR" --bind "$WORK/src:/evil" -- \
		sh -c "cat /evil/file && cat $WORK/outside/file"
	[ "$status" -eq 0 ]
	[ "$output" = "bound
bound" ]
	# Nothing reached the host's $WORK/outside, nor DIR's copy of it.
	[ -z "$(ls -A "$WORK/outside")" ]
	[ -z "$(ls -A "$DIR$WORK/outside")" ]
}

@test "a --bind destination through a dangling symlink is created inside the rootfs" {
	mkdir "$WORK/src"
	echo bound >"$WORK/src/file"
	ln -s "/../../..$WORK/made" "$DIR/evil"
	run cell run --rootfs "$DIR" --bind "$WORK/src:/evil" -- cat /evil/file
	[ "$status" -eq 0 ]
	[ "$output" = bound ]
	# The mount point was made in DIR, not at the host's $WORK/made.
	[ ! -e "$WORK/made" ]
	[ -d "$DIR$WORK/made" ]
}

@test "a --workdir through a symlink stays inside the rootfs" {
	mkdir -p "$WORK/outside" "$DIR$WORK/outside"
	touch "$WORK/outside/host-file" "$DIR$WORK/outside/rootfs-file"
	ln -s "/../../..$WORK/outside" "$DIR/wd"
	run cell run --rootfs "$DIR" --workdir /wd -- ls
	[ "$status" -eq 0 ]
	[ "$output" = rootfs-file ]
}

@test "the --rootfs is read-only by default" {
	run cell run --rootfs "$DIR" -- touch /new-file
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[ ! -e "$DIR/new-file" ]
}

@test "with a read-only --rootfs, /tmp and /run are still writable" {
	run cell run --rootfs "$DIR" -- sh -c 'touch /tmp/a /run/b && ls /tmp /run'
	[ "$status" -eq 0 ]
	[ "$output" = "/run:
b

/tmp:
a" ]
}

@test "--rw makes the --rootfs writable, and what is written lands in the directory" {
	run cell run --rootfs "$DIR" --rw -- sh -c 'echo written > /new-file'
	[ "$status" -eq 0 ]
	[ "$(cat "$DIR/new-file")" = written ]
}

@test "--bind SRC:DST shows SRC at DST, writable through to the host" {
	mkdir "$WORK/src"
	echo from-host >"$WORK/src/in"
	run cell run --rootfs "$DIR" --bind "$WORK/src:/data" -- \
		sh -c 'cat /data/in && echo from-jail > /data/out'
	[ "$status" -eq 0 ]
	[ "$output" = from-host ]
	[ "$(cat "$WORK/src/out")" = from-jail ]
}

@test "--bind SRC:DST:ro is read-only" {
	mkdir "$WORK/src"
	echo from-host >"$WORK/src/in"
	run cell run --rootfs "$DIR" --bind "$WORK/src:/data:ro" -- \
		sh -c 'cat /data/in; echo changed > /data/in'
	[ "$status" -ne 0 ]
	[[ "$output" == "from-host"*"Read-only file system"* ]]
	[ "$(cat "$WORK/src/in")" = from-host ]
}

@test "--bind of a single file binds that file" {
	echo one-file >"$WORK/file"
	run cell run --rootfs "$DIR" --bind "$WORK/file:/etc/bound" -- \
		sh -c 'cat /etc/bound; ls /etc'
	[ "$status" -eq 0 ]
	[ "$output" = "one-file
bound" ]
}

@test "the embedded root is the host's / and is read-only" {
	run cell run -- sh -c 'cat /etc/os-release; touch /etc/cell-test-x'
	[ "$status" -ne 0 ]
	[[ "$output" == "$(cat /etc/os-release)"*"Read-only file system"* ]]
	[ ! -e /etc/cell-test-x ]
}

@test "/etc/shadow reads as empty in the embedded root" {
	[ -s /etc/shadow ]
	run cell run -- sh -c 'wc -c < /etc/shadow'
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
}

@test "/proc in a jail is fresh: its only process is the jail's" {
	run cell run -- sh -c 'for p in /proc/[0-9]*; do echo "${p#/proc/}"; done'
	[ "$status" -eq 0 ]
	[ "$output" = 1 ]
}

@test "/dev has null zero full random urandom tty, the fd links, pts, shm and mqueue only" {
	run cell run -- sh -c 'ls -A /dev; stat -c "%n %F %t:%T" /dev/null /dev/zero \
		/dev/full /dev/random /dev/urandom /dev/tty; readlink /dev/fd /dev/stdin \
		/dev/stdout /dev/stderr'
	[ "$status" -eq 0 ]
	[ "$output" = "fd
full
mqueue
null
ptmx
pts
random
shm
stderr
stdin
stdout
tty
urandom
zero
/dev/null character special file 1:3
/dev/zero character special file 1:5
/dev/full character special file 1:7
/dev/random character special file 1:8
/dev/urandom character special file 1:9
/dev/tty character special file 5:0
/proc/self/fd
/proc/self/fd/0
/proc/self/fd/1
/proc/self/fd/2" ]
}

@test "/tmp and /run are empty tmpfs of the jail's own" {
	run cell run -- sh -c 'ls -A /tmp /run; stat -f -c %T /tmp /run; \
		stat -c %d / /tmp /run | sort -u | wc -l'
	[ "$status" -eq 0 ]
	[ "$output" = "/run:

/tmp:
tmpfs
tmpfs
3" ]
}

@test "/sys is read-only" {
	run cell run -- sh -c 'touch /sys/cell-x'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
}
