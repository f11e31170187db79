/*
 * set.h - changing a running jail.
 */
#ifndef CELL_SET_H
#define CELL_SET_H

#include <stddef.h>

#include "err.h"

/*
 * Applies PARAMS ("name=value": hostname, domainname and every limit) to
 * the running jail NAME of STATE_ROOT, live, and records them.  Unknown
 * parameters, ones fixed at the start (path, net...), bad values and
 * values that cannot be applied are errors; then nothing has changed.
 */
int jail_set(const char *state_root, const char *name, char *const *params, size_t n,
	     struct cell_err *e);

#endif
