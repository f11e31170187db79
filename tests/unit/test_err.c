/* Unit tests of err.c: messages and context. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "err.h"

static void set_appends_the_reason(void **state)
{
	struct cell_err e;

	assert_int_equal(cell_err_set(&e, ENOENT, "open %s", "/x"), -1);
	assert_string_equal(e.msg, "open /x: No such file or directory");
	assert_int_equal(e.errnum, ENOENT);
	assert_int_equal(e.exit_code, CELL_EXIT_ERROR);
}

static void set_without_errno_has_no_reason(void **state)
{
	struct cell_err e;

	cell_err_set(&e, 0, "bad value");
	assert_string_equal(e.msg, "bad value");
}

static void prefix_adds_context_in_front(void **state)
{
	struct cell_err e;

	cell_err_set(&e, EPERM, "mount proc");
	assert_int_equal(cell_err_prefix(&e, "jail %s", "web"), -1);
	assert_string_equal(e.msg, "jail web: mount proc: Operation not permitted");
}

static void long_messages_are_truncated_safely(void **state)
{
	struct cell_err e;
	char big[4096];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cell_err_set(&e, EIO, "%s", big);
	assert_int_equal(strlen(e.msg), sizeof(e.msg) - 1);
	cell_err_prefix(&e, "ctx");
	assert_memory_equal(e.msg, "ctx: aaa", 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(set_appends_the_reason),
		cmocka_unit_test(set_without_errno_has_no_reason),
		cmocka_unit_test(prefix_adds_context_in_front),
		cmocka_unit_test(long_messages_are_truncated_safely),
	};
	return cmocka_run_group_tests_name("err", tests, NULL, NULL);
}
