# Throwaway users for running cell rootless, from tests that run as root.
#
# rootless_setup makes three users, each with a temp directory of its own
# (its HOME, mode 0700) holding a 0700 runtime directory (run/, its
# XDG_RUNTIME_DIR):
#   RL_USER   (RL_UID, RL_GID)    with subordinate ranges RL_SUB..+65535
#                                 in /etc/subuid and /etc/subgid
#   RL_OTHER  (RL_OTHER_UID)      with ranges of its own: "another user"
#   RL_PLAIN  (RL_PLAIN_UID)      without ranges: the single mapping
# and a copy of the binaries they may execute, $RL_BIN/cell (a root-owned
# 0755 directory: the users can run it, not change it).
#
#   as_user [-u WHO] [-x XDG] CMD...  CMD as RL_USER (WHO: user, other,
#       plain), with a clean environment: HOME, PATH, LANG=C, and
#       XDG_RUNTIME_DIR the user's run/ (-x DIR: that one; -x '': unset)
#   rcell [-u WHO] ARG...   `cell ARG...` so, its state root the default
#   rootless_wrapper WHO FILE [PROGRAM]  writes FILE, an executable that
#       runs PROGRAM (default the copy of cell) with its arguments as WHO,
#       by exec (its pid is the program's: a test may signal or wait for
#       it); with an empty PROGRAM, its first argument is the program.
#
# rootless_teardown undoes all of it, whatever of it was made, even after
# a failure halfway: each user's jails (cell rm -f, as the user), then
# any process left of the user's uid or subordinate ids (by pid), the
# users with their groups and subid lines, the temp directories and the
# /tmp/cell-UID directories of the users' default state roots.
#
# Ranges: 3500000000 + (uid % 10000) * 65536, so two test runs (or two
# helpers' suites) never hand the same host ids to two users.

RL_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RL_NAME_PREFIX=cell-t$$-

# _rl_make_user TAG RANGES: a user NAME=cell-tPID-TAG; prints "NAME UID GID
# HOME SUB" (SUB empty without ranges).  useradd's automatic subordinate
# ranges (SUB_UID_COUNT in login.defs) are turned off: only ours count.
_rl_make_user() {
	local tag=$1 ranges=$2 name=$RL_NAME_PREFIX$1 uid gid home sub=
	useradd -M -U -s /usr/sbin/nologin -K SUB_UID_COUNT=0 -K SUB_GID_COUNT=0 \
		-c "cell rootless test" "$name" >&2 || return 1
	uid=$(id -u "$name") && gid=$(id -g "$name") || return 1
	home=$(mktemp -d "/tmp/cell-rl-$tag.XXXXXX") || return 1
	mkdir -m 0700 "$home/run" && chown -R "$uid:$gid" "$home" && chmod 0700 "$home" || return 1
	if [ "$ranges" = yes ]; then
		sub=$((3500000000 + (uid % 10000) * 65536))
		usermod --add-subuids "$sub-$((sub + 65535))" \
			--add-subgids "$sub-$((sub + 65535))" "$name" >&2 || return 1
	fi
	echo "$name $uid $gid $home $sub"
}

rootless_setup() {
	local line
	RL_BIN=$(mktemp -d /tmp/cell-rl-bin.XXXXXX) || return 1
	chmod 0755 "$RL_BIN"
	cp "$CELL" "$RL_BIN/cell" && ln -s cell "$RL_BIN/cell-oci" && chmod 0755 "$RL_BIN/cell" ||
		return 1
	RL_CELL=$RL_BIN/cell
	# Each user's name is known to teardown before anything else of it.
	RL_USER=${RL_NAME_PREFIX}u RL_OTHER=${RL_NAME_PREFIX}o RL_PLAIN=${RL_NAME_PREFIX}p
	line=$(_rl_make_user u yes) || return 1
	read -r _ RL_UID RL_GID RL_HOME RL_SUB <<<"$line"
	line=$(_rl_make_user o yes) || return 1
	read -r _ RL_OTHER_UID RL_OTHER_GID RL_OTHER_HOME RL_OTHER_SUB <<<"$line"
	line=$(_rl_make_user p no) || return 1
	read -r _ RL_PLAIN_UID RL_PLAIN_GID RL_PLAIN_HOME _ <<<"$line"
	export RL_BIN RL_CELL RL_USER RL_OTHER RL_PLAIN RL_UID RL_GID RL_HOME RL_SUB \
		RL_OTHER_UID RL_OTHER_GID RL_OTHER_HOME RL_OTHER_SUB RL_PLAIN_UID RL_PLAIN_GID \
		RL_PLAIN_HOME
}

