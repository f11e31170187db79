# shellcheck shell=bash
# `ip netns add` makes /run/netns a mount point (a shared bind mount of
# itself) the first time it runs, and `ip netns del` leaves it: a change to
# the host's mounts.  A suite or benchmark that names namespaces notes
# whether the mount was there before it (netns_mount_note) and takes it
# back when it made it and no namespace is left in it (netns_mount_restore).
netns_mount_note() {
	if mountpoint -q /run/netns 2>/dev/null; then
		NETNS_MOUNT_BEFORE=1
	else
		NETNS_MOUNT_BEFORE=0
	fi
	export NETNS_MOUNT_BEFORE
}

netns_mount_restore() {
	[ "${NETNS_MOUNT_BEFORE:-1}" = 0 ] || return 0
	[ -z "$(ls -A /run/netns 2>/dev/null)" ] || return 0
	if mountpoint -q /run/netns 2>/dev/null; then
		umount /run/netns 2>/dev/null || true
	fi
	return 0
}
