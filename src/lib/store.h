/*
 * store.h - the state store: one directory per jail under the state root.
 *
 *   <root>/<name>/state.json   the jail's record, replaced atomically
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
};

/* Opens (creating, mode 0700) the state root. */
int store_open_root(const char *root, int *rootfd, struct cell_err *e);

/* Creates and locks the directory of a new jail NAME.  A name held by a
 * live jail is an error (errno EEXIST); the leftovers of a dead one are
 * removed first. */
int store_jail_create(int rootfd, const char *name, struct store_jail *j, struct cell_err *e);

/* Replaces state.json with STATE (write to a temporary file, rename). */
int store_jail_write(struct store_jail *j, json_t *state, struct cell_err *e);

/* Reads state.json of an open jail; NULL when absent or malformed. */
json_t *store_jail_read(struct store_jail *j);

/* Reads NAME's state.json without taking its lock: the record is only
 * ever replaced by rename(), so a reader sees the old one or the new
 * one.  NULL with errno ENOENT when there is no such jail. */
json_t *store_jail_peek(int rootfd, const char *name);

/* Removes the jail's directory and releases it. */
int store_jail_remove(int rootfd, struct store_jail *j, struct cell_err *e);

/* Releases the lock and descriptor without removing anything. */
void store_jail_close(struct store_jail *j);

#endif
