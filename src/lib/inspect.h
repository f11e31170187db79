/*
 * inspect.h - what `cell inspect` knows about a jail, as JSON.
 */
#ifndef CELL_INSPECT_H
#define CELL_INSPECT_H

#include <jansson.h>
#include <sys/types.h>

#include "err.h"

/*
 * The jail NAME under STATE_ROOT: its parameters, namespaces (inode
 * numbers), cgroups, limits with their current use, the policy in force
 * rule by rule, and what its first process holds (capabilities,
 * no_new_privs, seccomp, nice).  A name without a jail is an error.
 */
int jail_inspect(const char *state_root, const char *name, json_t **out, struct cell_err *e);

/*
 * The jail that PID runs in (the jail whose pid namespace PID is in),
 * with "process" describing PID itself; *out is NULL when PID is not in
 * any jail of STATE_ROOT.  A PID that does not exist is an error.
 */
int jail_inspect_pid(const char *state_root, pid_t pid, json_t **out, struct cell_err *e);

#endif
