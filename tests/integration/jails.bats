#!/usr/bin/env bats
# Named jails from the host: cell run -d (and --rm), their JIDs, and
# cell ls, logs, stop and rm.
load helpers

# wait_removed NAME [TENTHS]: wait until NAME's state directory is gone.
wait_removed() {
	local i
	for ((i = 0; i < ${2:-50}; i++)); do
		[ ! -e "$STATE/$1" ] && return 0
		sleep 0.1
	done
	echo "jail $1 not removed" >&2
	return 1
}

# --- run -d -----------------------------------------------------------

@test "run -d prints the jail's name and returns while the jail runs" {
	SECONDS=0
	run cell run -d --name web -- sleep 30
	[ "$status" -eq 0 ]
	[ "$output" = web ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$SECONDS" -lt 5 ]
	[ "$(jfield web state)" = running ]
	# Its pid 1 is cell's reaper, the command its child.
	pid=$(jfield web pid)
	[ "$(cat "/proc/$pid/comm")" = cell-init ]
	[ "$(cat "/proc/$(descendants "$pid")/comm")" = sleep ]
}

@test "run -d without --name generates a name that ls lists" {
	run cell run -d -- sleep 30
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	name=$output
	[[ "$name" =~ ^[a-z0-9]+$ ]]
	[ "$(cell ls -q)" = "$name" ]
	# A second one gets another name.
	run cell run -d -- sleep 30
	[ "$status" -eq 0 ]
	[ "$output" != "$name" ]
	[ "$(cell ls -q | wc -l)" -eq 2 ]
}

@test "a detached jail's stdin is /dev/null" {
	run cell run -d --name in -- sh -c 'readlink /proc/self/fd/0; cat; echo "cat=$?"' </dev/zero
	[ "$status" -eq 0 ]
	wait_stopped in
	run cell logs in
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = /dev/null ]
	[ "${lines[1]}" = "cat=0" ]
}

@test "a detached jail's output goes to its log when cell's output is a pipe" {
	# (run: cell's stdout and stderr are one pipe)
	run cell run -d --name piped -- sh -c 'echo out; echo err >&2'
	[ "$output" = piped ]
	wait_stopped piped
	[ "$(cell logs piped | sort)" = $'err\nout' ]
}

@test "a detached jail's output goes to its log when cell's output is a terminal" {
	run_in_pty_held "$CELL --root $STATE run -d --name term -- sh -c 'echo out; echo err >&2'"
	[ "$status" -eq 0 ]
	[ "$output" = term ]
	wait_stopped term
	[ "$(cell logs term | sort)" = $'err\nout' ]
}

@test "a detached jail writes straight to regular files given as cell's output" {
	cell run -d --name tofile -- sh -c 'echo out; echo err >&2' \
		>"$WORK/out" 2>"$WORK/err"
	wait_stopped tofile
	grep -qx tofile "$WORK/out"
	grep -qx out "$WORK/out"
	[ "$(cat "$WORK/err")" = err ]
	[ ! -e "$STATE/tofile/log.0" ]
	# logs says where it went.
	run cell logs tofile
	[ "$status" -eq 0 ]
	[ "$output" = "cell: logs: jail tofile: its stdout went to $WORK/out"$'\n'"cell: logs: jail tofile: its stderr went to $WORK/err" ]
}

@test "a detached jail's output to /dev/null is not logged" {
	cell run -d --name quiet -- sh -c 'echo out; echo err >&2' >/dev/null 2>&1
	wait_stopped quiet
	[ ! -e "$STATE/quiet/log.0" ]
}

@test "run -d with -t is an error with exit 125 that starts nothing" {
	run cell run -d -t --name tty -- sleep 30
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: "* ]]
	[ -z "$(ls -A "$STATE")" ]
}

@test "--rm without -d is an error with exit 125 that starts nothing" {
	run cell run --rm --name fg -- true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: "* ]]
	[ -z "$(ls -A "$STATE")" ]
}

@test "run -d returns 0 once the command runs, whatever its status" {
	run cell run -d --name fails -- false
	[ "$status" -eq 0 ]
	[ "$output" = fails ]
}

