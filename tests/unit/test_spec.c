/* Unit tests of spec.c: value syntax, the environment and validation
 * (the parameters by name: test_param.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cmocka.h>

#include "param.h"
#include "spec.h"

static void env_set_replaces_and_copies(void **state)
{
	struct jail_spec s;
	struct cell_err e;
	char *const base[] = {"A=1", "B=2", "=bad", "noequals", NULL};

	spec_init(&s);
	assert_int_equal(spec_env_import(&s, base, &e), 0);
	assert_int_equal(s.proc.nenv, 2);
	assert_int_equal(spec_env_set(&s, "A=3", &e), 0);
	assert_string_equal(spec_env_get(&s, "A"), "3");
	assert_int_equal(s.proc.nenv, 2);
	setenv("CELL_UNIT_X", "from-host", 1);
	assert_int_equal(spec_env_set(&s, "CELL_UNIT_X", &e), 0);
	assert_string_equal(spec_env_get(&s, "CELL_UNIT_X"), "from-host");
	unsetenv("CELL_UNIT_Y");
	assert_int_equal(spec_env_set(&s, "CELL_UNIT_Y", &e), 0);
	assert_null(spec_env_get(&s, "CELL_UNIT_Y"));
	assert_int_equal(spec_env_set(&s, "=x", &e), -1);
	assert_string_equal(e.msg, "expected KEY=VALUE");
	assert_int_equal(spec_env_set(&s, "1A=x", &e), -1);
	assert_string_equal(e.msg, "invalid variable name");
	assert_int_equal(spec_env_set(&s, "A-B=x", &e), -1);
	assert_null(s.proc.env[s.proc.nenv]);
	spec_free(&s);
}

static void names_follow_the_documented_alphabet(void **state)
{
	char long_name[JAIL_NAME_MAX + 2];

	assert_true(spec_valid_name("web"));
	assert_true(spec_valid_name("a1.b_c-d"));
	assert_false(spec_valid_name(""));
	assert_false(spec_valid_name("-x"));
	assert_false(spec_valid_name(".hidden"));
	assert_false(spec_valid_name("a/b"));
	assert_false(spec_valid_name(".."));
	assert_false(spec_valid_name("a b"));
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_false(spec_valid_name(long_name));
	long_name[JAIL_NAME_MAX] = '\0';
	assert_true(spec_valid_name(long_name));
}

static void hostnames_are_rfc1123_labels(void **state)
{
	assert_true(spec_valid_hostname("web"));
	assert_true(spec_valid_hostname("a.example.org"));
	assert_true(spec_valid_hostname("x-1"));
	assert_false(spec_valid_hostname(""));
	assert_false(spec_valid_hostname("-a"));
	assert_false(spec_valid_hostname("a-"));
	assert_false(spec_valid_hostname("a..b"));
	assert_false(spec_valid_hostname(".a"));
	assert_false(spec_valid_hostname("a."));
	assert_false(spec_valid_hostname("a_b"));
	assert_false(spec_valid_hostname("a b"));
	assert_false(spec_valid_hostname(
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")); /* 65 */
}

static void fill(struct jail_spec *s, const char *name)
{
	char *const argv[] = {"/bin/true", NULL};
	struct cell_err e;

	spec_init(s);
	if (name != NULL)
		s->name = strdup(name);
	spec_set_argv(s, 1, argv, &e);
}

static void validate_fills_defaults(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	fill(&s, "web");
	assert_int_equal(spec_validate(&s, &e), 0);
	assert_string_equal(s.hostname, "web");
	assert_null(spec_env_get(&s, "PATH"));
	spec_free(&s);

	fill(&s, NULL);
	assert_int_equal(spec_validate(&s, &e), 0);
	assert_string_equal(s.hostname, "cell");
	assert_non_null(s.name);
	assert_int_equal(strlen(s.name), 12);
	assert_true(spec_valid_name(s.name));
	spec_free(&s);

	/* A valid name that is no valid hostname falls back to "cell". */
	fill(&s, "a_b");
	assert_int_equal(spec_validate(&s, &e), 0);
	assert_string_equal(s.hostname, "cell");
	spec_free(&s);
}

/* The jail's environment is its own: the defaults around what -e gave,
 * -e winning, TERM only with a pty, and nothing of the caller's. */
static void the_jail_environment_is_its_own(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	(void)state;
	setenv("CELL_UNIT_LEAK", "host", 1);
	fill(&s, "web");
	assert_int_equal(spec_env_set(&s, "container=other", &e), 0);
	assert_int_equal(spec_validate(&s, &e), 0);
	assert_int_equal(spec_env_jail(&s, "vt100", &e), 0);
	assert_true(s.proc.home_env && s.proc.user_groups);
	assert_string_equal(spec_env_get(&s, "HOSTNAME"), "web");
	assert_string_equal(spec_env_get(&s, "container"), "other");
	assert_non_null(spec_env_get(&s, "PATH"));
	assert_null(spec_env_get(&s, "TERM"));
	assert_null(spec_env_get(&s, "CELL_UNIT_LEAK"));
	assert_int_equal(s.proc.nenv, 3);
	spec_free(&s);

	fill(&s, "web");
	s.proc.terminal = true;
	assert_int_equal(spec_env_set(&s, "PATH=/bin", &e), 0);
	assert_int_equal(spec_validate(&s, &e), 0);
	assert_int_equal(spec_env_jail(&s, NULL, &e), 0);
	assert_string_equal(spec_env_get(&s, "TERM"), "xterm");
	assert_string_equal(spec_env_get(&s, "PATH"), "/bin");
	assert_string_equal(spec_env_get(&s, "container"), "cell");
	spec_free(&s);
	unsetenv("CELL_UNIT_LEAK");
}

