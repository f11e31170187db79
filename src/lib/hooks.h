/*
 * hooks.h - running a jail's hooks (an OCI config's hooks), one list at
 * a time: each hook a process of its own with the jail's state on its
 * stdin, bounded by its timeout.
 */
#ifndef CELL_HOOKS_H
#define CELL_HOOKS_H

#include <stddef.h>

#include "err.h"
#include "spec.h"

/* The config's name of a hook point ("createRuntime"). */
const char *hooks_point_name(enum jail_hook_point p);

/*
 * Runs the N hooks of H in order, each with STATE (the OCI state JSON) on
 * its stdin and its stdout and stderr on the caller's stderr.  PIDFD >= 0:
 * each is born in the mount, UTS, IPC, network and cgroup namespaces of
 * that process (createContainer's, joined before the exec); -1: the
 * caller's.  The first hook that fails to start, exits non-zero, is
 * killed or outlives its timeout (then killed) stops the list: an error
 * "hook PATH: ..." (the caller names the point).
 */
int hooks_run(const struct jail_hook *h, size_t n, enum jail_hook_point point, const char *state,
	      int pidfd, struct cell_err *e);

#endif