@test "an invalid name is an error with exit 125 that makes nothing" {
	for name in ../escape a/b "" . .. -x "a b" "$(printf 'a%.0s' $(seq 65))"; do
		run cell run -d --name "$name" -- sleep 30
		[ "$status" -eq 125 ]
		[ "${#lines[@]}" -eq 1 ]
	done
	[ -z "$(ls -A "$STATE")" ]
	[ ! -e "${STATE%/*}/escape" ]
}

@test "a name in use by a running jail is refused and the jail is left as it was" {
	cell run -d --name dup -- sleep 30 >/dev/null
	pid=$(jfield dup pid)
	cp "$STATE/dup/state.json" "$WORK/before.json"
	run cell run -d --name dup -- true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"dup"*"in use"* ]]
	# The same in the foreground.
	run cell run --name dup -- true
	[ "$status" -eq 125 ]
	cmp "$STATE/dup/state.json" "$WORK/before.json"
	[ "$(jfield dup state)" = running ]
	[ "$(jfield dup pid)" = "$pid" ]
	! pid_ended "$pid"
}

@test "a name in use by a stopped jail is refused until the jail is removed" {
	cell run -d --name again -- true >/dev/null
	wait_stopped again
	cp "$STATE/again/state.json" "$WORK/before.json"
	run cell run -d --name again -- sleep 30
	[ "$status" -eq 125 ]
	cmp "$STATE/again/state.json" "$WORK/before.json"
	[ "$(jfield again state)" = stopped ]
	cell rm again
	run cell run -d --name again -- sleep 30
	[ "$status" -eq 0 ]
	[ "$(jfield again state)" = running ]
}

@test "a detached jail whose command is missing exits 127 and leaves no state" {
	run -127 cell run -d --name missing -- /no/such/command
	[ "$status" -eq 127 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"/no/such/command"* ]]
	[ ! -e "$STATE/missing" ]
	[ "$(jfield missing state)" = absent ]
}

@test "a detached jail whose command is not executable exits 126 and leaves no state" {
	run -126 cell run -d --name noexec -- /etc/passwd
	[ "$status" -eq 126 ]
	[ ! -e "$STATE/noexec" ]
}

@test "--rm removes a jail's state when it ends" {
	run cell run -d --rm --name tmp -- sleep 1
	[ "$status" -eq 0 ]
	[ "$output" = tmp ]
	[ "$(jfield tmp state)" = running ]
	wait_removed tmp 50
	[ "$(jfield tmp state)" = absent ]
}

@test "--rm removes a jail that cell stop ended" {
	cell run -d --rm --name tmpstop -- sleep 30 >/dev/null
	pid=$(jfield tmpstop pid)
	cell stop -t 0 tmpstop
	wait_removed tmpstop
	pid_ended "$pid"
}

@test "jails started at once with one name: exactly one of them runs" {
	pids=()
	for i in $(seq 8); do
		"$CELL" --root "$STATE" run -d --name same -- sleep 30 >/dev/null 2>&1 3>&- &
		pids+=("$!")
	done
	ok=0
	for p in "${pids[@]}"; do
		wait_exit "$p" 100
		case $status in
		0) ok=$((ok + 1)) ;;
		125) ;;
		*) echo "exit $status" >&2; false ;;
		esac
	done
	[ "$ok" -eq 1 ]
	[ "$(cell ls -aq)" = same ]
	[ "$(jfield same jid)" = 1 ]
}

# --- JIDs -------------------------------------------------------------

@test "the first jail gets JID 1 and the next JID 2" {
	cell run -d --name one -- sleep 30 >/dev/null
	cell run -d --name two -- sleep 30 >/dev/null
	[ "$(jfield one jid)" = 1 ]
	[ "$(jfield two jid)" = 2 ]
}

