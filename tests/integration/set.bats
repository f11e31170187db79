#!/usr/bin/env bats
# cell set: a running jail changed live (FreeBSD's jail -m), all or
# nothing.
load helpers

# start NAME ARG...: a detached jail NAME started with ARG..., whose
# pid 1 sleeps; its host pid in $PID1.
start() {
	local name=$1
	shift
	cell run -d --name "$name" "$@" -- sleep 100 >/dev/null
	PID1=$(jq -r .pid "$STATE/$name/state.json")
}

# cg_file CTRL FILE: FILE of the jail's v1 CTRL cgroup, from its record.
cg_file() {
	cat "$(jq -r ".cgroup.$1" "$STATE/$NAME/state.json")/$2"
}

# limit PID NAME: the soft limit of "Max NAME" in /proc/PID/limits.
limit() {
	awk -v n="$2" 'index($0, "Max " n) == 1 { print $(NF-2) }' "/proc/$1/limits"
}

@test "set hostname= shows inside the jail at once, and the host's is unchanged" {
	local host
	host=$(hostname)
	start web --hostname before
	run cell set web hostname=after domainname=dom.example
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run cell exec web sh -c 'hostname; cat /proc/sys/kernel/domainname'
	[ "$output" = "after
dom.example" ]
	# In the jail's UTS namespace only: pid 1's view, and the host's.
	[ "$(nsenter --target "$PID1" --uts hostname)" = after ]
	[ "$(hostname)" = "$host" ]
	# Recorded: ls shows it, and another set sees it.
	[ "$(cell ls --json -o hostname,domainname | jq -r '.[0] | .hostname + " " + .domainname')" = "after dom.example" ]
}

@test "set host.hostname= is the jail file's spelling of the same" {
	start web
	cell set web host.hostname=other
	[ "$(cell exec web hostname)" = other ]
}

@test "set nrtask=, memory= and cpus= change the jail's cgroups live" {
	NAME=web
	start web --nrtask 20 --memory 64M --cpus 0.5
	run cell set web nrtask=40 memory=128M cpus=0.75
	[ "$status" -eq 0 ]
	[ "$(cg_file pids pids.max)" = 40 ]
	[ "$(cg_file memory memory.limit_in_bytes)" = $((128 << 20)) ]
	# swap stays pinned: memory + swap = memory.
	[ "$(cg_file memory memory.memsw.limit_in_bytes)" = $((128 << 20)) ]
	[ "$(cg_file cpu cpu.cfs_quota_us)" = 75000 ]
	# The jail sees it in its own /sys/fs/cgroup.
	[ "$(cell exec web cat /sys/fs/cgroup/pids/pids.max)" = 40 ]
	run cell ls -n -o nrtask,memory,cpus
	[ "$output" = "nrtask=40 memory=128M cpus=0.75" ]
}

@test "set memory= can lower the limit below the one the jail started with" {
	NAME=web
	start web --memory 128M
	cell set web memory=32M
	[ "$(cg_file memory memory.limit_in_bytes)" = $((32 << 20)) ]
	[ "$(cg_file memory memory.memsw.limit_in_bytes)" = $((32 << 20)) ]
}

@test "a lowered nrtask holds a fork bomb started after it" {
	NAME=web
	start web --nrtask 100
	cell set web nrtask=10
	# The shell forks sleeps until a fork fails, and then gives up.
	run cell exec web sh -c 'for i in $(seq 30); do sleep 5 & done'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Cannot fork"* ]]
	[ "$(cg_file pids pids.current)" -le 10 ]
	[ "$(cg_file pids pids.max)" = 10 ]
}

@test "set nofile= changes every process of the jail, exec'd ones too" {
	start web --nofile 200
	exec_out=$WORK/exec
	"$CELL" --root "$STATE" exec web sleep 100 3>&- &
	BG_PIDS+=($!)
	for _ in $(seq 50); do
		pids=$(pgrep -P "$!" || true)
		[ -n "$pids" ] && break
		sleep 0.1
	done
	cell set web nofile=100
	[ "$(limit "$PID1" "open files")" = 100 ]
	[ "$(limit "$pids" "open files")" = 100 ]
	[ "$(cell exec web sh -c 'ulimit -n')" = 100 ]
}

@test "set nice= moves the jail's processes, and the jail cannot go back below it" {
	start web --nice 5
	cell set web nice=10
	[ "$(cut -d' ' -f19 "/proc/$PID1/stat")" = 10 ]
	run cell exec web sh -c 'renice -n -2 -p $$ >/dev/null 2>&1; cut -d" " -f19 /proc/$$/stat'
	[ "$output" = 10 ]
}

@test "an unknown parameter is an error that changes nothing" {
	NAME=web
	start web --nrtask 20
	run cell set web nrtask=30 memroy=1G
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: memroy=1G: unknown parameter" ]
	[ "$(cg_file pids pids.max)" = 20 ]
}

@test "a parameter fixed at the start is an error naming it" {
	start web
	for p in path=/srv net=host init=false allow.chown=true user=1000 bind=/a:/b; do
		run cell set web "$p"
		[ "$status" -eq 125 ]
		[ "$output" = "cell: set: $p: cannot be changed in a running jail" ]
	done
	# Its own value is no change: what ls -n prints feeds back.
	run cell set web net=none init=true policy=true
	[ "$status" -eq 0 ]
}

@test "a bad value is an error that changes nothing, however many are good" {
	NAME=web
	start web --nrtask 20 --hostname keep
	run cell set web hostname=changed nrtask=0
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: nrtask=0: expected a number of tasks >= 1" ]
	[ "$(cell exec web hostname)" = keep ]
	[ "$(cg_file pids pids.max)" = 20 ]
	run cell set web hostname=-bad- nrtask=30
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: hostname=-bad-: invalid hostname" ]
	[ "$(cg_file pids pids.max)" = 20 ]
}

# jail_procs PID1: the host pids of the processes in PID1's pid
# namespace, sorted.
jail_procs() {
	local ns p
	ns=$(readlink "/proc/$1/ns/pid")
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] && echo "${p#/proc/}"
	done | sort -n
}

