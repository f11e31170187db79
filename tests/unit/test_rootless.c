/*
 * Unit tests of rootless.c's reading of /etc/subuid and /etc/subgid: a
 * user's subordinate range found by name or by uid, the first one large
 * enough for a jail (else the largest), malformed lines passed over, and
 * nothing read beyond the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rootless.h"

static int find(const char *text, const char *user, uid_t uid, unsigned long *s, unsigned long *n)
{
	/* Exactly the text's bytes, no NUL after them. */
	size_t len = strlen(text);
	char *copy = malloc(len > 0 ? len : 1);
	int r;

	assert_non_null(copy);
	memcpy(copy, text, len);
	r = rootless_subids(copy, len, user, uid, ROOTLESS_IDS - 1, s, n);
	free(copy);
	return r;
}

static void test_by_name_and_by_uid(void **state)
{
	unsigned long s = 0, n = 0;

	(void)state;
	assert_int_equal(find("bob:100000:65536\nalice:165536:65536\n", "alice", 1000, &s, &n), 1);
	assert_int_equal(s, 165536);
	assert_int_equal(n, 65536);
	assert_int_equal(find("1000:200000:65536", "alice", 1000, &s, &n), 1);
	assert_int_equal(s, 200000);
	assert_int_equal(find("bob:100000:65536\n", "alice", 1000, &s, &n), 0);
	/* Without a name (no passwd line), the uid only. */
	assert_int_equal(find("alice:1:65536\n1000:7:65536\n", NULL, 1000, &s, &n), 1);
	assert_int_equal(s, 7);
}

static void test_first_large_enough_else_largest(void **state)
{
	unsigned long s = 0, n = 0;

	(void)state;
	assert_int_equal(
		find("alice:10:5\nalice:100:70000\nalice:900000:65536\n", "alice", 1, &s, &n), 1);
	assert_int_equal(s, 100);
	assert_int_equal(n, 70000);
	assert_int_equal(find("alice:10:5\nalice:100:50\nalice:900:7\n", "alice", 1, &s, &n), 1);
	assert_int_equal(s, 100);
	assert_int_equal(n, 50);
}

static void test_malformed_lines_are_passed_over(void **state)
{
	static const char text[] = "alice\n"
				   "alice:1\n"
				   "alice::65536\n"
				   "alice:x:65536\n"
				   "alice:5:\n"
				   "alice:5:0\n"
				   "alice:5:65536x\n"
				   "alice:4294967295:2\n"
				   "alice:-1:65536\n"
				   "alice:300000:65536";
	unsigned long s = 0, n = 0;

	(void)state;
	assert_int_equal(find(text, "alice", 1, &s, &n), 1);
	assert_int_equal(s, 300000);
	assert_int_equal(n, 65536);
	assert_int_equal(find("", "alice", 1, &s, &n), 0);
	assert_int_equal(find("alicex:1:65536\nalic:1:65536\n", "alice", 1, &s, &n), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_by_name_and_by_uid),
		cmocka_unit_test(test_first_large_enough_else_largest),
		cmocka_unit_test(test_malformed_lines_are_passed_over),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