@test "a jail keeps its JID when stopped, and a removed jail's JID is the next one given" {
	for n in a b c; do cell run -d --name "$n" -- sleep 30 >/dev/null; done
	cell stop -t 0 b
	[ "$(jfield b jid)" = 2 ]
	# b's JID is still taken.
	cell run -d --name d -- sleep 30 >/dev/null
	[ "$(jfield d jid)" = 4 ]
	cell rm -f a
	cell rm b
	# The lowest free one first.
	cell run -d --name e -- sleep 30 >/dev/null
	[ "$(jfield e jid)" = 1 ]
	cell run -d --name f -- sleep 30 >/dev/null
	[ "$(jfield f jid)" = 2 ]
	[ "$(jfield c jid)" = 3 ]
	[ "$(jfield d jid)" = 4 ]
}

@test "jails started at once get distinct JIDs, 1 to N" {
	pids=()
	for i in $(seq 10); do
		"$CELL" --root "$STATE" run -d --name "p$i" -- sleep 30 >/dev/null 3>&- &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do
		wait_exit "$p" 100
		[ "$status" -eq 0 ]
	done
	[ "$(cell ls --json | jq -c '[.[].jid] | sort')" = "[$(seq -s, 10)]" ]
}

# --- running and stopped ---------------------------------------------

@test "a jail is stopped once its pid 1 has ended, and only ls -a lists it" {
	cell run -d --name brief -- true >/dev/null
	wait_stopped brief
	[ "$(jfield brief pid)" = "" ]
	[ -z "$(cell ls -q)" ]
	[ "$(cell ls -aq)" = brief ]
}

@test "a foreground jail is listed while it runs and gone when it ends" {
	cell_bg "$WORK/fg.out" --name fg -- sleep 30
	wait_running "fg"
	[ "$(cell ls -q)" = fg ]
	[ "$(jfield fg state)" = running ]
	pid=$(jfield fg pid)
	kill -KILL "$pid"
	wait_exit "$BG_PID"
	[ "$status" -eq 137 ]
	[ ! -e "$STATE/fg" ]
	[ -z "$(cell ls -aq)" ]
}

@test "stop ends a foreground jail, whose cell exits 137 and removes it" {
	cell_bg "$WORK/fg.out" --name fg -- sleep 30
	wait_running "fg"
	run cell stop -t 1 fg
	[ "$status" -eq 0 ]
	wait_exit "$BG_PID"
	[ "$status" -eq 137 ]
	[ "$(jfield fg state)" = absent ]
}

# --- ls ----------------------------------------------------------------

@test "ls prints a header and one row per running jail, sorted by name" {
	cell run -d --name zeta -- sleep 30 >/dev/null
	cell run -d --name alpha --hostname box -- sleep 30 >/dev/null
	cell run -d --name gone -- true >/dev/null
	wait_stopped gone
	run cell ls
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	read -ra head <<<"${lines[0]}"
	[ "${head[*]}" = "NAME JID STATUS PID HOSTNAME PATH CREATED" ]
	# Columns are two spaces or more apart: STATUS and CREATED are words.
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[1]}")"
	[ "${row[0]}" = alpha ]
	[ "${row[1]}" = 2 ]
	[[ "${row[2]}" =~ ^up\ (less\ than\ a\ second|[0-9]+\ seconds?)$ ]]
	[ "${row[3]}" = "$(jfield alpha pid)" ]
	[ "${row[4]}" = box ]
	[ "${row[5]}" = - ]
	[[ "${row[6]}" =~ ^(less\ than\ a\ second|[0-9]+\ seconds?)\ ago$ ]]
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[2]}")"
	[ "${row[0]}" = zeta ]
	[ "${row[4]}" = zeta ]
}

@test "ls -a lists stopped jails too, their exit status in STATUS" {
	cell run -d --name up -- sleep 30 >/dev/null
	cell run -d --init --name down -- sh -c 'exit 4' >/dev/null
	wait_stopped down
	run cell ls -a
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	read -ra head <<<"${lines[0]}"
	[ "${head[*]}" = "NAME JID STATUS PID HOSTNAME PATH CREATED" ]
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[1]}")"
	[ "${row[0]}" = down ]
	[[ "${row[2]}" =~ ^exited\ \(4\)\ (less\ than\ a\ second|[0-9]+\ seconds?)\ ago$ ]]
	[ "${row[3]}" = - ]
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[2]}")"
	[ "${row[0]}" = up ]
	[[ "${row[2]}" == "up "* ]]
}

