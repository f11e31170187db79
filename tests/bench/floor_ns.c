/*
 * floor_ns: the least a jail runtime must do, as a reference for the
 * startup benchmark (tests/bench/startup.sh).
 *
 *   floor_ns ROOTFS COMMAND [ARG...]
 *
 * Starts COMMAND in new mount, UTS, IPC, PID, network and cgroup
 * namespaces with ROOTFS as its root, waits for it and exits with its
 * status.  No /proc, /dev, policy, limits or state: whatever cell costs
 * beyond this is the price of those.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define STACK_SIZE (64 * 1024)

static char child_stack[STACK_SIZE] __attribute__((aligned(16)));

static int die(const char *what)
{
	fprintf(stderr, "floor_ns: %s: %s\n", what, strerror(errno));
	return 125;
}

static int child(void *arg)
{
	char **argv = arg;
	int status;

	/* Without this, the mounts below would propagate back to the host. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return die("making mounts private");
	/* pivot_root needs the new root to be a mount point. */
	if (mount(argv[1], argv[1], NULL, MS_BIND | MS_REC, NULL) < 0)
		return die("bind-mounting the rootfs");
	if (chdir(argv[1]) < 0)
		return die("entering the rootfs");
	/*
	 * pivot_root(".", ".") stacks the old root on top of the new one;
	 * detaching "." then drops the old root without needing a directory
	 * to put it in.  No glibc wrapper exists.
	 */
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return die("pivot_root");
	if (umount2(".", MNT_DETACH) < 0)
		return die("detaching the old root");
	if (chdir("/") < 0)
		return die("entering /");
	execv(argv[2], &argv[2]);
	/* The shell's convention: 127 not found, 126 not executable. */
	status = errno == ENOENT ? 127 : 126;
	die(argv[2]);
	return status;
}

int main(int argc, char **argv)
{
	int flags = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWPID | CLONE_NEWNET |
		    CLONE_NEWCGROUP | SIGCHLD;
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: floor_ns ROOTFS COMMAND [ARG...]\n");
		return 2;
	}
	pid = clone(child, child_stack + STACK_SIZE, flags, argv);
	if (pid < 0)
		return die("clone");
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return die("waitpid");
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
