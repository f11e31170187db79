# Common setup and teardown for cell's integration tests.
#
# Every test gets a private state root ($STATE) and a private work
# directory ($WORK, outside /tmp so that the embedded root's fresh /tmp
# does not hide it).  Teardown removes the detached jails (cell rm -f),
# kills the background jails a test started (by pid), and then fails
# the test if the host's hostname changed or if a mount mentioning either
# directory is still in the host's mount table or if $STATE is not
# empty; both directories are removed in every case.
#
# Load with `load helpers`; it defines setup() and teardown().  A file
# that needs more calls cell_setup / cell_teardown from its own.

bats_require_minimum_version 1.5.0

CELL=${CELL:-$BATS_TEST_DIRNAME/../../build/cell}

# The busybox applets a --rootfs needs.
CELL_APPLETS="sh ls cat echo hostname readlink pwd stat touch mkdir sleep id
test grep uname kill tty env true false"

# The host's namespaces, for the guard of a test that tries inside a jail
# what would change the host (sethostname, mount...): JAIL_GUARD_SH,
# first in the jail's shell, exits 99 unless it runs in a UTS and a pid
# namespace that are not the host's.  It fails closed: a namespace link it
# cannot read (no /proc) counts as the host's.
HOST_UTS=$(readlink /proc/self/ns/uts)
HOST_PID=$(readlink /proc/self/ns/pid)
JAIL_GUARD_SH='u=$(readlink /proc/self/ns/uts) && p=$(readlink /proc/self/ns/pid) &&
[ -n "$u" ] && [ -n "$p" ] && [ -n "$HOST_UTS" ] && [ -n "$HOST_PID" ] &&
[ "$u" != "$HOST_UTS" ] && [ "$p" != "$HOST_PID" ] || exit 99'
# JAIL_GUARD_PY: the same guard first in a jail's python3 -c, with the
# modules the probes use and try_call(NAME, F, ARGS...), which prints
# "NAME ok" or "NAME ERRNO" (EPERM...) of F(ARGS...).
JAIL_GUARD_PY='import ctypes, errno, os, socket, sys
if (not os.environ.get("HOST_UTS") or not os.environ.get("HOST_PID") or
        os.readlink("/proc/self/ns/uts") == os.environ["HOST_UTS"] or
        os.readlink("/proc/self/ns/pid") == os.environ["HOST_PID"]):
    sys.exit(99)
def try_call(name, f, *args):
    try:
        f(*args)
        print(name, "ok", flush=True)
    except OSError as e:
        print(name, errno.errorcode[e.errno], flush=True)
'