@test "ls shows a limit's column only when a listed jail has that limit" {
	cell run -d --name plain -- sleep 30 >/dev/null
	run cell ls
	read -ra head <<<"${lines[0]}"
	[ "${head[*]}" = "NAME JID STATUS PID HOSTNAME PATH CREATED" ]
	cell run -d --name limited --nrtask 50 --memory 64M -- sleep 30 >/dev/null
	run cell ls
	read -ra head <<<"${lines[0]}"
	[ "${head[*]}" = "NAME JID STATUS PID HOSTNAME PATH CREATED NRTASK MEMORY" ]
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[1]}")"
	[ "${row[0]}" = limited ]
	[ "${row[7]}" = 50 ]
	[ "${row[8]}" = 64M ]
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[2]}")"
	[ "${row[0]}" = plain ]
	[ "${row[7]}" = - ]
	[ "${row[8]}" = - ]
}

@test "ls shows a --rootfs jail's root in PATH" {
	make_rootfs "$WORK/root"
	cell run -d --name rooted --rootfs "$WORK/root" -- sleep 30 >/dev/null
	run cell ls
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[1]}")"
	[ "${row[5]}" = "$WORK/root" ]
}

@test "ls -q prints the names only, one per line" {
	cell run -d --name b -- sleep 30 >/dev/null
	cell run -d --name a -- sleep 30 >/dev/null
	cell run -d --name c -- true >/dev/null
	wait_stopped c
	run cell ls -q
	[ "$status" -eq 0 ]
	[ "$output" = $'a\nb' ]
	run cell ls -aq
	[ "$output" = $'a\nb\nc' ]
}

@test "ls -n prints name=value pairs, unset ones left out and a command as a list" {
	cell run -d --name web --nrtask 50 --memory 64M -- sh -c 'sleep 30; :' >/dev/null
	pid=$(jfield web pid)
	run cell ls -n
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "name=web jid=1 state=running pid=$pid hostname=web "* ]]
	[[ " $output " == *" nrtask=50 "* ]]
	[[ " $output " == *" memory=64M "* ]]
	[[ " $output " == *" command='sh, -c, \"sleep 30; :\"' "* ]]
	[[ " $output " != *" exit="* ]]
	[[ " $output " != *" swap="* ]]
	[[ " $output " != *" domainname="* ]]
	[[ " $output " != *" path="* ]]
}

@test "ls -n quotes a value as the shell does, so it reads back the same" {
	cell run -d --name quote -- sh -c "echo \"it's\"; sleep 30" >/dev/null
	run cell ls -n
	[ "$status" -eq 0 ]
	eval "local $output"
	[ "$name" = quote ]
	[ "$state" = running ]
	[ "$command" = 'sh, -c, "echo \"it'"'"'s\"; sleep 30"' ]
}

