/*
 * idrange.h - the host ids a jail's user namespace maps to.
 *
 * A jail with a user namespace of its own maps its ids 0..65535 to a
 * range of 65536 host uids and gids that no host user and no other
 * running jail holds, whatever its state root.  See idrange.c.
 */
#ifndef CELL_IDRANGE_H
#define CELL_IDRANGE_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"

#define IDRANGE_SIZE 65536U /* ids of one jail: 0..65535 inside */

/* The built-in pool, when /etc/subuid and /etc/subgid give cell none:
 * [2^30, 2^31), 16384 ranges, far above the ids of users and of the
 * usual subordinate ranges (which start at 100000). */
#define IDRANGE_DEFAULT_BASE  1073741824U
#define IDRANGE_DEFAULT_COUNT 1073741824U

/* The machine's held ranges: one file each (never inside a state root:
 * jails of different roots must never share a range). */
#define IDRANGE_DIR "/run/cell-ids"

/* One jail's range: its id N is host uid uid + N and gid gid + N. */
struct idrange {
	uid_t uid;
	gid_t gid;
	unsigned int count; /* IDRANGE_SIZE; 0: no range */
};

/* Where ranges are taken from. */
struct idpool {
	uid_t uid;
	gid_t gid;
	unsigned int count; /* ids in the pool, the same for uids and gids */
	bool subids;	    /* from cell's entries in /etc/subuid, /etc/subgid */
};

/* The pool: cell's entries of SUBUID and SUBGID (user "cell"), else the
 * built-in one, refused when an entry of SUBUID or SUBGID, a user of
 * PASSWD or a group of GROUP lies in it.  Paths for the unit tests; the
 * launch reads the files of /etc. */
int idrange_pool(const char *subuid, const char *subgid, const char *passwd, const char *group,
		 struct idpool *p, struct cell_err *e);

/* Takes a range of POOL for the jail NAME of STATE_ROOT whose state
 * directory is JAIL_DIRFD, in the directory SLOTS (IDRANGE_DIR, made if
 * missing; the caller holds no lock). */
int idrange_take(const char *slots, const struct idpool *pool, const char *state_root,
		 const char *name, int jail_dirfd, struct idrange *r, struct cell_err *e);

/* idrange_pool() from /etc, then idrange_take() in IDRANGE_DIR. */
int idrange_acquire(const char *state_root, const char *name, int jail_dirfd, struct idrange *r,
		    struct cell_err *e);

/* Gives range R back, if the jail whose state directory is JAIL_DIRFD
 * still holds it (a stale range taken over meanwhile is another jail's
 * now).  Best effort: nothing to report to a jail's removal. */
void idrange_release_in(const char *slots, const struct idrange *r, int jail_dirfd);
void idrange_release(const struct idrange *r, int jail_dirfd);
/* The same for a jail without a record (a start killed before it wrote
 * one): every range whose owner is JAIL_DIRFD's directory, found by
 * reading each held one (cleanup only). */
void idrange_release_owner_in(const char *slots, int jail_dirfd);
void idrange_release_owner(int jail_dirfd);

/* The record's "idmap": {"uid_map": "0 UID COUNT", "gid_map": "0 GID COUNT"}
 * (/proc/PID/uid_map's words), or null for no range. */
json_t *idrange_to_json(const struct idrange *r);
/* The range of a record's "idmap"; count 0 when it has none. */
void idrange_from_json(const json_t *j, struct idrange *r);

#endif
