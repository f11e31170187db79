#!/usr/bin/env bats
# A named jail's life after its first start: cell start, restart and
# wait; a foreground jail whose terminal goes away; what stop, rm and
# down print; down's jails stopped side by side; up and down acting only
# on the jails of their own file; the boot unit.
load helpers

setup() {
	cell_setup
	CONF=$WORK/cell.conf
}

# A file of three jails whose pid 1 (a plain sleep) ignores SIGTERM.
write_conf() {
	cat >"$CONF" <<-EOF
		one { exec.start = "exec sleep 100"; }
		two { exec.start = "exec sleep 100"; }
		three { exec.start = "exec sleep 100"; }
	EOF
}

# --- start ----------------------------------------------------------------

@test "start runs a stopped jail again from its record: same parameters, JID and log" {
	cell run -d --init --name web --hostname box --memory 64M -e GREETING=hi -- \
		sh -c 'echo "$GREETING from $(hostname)"; exit 3' | cat >/dev/null
	wait_stopped web
	jid=$(jfield web jid)
	created=$(jfield web created)
	run cell start web
	[ "$status" -eq 0 ]
	[ "$output" = web ]
	wait_stopped web
	[ "$(jfield web jid)" = "$jid" ]
	[ "$(jfield web created)" = "$created" ]
	[ "$(jfield web memory)" = 67108864 ]
	[ "$(jfield web exit)" = 3 ]
	# The log appended to, not truncated.
	[ "$(cell logs web)" = "hi from box
hi from box" ]
}

@test "start keeps a jail's range of host ids" {
	cell run -d --name ids -- sleep 100 >/dev/null
	map=$(jq -c .idmap "$STATE/ids/state.json")
	[ "$map" != null ]
	cell stop -t 0 ids >/dev/null
	cell start ids >/dev/null
	[ "$(jq -c .idmap "$STATE/ids/state.json")" = "$map" ]
	pid=$(jfield ids pid)
	[ "$(awk '{ print $2 }' "/proc/$pid/uid_map")" = "$(jq -r .idmap.uid_map "$STATE/ids/state.json" | awk '{ print $2 }')" ]
	# One range held in the jail's name, not two.
	owned=$(grep -l "$STATE/ids" /run/cell-ids/* 2>/dev/null | wc -l)
	[ "$owned" -le 1 ]
}

@test "start of a running jail is a one-line error with exit 125, the jail untouched" {
	cell run -d --name busy -- sleep 100 >/dev/null
	pid=$(jfield busy pid)
	run cell start busy
	[ "$status" -eq 125 ]
	[ "$output" = "cell: start: jail busy: already running" ]
	[ "$(jfield busy pid)" = "$pid" ]
}

@test "start of a jail that is not there is a one-line error with exit 125, nothing made" {
	run cell start ghost
	[ "$status" -eq 125 ]
	[ "$output" = "cell: start: jail ghost: no such jail" ]
	[ ! -e "$STATE/ghost" ]
	run cell start
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	run cell start --bogus web
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
}

@test "start of a jail whose root has gone names the parameter, and the jail stays stopped" {
	make_rootfs "$WORK/root"
	cell run -d --name rooted --rootfs "$WORK/root" -- sleep 100 >/dev/null
	cell stop -t 0 rooted >/dev/null
	cp "$STATE/rooted/state.json" "$WORK/before.json"
	mv "$WORK/root" "$WORK/moved"
	run cell start rooted
	[ "$status" -eq 125 ]
	[ "$output" = "cell: start: jail rooted: path=$WORK/root: No such file or directory" ]
	cmp "$STATE/rooted/state.json" "$WORK/before.json"
	mv "$WORK/moved" "$WORK/root"
	run cell start rooted
	[ "$status" -eq 0 ]
}

@test "a start that fails leaves the jail stopped with its record" {
	[ -n "${CELL_TESTPOINTS:-}" ] || skip "needs CELL_TESTPOINTS (make build-testpoints)"
	cell run -d --init --name frail --nrtask 20 -- sh -c 'exit 5' >/dev/null
	wait_stopped frail
	cp "$STATE/frail/state.json" "$WORK/before.json"
	for stage in cgroups files spawn start exec; do
		run env CELL_TEST_FAIL="launch:$stage" "$CELL_TESTPOINTS" --root "$STATE" start frail
		[ "$status" -eq 125 ]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" == "cell: start: "*"launch:$stage (test failure)"* ]]
		cmp "$STATE/frail/state.json" "$WORK/before.json"
		[ -z "$(find /sys/fs/cgroup -maxdepth 8 -type d -name "$(cell_cgroup_leaf frail)" 2>/dev/null)" ]
	done
	# And it starts after all.
	run cell start frail
	[ "$status" -eq 0 ]
	wait_stopped frail
	[ "$(jfield frail exit)" = 5 ]
}

# --- restart --------------------------------------------------------------

@test "restart stops a running jail and starts it again" {
	cell run -d --name web -- sleep 100 >/dev/null
	old=$(jfield web pid)
	run cell restart -t 0 web
	[ "$status" -eq 0 ]
	[ "$output" = web ]
	new=$(jfield web pid)
	[ -n "$new" ]
	[ "$new" != "$old" ]
	[ "$(jfield web state)" = running ]
	wait_ended "$old"
}

@test "restart of a stopped jail starts it" {
	cell run -d --name idle -- sleep 100 >/dev/null
	cell stop -t 0 idle >/dev/null
	run cell restart idle
	[ "$status" -eq 0 ]
	[ "$(jfield idle state)" = running ]
}

@test "restart with a bad timeout or no jail is a one-line error with exit 125" {
	run cell restart -t soon web
	[ "$status" -eq 125 ]
	[ "$output" = "cell: restart: -t soon: expected seconds >= 0" ]
	run cell restart ghost
	[ "$status" -eq 125 ]
	[ "$output" = "cell: restart: jail ghost: no such jail" ]
	[ -z "$(ls -A "$STATE")" ]
}

# --- wait -----------------------------------------------------------------

@test "wait returns when the jail ends, with its exit status, and prints nothing" {
	cell run -d --init --name job -- sh -c 'sleep 1; exit 7' >/dev/null
	SECONDS=0
	run cell wait job
	[ "$status" -eq 7 ]
	[ "$output" = "" ]
	[ "$SECONDS" -lt 5 ]
	[ "$(jfield job state)" = stopped ]
}

@test "wait of a stopped jail returns its recorded status at once; of several, the last's" {
	cell run -d --init --name a -- sh -c 'exit 2' >/dev/null
	cell run -d --init --name b -- sh -c 'exit 9' >/dev/null
	wait_stopped a
	wait_stopped b
	run cell wait a
	[ "$status" -eq 2 ]
	run cell wait a b
	[ "$status" -eq 9 ]
}

@test "wait of no jail, or a jail whose status is not known, is a one-line error with exit 125" {
	run cell wait ghost
	[ "$status" -eq 125 ]
	[ "$output" = "cell: wait: jail ghost: no such jail" ]
	run cell wait
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	cell run -d --no-init --name plain -- true >/dev/null 2>&1 ||
		cell run -d --name plain -- true >/dev/null
	wait_stopped plain
	if [ -z "$(jfield plain exit)" ]; then
		run cell wait plain
		[ "$status" -eq 125 ]
		[ "$output" = "cell: wait: jail plain: ended; its exit status is not known" ]
	fi
}

@test "start, restart and wait have --help" {
	for cmd in start restart wait; do
		run cell "$cmd" --help
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "Usage: cell $cmd "* ]]
	done
}

# --- a foreground jail and its terminal ------------------------------------

# run_on_pty NAME CMD...: `cell run --name NAME CMD...` on a pty of
# script(1), in the background; the script's pid in $SCRIPT_PID and cell's
# in $CELL_PID once the jail runs.
run_on_pty() {
	local name=$1 i
	shift
	env --default-signal=INT,QUIT,HUP script -qfec \
		"$CELL --root $STATE run --name $name -- $*" /dev/null \
		</dev/null >"$WORK/pty.out" 2>&1 3>&- &
	SCRIPT_PID=$!
	BG_PIDS+=("$SCRIPT_PID")
	wait_running "$name"
	for ((i = 0; i < 50; i++)); do
		CELL_PID=$(jq -r .pid "$STATE/$name/state.json" 2>/dev/null | xargs -r ps -o ppid= -p | tr -d ' ')
		[ -n "$CELL_PID" ] && return 0
		sleep 0.1
	done
	return 1
}

@test "a foreground jail that ignores SIGHUP is killed once its terminal has gone" {
	run_on_pty hup sleep 1000
	jail=$(jq -r .pid "$STATE/hup/state.json")
	# The terminal goes: its master closes with script.
	kill -KILL "$SCRIPT_PID"
	SECONDS=0
	wait_ended "$CELL_PID" 150
	wait_ended "$jail" 20
	[ "$SECONDS" -ge 4 ] # the grace: SIGHUP first, SIGKILL 5 s later
	cell_wait_gone "$STATE"
	[ ! -e "$STATE/hup" ]
}

@test "a foreground jail that handles SIGHUP gets it when its terminal goes, and ends" {
	run_on_pty hupper sh -c "'trap \"exit 3\" HUP; while :; do sleep 0.1; done'"
	kill -KILL "$SCRIPT_PID"
	SECONDS=0
	wait_ended "$CELL_PID" 40
	[ "$SECONDS" -lt 4 ]
	cell_wait_gone "$STATE"
}

# --- what stop, rm and down print, and down side by side --------------------

@test "stop and rm print each jail they stopped or removed, one per line" {
	cell run -d --name a -- sleep 100 >/dev/null
	cell run -d --name b -- sleep 100 >/dev/null
	run cell stop -t 0 a b
	[ "$status" -eq 0 ]
	[ "$output" = "a
b" ]
	run cell rm a b
	[ "$status" -eq 0 ]
	[ "$output" = "a
b" ]
}

@test "stop of several jails waits one timeout for all of them" {
	for n in a b c; do
		cell run -d --name "$n" -- sleep 100 >/dev/null
	done
	SECONDS=0
	run cell stop -t 2 a b c
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	# One timeout (2 s) and the kills, not three.
	[ "$SECONDS" -lt 5 ]
}

@test "stop of a jail that is not there names it, and the others are stopped" {
	cell run -d --name a -- sleep 100 >/dev/null
	run cell stop -t 0 ghost a
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "cell: stop: jail ghost: no such jail" ]
	[ "${lines[1]}" = a ]
	[ "$(jfield a state)" = stopped ]
}

@test "down stops its jails side by side, in one timeout, and prints each one removed" {
	write_conf
	cell up -f "$CONF" >/dev/null
	SECONDS=0
	run cell down -t 2 -f "$CONF"
	[ "$status" -eq 0 ]
	[ "$output" = "three
two
one" ]
	[ "$SECONDS" -lt 5 ]
	[ -z "$(cell ls -aq)" ]
}

# --- up and down act on their own file's jails only -------------------------

@test "up refuses a jail of the same name it did not make, and starts nothing" {
	write_conf
	cell run -d --name two -- sleep 100 >/dev/null
	pid=$(jfield two pid)
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: jail two: made by cell run, not from this file (left as it is)" ]
	[ "$(cell ls -aq)" = two ]
	[ "$(jfield two pid)" = "$pid" ]
}

@test "up refuses a jail another file made, naming that file" {
	write_conf
	mkdir "$WORK/other"
	cp "$CONF" "$WORK/other/cell.conf"
	cell up -f "$WORK/other/cell.conf" one >/dev/null
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: jail one: made from $WORK/other/cell.conf, not from this file (left as it is)" ]
	[ "$(cell ls -aq)" = one ]
}

@test "up records the file's absolute path, and replaces its own stopped jail" {
	write_conf
	(cd "$WORK" && "$CELL" --root "$STATE" up -f cell.conf one >/dev/null)
	[ "$(jfield one file)" = "$CONF" ]
	cell stop -t 0 one >/dev/null
	cell start one >/dev/null
	[ "$(jfield one file)" = "$CONF" ]
	cell stop -t 0 one >/dev/null
	run cell up -f "$CONF" one
	[ "$status" -eq 0 ]
	[ "$(jfield one state)" = running ]
}

@test "down leaves a jail it did not make, with a warning" {
	write_conf
	cell run -d --name two -- sleep 100 >/dev/null
	cell up -f "$CONF" one >/dev/null
	run cell down -t 0 -f "$CONF"
	[ "$status" -eq 0 ]
	[[ "$output" == *"cell: down: warning: jail two: made by cell run, not from this file (left as it is)"* ]]
	[[ "$output" == *$'\none'* || "$output" == one* ]]
	[ "$(cell ls -q)" = two ]
}

@test "an error found at up's start names the jail and its file:line:column" {
	[ -n "${CELL_TESTPOINTS:-}" ] || skip "needs CELL_TESTPOINTS (make build-testpoints)"
	write_conf
	run env CELL_TEST_FAIL=launch:spawn "$CELL_TESTPOINTS" --root "$STATE" up -f "$CONF" two
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: up: $CONF:2:1: jail two: launch:spawn (test failure)"* ]]
	[ -z "$(ls -A "$STATE")" ]
}

# --- boot -------------------------------------------------------------------

@test "the boot unit runs cell up and down on /etc/cell.conf and passes systemd-analyze verify" {
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is missing"
	unit=$BATS_TEST_DIRNAME/../../contrib/cell.service.in
	grep -qx 'ExecStart=@SBINDIR@/cell up -f /etc/cell.conf' "$unit"
	grep -qx 'ExecStop=@SBINDIR@/cell down -f /etc/cell.conf' "$unit"
	grep -qx 'Type=oneshot' "$unit"
	grep -qx 'RemainAfterExit=yes' "$unit"
	mkdir "$WORK/unit"
	sed "s|@SBINDIR@/cell|$CELL|" "$unit" >"$WORK/unit/cell.service"
	run systemd-analyze verify --man=no "$WORK/unit/cell.service"
	[ "$status" -eq 0 ]
	[ "$output" = "" ]
}

@test "make install's staged install (DESTDIR) puts the unit beside cell, naming the installed binary" {
	build=$(dirname "$CELL")
	[ -f "$build/build.ninja" ] && command -v meson >/dev/null || skip "no meson build directory at $build"
	run meson install -C "$build" --no-rebuild --destdir "$WORK/dest"
	[ "$status" -eq 0 ]
	unit=$(find "$WORK/dest" -path '*/lib/systemd/system/cell.service')
	[ -n "$unit" ]
	exe=$(sed -n 's/^ExecStart=\([^ ]*\) up -f \/etc\/cell.conf$/\1/p' "$unit")
	[ -x "$WORK/dest$exe" ]
	[ "$(sed -n 's/^ExecStop=\([^ ]*\) down -f \/etc\/cell.conf$/\1/p' "$unit")" = "$exe" ]
}
