/*
 * caps.h - a jail's capability sets (libcap).
 */
#ifndef CELL_CAPS_H
#define CELL_CAPS_H

#include <stdint.h>

#include "err.h"

#define CAPS_BIT(c) (1ULL << (c))

/* Drops every capability not in KEEP from the bounding set, so that no
 * execve (of a file with capabilities, say) can ever gain it back. */
int caps_drop_bounding(uint64_t keep, struct cell_err *e);

/* Sets the permitted and effective sets to KEEP (or to nothing when the
 * process is no longer root), empties the inheritable set (no capability
 * passes an execve to a non-root program, CVE-2022-24769) and clears the
 * ambient set. */
int caps_set(uint64_t keep, struct cell_err *e);

/* An OCI process's sets exactly: effective, permitted and inheritable
 * as given, the ambient ones raised, keep-caps off again (set on by
 * caps_keep() before the change of user). */
int caps_set_exact(uint64_t effective, uint64_t permitted, uint64_t inheritable, uint64_t ambient,
		   struct cell_err *e);
/* PR_SET_KEEPCAPS: the permitted set survives the change of user. */
int caps_keep(struct cell_err *e);

/* "cap_chown,cap_kill,..." of a mask, for inspect; caller frees. */
char *caps_to_text(uint64_t mask);

/* The bounding set of PID as a mask (from /proc/PID/status), -1 on error. */
int caps_of_pid(int pid, uint64_t *bounding, uint64_t *effective);

#endif
