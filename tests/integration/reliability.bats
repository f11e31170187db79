#!/usr/bin/env bats
# Reliability of named jails: a cell killed -9 at any stage of run, stop
# or rm leaves a state that the next command reads right and cleans up;
# many cells racing on one state root or on one jail agree; a pid that
# the kernel has given to another process is never taken for a jail's.
#
# The crash tests need the test-testpoints build ($CELL_TESTPOINTS, see hook.h):
# it pauses at a named stage, and the test kills it there.
load helpers

setup() {
	cell_setup
	# Unique per test: the jail's name (its cgroups are cell-HASH-NAME,
	# HASH the state root's) and a marker in its command line.
	JAIL=rel-$$-$BATS_TEST_NUMBER
	MARK=$((100000 + RANDOM))$$
	printf '%s\n' "$MARK" >"$WORK/mark"
	# The jail's command: pid 1 and a child, both carrying the marker.
	# Plain sleep as pid 1 (--no-init: the command is pid 1) ignores SIGTERM.
	# shellcheck disable=SC2016 # $0 is the inner shell's
	JAIL_CMD=(sh -c 'sleep "$0" & exec sleep "$0"' "$MARK")
	HOOK_PIDS=()
	HOST_PIDS=()
}

teardown() {
	local rc=0 pid errors=()

	# Paused cells hold the jail's lock: they go first.
	for pid in "${HOOK_PIDS[@]}" "${HOST_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	cell_rm_all || rc=$?
	for pid in $(marker_pids); do
		errors+=("process $pid of the jail left running")
		kill -KILL "$pid" 2>/dev/null || true
	done
	for cg in $(jail_cgroups "$JAIL*"); do
		errors+=("cgroup left behind: $cg")
		rmdir "$cg" 2>/dev/null || true
	done
	cell_teardown || rc=$?
	if [ "${#errors[@]}" -gt 0 ]; then
		printf 'teardown: %s\n' "${errors[@]}" >&2
		rc=1
	fi
	return "$rc"
}

# refute COMMAND...: fails when COMMAND succeeds (`! COMMAND` never
# fails a bats test).
refute() {
	if "$@"; then
		echo "unexpectedly true: $*" >&2
		return 1
	fi
}

needs_testpoints() {
	[ -x "${CELL_TESTPOINTS:-}" ] || skip "needs the test-testpoints build (CELL_TESTPOINTS)"
}

