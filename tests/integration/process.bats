#!/usr/bin/env bats
# The jail's process: pid 1 (or pid 2 under --init), its exit status and
# the signals that end it, its stdio (pipes, or a pty of its own), its
# environment, working directory and user.
load helpers

DEFAULT_PATH=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# A jail whose pid 1 handles SIG (exits 3) and says it is ready; SIG is
# sent to cell, which must forward it.
signal_reaches_handler() {
	local sig=$1
	shift
	cell_bg "$WORK/out" "$@" -- sh -c \
		"trap 'echo got $sig; exit 3' $sig; echo ready; while :; do sleep 0.1; done"
	wait_output "$WORK/out" ready
	kill -"$sig" "$BG_PID"
	wait_exit "$BG_PID"
	[ "$status" -eq 3 ]
	[ "$(cat "$WORK/out")" = "ready
got $sig" ]
}

@test "the jail's command is pid 1 and has no parent inside" {
	run cell run -- sh -c 'echo $$; cut -d" " -f4 /proc/1/stat'
	[ "$status" -eq 0 ]
	[ "$output" = "1
0" ]
}

@test "exit statuses 0 to 255 pass through unchanged" {
	for code in 0 1 2 42 125 126 127 128 143 200 254 255; do
		run -"$code" cell run -- sh -c "exit $code"
		[ "$status" -eq "$code" ]
	done
}

@test "a jail whose pid 1 is killed by SIGKILL from the host exits 137" {
	cell_bg "$WORK/out" -- sh -c 'echo ready; while :; do sleep 0.1; done'
	wait_output "$WORK/out" ready
	pid1=$(child_of "$BG_PID" sh)
	kill -KILL "$pid1"
	wait_exit "$BG_PID"
	[ "$status" -eq 137 ]
}

@test "SIGTERM sent to cell reaches the handler of the jail's pid 1" {
	signal_reaches_handler TERM
}

@test "SIGINT sent to cell reaches the handler of the jail's pid 1" {
	signal_reaches_handler INT
}

@test "SIGHUP sent to cell reaches the handler of the jail's pid 1" {
	signal_reaches_handler HUP
}

@test "SIGUSR1 sent to cell reaches the handler of the jail's pid 1" {
	signal_reaches_handler USR1
}

@test "without --init, SIGTERM to cell does not end a pid 1 that has no handler" {
	cell_bg "$WORK/out" -- sh -c 'echo ready; while :; do sleep 0.1; done'
	wait_output "$WORK/out" ready
	pid1=$(child_of "$BG_PID" sh)
	kill -TERM "$BG_PID"
	sleep 0.3
	# The kernel drops it at the jail's init (pid_namespaces(7)).
	kill -0 "$BG_PID"
	kill -0 "$pid1"
	[ "$(cat "$WORK/out")" = ready ]
}

@test "with --init the command is pid 2, child of the reaper at pid 1" {
	run cell run --init -- sh -c 'echo $$ $PPID; cat /proc/1/comm'
	[ "$status" -eq 0 ]
	[ "$output" = "2 1
cell-init" ]
}

@test "with --init, SIGTERM to cell ends a command without handler: 143" {
	cell_bg "$WORK/out" --init -- sleep 100
	reaper=$(child_of "$BG_PID" cell-init)
	child_of "$reaper" sleep
	kill -TERM "$BG_PID"
	wait_exit "$BG_PID"
	[ "$status" -eq 143 ]
}

@test "with --init, a signal reaches the command's handler and its status is the jail's" {
	signal_reaches_handler USR1 --init
}

@test "with --init, a command killed by signal N ends the jail with 128+N" {
	run cell run --init -- sh -c 'kill -USR2 $$; sleep 1'
	[ "$status" -eq 140 ]
}

@test "--init reaps an orphaned grandchild: it does not stay a zombie" {
	run cell run --init -- sh -c '
		(sh -c "echo \$\$ > /tmp/orphan; while [ ! -e /tmp/go ]; do sleep 0.05; done" &)
		while [ ! -s /tmp/orphan ]; do sleep 0.05; done
		read -r pid < /tmp/orphan
		read -r _ _ _ ppid _ < /proc/$pid/stat
		echo "orphan parent $ppid"
		touch /tmp/go
		for i in $(seq 60); do
			[ -e /proc/$pid ] || break
			read -r _ _ state _ < /proc/$pid/stat
			sleep 0.05
		done
		if [ -e /proc/$pid ]; then echo "still there, state $state"; else echo reaped; fi'
	[ "$status" -eq 0 ]
	[ "$output" = "orphan parent 1
reaped" ]
}

@test "stdin from a pipe reaches the jail's command" {
	run bash -c "printf 'one\ntwo\n' | '$CELL' --root '$STATE' run -- cat"
	[ "$status" -eq 0 ]
	[ "$output" = "one
two" ]
}

@test "the jail's stdout and stderr reach the caller's, separately" {
	run --separate-stderr cell run -- sh -c 'echo to-out; echo to-err >&2'
	[ "$status" -eq 0 ]
	[ "$output" = to-out ]
	[ "$stderr" = to-err ]
}

@test "without a pty the jail writes into the caller's own stdout pipe" {
	run bash -c "{ '$CELL' --root '$STATE' run -- readlink /proc/self/fd/1;
		readlink /proc/self/fd/1; } | cat"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == pipe:* ]]
	[ "${lines[0]}" = "${lines[1]}" ]
}

@test "a jail writing into a closed pipe ends" {
	run timeout 5 bash -c "'$CELL' --root '$STATE' run -- yes 2>/dev/null | head -n 1"
	[ "$status" -eq 0 ]
	[ "$output" = y ]
}

@test "under a terminal the jail's stdio is a pty of the jail's own devpts" {
	run_in_pty_held "$CELL --root $STATE run -- sh -c 'tty; readlink /proc/self/fd/0 \
		/proc/self/fd/1 /proc/self/fd/2; ls -1 /dev/pts'"
	[ "$status" -eq 0 ]
	[ "$output" = "/dev/pts/0
/dev/pts/0
/dev/pts/0
/dev/pts/0
0
ptmx" ]
}

@test "the jail's pty is its controlling terminal and its /dev/console" {
	run_in_pty_held "$CELL --root $STATE run -- sh -c 'echo via-dev-tty > /dev/tty; \
		cut -d\" \" -f7 /proc/self/stat; stat -c %t:%T /dev/console; \
		stat -L -c %t:%T /proc/self/fd/0'"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = via-dev-tty ]
	[ "${lines[1]}" -ne 0 ]
	[ "${lines[2]}" = "${lines[3]}" ]
}

@test "keystrokes reach the jail's command through its pty" {
	run bash -c "printf 'typed\n' | timeout 10 script -qec \"'$CELL' --root '$STATE' run -- \
		sh -c 'read -r x; echo got \\\$x'\" /dev/null"
	[ "$status" -eq 0 ]
	output=${output//$'\r'/}
	[[ "$output" == *"got typed" ]]
}

@test "the exit status of a jail with a pty is its command's" {
	run_in_pty_held "$CELL --root $STATE run -- sh -c 'exit 5'"
	[ "$status" -eq 5 ]
}

@test "-T gives no pty even under a terminal" {
	run_in_pty_held "$CELL --root $STATE run -T -- tty"
	[ "$status" -eq 1 ]
	[ "$output" = "not a tty" ]
}

@test "-t gives a pty even when stdin is not a terminal" {
	run cell run -t -- tty </dev/null
	[ "$status" -eq 0 ]
	[ "${output%$'\r'}" = /dev/pts/0 ]
}

@test "the jail's pty takes the size of the caller's terminal" {
	run_in_pty_held "stty rows 33 cols 77; $CELL --root $STATE run -- stty size"
	[ "$status" -eq 0 ]
	[ "$output" = "33 77" ]
}

@test "a change of the caller's terminal size reaches the jail" {
	# The jail says it is ready in $WORK, the outer shell then resizes
	# its terminal; SIGWINCH reaches cell (same process group), which
	# copies the size and forwards the signal. The resize changes one
	# dimension only: "stty rows R cols C" is two ioctls, and the jail
	# could see the size between them. A shell without job control gives
	# a background command /dev/null for stdin before its redirections
	# (dash does: "<&0 &" would be /dev/null), so the terminal goes by
	# fd 3.
	run_in_pty_held "stty rows 40 cols 20; exec 3<&0
		$CELL --root $STATE run --bind $WORK:/srv -- sh -c \
			'trap \"stty size; exit 0\" WINCH; touch /srv/ready
			for i in \$(seq 100); do sleep 0.05; done; exit 9' <&3 3<&- &
		for i in \$(seq 50); do [ -e $WORK/ready ] && break; sleep 0.1; done
		stty cols 90
		wait \$!"
	[ "$status" -eq 0 ]
	[ "$output" = "40 90" ]
}

@test "the caller's terminal settings are restored after a jail with a pty" {
	run_in_pty_held "stty -g > $WORK/before; $CELL --root $STATE run -- true; stty -g > $WORK/after"
	[ "$status" -eq 0 ]
	[ -s "$WORK/before" ]
	cmp "$WORK/before" "$WORK/after"
}

@test "--env KEY=VALUE is set in the jail" {
	run cell run -e GREETING='hello world' -- sh -c 'echo "$GREETING"'
	[ "$status" -eq 0 ]
	[ "$output" = "hello world" ]
}

@test "--env KEY copies cell's value of KEY" {
	FROM_CALLER=copied run cell run -T -e FROM_CALLER -- sh -c 'echo "$FROM_CALLER"'
	[ "$status" -eq 0 ]
	[ "$output" = copied ]
}

@test "--env KEY of a variable cell does not have sets nothing" {
	unset CELL_TEST_UNSET
	run cell run -T -e CELL_TEST_UNSET -- env
	[ "$status" -eq 0 ]
	! grep -q CELL_TEST_UNSET <<<"$output"
}

@test "a later --env wins over an earlier one and over the defaults" {
	CELL_TEST_VAR=host run cell run -e CELL_TEST_VAR=a -e CELL_TEST_VAR=b -e HOSTNAME=mine \
		-e container=other -- sh -c 'echo "$CELL_TEST_VAR $HOSTNAME $container"'
	[ "$status" -eq 0 ]
	[ "$output" = "b mine other" ]
}

@test "the jail's environment is its own: none of cell's variables leak in" {
	CELL_TEST_VAR=from-caller run cell run -T --name envjail -- env
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = "$(printf '%s\n' "$DEFAULT_PATH" HOSTNAME=envjail container=cell \
		HOME=/root | sort)" ]
}

@test "--clear-env is accepted and changes nothing" {
	run cell run -T --clear-env --name envjail -- env
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = "$(printf '%s\n' "$DEFAULT_PATH" HOSTNAME=envjail container=cell \
		HOME=/root | sort)" ]
}

@test "a jail with a pty gets TERM=xterm when cell has no TERM, and no TERM without one" {
	run env -u TERM "$CELL" --root "$STATE" run -t -- env </dev/null
	[ "$status" -eq 0 ]
	output=${output//$'\r'/}
	grep -qx TERM=xterm <<<"$output"
	TERM=vt100 run cell run -T -- env
	! grep -q '^TERM=' <<<"$output"
}

@test "a jail with a pty keeps the caller's TERM" {
	TERM=vt100 run cell run -t -- sh -c 'echo "$TERM"' </dev/null
	[ "$status" -eq 0 ]
	[ "${output%$'\r'}" = vt100 ]
}

@test "the command is searched on the jail's PATH, not cell's" {
	dir=$WORK/root
	make_rootfs "$dir"
	mkdir -p "$dir/opt/tools"
	printf '#!/bin/sh\necho found in /opt/tools\n' >"$dir/opt/tools/hello"
	chmod +x "$dir/opt/tools/hello"
	PATH=$dir/opt/tools:$PATH run -127 cell run --rootfs "$dir" -- hello
	[ "$status" -eq 127 ]
	run cell run --rootfs "$dir" -e PATH=/opt/tools -- hello
	[ "$status" -eq 0 ]
	[ "$output" = "found in /opt/tools" ]
}

@test "the default working directory is /" {
	run cell run -- sh -c 'pwd; readlink /proc/self/cwd'
	[ "$status" -eq 0 ]
	[ "$output" = "/
/" ]
}

@test "--workdir /tmp is the working directory" {
	run cell run --workdir /tmp -- sh -c 'pwd; readlink /proc/self/cwd'
	[ "$status" -eq 0 ]
	[ "$output" = "/tmp
/tmp" ]
}

@test "a --workdir that does not exist is a one-line error with exit 125" {
	run --separate-stderr cell run --name w --workdir /nonexistent -- true
	[ "$status" -eq 125 ]
	[ "$output" = "" ]
	[ "$stderr" = "cell: run: jail w: --workdir /nonexistent: No such file or directory" ]
}

@test "--user 1000:1000 runs as uid and gid 1000 with no other group" {
	run cell run --user 1000:1000 -- sh -c 'id -u; id -g; id -G; grep -E "^(Uid|Gid)" /proc/self/status'
	[ "$status" -eq 0 ]
	[ "$output" = "1000
1000
1000
Uid:	1000	1000	1000	1000
Gid:	1000	1000	1000	1000" ]
}

@test "--user 1000 runs without capabilities" {
	run cell run --user 1000 -- grep -E '^Cap(Prm|Eff|Amb)' /proc/self/status
	[ "$status" -eq 0 ]
	[ "$output" = "CapPrm:	0000000000000000
CapEff:	0000000000000000
CapAmb:	0000000000000000" ]
}

@test "--user UID takes its gid from the jail's /etc/passwd" {
	dir=$WORK/root
	make_rootfs "$dir"
	mkdir "$dir/etc"
	echo 'svc:x:1234:4321:service:/:/bin/sh' >"$dir/etc/passwd"
	run cell run --rootfs "$dir" --user 1234 -- sh -c 'id -u; id -g'
	[ "$status" -eq 0 ]
	[ "$output" = "1234
4321" ]
}

@test "--user UID that /etc/passwd does not know gets gid UID" {
	dir=$WORK/root
	make_rootfs "$dir"
	mkdir "$dir/etc"
	echo 'svc:x:1234:4321:service:/:/bin/sh' >"$dir/etc/passwd"
	run cell run --rootfs "$dir" --user 777 -- sh -c 'id -u; id -g'
	[ "$status" -eq 0 ]
	[ "$output" = "777
777" ]
}

@test "--user UID in the embedded root takes its gid from the host's /etc/passwd" {
	# A host user whose group is not its uid: sync (4:65534) on Debian.
	entry=$(awk -F: '$3 != $4 && $3 > 0 { print $3 ":" $4; exit }' /etc/passwd)
	[ -n "$entry" ]
	run cell run --user "${entry%:*}" -- sh -c 'echo "$(id -u):$(id -g)"'
	[ "$status" -eq 0 ]
	[ "$output" = "$entry" ]
}

@test "--user 65534 is nobody with nobody's group" {
	[ "$(awk -F: '$3 == 65534 { print $1 ":" $4 }' /etc/passwd)" = nobody:65534 ]
	run cell run --user 65534 -- sh -c 'id -un; id -g'
	[ "$status" -eq 0 ]
	[ "$output" = "nobody
65534" ]
}
