/*
 * hook.c - pause points for the reliability tests (hook.h).
 */
#include "hook.h"

#ifdef CELL_TEST_HOOKS
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void test_hook(const char *stage)
{
	const char *want = getenv("CELL_TEST_PAUSE");
	const char *file = getenv("CELL_TEST_PAUSE_FILE");

	if (want == NULL || strcmp(want, stage) != 0)
		return;
	if (file != NULL) {
		char buf[32];
		int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());

		if (fd >= 0) {
			if (write(fd, buf, (size_t)n) != n)
				_exit(125);
			close(fd);
		}
	}
	for (;;)
		pause();
}
#endif
