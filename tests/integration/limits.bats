#!/usr/bin/env bats
# Resource limits: cgroup limits (--nrtask, --memory, --swap, --cpus) and
# rlimits (--cpu-time, --memlock, --data, --nofile, --nice), applied,
# visible inside, and the cgroups removed afterwards.
load helpers

# Parent cgroups a test made, removed after its jails have ended.
setup() {
	cell_setup
	CG_DIRS=()
}

teardown() {
	local rc=0 d
	cell_teardown || rc=$?
	for d in "${CG_DIRS[@]}"; do
		rmdir "$d" 2>/dev/null || true
	done
	return "$rc"
}

# host_cgroup CTRL: the directory of this shell's cgroup for CTRL (v1).
host_cgroup() {
	local path
	path=$(awk -F: -v c="$1" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' /proc/self/cgroup)
	echo "/sys/fs/cgroup/$1${path%/}"
}

# jail_cgroup CTRL NAME: the v1 CTRL cgroup of jail NAME (under a private
# state root it is cell-HASH-NAME).
jail_cgroup() {
	echo "$(host_cgroup "$1")/$(cell_cgroup_leaf "$2")"
}

@test "a fork bomb inside --nrtask 50 is held at 50 tasks" {
	cell_bg "$WORK/out" --name bomb --nrtask 50 -- python3 -c '
import errno, os, sys, time
for i in range(500):
    try:
        if os.fork() == 0:
            time.sleep(3)
            os._exit(0)
    except OSError as e:
        print(errno.errorcode[e.errno], i + 1, flush=True)
        break
time.sleep(3)
'
	wait_running "bomb"
	for _ in $(seq 50); do grep -q EAGAIN "$WORK/out" && break; sleep 0.1; done
	# The 50th task is refused: pid 1 and 49 children.
	run cat "$WORK/out"
	[ "$output" = "EAGAIN 50" ]
	# Seen from the host, the jail holds 50 tasks, no more.
	[ "$(cat "$(jail_cgroup pids bomb)/pids.current")" -eq 50 ]
	[ "$(grep -c . "$(jail_cgroup pids bomb)/cgroup.procs")" -eq 50 ]
	wait_status "$BG_PID"
	[ "$status" -eq 0 ]
	[ ! -e "$(jail_cgroup pids bomb)" ]
}

@test "a memory hog inside --memory 64M is killed inside the jail only" {
	run cell run --name hog --memory 64M -- sh -c '
python3 -c "
x = []
while True:
    x.append(bytearray(1 << 20))
"
echo "hog=$?"; echo "shell still here"'
	[ "$status" -eq 0 ]
	# (the shell also reports "Killed" on stderr)
	[[ "$output" == *$'hog=137\nshell still here' ]]
	[ ! -e "$(jail_cgroup memory hog)" ]
}

@test "a memory hog that is the jail's pid 1 ends the jail with 137" {
	run cell run --memory 32M -- python3 -c '
x = []
while True:
    x.append(bytearray(1 << 20))'
	[ "$status" -eq 137 ]
}

@test "--cpu-time 1 ends a busy loop with SIGXCPU" {
	run cell run --cpu-time 1 -- sh -c 'sh -c "while :; do :; done" 2>/dev/null; echo $?'
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "$((128 + 24))" ]
}

@test "--nice 10 shows in the jail and cannot be lowered" {
	run cell run --nice 10 -- python3 -c '
import os
print(os.getpriority(os.PRIO_PROCESS, 0))
try:
    os.setpriority(os.PRIO_PROCESS, 0, 9)
    print("lowered")
except OSError as e:
    print(e.strerror)
print(os.getpriority(os.PRIO_PROCESS, 0))
os.setpriority(os.PRIO_PROCESS, 0, 15)
print(os.getpriority(os.PRIO_PROCESS, 0))'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 10 ]
	[ "${lines[1]}" = "Permission denied" ]
	[ "${lines[2]}" = 10 ]
	[ "${lines[3]}" = 15 ]
}

@test "cgroup limits are visible inside in the usual files" {
	run cell run --nrtask 40 --memory 64M --cpus 0.5 -- sh -c '
cat /sys/fs/cgroup/pids/pids.max
cat /sys/fs/cgroup/memory/memory.limit_in_bytes
cat /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes
cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us /sys/fs/cgroup/cpu/cpu.cfs_period_us
grep -c "^" /sys/fs/cgroup/pids/cgroup.procs
touch /sys/fs/cgroup/pids/x 2>&1 || :'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 40 ]
	[ "${lines[1]}" = $((64 << 20)) ]
	# Swap is pinned: memory + swap = memory.
	[ "${lines[2]}" = $((64 << 20)) ]
	[ "${lines[3]}" = 50000 ]
	[ "${lines[4]}" = 100000 ]
	# The jail's cgroup is its cgroup namespace's root and holds it alone.
	[ "${lines[5]}" = 2 ]
	[[ "${lines[6]}" == *"Read-only file system"* ]]
}

@test "--swap allows swap beyond --memory" {
	run cell run --memory 64M --swap 16M -- cat /sys/fs/cgroup/memory/memory.memsw.limit_in_bytes
	[ "$status" -eq 0 ]
	[ "$output" = $((80 << 20)) ]
}

