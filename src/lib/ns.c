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
#include <linux/sched.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

unsigned long long ns_clone_flags(const struct jail_spec *s)
{
	unsigned long long f = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWPID | CLONE_NEWCGROUP;

	/* --allow sysvipc shares the host's SysV IPC and message queues. */
	if (!(s->allow & JAIL_ALLOW_SYSVIPC))
		f |= CLONE_NEWIPC;
	if (s->net == JAIL_NET_NONE)
		f |= CLONE_NEWNET;
	return f;
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
	args.exit_signal = SIGCHLD;
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