# marker_pids: live processes with $MARK as an argument (the jail's, and
# a cell that started it: its own argv has the command).  grep reads the
# marker from a file, or it would find itself.
marker_pids() {
	local f pid
	# shellcheck disable=SC2013 # /proc paths have no spaces
	for f in $(grep -lzxF -f "$WORK/mark" /proc/[0-9]*/cmdline 2>/dev/null); do
		pid=${f#/proc/}
		pid=${pid%/cmdline}
		pid_ended "$pid" || echo "$pid"
	done
}

# wait_no_marker: wait until no process carries $MARK (2 s).
wait_no_marker() {
	local i
	for ((i = 0; i < 20; i++)); do
		[ -z "$(marker_pids)" ] && return 0
		sleep 0.1
	done
	echo "processes of the jail still running: $(marker_pids)" >&2
	return 1
}

# jail_cgroups NAME: the cgroup directories of jail NAME (a glob) under
# this test's state root, any hierarchy: cell-HASH-NAME, HASH the state
# root's (tests/cgroup_name.bash), never a user's jail of that name.
jail_cgroups() {
	find /sys/fs/cgroup/ -mindepth 2 -maxdepth 8 -type d -name "$(cell_cgroup_leaf "$1")" 2>/dev/null
}

# record PATH: field PATH (jq) of the jail's state.json as it is on disk.
record() {
	jq -r "$1" "$STATE/$JAIL/state.json"
}

# alive PID START: PID runs (not a zombie) and started at START (field 22
# of /proc/PID/stat), as cell decides it.
alive() {
	local stat
	[ -n "$1" ] && [ "$1" != null ] || return 1
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086
	set -- "$2" $stat
	[ "$2" != Z ] && [ "$2" != X ] && [ "${21}" = "$1" ]
}

# wait_execd PID: wait until PID has exec'd the jail's command, or
# ended (5 s).
wait_execd() {
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(cat "/proc/$1/comm" 2>/dev/null)" = sleep ] && return 0
		pid_ended "$1" && return 0
		sleep 0.1
	done
	echo "pid $1 neither exec'd sleep nor ended" >&2
	return 1
}

# wait_sleeps: wait until both sleeps of $JAIL_CMD run (5 s).
wait_sleeps() {
	local i pid n
	for ((i = 0; i < 50; i++)); do
		n=0
		for pid in $(marker_pids); do
			[ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && n=$((n + 1))
		done
		[ "$n" -eq 2 ] && return 0
		sleep 0.1
	done
	echo "the jail's two sleeps are not running" >&2
	return 1
}

# start_jail [OPTION...]: a detached jail $JAIL running $JAIL_CMD with a
# pids cgroup (so that there is one to leak), up and exec'd.
start_jail() {
	run cell run -d --no-init --name "$JAIL" --nrtask 20 "$@" -- "${JAIL_CMD[@]}"
	[ "$status" -eq 0 ]
	[ "$output" = "$JAIL" ]
	JAIL_PID=$(record .pid)
	wait_sleeps
	[ -n "$(jail_cgroups "$JAIL")" ]
}

# kill_paused: kill -9 the cell pause_at left paused.
kill_paused() {
	PAUSED_MARKERS=$(marker_pids | wc -l)
	kill -KILL "$HOOK_PID"
	wait "$HOOK_PID" 2>/dev/null || true
}

# crash_at STAGE ARG...: `cell ARG...` of the testpoints build, paused at
# STAGE, then killed -9 there.
crash_at() {
	pause_at "$@"
	kill_paused
}

# check_listed WANT: `cell ls -a` exits 0 and lists $JAIL as WANT
# (running, stopped or absent), and that agrees with the kernel: its
# record's pid 1 runs (with the recorded start time) if and only if it
# is listed running, and then ls names that pid.
check_listed() {
	local want=$1 listed pid start
	run cell ls -a
	[ "$status" -eq 0 ]
	run cell ls -a --json
	[ "$status" -eq 0 ]
	listed=$(jq -r --arg n "$JAIL" '.[] | select(.name == $n) | .state' <<<"$output")
	if [ "$want" = absent ]; then
		[ -z "$listed" ]
		return 0
	fi
	[ "$listed" = "$want" ]
	pid=$(record .pid)
	start=$(record .start_time)
	if [ "$want" = running ]; then
		alive "$pid" "$start"
		[ "$(jq -r --arg n "$JAIL" '.[] | select(.name == $n) | .pid' <<<"$output")" = "$pid" ]
		[ "$(cat "/proc/$pid/comm")" = sleep ]
	else
		refute alive "$pid" "$start"
		# Nothing of a stopped jail runs on (its unrecorded child
		# included, when cell died before recording it).
		wait_no_marker
	fi
}

# check_rm WANT_STATUS ARG...: `cell rm ARG... $JAIL` exits WANT_STATUS
# (125: with a one-line "no such jail", as stop and exec say of it);
# afterwards nothing of the jail
# is left: state directory, cgroups, processes, mounts.
check_rm() {
	local want=$1
	shift
	run cell rm "$@" "$JAIL"
	[ "$status" -eq "$want" ]
	if [ "$want" -eq 125 ]; then
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cell: rm: jail $JAIL: no such jail"* ]]
	else
		[ "$output" = "$JAIL" ] # what it removed
	fi
	check_nothing_left
}

check_nothing_left() {
	[ ! -e "$STATE/$JAIL" ]
	[ -z "$(ls -A "$STATE")" ]
	[ -z "$(jail_cgroups "$JAIL")" ]
	wait_no_marker
	[ -z "$(cell_leftover_mounts)" ]
	refute grep -qF "$STATE" /proc/self/mountinfo
	# no range of host ids held in the jail's name (idrange.c)
	[ -z "$(grep -lx "root $STATE" /run/cell-ids/* 2>/dev/null)" ]
}

# crash_run STAGE: `cell run -d` of $JAIL killed -9 at STAGE.
crash_run() {
	crash_at "$1" run -d --no-init --name "$JAIL" --nrtask 20 -- "${JAIL_CMD[@]}"
}

# --- cell run -d killed -9 ---------------------------------------------

@test "run killed after making the directory leaves no jail, and rm -f says so" {
	needs_testpoints
	crash_run run:created
	check_listed absent
	check_rm 125 -f
}

@test "ls removes what a run killed before its record left, and its JID is free" {
	needs_testpoints
	crash_run run:created
	[ -d "$STATE/$JAIL" ]
	check_listed absent
	# Its creator is dead (its lock is free): the directory is litter.
	[ ! -e "$STATE/$JAIL" ]
	run cell run -d --no-init --name "$JAIL-next" -- sleep "$MARK"
	[ "$status" -eq 0 ]
	run cell ls --json
	[ "$(jq -r '.[0].jid' <<<"$output")" = 1 ]
	cell rm -f "$JAIL-next"
	check_rm 125 -f
}

@test "a name left by a run killed before its record is free for the next run" {
	needs_testpoints
	crash_run run:created
	start_jail
	check_listed running
	[ "$(record .jid)" = 1 ]
	check_rm 0 -f
}

@test "run killed after its record leaves a stopped jail that rm removes" {
	needs_testpoints
	crash_run run:recorded
	check_listed stopped
	check_rm 0
}

@test "run killed after making its cgroups leaves a stopped jail, cgroups released" {
	needs_testpoints
	crash_run run:cgroups
	[ -n "$(jail_cgroups "$JAIL")" ]
	check_listed stopped
	# ls released them: a stopped jail holds no cgroup.
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_rm 0
}

@test "run killed after the clone takes the unstarted jail with it" {
	needs_testpoints
	crash_run run:cloned
	# There was one: cell, its clone and the user namespace's helper
	# (waiting for the clone to join its network namespace; all three
	# in cell's memory) carried the marker.
	[ "$PAUSED_MARKERS" -eq 3 ]
	check_listed stopped
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_rm 0
}

@test "run killed after starting the jail leaves it running once it has exec'd" {
	needs_testpoints
	crash_run run:started
	# The record names the jail's pid 1 from this stage on; killed
	# before its exec it dies with cell (stopped), after it lives on.
	wait_execd "$(record .pid)"
	if pid_ended "$(record .pid)"; then
		echo "# killed before its exec" >&3
		check_listed stopped
		check_rm 0
	else
		check_listed running
		check_rm 0 -f
	fi
}

@test "run -d killed after the exec leaves the jail running, and rm -f ends it" {
	needs_testpoints
	crash_run run:execd
	check_listed running
	[ -n "$(jail_cgroups "$JAIL")" ]
	check_rm 0 -f
}

@test "run -d killed after the exec leaves a jail with its reaper running, and stop ends it at once" {
	needs_testpoints
	crash_at run:execd run -d --name "$JAIL" --nrtask 20 -- "${JAIL_CMD[@]}"
	run cell ls -a --json
	[ "$(jq -r --arg n "$JAIL" '.[] | select(.name == $n) | .state' <<<"$output")" = running ]
	pid=$(record .pid)
	[ "$(cat "/proc/$pid/comm")" = cell-init ]
	SECONDS=0
	cell stop -t 20 "$JAIL"
	[ "$SECONDS" -lt 5 ]
	wait_ended "$pid"
	wait_no_marker
	[ "$(cell ls -a --json | jq -r --arg n "$JAIL" '.[] | select(.name == $n) | .exit')" = 143 ]
	check_rm 0
}

@test "a foreground run killed after starting its jail leaves nothing after the next ls" {
	needs_testpoints
	crash_at run:started run --name "$JAIL" --nrtask 20 -- "${JAIL_CMD[@]}"
	# Its jail dies with it, before or after its exec.
	wait_ended "$(record .pid)"
	wait_no_marker
	check_listed absent
	check_nothing_left
}

# --- cell stop killed -9 -----------------------------------------------

@test "stop killed holding the lock leaves the jail running" {
	needs_testpoints
	start_jail
	crash_at stop:locked stop -t 5 "$JAIL"
	check_listed running
	[ "$(record .pid)" = "$JAIL_PID" ]
	check_rm 0 -f
}

@test "stop killed after SIGTERM to a pid 1 that ignores it leaves the jail running" {
	needs_testpoints
	start_jail
	crash_at stop:signalled stop -t 5 "$JAIL"
	check_listed running
	check_rm 0 -f
}

@test "stop killed after SIGTERM to an --init jail leaves it stopped" {
	needs_testpoints
	start_jail --init
	crash_at stop:signalled stop -t 5 "$JAIL"
	# The reaper passes TERM on: the jail ends without stop.
	wait_ended "$JAIL_PID"
	check_listed stopped
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_rm 0
}

@test "stop killed after SIGKILL leaves the jail stopped, cgroups released" {
	needs_testpoints
	start_jail
	crash_at stop:killed stop -t 0 "$JAIL"
	wait_ended "$JAIL_PID"
	check_listed stopped
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_rm 0
}

@test "stop killed after releasing the cgroups leaves the jail stopped" {
	needs_testpoints
	start_jail
	crash_at release:cgroups stop -t 0 "$JAIL"
	[ -z "$(jail_cgroups "$JAIL")" ]
	# Its record still says running: the kernel says otherwise.
	[ "$(record .state)" = running ]
	check_listed stopped
	check_rm 0
}

# --- cell rm killed -9 -------------------------------------------------

@test "rm -f killed holding the lock leaves the jail running" {
	needs_testpoints
	start_jail
	crash_at rm:locked rm -f "$JAIL"
	check_listed running
	check_rm 0 -f
}

@test "rm -f killed after releasing the cgroups leaves the jail stopped" {
	needs_testpoints
	start_jail
	crash_at release:cgroups rm -f "$JAIL"
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_listed stopped
	check_rm 0
}

@test "rm killed on its way to removing a stopped jail leaves it stopped" {
	needs_testpoints
	start_jail
	run cell stop -t 0 "$JAIL"
	[ "$status" -eq 0 ]
	crash_at release:cgroups rm "$JAIL"
	check_listed stopped
	check_rm 0
}

# --- cell ls killed -9 while it tidies ---------------------------------

@test "ls killed while releasing a dead jail's cgroups leaves it for the next ls" {
	needs_testpoints
	start_jail
	crash_at stop:killed stop -t 0 "$JAIL"
	wait_ended "$JAIL_PID"
	crash_at release:cgroups ls -a
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_listed stopped
	check_rm 0
}

@test "ls killed while removing a dead foreground jail leaves it for the next ls" {
	needs_testpoints
	crash_at run:started run --name "$JAIL" --nrtask 20 -- "${JAIL_CMD[@]}"
	wait_ended "$(record .pid)"
	[ -n "$(jail_cgroups "$JAIL")" ]
	crash_at release:cgroups ls -a
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_listed absent
	check_nothing_left
}

# --- commands meeting a paused cell ----------------------------------

@test "ls does not wait for a jail's lock, and shows a jail being made as creating" {
	needs_testpoints
	pause_at run:cgroups run -d --no-init --name "$JAIL" --nrtask 20 -- "${JAIL_CMD[@]}"
	run timeout 5 "$CELL" --root "$STATE" ls -a --json
	[ "$status" -eq 0 ]
	[ "$(jq -r --arg n "$JAIL" '.[] | select(.name == $n) | .state' <<<"$output")" = creating ]
	# Its cgroups are its creator's until it dies: ls leaves them.
	[ -n "$(jail_cgroups "$JAIL")" ]
	kill_paused
	check_listed stopped
	check_rm 0
}

@test "a cell killed while its helper holds the jail's user namespace leaves no helper" {
	local p helpers=0
	needs_testpoints
	# --allow set_hostname: by run:cgroups cell's helper has made the
	# jail's user, UTS and network namespaces and waits to be let go.
	pause_at run:cgroups run -d --no-init --name "$JAIL" --allow set_hostname --nrtask 20 -- \
		"${JAIL_CMD[@]}"
	for p in $(marker_pids); do
		[ "$p" = "$HOOK_PID" ] && continue
		[ "$(readlink "/proc/$p/ns/user")" != "$(readlink /proc/self/ns/user)" ]
		helpers=$((helpers + 1))
	done
	[ "$helpers" -eq 1 ]
	kill_paused
	check_listed stopped
	check_rm 0
	check_nothing_left # the helper died with cell (its parent-death signal)
}

@test "rm -f waiting on a cell killed mid-run goes on and removes everything" {
	local rm
	needs_testpoints
	pause_at run:cgroups run -d --no-init --name "$JAIL" --nrtask 20 -- "${JAIL_CMD[@]}"
	cell rm -f "$JAIL" >"$WORK/out.rm" 2>&1 3>&- &
	rm=$!
	# It waits for the creator's lock.
	sleep 0.5
	refute pid_ended "$rm"
	kill_paused
	wait_exit "$rm" 50
	[ "$status" -eq 0 ]
	[ "$(cat "$WORK/out.rm")" = "$JAIL" ] # what it removed
	check_nothing_left
}

@test "stop waiting on an rm killed holding the lock stops the jail" {
	local stop
	needs_testpoints
	start_jail
	pause_at rm:locked rm -f "$JAIL"
	cell stop -t 0 "$JAIL" >"$WORK/out.stop" 2>&1 3>&- &
	stop=$!
	sleep 0.5
	refute pid_ended "$stop"
	kill_paused
	wait_exit "$stop" 50
	[ "$status" -eq 0 ]
	[ "$(cat "$WORK/out.stop")" = "$JAIL" ] # what it stopped
	wait_ended "$JAIL_PID"
	check_listed stopped
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_rm 0
}

# --- many cells at once ------------------------------------------------

# start_50: `cell run -d` of jails $JAIL-1 to $JAIL-50 all at once;
# fails unless each exits 0.
start_50() {
	local i pids=() bad=0
	for i in $(seq 50); do
		cell run -d --no-init --name "$JAIL-$i" -- sleep "$MARK" \
			</dev/null >"$WORK/out.$i" 2>&1 3>&- &
		pids+=($!)
	done
	for i in $(seq 50); do
		wait_status "${pids[i - 1]}"
		if [ "$status" -ne 0 ]; then
			echo "run $i: $status: $(cat "$WORK/out.$i")" >&2
			bad=$((bad + 1))
		fi
	done
	[ "$bad" -eq 0 ]
}

# rm_all_at_once: `cell rm -f` of every jail, all at once; fails unless
# each exits 0 and nothing is left.
rm_all_at_once() {
	local name pids=() names=() bad=0 i
	for name in $(cell ls -aq); do
		cell rm -f "$name" >"$WORK/rm.$name" 2>&1 3>&- &
		pids+=($!)
		names+=("$name")
	done
	for i in "${!pids[@]}"; do
		wait_status "${pids[i]}"
		if [ "$status" -ne 0 ]; then
			echo "rm ${names[i]}: $status: $(cat "$WORK/rm.${names[i]}")" >&2
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
	check_nothing_left
}

@test "50 jails started at once all run, with JIDs 1 to 50" {
	start_50
	[ "$(cell ls -q | wc -l)" -eq 50 ]
	run cell ls --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.[].jid' <<<"$output" | sort -n | tr '\n' ' ')" = "$(seq 50 | tr '\n' ' ')" ]
	[ "$(jq -r '[.[] | select(.state == "running")] | length' <<<"$output")" -eq 50 ]
	[ "$(marker_pids | wc -l)" -eq 50 ]
	rm_all_at_once
}

@test "of 50 runs racing for one name, exactly one wins and 49 are refused" {
	local i pids=() won=0 refused=0
	start_50
	for i in $(seq 50); do
		cell run -d --no-init --name "$JAIL" -- sleep "$MARK" \
			</dev/null >"$WORK/out.$i" 2>"$WORK/err.$i" 3>&- &
		pids+=($!)
	done
	for i in $(seq 50); do
		wait_status "${pids[i - 1]}"
		case $status in
		0)
			won=$((won + 1))
			[ "$(cat "$WORK/out.$i")" = "$JAIL" ]
			;;
		125)
			refused=$((refused + 1))
			[ "$(cat "$WORK/err.$i")" = "cell: run: jail $JAIL: name already in use" ] || {
				echo "run $i: $(cat "$WORK/err.$i")" >&2
				return 1
			}
			;;
		*)
			echo "run $i: $status: $(cat "$WORK/err.$i")" >&2
			return 1
			;;
		esac
	done
	[ "$won" -eq 1 ]
	[ "$refused" -eq 49 ]
	[ "$(cell ls -q | wc -l)" -eq 51 ]
	[ "$(cell ls -aq | grep -cx -- "$JAIL")" -eq 1 ]
	# One jail of that name runs: its pid 1 is the one more process.
	[ "$(marker_pids | wc -l)" -eq 51 ]
	alive "$(record .pid)" "$(record .start_time)"
	# Its JID is the one after the 50 others'.
	[ "$(record .jid)" = 51 ]
	rm_all_at_once
}

