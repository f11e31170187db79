/*
 * record.h - a jail's state record (state.json): its spec as JSON, and
 * the facts of its run beside it.
 *
 * The spec's parameters are keys of their own, named and typed as the
 * table of param.h says ("memory": 67108864, "cpus": 0.5, "command":
 * ["sh", "-c", "..."]): the same keys and values `cell ls --json` and
 * `cell inspect --json` print.  spec -> JSON -> spec is the identity.
 * Beside them, what only the run knows: "jid", "pid" and "start_time"
 * (the pid 1, or while "creating" its creator), "created" (ISO 8601 UTC),
 * "state" ("creating", "running", "stopped"), "cgroup", "detach",
 * "autoremove", and once stopped "stopped" and "exit".
 *
 * Records of older cells ("rootfs", the limits in "limits", times in
 * seconds since the epoch) are read too: record_upgrade() rewrites them.
 */
#ifndef CELL_RECORD_H
#define CELL_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "err.h"
#include "spec.h"

/* The facts of a run recorded beside the spec. */
struct record_run {
	int jid;
	pid_t pid;
	unsigned long long start_time; /* of PID, proc_start_time() */
	time_t created;
	const char *state; /* "creating" or "running" */
	json_t *cgroup;	   /* taken; NULL: none */
	bool detach, autoremove;
};

/* The record of a jail of spec S. */
json_t *record_new(const struct jail_spec *s, const struct record_run *run);

/* The spec's keys of REC set to S's parameters; the rest kept. */
int record_put_spec(json_t *rec, const struct jail_spec *s, struct cell_err *e);

/* The spec of a record, every parameter (S initialised by the caller).
 * An error names the key. */
int record_spec(const json_t *rec, struct jail_spec *s, struct cell_err *e);

/* What a process started in the jail (cell exec) shares with it: every
 * parameter of the record but the command; the jail's environment with
 * S's own over it, its working directory and user unless S has its own
 * (as docker exec). */
int record_exec_spec(const json_t *rec, struct jail_spec *s, struct cell_err *e);

/* A record of an older cell in today's layout, in place; a no-op on
 * today's. */
void record_upgrade(json_t *rec);

/* T as "2024-05-01T12:00:00Z" (a JSON string), and the time now. */
json_t *record_time(time_t t);
/* jansson's hash seed from getrandom(2): one call, where jansson would
 * open and read /dev/urandom at its first object.  Before any JSON. */
void record_seed(void);

#endif
