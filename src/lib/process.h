/*
 * process.h - the last stage before a jail's payload runs: identity,
 * working directory, descriptors, execve.
 */
#ifndef CELL_PROCESS_H
#define CELL_PROCESS_H

#include "err.h"
#include "spec.h"

/* Switches to the spec's --user (groups, gid, uid), looking up a missing
 * gid in the jail's own /etc/passwd (parsed, never through NSS modules). */
int process_set_user(const struct jail_spec *s, struct cell_err *e);

/* chdir to --workdir (default "/"). */
int process_set_workdir(const struct jail_spec *s, struct cell_err *e);

/* Marks every descriptor above 2 close-on-exec. */
int process_close_fds(struct cell_err *e);

/* execve()s the command, searched for in the jail's PATH.  Returns only on
 * failure, with exit_code 127 (not found) or 126 (not executable). */
int process_exec(const struct jail_spec *s, struct cell_err *e);

#endif
