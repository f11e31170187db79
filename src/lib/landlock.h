/*
 * landlock.h - Landlock scoping of a jail (signals, abstract unix sockets).
 */
#ifndef CELL_LANDLOCK_H
#define CELL_LANDLOCK_H

#include "err.h"

/* The Landlock ABI of the running kernel, 0 when Landlock is off. */
int landlock_abi(void);

/* True when the kernel can scope signals and abstract unix sockets
 * (ABI >= 6). */
int landlock_can_scope(void);

/* The scopes, as landlock_scope() takes them. */
#define LANDLOCK_SCOPE_ABSTRACT 0x1U /* abstract unix sockets */
#define LANDLOCK_SCOPE_SIGNALS	0x2U /* signals */

/*
 * Puts the calling process (and its future children) in a Landlock domain
 * that may not, for each scope in SCOPES, signal or connect to an
 * abstract unix socket of any process outside it.  Needs no_new_privs.
 * No SCOPES, or a kernel without them, is not an error: *applied is set
 * to 0 and the namespaces remain the only fence (inspect says so).
 */
int landlock_scope(unsigned int scopes, int *applied, struct cell_err *e);

#endif
