/*
 * lifecycle.h - a named jail's life after its first start: started
 * again from its record, restarted, waited for.
 *
 * A jail that has stopped (cell stop, or its command ended) keeps its
 * state directory and record until cell rm; `cell start` runs it again
 * from that record: the same parameters, the same directory, JID, range
 * of host ids and log (appended to), detached as `cell run -d` runs it.
 */
#ifndef CELL_LIFECYCLE_H
#define CELL_LIFECYCLE_H

#include "err.h"
#include "launch.h"

/* Starts the stopped jail NAME of STATE_ROOT again, detached, from its
 * record.  Errors: no such jail, already running (errno EBUSY), a
 * record that does not read back; a failed start leaves the jail
 * stopped, its record as it was. */
int jail_start_stopped(const char *state_root, const char *name, struct cell_err *e);

/* Stops NAME as cell stop does (SIGTERM, SIGKILL after TIMEOUT
 * seconds), unless it is stopped already, then starts it again; one
 * lock from the stop to the start. */
int jail_restart(const char *state_root, const char *name, int timeout, struct cell_err *e);

/* A detached launch (jail_run(), *STATUS 0) for a command that may start
 * several jails (start, restart, up).  Rootless, a launch makes the
 * process root of a user namespace of its own (rootless_enter(): once,
 * for good), so each such jail is launched from a child of its own and
 * gets a namespace of its own, the command staying in the host's; its
 * error comes back from the child.  As root, jail_run() itself. */
int jail_run_apart(const struct jail_spec *spec, const struct launch_opts *o, int *status,
		   struct cell_err *e);

/* Waits until the jail NAME has ended (now, when it is stopped);
 * *STATUS is its exit status, -1 when not known (a jail without cell's
 * reaper that ended by itself, or one removed as it ended). */
int jail_wait(const char *state_root, const char *name, int *status, struct cell_err *e);

#endif
