/*
 * channel.c - the parent's side of the channel to a process in a jail
 * (channel.h), and the child's error message.
 */
#include "channel.h"

#include "init.h"
#include "rawcall.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

void run_init(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->pid = -1;
	r->pidfd = -1;
	r->sock = -1;
	r->sigfd = -1;
	r->master = -1;
	r->handed_pidfd = -1;
	r->seccomp_fd = -1;
	r->execd_fd = -1;
	r->stdin_open = true;
	r->stdout_open = true;
}

int run_open(struct run *r, int sv[2], struct cell_err *e)
{
	sigset_t block;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return cell_err_set(e, errno, "create the channel to the jail");
	init_forwarded_signals(&block);
	sigaddset(&block, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &block, &r->saved) < 0)
		return cell_err_set(e, errno, "block signals");
	r->masked = true;
	r->sigfd = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
	if (r->sigfd < 0)
		return cell_err_set(e, errno, "signalfd");
	return 0;
}

void run_take_channel(struct run *r, int sv[2])
{
	close(sv[1]);
	sv[1] = -1;
	r->sock = sv[0];
	sv[0] = -1;
	/* A jail's output may outlive a reader of ours; never die of it. */
	signal(SIGPIPE, SIG_IGN);
}

void run_close(struct run *r, int sv[2])
{
	tty_restore(STDIN_FILENO, &r->tty);
	if (r->master >= 0)
		close(r->master);
	if (r->sock >= 0)
		close(r->sock);
	if (r->pidfd >= 0)
		close(r->pidfd);
	if (r->handed_pidfd >= 0)
		close(r->handed_pidfd);
	if (r->seccomp_fd >= 0)
		close(r->seccomp_fd);
	if (r->sigfd >= 0)
		close(r->sigfd);
	if (r->execd_fd >= 0)
		close(r->execd_fd);
	for (int i = 0; i < 2; i++)
		if (sv[i] >= 0)
			close(sv[i]);
	if (r->masked)
		sigprocmask(SIG_SETMASK, &r->saved, NULL);
	r->master = r->sock = r->pidfd = r->sigfd = r->handed_pidfd = r->seccomp_fd = -1;
	r->execd_fd = -1;
	r->masked = false;
}

void run_child_error(const struct run *r, struct cell_err *e)
{
	e->errnum = r->err.errnum;
	e->exit_code = r->err.exit_code;
	e->about = r->err.about;
	memcpy(e->msg, r->err.text, sizeof(e->msg));
	e->msg[sizeof(e->msg) - 1] = '\0';
}

void channel_rearm_deathsig(int sock)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(CELL_EXIT_ERROR);
	/* In the jail's pid namespace getppid() says 0 whoever the parent
	 * is: the channel tells whether cell still runs. */
	if (poll(&p, 1, 0) < 0 || (p.revents & (POLLHUP | POLLERR)))
		_exit(CELL_EXIT_ERROR);
}

