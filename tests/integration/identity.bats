#!/usr/bin/env bats
# Identity, environment and handles (issue 16): -u NAME[:GROUP] found in
# the jail's own /etc/passwd and /etc/group, the jail's environment its
# own, cell exec inheriting the jail's, and a JID naming a jail wherever
# a name does.
load helpers

DEFAULT_PATH=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# A busybox root whose users are its own: alice (1500, group 1600
# "team", supplementary "extra" 1700), bob (1501) without a line in
# /etc/group, and no user of the host's.
make_users_root() {
	ROOT=$WORK/root
	make_rootfs "$ROOT"
	mkdir -p "$ROOT/etc" "$ROOT/home/alice"
	cat >"$ROOT/etc/passwd" <<-'EOF'
		root:x:0:0:root:/root:/bin/sh
		alice:x:1500:1600:Alice:/home/alice:/bin/sh
		bob:x:1501:1501::/:/bin/sh
		broken:x:notanumber:1::/:/bin/sh
	EOF
	cat >"$ROOT/etc/group" <<-'EOF'
		root:x:0:
		team:x:1600:
		extra:x:1700:alice,carol
		other:x:1800:bob
	EOF
}

@test "-u NAME runs as the user the jail's /etc/passwd names, with its group, groups and home" {
	make_users_root
	run cell run --rootfs "$ROOT" -u alice -- sh -c 'echo "$(id -u) $(id -g) $(id -G) $HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = "1500 1600 1600 1700 /home/alice" ]
}

@test "-u NAME:GROUP takes the group from the jail's /etc/group" {
	make_users_root
	run cell run --rootfs "$ROOT" -u alice:other -- sh -c 'echo "$(id -u) $(id -g)"'
	[ "$status" -eq 0 ]
	[ "$output" = "1500 1800" ]
	run cell run --rootfs "$ROOT" -u bob:1234 -- sh -c 'echo "$(id -u) $(id -g)"'
	[ "$output" = "1501 1234" ]
	run cell run --rootfs "$ROOT" -u 42:team -- sh -c 'echo "$(id -u) $(id -g)"'
	[ "$output" = "42 1600" ]
}

@test "a numeric -u still works, with the line's group and home when the jail has one" {
	make_users_root
	run cell run --rootfs "$ROOT" -u 1500 -- sh -c 'echo "$(id -g) $(id -G) $HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = "1600 1600 1700 /home/alice" ]
	run cell run --rootfs "$ROOT" -u 4321 -- sh -c 'echo "$(id -u) $(id -g) $HOME"'
	[ "$output" = "4321 4321 /" ]
}

@test "names are the jail's, not the host's" {
	make_users_root
	# The host has a root and usually a nobody; the jail's file has no nobody.
	run --separate-stderr cell run --rootfs "$ROOT" -u nobody -- true
	[ "$status" -eq 125 ]
	[ "$stderr" = "cell: run: jail ${stderr#cell: run: jail }" ]
	[[ "$stderr" == *'--user nobody: no user "nobody" in the jail'"'"'s /etc/passwd' ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ -z "$(ls -A "$STATE")" ]
}

@test "a symlinked /etc/passwd is read in the jail's root, never the host's" {
	make_users_root
	echo 'hostonly:x:1999:1999::/:/bin/sh' >"$WORK/hostpasswd"
	rm "$ROOT/etc/passwd"
	ln -s "$WORK/hostpasswd" "$ROOT/etc/passwd"
	run --separate-stderr cell run --rootfs "$ROOT" -u hostonly -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *'no user "hostonly"'* ]]
}

@test "a FIFO at the jail's /etc/passwd or /etc/group is refused, never waited on" {
	make_users_root
	rm "$ROOT/etc/group"
	mkfifo "$ROOT/etc/group"
	run --separate-stderr timeout 20 "$CELL" --root "$STATE" run --rootfs "$ROOT" -u alice:team -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"--user alice:team: /etc/group: not a regular file"* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "a jail without /etc/passwd runs numeric users, and says so for a name" {
	ROOT=$WORK/bare
	make_rootfs "$ROOT"
	run cell run --rootfs "$ROOT" -u 7:8 -- sh -c 'echo "$(id -u) $(id -g) $HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = "7 8 /" ]
	run --separate-stderr cell run --rootfs "$ROOT" -u alice -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *'--user alice: no user "alice" in the jail'"'"'s /etc/passwd' ]]
}

@test "exec -u NAME and the jail's own user by name resolve in the jail" {
	make_users_root
	cell run -d --name users --rootfs "$ROOT" -u alice -- sleep 100 >/dev/null
	run cell exec users sh -c 'echo "$(id -u) $(id -g) $HOME"'
	[ "$status" -eq 0 ]
	[ "$output" = "1500 1600 /home/alice" ]
	run cell exec -u bob users sh -c 'echo "$(id -u) $(id -G) $HOME"'
	[ "$output" = "1501 1501 1800 /" ]
	[ "$(cell ls -n -o user)" = "user=alice" ]
	run --separate-stderr cell exec -u nosuch users true
	[ "$status" -eq 125 ]
	[[ "$stderr" == "cell: exec: "*'--user nosuch: no user "nosuch"'* ]]
}

