/*
 * rootless.h - cell without privilege over the host.
 *
 * A cell that lacks CAP_SYS_ADMIN in the initial user namespace (a plain
 * user; or uid 0 inside someone else's user namespace, as rootless
 * podman runs its runtime) is *rootless*.  A plain user's cell first
 * makes a user namespace of its own and has it mapped (rootless_enter()),
 * then launches as that namespace's root: every namespace, mount and
 * file it then makes is owned by it, and nothing reaches beyond what the
 * user could do on the host.  The jail's processes live in that user
 * namespace; a later command on a running jail joins it first
 * (rootless_join()), for its processes may run as subordinate ids the
 * user cannot signal or trace from the host's.
 *
 * The mappings: with newuidmap/newgidmap (Debian's uidmap) and ranges of
 * the user's in /etc/subuid and /etc/subgid, the jail's 0 is the user's
 * id and 1..65535 the first 65535 subordinate ids (podman's layout: what
 * the jail's root writes into a bound directory is the user's); without
 * them, the single mapping "0 UID 1", with setgroups(2) denied.
 */
#ifndef CELL_ROOTLESS_H
#define CELL_ROOTLESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "spec.h"

/* How the ids of a rootless cell's user namespace map to the host's. */
enum rootless_mapping {
	ROOTLESS_NO,	    /* not rootless: the host's root */
	ROOTLESS_INHERITED, /* already root of a user namespace it was given */
	ROOTLESS_SINGLE,    /* 0 -> the user's id, nothing else */
	ROOTLESS_RANGE,	    /* 0 -> the user's id, 1.. -> subordinate ids */
	ROOTLESS_GIVEN,	    /* the maps of an OCI config */
};

/* Ids a rootless jail maps by default: 0..65535. */
#define ROOTLESS_IDS 65536U

/* Whether this process lacks CAP_SYS_ADMIN in the initial user
 * namespace (computed once). */
bool rootless(void);

/* What rootless_enter() did (ROOTLESS_NO before it, or when not
 * rootless; ROOTLESS_INHERITED when it found itself root already). */
enum rootless_mapping rootless_mapping(void);
const char *rootless_mapping_name(enum rootless_mapping m);

/* Whether GID (of this process's user namespace) maps to a host gid. */
bool rootless_gid_mapped(gid_t gid);

/* setgroups(2), where dropping every supplementary group (N 0) in a user
 * namespace that refuses setgroups (a rootless jail's single mapping) is
 * no error: the process keeps the user's own host groups, which map to
 * nothing there and give it nothing the user lacks on the host (runc's
 * rootless containers do the same).  0, or -1 with errno. */
int rootless_setgroups(size_t n, const gid_t *groups);

/*
 * A rootless cell's user namespace: unshares one and maps it, then drops
 * the supplementary groups where it may.  UID_MAP/GID_MAP (N entries
 * each; NULL: the default maps above) are an OCI config's.  Nothing when
 * not rootless or already root (uid 0 with CAP_SYS_ADMIN in the user
 * namespace it is in).  The process must be single-threaded.
 */
int rootless_enter(const struct jail_idmap *uid_map, size_t nuid, const struct jail_idmap *gid_map,
		   size_t ngid, struct cell_err *e);

/* A rootless cell's command on the running jail whose first process is
 * PID: joins its user namespace (nothing when not rootless, or when it is
 * the one this process is in). */
int rootless_join(pid_t pid, struct cell_err *e);

/*
 * The default state root of a rootless TOOL ("cell", "cell-oci"):
 * $XDG_RUNTIME_DIR/TOOL when that is an absolute path, else
 * /tmp/TOOL-UID.  Into BUF (N bytes).
 */
int rootless_state_root(const char *tool, char *buf, size_t n, struct cell_err *e);

/* A rootless cell's state root, open as FD at PATH, must be the user's
 * own: a directory owned by its uid that no one else may write (a
 * directory another user made for it in /tmp is refused). */
int rootless_check_root(int fd, const char *path, struct cell_err *e);

/* The subordinate range of USER (name) or UID in the text of
 * /etc/subuid or /etc/subgid (LEN bytes): the first line of at least
 * WANT ids, else the largest.  1: found (*START, *COUNT), 0: none. */
int rootless_subids(const char *text, size_t len, const char *user, uid_t uid, unsigned int want,
		    unsigned long *start, unsigned long *count);

#endif