@test "rlimits are visible inside in /proc/self/limits" {
	run cell run --cpu-time 5 --memlock 1M --data 512M --nofile 100 -- cat /proc/self/limits
	[ "$status" -eq 0 ]
	[[ "$output" =~ "Max cpu time"\ +5\ +6\ +seconds ]]
	[[ "$output" =~ "Max locked memory"\ +1048576\ +1048576 ]]
	[[ "$output" =~ "Max data size"\ +536870912\ +536870912 ]]
	[[ "$output" =~ "Max open files"\ +100\ +100 ]]
}

@test "a jail without cgroup limits gets no cgroup of its own" {
	cell_bg "$WORK/out" --name plain -- sleep 30
	wait_running "plain"
	jail=$(child_of "$BG_PID" sleep)
	# While it runs: no cgroup named after it, and its processes sit in
	# cell's own cgroups.
	[ ! -e "$(jail_cgroup pids plain)" ]
	[ ! -e "$(jail_cgroup memory plain)" ]
	[ "$(cat "/proc/$jail/cgroup")" = "$(cat "/proc/$BG_PID/cgroup")" ]
}

@test "--cgroup-parent puts the jail's cgroups beneath it and leaves it in place" {
	parent=/sys/fs/cgroup/pids/cell-bats-parent-$$
	mkdir "$parent"
	CG_DIRS+=("$parent")
	cell_bg "$WORK/out" --name child --cgroup-parent "/${parent##*/}" -- sleep 30
	wait_running "child"
	jail=$(child_of "$BG_PID" sleep)
	# The jail's pids cgroup is a child of the parent, and holds it.
	leaf=$(ls "$parent" | grep -- '-child$')
	[ -n "$leaf" ]
	grep -qx "$jail" "$parent/$leaf/cgroup.procs"
	[ "$(awk -F: '$2 == "pids" { print $3 }' "/proc/$jail/cgroup")" = "/${parent##*/}/$leaf" ]
	# Without --memory, no memory cgroup is made for it.
	[ ! -e "$(jail_cgroup memory child)" ]
	kill -KILL "$jail"
	wait_status "$BG_PID"
	[ "$status" -eq 137 ]
	# The jail's cgroup is gone, the parent cell did not make is kept.
	[ ! -e "$parent/$leaf" ]
	[ -d "$parent" ]
}

@test "a --cgroup-parent missing from one hierarchy is an error that leaves nothing" {
	parent=cell-bats-half-$$
	mkdir "/sys/fs/cgroup/pids/$parent"
	CG_DIRS+=("/sys/fs/cgroup/pids/$parent")
	# --memory needs the parent in the memory hierarchy too.
	run cell run --name half --nrtask 10 --memory 64M --cgroup-parent "/$parent" -- true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: --cgroup-parent /$parent: /sys/fs/cgroup/memory/$parent: No such file or directory" ]]
	# The pids cgroup made before the failure is gone again.
	[ -z "$(find "/sys/fs/cgroup/pids/$parent" -mindepth 1 -type d)" ]
}

@test "only the controllers a limit needs get a cgroup" {
	cell_bg "$WORK/out" --name one --nrtask 10 -- sleep 30
	wait_running "one"
	[ -d "$(jail_cgroup pids one)" ]
	[ ! -e "$(jail_cgroup memory one)" ]
	[ ! -e "$(jail_cgroup cpu one)" ]
}

@test "limits that cannot be right are one-line errors with exit 125" {
	run cell run --swap 1M -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --swap 1M: needs --memory" ]
	run cell run --nrtask 0 -- true
	[ "$status" -eq 125 ]
	[[ "$output" == "cell: run: --nrtask 0: "* ]]
	run cell run --memory lots -- true
	[ "$status" -eq 125 ]
	[[ "$output" == "cell: run: --memory lots: "* ]]
	run cell run --cpus 0.001 -- true
	[ "$status" -eq 125 ]
	[[ "$output" == "cell: run: --cpus 0.001: at least 0.01" ]]
	run cell run --cgroup-parent ../escape -- true
	[ "$status" -eq 125 ]
	[[ "$output" == "cell: run: --cgroup-parent ../escape: "* ]]
	# Above cell's own hard limit: an rlimit cell cannot give.
	run cell run --nofile 100000000 -- true
	[ "$status" -eq 125 ]
	[[ "$output" == "cell: run: --nofile 100000000"* ]]
}

@test "--cpus above the CPUs cell may run on is refused; up to them it is a limit" {
	local n
	n=$(nproc) # cell's affinity, as nproc's
	run cell run --cpus $((n + 1)) -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --cpus $((n + 1)): more than the $n CPU$([ "$n" -gt 1 ] && echo s) cell may run on" ]
	run cell run --cpus "$n.5" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == "cell: run: --cpus $n.5: more than"* ]]
	[ -z "$(ls -A "$STATE")" ]
	# v1 or v2, the jail sees its quota
	run cell run --cpus "$n" -- sh -c \
		'cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us 2>/dev/null || cut -d" " -f1 /sys/fs/cgroup/cpu.max'
	[ "$status" -eq 0 ]
	[ "$output" = $((n * 100000)) ]
	# with one CPU for cell, 1.5 CPUs would limit nothing
	run taskset -c 0 "$CELL" --root "$STATE" run --cpus 1.5 -- true
	[ "$status" -eq 125 ]
	[ "$output" = "cell: run: --cpus 1.5: more than the 1 CPU cell may run on" ]
}