static void validate_rejects_bad_specs(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	/* Each error says what is wrong and records which parameter. */
	fill(&s, "bad/name");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_int_equal(e.about.param, PARAM_NAME);
	assert_non_null(strstr(e.msg, "invalid name"));
	spec_free(&s);

	fill(&s, "ok");
	s.hostname = strdup("bad_host");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_int_equal(e.about.param, PARAM_HOSTNAME);
	assert_string_equal(e.msg, "invalid hostname");
	spec_free(&s);

	fill(&s, "ok");
	s.rw = true;
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_int_equal(e.about.param, PARAM_RW);
	assert_int_equal(e.about.ref, PARAM_PATH);
	assert_memory_equal(e.msg + e.about.ref_at, "path", 4);
	spec_free(&s);

	fill(&s, "ok");
	s.proc.cwd = strdup("relative");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_int_equal(e.about.param, PARAM_WORKDIR);
	assert_string_equal(e.msg, "must be an absolute path");
	spec_free(&s);

	fill(&s, "ok");
	s.domainname = strdup("");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_int_equal(e.about.param, PARAM_DOMAINNAME);
	spec_free(&s);

	spec_init(&s);
	s.name = strdup("ok");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_int_equal(e.about.param, PARAM_COMMAND);
	assert_string_equal(e.msg, "no command to run");
	spec_free(&s);
}

/* What only the host's ids can have: a clear error naming userns, not a
 * rule that silently does nothing in the jail's user namespace. */
static void validate_refuses_what_needs_the_hosts_ids(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	fill(&s, "ok");
	assert_int_equal(param_set(&s, "allow", "chown", NULL, &e), 0);
	assert_int_equal(param_set(&s, "allow", "mlock", NULL, &e), 0);
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_string_equal(e.msg, "needs userns host: the kernel honours CAP_IPC_LOCK in the "
				   "host's user namespace only");
	assert_int_equal(e.about.param, PARAM_ALLOW);
	assert_int_equal(e.about.index, 1); /* chown, mlock */
	assert_int_equal(e.about.ref, PARAM_USERNS);
	assert_int_equal(param_set(&s, "userns", "host", NULL, &e), 0);
	assert_int_equal(spec_validate(&s, &e), 0);
	spec_free(&s);

	fill(&s, "ok");
	assert_int_equal(param_set(&s, "allow", "raw_sockets", NULL, &e), 0);
	assert_int_equal(spec_validate(&s, &e), 0);
	assert_int_equal(param_set(&s, "net", "host", NULL, &e), 0);
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_int_equal(e.about.param, PARAM_ALLOW);
	assert_int_equal(e.about.ref, PARAM_USERNS);
	spec_free(&s);
}

static void sizes_and_cpus_parse(void **state)
{
	long long v;

	assert_int_equal(spec_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(spec_parse_size("64M", &v), 0);
	assert_int_equal(v, 64LL << 20);
	assert_int_equal(spec_parse_size("1g", &v), 0);
	assert_int_equal(v, 1LL << 30);
	assert_int_equal(spec_parse_size("", &v), -1);
	assert_int_equal(spec_parse_size("12Q", &v), -1);
	assert_int_equal(spec_parse_size("-1", &v), -1);

	assert_int_equal(spec_parse_cpus("0.5", &v), 0);
	assert_int_equal(v, 500);
	assert_int_equal(spec_parse_cpus("2", &v), 0);
	assert_int_equal(v, 2000);
	assert_int_equal(spec_parse_cpus(".25", &v), 0);
	assert_int_equal(v, 250);
	assert_int_equal(spec_parse_cpus("0", &v), -1);
	assert_int_equal(spec_parse_cpus("0.0001", &v), -1);
	assert_int_equal(spec_parse_cpus("1.", &v), -1);
	assert_int_equal(spec_parse_cpus("x", &v), -1);
}

static void validate_checks_cgroup_params(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	fill(&s, "ok");
	s.limits.swap = 1 << 20;
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_string_equal(e.msg, "needs memory");
	assert_int_equal(e.about.param, PARAM_SWAP);
	assert_int_equal(e.about.ref, PARAM_MEMORY);
	spec_free(&s);

	const char *bad[] = {"", "..", "a/../b", "a/./b", "/x/.."};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fill(&s, "ok");
		s.cgroup_parent = strdup(bad[i]);
		assert_int_equal(spec_validate(&s, &e), -1);
		assert_int_equal(e.about.param, PARAM_CGROUP_PARENT);
		spec_free(&s);
	}
	const char *good[] = {"jails", "/machine.slice/x", "a..b/c"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		fill(&s, "ok");
		s.cgroup_parent = strdup(good[i]);
		assert_int_equal(spec_validate(&s, &e), 0);
		spec_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(env_set_replaces_and_copies),
		cmocka_unit_test(the_jail_environment_is_its_own),
		cmocka_unit_test(names_follow_the_documented_alphabet),
		cmocka_unit_test(hostnames_are_rfc1123_labels),
		cmocka_unit_test(validate_fills_defaults),
		cmocka_unit_test(validate_rejects_bad_specs),
		cmocka_unit_test(sizes_and_cpus_parse),
		cmocka_unit_test(validate_checks_cgroup_params),
		cmocka_unit_test(validate_refuses_what_needs_the_hosts_ids),
	};
	return cmocka_run_group_tests_name("spec", tests, NULL, NULL);
}
