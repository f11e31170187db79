/*
 * uts.h - a jail's hostname and domainname (its UTS namespace).
 */
#ifndef CELL_UTS_H
#define CELL_UTS_H

#include "err.h"
#include "spec.h"

/* In the jail's new UTS namespace: sets the names of the spec.  The
 * sysname, release, version and machine stay the host's (the kernel
 * copies them into the namespace; the UTS seed, patch 2). */
int uts_apply(const struct jail_spec *s, struct cell_err *e);

#endif
