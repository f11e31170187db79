/*
 * Unit tests of untrusted.c: a file a jail controls is read only when it
 * is a regular file of bounded size, and never waited on.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "untrusted.h"

static char dir[] = "/tmp/cell-unit-untrusted-XXXXXX";
static int dirfd = -1;

static int setup(void **state)
{
	if (mkdtemp(dir) == NULL)
		return -1;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return dirfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	char cmd[128];

	close(dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void write_at(const char *name, const char *text, size_t len)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static void a_regular_file_is_read_whole_and_terminated(void **state)
{
	struct cell_err e;
	char *text;
	size_t len;

	write_at("passwd", "root:x:0:0::/root:/bin/sh\n", 26);
	assert_int_equal(untrusted_read(dirfd, "passwd", 0, 1024, &text, &len, &e), 0);
	assert_int_equal(len, 26);
	assert_string_equal(text, "root:x:0:0::/root:/bin/sh\n");
	free(text);
	/* larger than the first guess of the buffer, exactly the bound */
	{
		char *big = malloc(10000);

		assert_non_null(big);
		memset(big, 'a', 10000);
		write_at("big", big, 10000);
		free(big);
	}
	assert_int_equal(untrusted_read(dirfd, "big", 0, 10000, &text, &len, &e), 0);
	assert_int_equal(len, 10000);
	assert_int_equal(text[9999], 'a');
	assert_int_equal(text[10000], '\0');
	free(text);
}

/* A FIFO with no writer: a blocking open would wait for ever. */
static void a_fifo_is_refused_without_waiting(void **state)
{
	struct cell_err e;
	char *text = (char *)1;
	size_t len;

	assert_int_equal(mkfifoat(dirfd, "fifo", 0600), 0);
	alarm(5); /* a hang fails the test instead of blocking it */
	assert_int_equal(untrusted_read(dirfd, "fifo", 0, 1024, &text, &len, &e), -1);
	alarm(0);
	assert_int_equal(e.errnum, EINVAL);
	assert_null(text);
	assert_non_null(strstr(e.msg, "not a regular file"));
}

static void a_directory_or_device_is_refused(void **state)
{
	struct cell_err e;
	char *text;
	size_t len;

	assert_int_equal(untrusted_read(AT_FDCWD, dir, 0, 1024, &text, &len, &e), -1);
	assert_int_equal(e.errnum, EINVAL);
	assert_int_equal(untrusted_read(AT_FDCWD, "/dev/zero", 0, 1024, &text, &len, &e), -1);
	assert_int_equal(e.errnum, EINVAL);
}

static void a_file_above_the_bound_is_refused(void **state)
{
	struct cell_err e;
	char *text;
	size_t len;

	write_at("large", "0123456789", 10);
	assert_int_equal(untrusted_read(dirfd, "large", 0, 9, &text, &len, &e), -1);
	assert_int_equal(e.errnum, EFBIG);
	assert_int_equal(untrusted_read(dirfd, "large", 0, 10, &text, &len, &e), 0);
	free(text);
}

static void a_symlink_is_refused_only_when_asked(void **state)
{
	struct cell_err e;
	char *text;
	size_t len;

	write_at("target", "x", 1);
	assert_int_equal(symlinkat("target", dirfd, "link"), 0);
	assert_int_equal(untrusted_read(dirfd, "link", UNTRUSTED_NOFOLLOW, 16, &text, &len, &e),
			 -1);
	assert_int_equal(e.errnum, ELOOP);
	assert_int_equal(untrusted_read(dirfd, "link", 0, 16, &text, &len, &e), 0);
	assert_string_equal(text, "x");
	free(text);
}

static void a_missing_file_says_enoent(void **state)
{
	struct cell_err e;
	char *text;
	size_t len;

	assert_int_equal(untrusted_read(dirfd, "none", 0, 16, &text, &len, &e), -1);
	assert_int_equal(e.errnum, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_regular_file_is_read_whole_and_terminated),
		cmocka_unit_test(a_fifo_is_refused_without_waiting),
		cmocka_unit_test(a_directory_or_device_is_refused),
		cmocka_unit_test(a_file_above_the_bound_is_refused),
		cmocka_unit_test(a_symlink_is_refused_only_when_asked),
		cmocka_unit_test(a_missing_file_says_enoent),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
