/*
 * oci_ops.h - the OCI lifecycle's operations on a container made by
 * `cell-oci create` (oci_state.h): start, kill, delete, pause, resume,
 * update, and the hooks the runtime itself runs (poststart, poststop).
 *
 * Each checks the container's status first and refuses what the runtime
 * spec and runc refuse, in runc's words, which engines match: an unknown
 * ID "container does not exist", a kill of a stopped container
 * "container not running", a start of a running one "cannot start an
 * already running container", a delete of a running one without force
 * "cannot delete container ID that is not stopped: running".
 */
#ifndef CELL_OCI_OPS_H
#define CELL_OCI_OPS_H

#include <stdbool.h>

#include "err.h"
#include "spec.h"

/* Lets created container ID run its process (jail_start()), then runs
 * its poststart hooks with its state on their stdin.  A poststart hook
 * that fails does not fail the start (runtime spec): the first failure
 * is in *WARN (its msg empty when none). */
int oci_start(const char *root, const char *id, struct cell_err *warn, struct cell_err *e);

/* Sends SIG to the container's process (created or running); ALL: to
 * every process of its cgroups, held still meanwhile. */
int oci_kill(const char *root, const char *id, int sig, bool all, struct cell_err *e);

/* Removes a stopped container; a created one is killed first, a running
 * or paused one only with FORCE.  Its poststop hooks run once it is
 * gone; their first failure is in *WARN. */
int oci_delete(const char *root, const char *id, bool force, struct cell_err *warn,
	       struct cell_err *e);

/* Freezes a running container's processes / thaws a paused one's. */
int oci_pause(const char *root, const char *id, struct cell_err *e);
int oci_resume(const char *root, const char *id, struct cell_err *e);

/* Writes the limits of L and R that are set (-1 / NULL: not set) to
 * the cgroups of the created, running or paused container. */
int oci_update(const char *root, const char *id, const struct jail_limits *l,
	       const struct jail_resources *r, struct cell_err *e);

/* Runs every hook of POINT, keeping the first failure in WARN
 * ("poststart: hook PATH: ..."; the runtime spec: a poststart or
 * poststop hook's failure is a warning, and the others still run). */
void oci_hooks_warn(const struct jail_spec *s, enum jail_hook_point point, const char *state,
		    struct cell_err *warn);

#endif
