#!/usr/bin/env bats
# cell's reaper as pid 1: the default of a detached jail (--no-init turns
# it off), --init in the foreground; signals, stop, the exit status, and
# the restart policy (--restart, restart in a jail file).
load helpers

# wait_field NAME KEY VALUE [TENTHS]: wait until jail NAME's KEY is VALUE
# (default 10 s).
wait_field() {
	local i
	for ((i = 0; i < ${4:-100}; i++)); do
		[ "$(jfield "$1" "$2")" = "$3" ] && return 0
		sleep 0.1
	done
	echo "jail $1: $2 is $(jfield "$1" "$2"), not $3" >&2
	return 1
}

# wait_restarts NAME N: wait until jail NAME was restarted N times or more.
wait_restarts() {
	local i n
	for ((i = 0; i < 100; i++)); do
		n=$(jfield "$1" restarts)
		[ -n "$n" ] && [ "$n" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "jail $1: restarted ${n:-no} times, not $2" >&2
	return 1
}

# --- pid 1 -------------------------------------------------------------

@test "a detached jail's pid 1 is cell's reaper, its command the reaper's child" {
	cell run -d --name svc -- sleep 100 >/dev/null
	pid=$(jfield svc pid)
	[ "$(cat "/proc/$pid/comm")" = cell-init ]
	[ "$(cat "/proc/$(descendants "$pid")/comm")" = sleep ]
	[ "$(jfield svc init)" = true ]
}

@test "--no-init makes the command pid 1 of a detached jail" {
	cell run -d --no-init --name bare -- sleep 100 >/dev/null
	pid=$(jfield bare pid)
	[ "$(cat "/proc/$pid/comm")" = sleep ]
	[ "$(cell inspect --json bare | jq .init)" = false ]
}

@test "a foreground jail has the reaper only with --init" {
	run cell run -- cat /proc/1/comm
	[ "$status" -eq 0 ]
	[ "$output" = cat ]
	run cell run --init -- cat /proc/1/comm
	[ "$status" -eq 0 ]
	[ "$output" = cell-init ]
}

@test "init = false in a jail file keeps the command pid 1 under up" {
	cat >"$WORK/cell.conf" <<-EOF
		bare { init = false; command = sleep, 100; }
		svc { command = sleep, 100; }
	EOF
	cell up -f "$WORK/cell.conf" >/dev/null
	[ "$(cat "/proc/$(jfield bare pid)/comm")" = sleep ]
	[ "$(cat "/proc/$(jfield svc pid)/comm")" = cell-init ]
}

@test "signals reach the payload under the default reaper" {
	cell run -d --name sig --bind "$WORK:/work" -- \
		sh -c 'trap "echo usr1 >/work/got" USR1; touch /work/ready; while :; do sleep 0.1; done' \
		>/dev/null
	wait_for "$WORK/ready"
	kill -USR1 "$(jfield sig pid)"
	wait_output "$WORK/got" usr1
}

@test "stop of a detached jail returns as soon as its payload ends, well under the timeout" {
	cell run -d --name quick -- sleep 100 >/dev/null
	pid=$(jfield quick pid)
	SECONDS=0
	run cell stop -t 30 quick
	[ "$status" -eq 0 ]
	[ "$SECONDS" -lt 5 ]
	pid_ended "$pid"
	# The reaper forwarded SIGTERM: the payload's status, not a SIGKILL.
	[ "$(jfield quick exit)" = 143 ]
}

@test "a detached jail's exit status is known to ls -a and inspect" {
	cell run -d --name seven -- sh -c 'exit 7' >/dev/null
	wait_field seven state stopped
	[ "$(jfield seven exit)" = 7 ]
	run cell ls -a -o name,exit
	[ "${lines[1]}" = "seven  7" ]
	run cell inspect --json seven
	[ "$(jq -r '.exit' <<<"$output")" = 7 ]
	run cell inspect seven
	[[ " ${lines[*]} " == *" exit=7 "* ]]
}

@test "the reaper's pid 1 is not dumpable: the payload can neither read /proc/1/fd nor ptrace it" {
	run cell run --init -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" -- python3 -c "$JAIL_GUARD_PY"'
libc = ctypes.CDLL(None, use_errno=True)
def attach(pid):
    if libc.ptrace(16, pid, None, None) != 0:
        raise OSError(ctypes.get_errno(), "ptrace")
try_call("fd", os.readlink, "/proc/1/fd/1")
try_call("ptrace", attach, 1)
'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "fd EACCES" ]
	[ "${lines[1]}" = "ptrace EPERM" ]
}

@test "with a pty and --init the payload is the terminal's foreground process group" {
	# /proc/self/stat fields 5 and 8: the process group and the
	# terminal's foreground group; pid 1 is in neither.
	run_in_pty_held "$CELL --root $STATE run -t --init -- sh -c 'echo pg \$(cut -d\" \" -f5,8 /proc/self/stat)'"
	[ "$status" -eq 0 ]
	read -r _ pgrp tpgid <<<"$(grep -a '^pg ' <<<"$output")"
	[ -n "$pgrp" ]
	[ "$pgrp" = "$tpgid" ]
	[ "$pgrp" != 1 ]
}

# --- restart -----------------------------------------------------------

@test "--restart on-failure:2 restarts a failing payload twice, then stops with its status" {
	run cell run -d --name flaky --restart on-failure:2 -- sh -c 'echo run; exit 3'
	[ "$status" -eq 0 ]
	wait_field flaky state stopped
	[ "$(jfield flaky restarts)" = 2 ]
	[ "$(jfield flaky exit)" = 3 ]
	[ "$(jfield flaky restart)" = on-failure:2 ]
	[ "$(cell logs flaky)" = $'run\nrun\nrun' ]
	run cell ls -a -o name,restarts,exit
	[ "${lines[1]}" = "flaky  2         3" ]
	[ "$(cell inspect --json flaky | jq .restarts)" = 2 ]
}

@test "--restart on-failure does not restart a payload that exits 0" {
	cell run -d --name fine --restart on-failure -- true >/dev/null
	wait_field fine state stopped
	[ "$(jfield fine restarts)" = 0 ]
	[ "$(jfield fine exit)" = 0 ]
}

@test "inspect --pid of a restarted jail's process gives its restarts, as inspect NAME does" {
	cell run -d --name again --restart on-failure:1 -- \
		sh -c '[ -e /tmp/once ] || { touch /tmp/once; exit 1; }; exec sleep 100' >/dev/null
	wait_restarts again 1
	wait_field again state running
	pid=$(jfield again pid)
	# The sleep of the second run: the reaper's child.
	for ((i = 0; i < 50; i++)); do
		child=$(descendants "$pid")
		[ -n "$child" ] && [ "$(cat "/proc/$child/comm" 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
	[ "$(cat "/proc/$child/comm")" = sleep ]
	run cell inspect --json --pid "$child"
	[ "$status" -eq 0 ]
	[ "$(jq -r .name <<<"$output")" = again ]
	[ "$(jq .restarts <<<"$output")" = 1 ]
	[ "$(jq .restarts <<<"$output")" = "$(jfield again restarts)" ]
}

@test "--restart always restarts a payload that exits 0, until stop" {
	cell run -d --name loop --restart always -- sh -c 'echo hi' >/dev/null
	wait_restarts loop 2
	[ "$(jfield loop state)" = running ]
	SECONDS=0
	cell stop -t 30 loop
	[ "$SECONDS" -lt 5 ]
	[ "$(jfield loop state)" = stopped ]
	# Stopped during a delay (0) or a run (SIGTERM: 143), no restart after.
	[[ "$(jfield loop exit)" =~ ^(0|143)$ ]]
}

@test "stop during a restart's delay stops the jail at once" {
	# Each run lasts no time: after 4 restarts the delay is 1.6 s.
	cell run -d --name pause --restart always -- true >/dev/null
	wait_restarts pause 4
	pid=$(jfield pause pid)
	SECONDS=0
	cell stop -t 30 pause
	[ "$SECONDS" -lt 3 ]
	pid_ended "$pid"
	[ "$(jfield pause state)" = stopped ]
}

@test "a SIGTERM to pid 1 from inside the jail is forwarded, and the payload restarted" {
	# The first run signals pid 1 and waits; the second (its marker in
	# the jail's /tmp, which outlives a restart) just runs.
	cell run -d --name inner --restart on-failure:1 -- \
		sh -c '[ -e /tmp/once ] || { touch /tmp/once; kill -TERM 1; sleep 100; }; exec sleep 100' \
		>/dev/null
	wait_restarts inner 1
	[ "$(jfield inner state)" = running ]
}

@test "restart in a jail file restarts the payload under up" {
	cat >"$WORK/cell.conf" <<-EOF
		again { restart = "on-failure:1"; command = sh, -c, "exit 5"; }
	EOF
	cell up -f "$WORK/cell.conf" >/dev/null
	wait_field again state stopped
	[ "$(jfield again restarts)" = 1 ]
	[ "$(jfield again exit)" = 5 ]
}

@test "--restart needs the reaper: with --no-init it is a one-line error, exit 125, nothing left" {
	run cell run -d --no-init --restart always -- true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: --restart always: needs cell's reaper"* ]]
	run cell run --restart on-failure -- true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$(cell ls -aq)" ]
	[ -z "$(ls -A "$STATE")" ]
}

@test "a bad --restart is a one-line error with exit 125, nothing left" {
	for v in bogus on-failure:0 on-failure:x always:2 ""; do
		run cell run -d --restart "$v" -- true
		[ "$status" -eq 125 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == *"expected no, on-failure[:N] or always"* ]]
	done
	[ -z "$(cell ls -aq)" ]
}
