/*
 * init.c - the reaper that `--init` makes pid 1 of a jail.
 *
 * Without it, the payload is pid 1 of its pid namespace: the kernel then
 * drops every signal it has no handler for (pid_namespaces(7)), and the
 * zombies of its orphaned grandchildren are reaped by nobody.  The
 * reaper does two things only, with nothing allocated: forward signals
 * and reap.
 */
#include "init.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cell_init_elf.h"
#include "testpoint.h"
#include "param.h"

#ifndef MFD_EXEC
#define CELL_MFD_EXEC 0x0010U
#else
#define CELL_MFD_EXEC MFD_EXEC
#endif

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};

void init_forwarded_signals(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
}

int init_memfd(struct cell_err *e)
{
	/* MFD_EXEC: where vm.memfd_noexec makes memfds unexecutable by
	 * default (Linux 6.3+); older kernels refuse the flag. */
	int fd = memfd_create("cell-init", MFD_CLOEXEC | MFD_ALLOW_SEALING | CELL_MFD_EXEC);
	size_t off = 0;

	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("cell-init", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return cell_err_param(e, PARAM_INIT, 0, errno, "memfd");
	while (off < cell_init_elf_len) {
		ssize_t n = write(fd, cell_init_elf + off, cell_init_elf_len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return cell_err_param(e, PARAM_INIT, 0, errno, "write the reaper");
		}
		off += (size_t)n;
	}
	/* Sealed: nothing in the jail can change the program its pid 1 runs. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		close(fd);
		return cell_err_param(e, PARAM_INIT, 0, errno, "seal the reaper");
	}
	return fd;
}

noreturn void init_exec(int memfd, pid_t payload, int status_fd)
{
	char pid[16], fd[16];
	char *argv[] = {"cell-init", pid, fd, NULL};
	char *envp[] = {NULL};

	snprintf(pid, sizeof(pid), "%d", (int)payload);
	snprintf(fd, sizeof(fd), "%d", status_fd);
	if (testpoint_fail("init:exec"))
		errno = ENOEXEC;
	else
		syscall(SYS_execveat, memfd, "", argv, envp, AT_EMPTY_PATH);
	/* No reaper, no jail: leaving ends the pid namespace, the payload
	 * with it.  The channel is closed by now; stderr is cell's when the
	 * jail has neither a pty nor -d, else /dev/null. */
	dprintf(STDERR_FILENO, "cell: run: --init: exec the reaper: %s\n", strerror(errno));
	_exit(CELL_EXIT_ERROR);
}