@test "a jail file's user = NAME resolves in the jail" {
	make_users_root
	cat >"$WORK/cell.conf" <<-EOF
		who {
		    path = "$ROOT";
		    user = "alice:extra";
		    exec.start = "id -u > /tmp/x; id -g >> /tmp/x; sleep 100";
		}
	EOF
	cell up -f "$WORK/cell.conf" >/dev/null
	run cell exec who cat /tmp/x
	[ "$status" -eq 0 ]
	[ "$output" = "1500
1700" ]
	cell down -f "$WORK/cell.conf"
}

@test "the jail's environment: PATH, HOSTNAME, container, HOME, and -e" {
	make_users_root
	HOSTVAR=leak run cell run -T --rootfs "$ROOT" --hostname box -u alice -e A=1 -- env
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output")" = "$(printf '%s\n' "$DEFAULT_PATH" HOSTNAME=box container=cell \
		HOME=/home/alice A=1 | sort)" ]
	run cell run -T --rootfs "$ROOT" -e HOME=/mine -u alice -- sh -c 'echo $HOME'
	[ "$output" = /mine ]
}

@test "HOME without -u: root's home in the root's /etc/passwd, / when it has none, a bound one's" {
	make_users_root
	run cell run -T --rootfs "$ROOT" -- sh -c 'echo $HOME'
	[ "$status" -eq 0 ]
	[ "$output" = /root ]
	# A root without /etc/passwd (a scratch image): nothing to read.
	mkdir "$WORK/etc"
	mv "$ROOT/etc/passwd" "$WORK/etc/passwd"
	run cell run -T --rootfs "$ROOT" -- sh -c 'echo $HOME'
	[ "$status" -eq 0 ]
	[ "$output" = / ]
	# One bound over the root's /etc is read.
	run cell run -T --rootfs "$ROOT" --bind "$WORK/etc:/etc" -- sh -c 'echo $HOME'
	[ "$status" -eq 0 ]
	[ "$output" = /root ]
}

@test "an empty -e HOME= is the user's home, set once (as runc and docker)" {
	make_users_root
	run cell run -T --rootfs "$ROOT" -e HOME= -u alice -- env
	[ "$status" -eq 0 ]
	[ "$(grep '^HOME=' <<<"$output")" = HOME=/home/alice ]
}

@test "a jail file's jail gets the same environment, not cell up's" {
	cat >"$WORK/cell.conf" <<-EOF
		envd { env = "A=1"; bind = "$WORK:/srv"; exec.start = "env > /srv/env.new; mv /srv/env.new /srv/env; sleep 100"; }
	EOF
	HOSTVAR=leak cell up -f "$WORK/cell.conf" >/dev/null
	wait_for "$WORK/env"
	# (the shell of exec.start adds its PWD)
	run sh -c "grep -v '^PWD=' '$WORK/env' | sort"
	[ "$output" = "$(printf '%s\n' "$DEFAULT_PATH" HOSTNAME=envd container=cell HOME=/root \
		A=1 | sort)" ]
	cell down -f "$WORK/cell.conf"
}

# --- a JID names a jail ----------------------------------------------

@test "a JID names a jail wherever a name does: exec, set, inspect, logs, stop, rm" {
	first_name=$(cell run -d --name first -- sh -c 'echo hello; sleep 100') # a pipe: the log
	cell run -d --name second -- sleep 100 >/dev/null
	jid=$(cell ls -n -o name,jid | awk '$1 == "name=second" { sub("jid=", "", $2); print $2 }')
	[ -n "$jid" ]
	run cell exec "$jid" hostname
	[ "$status" -eq 0 ]
	[ "$output" = second ]
	cell set "$jid" hostname=renamed
	[ "$(cell exec second hostname)" = renamed ]
	[ "$(cell inspect "$jid" | grep '^name=')" = name=second ]
	first=$(cell ls -n -o name,jid | awk '$1 == "name=first" { sub("jid=", "", $2); print $2 }')
	for ((i = 0; i < 100; i++)); do
		[ "$(cell logs "$first")" = hello ] && break
		sleep 0.05
	done
	[ "$(cell logs "$first")" = hello ]
	cell stop -t 0 "$jid"
	run cell ls -q
	[ "$output" = first ]
	cell rm "$jid"
	[ "$(cell ls -a -q)" = first ]
}

@test "a word of digits is the JID of a jail first, else a jail of that name" {
	cell run -d --name 7 -- sleep 100 >/dev/null
	cell run -d --name other -- sleep 100 >/dev/null
	# "7" has JID 1 and "other" 2: "1" is the JID of "7"; "7" no JID, so the name.
	[ "$(cell exec 1 hostname)" = 7 ]
	[ "$(cell exec 7 hostname)" = 7 ]
	[ "$(cell exec 2 hostname)" = other ]
}