@test "ls -n values feed back: a jail file started from them lists the same" {
	cell run -d --name orig --nrtask 50 --memory 64M --cpus 0.5 --bind "$WORK:/srv:ro" \
		--allow chown -- sh -c 'sleep 100; exit 3' >/dev/null
	run cell ls -n -o bind,allow,nrtask,memory,cpus,command
	[ "$status" -eq 0 ]
	first=$output
	eval "local $output"
	# Each value is a jail file's value as it is.
	cat >"$WORK/cell.conf" <<-EOF
		copy {
		    bind = $bind; allow = $allow; nrtask = $nrtask; memory = $memory;
		    cpus = $cpus; command = $command;
		}
	EOF
	cell up -f "$WORK/cell.conf" >/dev/null
	run cell ls -n -o bind,allow,nrtask,memory,cpus,command
	[ "${lines[0]}" = "$first" ]
	[ "${lines[1]}" = "$first" ]
	# And cell set takes each as it is: the same values change nothing.
	run cell set copy "bind=$bind" "allow=$allow" "nrtask=$nrtask" "memory=$memory" \
		"cpus=$cpus" "command=$command"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "ls keeps a jail on one line even when its command holds a newline" {
	cell run -d --name nl -- sh -c $'sleep 100\nname=forged' >/dev/null
	run cell ls -n
	[ "${#lines[@]}" -eq 1 ]
	eval "local $output"
	[ "$command" = 'sh, -c, "sleep 100\nname=forged"' ]
	[ "$name" = nl ]
	run cell ls -o name,command
	[ "${#lines[@]}" -eq 2 ]
	# --json carries it exactly.
	[ "$(cell ls --json | jq -r '.[0].command[2]')" = $'sleep 100\nname=forged' ]
}

@test "ls --json prints an array of objects with every field" {
	cell run -d --name web --nrtask 50 --memory 64M -- sleep 30 >/dev/null
	cell run -d --name done --init -- true >/dev/null
	wait_stopped done
	run cell ls --json
	[ "$status" -eq 0 ]
	[ "$(jq -r 'length' <<<"$output")" = 1 ]
	keys='["allow","bind","cgroup_parent","command","cpu_time","cpus","created","data","dns","domainname","exit","file","gateway","hostname","init","ip4.addr","ip6.addr","jid","log.keep","log.size","memlock","memory","name","nat","net","nice","nofile","nrtask","path","pid","policy","publish","restart","restarts","rw","started","state","swap","user","userns","vnet.interface","vnet.mtu","workdir"]'
	[ "$(jq -c '.[0] | keys' <<<"$output")" = "$keys" ]
	run jq -c '.[0] | [.name, .jid, .state, .hostname, .nrtask, .memory, .swap, .exit, .command, .init, .net]' <<<"$output"
	[ "$output" = '["web",1,"running","web",50,67108864,null,null,["sleep","30"],true,"none"]' ]
	[ "$(cell ls --json | jq '.[0].pid')" = "$(jfield web pid)" ]
	[ "$(cell ls --json | jq -r '.[0].created')" = "$(cell ls -n -o created | cut -d= -f2)" ]
	[[ "$(cell ls --json | jq -r '.[0].created')" == 20*T*Z ]]
	run cell ls -a --json
	run jq -c '[.[] | [.name, .state, .pid, .exit, .init]]' <<<"$output"
	[ "$output" = '[["done","stopped",null,0,true],["web","running",'"$(jfield web pid)"',null,true]]' ]
}

@test "ls of no jails prints the header alone, no names, an empty array" {
	run cell ls
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == NAME* ]]
	run cell ls -q
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
	run cell ls --json
	[ "$status" -eq 0 ]
	[ "$(jq -c . <<<"$output")" = '[]' ]
}

@test "ls -o chooses the fields and their order" {
	cell run -d --name web --hostname box -- sleep 30 >/dev/null
	run cell ls -o hostname,name,jid
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	read -ra head <<<"${lines[0]}"
	[ "${head[*]}" = "HOSTNAME NAME JID" ]
	read -ra row <<<"${lines[1]}"
	[ "${row[*]}" = "box web 1" ]
	run cell ls -n -o name,state
	[ "$output" = "name=web state=running" ]
}

@test "ls -o with an unknown field is a one-line error with exit 125" {
	cell run -d --name web -- sleep 30 >/dev/null
	run cell ls -o name,bogus
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: ls: "*bogus* ]]
	run cell ls -o bogus
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "a jail run with --init records its exit status" {
	cell run -d --init --name three -- sh -c 'exit 3' >/dev/null
	wait_stopped three
	[ "$(jfield three exit)" = 3 ]
	run cell ls -a
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[1]}")"
	[[ "${row[2]}" == "exited (3) "*" ago" ]]
	[[ " $(cell ls -a -n) " == *" exit=3 "* ]]
}

@test "an --init jail whose command is killed records 137" {
	cell run -d --init --name killed -- sleep 100 >/dev/null
	pid=$(jfield killed pid)
	child=$(descendants "$pid")
	[ "$(cat "/proc/$child/comm")" = sleep ]
	kill -KILL "$child"
	wait_stopped killed
	[ "$(jfield killed exit)" = 137 ]
}

@test "a jail run with --no-init has no known exit status" {
	cell run -d --no-init --name noinit -- sh -c 'exit 3' >/dev/null
	wait_stopped noinit
	[ "$(cell ls -a --json | jq '.[0].exit')" = null ]
	run cell ls -a
	IFS=$'\t' read -ra row <<<"$(sed 's/   */\t/g' <<<"${lines[1]}")"
	[[ "${row[2]}" == "stopped "*" ago" ]]
}