@test "set of a limit the jail started without gives it that cgroup, every process in" {
	NAME=web
	cell run -d --name web -- sh -c 'sleep 100 & sleep 100 & exec sleep 100' >/dev/null
	PID1=$(jq -r .pid "$STATE/web/state.json")
	# The reaper (pid 1) and the three sleeps.
	for _ in $(seq 50); do [ "$(jail_procs "$PID1" | wc -l)" -eq 4 ] && break; sleep 0.1; done
	[ "$(jq -r .cgroup "$STATE/web/state.json")" = null ]
	run cell set web nrtask=30 memory=64M cpus=0.5
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(cg_file pids pids.max)" = 30 ]
	[ "$(cg_file memory memory.limit_in_bytes)" = $((64 << 20)) ]
	[ "$(cg_file cpu cpu.cfs_quota_us)" = 50000 ]
	# Each cgroup holds all four processes, and nothing else.
	for ctrl in pids memory cpu; do
		[ "$(sort -n "$(jq -r ".cgroup.$ctrl" "$STATE/web/state.json")/cgroup.procs")" = "$(jail_procs "$PID1")" ]
	done
	run cell ls -n -o nrtask,memory,cpus
	[ "$output" = "nrtask=30 memory=64M cpus=0.5" ]
	# The limit holds: 40 more processes do not fit in 30.
	run cell exec web sh -c 'for i in $(seq 40); do sleep 5 & done'
	[ "$status" -ne 0 ]
	[ "$(cg_file pids pids.current)" -le 30 ]
}

@test "the cgroups set gave a jail are removed with it" {
	NAME=web
	start web
	cell set web nrtask=30 memory=64M
	dirs=$(jq -r '.cgroup.pids, .cgroup.memory' "$STATE/web/state.json")
	for d in $dirs; do [ -d "$d" ]; done
	cell rm -f web
	for d in $dirs; do [ ! -e "$d" ]; done
}

