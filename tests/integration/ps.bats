#!/usr/bin/env bats
# Seeing what runs: cell ps (a jail's processes), cell stats (what jails
# use), and cell ls NAME... (a filter).
load helpers

# --- ps -------------------------------------------------------------------

@test "ps lists a jail's processes: pid inside and on the host, user, state, time, command" {
	cell run -d --no-init --name web -- sh -c 'sleep 100 & exec sleep 200' >/dev/null
	pid=$(jfield web pid)
	for _ in $(seq 50); do
		[ -n "$(descendants "$pid")" ] && break
		sleep 0.1
	done
	run cell ps web
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	read -ra head <<<"${lines[0]}"
	[ "${head[*]}" = "PID HOST_PID USER STATE TIME COMMAND" ]
	read -ra row <<<"${lines[1]}"
	[ "${row[0]}" = 1 ]
	[ "${row[1]}" = "$pid" ]
	# The jail's root is a range of host ids no host user has: a number.
	[ "${row[2]}" = "$(awk '/^Uid:/ { print $2 }' "/proc/$pid/status")" ]
	[ "${row[3]}" = S ]
	[ "${row[4]}" = 00:00:00 ]
	[ "${row[*]:5}" = "sleep 200" ]
	read -ra row <<<"${lines[2]}"
	[ "${row[0]}" = 2 ]
	[ "${row[1]}" = "$(descendants "$pid")" ]
	[ "${row[*]:5}" = "sleep 100" ]
}

@test "ps shows cell's reaper as pid 1 named cell-init alone, the payload its child" {
	cell run -d --name web -- sleep 100 >/dev/null
	run cell ps --json web
	[ "$status" -eq 0 ]
	run jq -c '[.[] | [.pid, .command]]' <<<"$output"
	[ "$output" = '[[1,["cell-init"]],[2,["sleep","100"]]]' ]
}

@test "ps names the host's user of a jail that runs with the host's ids" {
	cell run -d --name hostids --userns host -- sleep 100 >/dev/null
	run cell ps hostids
	[ "$status" -eq 0 ]
	read -ra row <<<"${lines[1]}"
	[ "${row[2]}" = root ]
}

@test "ps --json gives each process's fields, its command as an array" {
	cell run -d --no-init --name web -- sleep 100 >/dev/null
	run cell ps --json web
	[ "$status" -eq 0 ]
	run jq -c '[.[] | [.pid, .host_pid, .state, .command]]' <<<"$output"
	[ "$output" = "[[1,$(jfield web pid),\"S\",[\"sleep\",\"100\"]]]" ]
}

@test "ps shows a jail's process named with control characters on one line" {
	cell run -d --no-init --name odd -- bash -c 'exec -a "$(printf "x\ny")" sleep 100' >/dev/null
	# run -d returns once bash runs: until it has exec'd its sleep.
	for _ in $(seq 50); do
		[[ "$(cell ps odd)" == *" 100" ]] && break
		sleep 0.1
	done
	run cell ps odd
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == *"x?y 100" ]]
}

@test "ps of a stopped, missing or no jail is a one-line error with exit 125" {
	cell run -d --name gone -- true >/dev/null
	for _ in $(seq 50); do
		[ "$(jfield gone state)" = stopped ] && break
		sleep 0.1
	done
	run cell ps gone
	[ "$status" -eq 125 ]
	[ "$output" = "cell: ps: jail gone: is not running" ]
	run cell ps ghost
	[ "$status" -eq 125 ]
	[ "$output" = "cell: ps: jail ghost: no such jail" ]
	run cell ps
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	run cell ps gone ghost
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	run cell ps --bogus gone
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
}

# --- stats ----------------------------------------------------------------

@test "stats --no-stream prints one row per running jail: CPU, memory with its limit, tasks" {
	cell run -d --no-init --name small --memory 64M --nrtask 20 -- sleep 100 >/dev/null
	cell run -d --no-init --name plain -- sh -c 'sleep 100 & exec sleep 100' >/dev/null
	cell run -d --name gone -- true >/dev/null
	run cell stats --no-stream
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[0]}" == "NAME "*"CPU %"*"MEM USAGE / LIMIT"*"MEM %"*"TASKS" ]]
	[[ "${lines[1]}" =~ ^plain\ +[0-9.]+%\ +[0-9.]+[KMG]iB\ /\ -\ +-\ +2$ ]]
	[[ "${lines[2]}" =~ ^small\ +[0-9.]+%\ +[0-9.]+[KMG]iB\ /\ 64MiB\ +[0-9.]+%\ +1\ /\ 20$ ]]
}

