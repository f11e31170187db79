#!/usr/bin/env bats
load helpers

@test "the jail's command is pid 1 and sees the jail's hostname" {
	run cell run --hostname web -- /bin/sh -c 'echo $$ $(hostname) $(cat /proc/sys/kernel/hostname)'
	[ "$status" -eq 0 ]
	[ "$output" = "1 web web" ]
}

@test "the host's hostname never changes" {
	before=$(hostname)
	run cell run --hostname other -- hostname
	[ "$output" = "other" ]
	[ "$(hostname)" = "$before" ]
}

@test "the default hostname is cell" {
	run cell run -- hostname
	[ "$output" = "cell" ]
}

@test "the embedded root is read-only and /tmp is a fresh tmpfs" {
	run cell run -- /bin/sh -c 'touch /etc/cell-x 2>/dev/null && echo rw || echo ro; ls -A /tmp | wc -l'
	[ "${lines[0]}" = "ro" ]
	[ "${lines[1]}" = "0" ]
}

@test "the exit status is the command's own" {
	run cell run -- /bin/sh -c 'exit 7'
	[ "$status" -eq 7 ]
}

@test "a missing command exits 127 and a non-executable one 126" {
	run -127 cell run -- /nonexistent
	[ "$status" -eq 127 ]
	run cell run -- /etc/passwd
	[ "$status" -eq 126 ]
}

@test "a missing rootfs is a one-line error with exit 125" {
	run cell run --rootfs /nope -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --rootfs /nope: No such file or directory" ]
}

@test "pipes pass straight through" {
	run bash -c "echo hello | '$CELL' --root '$STATE' run -- cat"
	[ "$output" = "hello" ]
}

@test "a jail cannot mount filesystems" {
	run cell run -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" -- /bin/sh -c \
		"$JAIL_GUARD_SH"'
mount -t tmpfs t /mnt'
	[ "$status" -ne 0 ]
	[ "$status" -ne 99 ]
}

@test "a jail cannot write sysctls" {
	run cell run -- /bin/sh -c 'echo x > /proc/sys/kernel/domainname'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
}

@test "an unknown --allow rule is an error listing the rules" {
	run cell run --allow bogus -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"known: set_hostname"* ]]
}

@test "a relative --bind source is relative to the caller's directory" {
	mkdir "$WORK/rel"
	echo here >"$WORK/rel/file"
	cd "$WORK"
	run cell run --bind rel:/mnt -- cat /mnt/file
	[ "$status" -eq 0 ]
	[ "$output" = here ]
}
