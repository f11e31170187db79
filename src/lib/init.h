/*
 * init.h - cell's reaper, pid 1 of a detached jail (and of `run --init`).
 */
#ifndef CELL_INIT_H
#define CELL_INIT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "spec.h"

/* The signals cell forwards to a jail's pid 1, and --init to its child. */
void init_forwarded_signals(sigset_t *set);

/* In cell, before the clone: a sealed memfd holding cell-init (the
 * freestanding reaper, src/init/reaper.c), for init_exec(). */
int init_memfd(struct cell_err *e);

/*
 * What cell's reaper gets besides the payload: the files cell opened for
 * it before the clone (launch.c) and the pipes the jail's first process
 * made (process.c).  -1: none.
 */
struct init_plan {
	int memfd;	 /* sealed cell-init */
	int status_fd;	 /* the exit file: the payload's last status */
	int restarts_fd; /* the count of restarts */
	int out_fd;	 /* read ends of the payload's stdout and stderr pipes */
	int err_fd;
	const int *log_fds; /* log.0 .. log.N-1 (O_APPEND) */
	int nlogs;
	int log_cur; /* the one written last */
	long long log_size;
	enum jail_restart restart;
	long long restart_max;
	bool tty; /* stdio is the jail's terminal: each payload its foreground */
};

/* The most log files a reaper takes (log.keep + 1). */
#define INIT_MAX_LOGS 100

/* The descriptors the jail's first process needs open at once to exec
 * the reaper with NLOGS log files: the least --nofile it may have. */
int init_min_nofile(int nlogs);

/*
 * As pid 1 of the jail, its child PAYLOAD forked (waiting for the gate's
 * end GATE to close), the forwarded signals blocked, stdio the payload's:
 * execs cell-init from PLAN->memfd with PLAN's descriptors in the places
 * reaper.c says, PATH, ARGV and ENVP to start the payload again.  Every
 * other descriptor is closed by the exec.  Returns only on failure.
 */
int init_exec(const struct init_plan *plan, pid_t payload, const char *path, char *const *argv,
	      char *const *envp, int gate, struct cell_err *e);

#endif