# --- logs --------------------------------------------------------------

@test "logs prints what a detached jail wrote to stdout and stderr, each stream in order" {
	run cell run -d --name chatty -- sh -c 'echo one; echo two >&2; echo three'
	wait_stopped chatty
	run cell logs chatty
	[ "$status" -eq 0 ]
	# Two pipes: the order within a stream holds, not across them.
	[ "$(grep -v two <<<"$output")" = $'one\nthree' ]
	[ "$(grep -c two <<<"$output")" = 1 ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "logs -f follows a jail's output and returns when the jail ends" {
	name=$(cell run -d --name follow -- sh -c 'echo first; sleep 1; echo second')
	SECONDS=0
	run timeout 10 "$CELL" --root "$STATE" logs -f follow
	[ "$status" -eq 0 ]
	[ "$output" = $'first\nsecond' ]
	[ "$SECONDS" -lt 8 ]
	[ "$(jfield follow state)" = stopped ]
}

@test "logs -f of a stopped jail prints its log and returns" {
	name=$(cell run -d --name over -- echo done)
	wait_stopped over
	run timeout 5 "$CELL" --root "$STATE" logs -f over
	[ "$status" -eq 0 ]
	[ "$output" = done ]
}

@test "logs -f of a --rm jail returns when the jail ends" {
	run cell run -d --rm --name gone -- sh -c 'echo a; sleep 1; echo b'
	run timeout 10 "$CELL" --root "$STATE" logs -f gone
	[ "$status" -eq 0 ]
	[ "$output" = $'a\nb' ]
	wait_removed gone
}

@test "logs -f loses nothing of a jail that writes fast" {
	run cell run -d --name fast -- sh -c 'i=0; while [ $i -lt 20000 ]; do echo "line $i"; i=$((i + 1)); done'
	run timeout 20 "$CELL" --root "$STATE" logs -f fast
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 20000 ]
	[ "${lines[0]}" = "line 0" ]
	[ "${lines[19999]}" = "line 19999" ]
}

@test "a detached jail gets no file descriptor of cell's beyond 0, 1 and 2" {
	run cell run -d --name fds -- python3 -c 'import os; print(" ".join(sorted(os.listdir("/proc/self/fd"))))'
	wait_stopped fds
	[ "$(cell logs fds)" = "0 1 2 3" ]
}

@test "logs of an unknown jail is a one-line error with exit 125" {
	run cell logs nosuch
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "cell: logs: jail nosuch: no such jail" ]
	# And naming no jail at all.
	run cell logs
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	run cell logs -f nosuch
	[ "$status" -eq 125 ]
}

@test "logs of a foreground jail, which has no log, is an error" {
	cell_bg "$WORK/fg.out" --name fg -- sleep 30
	wait_running "fg"
	run cell logs fg
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: logs: "*fg* ]]
}

# --- stop --------------------------------------------------------------

@test "stop ends a pid 1 that handles SIGTERM at once" {
	cell run -d --name polite -- sh -c 'trap "exit 0" TERM; sleep 30 & wait' >/dev/null
	pid=$(jfield polite pid)
	SECONDS=0
	run cell stop -t 5 polite
	[ "$status" -eq 0 ]
	[ "$SECONDS" -lt 3 ]
	pid_ended "$pid"
	[ "$(jfield polite state)" = stopped ]
	# Not SIGKILLed: no 137.
	[ "$(jfield polite exit)" != 137 ]
}

@test "stop kills a pid 1 that ignores SIGTERM, and its children, after the timeout" {
	cell run -d --no-init --name stubborn --bind "$WORK:/work" -- \
		sh -c 'trap "" TERM; sleep 100 & sleep 100 & touch /work/ready; wait' >/dev/null
	wait_for "$WORK/ready"
	pid=$(jfield stubborn pid)
	children=$(descendants "$pid")
	[ "$(echo "$children" | wc -w)" -eq 2 ]
	SECONDS=0
	run cell stop -t 1 stubborn
	[ "$status" -eq 0 ]
	[ "$SECONDS" -ge 1 ]
	[ "$SECONDS" -lt 5 ]
	for p in $pid $children; do wait_ended "$p" 20; done
	[ "$(jfield stubborn state)" = stopped ]
	[ "$(jfield stubborn exit)" = 137 ]
}

