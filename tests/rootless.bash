# Throwaway users for running cell rootless, from tests that run as root
# (tests/integration/rootless.bats, policy.bats's rootless run,
# tests/bench/rootless.sh; slirp.bats's rootless user and
# tests/oci/rootless_user.bash, the OCI suite's and rootless podman's,
# are made on the same functions).
#
# The one user at a time, named by a variable prefix VAR:
#   throwaway_user_add VAR TAG [no]  a user cell-tPID-TAG with its own
#       group, no login, no subordinate ids but ours; VAR_USER (set
#       first: a half-made user can be removed), VAR_UID, VAR_GID,
#       VAR_HOME (a 0700 temp dir of the user's), VAR_XDG ($VAR_HOME/run,
#       0700) and VAR_SUB, the first of its 65536 subordinate uids and
#       gids (empty with "no": no ranges) are exported
#   throwaway_as VAR XDG CMD...  CMD as the user, in a clean environment
#       (HOME, PATH, LANG=C, USER, LOGNAME, XDG_RUNTIME_DIR=XDG unless
#       XDG is empty), its own group only
#   throwaway_argv VAR XDG  TU_ARGV, the command line throwaway_as runs
#       CMD with (for a caller that must put something before it: nsenter)
#   throwaway_user_del VAR [GRACE]  removes whatever of it was made: any
#       process of its uid or subordinate ids (after GRACE tenths of a
#       second to end by themselves, default 30; returns 1 when one had
#       to be killed), its subid lines, the user and its group, VAR_HOME
#       and its default state roots /tmp/cell-UID and /tmp/cell-oci-UID;
#       safe to call twice
#
# On them, rootless_setup makes three users for the jail CLI's tests,
# each with a temp directory of its own (its HOME, mode 0700) holding a
# 0700 runtime directory (run/, its XDG_RUNTIME_DIR):
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
# Ranges: blocks of 65536 in 3000000000..3655360000, the first after
# 3000000000 + (uid % 10000) * 65536 that no line of /etc/subuid or
# /etc/subgid overlaps, so two test runs (or two suites) never hand the
# same host ids to two users.

RL_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
RL_NAME_PREFIX=cell-t$$-

# _rl_overlaps FILE START: true when a line of FILE holds an id of
# START..START+65535.
_rl_overlaps() {
	awk -F: -v s="$2" '$2 + 0 < s + 65536 && $2 + $3 > s { found = 1 } END { exit !found }' "$1"
}

# _rl_free_range UID: prints the first id of a free block for the user.
_rl_free_range() {
	local uid=$1 i start
	for ((i = 0; i < 10000; i += 97)); do
		start=$((3000000000 + ((uid + i) % 10000) * 65536))
		_rl_overlaps /etc/subuid "$start" || _rl_overlaps /etc/subgid "$start" ||
			{ echo "$start" && return 0; }
	done
	echo "no free subordinate range for uid $uid" >&2
	return 1
}

# useradd's automatic subordinate ranges (SUB_UID_COUNT in login.defs)
# are turned off: only ours count.
throwaway_user_add() {
	local var=$1 tag=$2 ranges=${3:-yes} name uid gid home sub=
	name=$RL_NAME_PREFIX$tag
	name=${name:0:31}
	export "${var}_USER=$name"
	useradd -M -U -s /usr/sbin/nologin -K SUB_UID_COUNT=0 -K SUB_GID_COUNT=0 \
		-c "cell rootless test" "$name" >&2 || return 1
	uid=$(id -u "$name") && gid=$(id -g "$name") || return 1
	export "${var}_UID=$uid" "${var}_GID=$gid"
	home=$(mktemp -d "/tmp/cell-rl-$tag.XXXXXX") || return 1
	export "${var}_HOME=$home" "${var}_XDG=$home/run"
	mkdir -m 0700 "$home/run" && chown -R "$uid:$gid" "$home" && chmod 0700 "$home" || return 1
	if [ "$ranges" != no ]; then
		sub=$(_rl_free_range "$uid") || return 1
		export "${var}_SUB=$sub"
		usermod --add-subuids "$sub-$((sub + 65535))" \
			--add-subgids "$sub-$((sub + 65535))" "$name" >&2 || return 1
	fi
	export "${var}_SUB=$sub"
}

throwaway_as() {
	local -a TU_ARGV
	throwaway_argv "$1" "$2" || return 1
	shift 2
	"${TU_ARGV[@]}" "$@"
}

throwaway_argv() {
	local var=$1 xdg=$2 name uid gid home
	name=${var}_USER uid=${var}_UID gid=${var}_GID home=${var}_HOME
	name=${!name:-} uid=${!uid:-} gid=${!gid:-} home=${!home:-}
	[ -n "$uid" ] || { echo "throwaway_as: no user $var" >&2 && return 1; }
	TU_ARGV=(setpriv --reuid "$uid" --regid "$gid" --init-groups
		env -i HOME="$home" PATH="$RL_PATH" LANG=C USER="$name" LOGNAME="$name")
	[ -z "$xdg" ] || TU_ARGV+=(XDG_RUNTIME_DIR="$xdg")
}

