/*
 * launch.h - running a jail.
 */
#ifndef CELL_LAUNCH_H
#define CELL_LAUNCH_H

#include <sys/types.h>

#include "err.h"
#include "spec.h"

/* Where a launch may stop with the jail's root built, its child waiting
 * (launch.c, "hold"): before pivot_root and after it, where OCI's
 * createRuntime and createContainer hooks run. */
enum launch_hold {
	LAUNCH_HOLD_PREPIVOT = 1 << 0,
	LAUNCH_HOLD_POSTPIVOT = 1 << 1,
};

/* How one launch goes, beside the jail's spec: about this invocation. */
struct launch_opts {
	const char *state_root;
	unsigned int hold; /* LAUNCH_HOLD_* bits */
	/* Called at each hold with the jail's pid 1 (a host pid); the child
	 * goes on when it returns 0, the launch fails when -1. */
	int (*on_hold)(enum launch_hold where, pid_t pid, void *ctx, struct cell_err *e);
	void *ctx;
};

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

/* The same with the options of one launch. */
int jail_launch(const struct jail_spec *spec, const struct launch_opts *o, int *status,
		struct cell_err *e);

#endif