# _rl_who WHO: "NAME UID HOME" of user, other or plain.
_rl_who() {
	case $1 in
	user) echo "$RL_USER $RL_UID $RL_HOME" ;;
	other) echo "$RL_OTHER $RL_OTHER_UID $RL_OTHER_HOME" ;;
	plain) echo "$RL_PLAIN $RL_PLAIN_UID $RL_PLAIN_HOME" ;;
	*) echo "as_user: no user '$1'" >&2 && return 1 ;;
	esac
}

as_user() {
	local who=user xdg=unset name uid home
	local -a env
	while [ $# -gt 0 ]; do
		case $1 in
		-u) who=$2 && shift 2 ;;
		-x) xdg=$2 && shift 2 ;;
		*) break ;;
		esac
	done
	read -r name uid home <<<"$(_rl_who "$who")" || return 1
	[ -n "$uid" ] || return 1
	[ "$xdg" = unset ] && xdg=$home/run
	env=(HOME="$home" PATH="$RL_PATH" LANG=C USER="$name" LOGNAME="$name")
	[ -n "$xdg" ] && env+=(XDG_RUNTIME_DIR="$xdg")
	# From a directory the user may enter: cell keeps its working
	# directory, and bats' may be root's alone.
	(cd "$home" && setpriv --reuid "$uid" --regid "$(id -g "$name")" --init-groups \
		env -i "${env[@]}" "$@")
}

rootless_wrapper() {
	local who=$1 file=$2 prog=${3-$RL_CELL} name uid home
	read -r name uid home <<<"$(_rl_who "$who")" || return 1
	cat >"$file" <<-EOF || return 1
		#!/bin/sh
		# $name runs ${prog:-its first argument} (tests/rootless.bash).
		exec setpriv --reuid $uid --regid $(id -g "$name") --init-groups \\
			env -i HOME=$home PATH=$RL_PATH LANG=C USER=$name LOGNAME=$name \\
			XDG_RUNTIME_DIR=$home/run $prog "\$@"
	EOF
	chmod 0755 "$file"
}

rcell() {
	local -a opts=()
	while [ $# -gt 0 ]; do
		case $1 in
		-u | -x) opts+=("$1" "$2") && shift 2 ;;
		*) break ;;
		esac
	done
	as_user "${opts[@]}" "$RL_CELL" "$@"
}

