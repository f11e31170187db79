/*
 * untrusted.h - reading files a jail controls.
 *
 * cell never waits on what a jail controls: a path inside a jail may be
 * a FIFO (an open for reading waits for a writer, for ever), a device,
 * a symlink, or a file of any size.  Such files are opened without
 * blocking, checked to be regular files, and read up to a bound.
 */
#ifndef CELL_UNTRUSTED_H
#define CELL_UNTRUSTED_H

#include <stddef.h>

#include "err.h"

/* Flags of untrusted_read(). */
enum {
	/* A final symlink is refused (ELOOP): for paths that must not
	 * lead elsewhere.  Without it a symlink is followed, which only
	 * the jail's own files can be reached by once cell stands in the
	 * jail's root. */
	UNTRUSTED_NOFOLLOW = 1 << 0,
};

/*
 * Reads PATH (relative to DIRFD, or AT_FDCWD) into *TEXT, a heap buffer
 * with a NUL after its *LEN bytes, opened O_NONBLOCK (a FIFO's open does
 * not wait) and accepted only when fstat() says it is a regular file of
 * at most MAX bytes (a file that grows past MAX meanwhile too).  Errors:
 * errno as the open gave it (ENOENT...), EINVAL when not a regular file,
 * EFBIG when larger than MAX.
 */
int untrusted_read(int dirfd, const char *path, int flags, size_t max, char **text, size_t *len,
		   struct cell_err *e);

#endif
