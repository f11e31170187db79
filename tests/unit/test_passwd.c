/*
 * Unit tests of passwd.c: a jail's /etc/passwd and /etc/group, whose
 * text comes from an image and is hostile, parsed defensively: the
 * well-formed lines are found, every malformed one is passed over, and
 * nothing is read beyond the buffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "passwd.h"

static const char passwd[] = "root:x:0:0:root:/root:/bin/bash\n"
			     "# a comment\n"
			     "\n"
			     "+nisuser::::::\n"
			     "short:x:5:5\n"
			     "toolong:x:6:6:a:/b:/c:extra\n"
			     "badid:x:12a:7::/home/badid:/bin/sh\n"
			     "huge:x:4294967295:7::/:/bin/sh\n"
			     "www-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\r\n"
			     "alice:x:1000:500:Alice:/home/alice:/bin/sh\n"
			     "relhome:x:1001:1001::home/r:/bin/sh\n"
			     "nohome:x:1002:1002:::/bin/sh\n"
			     "alice:x:2000:2000::/second:/bin/sh\n"
			     "last:x:3000:3000::/last:/bin/sh"; /* no final newline */

static const char group[] = "root:x:0:\n"
			    "staff:x:50:alice,bob\n"
			    "wheel:x:10:bob,alice\n"
			    "bad:x:x:alice\n"
			    "dup:x:50:alice\n"
			    "alicesque:x:60:alice2,xalice\n"
			    "tail:x:70:alice";

static void users_are_found_by_name_and_by_uid(void **state)
{
	struct passwd_user u;

	(void)state;
	assert_int_equal(passwd_find(passwd, strlen(passwd), "alice", 0, &u), 1);
	assert_string_equal(u.name, "alice");
	assert_int_equal(u.uid, 1000);
	assert_int_equal(u.gid, 500);
	assert_string_equal(u.home, "/home/alice"); /* the first alice */
	assert_int_equal(passwd_find(passwd, strlen(passwd), NULL, 33, &u), 1);
	assert_string_equal(u.name, "www-data");
	assert_string_equal(u.home, "/var/www"); /* a CRLF line */
	assert_int_equal(passwd_find(passwd, strlen(passwd), "last", 0, &u), 1);
	assert_string_equal(u.home, "/last");
	assert_int_equal(passwd_find(passwd, strlen(passwd), "root", 0, &u), 1);
	assert_int_equal(u.uid, 0);
	assert_int_equal(passwd_find(passwd, strlen(passwd), "nobody", 0, &u), 0);
	assert_int_equal(passwd_find(passwd, strlen(passwd), NULL, 4242, &u), 0);
}

static void malformed_lines_are_passed_over(void **state)
{
	struct passwd_user u;

	(void)state;
	assert_int_equal(passwd_find(passwd, strlen(passwd), "short", 0, &u), 0);
	assert_int_equal(passwd_find(passwd, strlen(passwd), "toolong", 0, &u), 0);
	assert_int_equal(passwd_find(passwd, strlen(passwd), "badid", 0, &u), 0);
	assert_int_equal(passwd_find(passwd, strlen(passwd), "huge", 0, &u), 0);
	assert_int_equal(passwd_find(passwd, strlen(passwd), "+nisuser", 0, &u), 0);
	assert_int_equal(passwd_find(passwd, strlen(passwd), NULL, 5, &u), 0);
	/* An empty or relative home is "/". */
	assert_int_equal(passwd_find(passwd, strlen(passwd), "relhome", 0, &u), 1);
	assert_string_equal(u.home, "/");
	assert_int_equal(passwd_find(passwd, strlen(passwd), "nohome", 0, &u), 1);
	assert_string_equal(u.home, "/");
}

static void a_line_with_a_nul_byte_is_passed_over(void **state)
{
	static const char text[] = "evil:x:0:0::/root\0:/bin/sh\nok:x:7:7::/ok:/bin/sh\n";
	struct passwd_user u;

	(void)state;
	assert_int_equal(passwd_find(text, sizeof(text) - 1, "evil", 0, &u), 0);
	assert_int_equal(passwd_find(text, sizeof(text) - 1, "ok", 0, &u), 1);
	assert_int_equal(u.uid, 7);
}

/* The buffer's length is the end, not a NUL: a copy without one, in a
 * heap block of exactly its size, is read within it (ASan checks). */