@test "a plain sleep as pid 1 ignores SIGTERM and is killed by stop with exit 137" {
	cell run -d --no-init --name sleeper -- sleep 100 >/dev/null
	pid=$(jfield sleeper pid)
	SECONDS=0
	cell stop -t 1 sleeper
	[ "$SECONDS" -ge 1 ]
	wait_ended "$pid" 20
	[ "$(jfield sleeper exit)" = 137 ]
}

@test "stop of an --init jail forwards SIGTERM and records 143" {
	cell run -d --init --name reaped -- sleep 100 >/dev/null
	SECONDS=0
	cell stop -t 5 reaped
	[ "$SECONDS" -lt 3 ]
	[ "$(jfield reaped exit)" = 143 ]
}

@test "stop -t with a bad value is a one-line error with exit 125" {
	cell run -d --name target -- sleep 100 >/dev/null
	for t in abc -1 ""; do
		run cell stop -t "$t" target
		[ "$status" -eq 125 ]
		[ "${#lines[@]}" -eq 1 ]
	done
	[ "$(jfield target state)" = running ]
}

@test "stop -t 0 kills at once" {
	cell run -d --no-init --name now -- sh -c 'trap "" TERM; sleep 100' >/dev/null
	pid=$(jfield now pid)
	SECONDS=0
	cell stop -t 0 now
	[ "$SECONDS" -lt 2 ]
	wait_ended "$pid" 20
	[ "$(jfield now exit)" = 137 ]
}

@test "stop releases a jail's cgroups and keeps its record as stopped" {
	cell run -d --name capped --nrtask 10 --memory 32M -- sleep 100 >/dev/null
	pids=$(jq -r '.cgroup.pids' "$STATE/capped/state.json")
	memory=$(jq -r '.cgroup.memory' "$STATE/capped/state.json")
	[[ "$pids" == /sys/fs/cgroup/pids/* && "${pids##*/}" = "$(cell_cgroup_leaf capped)" ]]
	[[ "$memory" == /sys/fs/cgroup/memory/* && "${memory##*/}" = "$(cell_cgroup_leaf capped)" ]]
	[ -d "$pids" ]
	[ -d "$memory" ]
	cell stop -t 1 capped
	[ ! -e "$pids" ]
	[ ! -e "$memory" ]
	[ "$(jfield capped state)" = stopped ]
	[ "$(jfield capped nrtask)" = 10 ]
}

@test "stop of a stopped jail succeeds and changes nothing" {
	cell run -d --init --name ended -- sh -c 'exit 4' >/dev/null
	wait_stopped ended
	cp "$STATE/ended/state.json" "$WORK/before.json"
	run cell stop ended
	[ "$status" -eq 0 ]
	cmp "$STATE/ended/state.json" "$WORK/before.json"
	[ "$(jfield ended exit)" = 4 ]
	[ "$(jfield ended state)" = stopped ]
}

@test "stop takes several jails" {
	cell run -d --name s1 -- sleep 100 >/dev/null
	cell run -d --name s2 -- sleep 100 >/dev/null
	run cell stop -t 0 s1 s2
	[ "$status" -eq 0 ]
	[ "$(jfield s1 state)" = stopped ]
	[ "$(jfield s2 state)" = stopped ]
}

@test "three stops of one jail at once all succeed" {
	cell run -d --no-init --name thrice -- sleep 100 >/dev/null
	pids=()
	for i in 1 2 3; do
		"$CELL" --root "$STATE" stop -t 1 thrice 3>&- &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do
		wait_exit "$p" 100
		[ "$status" -eq 0 ]
	done
	[ "$(jfield thrice state)" = stopped ]
	[ "$(jfield thrice exit)" = 137 ]
}

@test "stop of an unknown jail is a one-line error with exit 125" {
	cell run -d --name real -- sleep 100 >/dev/null
	run cell stop nosuch
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "cell: stop: jail nosuch: no such jail" ]
	# And naming no jail at all.
	run cell stop
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jfield real state)" = running ]
}