@test "a JID no jail has is no such jail" {
	run --separate-stderr cell exec 99 true
	[ "$status" -eq 125 ]
	[ "$stderr" = "cell: exec: jail 99: no such jail" ]
}

# --- paths recorded absolute -----------------------------------------

@test "a relative --rootfs and bind source are recorded absolute, from cell's working directory" {
	make_rootfs "$WORK/root"
	mkdir "$WORK/data"
	(cd "$WORK" && "$CELL" --root "$STATE" run -d --name rel --rootfs ./root --bind data:/data \
		-- sleep 100 >/dev/null)
	[ "$(cell ls -n -o path,bind)" = "path=$WORK/root bind=$WORK/data:/data" ]
	# Another directory later means the same jail.
	(cd / && "$CELL" --root "$STATE" exec rel test -d /data)
}

@test "a jail file's relative path is its directory's, recorded absolute" {
	mkdir "$WORK/conf"
	make_rootfs "$WORK/conf/root"
	cat >"$WORK/conf/cell.conf" <<-'EOF'
		relf { path = "root"; exec.start = "sleep 100"; }
	EOF
	(cd / && "$CELL" --root "$STATE" up -f "$WORK/conf/cell.conf" >/dev/null)
	[ "$(cell ls -n -o path)" = "path=$WORK/conf/root" ]
	cell down -f "$WORK/conf/cell.conf"
}

# --- without root ----------------------------------------------------

# as_nobody ARG...: cell run as uid/gid 65534 with no groups.
as_nobody() {
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups "$CELL" "$@"
}

@test "without root, a state root the user does not own is refused for every command, exit 125, and nothing is made in it" {
	nobody_runs_cell
	chmod 755 "$WORK"
	mkdir -m 0755 "$WORK/roots-root"
	for cmd in "run -- true" "ls" "exec web true" "stop web" "rm web" "inspect web" \
		"logs web" "set web hostname=x"; do
		# shellcheck disable=SC2086
		as_nobody --root "$WORK/roots-root" $cmd
		[ "$status" -eq 125 ]
		[ -z "$output" ]
		[ "$stderr" = "cell: ${cmd%% *}: state root $WORK/roots-root: not yours (owned by uid 0): Operation not permitted" ]
	done
	[ -z "$(ls -A "$WORK/roots-root")" ]
}

@test "without root and without --root, a jail runs rootless in \$XDG_RUNTIME_DIR/cell, made 0700 and the user's" {
	nobody_xdg
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		env XDG_RUNTIME_DIR="$WORK/xdg" "$CELL" run -- /bin/sh -c 'id -u; cat /proc/self/uid_map; echo $$'
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 0 ]
	[ "$(echo ${lines[1]})" = "0 65534 1" ]
	[ "${lines[2]}" = 1 ]
	[ "$(stat -c '%u %a' "$WORK/xdg/cell")" = "65534 700" ]
}

@test "without root, help, the version and oci spec still work" {
	nobody_runs_cell
	as_nobody --help
	[ "$status" -eq 0 ]
	as_nobody run --help
	[ "$status" -eq 0 ]
	as_nobody --version
	[ "$status" -eq 0 ]
	as_nobody oci features
	[ "$status" -eq 0 ]
	(cd "$WORK" && chmod 777 . && setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CELL" oci spec && [ -s config.json ])
}

@test "exec with a pty gets the caller's TERM, else xterm; without one, the jail's" {
	cell run -d --name termj -- sleep 100 >/dev/null
	TERM=vt220 run cell exec -t termj sh -c 'echo "$TERM"' </dev/null
	[ "$status" -eq 0 ]
	[ "${output%$'\r'}" = vt220 ]
	run env -u TERM "$CELL" --root "$STATE" exec -t termj sh -c 'echo "$TERM"' </dev/null
	[ "${output%$'\r'}" = xterm ]
	TERM=vt220 run cell exec -T termj sh -c 'echo "${TERM:-none}"'
	[ "$output" = none ]
}

@test "a JID names a jail for ls, ps, stats, restart, start and wait too" {
	cell run -d --name svc --init -- sleep 100 >/dev/null
	jid=$(cell ls -n -o jid svc | cut -d= -f2)
	[ "$(cell ls -q "$jid")" = svc ]
	run cell ps "$jid"
	[ "$status" -eq 0 ]
	grep -q "sleep 100" <<<"$output"
	cell stats --no-stream "$jid" | grep -q svc
	[ "$(cell restart -t 0 "$jid")" = svc ]
	cell stop -t 5 "$jid" >/dev/null
	run cell wait "$jid"
	[ "$status" -eq 143 ]
	[ "$(cell start "$jid")" = svc ]
	cell rm -f "$jid" >/dev/null
	[ -z "$(cell ls -a -q)" ]
}
