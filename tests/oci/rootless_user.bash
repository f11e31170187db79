# Throwaway users for the rootless tests (tests/oci/rootless.bats,
# tests/engines/podman-rootless.bats), made and removed by the tests, on
# tests/rootless.bash's throwaway_user_* functions.
#
# rootless_user_add makes a user with its own group and one range of
# 65536 subordinate uids and gids that no other line of /etc/subuid or
# /etc/subgid overlaps, its HOME and 0700 XDG_RUNTIME_DIR in a temp dir
# of its own, and a temp dir ($VAR_TMP, world-traversable, in /tmp) for
# the tests' files holding a copy of cell, so that nothing the user runs
# needs to reach into root's dirs.  rootless_user_del kills every
# process of the user and of its subordinate ids (by pid), removes its
# subordinate ranges, the user and its temp dirs; it is safe to call
# twice or after a half-made user.

# shellcheck source=../rootless.bash
source "$(dirname "${BASH_SOURCE[0]}")/../rootless.bash"

# The cell binary the users run (build/cell, called as cell-oci).
RL_CELL=${CELL_OCI:-$BATS_TEST_DIRNAME/../../build/cell-oci}

# rootless_user_add VAR: a new user; VAR_USER, VAR_UID, VAR_GID, VAR_TMP,
# VAR_HOME, VAR_XDG, VAR_SUBID (the first subordinate id) and VAR_OCI
# (its cell-oci) are exported.  VAR_USER is set first, so that a
# failure half-way leaves a name for rootless_user_del.
rootless_user_add() {
	local var=$1 tmp sub
	throwaway_user_add "$var" "$(printf %s "$var" | tr 'A-Z_' 'a-z-')" || return 1
	sub=${var}_SUB
	export "${var}_SUBID=${!sub}"
	tmp=$(mktemp -d "/tmp/cell-rootless-$var.XXXXXX") || return 1
	export "${var}_TMP=$tmp"
	chmod 755 "$tmp"
	mkdir -p "$tmp/bin"
	# A copy, not the build's own: its dirs may not be the user's to
	# reach.  The name cell-oci is what makes it the OCI front door.
	cp "$(realpath "$RL_CELL")" "$tmp/bin/cell"
	ln -s cell "$tmp/bin/cell-oci"
	chmod 755 "$tmp/bin/cell"
	export "${var}_OCI=$tmp/bin/cell-oci"
}

# as_user VAR CMD...: CMD as the user, with its HOME and XDG_RUNTIME_DIR
# (AS_XDG=DIR another; AS_XDG= none, for the /tmp default).
as_user() {
	local var=$1 xdg
	shift
	xdg=${var}_XDG
	throwaway_as "$var" "${AS_XDG-${!xdg}}" "$@"
}

# rootless_user_del VAR: every process of the user killed (by pid, at
# once: the tests have ended theirs), the user and its subordinate
# ranges removed, its temp dirs and its /tmp/cell-oci-UID default root
# removed.
rootless_user_del() {
	local var=$1 tmp
	tmp=${var}_TMP
	tmp=${!tmp:-}
	throwaway_user_del "$var" 0 || true
	if [ -n "$tmp" ] && [ -d "$tmp" ]; then
		rm -rf --one-file-system "$tmp"
	fi
	export "${var}_TMP="
}
