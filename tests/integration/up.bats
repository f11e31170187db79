#!/usr/bin/env bats
# Jail files: cell up and cell down (docs/cell.conf.5).
load helpers

setup() {
	cell_setup
	CONF=$WORK/cell.conf
}

# A file of two jails: globals, $name, a list param, exec.stop.
write_conf() {
	cat >"$CONF" <<-EOF
		# two jails sharing a limit
		nrtask = 50;
		bind = "$WORK:/srv";
		web {
		    host.hostname = "\$name.example";
		    exec.start = "echo up > /srv/web.new; mv /srv/web.new /srv/web.started; exec sleep 100";
		    exec.stop = "echo bye > /srv/web.stopped";
		    memory = 64M;
		    init = false;
		}
		db { exec.start = 'exec sleep 100'; }
	EOF
}

@test "cell up starts every jail of the file, detached, and prints their names" {
	write_conf
	run cell up -f "$CONF"
	[ "$status" -eq 0 ]
	[ "$output" = "web
db" ]
	[ "$(cell ls -q)" = "db
web" ]
	wait_for "$WORK/web.started"
	[ "$(cat "$WORK/web.started")" = up ]
}

@test "a jail file's globals, \$name and per-jail params reach each jail" {
	write_conf
	cell up -f "$CONF" >/dev/null
	run cell ls -n -o name,hostname,nrtask,memory,init
	[ "$status" -eq 0 ]
	[ "$output" = "name=db hostname=db nrtask=50 init=true
name=web hostname=web.example nrtask=50 memory=64M init=false" ]
	run cell exec web hostname
	[ "$output" = web.example ]
}

@test "cell up NAME starts only that jail" {
	write_conf
	run cell up -f "$CONF" db
	[ "$status" -eq 0 ]
	[ "$output" = db ]
	[ "$(cell ls -q)" = db ]
}

@test "cell up leaves a jail that runs as it is" {
	write_conf
	cell up -f "$CONF" db >/dev/null
	pid=$(cell ls --json -o pid | jq '.[0].pid')
	run cell up -f "$CONF" db
	[ "$status" -eq 0 ]
	[ "$output" = "cell: up: jail db: already running" ]
	[ "$(cell ls --json -o pid | jq '.[0].pid')" = "$pid" ]
}

@test "cell up replaces a jail of the file that has stopped" {
	write_conf
	cell up -f "$CONF" db >/dev/null
	cell stop -t 0 db
	[ "$(cell ls -a --json -o state | jq -r '.[0].state')" = stopped ]
	run cell up -f "$CONF" db
	[ "$status" -eq 0 ]
	[ "$(cell ls --json -o state | jq -r '.[0].state')" = running ]
}

@test "a jail file with an error starts no jail and names file:line:column" {
	write_conf
	printf 'bad { exec.start = "true"; memroy = 1M; }\n' >>"$CONF"
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: $CONF:12:28: unknown parameter \"memroy\"" ]
	[ -z "$(cell ls -aq)" ]
}

@test "a bad value names its declaration, and the jail a global was for" {
	printf 'memory = 1k;\nweb { exec.start = "true"; }\n' >"$CONF"
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: $CONF:1:1: memory = 1k: at least 1M (for jail \"web\")" ]
	[ -z "$(cell ls -aq)" ]
}

@test "an error found at validation names the declaration's file:line:column" {
	printf 'web {\n  exec.start = "true";\n  rw;\n}\n' >"$CONF"
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: $CONF:3:3: rw: needs path: the embedded root is the host's own files and stays read-only (for jail \"web\")" ]
	[ -z "$(cell ls -aq)" ]
	printf 'swap = 1G;\nweb { exec.start = "true"; }\n' >"$CONF"
	run cell up -f "$CONF"
	[ "$output" = "cell: up: $CONF:1:1: swap = 1G: needs memory (for jail \"web\")" ]
}

@test "an error found at the start names the declaration, and the jail a global was for" {
	printf 'path = "%s/nope";\nweb { exec.start = "true"; }\n' "$WORK" >"$CONF"
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: $CONF:1:1: path = $WORK/nope: No such file or directory (for jail \"web\")" ]
	[ -z "$(cell ls -aq)" ]
	# A list's element: its own declaration.
	printf 'web {\n  exec.start = "true";\n  bind = "%s:/a";\n  bind += "%s/nope:/b";\n}\n' \
		"$WORK" "$WORK" >"$CONF"
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: $CONF:4:3: bind = $WORK/nope:/b: $WORK/nope: No such file or directory (for jail \"web\")" ]
	[ -z "$(cell ls -aq)" ]
}

@test "a jail's command may be a list, as ls -n prints it" {
	printf 'web { bind = "%s:/srv"; command = sh, -c, "echo \\"a, b\\" > /srv/out; exec sleep 100"; }\n' \
		"$WORK" >"$CONF"
	run cell up -f "$CONF"
	[ "$status" -eq 0 ]
	wait_for "$WORK/out"
	[ "$(cat "$WORK/out")" = "a, b" ]
	run cell ls -n -o command
	[ "$output" = "command='sh, -c, \"echo \\\"a, b\\\" > /srv/out; exec sleep 100\"'" ]
}

@test "a syntax error is one line with its position, and nothing starts" {
	printf 'web {\n  exec.start = "sleep 1"\n}\n' >"$CONF"
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cell: up: $CONF:3:1: "* ]]
	[ -z "$(cell ls -aq)" ]
}

@test "cell up of a jail the file does not have is an error that starts nothing" {
	write_conf
	run cell up -f "$CONF" web nope
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: $CONF: no jail \"nope\" in it" ]
	[ -z "$(cell ls -aq)" ]
}

@test "cell up of a missing file is a one-line error" {
	run cell up -f "$WORK/none.conf"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: $WORK/none.conf: No such file or directory" ]
}

@test "cell down runs exec.stop inside the jail, then stops and removes it" {
	write_conf
	cell up -f "$CONF" >/dev/null
	run cell down -f "$CONF" -t 1
	[ "$status" -eq 0 ]
	[ "$(cat "$WORK/web.stopped")" = bye ]
	[ -z "$(cell ls -aq)" ]
	[ -z "$(ls -A "$STATE")" ]
	run sh -c "find /sys/fs/cgroup/*/ -maxdepth 6 -name '$(cell_cgroup_leaf web)' -o -maxdepth 6 -name '$(cell_cgroup_leaf db)' 2>/dev/null"
	[ -z "$output" ]
}

@test "cell down kills an exec.stop that outlives exec.timeout, and stops the jail all the same" {
	cat >"$CONF" <<-EOF
		hang {
		    exec.start = "exec sleep 100";
		    exec.stop = "trap '' TERM INT HUP; touch /tmp/stopping; sleep 1000";
		    exec.timeout = 1;
		}
	EOF
	cell up -f "$CONF" >/dev/null
	SECONDS=0
	run --separate-stderr timeout -s KILL 30 "$CELL" --root "$STATE" down -f "$CONF" -t 1
	[ "$status" -eq 0 ]
	[ "$SECONDS" -lt 15 ]
	[ "$stderr" = "cell: down: jail hang: exec.stop: killed after 1 s (exec.timeout)" ]
	[ -z "$(cell ls -aq)" ]
	[ -z "$(ls -A "$STATE")" ]
}

# up_broken: jail "broken" up, its working directory, on the host's side
# of a bind, gone: exec.stop's chdir fails in the jail, before its exec.
up_broken() {
	mkdir -p "$WORK/w/sub"
	cat >"$CONF" <<-EOF
		broken {
		    bind = "$WORK/w:/mnt";
		    workdir = "/mnt/sub";
		    exec.start = "exec sleep 100";
		    exec.stop = "true";
		}
	EOF
	cell up -f "$CONF" >/dev/null
	rmdir "$WORK/w/sub"
}

@test "an exec.stop that fails before its command runs is reaped: down stops the jail at once" {
	up_broken
	SECONDS=0
	# -t 10: were the failed process left a zombie in the jail's pid
	# namespace, the stop would wait out those 10 s (and fail).
	run --separate-stderr timeout -s KILL 60 "$CELL" --root "$STATE" down -f "$CONF" -t 10
	[ "$status" -eq 0 ]
	[ "$SECONDS" -lt 8 ]
	[[ "$stderr" == "cell: down: jail broken: exec.stop: "*"No such file or directory" ]]
	[ -z "$(cell ls -aq)" ]
	[ -z "$(ls -A "$STATE")" ]
}

@test "an exec.stop that fails before the joiner hands it over is reaped: down stops the jail at once" {
	[ -x "${CELL_TESTPOINTS:-}" ] || skip "needs the test-testpoints build (CELL_TESTPOINTS)"
	up_broken
	# The joiner pauses before it hands the process over (no pause
	# file: it is in the jail's mounts by then); the process fails at
	# its chdir meanwhile, and its error reaches cell first.
	SECONDS=0
	CELL_TEST_PAUSE=exec:handover "$CELL_TESTPOINTS" --root "$STATE" down -f "$CONF" -t 10 \
		>"$WORK/down.out" 2>&1 &
	down_pid=$!
	BG_PIDS+=("$down_pid")
	# cell's children: the failed process, a zombie, and the joiner.
	for ((i = 0; i < 100; i++)); do
		ps -o stat= --ppid "$down_pid" | grep -q Z && break
		sleep 0.1
	done
	joiner=$(ps -o pid=,stat= --ppid "$down_pid" | awk '$2 !~ /Z/ { print $1 }')
	[ -n "$joiner" ]
	kill -USR1 "$joiner"
	# -t 10: were the failed process left a zombie in the jail's pid
	# namespace, the stop would wait out those 10 s (and fail).
	wait_ended "$down_pid" 30
	[ "$SECONDS" -lt 8 ]
	grep -q "cell: down: jail broken: exec.stop: .*No such file or directory" "$WORK/down.out"
	[ -z "$(cell ls -aq)" ]
}

@test "exec.timeout that is not a number of seconds is an error at its line" {
	cat >"$CONF" <<-EOF
		web {
		    exec.start = "exec sleep 100";
		    exec.timeout = soon;
		}
	EOF
	run cell up -f "$CONF"
	[ "$status" -eq 125 ]
	[ "$output" = "cell: up: $CONF:3:5: exec.timeout = soon: expected seconds, 0 to 86400 (0: no limit)" ]
	[ -z "$(cell ls -aq)" ]
}

@test "cell down NAME stops only that jail" {
	write_conf
	cell up -f "$CONF" >/dev/null
	run cell down -f "$CONF" -t 0 db
	[ "$status" -eq 0 ]
	[ "$(cell ls -aq)" = web ]
}

@test "cell down of jails that are not there is not an error" {
	write_conf
	run cell down -f "$CONF"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "cell up and down have --help" {
	run cell up --help
	[ "$status" -eq 0 ]
	[[ "$output" == "Usage: cell up "* ]]
	run cell down --help
	[ "$status" -eq 0 ]
	[[ "$output" == "Usage: cell down "* ]]
}

@test "relative paths in a jail file are taken from the file's directory" {
	mkdir -p "$WORK/site/data"
	echo hello >"$WORK/site/data/index"
	cat >"$WORK/site/cell.conf" <<-EOF
		web { bind = "data:/srv:ro"; exec.start = "exec sleep 100"; }
	EOF
	cd "$WORK"
	# A relative --root stays the caller's.
	mkdir -p state
	run "$CELL" --root state up -f site/cell.conf
	[ "$status" -eq 0 ]
	[ "$output" = web ]
	[ -d "$WORK/state/web" ]
	run "$CELL" --root state exec web cat /srv/index
	[ "$output" = hello ]
	"$CELL" --root state rm -f web
	[ -z "$(ls -A "$WORK/state")" ]
}