noreturn void channel_fail(int sock, const struct cell_err *e)
{
	struct child_msg m = {.type = MSG_ERROR,
			      .errnum = e->errnum,
			      .exit_code = e->exit_code,
			      .about = e->about};

	memcpy(m.text, e->msg, sizeof(m.text));
	m.text[sizeof(m.text) - 1] = '\0';
	send(sock, &m, sizeof(m), MSG_NOSIGNAL);
	_exit(e->exit_code);
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static void relay_master(struct run *r)
{
	char buf[8192];
	ssize_t n = read(r->master, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) { /* EIO: every slave is closed */
		close(r->master);
		r->master = -1;
		return;
	}
	if (r->stdout_open && write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
		r->stdout_open = false; /* keep draining so the jail never blocks */
}

/*
 * The caller's terminal has gone (closed window, dropped ssh session):
 * the jail gets SIGHUP, then SIGKILL once the grace has passed.  Its
 * pid 1 without a handler ignores SIGHUP (the kernel protects a pid
 * namespace's init), so without the kill a jail would outlive the
 * terminal with its cell orphaned.  FORWARD: the SIGHUP is still to be
 * sent (cell learnt of the hangup by reading, not by the signal).
 */
static void hang_up(struct run *r, bool forward)
{
	if (r->hung_up)
		return;
	r->hung_up = true;
	r->stdin_open = false;
	if (forward)
		syscall(SYS_pidfd_send_signal, r->pidfd, SIGHUP, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &r->hup_deadline);
	r->hup_deadline.tv_sec += RUN_HANGUP_GRACE_S;
}

/* Whether cell has a controlling terminal (one it can open as /dev/tty):
 * a hangup takes it away from every process of the session. */
static bool has_ctty(void)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void relay_stdin(struct run *r)
{
	char buf[8192];
	ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	/* A terminal in raw mode reads 0 bytes, or EIO, only once it has
	 * hung up; a pipe's end of file is only the end of input. */
	if (r->stdin_tty && (n == 0 || (n < 0 && errno == EIO))) {
		hang_up(r, true);
		return;
	}
	if (n <= 0 || write_all(r->master, buf, (size_t)n) < 0)
		r->stdin_open = false;
}

void run_read_channel(struct run *r)
{
	struct child_msg m;
	int fd = -1;
	ssize_t n;

	/* ECONNRESET: the child closed its end with a byte of ours unread
	 * ("go" to a child that failed first).  The kernel reports that
	 * once, before the messages the child sent, which are still queued. */
	do
		n = tty_recv_fd(r->sock, &m, sizeof(m), &fd);
	while (n < 0 && (errno == EINTR || errno == ECONNRESET));
	if (n <= 0) { /* end of file: the payload was exec'd (or the child died) */
		close(r->sock);
		r->sock = -1;
		return;
	}
	if ((size_t)n < sizeof(m)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	if (m.type == MSG_PTY && fd >= 0 && r->master < 0) {
		struct cell_err ignored;

		r->master = fd;
		if (!r->pty_elsewhere && isatty(STDIN_FILENO)) {
			tty_copy_winsize(STDIN_FILENO, r->master);
			tty_set_raw(STDIN_FILENO, &r->tty, &ignored);
		}
		return;
	}
	if (m.type == MSG_SECCOMP && fd >= 0 && r->seccomp_fd < 0) {
		r->seccomp_fd = fd;
		return;
	}
	if (m.type == MSG_PROCESS && fd >= 0 && r->handed_pidfd < 0) {
		r->handed_pidfd = fd;
		r->handed_pid = (pid_t)m.exit_code;
		return;
	}
	if (fd >= 0)
		close(fd);
	if (m.type == MSG_ERROR) {
		r->failed = true;
		r->err = m;
	} else if (m.type == MSG_HOLD && m.errnum > 0) {
		r->hold = m.errnum;
	} else if (m.type == MSG_CREATED) {
		r->created = true;
	}
}

static void forward_signals(struct run *r)
{
	struct signalfd_siginfo si;

	while (read(r->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (sig == SIGCHLD)
			continue; /* the pidfd tells us when the jail ends */
		if (sig == SIGWINCH && r->master >= 0 && isatty(STDIN_FILENO))
			tty_copy_winsize(STDIN_FILENO, r->master);
		syscall(SYS_pidfd_send_signal, r->pidfd, sig, NULL, 0);
		/* The kernel's SIGHUP (SI_KERNEL) is a hangup's; a user's
		 * kill -HUP (a reload) is only forwarded, unless cell's
		 * terminal is gone too. */
		if (sig == SIGHUP && (si.ssi_code == SI_KERNEL || (r->had_ctty && !has_ctty())))
			hang_up(r, false);
	}
}

/* Milliseconds from now to DEADLINE (CLOCK_MONOTONIC), 0 once past. */
static int ms_until(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000LL + (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms <= 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}

/* poll()'s timeout: until DEADLINE (NULL: none) or the hangup's grace
 * ends, whichever comes first; -1 for neither. */
static int poll_ms(const struct run *r, const struct timespec *deadline)
{
	int ms = deadline != NULL ? ms_until(deadline) : -1;

	if (r->hung_up && !r->hup_killed) {
		int h = ms_until(&r->hup_deadline);

		if (ms < 0 || h < ms)
			ms = h;
	}
	return ms;
}

int run_supervise(struct run *r)
{
	return run_supervise_for(r, 0, NULL);
}

/* Runs until the jail's first process has exited; returns its status. */
int run_supervise_for(struct run *r, int timeout, bool *killed)
{
	struct timespec deadline;
	siginfo_t info;

	if (killed != NULL)
		*killed = false;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout;
	r->stdin_tty = isatty(STDIN_FILENO);
	r->had_ctty = has_ctty();
	for (;;) {
		struct pollfd p[6] = {
			{.fd = r->sock, .events = POLLIN},
			{.fd = r->sigfd, .events = POLLIN},
			{.fd = r->pidfd, .events = POLLIN},
			{.fd = r->master, .events = POLLIN},
			{.fd = r->master >= 0 && r->stdin_open ? STDIN_FILENO : -1,
			 .events = POLLIN},
			{.fd = r->execd_fd, .events = 0}, /* POLLERR: exec'd */
		};

		int n = poll(p, 6, poll_ms(r, timeout > 0 ? &deadline : NULL));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0 && r->hung_up && !r->hup_killed && ms_until(&r->hup_deadline) == 0) {
			syscall(SYS_pidfd_send_signal, r->pidfd, SIGKILL, NULL, 0);
			r->hup_killed = true;
			continue;
		}
		if (n == 0 && timeout > 0 && ms_until(&deadline) == 0) {
			/* Past its time: SIGKILL, which it cannot ignore, then
			 * wait as before. */
			syscall(SYS_pidfd_send_signal, r->pidfd, SIGKILL, NULL, 0);
			timeout = 0;
			if (killed != NULL)
				*killed = true;
			continue;
		}
		if (p[0].revents)
			run_read_channel(r);
		if (p[1].revents)
			forward_signals(r);
		if (p[3].revents)
			relay_master(r);
		if (p[4].revents)
			relay_stdin(r);
		/* Before its end: a process that exec'd and ended at once
		 * has both. */
		if (p[5].revents) {
			close(r->execd_fd);
			r->execd_fd = -1;
			if (r->started != NULL)
				r->started(r->pid, r->started_ctx);
		}
		if (p[2].revents)
			break;
	}
	memset(&info, 0, sizeof(info));
	while (waitid((idtype_t)P_PIDFD, (id_t)r->pidfd, &info, WEXITED) < 0 && errno == EINTR)
		;
	/* The kernel has ended every process of the jail with its pid 1:
	 * drain what they wrote and the channel's last word. */
	while (r->master >= 0)
		relay_master(r);
	while (r->sock >= 0)
		run_read_channel(r);
	if (info.si_code == CLD_EXITED)
		return info.si_status;
	return 128 + info.si_status;
}

/* Detached: waits until the command has been exec'd (end of file on the
 * channel) or the child has reported its error. */
void run_wait_exec(struct run *r)
{
	while (r->sock >= 0 && !r->failed && r->hold == 0 && !r->created &&
	       (r->seccomp_fd < 0 || r->seccomp_handed)) {
		struct pollfd p = {.fd = r->sock, .events = POLLIN};
		int master = r->master;

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		if (p.revents)
			run_read_channel(r);
		/* A shared child waits for the answer to its pty. */
		if (r->shared && master < 0 && r->master >= 0)
			run_send(r, 'c');
	}
}

int run_send(struct run *r, char byte)
{
	struct pollfd p = {.fd = r->sock, .events = POLLIN};
	long n;

	if (!r->shared)
		return send(r->sock, &byte, 1, MSG_NOSIGNAL) == 1 ? 0 : -1;
	/* From the write on, the child runs in this memory: no errno, no
	 * heap, nothing but this stack until it has the turn no more. */
	n = raw_call6(SYS_sendto, r->sock, (long)&byte, 1, MSG_NOSIGNAL, 0, 0);
	if (n != 1) {
		errno = n < 0 ? (int)-n : EIO;
		return -1;
	}
	do
		n = raw_call(SYS_ppoll, (long)&p, 1, 0, 0);
	while (n == -EINTR);
	return 0;
}
