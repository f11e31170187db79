/*
 * launch.h - running a jail.
 */
#ifndef CELL_LAUNCH_H
#define CELL_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

#include <jansson.h>

#include "err.h"
#include "spec.h"

struct jail;

/* Where a launch may stop with the jail's root built, its child waiting
 * (launch.c, "hold"): before pivot_root and after it, where OCI's
 * createRuntime and createContainer hooks run. */
enum launch_hold {
	LAUNCH_HOLD_PREPIVOT = 1 << 0,
	LAUNCH_HOLD_POSTPIVOT = 1 << 1,
};

/*
 * The options of one launch, beside the jail's spec: about this
 * invocation, neither the jail nor its process.
 */
struct launch_opts {
	const char *state_root;
	bool detach;	  /* return once the command runs (run -d, up) */
	bool autoremove;  /* a detached jail's state goes when it ends (--rm) */
	bool keep_stdout; /* detached: stdout stays the caller's, not the log */
	bool keep_stderr;
	unsigned int hold; /* LAUNCH_HOLD_* bits */
	/* Called at each hold with the jail's pid 1 (a host pid); the child
	 * goes on when it returns 0, the launch fails when -1. */
	int (*on_hold)(enum launch_hold where, pid_t pid, void *ctx, struct cell_err *e);
	void *ctx;

	/* OCI create: the launch returns once the jail's process is
	 * "created": everything done but its exec, for which it waits on
	 * the fifo "exec.fifo" of its state directory (jail_start()).  The
	 * process outlives the launch (as detach). */
	bool stop_created;
	/* Detached, the process's stdin, stdout and stderr stay the
	 * caller's (OCI without a terminal), not /dev/null and the log. */
	bool keep_stdio;
	/* With a terminal: the pty's master goes to this unix socket
	 * (SCM_RIGHTS, as runc sends it) and cell relays nothing. */
	const char *console_socket;
	/* The host pid of the jail's process, written (write + rename)
	 * once it is created or runs. */
	const char *pid_file;
	/* Keys added to the jail's record (an object, borrowed), e.g. the
	 * OCI bundle and annotations. */
	const json_t *record_extra;
	/* The caller's descriptors 3 .. 3+N-1 stay open for the process
	 * (runc's --preserve-fds); the rest are closed. */
	unsigned int preserve_fds;
	/* Foreground with stop_created (OCI run = create + start + wait):
	 * at created, the text start_state() returns (malloc'd: the OCI
	 * state, for the startContainer hooks) goes into the exec fifo as
	 * jail_start() writes it, the launch waits for the process as any
	 * foreground one, and started() runs (poststart hooks) once the
	 * process has exec'd its command. */
	char *(*start_state)(pid_t pid, void *ctx);
	void (*started)(pid_t pid, void *ctx);
	/* An OCI seccomp profile with a listenerPath: the filter's notify
	 * listener, once the process has installed it, for the caller to
	 * hand to the agent (it stays the launch's: do not close it).  A
	 * failure fails the launch. */
	int (*on_seccomp)(int listener, pid_t pid, void *ctx, struct cell_err *e);
	/* `cell start` of a stopped jail (lifecycle.c): its directory,
	 * opened and locked by the caller, is the launch's state (moved
	 * into the launch: REUSE->dir is left closed), with its JID and its
	 * range of host ids.  A failed start writes REUSE->state, the
	 * stopped jail's record, back: the jail stays as it was. */
	struct jail *reuse;
};

/* The log's defaults (log.size, log.keep). */
#define LAUNCH_LOG_SIZE (10LL << 20)
#define LAUNCH_LOG_KEEP 1

/*
 * What of spec S depends on how it runs (O->detach), for a spec of the
 * jail front doors (run, up; an OCI config's says init=false): a
 * detached jail gets cell's reaper as pid 1 unless init was given;
 * a restart policy needs the reaper.  Before policy_defaults().
 */
int launch_complete_spec(struct jail_spec *s, const struct launch_opts *o, struct cell_err *e);

/*
 * Runs the jail of SPEC (validated, its mechanisms filled) through the
 * stages of launch.c.  The jail's state directory goes in O->state_root.
 * In the foreground it waits for the jail: on success *status is its
 * exit status (128+N when killed by signal N).  Detached, it returns once
 * the command runs, *status 0.  On failure nothing the call created is
 * left behind and e->exit_code says 125, 126 or 127; *status is -1,
 * unless the command ran and only what came after it failed (removing
 * its cgroups or state): then it is the command's status, and E says
 * what failed.
 */
int jail_run(const struct jail_spec *spec, const struct launch_opts *o, int *status,
	     struct cell_err *e);

/*
 * OCI start: lets the created jail NAME of STATE_ROOT go on to run its
 * command (its exec fifo, written with the jail's state STATE_JSON,
 * which its startContainer hooks read).  Its record says "running"
 * before it returns, and it returns once the process has exec'd its
 * command (or ended).  Errors: no such jail, not created (running or
 * stopped), its process gone.
 */
int jail_start(const char *state_root, const char *name, const char *state_json,
	       struct cell_err *e);

#endif