# --- pid reuse ---------------------------------------------------------

# reuse_record STATE: the stopped $JAIL's record made to name a host
# `sleep` of the test's (not in a jail) as its pid 1, in phase STATE,
# with the jail's own start time, as after the pid has been recycled.
reuse_record() {
	local i
	# Start times are in clock ticks: a sleep started in the jail's own
	# tick would be the jail for cell too (that case is not tested).
	for ((i = 0; i < 10; i++)); do
		sleep 1000 3>&- &
		SLEEP_PID=$!
		HOST_PIDS+=("$SLEEP_PID")
		[ "$(awk '{ print $22 }' "/proc/$SLEEP_PID/stat")" != "$(record .start_time)" ] && break
		sleep 0.05
	done
	python3 - "$STATE/$JAIL/state.json" "$SLEEP_PID" "$1" <<'EOF'
import json, os, sys
path, pid, phase = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path) as f:
    st = json.load(f)
st["pid"] = pid
st["state"] = phase
with open(path + ".tmp", "w") as f:
    json.dump(st, f)
os.rename(path + ".tmp", path)
EOF
	[ "$(record .pid)" = "$SLEEP_PID" ]
	# The start times differ: the sleep is not the jail's process.
	refute alive "$SLEEP_PID" "$(record .start_time)"
}

