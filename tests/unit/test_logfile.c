/* Unit tests of logfile.c: a log line's parts, --since's times, and the
 * ring's order by first line. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "logfile.h"

static void a_line_has_its_time_stream_tag_and_text(void **state)
{
	const char *line = "2026-12-05T06:01:02.123456789Z stderr P some text";
	struct logfile_line l;

	assert_int_equal(logfile_parse_line(line, strlen(line), &l), 0);
	assert_memory_equal(l.ts, "2026-12-05T06:01:02.123456789Z", LOGFILE_TS_LEN);
	assert_true(l.is_stderr);
	assert_true(l.partial);
	assert_int_equal(l.len, 9);
	assert_memory_equal(l.text, "some text", 9);
}

static void an_empty_line_has_no_text(void **state)
{
	const char *line = "2026-12-05T06:01:02.123456789Z stdout F ";
	struct logfile_line l;

	assert_int_equal(logfile_parse_line(line, strlen(line), &l), 0);
	assert_false(l.is_stderr);
	assert_false(l.partial);
	assert_int_equal(l.len, 0);
}

static void what_is_not_a_log_line_is_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"hello",
		"2026-12-05T06:01:02.123456789Z stdin F x",
		"2026-12-05T06:01:02.123456789Z stdout X x",
		"2026-12-05T06:01:02.123456789+ stdout F x",
	};
	struct logfile_line l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(logfile_parse_line(bad[i], strlen(bad[i]), &l), -1);
}

static void since_reads_rfc3339_and_durations(void **state)
{
	char ts[LOGFILE_TS_LEN + 1];
	struct cell_err e;
	/* 2026-12-05T06:00:00Z */
	long long now = 1796450400LL * 1000000000LL;

	assert_int_equal(logfile_parse_since("2026-12-05T06:01:02Z", now, ts, &e), 0);
	assert_string_equal(ts, "2026-12-05T06:01:02.000000000Z");
	assert_int_equal(logfile_parse_since("2026-12-05T07:01:02.5+01:00", now, ts, &e), 0);
	assert_string_equal(ts, "2026-12-05T06:01:02.500000000Z");
	assert_int_equal(logfile_parse_since("10m", now, ts, &e), 0);
	assert_string_equal(ts, "2026-12-05T05:50:00.000000000Z");
	assert_int_equal(logfile_parse_since("1d", now, ts, &e), 0);
	assert_string_equal(ts, "2026-12-04T06:00:00.000000000Z");
	for (const char *const *b = (const char *const[]){"", "x", "10", "5x", "-1m", "2026-12-05",
							  "2026-12-05T06:00:00", NULL};
	     *b != NULL; b++)
		assert_int_equal(logfile_parse_since(*b, now, ts, &e), -1);
}

/* Writes TEXT into log.N of DIRFD. */
static void put(int dirfd, int n, const char *text)
{
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "log.%d", n);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void the_ring_is_read_in_the_order_of_first_lines(void **state)
{
	char dir[] = "/tmp/cell-test-logfile.XXXXXX";
	int dirfd, idx[LOGFILE_MAX], fds[3], cur = -1;
	struct cell_err e;

	assert_non_null(mkdtemp(dir));
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dirfd >= 0);
	put(dirfd, 0, "2026-12-05T06:00:03.000000000Z stdout F c\n");
	put(dirfd, 1, "2026-12-05T06:00:01.000000000Z stdout F a\n");
	put(dirfd, 2, "2026-12-05T06:00:02.000000000Z stdout F b\n");
	assert_int_equal(logfile_list(dirfd, idx), 3);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 2);
	assert_int_equal(idx[2], 0);
	/* The reaper goes on in the newest. */
	assert_int_equal(logfile_open_ring(dirfd, 3, fds, &cur, &e), 0);
	assert_int_equal(cur, 0);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	/* An empty file is no part of the order. */
	put(dirfd, 0, "");
	assert_int_equal(logfile_list(dirfd, idx), 2);
	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "log.%d", i);
		unlinkat(dirfd, name, 0);
	}
	close(dirfd);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_line_has_its_time_stream_tag_and_text),
		cmocka_unit_test(an_empty_line_has_no_text),
		cmocka_unit_test(what_is_not_a_log_line_is_refused),
		cmocka_unit_test(since_reads_rfc3339_and_durations),
		cmocka_unit_test(the_ring_is_read_in_the_order_of_first_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
