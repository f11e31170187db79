/*
 * channel.h - between cell and a process it starts in a jail.
 *
 * The child (the jail's first process, or one `cell exec` starts) holds
 * one end of a SOCK_SEQPACKET socketpair, close-on-exec: it sends a
 * structured error, or its pty's master, and its execve() closes the
 * channel, so end-of-file means the command runs.  The parent's side
 * relays the pty, forwards signals and waits (a pidfd) for the end.
 */
#ifndef CELL_CHANNEL_H
#define CELL_CHANNEL_H

#include <signal.h>
#include <stdbool.h>
#include <stdnoreturn.h>
#include <sys/types.h>
#include <time.h>

#include "err.h"
#include "tty.h"

/* MSG_PROCESS: `cell exec`'s joiner hands over the process it forked
 * into the jail (its pidfd, its pid in exit_code).  MSG_HOLD: the child
 * stopped where the launch asked (LAUNCH_HOLD_* in errnum) and waits for
 * "c".  MSG_CREATED: all is done but the exec, for which the child waits
 * on its exec fifo (an OCI create: launch.h, stop_created).  MSG_SECCOMP:
 * its seccomp filter's notify listener, for the profile's agent. */
enum {
	MSG_ERROR = 1,
	MSG_PTY = 2,
	MSG_PROCESS = 3,
	MSG_HOLD = 4,
	MSG_CREATED = 5,
	MSG_SECCOMP = 6
};

struct child_msg {
	int type;
	int errnum;
	int exit_code;
	struct cell_err_about about; /* the parameter the error is about */
	char text[sizeof(((struct cell_err *)0)->msg)];
};

/* The parent's side of a running process in a jail.  Zero it, then set
 * the fds to -1 and stdin_open/stdout_open to true (run_init()). */
struct run {
	pid_t pid;
	int pidfd;
	int sock;   /* parent end of the channel, -1 after EOF */
	int sigfd;  /* signalfd of the forwarded signals and SIGCHLD */
	int master; /* pty master, -1 when none */
	bool stdin_open;
	bool stdout_open;
	struct tty_saved tty;
	bool failed;	     /* the child reported an error */
	int hold;	     /* the child is held there (MSG_HOLD), 0: not held */
	bool created;	     /* MSG_CREATED came */
	int seccomp_fd;	     /* MSG_SECCOMP: the notify listener; -1 */
	bool seccomp_handed; /* given to the launch's caller */
	bool pty_elsewhere;  /* the pty goes to a console socket: the caller's
			      * terminal is left as it is */
	int handed_pidfd;    /* MSG_PROCESS: the process exec's joiner forked; -1 */
	pid_t handed_pid;
	struct child_msg err;
	/* The caller's terminal: cell's stdin is one, cell has a controlling
	 * one; once it hangs up, the jail gets SIGHUP and, after a grace,
	 * SIGKILL (hup_deadline, CLOCK_MONOTONIC). */
	bool stdin_tty;
	bool had_ctty;
	bool hung_up;
	bool hup_killed;
	struct timespec hup_deadline;
	sigset_t saved; /* the signal mask before run_open() */
	bool masked;
	/* The child shares cell's memory until its exec (launch.c): the two
	 * take turns.  Each byte cell sends hands over the turn, each
	 * message the child sends (but its error and end of file) takes it
	 * back, cell answering "c" when it has done with it. */
	bool shared;
	/* A foreground OCI run's exec fifo (launch.c start_here()): its
	 * write end, whose POLLERR says the process exec'd (or ended);
	 * run_supervise() then calls started(pid, started_ctx). */
	int execd_fd;
	void (*started)(pid_t pid, void *ctx);
	void *started_ctx;
};

void run_init(struct run *r);

/* Before the clone: the channel SV (SV[1] the child's end) and the
 * signalfd of the forwarded signals and SIGCHLD, which are blocked from
 * now on (queued for the process, not lost); the mask before is kept in
 * r->saved for the child to restore before its execve. */
int run_open(struct run *r, int sv[2], struct cell_err *e);
/* After the clone, in the parent: keeps SV[0] as r->sock. */
void run_take_channel(struct run *r, int sv[2]);
/* Closes what run_open and the supervision opened, restores the signal
 * mask and the caller's terminal. */
void run_close(struct run *r, int sv[2]);
/* The error the child reported, as the caller's. */
void run_child_error(const struct run *r, struct cell_err *e);

/* The child's side: sends E to the parent and exits with its code. */
noreturn void channel_fail(int sock, const struct cell_err *e);

/* The child's side, after a uid or gid change (which clears the parent
 * death signal): arms SIGKILL on cell's death again, and exits if cell
 * has died meanwhile (its end of the channel is closed). */
void channel_rearm_deathsig(int sock);

/* Reads one message (error, pty) or the end of file from the channel. */
void run_read_channel(struct run *r);

/* The grace a jail has to end after its caller's terminal hung up. */
#define RUN_HANGUP_GRACE_S 5

/* Relays the pty and forwards signals until the process has exited;
 * returns its status (128+N when killed by signal N).  When the
 * caller's terminal goes away (a SIGHUP from the kernel or with cell's
 * controlling terminal gone, or end-of-file or EIO reading a terminal
 * stdin) the process gets SIGHUP, and SIGKILL if it has not ended
 * RUN_HANGUP_GRACE_S seconds later. */
int run_supervise(struct run *r);
/* The same, killing the process (SIGKILL, *KILLED true) once TIMEOUT
 * seconds have passed; 0: no limit. */
int run_supervise_for(struct run *r, int timeout, bool *killed);

/* Waits until the command has been exec'd (end of file on the channel),
 * the child has reported its error (r->failed), it is held (r->hold),
 * created (r->created) or has sent its seccomp listener (not yet handed). */
void run_wait_exec(struct run *r);
/* Sends BYTE to the child; with a shared child, then waits (in raw
 * calls: nothing of cell's memory written meanwhile) until the child
 * has sent something, exec'd or ended.  0, or -1 with errno. */
int run_send(struct run *r, char byte);

#endif