@test "a running record whose pid was reused is never signalled or joined" {
	start_jail
	run cell stop -t 0 "$JAIL"
	[ "$status" -eq 0 ]
	reuse_record running
	check_listed stopped
	run cell exec "$JAIL" true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: exec: jail $JAIL: is not running" ]
	run cell set "$JAIL" nrtask=5
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: jail $JAIL: is not running" ]
	# inspect describes no process: not the sleep's host namespaces.
	run cell inspect "$JAIL"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nstate=stopped\n'* ]]
	[[ "$output" == *$'\npid=\n'* ]]
	[[ "$output" != *"process.pid="* ]]
	[[ "$output" != *"namespaces."* ]]
	run cell stop -t 0 "$JAIL"
	[ "$status" -eq 0 ]
	alive "$SLEEP_PID" "$(awk '{ print $22 }' "/proc/$SLEEP_PID/stat")"
	run cell rm -f "$JAIL"
	[ "$status" -eq 0 ]
	kill -0 "$SLEEP_PID"
	refute pid_ended "$SLEEP_PID"
	check_nothing_left
}

@test "a record naming a host process, start time and all, is not a jail" {
	# Even a pid reused in the jail's own clock tick (or a forged record)
	# is told apart: a jail's pid 1 has a pid namespace of its own.
	start_jail
	run cell stop -t 0 "$JAIL"
	[ "$status" -eq 0 ]
	sleep 1000 3>&- &
	SLEEP_PID=$!
	HOST_PIDS+=("$SLEEP_PID")
	python3 - "$STATE/$JAIL/state.json" "$SLEEP_PID" <<'EOF'
import json, os, sys
path, pid = sys.argv[1], int(sys.argv[2])
with open("/proc/%d/stat" % pid) as f:
    start = int(f.read().rsplit(")", 1)[1].split()[19])
with open(path) as f:
    st = json.load(f)
st.update(pid=pid, start_time=start, state="running")
with open(path + ".tmp", "w") as f:
    json.dump(st, f)
os.rename(path + ".tmp", path)
EOF
	alive "$SLEEP_PID" "$(record .start_time)"
	run cell ls -a --json
	[ "$(jq -r --arg n "$JAIL" '.[] | select(.name == $n) | .state' <<<"$output")" = stopped ]
	run cell set "$JAIL" hostname=forged
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: jail $JAIL: is not running" ]
	[ "$(hostname)" != forged ]
	run cell exec "$JAIL" true
	[ "$status" -eq 125 ]
	run cell stop -t 0 "$JAIL"
	[ "$status" -eq 0 ]
	run cell rm -f "$JAIL"
	[ "$status" -eq 0 ]
	refute pid_ended "$SLEEP_PID"
	check_nothing_left
}

