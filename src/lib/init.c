/*
 * init.c - cell's reaper as pid 1 of a jail (a detached jail's
 * default, --init): its program in a sealed memfd, and its exec.
 *
 * Without it, the payload is pid 1 of its pid namespace: the kernel then
 * drops every signal it has no handler for (pid_namespaces(7)), and the
 * zombies of its orphaned grandchildren are reaped by nobody.  The
 * reaper forwards signals, reaps, writes a detached jail's log from
 * pipes and restarts the payload (src/init/reaper.c), with nothing
 * allocated.
 */
#include "init.h"
#include "../init/reaper_abi.h"

#include <errno.h>
#include <linux/close_range.h>
#include <stdlib.h>
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

/*
 * Moves PLAN's descriptors to their places.  Every other descriptor of
 * cell's (the state root, the rootfs, the channel) is marked
 * close-on-exec rather than closed: the exec closes them, and until then
 * the channel can still say why the exec failed.  Before the exec pid 1
 * is non-dumpable (child_enter()), after it cell-init makes itself so
 * before the payload may run (the gate), so its /proc/1/fd never
 * reaches the jail (CVE-2024-21626).
 */
static int place_fds(const struct init_plan *plan, int gate, struct cell_err *e)
{
	int src[6 + INIT_MAX_LOGS], dst[6 + INIT_MAX_LOGS], n = 0, ret = 0;

	const int fixed_src[] = {gate,	       plan->memfd, plan->status_fd, plan->restarts_fd,
				 plan->out_fd, plan->err_fd};
	const int fixed_dst[] = {FD_GATE, FD_MEMFD, FD_STATUS, FD_RESTARTS, FD_STDOUT, FD_STDERR};

	for (int i = 0; i < 6; i++)
		if (fixed_src[i] >= 0) {
			src[n] = fixed_src[i];
			dst[n++] = fixed_dst[i];
		}
	for (int i = 0; i < plan->nlogs; i++) {
		src[n] = plan->log_fds[i];
		dst[n++] = FD_LOG0 + i;
	}
	/* First above every fixed place, so that moving one never
	 * overwrites another (and within the jail's --nofile). */
	for (int i = 0; i < n; i++) {
		int fd = fcntl(src[i], F_DUPFD_CLOEXEC, FD_LOG0 + plan->nlogs);

		if (fd < 0) {
			for (int k = 0; k < i; k++)
				close(src[k]);
			return cell_err_param(e, PARAM_INIT, 0, errno, "descriptors of pid 1");
		}
		src[i] = fd;
	}
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		ret = cell_err_param(e, PARAM_INIT, 0, errno, "descriptors of pid 1");
	for (int i = 0; i < n && ret == 0; i++)
		if (dup3(src[i], dst[i], dst[i] == FD_MEMFD ? O_CLOEXEC : 0) < 0)
			ret = cell_err_param(e, PARAM_INIT, 0, errno, "descriptors of pid 1");
	for (int i = 0; i < n; i++)
		close(src[i]);
	return ret;
}

static int flags_of(const struct init_plan *plan, int gate)
{
	return (gate >= 0 ? HAS_GATE : 0) | (plan->status_fd >= 0 ? HAS_STATUS : 0) |
	       (plan->restarts_fd >= 0 ? HAS_RESTARTS : 0) | (plan->out_fd >= 0 ? HAS_STDOUT : 0) |
	       (plan->err_fd >= 0 ? HAS_STDERR : 0) | (plan->tty ? HAS_TTY : 0);
}

int init_min_nofile(int nlogs)
{
	/* The fixed places, as many again while moving, cell's own. */
	return FD_LOG0 + 2 * nlogs + 16;
}

int init_exec(const struct init_plan *plan, pid_t payload, const char *path, char *const *argv,
	      char *const *envp, int gate, struct cell_err *e)
{
	char num[7][24];
	size_t argc = 0, n = 0;
	char **av;
	const int policy = plan->restart == JAIL_RESTART_ALWAYS	      ? 2
			   : plan->restart == JAIL_RESTART_ON_FAILURE ? 1
								      : 0;

	while (argv[argc] != NULL)
		argc++;
	av = calloc(argc + 12, sizeof(*av));
	if (av == NULL)
		return cell_err_param(e, PARAM_INIT, 0, ENOMEM, "the reaper's arguments");
	snprintf(num[0], sizeof(num[0]), "%d", flags_of(plan, gate));
	snprintf(num[1], sizeof(num[1]), "%d", (int)payload);
	snprintf(num[2], sizeof(num[2]), "%d", policy);
	snprintf(num[3], sizeof(num[3]), "%lld", plan->restart_max);
	snprintf(num[4], sizeof(num[4]), "%lld", plan->log_size);
	snprintf(num[5], sizeof(num[5]), "%d", plan->nlogs);
	snprintf(num[6], sizeof(num[6]), "%d", plan->log_cur);
	av[n++] = "cell-init";
	for (int i = 0; i < 7; i++)
		av[n++] = num[i];
	av[n++] = "--";
	av[n++] = (char *)path;
	for (size_t i = 0; i < argc; i++)
		av[n++] = argv[i];
	av[n] = NULL;
	if (place_fds(plan, gate, e) < 0) {
		free(av);
		return -1;
	}
	if (testpoint_fail("init:exec"))
		errno = ENOEXEC;
	else
		syscall(SYS_execveat, FD_MEMFD, "", av, envp, AT_EMPTY_PATH);
	free(av);
	return cell_err_param(e, PARAM_INIT, 0, errno, "exec the reaper");
}
