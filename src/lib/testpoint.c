/*
 * testpoint.c - pause points for the reliability tests (testpoint.h).
 */
#include "testpoint.h"

#ifdef CELL_TESTPOINTS
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool testpoint_fail(const char *stage)
{
	const char *want = getenv("CELL_TEST_FAIL");

	return want != NULL && strcmp(want, stage) == 0;
}

bool testpoint_fail_at(const char *prefix, const char *name, struct cell_err *e)
{
	char stage[64];

	snprintf(stage, sizeof(stage), "%s:%s", prefix, name);
	if (!testpoint_fail(stage))
		return false;
	cell_err_set(e, EIO, "%s (test failure)", stage);
	return true;
}

static int owner = -1;

void testpoint_owner(int pid)
{
	owner = pid;
}

static volatile sig_atomic_t resumed;

static void on_resume(int sig)
{
	(void)sig;
	resumed = 1;
}

void testpoint_pause(const char *stage)
{
	const char *want = getenv("CELL_TEST_PAUSE");
	const char *file = getenv("CELL_TEST_PAUSE_FILE");
	struct sigaction sa, old;
	sigset_t mask;

	if (want == NULL || strcmp(want, stage) != 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_resume;
	sigaction(SIGUSR1, &sa, &old);
	resumed = 0;
	if (file != NULL) {
		char buf[32];
		int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int n = snprintf(buf, sizeof(buf), "%d\n", owner > 0 ? owner : (int)getpid());

		if (fd >= 0) {
			if (write(fd, buf, (size_t)n) != n)
				_exit(125);
			close(fd);
		}
	}
	/* Only SIGUSR1 unblocked: a signal cell holds for later stays so. */
	sigprocmask(SIG_SETMASK, NULL, &mask);
	sigdelset(&mask, SIGUSR1);
	while (!resumed)
		sigsuspend(&mask);
	sigaction(SIGUSR1, &old, NULL);
}
#endif
