/*
 * cleanup.h - scope-bound release of resources.
 *
 * A variable declared `cleanup_free char *p = NULL;` is freed, and one
 * declared `cleanup_close int fd = -1;` is closed, when it goes out of
 * scope, so early returns cannot leak.  Use take_fd()/take_ptr() to hand
 * ownership out of the scope.
 */
#ifndef CELL_CLEANUP_H
#define CELL_CLEANUP_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_free_fn(void *p)
{
	free(*(void **)p);
}

static inline void cleanup_close_fn(int *fd)
{
	if (*fd >= 0) {
		int saved = errno; /* close() must not clobber the caller's errno */
		close(*fd);
		errno = saved;
	}
}

#define cleanup_free  __attribute__((cleanup(cleanup_free_fn)))
#define cleanup_close __attribute__((cleanup(cleanup_close_fn)))

static inline int take_fd(int *fd)
{
	int r = *fd;
	*fd = -1;
	return r;
}

static inline void *take_ptr(void *pp)
{
	void *r = *(void **)pp;
	*(void **)pp = NULL;
	return r;
}

#endif
