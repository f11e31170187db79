/*
 * launch.h - running a jail.
 */
#ifndef CELL_LAUNCH_H
#define CELL_LAUNCH_H

#include "err.h"
#include "spec.h"

/*
 * Runs the jail of SPEC (validated) in the foreground and waits for it.
 * STATE_ROOT holds its state directory while it runs.  On success
 * *status is the jail's exit status (128+N when killed by signal N).
 * On failure nothing the call created is left behind and e->exit_code
 * says 125, 126 or 127; *status is -1, unless the command ran and only
 * what came after it failed (removing its cgroups or state): then it is
 * the command's status, and E says what failed.
 */
int jail_run(const struct jail_spec *spec, const char *state_root, int *status, struct cell_err *e);

#endif