# jail_sh [OPTION...] SCRIPT: `cell run OPTION... -- sh -c SCRIPT` behind
# JAIL_GUARD_SH, the host's namespaces in the jail's environment for it.
# jail_py [OPTION...] CODE: the same with python3 -c behind $GUARD_PY (a
# file's JAIL_GUARD_PY with more of its own), else JAIL_GUARD_PY.
jail_sh() {
	cell run -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" "${@:1:$#-1}" -- \
		sh -c "$JAIL_GUARD_SH"$'\n'"${!#}"
}

jail_py() {
	cell run -e HOST_UTS="$HOST_UTS" -e HOST_PID="$HOST_PID" "${@:1:$#-1}" -- \
		python3 -c "${GUARD_PY:-$JAIL_GUARD_PY}${!#}"
}

# nobody_runs_cell: skips the test unless setpriv is there and nobody
# (65534) may execute $CELL.  nobody_xdg: then $WORK/xdg, a 0700
# XDG_RUNTIME_DIR of nobody's ($WORK made 0755 for nobody to reach it).
nobody_runs_cell() {
	command -v setpriv >/dev/null || skip "no setpriv"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$CELL" ||
		skip "$CELL is not executable by nobody"
}

nobody_xdg() {
	nobody_runs_cell
	chmod 755 "$WORK"
	mkdir -m 0700 "$WORK/xdg"
	chown 65534:65534 "$WORK/xdg"
}

# cell_cgroup_leaf NAME: the name of jail NAME's cgroups under $STATE,
# cell-HASH-NAME (HASH: FNV-1a of the state root, as cgroup.c): tests look
# for exactly their own, never for a user's or another test run's jail
# of the same name.
# shellcheck source=../cgroup_name.bash
source "${BASH_SOURCE[0]%/*}/../cgroup_name.bash"
cell_cgroup_leaf() {
	cell_cgroup_name "$STATE" "$1"
}

cell_setup() {
	# The host's names, which no test may change (checked by teardown).
	HOST_NAMES="$(cat /proc/sys/kernel/hostname) $(cat /proc/sys/kernel/domainname)"
	STATE=$(mktemp -d /tmp/cell-state.XXXXXX)
	WORK=$(mktemp -d /var/tmp/cell-work.XXXXXX)
	BG_PIDS=()
}

# Mount points in the host's mount table under $STATE or $WORK.
# Never with an empty STATE or WORK: awk's index() finds "" in every line,
# and teardown would unmount every mount of the host (a suite interrupted
# with SIGINT once took /proc, /sys and the cgroup hierarchies so).
cell_leftover_mounts() {
	[ -n "$STATE" ] && [ -n "$WORK" ] || return 0
	awk -v s="$STATE" -v w="$WORK" \
		'index($0, s) || index($0, w) { print $5 }' /proc/self/mountinfo
}

cell_teardown() {
	local pid mnt errors=()

	# Detached jails first: they are no child of the test shell.
	cell_rm_all || errors+=("a detached jail outlived cell rm -f")

	# End each background jail by killing its first process, so that
	# its cell cleans up as after any jail's end; cell itself only if
	# that does not end it.
	for pid in "${BG_PIDS[@]}"; do
		local child
		child=$(cat "/proc/$pid/task/$pid/children" 2>/dev/null || true)
		[ -n "$child" ] && kill -KILL $child 2>/dev/null
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done

	# A jail killed above may need a moment to be reaped by the kernel.
	cell_wait_gone "$STATE" || true

	if [ -n "$(cell_leftover_mounts)" ]; then
		errors+=("mounts left behind: $(cell_leftover_mounts | tr '\n' ' ')")
		# Deepest first, lazily: nothing under them may be deleted.
		for mnt in $(cell_leftover_mounts | sort -r); do
			umount -l "$mnt" 2>/dev/null || true
		done
	fi
	# net.lock: the root's lock of its jails' addresses, which stays.
	if [ -n "$(ls -A "$STATE" 2>/dev/null | grep -vx net.lock)" ]; then
		errors+=("state root not empty: $(ls -A "$STATE" | grep -vx net.lock | tr '\n' ' ')")
	fi
	local now="$(cat /proc/sys/kernel/hostname) $(cat /proc/sys/kernel/domainname)"
	if [ "$now" != "$HOST_NAMES" ]; then
		errors+=("the host's hostname and domainname changed: $now (were $HOST_NAMES; restored)")
		hostname "${HOST_NAMES%% *}"
		domainname "${HOST_NAMES#* }"
	fi

	# --one-file-system: never descend into a mount that is still there.
	rm -rf --one-file-system "$STATE" "$WORK"
	# Id ranges still held for this root's jails: a start killed before
	# its record named its range leaves the holder file, which cell
	# sweeps only when the pool runs out (idrange.c); this root is gone.
	{ grep -lxF "root $STATE" /run/cell-ids/u* 2>/dev/null || true; } | xargs -r rm -f

	if [ "${#errors[@]}" -gt 0 ]; then
		printf 'teardown: %s\n' "${errors[@]}" >&2
		return 1
	fi
}

setup() { cell_setup; }
teardown() { cell_teardown; }

# cell ARG...: the cell binary with the test's private state root.
cell() {
	"$CELL" --root "$STATE" "$@"
}

# cell_bg OUT ARG...: `cell run ARG...` in the background, stdout and
# stderr to OUT; its pid in $BG_PID and remembered for teardown.
# SIGINT, SIGQUIT and SIGHUP are set back to default: a non-interactive
# shell starts background jobs with the first two ignored, the suite may
# run under nohup(1), and cell leaves an inherited "ignore" alone.  fd 3 is closed so that
# bats does not wait for the job.
cell_bg() {
	local out=$1
	shift
	env --default-signal=INT,QUIT,HUP "$CELL" --root "$STATE" run "$@" \
		>"$out" 2>&1 3>&- &
	BG_PID=$!
	BG_PIDS+=("$BG_PID")
}

# wait_for PATH [TENTHS]: wait until PATH exists (default 5 s).
wait_for() {
	local i
	for ((i = 0; i < ${2:-50}; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# wait_running NAME [TENTHS]: wait until jail NAME's record says running
# (its pid 1 recorded; default 5 s).  Its state.json alone is not enough:
# a jail with cgroups has one from before they exist ("creating").
wait_running() {
	local i
	for ((i = 0; i < ${2:-50}; i++)); do
		grep -q '"state":"running"' "$STATE/$1/state.json" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for jail $1 to run" >&2
	return 1
}

# wait_output FILE LINE: wait until FILE has the line LINE (default 5 s).
wait_output() {
	local i
	for ((i = 0; i < 50; i++)); do
		grep -qxF "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$2' in $1" >&2
	return 1
}

# cell_wait_gone DIR: wait until DIR is empty (default 3 s).
cell_wait_gone() {
	local i
	for ((i = 0; i < 30; i++)); do
		[ -z "$(ls -A "$1" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	return 1
}

# wait_status PID: wait for a background job; its status in $status.
wait_status() {
	status=0
	wait "$1" || status=$?
}

# make_rootfs DIR: a minimal busybox root filesystem in DIR.
make_rootfs() {
	local dir=$1 applet
	mkdir -p "$dir/bin"
	cp /bin/busybox "$dir/bin/busybox"
	for applet in $CELL_APPLETS; do
		ln -s busybox "$dir/bin/$applet"
	done
}

# The terminal output of COMMAND run under a pty (script(1)), with the
# pty's \r removed; status is the command's.  script(1) runs COMMAND
# with $SHELL: pinned to /bin/sh (dash) so that a test means the same
# under every caller's shell (CI has none set).
run_in_pty() {
	SHELL=/bin/sh run script -qec "$1" /dev/null
	output=${output//$'\r'/}
	lines=()
	local line
	while IFS= read -r line; do
		lines+=("$line")
	done <<<"$output"
}

# run_in_pty_held COMMAND: run_in_pty with a stdin that never ends.
# script(1) answers the end of its stdin by typing an end-of-file
# character into the terminal; cell relays it (the caller's terminal is
# raw) and the jail's pty echoes it ("^@"), at a moment that depends on
# the race.  A FIFO held open read-write never ends, and needs no
# process of its own.
run_in_pty_held() {
	[ -p "$WORK/stdin" ] || mkfifo "$WORK/stdin"
	run_in_pty "$1" <>"$WORK/stdin"
}

# wait_exit PID [TENTHS]: wait_status, but give up (default 5 s) on a
# PID that does not end, so that a broken cell fails the test instead of
# hanging it; teardown then ends the jail.
wait_exit() {
	local i state
	for ((i = 0; i < ${2:-50}; i++)); do
		state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || break
		[ -z "$state" ] || [ "$state" = Z ] && break
		sleep 0.1
	done
	if [ -n "$state" ] && [ "$state" != Z ]; then
		echo "pid $1 still running after $((${2:-50} / 10)) s" >&2
		return 1
	fi
	wait_status "$1"
}

# pid_ended PID: true once PID is gone or a zombie (a detached jail's
# pid 1 is not our child, and whoever inherits it may be slow to reap).
pid_ended() {
	local state
	state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$state" ] || [ "$state" = Z ]
}

# in_pidns PIDNS: the host pids whose pid namespace is PIDNS (a
# readlink of /proc/PID/ns/pid), but zombies (a detached jail's pid 1
# waits for the host's init to reap it).
in_pidns() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$1" ] && ! pid_ended "${p#/proc/}" &&
			echo "${p#/proc/}"
	done
	return 0
}

# wait_ended PID [TENTHS]: wait until pid_ended PID (default 5 s).
wait_ended() {
	local i
	for ((i = 0; i < ${2:-50}; i++)); do
		pid_ended "$1" && return 0
		sleep 0.1
	done
	echo "pid $1 still running" >&2
	return 1
}

# proc_start PID: PID's start time (field 22 of /proc/PID/stat), which
# tells a process from a later one that reuses its pid.
proc_start() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $20 }'
}

# cell_rm_all: force-remove every jail under $STATE (detached jails are
# not children of the test shell, so cell_teardown cannot end them), and
# fail if one of their processes or cgroups outlives `cell rm -f`.
# cell_teardown calls it first.
cell_rm_all() {
	local name procs=() cgroups pid start cg errors=()

	[ -d "$STATE" ] || return 0
	# The running jails' pid 1s, as cell sees them, with their start times.
	for pid in $("$CELL" --root "$STATE" ls --json 2>/dev/null | jq -r '.[].pid // empty' 2>/dev/null); do
		procs+=("$pid:$(proc_start "$pid")")
	done
	cgroups=$(cat "$STATE"/*/state.json 2>/dev/null |
		jq -r '(.cgroup // {}) | to_entries[] | select(.key != "layout") | .value // empty' \
			2>/dev/null || true)
	for name in $("$CELL" --root "$STATE" ls -aq 2>/dev/null); do
		# (a --rm watcher may have removed it meanwhile)
		"$CELL" --root "$STATE" rm -f "$name" >/dev/null 2>&1 ||
			[ ! -e "$STATE/$name" ] ||
			errors+=("cell rm -f $name failed")
	done
	# A --rm watcher may still be removing a jail that just ended.
	cell_wait_gone "$STATE" || true
	for pid in "${procs[@]}"; do
		start=${pid#*:}
		pid=${pid%%:*}
		if ! wait_ended "$pid" 30 2>/dev/null &&
			[ "$(proc_start "$pid")" = "$start" ]; then
			errors+=("jail process $pid left running")
			kill -KILL "$pid" 2>/dev/null || true
		fi
	done
	for cg in $cgroups; do
		if [ -e "$cg" ]; then
			errors+=("cgroup left behind: $cg")
			rmdir "$cg" 2>/dev/null || true
		fi
	done
	if [ "${#errors[@]}" -gt 0 ]; then
		printf 'teardown: %s\n' "${errors[@]}" >&2
		return 1
	fi
}

# child_of PID [COMM]: the host pid of PID's child (named COMM), once
# there is one (5 s).  A cell's jail by the name of its command: until
# the jail's first process has exec'd, the user namespace's helper may
# be cell's child too (docs/ARCHITECTURE.md, "The shared child").
child_of() {
	local i c
	for ((i = 0; i < 50; i++)); do
		for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
			if [ -z "${2:-}" ] || [ "$(cat "/proc/$c/comm" 2>/dev/null)" = "$2" ]; then
				echo "$c"
				return 0
			fi
		done
		sleep 0.1
	done
	echo "timed out waiting for a child of $1 ${2:-}" >&2
	return 1
}

# descendants PID: the host pids of every process below PID.
descendants() {
	local c
	for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}

# jfield NAME KEY: KEY of jail NAME in `cell ls -a --json` (empty if
# null; "absent" if there is no such jail).
jfield() {
	cell ls -a --json | jq -r --arg n "$1" --arg k "$2" \
		'[.[] | select(.name == $n)] | if length == 0 then "absent" else .[0][$k] // "" end'
}

# wait_stopped NAME [TENTHS]: wait until jail NAME is stopped (default 10 s).
wait_stopped() {
	local i
	for ((i = 0; i < ${2:-100}; i++)); do
		[ "$(jfield "$1" state)" = stopped ] && return 0
		sleep 0.1
	done
	echo "jail $1 still $(jfield "$1" state)" >&2
	return 1
}

# pause_at STAGE ARG...: `cell ARG...` of the testpoints build in the
# background, once it has paused at STAGE; its pid in $HOOK_PID.
# PAUSE_CELL: the binary, if not $CELL_TESTPOINTS (a wrapper of it).
pause_at() {
	local stage=$1 file=$WORK/paused pid i paused=
	shift
	rm -f "$file"
	CELL_TEST_PAUSE=$stage CELL_TEST_PAUSE_FILE=$file \
		"${PAUSE_CELL:-$CELL_TESTPOINTS}" --root "$STATE" "$@" </dev/null >"$WORK/hooked.out" 2>&1 3>&- &
	pid=$!
	HOOK_PIDS+=("$pid")
	# The hook writes its pid and a newline, then pauses for ever.
	for ((i = 0; i < 100; i++)); do
		read -r paused 2>/dev/null <"$file" && [ -n "$paused" ] && break
		if pid_ended "$pid"; then
			echo "cell $* ended without pausing at $stage:" >&2
			cat "$WORK/hooked.out" >&2
			return 1
		fi
		sleep 0.1
	done
	[ "$paused" = "$pid" ] || {
		echo "cell $* did not pause at $stage (pause file: '$paused')" >&2
		return 1
	}
	HOOK_PID=$pid
}
