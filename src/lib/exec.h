/*
 * exec.h - running a new process inside a running jail.
 */
#ifndef CELL_EXEC_H
#define CELL_EXEC_H

#include <stdbool.h>

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

/* How one process is started in a jail, beside what it is. */
struct exec_opts {
	int timeout;		    /* > 0: SIGKILL after that many seconds (foreground) */
	bool detach;		    /* return once it runs; cell neither waits nor relays */
	const char *console_socket; /* with a terminal: its pty's master goes to this unix
				     * socket (SCM_RIGHTS, as runc sends it); needs detach */
	const char *pid_file;	    /* its host pid, written (write + rename) once it runs */
};

/*
 * OCI exec: runs S->proc, a process given entirely (argv, env, cwd, user
 * and groups, capabilities, no_new_privs, terminal), in the running jail
 * S->name, whose mechanisms S holds already (its recorded config: no
 * policy_defaults()).  Without a terminal its stdio is the caller's.
 * Foreground, *status as jail_exec()'s; detached, 0 once it runs.
 */
int jail_exec_process(const char *state_root, struct jail_spec *s, const struct exec_opts *o,
		      int *status, struct cell_err *e);

#endif
