#!/usr/bin/env bats
# Rootless jails: the jail CLI run by a plain user (tests/rootless.bash
# makes the users, as root, and removes them).  The user's jails live in
# a user namespace of their own that maps the user to root inside: with
# subordinate ranges the full 65536 ids, without them the user's own id
# alone.  Every command on a running jail works as the user, even when
# the jail's processes run as subordinate ids, which the user cannot
# signal or trace from the host's user namespace.
bats_require_minimum_version 1.5.0

load helpers
source "$BATS_TEST_DIRNAME/../rootless.bash"

setup_file() {
	command -v newuidmap >/dev/null || skip "newuidmap (uidmap) is missing"
	rootless_setup
}

teardown_file() {
	rootless_teardown
}

# Per test: a directory of the user's ($UWORK) for binds; the host's
# names checked as cell_teardown does.
setup() {
	HOST_NAMES="$(cat /proc/sys/kernel/hostname) $(cat /proc/sys/kernel/domainname)"
	UWORK=$(mktemp -d /var/tmp/cell-rl-work.XXXXXX)
	chown "$RL_UID:$RL_GID" "$UWORK"
}

teardown() {
	local ret=0
	rootless_reset user other plain || ret=1
	rm -rf --one-file-system "$UWORK"
	if [ "$(cat /proc/sys/kernel/hostname) $(cat /proc/sys/kernel/domainname)" != "$HOST_NAMES" ]; then
		echo "teardown: the host's hostname or domainname changed" >&2
		ret=1
	fi
	return $ret
}

# The user's default state root.
ustate() { echo "$RL_HOME/run/cell"; }

