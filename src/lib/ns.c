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

/* Maps every uid or gid of PID's user namespace to itself. */
static int write_identity_map(pid_t pid, const char *map)
{
	static const char identity[] = "0 0 4294967295\n";
	char path[64];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, map);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write(fd, identity, sizeof(identity) - 1) != (ssize_t)(sizeof(identity) - 1))
		ret = -1;
	close(fd);
	return ret;
}

/* The helper: still privileged in the host's user namespace, it writes
 * the maps of JAIL's new one once JAIL says it has it.  Its exit status
 * is 0 or the errno that stopped it. */
static noreturn void map_helper(pid_t jail, int ready)
{
	char c;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(errno);
	if (read(ready, &c, 1) != 1)
		_exit(EPIPE);
	if (write_identity_map(jail, "uid_map") < 0 || write_identity_map(jail, "gid_map") < 0)
		_exit(errno != 0 ? errno : EIO);
	_exit(0);
}

int ns_own_userns(bool net, struct cell_err *e)
{
	int flags = CLONE_NEWUSER | CLONE_NEWUTS | (net ? CLONE_NEWNET : 0);
	pid_t self = getpid(), helper;
	int ready[2], status, err = 0;

	if (pipe2(ready, O_CLOEXEC) < 0)
		return cell_err_set(e, errno, "user namespace: pipe");
	helper = fork();
	if (helper < 0) {
		err = errno;
		close(ready[0]);
		close(ready[1]);
		return cell_err_set(e, err, "user namespace: fork");
	}
	if (helper == 0) {
		close(ready[1]);
		map_helper(self, ready[0]);
	}
	close(ready[0]);
	if (unshare(flags) < 0)
		err = errno;
	else if (write(ready[1], "m", 1) != 1)
		err = errno;
	close(ready[1]); /* on an error, the helper reads EOF and ends */
	while (waitpid(helper, &status, 0) < 0)
		if (errno != EINTR)
			return cell_err_set(e, errno, "user namespace: wait");
	if (err != 0)
		return cell_err_set(e, err, "unshare a user namespace");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return cell_err_set(e, WIFEXITED(status) ? WEXITSTATUS(status) : EIO,
				    "map the uids and gids of the jail's user namespace");
	return 0;
}