@test "a creating record whose creator's pid was reused is a stopped jail" {
	start_jail
	run cell stop -t 0 "$JAIL"
	[ "$status" -eq 0 ]
	reuse_record creating
	check_listed stopped
	run cell rm "$JAIL"
	[ "$status" -eq 0 ]
	refute pid_ended "$SLEEP_PID"
	check_nothing_left
}

# --- one jail, many commands -------------------------------------------

@test "set, exec and stop racing on one jail each succeed or fail cleanly" {
	local i pids=() what=()
	start_jail
	run cell set "$JAIL" nrtask=100
	[ "$status" -eq 0 ]
	# The stop goes in after the fifth pair: the pairs before it and
	# after race with it.
	for i in $(seq 10); do
		cell set "$JAIL" nrtask=$((50 + i)) >"$WORK/out.set$i" 2>&1 3>&- &
		pids+=($!)
		what+=("set$i")
		cell exec "$JAIL" true </dev/null >"$WORK/out.exec$i" 2>&1 3>&- &
		pids+=($!)
		what+=("exec$i")
		if [ "$i" -eq 5 ]; then
			cell stop -t 0 "$JAIL" >"$WORK/out.stop" 2>&1 3>&- &
			pids+=($!)
			what+=(stop)
		fi
	done
	for i in "${!pids[@]}"; do
		wait_exit "${pids[i]}" 100
		local out
		out=$(cat "$WORK/out.${what[i]}")
		case ${what[i]}:$status in
		stop:0)
			# It prints what it stopped.
			[ "$out" = "$JAIL" ] || { echo "${what[i]}: $out" >&2; return 1; }
			;;
		*:0)
			[ -z "$out" ] || { echo "${what[i]}: $out" >&2; return 1; }
			;;
		exec*:137)
			# It ran, and the stop that came after its start
			# killed it with the rest of the jail.
			[ -z "$out" ] || { echo "${what[i]}: $out" >&2; return 1; }
			;;
		set*:125 | exec*:125)
			[ "$out" = "cell: ${what[i]%%[0-9]*}: jail $JAIL: is not running" ] || {
				echo "${what[i]}: $out" >&2
				return 1
			}
			;;
		*)
			echo "${what[i]}: exit $status: $out" >&2
			return 1
			;;
		esac
	done
	# Once stop has ended, no set or exec finds the jail running.
	run cell set "$JAIL" nrtask=70
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: jail $JAIL: is not running" ]
	run cell exec "$JAIL" true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: exec: jail $JAIL: is not running" ]
	python3 -m json.tool "$STATE/$JAIL/state.json" >/dev/null
	check_listed stopped
	[ -z "$(jail_cgroups "$JAIL")" ]
	check_rm 0
}

# --- a foreground jail's cell killed -9 --------------------------------

# crash_foreground: `cell run --name $JAIL` (foreground) killed -9 once
# its jail runs; waits for the jail's processes to die with it.
crash_foreground() {
	local pid
	cell_bg "$WORK/out" --name "$JAIL" --nrtask 20 "$@" -- "${JAIL_CMD[@]}" </dev/null
	wait_running "$JAIL"
	for _ in $(seq 50); do
		[ "$(record .state)" = running ] && break
		sleep 0.1
	done
	pid=$(record .pid)
	wait_sleeps
	[ "$(marker_pids | wc -l)" -eq 3 ] # cell, pid 1 and its child
	kill -KILL "$BG_PID"
	wait_status "$BG_PID"
	[ "$status" -eq 137 ]
	# PDEATHSIG: pid 1 dies with cell, and the pid namespace with it.
	wait_ended "$pid" 20
	wait_no_marker
}

# run_forker FLAGS...: a detached jail whose pid 1 ($pid1) forks a
# sleeper carrying the marker each time /work/fork appears.
run_forker() {
	cell run -d --no-init --name "$JAIL" "$@" --bind "$WORK:/work" -- sh -c '
touch /work/ready
while :; do
	if [ -e /work/fork ]; then
		rm /work/fork
		sleep "$0" &
		echo $! >/work/forked
	fi
	sleep 0.05
done' "$MARK" >/dev/null
	wait_for "$WORK/ready"
	pid1=$(record .pid)
}