@test "a foreground jail's cell removes the cgroups set gave the jail" {
	cell_bg "$WORK/out" --name fg --bind "$WORK:/srv" -- \
		sh -c 'touch /srv/ready; while [ ! -e /srv/end ]; do sleep 0.05; done'
	wait_for "$WORK/ready"
	cell set fg nrtask=30
	dir=$(jq -r .cgroup.pids "$STATE/fg/state.json")
	[ -d "$dir" ]
	touch "$WORK/end"
	wait_exit "$BG_PID"
	[ ! -e "$dir" ]
	[ ! -e "$STATE/fg" ]
}

@test "a set that fails after giving the jail a cgroup moves it back and removes the cgroup" {
	[ -x "${CELL_TESTPOINTS:-}" ] || skip "needs the test-testpoints build (CELL_TESTPOINTS)"
	start web --hostname keep
	before=$(grep memory "/proc/$PID1/cgroup")
	run env CELL_TEST_FAIL=set:uts "$CELL_TESTPOINTS" --root "$STATE" set web hostname=changed memory=64M
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: nothing changed: set the hostname (test failure): Input/output error" ]
	[ "$(grep memory "/proc/$PID1/cgroup")" = "$before" ]
	[ "$(jq -r '.cgroup, .memory' "$STATE/web/state.json")" = "null
null" ]
	[ -z "$(find /sys/fs/cgroup/memory -type d -name "$(cell_cgroup_leaf web)" 2>/dev/null)" ]
	[ "$(cell exec web hostname)" = keep ]
}

@test "a limit that cannot be applied changes nothing: no such cgroup parent" {
	start web --hostname keep
	jq '.cgroup_parent = "/cell-no-such-parent"' "$STATE/web/state.json" >"$WORK/st"
	cp "$WORK/st" "$STATE/web/state.json"
	run cell set web hostname=changed memory=64M
	[ "$status" -eq 125 ]
	[[ "$output" == "cell: set: nothing changed: cgroup_parent: "*"/cell-no-such-parent: No such file or directory" ]]
	[ "$(cell exec web hostname)" = keep ]
	[ "$(jq -r .memory "$STATE/web/state.json")" = null ]
}

@test "a limit that cannot be applied changes nothing: a hard limit cannot be raised" {
	# Raising a hard rlimit needs CAP_SYS_RESOURCE, which cell does not
	# rely on; when it has it, this check does not apply.
	if capsh --has-p=cap_sys_resource 2>/dev/null; then
		skip "cell holds CAP_SYS_RESOURCE here"
	fi
	NAME=web
	start web --nofile 100 --nrtask 20
	run cell set web nrtask=30 nofile=1000
	[ "$status" -eq 125 ]
	# The pid as the jail sees it: set acts from inside its pid namespace.
	[[ "$output" == "cell: set: nothing changed: nofile=1000: above the hard limit 100 of the jail's pid 1"* ]]
	[ "$(cg_file pids pids.max)" = 20 ]
	[ "$(limit "$PID1" "open files")" = 100 ]
}

@test "set cpus= above the CPUs cell may run on changes nothing" {
	local n
	n=$(nproc)
	start web --hostname keep --cpus 0.5
	run cell set web hostname=changed cpus=$((n + 1))
	[ "$status" -eq 125 ]
	[[ "$output" == "cell: set: jail web: cpus=$((n + 1)): more than the $n CPU"*" cell may run on" ]]
	[ "$(cell exec web hostname)" = keep ]
	[ "$(jq -r .cpus "$STATE/web/state.json")" = 0.5 ]
}

@test "set of a stopped or unknown jail is a one-line error" {
	start web
	cell stop -t 0 web
	run cell set web hostname=x
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: jail web: is not running" ]
	run cell set nope hostname=x
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: jail nope: no such jail" ]
}

@test "set without a parameter, or with a malformed one, is a usage error" {
	start web
	run cell set web
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: jail web: no PARAM=VALUE given" ]
	run cell set web hostname
	[ "$status" -eq 125 ]
	[ "$output" = "cell: set: hostname: expected PARAM=VALUE" ]
	run cell set
	[ "$status" -eq 125 ]
}

@test "what ls -n prints can be fed back to set" {
	start web --nrtask 20 --memory 64M
	cell set web nrtask=33
	params=$(cell ls -n -o hostname,nrtask,memory)
	# shellcheck disable=SC2086
	run cell set web $params
	[ "$status" -eq 0 ]
	[ "$(cell ls -n -o hostname,nrtask,memory)" = "$params" ]
}

@test "set refuses nrtask= below the tasks the jail has, changing nothing, unless --force" {
	NAME=web
	cell run -d --name web --nrtask 20 -- sh -c 'sleep 100 & sleep 100' >/dev/null
	for ((i = 0; i < 100; i++)); do
		[ "$(cg_file pids pids.current)" -ge 3 ] && break
		sleep 0.05
	done
	run --separate-stderr cell set web nrtask=1
	[ "$status" -eq 125 ]
	# sh, its sleeps (and the reaper when it is pid 1): as the cgroup counts
	[ "$stderr" = "cell: set: jail web: nrtask=1: below what the jail uses now ($(cg_file pids pids.current) tasks); cell set --force sets it anyway" ]
	[ "$(cg_file pids pids.max)" = 20 ]
	[ "$(cell ls -n -o nrtask)" = nrtask=20 ]
	cell set --force web nrtask=2
	[ "$(cg_file pids pids.max)" = 2 ]
	[ "$(cell ls -n -o nrtask)" = nrtask=2 ]
}

@test "set refuses memory= below what the jail uses, unless -f" {
	NAME=web
	cell run -d --name web --memory 64M -- sh -c 'x=$(head -c 4000000 /dev/zero | tr "\0" a); echo >/dev/null; sleep 100' >/dev/null
	for ((i = 0; i < 100; i++)); do
		[ "$(cg_file memory memory.usage_in_bytes)" -gt $((1 << 20)) ] && break
		sleep 0.05
	done
	run --separate-stderr cell set web memory=1M
	[ "$status" -eq 125 ]
	[[ "$stderr" == "cell: set: jail web: memory=1M: below what the jail uses now ("*"); cell set --force sets it anyway" ]]
	[ "$(cg_file memory memory.limit_in_bytes)" = $((64 << 20)) ]
}

@test "set LIMIT=max removes a cgroup limit, and a later set puts one back" {
	NAME=web
	start web --nrtask 20 --memory 64M --cpus 0.5
	run cell set web nrtask=max memory=max cpus=max
	[ "$status" -eq 0 ]
	[ "$(cg_file pids pids.max)" = max ]
	[ "$(cg_file memory memory.limit_in_bytes)" -gt $((1 << 50)) ]
	[ "$(cg_file cpu cpu.cfs_quota_us)" = -1 ]
	[ -z "$(cell ls -n -o nrtask,memory,cpus)" ]
	[ "$(cell ls --json -o nrtask,memory | jq -c '.[0]')" = '{"nrtask":null,"memory":null}' ]
	cell set web nrtask=30 memory=32M
	[ "$(cg_file pids pids.max)" = 30 ]
	[ "$(cg_file memory memory.limit_in_bytes)" = $((32 << 20)) ]
	[ "$(cell ls -n -o nrtask,memory)" = "nrtask=30 memory=32M" ]
}

@test "an rlimit cannot be unset in a running jail" {
	start web --nofile 100
	run --separate-stderr cell set web nofile=max
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"nofile=max: cannot be unset in a running jail" ]]
}

@test "max is no limit in cell run's flags and jail files too" {
	run cell run --memory max --nrtask max -- true
	[ "$status" -eq 0 ]
	cat >"$WORK/cell.conf" <<-'CONF'
		nomax { memory = max; nrtask = 10; exec.start = "sleep 100"; }
	CONF
	cell up -f "$WORK/cell.conf" >/dev/null
	[ "$(cell ls -n -o memory,nrtask)" = nrtask=10 ]
	cell down -f "$WORK/cell.conf"
}
