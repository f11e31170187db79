/*
 * exec.h - running a new process inside a running jail.
 */
#ifndef CELL_EXEC_H
#define CELL_EXEC_H

#include "err.h"
#include "spec.h"

/*
 * Runs S->argv in the running jail S->name of STATE_ROOT and waits for
 * it: in all the jail's namespaces and cgroups, under the jail's policy
 * and limits (read from its record into S), as its user (default: the
 * jail's), in its cwd, with its env, with a pty of the jail's when it
 * asks for a terminal (S->proc).  TIMEOUT > 0: killed (SIGKILL) after
 * that many seconds, an error (ETIMEDOUT) with *status its status.  On
 * success *status is the process's exit status (128+N when killed by
 * signal N); else e->exit_code is 125, 126 or 127.
 */
int jail_exec(const char *state_root, struct jail_spec *s, int timeout, int *status,
	      struct cell_err *e);

#endif