# fork_sleeper: while a cell waits at a pause point ($HOOK_PID), makes
# run_forker's jail fork ($sleeper), then lets the cell go on.
fork_sleeper() {
	touch "$WORK/fork"
	wait_for "$WORK/forked"
	sleeper=$(marker_pids | grep -vx "$pid1")
	[ -n "$sleeper" ]
	kill -USR1 "$HOOK_PID"
	wait "$HOOK_PID"
}

@test "set reaches a process the jail forked after set listed its processes" {
	needs_testpoints
	# pid 1 forks a sleeper (carrying the marker) when /work/fork appears.
	run_forker --nofile 200
	pause_at set:listed set "$JAIL" nofile=100
	fork_sleeper
	limit() {
		awk 'index($0, "Max open files") == 1 { print $(NF-2) }' "/proc/$1/limits"
	}
	[ "$(limit "$pid1")" = 100 ]
	[ "$(limit "$sleeper")" = 100 ]
}

@test "set moves into a new cgroup a process the jail forked after set listed its processes" {
	needs_testpoints
	run_forker
	# (its --bind gives it devices and freezer cgroups, no pids one)
	[ "$(record .cgroup.pids)" = null ]
	pause_at set:adopting set "$JAIL" nrtask=30
	fork_sleeper
	dir=$(record .cgroup.pids)
	[ "$(cat "$dir/pids.max")" = 30 ]
	grep -qx "$pid1" "$dir/cgroup.procs"
	grep -qx "$sleeper" "$dir/cgroup.procs"
}

@test "set killed after recording a new cgroup leaves the jail running, and set again works" {
	needs_testpoints
	JAIL_CMD=(sh -c 'sleep "$0" & exec sleep "$0"' "$MARK")
	cell run -d --no-init --name "$JAIL" -- "${JAIL_CMD[@]}" >/dev/null
	wait_sleeps
	crash_at set:recorded set "$JAIL" nrtask=30
	check_listed running
	# Recorded, never made: the next set makes it and moves the jail in.
	dir=$(record .cgroup.pids)
	[ ! -e "$dir" ]
	run cell set "$JAIL" nrtask=30
	[ "$status" -eq 0 ]
	[ "$(cat "$dir/pids.max")" = 30 ]
	[ "$(sort -n "$dir/cgroup.procs" | tr '\n' ' ')" = "$(marker_pids | sort -n | tr '\n' ' ')" ]
}

@test "set killed while moving the jail into a new cgroup leaves the rest to the next set" {
	needs_testpoints
	JAIL_CMD=(sh -c 'sleep "$0" & exec sleep "$0"' "$MARK")
	cell run -d --no-init --name "$JAIL" -- "${JAIL_CMD[@]}" >/dev/null
	wait_sleeps
	# Killed after listing the jail, before moving any of it: the cgroup
	# is made and recorded, empty, its limit not in the record.
	crash_at set:adopting set "$JAIL" nrtask=30
	check_listed running
	dir=$(record .cgroup.pids)
	[ -d "$dir" ]
	[ -z "$(cat "$dir/cgroup.procs")" ]
	[ "$(record .nrtask)" = null ]
	run cell set "$JAIL" nrtask=30
	[ "$status" -eq 0 ]
	[ "$(cat "$dir/pids.max")" = 30 ]
	[ "$(sort -n "$dir/cgroup.procs" | tr '\n' ' ')" = "$(marker_pids | sort -n | tr '\n' ' ')" ]
	run cell rm -f "$JAIL"
	[ "$status" -eq 0 ]
	[ ! -e "$dir" ]
}

@test "a failure after the command ran is one line, and the command's status stays" {
	needs_testpoints
	CELL_TEST_FAIL=run:cleanup run "$CELL_TESTPOINTS" --root "$STATE" run --name "$JAIL" -- \
		sh -c 'echo ran; exit 7'
	[ "$status" -eq 7 ]
	[ "$output" = "ran
cell: run: remove the jail's cgroups (test failure): Device or resource busy" ]
	# the command's own errors keep their codes
	CELL_TEST_FAIL=run:cleanup run -127 "$CELL_TESTPOINTS" --root "$STATE" run -- /nonexistent
	[ "$status" -eq 127 ]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$(ls -A "$STATE")" ]
}

@test "exec into a foreground jail still being built waits until its command runs" {
	needs_testpoints
	# The jail's first process pauses before it builds anything (its
	# mounts are still a copy of the host's); its record says running.
	CELL_TEST_PAUSE=run:building CELL_TEST_PAUSE_FILE=$WORK/paused \
		"$CELL_TESTPOINTS" --root "$STATE" run --name "$JAIL" --hostname built -- \
		sleep "$MARK" </dev/null >"$WORK/run.out" 2>&1 3>&- &
	run_pid=$!
	HOOK_PIDS+=("$run_pid")
	wait_for "$WORK/paused"
	wait_running "$JAIL"
	"$CELL" --root "$STATE" exec "$JAIL" uname -n >"$WORK/exec.out" 2>&1 3>&- &
	exec_pid=$!
	HOOK_PIDS+=("$exec_pid")
	sleep 0.5
	# run holds the jail's lock until the command runs: exec waits
	refute pid_ended "$exec_pid"
	[ ! -s "$WORK/exec.out" ]
	kill -USR1 "$(record .pid)"
	wait "$exec_pid"
	[ "$(cat "$WORK/exec.out")" = built ]
	cell stop -t 0 "$JAIL"
	wait "$run_pid" || true
}

@test "an --init whose reaper cannot be exec'd is a one-line error with exit 125" {
	needs_testpoints
	# pid 1 ends, and the kernel ends the jail with it
	CELL_TEST_FAIL=init:exec run "$CELL_TESTPOINTS" --root "$STATE" run --init -- sleep "$MARK"
	[ "$status" -eq 125 ]
	# The reason comes back on the channel, kept open until the exec.
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: jail "*": --init: exec the reaper: Exec format error" ]]
	[ -z "$(marker_pids)" ]
	[ -z "$(ls -A "$STATE")" ]
}

@test "a foreground jail dies with its cell, and the next ls removes it" {
	crash_foreground
	run cell ls -a
	[ "$status" -eq 0 ]
	[[ "$output" != *"$JAIL"* ]]
	check_nothing_left
}

@test "a foreground jail run as another user dies with its cell too" {
	# The kernel clears the parent-death signal on a uid change: cell
	# arms it again after --user.
	crash_foreground --user 1000
	run cell ls -a
	[ "$status" -eq 0 ]
	[[ "$output" != *"$JAIL"* ]]
	check_nothing_left
}

@test "a user namespace that cannot be made is a one-line error with exit 125, leaving nothing" {
	needs_testpoints
	for detach in "" "-d"; do
		CELL_TEST_FAIL=userns:unshare run "$CELL_TESTPOINTS" --root "$STATE" run $detach \
			--name "$JAIL" --allow set_hostname --nrtask 20 -- "${JAIL_CMD[@]}"
		[ "$status" -eq 125 ]
		[ "$output" = "cell: run: unshare a user namespace: No space left on device" ]
		check_nothing_left
	done
}

@test "a network namespace its user namespace's helper cannot make is a one-line error with exit 125, leaving nothing" {
	needs_testpoints
	# The helper makes it while cell clones the jail's first process,
	# which waits for it (sync 0); a bridge's cell-net needs it before.
	for opts in "" "-d" "--allow set_hostname" "--allow set_hostname --net host"; do
		# shellcheck disable=SC2086 # the options are a word list
		CELL_TEST_FAIL=userns:netns run "$CELL_TESTPOINTS" --root "$STATE" run $opts \
			--name "$JAIL" --nrtask 20 -- "${JAIL_CMD[@]}"
		[ "$status" -eq 125 ]
		case $opts in
		*"--net host"*) what="UTS namespace" ;;
		*set_hostname*) what="UTS and network namespaces" ;;
		*) what="network namespace" ;;
		esac
		[ "$output" = "cell: run: jail $JAIL: make its $what: No space left on device" ]
		check_nothing_left
	done
}