static void the_text_is_read_within_its_length(void **state)
{
	const char line[] = "cut:x:9:9::/cut:/bin/sh";
	size_t n = strlen(line);
	char *text = malloc(n);
	struct passwd_user u;
	gid_t g[4];
	size_t ng;

	(void)state;
	assert_non_null(text);
	memcpy(text, line, n);
	for (size_t len = 0; len <= n; len++) {
		int found = passwd_find(text, len, "cut", 0, &u);

		/* Found once the line has its seven fields. */
		assert_int_equal(found, len >= n - strlen(":/bin/sh") + 1 ? 1 : 0);
		/* "cut:x:9:" and "cut:x:9:9" are group lines (member "9"). */
		assert_int_equal(group_find(text, len, "cut", g), len == 8 || len == 9 ? 1 : 0);
		assert_int_equal(group_members(text, len, "9", g, 4, &ng), 0);
		assert_int_equal(ng, len == 9 ? 1 : 0);
	}
	free(text);
}

static void a_long_name_or_home_is_refused_or_cut_to_slash(void **state)
{
	char *text = malloc(PASSWD_HOME_MAX + 600);
	struct passwd_user u;
	int n;

	(void)state;
	assert_non_null(text);
	n = sprintf(text, "%0*d:x:1:1::/h:/bin/sh\n", PASSWD_NAME_MAX + 1, 0);
	n += sprintf(text + n, "longhome:x:2:2::/%0*d:/bin/sh\n", PASSWD_HOME_MAX, 0);
	assert_int_equal(passwd_find(text, (size_t)n, NULL, 1, &u), 0);
	assert_int_equal(passwd_find(text, (size_t)n, "longhome", 0, &u), 1);
	assert_string_equal(u.home, "/");
	free(text);
}

static void groups_are_found_by_name(void **state)
{
	gid_t gid = 0;

	(void)state;
	assert_int_equal(group_find(group, strlen(group), "staff", &gid), 1);
	assert_int_equal(gid, 50);
	assert_int_equal(group_find(group, strlen(group), "tail", &gid), 1);
	assert_int_equal(gid, 70);
	assert_int_equal(group_find(group, strlen(group), "bad", &gid), 0);
	assert_int_equal(group_find(group, strlen(group), "nogroup", &gid), 0);
}

static void a_users_groups_are_those_listing_it_once_each(void **state)
{
	gid_t g[8];
	size_t n = 0;

	(void)state;
	assert_int_equal(group_members(group, strlen(group), "alice", g, 8, &n), 0);
	assert_int_equal(n, 3); /* staff, wheel, tail; dup's 50 once; not alicesque */
	assert_int_equal(g[0], 50);
	assert_int_equal(g[1], 10);
	assert_int_equal(g[2], 70);
	assert_int_equal(group_members(group, strlen(group), "bob", g, 8, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(group_members(group, strlen(group), "carol", g, 8, &n), 0);
	assert_int_equal(n, 0);
	/* More than the room is an error, not a cut. */
	assert_int_equal(group_members(group, strlen(group), "alice", g, 2, &n), -1);
}

static void names_are_checked_before_any_lookup(void **state)
{
	(void)state;
	assert_true(passwd_valid_name("alice"));
	assert_true(passwd_valid_name("www-data"));
	assert_true(passwd_valid_name("a.b_c"));
	assert_true(passwd_valid_name("host$"));
	assert_true(passwd_valid_name("1a"));
	assert_false(passwd_valid_name(""));
	assert_false(passwd_valid_name("123")); /* an id */
	assert_false(passwd_valid_name("-x"));
	assert_false(passwd_valid_name("a:b"));
	assert_false(passwd_valid_name("a b"));
	assert_false(passwd_valid_name("a$b"));
	assert_false(passwd_valid_name("a/b"));
}

/* Random bytes with many ':' and '\n' never crash or read outside. */
static void random_text_is_harmless(void **state)
{
	static const char alphabet[] = "::\n\n,01a9/\r\0x-+#";
	struct passwd_user u;
	gid_t g[16];
	size_t ng;

	(void)state;
	srand(7);
	for (int round = 0; round < 20000; round++) {
		size_t len = (size_t)(rand() % 96);
		char *text = malloc(len + 1);

		assert_non_null(text);
		for (size_t i = 0; i < len; i++)
			text[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		(void)passwd_find(text, len, "a", 0, &u);
		(void)passwd_find(text, len, NULL, 1, &u);
		(void)group_find(text, len, "a", g);
		(void)group_members(text, len, "a", g, 16, &ng);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(users_are_found_by_name_and_by_uid),
		cmocka_unit_test(malformed_lines_are_passed_over),
		cmocka_unit_test(a_line_with_a_nul_byte_is_passed_over),
		cmocka_unit_test(the_text_is_read_within_its_length),
		cmocka_unit_test(a_long_name_or_home_is_refused_or_cut_to_slash),
		cmocka_unit_test(groups_are_found_by_name),
		cmocka_unit_test(a_users_groups_are_those_listing_it_once_each),
		cmocka_unit_test(names_are_checked_before_any_lookup),
		cmocka_unit_test(random_text_is_harmless),
	};
	return cmocka_run_group_tests_name("passwd", tests, NULL, NULL);
}
