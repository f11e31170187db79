# Throwaway users for the rootless tests (tests/oci/rootless.bats,
# tests/engines/podman-rootless.bats), made and removed by the tests.
#
# rootless_user_add makes a user with no home, no group of its own and
# no subordinate ids from useradd (SUB_UID_COUNT=0), then gives it one
# range of 65536 subordinate uids and gids in 3400000000.., a block no
# line of /etc/subuid or /etc/subgid overlaps (other suites pick their
# own).  Its temp dir ($RL_TMP, world-traversable, in /tmp) holds a
# HOME, a 0700 XDG_RUNTIME_DIR of the user's and a copy of cell, so
# that nothing the user runs needs to reach into root's dirs.
# rootless_user_del kills every process of the user (by pid), removes
# its subordinate ranges, the user and its temp dir; it is safe to call
# twice or after a half-made user.

# The cell binary the users run (build/cell, called as cell-oci).
RL_CELL=${CELL_OCI:-$BATS_TEST_DIRNAME/../../build/cell-oci}

# overlaps FILE START: true when a line of FILE holds an id of
# START..START+65535.
rl_overlaps() {
	awk -F: -v s="$2" '$2 + 0 < s + 65536 && $2 + $3 > s { found = 1 } END { exit !found }' "$1"
}

# rootless_user_add VAR: a new user; VAR_USER, VAR_UID, VAR_GID, VAR_TMP,
# VAR_HOME, VAR_XDG, VAR_SUBID (the first subordinate id) and VAR_OCI
# (its cell-oci) are exported.  VAR_USER is set first, so that a
# failure half-way leaves a name for rootless_user_del.
rootless_user_add() {
	local var=$1 name uid start i tmp
	name="cell-t$$-$(printf %s "$var" | tr 'A-Z_' 'a-z-')"
	name=${name:0:31}
	export "${var}_USER=$name"
	for ((i = 0; i < 50; i++)); do
		uid=$((47000 + RANDOM % 2000))
		! getent passwd "$uid" >/dev/null &&
			useradd -M -N -u "$uid" -s /bin/sh -K SUB_UID_COUNT=0 -K SUB_GID_COUNT=0 \
				"$name" && break
		uid=
	done
	[ -n "$uid" ] || { echo "rootless_user_add: no free uid" >&2; return 1; }
	export "${var}_UID=$uid"
	for ((i = 0; i < 50; i++)); do
		start=$((3400000000 + (RANDOM % 1000) * 65536))
		rl_overlaps /etc/subuid "$start" || rl_overlaps /etc/subgid "$start" || break
		start=
	done
	[ -n "$start" ] || { echo "rootless_user_add: no free subordinate range" >&2; return 1; }
	usermod --add-subuids "$start-$((start + 65535))" \
		--add-subgids "$start-$((start + 65535))" "$name" || return 1
	export "${var}_SUBID=$start"
	tmp=$(mktemp -d "/tmp/cell-rootless-$name.XXXXXX") || return 1
	export "${var}_TMP=$tmp"
	chmod 755 "$tmp"
	mkdir -p "$tmp/home" "$tmp/xdg" "$tmp/bin"
	chown "$uid:users" "$tmp/home" "$tmp/xdg"
	chmod 700 "$tmp/xdg"
	# A copy, not the build's own: its dirs may not be the user's to
	# reach.  The name cell-oci is what makes it the OCI front door.
	cp "$(realpath "$RL_CELL")" "$tmp/bin/cell"
	ln -s cell "$tmp/bin/cell-oci"
	chmod 755 "$tmp/bin/cell"
	export "${var}_GID=$(id -g "$name")" "${var}_HOME=$tmp/home" "${var}_XDG=$tmp/xdg" \
		"${var}_OCI=$tmp/bin/cell-oci"
}

# as_user VAR CMD...: CMD as the user, with its HOME and XDG_RUNTIME_DIR
# (AS_XDG=DIR another; AS_XDG= none, for the /tmp default), a clean
# environment and its own group only.
as_user() {
	local var=$1 xdg
	shift
	local -n home="${var}_HOME" uidv="${var}_UID" gidv="${var}_GID" xdgv="${var}_XDG"
	xdg=${AS_XDG-$xdgv}
	setpriv --reuid "$uidv" --regid "$gidv" --clear-groups -- \
		env -i HOME="$home" PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		${xdg:+XDG_RUNTIME_DIR="$xdg"} "$@"
}

# rootless_user_del VAR: every process of the user killed (by pid), the
# user and its subordinate ranges removed, its temp dir and its
# /tmp/cell-oci-UID default root removed.
rootless_user_del() {
	local var=$1 pid pids i
	local -n name="${var}_USER" uidv="${var}_UID" tmp="${var}_TMP" sub="${var}_SUBID"
	[ -n "${name:-}" ] || return 0
	if [ -n "${uidv:-}" ] && [ "$uidv" != 0 ]; then
		for ((i = 0; i < 50; i++)); do
			pids=$(pgrep -U "$uidv") || break
			for pid in $pids; do kill -KILL "$pid" 2>/dev/null; done
			sleep 0.1
		done
	fi
	if getent passwd "$name" >/dev/null; then
		# userdel removes them too; by usermod first, which takes the
		# files' locks, so as never to depend on it.
		grep -q "^$name:" /etc/subuid /etc/subgid &&
			usermod --del-subuids "${sub:-0}-$((${sub:-0} + 65535))" \
				--del-subgids "${sub:-0}-$((${sub:-0} + 65535))" "$name"
		userdel "$name" || echo "rootless_user_del: userdel $name failed" >&2
	fi
	if [ -n "${tmp:-}" ] && [ -d "$tmp" ]; then
		rm -rf --one-file-system "$tmp"
	fi
	[ -n "${uidv:-}" ] && rm -rf --one-file-system "/tmp/cell-oci-$uidv"
	name=
}
