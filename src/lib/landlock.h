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

/*
 * Puts the calling process (and its future children) in a Landlock domain
 * that may neither signal nor connect to an abstract unix socket of any
 * process outside it.  Needs no_new_privs.  A kernel without the scopes
 * is not an error: *applied is set to 0 and the namespaces remain the
 * only fence (inspect says so).
 */
int landlock_scope(int *applied, struct cell_err *e);

#endif
