/*
 * tty.c - pty for interactive jails.
 *
 * The pty is opened inside the jail, on the jail's own devpts instance,
 * so that ttyname(), /dev/console and job control in the jail all see a
 * terminal of the jail (runc does the same).  Only the master crosses to
 * cell, over the error channel, with SCM_RIGHTS.
 */
#include "tty.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int tty_open_pair(int *master, int *slave, char *slave_path, size_t len, struct cell_err *e)
{
	int m, s, n = 0, unlock = 0;

	m = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return cell_err_set(e, errno, "open /dev/ptmx");
	if (ioctl(m, TIOCSPTLCK, &unlock) < 0 || ioctl(m, TIOCGPTN, &n) < 0) {
		int err = errno;
		close(m);
		return cell_err_set(e, err, "unlock pty");
	}
	/* TIOCGPTPEER opens the slave through the master, never by a path
	 * that something could have replaced. */
	s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0) {
		int err = errno;
		close(m);
		return cell_err_set(e, err, "open pty slave");
	}
	snprintf(slave_path, len, "/dev/pts/%d", n);
	*master = m;
	*slave = s;
	return 0;
}

int tty_make_controlling(int slave, struct cell_err *e)
{
	if (setsid() < 0)
		return cell_err_set(e, errno, "setsid");
	if (ioctl(slave, TIOCSCTTY, 0) < 0)
		return cell_err_set(e, errno, "set controlling terminal");
	for (int fd = 0; fd <= 2; fd++)
		if (dup2(slave, fd) < 0)
			return cell_err_set(e, errno, "dup pty to fd %d", fd);
	if (slave > 2)
		close(slave);
	return 0;
}

int tty_send_fd(int sock, const void *msg, size_t len, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	ssize_t r;

	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		r = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -1 : 0;
}

ssize_t tty_recv_fd(int sock, void *msg, size_t len, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = msg, .iov_len = len};
	struct msghdr mh = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	ssize_t r;

	*fd = -1;
	do
		r = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(c), sizeof(int));
	return r;
}

int tty_set_raw(int fd, struct tty_saved *saved, struct cell_err *e)
{
	struct termios raw;

	saved->active = false;
	if (tcgetattr(fd, &saved->tio) < 0)
		return cell_err_set(e, errno, "read terminal settings");
	raw = saved->tio;
	cfmakeraw(&raw);
	/* Keep output post-processing off too: the jail's pty does it. */
	if (tcsetattr(fd, TCSADRAIN, &raw) < 0)
		return cell_err_set(e, errno, "set terminal raw");
	saved->active = true;
	return 0;
}

void tty_restore(int fd, struct tty_saved *saved)
{
	if (saved->active)
		tcsetattr(fd, TCSADRAIN, &saved->tio);
	saved->active = false;
}

void tty_copy_winsize(int from, int to)
{
	struct winsize ws;

	if (ioctl(from, TIOCGWINSZ, &ws) == 0)
		ioctl(to, TIOCSWINSZ, &ws);
}