@test "a foreground jail with a user namespace of its own dies with its cell too" {
	# --allow set_hostname: the parent-death signal outlives the move
	# into the jail's own user namespace.
	crash_foreground --allow set_hostname
	run cell ls -a
	[ "$status" -eq 0 ]
	[[ "$output" != *"$JAIL"* ]]
	check_nothing_left
}

@test "a jail whose cell is killed as it joins its user namespace ends, leaving nothing" {
	needs_testpoints
	# The jail's first process pauses just after it joined its user
	# namespace; cell is killed there.  (It
	# writes the pause file from inside: $WORK is bound at its own path.)
	CELL_TEST_PAUSE=run:userns CELL_TEST_PAUSE_FILE=$WORK/paused \
		"$CELL_TESTPOINTS" --root "$STATE" run --name "$JAIL" --allow set_hostname --bind "$WORK:$WORK" -- \
		sleep "$MARK" </dev/null >"$WORK/run.out" 2>&1 3>&- &
	run_pid=$!
	HOOK_PIDS+=("$run_pid")
	wait_for "$WORK/paused"
	pid=$(record .pid)
	[ "$(readlink "/proc/$pid/ns/user")" != "$(readlink /proc/self/ns/user)" ]
	kill -KILL "$run_pid"
	wait "$run_pid" 2>/dev/null || true
	kill -USR1 "$pid" 2>/dev/null || true
	wait_ended "$pid" 20
	wait_no_marker
	run cell ls -a
	[ "$status" -eq 0 ]
	[[ "$output" != *"$JAIL"* ]]
	check_nothing_left
}

@test "a foreground jail's name is free at once after its cell was killed" {
	crash_foreground
	run cell run --name "$JAIL" -- true
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	check_nothing_left
}

# --- rm against a stop in progress ---------------------------------------

# jail_locked: another command holds $JAIL's lock.
jail_locked() {
	! flock -n "$STATE/$JAIL" true
}

@test "rm -f waits for a stop in progress, then removes the stopped jail" {
	local stop rm t0 i
	start_jail
	# stop holds the jail's lock while pid 1 ignores its SIGTERM; rm
	# waits for it (up to the -t of the stop), then finds it stopped.
	cell stop -t 2 "$JAIL" >"$WORK/out.stop" 2>&1 3>&- &
	stop=$!
	for ((i = 0; i < 50; i++)); do
		jail_locked && break
		sleep 0.1
	done
	jail_locked
	t0=$SECONDS
	cell rm -f "$JAIL" >"$WORK/out.rm" 2>&1 3>&- &
	rm=$!
	wait_exit "$rm" 100
	[ "$status" -eq 0 ]
	[ "$(cat "$WORK/out.rm")" = "$JAIL" ]
	# rm ended after stop had.
	pid_ended "$stop"
	wait_status "$stop"
	[ "$status" -eq 0 ]
	[ "$(cat "$WORK/out.stop")" = "$JAIL" ]
	[ $((SECONDS - t0)) -ge 1 ]
	check_nothing_left
}

# --- the stages of the launch (launch.c) --------------------------------

# Every stage of the launch: the parent's, then the child's.
LAUNCH_STAGES="prepare state userns ids cgroups files spawn start exec enter built pivoted identity entered policy"

@test "a failure at any stage of the launch is a one-line error with exit 125 and leaves nothing" {
	needs_testpoints
	local stage mode
	for stage in $LAUNCH_STAGES; do
		for mode in foreground detached; do
			local args=(--name "$JAIL" --nrtask 20 --init)
			[ "$mode" = detached ] && args+=(-d)
			run env CELL_TEST_FAIL="launch:$stage" "$CELL_TESTPOINTS" --root "$STATE" \
				run "${args[@]}" -- "${JAIL_CMD[@]}"
			echo "$stage, $mode: $status: $output"
			[ "$status" -eq 125 ]
			[ "${#lines[@]}" -eq 1 ]
			[[ "$output" == "cell: run: "*"launch:$stage (test failure): Input/output error" ]]
			check_nothing_left
		done
	done
}

