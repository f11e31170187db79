/*
 * init.h - the tiny pid 1 of `cell run --init`.
 */
#ifndef CELL_INIT_H
#define CELL_INIT_H

#include <signal.h>
#include <stdnoreturn.h>
#include <sys/types.h>

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

#endif
