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

/* In cell, before the clone: a sealed memfd holding cell-init (the
 * freestanding reaper, src/init/reaper.c), for init_exec(). */
int init_memfd(struct cell_err *e);

/*
 * As pid 1 of the jail, with the forwarded signals blocked: execs
 * cell-init from MEMFD, which relays each forwarded signal to PAYLOAD,
 * reaps every orphan, and exits with the payload's status (128+N when
 * killed by signal N), first written in decimal to STATUS_FD unless that
 * is -1.  If the exec fails, says so on stderr and exits 125, which ends
 * the jail.
 */
noreturn void init_exec(int memfd, pid_t payload, int status_fd);

#endif