@test "a child held before pivot_root waits for cell, and goes on when cell lets it" {
	needs_testpoints
	CELL_TEST_HOLD=prepivot pause_at run:prepivot run -d --no-init --name "$JAIL" -- "${JAIL_CMD[@]}"
	# Held: its root is built, its command not run (the held child is
	# a copy of cell, whose arguments carry the marker too).
	local p
	for p in $(marker_pids); do
		[ "$(cat "/proc/$p/comm")" != sleep ]
	done
	kill -USR1 "$HOOK_PID"
	wait "$HOOK_PID"
	check_listed running
	check_rm 0 -f
}

@test "cell killed -9 while its child is held before or after pivot_root leaves nothing" {
	needs_testpoints
	local where
	for where in prepivot postpivot; do
		CELL_TEST_HOLD=$where pause_at "run:$where" run --name "$JAIL" --nrtask 20 -- "${JAIL_CMD[@]}"
		kill_paused
		# The held child dies with its cell; the directory it left
		# without a complete start is tidied by the next command.
		wait_no_marker
		check_listed stopped || check_listed absent
		cell rm "$JAIL" 2>/dev/null || true
		check_nothing_left
	done
}

# --- set acts from inside the jail's pid namespace ------------------------

@test "set acts on the jail's processes from inside its pid namespace, where no host pid can be named" {
	needs_testpoints
	start_jail --nofile 200
	pause_at set:listed set "$JAIL" nofile=100
	# The process that lists and acts is cell's worker, a child of the
	# paused cell: it stands in the jail's pid namespace, so a pid it
	# names (listed, then recycled) is the jail's, never the host's.
	local worker
	worker=$(tr -d " " <"/proc/$HOOK_PID/task/$HOOK_PID/children")
	[ -n "$worker" ]
	[ "$(readlink "/proc/$worker/ns/pid")" = "$(readlink "/proc/$JAIL_PID/ns/pid")" ]
	[ "$(readlink "/proc/$HOOK_PID/ns/pid")" != "$(readlink "/proc/$JAIL_PID/ns/pid")" ]
	kill -USR1 "$HOOK_PID"
	wait "$HOOK_PID"
	[ "$(awk 'index($0, "Max open files") == 1 { print $(NF-2) }' "/proc/$JAIL_PID/limits")" = 100 ]
	check_rm 0 -f
}

# same_memory PID1 PID2: the two processes share one memory (kcmp(2),
# KCMP_VM), as the shared child and its cell do until its exec.
same_memory() {
	python3 - "$1" "$2" <<'PY'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
# kcmp(pid1, pid2, KCMP_VM = 1, 0, 0): 0 when the memory is the same
r = libc.syscall(312, int(sys.argv[1]), int(sys.argv[2]), 1, 0, 0)
if r < 0:
    sys.exit("kcmp: errno %d" % ctypes.get_errno())
sys.exit(0 if r == 0 else 1)
PY
}

# paused_child ARGS...: a foreground jail paused in its first process
# before it builds (run:building); sets RUN_PID (cell) and CHILD (the
# jail's first process, as its record says).
paused_child() {
	CELL_TEST_PAUSE=run:building CELL_TEST_PAUSE_FILE=$WORK/paused \
		"$CELL_TESTPOINTS" --root "$STATE" run --name "$JAIL" "$@" -- \
		sleep "$MARK" </dev/null >"$WORK/run.out" 2>&1 3>&- &
	RUN_PID=$!
	HOOK_PIDS+=("$RUN_PID")
	wait_for "$WORK/paused"
	wait_running "$JAIL"
	CHILD=$(record .pid)
}

@test "the jail's first process shares cell's memory until its exec, but not to read an image's /etc/passwd (none there: shared)" {
	needs_testpoints
	[ "$(uname -m)" = x86_64 ] || skip "the shared child is x86-64's"
	# The embedded root: the host's own files, no fork of cell's memory.
	paused_child
	same_memory "$RUN_PID" "$CHILD"
	kill -USR1 "$CHILD"
	# Exec'd: a memory of its own, and cell runs on.
	for ((i = 0; i < 50; i++)); do
		! same_memory "$RUN_PID" "$CHILD" && break
		sleep 0.1
	done
	refute same_memory "$RUN_PID" "$CHILD"
	[ -z "$(cat "$WORK/run.out")" ]
	cell stop -t 0 "$JAIL"
	wait "$RUN_PID" || true

	# A --rootfs without an /etc/passwd has no HOME to read: shared.
	make_rootfs "$WORK/root"
	paused_child --rootfs "$WORK/root"
	same_memory "$RUN_PID" "$CHILD"
	# One made there now, after cell looked, is not read either.
	mkdir "$WORK/root/etc"
	echo 'root:x:0:0:root:/home/late:/bin/sh' >"$WORK/root/etc/passwd"
	kill -USR1 "$CHILD"
	for ((i = 0; i < 50; i++)); do
		! same_memory "$RUN_PID" "$CHILD" && break
		sleep 0.1
	done
	[ "$(tr '\0' '\n' <"/proc/$CHILD/environ" | grep '^HOME=')" = HOME=/ ]
	cell stop -t 0 "$JAIL"
	wait "$RUN_PID" || true
	# A --rootfs whose /etc/passwd gives HOME is parsed by a fork only:
	# a flaw of that parser reaches the jail's process, never cell.
	paused_child --rootfs "$WORK/root"
	refute same_memory "$RUN_PID" "$CHILD"
	kill -USR1 "$CHILD"
	cell stop -t 0 "$JAIL"
	wait "$RUN_PID" || true
	# Told its HOME, it reads no file of the image: shared again.
	paused_child --rootfs "$WORK/root" --env HOME=/
	same_memory "$RUN_PID" "$CHILD"
	kill -USR1 "$CHILD"
	cell stop -t 0 "$JAIL"
	wait "$RUN_PID" || true
}