@test "stats --json gives numbers: a busy jail's CPU, the memory cgroup's usage and limits" {
	cell run -d --no-init --name busy --memory 64M -- sh -c 'while :; do :; done' >/dev/null
	run cell stats --json busy
	[ "$status" -eq 0 ]
	[ "$(jq -r '.[0].name' <<<"$output")" = busy ]
	[ "$(jq -r '.[0].memory_limit' <<<"$output")" = 67108864 ]
	[ "$(jq -r '.[0].tasks' <<<"$output")" = 1 ]
	[ "$(jq -r '.[0].tasks_limit' <<<"$output")" = null ]
	[ "$(jq -r '.[0].memory > 0' <<<"$output")" = true ]
	# A spinning shell uses most of a CPU; a loaded machine, at least some.
	[ "$(jq -r '.[0].cpu_percent > 10' <<<"$output")" = true ]
}

@test "stats without cgroups counts the jail's processes from /proc" {
	cell run -d --no-init --name nocg -- sh -c 'sleep 100 & sleep 100 & exec sleep 100' >/dev/null
	pid=$(jfield nocg pid)
	for _ in $(seq 50); do
		[ "$(descendants "$pid" | wc -l)" -eq 2 ] && break
		sleep 0.1
	done
	run cell stats --json nocg
	[ "$status" -eq 0 ]
	[ "$(jq -r '.[0].tasks' <<<"$output")" = 3 ]
	[ "$(jq -r '.[0].memory > 0' <<<"$output")" = true ]
	[ "$(jq -r '.[0].memory_limit' <<<"$output")" = null ]
}

@test "stats on a terminal refreshes every second until interrupted" {
	cell run -d --name live -- sleep 100 >/dev/null
	run timeout -s INT 3 script -qec "$CELL --root $STATE stats" /dev/null
	# Two views or more, each from the top of a cleared screen.
	[ "$(grep -o 'MEM USAGE' <<<"$output" | wc -l)" -ge 2 ]
	[[ "$output" == *$'\e[H\e[J'* ]]
}

@test "stats of a jail that is not running is a one-line error with exit 125" {
	run cell stats --no-stream ghost
	[ "$status" -eq 125 ]
	[ "$output" = "cell: stats: jail ghost: no such jail" ]
	cell run -d --name gone -- true >/dev/null
	for _ in $(seq 50); do
		[ "$(jfield gone state)" = stopped ] && break
		sleep 0.1
	done
	run cell stats --no-stream gone
	[ "$status" -eq 125 ]
	[ "$output" = "cell: stats: jail gone: is not running" ]
	run cell stats --bogus
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "stats of no jails prints the header alone" {
	run cell stats --no-stream
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	run cell stats --json
	[ "$(jq -c . <<<"$output")" = '[]' ]
}

@test "ps and stats have --help" {
	for cmd in ps stats; do
		run cell "$cmd" --help
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "Usage: cell $cmd "* ]]
	done
}

# --- ls NAME... -----------------------------------------------------------

@test "ls NAME lists only the jails named, stopped ones too" {
	cell run -d --name a -- sleep 100 >/dev/null
	cell run -d --name b -- sleep 100 >/dev/null
	cell run -d --name c -- true >/dev/null
	for _ in $(seq 50); do
		[ "$(jfield c state)" = stopped ] && break
		sleep 0.1
	done
	run cell ls -q b c
	[ "$status" -eq 0 ]
	[ "$output" = "b
c" ]
	run cell ls b
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == "b "* ]]
}

@test "ls of a name that is no jail says so, lists the others and exits 125" {
	cell run -d --name a -- sleep 100 >/dev/null
	run cell ls -q ghost a
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "cell: ls: jail ghost: no such jail" ]
	[ "${lines[1]}" = a ]
}

@test "ls -o and --json keep exact times and the state while the table words them" {
	cell run -d --name a -- sleep 100 >/dev/null
	run cell ls -o name,state,created
	read -ra row <<<"${lines[1]}"
	[ "${row[1]}" = running ]
	[[ "${row[2]}" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$ ]]
	[ "$(cell ls --json | jq -r '.[0].state')" = running ]
	[ "$(cell ls --json | jq -r '.[0] | has("status")')" = false ]
	run cell ls -o status
	[[ "${lines[1]}" == "up "* ]]
}
