/*
 * hooks.c - a jail's hooks: processes the runtime starts at the points of
 * the launch an OCI config names (hooks.h).
 *
 * The state goes to a hook through a sealed memfd on its stdin rather
 * than a pipe: a hook that never reads it neither blocks the runtime nor
 * raises SIGPIPE in it.  A hook is waited for through a pidfd, with its
 * timeout; one that outlives it is killed (its pidfd: never another
 * process that took its pid).
 */
#include "hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "ns.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

const char *hooks_point_name(enum jail_hook_point p)
{
	return (unsigned int)p < JAIL_HOOK_NPOINTS ? jail_hook_point_names[p] : "?";
}

/* A memfd holding STATE, at offset 0, sealed against change. */
static int state_memfd(const char *state, struct cell_err *e)
{
	size_t len = state != NULL ? strlen(state) : 0, off = 0;
	int fd = memfd_create("cell-hook-state", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return cell_err_set(e, errno, "hook state: memfd");
	while (off < len) {
		ssize_t n = write(fd, state + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return cell_err_set(e, errno, "hook state: write");
		}
		off += (size_t)n;
	}
	if (lseek(fd, 0, SEEK_SET) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0) {
		close(fd);
		return cell_err_set(e, errno, "hook state: seal");
	}
	return fd;
}

/* The hook's process: the namespaces of PIDFD's process, the state on
 * stdin, stdout on stderr, nothing else of the runtime's. */
static void hook_child(const struct jail_hook *h, int statefd, int pidfd, int errfd)
{
	char *argv0[] = {h->path, NULL};
	char *noenv[] = {NULL};
	int err;

	if (pidfd >= 0 && setns(pidfd, CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET |
					       CLONE_NEWCGROUP) < 0)
		goto fail;
	if (dup2(statefd, STDIN_FILENO) < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0 ||
	    dup3(errfd, 3, O_CLOEXEC) < 0 || syscall(SYS_close_range, 4U, ~0U, 0U) < 0)
		goto fail;
	errfd = 3;
	execve(h->path, h->args != NULL ? h->args : argv0, h->env != NULL ? h->env : noenv);
fail:
	/* The error for the runtime (end of file: the exec succeeded). */
	err = errno;
	if (write(errfd, &err, sizeof(err)) < 0)
		_exit(126);
	_exit(126);
}

/* Milliseconds left until DEADLINE (CLOCK_MONOTONIC seconds); -1 none. */
static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	if (deadline->tv_sec == 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000LL + (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (int)ms;
}

/* Waits for the hook PIDFD, killing it at its timeout; its status. */
static int wait_hook(const struct jail_hook *h, int pidfd, bool *timed_out)
{
	struct timespec deadline = {0, 0};
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	siginfo_t si;

	*timed_out = false;
	if (h->timeout > 0) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += h->timeout;
	}
	for (;;) {
		int n = poll(&p, 1, ms_left(&deadline));

		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0) {
			*timed_out = true;
			syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
		}
		break;
	}
	memset(&si, 0, sizeof(si));
	while (waitid((idtype_t)P_PIDFD, (id_t)pidfd, &si, WEXITED) < 0)
		if (errno != EINTR)
			return -1;
	if (si.si_code == CLD_EXITED)
		return si.si_status;
	return 128 + si.si_status;
}

static int run_one(const struct jail_hook *h, enum jail_hook_point point, const char *state,
		   int target, struct cell_err *e)
{
	cleanup_close int statefd = state_memfd(state, e);
	cleanup_close int pidfd = -1;
	int errpipe[2], err = 0, status;
	bool timed_out;
	ssize_t got;
	pid_t pid;

	if (statefd < 0)
		return cell_err_prefix(e, "hook %s", h->path);
	if (pipe2(errpipe, O_CLOEXEC) < 0)
		return cell_err_set(e, errno, "hook %s: pipe", h->path);
	pid = ns_clone(0, -1, &pidfd);
	if (pid < 0) {
		close(errpipe[0]);
		close(errpipe[1]);
		return cell_err_set(e, errno, "hook %s: fork", h->path);
	}
	if (pid == 0)
		hook_child(h, statefd, target, errpipe[1]);
	close(errpipe[1]);
	do
		got = read(errpipe[0], &err, sizeof(err));
	while (got < 0 && errno == EINTR);
	close(errpipe[0]);
	status = wait_hook(h, pidfd, &timed_out);
	if (got == (ssize_t)sizeof(err))
		return cell_err_set(e, err, "hook %s", h->path);
	if (timed_out)
		return cell_err_set(e, 0, "hook %s: timed out after %d s", h->path, h->timeout);
	if (status != 0)
		return cell_err_set(e, 0, "hook %s: %s %d", h->path,
				    status > 128 ? "killed by signal" : "exit status",
				    status > 128 ? status - 128 : status);
	return 0;
}

int hooks_run(const struct jail_hook *h, size_t n, enum jail_hook_point point, const char *state,
	      int pidfd, struct cell_err *e)
{
	for (size_t i = 0; i < n; i++)
		if (run_one(&h[i], point, state, pidfd, e) < 0)
			return -1;
	return 0;
}
