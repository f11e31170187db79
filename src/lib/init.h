/*
 * init.h - the tiny pid 1 of `cell run --init`.
 */
#ifndef CELL_INIT_H
#define CELL_INIT_H

#include <signal.h>
#include <stdnoreturn.h>
#include <sys/types.h>

#include "err.h"

/* The signals cell forwards to a jail's pid 1, and --init to its child. */
void init_forwarded_signals(sigset_t *set);

/*
 * Runs as pid 1 of the jail with FORWARD (plus SIGCHLD) blocked: relays
 * each forwarded signal to PAYLOAD, reaps every orphan the jail's
 * processes leave, and exits with the payload's status (128+N when the
 * payload was killed by signal N), which it first writes in decimal to
 * STATUS_FD unless that is -1.
 */
noreturn void init_reap(pid_t payload, const sigset_t *forward, int status_fd);

/* In cell, before the clone: a sealed memfd holding cell-init (the
 * freestanding reaper, src/init/reaper.c), for init_exec(). */
int init_memfd(struct cell_err *e);

/*
 * As pid 1 of the jail: execs cell-init from MEMFD to do what
 * init_reap() does (same signals, same status on STATUS_FD), so that the
 * jail's pid 1 is a few pages rather than a copy of cell.  If the exec
 * fails, reaps in-process with init_reap().
 */
noreturn void init_exec(int memfd, pid_t payload, const sigset_t *forward, int status_fd);

#endif
