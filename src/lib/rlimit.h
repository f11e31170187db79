/*
 * rlimit.h - a jail's per-process limits and start priority.
 */
#ifndef CELL_RLIMIT_H
#define CELL_RLIMIT_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "err.h"
#include "spec.h"

/* In cell, before anything is created: a limit above cell's own hard
 * limit could only be set with CAP_SYS_RESOURCE, which cell does not
 * need and may not have: say so now. */
int rlimit_check(const struct jail_spec *s, struct cell_err *e);

/* In the jail: sets RLIMIT_CPU, MEMLOCK, DATA, NOFILE from the spec,
 * RLIMIT_RTPRIO to 0 and RLIMIT_NICE so that the priority can never be
 * raised above the start one, and the start nice value. */
int rlimit_apply(const struct jail_spec *s, struct cell_err *e);

/* `cell set`: gives process PID (a pid of the caller's pid namespace:
 * set's worker stands in the jail's) the rlimits of NEW that differ from
 * OLD (prlimit).  DRY_RUN only checks that it can: a hard limit lowered
 * cannot be raised back, so every process is checked first. */
int rlimit_update_pid(pid_t pid, const struct jail_limits *old, const struct jail_limits *new,
		      bool dry_run, struct cell_err *e);

#endif