# ujail NAME ARG...: a detached jail NAME of the user's, `sleep 1000`
# unless ARG... gives a command; its host pid 1 in $JPID.
ujail() {
	local name=$1
	shift
	[ $# -gt 0 ] || set -- -- sleep 1000
	run -0 rcell run -d --name "$name" "$@"
	[ "$output" = "$name" ]
	JPID=$(rcell ls --json | jq -r --arg n "$name" '.[] | select(.name == $n) | .pid')
	[ -n "$JPID" ] && [ "$JPID" != null ]
}

# ufield NAME KEY: KEY of the user's jail NAME in `ls -a --json`.
ufield() {
	rcell ls -a --json | jq -r --arg n "$1" --arg k "$2" \
		'[.[] | select(.name == $n)] | if length == 0 then "absent" else .[0][$k] // "" end'
}

# wait_child PID COMMAND: until a process below the jail's pid 1 PID
# runs COMMAND (5 s at most); its host pid in $CPID.
wait_child() {
	local i
	for ((i = 0; i < 50; i++)); do
		CPID=$(for c in $(descendants "$1"); do
			[ "$(cat /proc/$c/comm 2>/dev/null)" = "$2" ] && echo "$c"
		done | head -n 1)
		[ -n "$CPID" ] && return 0
		sleep 0.1
	done
	echo "no $2 under pid $1" >&2
	return 1
}

@test "a user's jail has its own hostname, pid 1 and root, its ids the user's subordinate range" {
	run -0 rcell run --hostname rl --no-init -- sh -c \
		'hostname; echo $$; id -u; id -g; cat /proc/self/uid_map /proc/self/gid_map'
	[ "${lines[0]}" = rl ]
	[ "${lines[1]}" = 1 ]
	[ "${lines[2]}" = 0 ]
	[ "${lines[3]}" = 0 ]
	# jail 0 -> the user, 1..65535 -> the first 65535 subordinate ids.
	read -r a b c <<<"${lines[4]}" && [ "$a $b $c" = "0 $RL_UID 1" ]
	read -r a b c <<<"${lines[5]}" && [ "$a $b $c" = "1 $RL_SUB 65535" ]
	read -r a b c <<<"${lines[6]}" && [ "$a $b $c" = "0 $RL_GID 1" ]
	read -r a b c <<<"${lines[7]}" && [ "$a $b $c" = "1 $RL_SUB 65535" ]
	[ "${#lines[@]}" -eq 8 ]
}

@test "a user without subordinate ranges gets the single mapping, and inspect says so" {
	run -0 rcell -u plain run -- cat /proc/self/uid_map
	read -r a b c <<<"$output" && [ "$a $b $c" = "0 $RL_PLAIN_UID 1" ]
	[ "${#lines[@]}" -eq 1 ]
	run -0 rcell -u plain run -d --name single -- sleep 1000
	run -0 rcell -u plain inspect --json single
	[ "$(jq -r .rootless <<<"$output")" = single ]
	[ "$(jq -r .idmap.uid_map <<<"$output")" = "0 $RL_PLAIN_UID 1" ]
	# exec and set too (setgroups is refused in such a namespace).
	run -0 rcell -u plain exec single id -u
	[ "$output" = 0 ]
	run -0 rcell -u plain set single nice=3 nofile=50
	run -0 rcell -u plain exec single sh -c 'ulimit -n; cut -d" " -f19 /proc/1/stat'
	[ "$output" = "50
3" ]
	run -0 rcell -u plain rm -f single
}

@test "inspect says a jail with subordinate ranges maps the full range" {
	ujail ranged
	run -0 rcell inspect --json ranged
	[ "$(jq -r .state <<<"$output")" = running ]
	[ "$(jq -r .rootless <<<"$output")" = subids ]
	[ "$(jq -r .idmap.uid_map <<<"$output")" = "0 $RL_UID 1,1 $RL_SUB 65535" ]
	[ "$(jq -r .namespaces.user <<<"$output")" != null ]
	[ "$(jq -r .process.seccomp <<<"$output")" = filter ]
	[ "$(jq -r '.usage.tasks' <<<"$output")" -ge 1 ]
}

@test "a user's detached jail runs, is listed, and stops, starts and goes again" {
	ujail life
	[ "$(cat "/proc/$JPID/status" | awk '/^Uid:/ { print $2 }')" = "$RL_UID" ]
	run -0 rcell ls -q
	[ "$output" = life ]
	run -0 rcell stop -t 0 life
	[ "$output" = life ]
	wait_ended "$JPID"
	[ "$(ufield life state)" = stopped ]
	run -137 rcell wait life
	run -0 rcell start life
	[ "$output" = life ]
	[ "$(ufield life state)" = running ]
	# Two started by one command: a user namespace each.
	ujail other
	run -0 rcell stop -t 0 life other
	run -0 rcell start life other
	[ "$output" = "life
other" ]
	a=$(ufield life pid) b=$(ufield other pid)
	[ "$(readlink "/proc/$a/ns/user")" != "$(readlink "/proc/$b/ns/user")" ]
	[ "$(readlink "/proc/$a/ns/user")" != "$(readlink /proc/self/ns/user)" ]
	run -0 rcell exec other id -u
	[ "$output" = 0 ]
	run -0 rcell restart -t 0 life
	[ "$(ufield life state)" = running ]
	run -0 rcell rm -f life other
	[ "$output" = "life
other" ]
	[ "$(ufield life state)" = absent ]
	[ -z "$(ls -A "$(ustate)" | grep -vx net.lock)" ]
}

@test "a user can exec into its jail: root inside, the jail's namespaces" {
	ujail ex
	run -0 rcell exec ex sh -c 'id -u; readlink /proc/self/ns/pid /proc/self/ns/user /proc/self/ns/mnt'
	[ "${lines[0]}" = 0 ]
	[ "${lines[1]}" = "$(readlink /proc/$JPID/ns/pid)" ]
	[ "${lines[2]}" = "$(readlink /proc/$JPID/ns/user)" ]
	[ "${lines[3]}" = "$(readlink /proc/$JPID/ns/mnt)" ]
	run rcell exec ex sh -c 'exit 7'
	[ "$status" -eq 7 ]
}

@test "every command acts on a jail whose processes run as a subordinate id" {
	# uid 1000 inside: a subordinate id on the host, which the user
	# cannot signal or trace from the host's user namespace.
	ujail sub -u 1000:1000 --no-init -- sleep 1000
	[ "$(awk '/^Uid:/ { print $2 }' "/proc/$JPID/status")" = $((RL_SUB + 999)) ]
	run -0 rcell exec sub id -u
	[ "$output" = 1000 ]
	run -0 rcell ps --json sub
	[ "$(jq -r '.[0].uid' <<<"$output")" = $((RL_SUB + 999)) ]
	[ "$(jq -r '.[0].command[0]' <<<"$output")" = sleep ]
	run -0 rcell inspect --json sub
	[ "$(jq -r .process.seccomp <<<"$output")" = filter ]
	[ "$(jq -r .rootless <<<"$output")" = subids ]
	run -0 rcell set sub nice=5
	[ "$(awk '{ print $19 }' "/proc/$JPID/stat")" = 5 ]
	run -0 rcell stats --no-stream --json sub
	[ "$(jq -r '.[0].tasks' <<<"$output")" = 1 ]
	run -0 rcell stop -t 1 sub
	wait_ended "$JPID"
	[ "$(ufield sub state)" = stopped ]
}

@test "a user's jail shows its processes in ps and stats" {
	ujail watched -- sh -c 'sleep 1000 & wait'
	wait_child "$JPID" sleep
	run -0 rcell ps watched
	[[ "$output" == *"sleep 1000"* ]]
	run -0 rcell ps --json watched
	[ "$(jq -r '[.[] | select(.command[0] == "sleep")][0].host_pid' <<<"$output")" = "$CPID" ]
	run -0 rcell stats --no-stream --json watched
	[ "$(jq -r '.[0].name' <<<"$output")" = watched ]
	[ "$(jq -r '.[0].tasks' <<<"$output")" -ge 2 ]
	[ "$(jq -r '.[0].memory' <<<"$output")" -gt 0 ]
}

@test "a user's detached jail keeps its output for cell logs" {
	ujail talk -- sh -c 'echo hello from the jail; sleep 1000'
	for _ in $(seq 50); do
		rcell logs talk 2>/dev/null | grep -qx 'hello from the jail' && break
		sleep 0.1
	done
	run -0 rcell logs talk
	[ "$output" = "hello from the jail" ]
}

@test "a user sets a jail's rlimits and nice live" {
	ujail lim
	run -0 rcell set lim nofile=100 nice=4
	run -0 rcell exec lim sh -c 'ulimit -n; cut -d" " -f19 /proc/self/stat'
	[ "${lines[0]}" = 100 ]
	[ "${lines[1]}" = 4 ]
	grep -Eq '^Max open files +100 +100 ' "/proc/$JPID/limits"
	run -0 rcell set lim hostname=renamed
	run -0 rcell exec lim hostname
	[ "$output" = renamed ]
}

@test "a cgroup limit is refused rootless without a delegated cgroup, saying why" {
	ujail nocg
	run -125 rcell set nocg memory=64M
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: set: "*"needs a delegated cgroup v2 subtree"* ]]
	run -125 rcell run --memory 64M -- true
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: --memory 64M: needs a delegated cgroup v2 subtree"* ]]
	run -0 rcell ls -aq
	[ "$output" = nocg ]
}

@test "a file the jail's root writes into a --bind directory belongs to the user" {
	run -0 rcell run --bind "$UWORK:/srv" -- sh -c 'echo x >/srv/by-root; mkdir /srv/dir'
	[ "$(stat -c %u:%g "$UWORK/by-root")" = "$RL_UID:$RL_GID" ]
	[ "$(stat -c %u:%g "$UWORK/dir")" = "$RL_UID:$RL_GID" ]
	# A jail user's file: a subordinate id, never a host user's.
	chmod 0777 "$UWORK"
	run -0 rcell run -u 1000:1000 --bind "$UWORK:/srv" -- touch /srv/by-1000
	[ "$(stat -c %u:%g "$UWORK/by-1000")" = "$((RL_SUB + 999)):$((RL_SUB + 999))" ]
}

@test "the state root is \$XDG_RUNTIME_DIR/cell, the user's, mode 0700" {
	ujail where
	[ -d "$(ustate)/where" ]
	[ "$(stat -c %u:%a "$(ustate)")" = "$RL_UID:700" ]
	[ ! -e "/tmp/cell-$RL_UID" ]
}

@test "without XDG_RUNTIME_DIR the state root is /tmp/cell-UID, the user's, mode 0700" {
	run -0 rcell -x '' run -d --name tmproot -- sleep 1000
	[ -d "/tmp/cell-$RL_UID/tmproot" ]
	[ "$(stat -c %u:%a "/tmp/cell-$RL_UID")" = "$RL_UID:700" ]
	run -0 rcell -x '' ls -q
	[ "$output" = tmproot ]
	run -0 rcell -x '' rm -f tmproot
	[ ! -e "$(ustate)/tmproot" ]
}

@test "a /tmp/cell-UID made by another user is refused, exit 125, nothing made" {
	mkdir -m 0700 "/tmp/cell-$RL_UID"
	chown "$RL_OTHER_UID:$RL_OTHER_GID" "/tmp/cell-$RL_UID"
	run -125 rcell -x '' run -- true
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: "*"/tmp/cell-$RL_UID"* ]]
	[ -z "$(ls -A "/tmp/cell-$RL_UID")" ]
	run -125 rcell -x '' ls
	[[ "$output" == *"/tmp/cell-$RL_UID"* ]]
}

@test "a group- or world-writable /tmp/cell-UID is refused, exit 125, nothing made" {
	for mode in 0770 0707 1777; do
		rm -rf "/tmp/cell-$RL_UID"
		mkdir -m "$mode" "/tmp/cell-$RL_UID"
		chmod "$mode" "/tmp/cell-$RL_UID"
		chown "$RL_UID:$RL_GID" "/tmp/cell-$RL_UID"
		run -125 rcell -x '' run -- true
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cell: run: "*"/tmp/cell-$RL_UID"* ]]
		[ -z "$(ls -A "/tmp/cell-$RL_UID")" ]
	done
}

@test "another user sees none of a user's jails and cannot use its state root" {
	ujail mine
	run -0 rcell -u other ls -aq
	[ -z "$output" ]
	run -0 rcell -u other -x '' ls -aq
	[ -z "$output" ]
	# Named: its state root, unreadable (0700), or readable but another
	# user's: refused either way, and the jail untouched.
	for cmd in "ls -a" "inspect mine" "stop -t 0 mine" "rm -f mine" "exec mine true"; do
		run -125 rcell -u other --root "$(ustate)" $cmd
		[ "${#lines[@]}" -ge 1 ]
		[[ "${lines[0]}" == "cell: ${cmd%% *}: "* ]]
	done
	chmod 0755 "$RL_HOME" "$RL_HOME/run" "$(ustate)"
	for cmd in "ls -a" "inspect mine" "stop -t 0 mine" "rm -f mine"; do
		run -125 rcell -u other --root "$(ustate)" $cmd
		[[ "${lines[0]}" == "cell: ${cmd%% *}: "*"$(ustate)"* ]]
	done
	chmod 0700 "$RL_HOME" "$RL_HOME/run" "$(ustate)"
	[ "$(ufield mine state)" = running ]
	kill -0 "$JPID"
}

@test "a bridged network needs root: refused rootless with one line, exit 125, nothing left" {
	run -125 rcell run --net bridge -- true
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: run: "*"--net bridge"*root* ]]
	run -0 rcell ls -aq
	[ -z "$output" ]
	[ -z "$(ls -A "$(ustate)" 2>/dev/null | grep -vx net.lock)" ]
	! ip link show | grep -q "cell0"
}

@test "what needs the host's user namespace is refused rootless with one line, exit 125, nothing left" {
	run -125 rcell run --userns host -- true
	[ "$output" = "cell: run: --userns host: needs root: a rootless jail is in a user namespace of cell's own, the host's ids are not the user's to give" ]
	run -125 rcell run --allow mlock --memlock 1M -- true
	[ "$output" = "cell: run: --allow mlock: needs root: the kernel honours CAP_IPC_LOCK in the host's user namespace only" ]
	run -125 rcell run --net host --allow raw_sockets -- true
	[ "$output" = "cell: run: --allow raw_sockets: needs root on the host's network, which is the host user namespace's" ]
	# The same in a jail file, at its line.
	cat >"$UWORK/j.conf" <<-EOF
		j {
		    exec.start = "true";
		    userns = host;
		}
	EOF
	chown "$RL_UID:$RL_GID" "$UWORK/j.conf"
	run -125 rcell up -f "$UWORK/j.conf"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"j.conf:3:"*"userns = host: needs root"* ]]
	run -0 rcell ls -aq
	[ -z "$output" ]
	[ -z "$(ls -A "$(ustate)" 2>/dev/null | grep -vx net.lock)" ]
}

@test "--net none gives a rootless jail its own network with loopback only" {
	run -0 rcell run -- sh -c 'readlink /proc/self/ns/net; ls /sys/class/net'
	[ "${lines[0]}" != "$(readlink /proc/self/ns/net)" ]
	[ "${lines[1]}" = lo ]
}

@test "a rootless jail's root is the user: a host file the user cannot read stays closed" {
	# /etc/shadow (root's, 0640): bound in, still unreadable; the host's
	# root-owned files are nobody's inside (root is not mapped).
	run rcell run --bind /etc/shadow:/etc/shadow:ro -- sh -c \
		'stat -c %u /etc/passwd; cat /etc/shadow >/dev/null && echo read'
	[ "${lines[0]}" = 65534 ]
	[[ "$output" != *read* ]]
	[ "$status" -ne 0 ]
	run rcell run -- sh -c 'echo x >/etc/cell-rl-probe'
	[ "$status" -ne 0 ]
	[ ! -e /etc/cell-rl-probe ]
}

@test "a user's jail file comes up and goes down" {
	printf 'web {\n\texec.start = "sleep 1000";\n}\ndb {\n\texec.start = "sleep 1000";\n\tnofile = 64;\n}\n' \
		>"$UWORK/cell.conf"
	chown "$RL_UID:$RL_GID" "$UWORK/cell.conf"
	run -0 rcell up -f "$UWORK/cell.conf"
	[ "$output" = "web
db" ]
	run -0 rcell ls -q
	[ "$output" = "db
web" ]
	run -0 rcell exec db sh -c 'ulimit -n'
	[ "$output" = 64 ]
	# Each in a user namespace of its own, though one command made both.
	web=$(rcell ls --json | jq -r '.[] | select(.name == "web") | .pid')
	db=$(rcell ls --json | jq -r '.[] | select(.name == "db") | .pid')
	[ "$(readlink "/proc/$web/ns/user")" != "$(readlink "/proc/$db/ns/user")" ]
	run -0 rcell down -f "$UWORK/cell.conf"
	run -0 rcell ls -aq
	[ -z "$output" ]
}

@test "exec.stop runs in a single-mapping user's jail, and down ends it at once" {
	printf 'web {\n\texec.start = "sleep 1000";\n\texec.stop = "touch /srv/stopped; kill 1";\n\tbind = "%s:/srv";\n}\n' \
		"$RL_PLAIN_HOME/up" >"$RL_PLAIN_HOME/cell.conf"
	mkdir -m 0700 "$RL_PLAIN_HOME/up"
	chown "$RL_PLAIN_UID:$RL_PLAIN_GID" "$RL_PLAIN_HOME/cell.conf" "$RL_PLAIN_HOME/up"
	run -0 rcell -u plain up -f "$RL_PLAIN_HOME/cell.conf"
	SECONDS=0
	run -0 rcell -u plain down -f "$RL_PLAIN_HOME/cell.conf"
	[ "$output" = web ]
	[ "$SECONDS" -lt 5 ]
	[ -e "$RL_PLAIN_HOME/up/stopped" ]
	rm -rf "$RL_PLAIN_HOME/up" "$RL_PLAIN_HOME/cell.conf"
}

@test "a user's foreground cell is dumpable again once its jail's command runs: its /proc files are the user's" {
	# Its jail's first process shared cell's memory until its exec, and
	# was not dumpable (the flag is the memory's): cell gets its own back.
	rcell run --name fg -- sleep 1000 >/dev/null 2>&1 3>&- &
	local bg=$! jpid="" cpid="" owner="" i
	for ((i = 0; i < 50; i++)); do
		jpid=$(rcell ls --json | jq -r '.[] | select(.name == "fg") | .pid')
		[ -n "$jpid" ] && [ "$jpid" != null ] && [ "$(cat "/proc/$jpid/comm" 2>/dev/null)" = sleep ] && break
		sleep 0.1
	done
	[ "$(cat "/proc/$jpid/comm")" = sleep ]
	cpid=$(ps -o ppid= -p "$jpid" | tr -d ' ')
	[ "$(cat "/proc/$cpid/comm")" = cell ]
	for ((i = 0; i < 50; i++)); do
		owner=$(stat -c %u "/proc/$cpid/status")
		[ "$owner" = "$RL_UID" ] && break
		sleep 0.1
	done
	[ "$owner" = "$RL_UID" ]
	run -0 rcell stop -t 0 fg
	wait "$bg" || true
}
