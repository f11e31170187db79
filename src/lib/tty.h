/*
 * tty.h - a jail's terminal: a new pty made inside the jail, its master
 * handed to cell, which relays it to the user's terminal.
 */
#ifndef CELL_TTY_H
#define CELL_TTY_H

#include <stdbool.h>
#include <sys/types.h>
#include <termios.h>

#include "err.h"

/* Jail side, after the root switch: opens a pty pair of the jail's own
 * devpts.  *slave_path receives "/dev/pts/N". */
int tty_open_pair(int *master, int *slave, char *slave_path, size_t len, struct cell_err *e);

/* Jail side: makes SLAVE the controlling terminal of a new session and
 * the payload's stdin, stdout and stderr. */
int tty_make_controlling(int slave, struct cell_err *e);

/* Descriptor passing over a unix socket (SCM_RIGHTS). */
int tty_send_fd(int sock, const void *msg, size_t len, int fd);
/* Receives one message, and a descriptor into *fd (-1 when none).
 * Returns the message length, 0 at end of file, -1 on error. */
ssize_t tty_recv_fd(int sock, void *msg, size_t len, int *fd);

/* Host side: the user's terminal in raw mode while the jail runs. */
struct tty_saved {
	bool active;
	struct termios tio;
};
int tty_set_raw(int fd, struct tty_saved *saved, struct cell_err *e);
void tty_restore(int fd, struct tty_saved *saved);
/* Copies the window size of FROM to TO (a no-op when FROM has none). */
void tty_copy_winsize(int from, int to);

#endif
