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

static void a_parameter_error_gets_its_subject_where_it_belongs(void **state)
{
	struct cell_err e;

	cell_err_param(&e, 3, 1, 0, "at least %s", "1M");
	assert_string_equal(e.msg, "at least 1M");
	assert_int_equal(e.about.param, 3);
	assert_int_equal(e.about.index, 1);
	/* Context goes in front; the subject stays next to its part. */
	cell_err_prefix(&e, "jail %s", "web");
	cell_err_spell(&e, "--memory 1k", NULL);
	assert_string_equal(e.msg, "jail web: --memory 1k: at least 1M");
	assert_int_equal(e.about.param, CELL_ERR_NO_PARAM);
	/* The reason alone, with an errno. */
	cell_err_param(&e, 2, 0, ENOENT, "%s", "");
	cell_err_spell(&e, "cell.conf:1:1: path = /nope", NULL);
	assert_string_equal(e.msg, "cell.conf:1:1: path = /nope: No such file or directory");
}

static void a_referred_parameter_is_spelled_too(void **state)
{
	struct cell_err e;

	cell_err_param(&e, 1, 0, 0, "no memory cgroup (started without memory)");
	cell_err_ref(&e, 2, "memory");
	assert_int_equal(e.about.ref, 2);
	cell_err_prefix(&e, "ctx");
	cell_err_spell(&e, "--swap 1G", "--memory");
	assert_string_equal(e.msg, "ctx: --swap 1G: no memory cgroup (started without --memory)");
	/* A plain error has nothing to spell. */
	cell_err_set(&e, 0, "plain");
	assert_int_equal(e.about.param, CELL_ERR_NO_PARAM);
	assert_int_equal(e.about.ref, CELL_ERR_NO_PARAM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(set_appends_the_reason),
		cmocka_unit_test(set_without_errno_has_no_reason),
		cmocka_unit_test(prefix_adds_context_in_front),
		cmocka_unit_test(long_messages_are_truncated_safely),
		cmocka_unit_test(a_parameter_error_gets_its_subject_where_it_belongs),
		cmocka_unit_test(a_referred_parameter_is_spelled_too),
	};
	return cmocka_run_group_tests_name("err", tests, NULL, NULL);
}