throwaway_user_del() {
	local var=$1 grace=${2:-30} name uid sub home ret=0
	name=${var}_USER uid=${var}_UID sub=${var}_SUB home=${var}_HOME
	name=${!name:-} uid=${!uid:-} sub=${!sub:-} home=${!home:-}
	[ -n "$name" ] || return 0
	if id -u "$name" >/dev/null 2>&1; then
		if [ -n "$uid" ]; then
			_rl_kill_ids "$uid" "$sub" "$grace" || ret=1
		fi
		if [ -n "$sub" ]; then
			usermod --del-subuids "$sub-$((sub + 65535))" \
				--del-subgids "$sub-$((sub + 65535))" "$name" 2>/dev/null || true
		fi
		userdel "$name" 2>/dev/null || userdel -f "$name" || ret=1
	fi
	# A user removed by name may have kept a line of subids: never left.
	if grep -qs "^$name:" /etc/subuid /etc/subgid; then
		sed -i "/^$name:/d" /etc/subuid /etc/subgid
	fi
	[ -n "$home" ] && rm -rf --one-file-system "$home"
	[ -n "$uid" ] && rm -rf --one-file-system "/tmp/cell-$uid" "/tmp/cell-oci-$uid"
	export "${var}_USER="
	return $ret
}

rootless_setup() {
	RL_BIN=$(mktemp -d /tmp/cell-rl-bin.XXXXXX) || return 1
	chmod 0755 "$RL_BIN"
	cp "$CELL" "$RL_BIN/cell" && ln -s cell "$RL_BIN/cell-oci" && chmod 0755 "$RL_BIN/cell" ||
		return 1
	RL_CELL=$RL_BIN/cell
	# Each user's name is known to teardown before anything else of it.
	RL_USER=${RL_NAME_PREFIX}u RL_OTHER=${RL_NAME_PREFIX}o RL_PLAIN=${RL_NAME_PREFIX}p
	export RL_BIN RL_CELL RL_USER RL_OTHER RL_PLAIN
	throwaway_user_add RL u || return 1
	throwaway_user_add RL_OTHER o || return 1
	throwaway_user_add RL_PLAIN p no || return 1
}

# _rl_var WHO: the variable prefix of user, other or plain.
_rl_var() {
	case $1 in user) echo RL ;; other) echo RL_OTHER ;; plain) echo RL_PLAIN ;; esac
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
	# From a directory the user may enter: cell keeps its working
	# directory, and bats' may be root's alone.
	(cd "$home" && throwaway_as "$(_rl_var "$who")" "$xdg" "$@")
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

# _rl_kill_ids UID [SUB [GRACE]]: waits (GRACE tenths of a second, 30
# unless told) for those processes to end by themselves (a jail's last
# ones being reaped); the rest get SIGKILL, by pid, and it returns 1:
# something outlived what should have ended it.
_rl_kill_ids() {
	local uid=$1 sub=${2:-} grace=${3:-30} i pids killed=
	for ((i = 0; ; i++)); do
		pids=$(_rl_leftovers "$uid" "$sub")
		[ -z "$pids" ] && return 0
		[ "$i" -ge "$grace" ] && break
		sleep 0.1
	done
	for ((i = 0; i < 30; i++)); do
		pids=$(_rl_leftovers "$uid" "$sub")
		[ -z "$pids" ] && break
		killed+=" $pids"
		# shellcheck disable=SC2086 # a list of pids
		kill -KILL $pids 2>/dev/null
		sleep 0.1
	done
	echo "processes of uid $uid left running (killed):$killed" >&2
	return 1
}

# _rl_remove_user WHO: its jails (as the user, on both default roots),
# then the user (throwaway_user_del).  Returns 1 if a jail or a process
# outlived it (the rest is still removed).
_rl_remove_user() {
	local who=$1 var jail uid ret=0
	var=$(_rl_var "$who")
	uid=${var}_UID
	uid=${!uid:-}
	if [ -n "$uid" ] && [ -x "${RL_CELL:-}" ] && id -u "$uid" >/dev/null 2>&1; then
		for jail in $(rcell -u "$who" ls -aq 2>/dev/null); do
			rcell -u "$who" rm -f "$jail" >/dev/null 2>&1 || ret=1
		done
		for jail in $(rcell -u "$who" -x '' ls -aq 2>/dev/null); do
			rcell -u "$who" -x '' rm -f "$jail" >/dev/null 2>&1 || ret=1
		done
	fi
	throwaway_user_del "$var" || ret=1
	return $ret
}

rootless_teardown() {
	local ret=0
	[ -n "${RL_BIN:-}" ] || return 0
	_rl_remove_user user || ret=1
	_rl_remove_user other || ret=1
	_rl_remove_user plain || ret=1
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