# --- rm ----------------------------------------------------------------

@test "rm removes a stopped jail's state and log" {
	cell run -d --name old -- echo hello >/dev/null
	wait_stopped old
	run cell rm old
	[ "$status" -eq 0 ]
	[ ! -e "$STATE/old" ]
	[ "$(jfield old state)" = absent ]
	run cell logs old
	[ "$status" -eq 125 ]
}

@test "rm of a running jail is refused with exit 125 and leaves it running" {
	cell run -d --name busy -- sleep 100 >/dev/null
	pid=$(jfield busy pid)
	run cell rm busy
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"busy"*"is running"* ]]
	[ "$(jfield busy state)" = running ]
	! pid_ended "$pid"
}

@test "rm -f kills a running jail and everything in it, and removes it" {
	cell run -d --name doomed --nrtask 10 --bind "$WORK:/work" -- \
		sh -c 'trap "" TERM; sleep 100 & touch /work/ready; wait' >/dev/null
	wait_for "$WORK/ready"
	pid=$(jfield doomed pid)
	child=$(descendants "$pid")
	[ -n "$child" ]
	cg=$(jq -r '.cgroup.pids' "$STATE/doomed/state.json")
	[ -d "$cg" ]
	run cell rm -f doomed
	[ "$status" -eq 0 ]
	wait_ended "$pid" 20
	wait_ended "$child" 20
	[ ! -e "$STATE/doomed" ]
	[ ! -e "$cg" ]
}

@test "stop and rm -f of one jail at once leave nothing" {
	for i in 1 2 3 4 5; do cell run -d --name "k$i" -- sleep 100 >/dev/null; done
	pids=()
	for i in 1 2 3 4 5; do
		"$CELL" --root "$STATE" stop -t 0 "k$i" >/dev/null 2>&1 3>&- &
		pids+=("$!")
		"$CELL" --root "$STATE" rm -f "k$i" >/dev/null 2>&1 3>&- &
		pids+=("$!")
	done
	for p in "${pids[@]}"; do
		wait_exit "$p" 100
		[ "$status" -eq 0 ] || [ "$status" -eq 125 ]
	done
	[ -z "$(ls -A "$STATE")" ]
}

@test "the cgroups of a jail that ended by itself are gone once it is removed" {
	cell run -d --name self --nrtask 10 --memory 32M --bind "$WORK:/work" -- \
		sh -c 'until [ -e /work/go ]; do sleep 0.1; done' >/dev/null
	pids=$(jq -r '.cgroup.pids' "$STATE/self/state.json")
	memory=$(jq -r '.cgroup.memory' "$STATE/self/state.json")
	[ -d "$pids" ]
	[ -d "$memory" ]
	touch "$WORK/go"
	wait_stopped self
	cell rm self
	[ ! -e "$pids" ]
	[ ! -e "$memory" ]
}

@test "rm takes several jails" {
	cell run -d --name r1 -- true >/dev/null
	cell run -d --name r2 -- true >/dev/null
	wait_stopped r1
	wait_stopped r2
	run cell rm r1 r2
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$STATE")" ]
}

@test "rm of an unknown jail is a one-line error with exit 125" {
	run cell rm nosuch
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$output" = "cell: rm: jail nosuch: no such jail" ]
	# And naming no jail at all.
	run cell rm
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	run cell rm -f nosuch
	[ "$status" -eq 125 ]
}

@test "inspect of a stopped jail shows it stopped, with its exit status when known" {
	cell run -d --name done --init -- sh -c 'exit 3' >/dev/null
	wait_stopped done
	run cell inspect --json done
	[ "$status" -eq 0 ]
	[ "$(jq -r '.state + " " + (.exit | tostring) + " " + (.pid | tostring)' <<<"$output")" = "stopped 3 null" ]
	cell run -d --no-init --name plain -- true >/dev/null
	wait_stopped plain
	run cell inspect --json plain
	[ "$(jq -r '.state + " " + (.exit | tostring)' <<<"$output")" = "stopped null" ]
}
