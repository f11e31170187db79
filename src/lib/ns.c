/*
 * ns.c - creating a jail's namespaces.
 *
 * A jail always gets new mount, UTS, IPC, pid and cgroup namespaces; a
 * new network namespace unless it shares the host's (--net host).  All of
 * them are made by the one clone3() that creates the jail's first
 * process, so there is never a moment where that process lives in some
 * of the jail's namespaces and not others.
 */
#include "ns.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testpoint.h"

unsigned long long ns_clone_flags(const struct jail_spec *s)
{
	return s->mech.ns_new;
}

pid_t ns_clone(unsigned long long flags, int cgroup_fd, int *pidfd)
{
	struct clone_args args;

	memset(&args, 0, sizeof(args));
	args.flags = flags | CLONE_PIDFD;
	if (cgroup_fd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = (uint64_t)cgroup_fd;
	}
	args.pidfd = (uint64_t)(uintptr_t)pidfd;
	/* With CLONE_PARENT the kernel takes the caller's own exit signal
	 * (SIGCHLD) and refuses another. */
	args.exit_signal = (flags & CLONE_PARENT) ? 0 : SIGCHLD;
	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

int ns_loopback_up(struct cell_err *e)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return cell_err_set(e, errno, "bring up lo: socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		ret = cell_err_set(e, errno, "bring up lo");
	else if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			ret = cell_err_set(e, errno, "bring up lo");
	}
	close(fd);
	return ret;
}

void ns_own_init(struct ns_own *o)
{
	o->helper = -1;
	o->sock = -1;
	o->user = o->uts = o->net = -1;
}

/* The helper: its user, UTS and network namespaces become the jail's.
 * It says 0 or the errno of its unshare, then waits for end-of-file:
 * until then cell can write its maps and open its namespaces. */
static noreturn void own_helper(pid_t cell, int sock, int flags)
{
	int err = 0;
	char c;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != cell)
		_exit(1);
	if (testpoint_fail("userns:unshare"))
		err = ENOSPC; /* as with user.max_user_namespaces = 0 */
	else if (unshare(flags) < 0)
		err = errno;
	if (write(sock, &err, sizeof(err)) != (ssize_t)sizeof(err))
		_exit(1);
	while (read(sock, &c, 1) > 0)
		;
	_exit(0);
}

int ns_own_start(struct ns_own *o, bool net, struct cell_err *e)
{
	int flags = CLONE_NEWUSER | CLONE_NEWUTS | (net ? CLONE_NEWNET : 0);
	pid_t cell = getpid();
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return cell_err_set(e, errno, "user namespace: socketpair");
	o->helper = fork();
	if (o->helper < 0) {
		int err = errno;

		close(sv[0]);
		close(sv[1]);
		return cell_err_set(e, err, "user namespace: fork");
	}
	if (o->helper == 0) {
		close(sv[0]);
		own_helper(cell, sv[1], flags);
	}
	close(sv[1]);
	o->sock = sv[0];
	o->want_net = net;
	return 0;
}

/* Maps every uid or gid of the helper's user namespace to itself. */
static int write_identity_map(pid_t pid, const char *map, struct cell_err *e)
{
	static const char identity[] = "0 0 4294967295\n";
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, map);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return cell_err_set(e, errno, "user namespace: open %s", path);
	if (write(fd, identity, sizeof(identity) - 1) != (ssize_t)(sizeof(identity) - 1))
		ret = cell_err_set(e, errno, "user namespace: write %s", path);
	close(fd);
	return ret;
}

static int open_ns(pid_t pid, const char *ns, struct cell_err *e)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		cell_err_set(e, errno, "user namespace: open %s", path);
	return fd;
}

int ns_own_finish(struct ns_own *o, struct cell_err *e)
{
	int err = 0;

	if (read(o->sock, &err, sizeof(err)) != (ssize_t)sizeof(err))
		return cell_err_set(e, EIO, "user namespace: its helper ended");
	if (err != 0)
		return cell_err_set(e, err, "unshare a user namespace");
	if (write_identity_map(o->helper, "uid_map", e) < 0 ||
	    write_identity_map(o->helper, "gid_map", e) < 0)
		return -1;
	if ((o->user = open_ns(o->helper, "user", e)) < 0 ||
	    (o->uts = open_ns(o->helper, "uts", e)) < 0 ||
	    (o->want_net && (o->net = open_ns(o->helper, "net", e)) < 0))
		return -1;
	ns_own_end_helper(o);
	return 0;
}

void ns_own_end_helper(struct ns_own *o)
{
	if (o->sock >= 0) {
		close(o->sock); /* end-of-file: the helper ends */
		o->sock = -1;
	}
	if (o->helper > 0)
		while (waitpid(o->helper, NULL, 0) < 0 && errno == EINTR)
			;
	o->helper = -1;
}

static void close_namespaces(const struct ns_own *o)
{
	const int fds[] = {o->user, o->uts, o->net};

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

void ns_own_close(struct ns_own *o)
{
	ns_own_end_helper(o);
	close_namespaces(o);
	o->user = o->uts = o->net = -1;
}

int ns_own_join_uts_net(const struct ns_own *o, struct cell_err *e)
{
	if (setns(o->uts, CLONE_NEWUTS) < 0)
		return cell_err_set(e, errno, "join the jail's UTS namespace");
	if (o->net >= 0 && setns(o->net, CLONE_NEWNET) < 0)
		return cell_err_set(e, errno, "join the jail's network namespace");
	return 0;
}

int ns_own_join_user(const struct ns_own *o, struct cell_err *e)
{
	if (setns(o->user, CLONE_NEWUSER) < 0)
		return cell_err_set(e, errno, "join the jail's user namespace");
	close_namespaces(o);
	return 0;
}
