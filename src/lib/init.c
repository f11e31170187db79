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
#include <sys/wait.h>
#include <unistd.h>

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH};

void init_forwarded_signals(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
}

static int status_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/* The payload's status, for `cell ls` and `cell inspect` of a jail that
 * has ended; one short write, nothing allocated. */
static void record_status(int fd, int code)
{
	char buf[8];
	int n = 0;

	if (fd < 0)
		return;
	if (code >= 100)
		buf[n++] = (char)('0' + code / 100);
	if (code >= 10)
		buf[n++] = (char)('0' + code / 10 % 10);
	buf[n++] = (char)('0' + code % 10);
	buf[n++] = '\n';
	if (write(fd, buf, (size_t)n) < 0)
		return; /* nobody to tell: the status stays unknown */
}

noreturn void init_reap(pid_t payload, const sigset_t *forward, int status_fd)
{
	sigset_t wait_set = *forward;

	sigaddset(&wait_set, SIGCHLD);
	for (;;) {
		siginfo_t info;
		int sig = sigwaitinfo(&wait_set, &info);

		if (sig < 0)
			continue; /* EINTR only: every waited signal is blocked */
		if (sig != SIGCHLD) {
			kill(payload, sig);
			continue;
		}
		for (;;) {
			int status;
			pid_t pid = waitpid(-1, &status, WNOHANG);

			if (pid <= 0)
				break;
			/* Leaving kills the rest of the jail (the kernel
			 * ends a pid namespace with its init). */
			if (pid == payload) {
				record_status(status_fd, status_code(status));
				_exit(status_code(status));
			}
		}
	}
}
