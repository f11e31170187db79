/*
 * process.h - the last stage before a jail's payload runs: identity,
 * working directory, descriptors, execve.
 */
#ifndef CELL_PROCESS_H
#define CELL_PROCESS_H

#include <signal.h>
#include <stdbool.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "err.h"
#include "init.h"
#include "policy.h"
#include "spec.h"

/* chdir to --workdir (default "/"). */
int process_set_workdir(const struct jail_spec *s, struct cell_err *e);
/* Whether finishing the process parses a file of the image: the jail's
 * /etc/passwd or /etc/group, read for a user or HOME, when its root is
 * not the host's own (a --rootfs, a bind, an OCI tree); not for HOME
 * alone when PASSWD_ABSENT (rootfs_pin).  launch.c's child then runs in
 * no memory of cell's. */
bool process_reads_image(const struct jail_spec *s, bool passwd_absent);

/* Whether the process would read the --rootfs's /etc/passwd for HOME
 * alone (no user, no HOME given, nothing bound or mounted over the
 * root): only then does rootfs_check() look for the file. */
bool process_home_from_rootfs(const struct jail_spec *s);

/* Marks every descriptor from FIRST on close-on-exec (3: all but
 * stdio). */
int process_close_fds(unsigned int first, struct cell_err *e);

/* The process's own rlimits and oom_score_adj (struct jail_process),
 * set while it still may raise them: before the policy drops its
 * capabilities. */
int process_set_limits(const struct jail_process *p, struct cell_err *e);

/* execve()s the command with the environment ENV, searched for in the
 * jail's PATH.  Returns only on failure, with exit_code 127 (not found) or
 * 126 (not executable). */
int process_exec(const struct jail_spec *s, char *const *env, struct cell_err *e);

/*
 * The end of every process cell starts in a jail, the jail's first one
 * (`run`) and an added one (`exec`), once it stands in the jail's
 * namespaces and root under its policy: the controlling terminal, the
 * user, its groups and HOME found in the jail's own /etc/passwd and
 * /etc/group (passwd.h; and the kept capabilities again, which a uid change empties), the
 * working directory, the caller's umask, a detached jail's stdio, the
 * close-on-exec sweep, the caller's signal mask, the parent-death signal,
 * execve.  With the reaper, the fork of the payload comes last: the
 * reaper (pid 1) keeps everything but the exec, and so starts the
 * payload again as the first one started.  Any failure is sent on the channel SOCK and ends the
 * process with the error's exit code.
 */
struct process_finish {
	const struct jail_spec *spec;
	const struct policy *policy;
	int sock;      /* the channel (close-on-exec: its end of file = exec'd) */
	int tty_slave; /* the pty's slave, to make controlling; -1: none */
	/* A detached jail's stdio: stdin /dev/null; stdout and stderr the
	 * reaper's pipes (with init), else /dev/null, unless kept. */
	bool detached;
	bool keep_stdout; /* detached: stdout stays the caller's */
	bool keep_stderr;
	/* Cell's reaper as pid 1 (NULL: none): this process forks the
	 * payload once it is set up, and execs the reaper (init.h); the
	 * pipes are made here. */
	const struct init_plan *init;
	bool rearm_deathsig; /* after a uid change: die with cell until the exec */
	bool outlive_cell;   /* clear the parent-death signal just before execve */
	mode_t umask;	     /* unless the process has its own */
	sigset_t sigmask;
	/* An OCI create: the exec fifo, open for reading; the process says
	 * MSG_CREATED and waits there for `start` (launch.h).  -1: none. */
	int created_fd;
	unsigned int preserve_fds; /* 3 .. 3+N-1 stay open (launch.h) */
	/* The --rootfs had no etc/passwd when cell looked for HOME
	 * (rootfs_pin): HOME is "/" without a read, as the jail may share
	 * cell's memory. */
	bool passwd_absent;
};
noreturn void process_finish(const struct process_finish *f);

#endif