# _rl_leftovers UID [SUB]: the pids of the live processes (not zombies)
# whose real uid is UID or in SUB..SUB+65535 (a jail's subordinate ids).
_rl_leftovers() {
	local uid=$1 sub=${2:-}
	awk -v uid="$uid" -v lo="${sub:--1}" '
		FNR == 1 { ruid = ""; state = "" }
		/^State:/ { state = $2 }
		/^Uid:/ { ruid = $2 + 0
			if (state != "Z" && (ruid == uid || (lo >= 0 && ruid >= lo && ruid <= lo + 65535))) {
				f = FILENAME; sub(/^\/proc\//, "", f); sub(/\/status$/, "", f); print f }
			nextfile }' /proc/[0-9]*/status 2>/dev/null
}

# _rl_kill_ids UID [SUB]: waits (3 s at most) for those processes to end
# by themselves (a jail's last ones being reaped); the rest get SIGKILL,
# by pid, and it returns 1: something outlived what should have ended it.
_rl_kill_ids() {
	local uid=$1 sub=${2:-} i pids
	for ((i = 0; i < 30; i++)); do
		pids=$(_rl_leftovers "$uid" "$sub")
		[ -z "$pids" ] && return 0
		sleep 0.1
	done
	for ((i = 0; i < 30; i++)); do
		pids=$(_rl_leftovers "$uid" "$sub")
		[ -z "$pids" ] && break
		# shellcheck disable=SC2086 # a list of pids
		kill -KILL $pids 2>/dev/null
		sleep 0.1
	done
	echo "processes of uid $uid left running (killed): $pids" >&2
	return 1
}

# _rl_remove_user WHO NAME UID SUB HOME: its jails, processes, subid lines,
# the user and its group, its directories.  Returns 1 if a jail or a
# process outlived it (the rest is still removed).
_rl_remove_user() {
	local who=$1 name=$2 uid=$3 sub=$4 home=$5 jail ret=0
	id -u "$name" >/dev/null 2>&1 || return 0
	if [ -n "$uid" ] && [ -x "${RL_CELL:-}" ]; then
		for jail in $(rcell -u "$who" ls -aq 2>/dev/null); do
			rcell -u "$who" rm -f "$jail" >/dev/null 2>&1 || ret=1
		done
		for jail in $(rcell -u "$who" -x '' ls -aq 2>/dev/null); do
			rcell -u "$who" -x '' rm -f "$jail" >/dev/null 2>&1 || ret=1
		done
	fi
	if [ -n "$uid" ]; then
		_rl_kill_ids "$uid" "$sub" || ret=1
	fi
	if [ -n "$sub" ]; then
		usermod --del-subuids "$sub-$((sub + 65535))" \
			--del-subgids "$sub-$((sub + 65535))" "$name" 2>/dev/null || true
	fi
	userdel "$name" 2>/dev/null || userdel -f "$name" || ret=1
	# A user removed by name may have kept a line of subids: never left.
	sed -i "/^$name:/d" /etc/subuid /etc/subgid
	[ -n "$home" ] && rm -rf --one-file-system "$home"
	[ -n "$uid" ] && rm -rf --one-file-system "/tmp/cell-$uid"
	return $ret
}

rootless_teardown() {
	local ret=0
	[ -n "${RL_USER:-}" ] || return 0
	_rl_remove_user user "$RL_USER" "${RL_UID:-}" "${RL_SUB:-}" "${RL_HOME:-}" || ret=1
	_rl_remove_user other "$RL_OTHER" "${RL_OTHER_UID:-}" "${RL_OTHER_SUB:-}" \
		"${RL_OTHER_HOME:-}" || ret=1
	_rl_remove_user plain "$RL_PLAIN" "${RL_PLAIN_UID:-}" "" "${RL_PLAIN_HOME:-}" || ret=1
	[ -n "${RL_BIN:-}" ] && rm -rf "$RL_BIN"
	return $ret
}

# rootless_reset WHO...: between tests, each user's jails removed (as the
# user), processes ended by pid; fails if anything outlived cell rm -f.
rootless_reset() {
	local who name uid home sub jail ret=0
	for who in "$@"; do
		read -r name uid home <<<"$(_rl_who "$who")"
		case $who in user) sub=$RL_SUB ;; other) sub=$RL_OTHER_SUB ;; *) sub= ;; esac
		for jail in $(rcell -u "$who" ls -aq 2>/dev/null) $(rcell -u "$who" -x '' ls -aq 2>/dev/null); do
			rcell -u "$who" rm -f "$jail" >/dev/null 2>&1 ||
				rcell -u "$who" -x '' rm -f "$jail" >/dev/null 2>&1 || ret=1
		done
		_rl_kill_ids "$uid" "$sub" || ret=1
		rm -rf --one-file-system "/tmp/cell-$uid"
	done
	return $ret
}
