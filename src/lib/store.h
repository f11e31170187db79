/*
 * store.h - the state store: one directory per jail under the state root.
 *
 *   <root>/<name>/state.json   the jail's record, replaced atomically
 *   <root>/<name>/jid          its JID: made empty before the rename (the
 *                              proof the directory is cell's), written once
 *                              the name is in place, under the root's lock
 *   <root>/<name>/log.N        a detached jail's log, its reaper's ring of
 *                              files (logfile.h); "log": an older cell's
 *   <root>/<name>/exit         its exit status, written by its reaper
 *   <root>/<name>/restarts     how often the reaper restarted its command
 *   <root>/.jid.<N>.<name>     a symlink: JID N is name's (one listing of
 *                              the root finds the JIDs in use)
 *
 * cell acts only on what it can prove it made: a directory of the root
 * is a jail's only when it holds a regular "jid" file, which the creator
 * makes before the directory gets its name; the root's other entries
 * (a user's directories, another tool's state) are never listed, opened,
 * tidied or removed.
 *
 * Every operation on a jail holds an flock on its directory.  A new
 * jail's directory is made under a temporary name, locked, and renamed
 * into place with RENAME_NOREPLACE, so a directory with a jail's name
 * exists only once its creator holds the lock: two `cell run --name x`
 * racing cannot both win.
 */
#ifndef CELL_STORE_H
#define CELL_STORE_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"

struct store_jail {
	int dirfd; /* the jail's directory, flocked (LOCK_EX) */
	char *name;
	int jid;     /* small integer, unique among the root's jails */
	bool locked; /* dirfd holds the flock */
	/* The state.json this handle last wrote (inode, modification
	 * time): store_jail_rewritten() tells whether another has since. */
	unsigned long long written_ino;
	struct timespec written_mtime;
};

/* Called by store_jail_create() on the locked directory DIRFD of an
 * existing jail NAME: 0 when it was removed (the name is free again),
 * -1 with errno EEXIST when the jail is still there. */
typedef int (*store_reap_fn)(int rootfd, int dirfd, const char *name, void *ctx);

/* Opens (creating, mode 0700) the state root.  For a rootless cell
 * (rootless.h) both opens refuse a root that is not the user's own or
 * that others may write (errno EPERM). */
int store_open_root(const char *root, int *rootfd, struct cell_err *e);
/* Opens the state root if it exists (*ROOTFD -1 when it does not): for
 * the commands that only read or remove, which never create it. */
int store_open_root_existing(const char *root, int *rootfd, struct cell_err *e);

/* Creates and locks the directory of a new jail NAME, with the lowest
 * JID no other directory holds.  A name in use is an error (errno
 * EEXIST): REAP decides whether an existing jail's directory may go (NULL:
 * only when its record is missing or names a dead process). */
int store_jail_create(int rootfd, const char *name, store_reap_fn reap, void *ctx,
		      struct store_jail *j, struct cell_err *e);

/* Opens and locks (LOCK_EX, waiting) the directory of existing jail
 * NAME; the lock is taken on the directory that still holds the name, so
 * a jail removed and made again meanwhile is never mistaken for the old
 * one.  errno ENOENT when there is no such jail. */
int store_jail_open(int rootfd, const char *name, struct store_jail *j, struct cell_err *e);

/* The same without waiting: -1 with errno EWOULDBLOCK when another
 * command holds it. */
int store_jail_trylock(int rootfd, const char *name, struct store_jail *j);

/* Releases the lock but keeps the directory open. */
void store_jail_unlock(struct store_jail *j);
/* Takes the lock again; -1 with errno ENOENT when the directory has been
 * removed (or replaced) while unlocked. */
int store_jail_relock(int rootfd, struct store_jail *j);

/* Names of the jails in the root (directories proven cell's), sorted;
 * *n of them.  The array and its
 * strings are heap copies (store_names_free()). */
int store_list(int rootfd, char ***names, size_t *n, struct cell_err *e);
void store_names_free(char **names, size_t n);

/* The name of the jail whose JID is WORD, a word of digits only, into
 * NAME (SIZE bytes): 1 when there is one, 0 when WORD is no JID of a
 * jail of the root (or not digits).  Front doors try a word of digits
 * as a JID first (`cell exec 3 sh`, as jexec). */
int store_jid_name(int rootfd, const char *word, char *name, size_t size);

/* Replaces state.json with STATE (write to a temporary file, rename). */
int store_jail_write(struct store_jail *j, json_t *state, struct cell_err *e);

/* False when state.json is still the one J last wrote (no other command
 * has replaced it since: each write is a new file renamed into place);
 * true when it was replaced, or J wrote none. */
bool store_jail_rewritten(const struct store_jail *j);

/* Reads state.json of an open jail; NULL when absent or malformed. */
json_t *store_jail_read(struct store_jail *j);

/* Reads NAME's state.json without taking its lock: the record is only
 * ever replaced by rename(), so a reader sees the old one or the new
 * one.  NULL with errno ENOENT when there is no such jail. */
json_t *store_jail_peek(int rootfd, const char *name);

/* Removes the jail's directory (if it still holds the name) and
 * releases it. */
int store_jail_remove(int rootfd, struct store_jail *j, struct cell_err *e);

/* Releases the lock and descriptor without removing anything. */
void store_jail_close(struct store_jail *j);

#endif
