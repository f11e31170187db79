/* Unit tests of spec.c: value parsers and validation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cmocka.h>

#include "spec.h"

static void bind_parses_src_dst_and_mode(void **state)
{
	struct jail_bind b;
	struct cell_err e;

	assert_int_equal(spec_parse_bind("/a:/b", &b, &e), 0);
	assert_string_equal(b.src, "/a");
	assert_string_equal(b.dst, "/b");
	assert_false(b.ro);
	free(b.src);
	free(b.dst);
	/* A relative source is made absolute against the caller's cwd. */
	assert_int_equal(chdir("/usr"), 0);
	assert_int_equal(spec_parse_bind("rel/dir:/b/c:ro", &b, &e), 0);
	assert_string_equal(b.src, "/usr/rel/dir");
	assert_true(b.ro);
	free(b.src);
	free(b.dst);
	assert_int_equal(spec_parse_bind("/a:/b:rw", &b, &e), 0);
	assert_false(b.ro);
	assert_false(b.dev);
	free(b.src);
	free(b.dst);
	assert_int_equal(spec_parse_bind("/a:/b:ro,dev", &b, &e), 0);
	assert_true(b.ro);
	assert_true(b.dev);
	free(b.src);
	free(b.dst);
}

static void bind_rejects_malformed_values(void **state)
{
	static const char *bad[] = {"/a", ":/b", "/a:", "/a:rel", "/a:/b:rx", "/a:/b:", ""};
	struct jail_bind b;
	struct cell_err e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(spec_parse_bind(bad[i], &b, &e), -1);
		assert_non_null(strstr(e.msg, "--bind"));
	}
}

static void user_parses_uid_and_optional_gid(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(spec_parse_user(&s, "1000", &e), 0);
	assert_true(s.has_user);
	assert_int_equal(s.uid, 1000);
	assert_false(s.has_gid);
	assert_int_equal(spec_parse_user(&s, "0:5", &e), 0);
	assert_int_equal(s.uid, 0);
	assert_true(s.has_gid);
	assert_int_equal(s.gid, 5);
	assert_int_equal(spec_parse_user(&s, "bob", &e), -1);
	assert_int_equal(spec_parse_user(&s, "1:x", &e), -1);
	assert_int_equal(spec_parse_user(&s, "-1", &e), -1);
	assert_int_equal(spec_parse_user(&s, "4294967295", &e), -1);
	assert_int_equal(spec_parse_user(&s, "", &e), -1);
	spec_free(&s);
}

static void env_set_replaces_and_copies(void **state)
{
	struct jail_spec s;
	struct cell_err e;
	char *const base[] = {"A=1", "B=2", "=bad", "noequals", NULL};

	spec_init(&s);
	assert_int_equal(spec_env_import(&s, base, &e), 0);
	assert_int_equal(s.nenv, 2);
	assert_int_equal(spec_env_set(&s, "A=3", &e), 0);
	assert_string_equal(spec_env_get(&s, "A"), "3");
	assert_int_equal(s.nenv, 2);
	setenv("CELL_UNIT_X", "from-host", 1);
	assert_int_equal(spec_env_set(&s, "CELL_UNIT_X", &e), 0);
	assert_string_equal(spec_env_get(&s, "CELL_UNIT_X"), "from-host");
	unsetenv("CELL_UNIT_Y");
	assert_int_equal(spec_env_set(&s, "CELL_UNIT_Y", &e), 0);
	assert_null(spec_env_get(&s, "CELL_UNIT_Y"));
	assert_int_equal(spec_env_set(&s, "=x", &e), -1);
	assert_int_equal(spec_env_set(&s, "1A=x", &e), -1);
	assert_int_equal(spec_env_set(&s, "A-B=x", &e), -1);
	assert_null(s.env[s.nenv]);
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
	assert_non_null(spec_env_get(&s, "PATH"));
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

static void validate_rejects_bad_specs(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	fill(&s, "bad/name");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_non_null(strstr(e.msg, "--name"));
	spec_free(&s);

	fill(&s, "ok");
	s.hostname = strdup("bad_host");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_non_null(strstr(e.msg, "--hostname"));
	spec_free(&s);

	fill(&s, "ok");
	s.rw = true;
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_non_null(strstr(e.msg, "--rw"));
	spec_free(&s);

	fill(&s, "ok");
	s.workdir = strdup("relative");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_non_null(strstr(e.msg, "--workdir"));
	spec_free(&s);

	fill(&s, "ok");
	s.domainname = strdup("");
	assert_int_equal(spec_validate(&s, &e), -1);
	spec_free(&s);

	spec_init(&s);
	s.name = strdup("ok");
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_non_null(strstr(e.msg, "command"));
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

static void limits_are_checked_by_name(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(spec_set_limit(&s, "nrtask", "50", &e), 0);
	assert_int_equal(s.limits.nrtask, 50);
	assert_int_equal(spec_set_limit(&s, "nrtask", "0", &e), -1);
	assert_non_null(strstr(e.msg, "--nrtask 0"));
	/* a jail file's or cell set's spelling, and a flag's dashes */
	assert_int_equal(spec_set_param(&s, "cpu_time", "0", &e), -1);
	assert_string_equal(e.msg, "cpu_time = 0: expected seconds >= 1");
	assert_int_equal(spec_set_limit(&s, "cpu_time", "0", &e), -1);
	assert_string_equal(e.msg, "--cpu-time 0: expected seconds >= 1");
	assert_int_equal(spec_set_limit(&s, "memory", "64M", &e), 0);
	assert_int_equal(s.limits.memory, 64LL << 20);
	/* Below the kernel's floor: an error, not a jail that cannot start. */
	assert_int_equal(spec_set_limit(&s, "memory", "4k", &e), -1);
	assert_int_equal(spec_set_limit(&s, "cpus", "0.001", &e), -1);
	assert_non_null(strstr(e.msg, "at least 0.01"));
	assert_int_equal(spec_set_limit(&s, "cpus", "1.5", &e), 0);
	assert_int_equal(s.limits.cpus_milli, 1500);
	assert_int_equal(spec_set_limit(&s, "nice", "-21", &e), -1);
	assert_int_equal(spec_set_limit(&s, "nice", "10", &e), 0);
	assert_true(s.limits.has_nice);
	assert_int_equal(spec_set_limit(&s, "nofile", "2", &e), -1);
	assert_int_equal(spec_set_limit(&s, "bogus", "1", &e), -1);
	spec_free(&s);
}

static void validate_checks_cgroup_params(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	fill(&s, "ok");
	assert_int_equal(spec_set_limit(&s, "swap", "1M", &e), 0);
	assert_int_equal(spec_validate(&s, &e), -1);
	assert_non_null(strstr(e.msg, "--swap needs --memory"));
	spec_free(&s);

	const char *bad[] = {"", "..", "a/../b", "a/./b", "/x/.."};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fill(&s, "ok");
		s.cgroup_parent = strdup(bad[i]);
		assert_int_equal(spec_validate(&s, &e), -1);
		assert_non_null(strstr(e.msg, "--cgroup-parent"));
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

static void params_set_the_spec_by_their_names(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(spec_set_param(&s, "name", "web", &e), 0);
	assert_int_equal(spec_set_param(&s, "host.hostname", "h1", &e), 0);
	assert_int_equal(spec_set_param(&s, "domainname", "d1", &e), 0);
	assert_int_equal(spec_set_param(&s, "path", "/srv/web", &e), 0);
	assert_int_equal(spec_set_param(&s, "rw", NULL, &e), 0);
	assert_int_equal(spec_set_param(&s, "init", "false", &e), 0);
	assert_int_equal(spec_set_param(&s, "policy", "no", &e), 0);
	assert_int_equal(spec_set_param(&s, "bind", "/a:/b:ro", &e), 0);
	assert_int_equal(spec_set_param(&s, "bind", "/c:/d", &e), 0);
	assert_int_equal(spec_set_param(&s, "env", "A=1", &e), 0);
	assert_int_equal(spec_set_param(&s, "user", "1000:100", &e), 0);
	assert_int_equal(spec_set_param(&s, "net", "host", &e), 0);
	assert_int_equal(spec_set_param(&s, "allow.raw_sockets", NULL, &e), 0);
	assert_int_equal(spec_set_param(&s, "allow.mlock", "true", &e), 0);
	assert_int_equal(spec_set_param(&s, "allow.mlock", "false", &e), 0);
	assert_int_equal(spec_set_param(&s, "memory", "64M", &e), 0);
	assert_int_equal(spec_set_param(&s, "cpus", "0.5", &e), 0);
	assert_string_equal(s.name, "web");
	assert_string_equal(s.hostname, "h1");
	assert_string_equal(s.domainname, "d1");
	assert_string_equal(s.rootfs, "/srv/web");
	assert_true(s.rw);
	assert_false(s.init);
	assert_false(s.policy);
	assert_int_equal(s.nbinds, 2);
	assert_true(s.binds[0].ro);
	assert_string_equal(spec_env_get(&s, "A"), "1");
	assert_int_equal(s.uid, 1000);
	assert_int_equal(s.gid, 100);
	assert_int_equal(s.net, JAIL_NET_HOST);
	assert_int_equal(s.allow, JAIL_ALLOW_RAW_SOCKETS);
	assert_int_equal(s.limits.memory, 64LL << 20);
	assert_int_equal(s.limits.cpus_milli, 500);
	assert_true(spec_param_is_list("bind"));
	assert_true(spec_param_is_list("env"));
	assert_false(spec_param_is_list("memory"));
	spec_free(&s);
}

static void bad_params_are_errors_naming_them(void **state)
{
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(spec_set_param(&s, "memroy", "64M", &e), -1);
	assert_string_equal(e.msg, "unknown parameter \"memroy\"");
	assert_int_equal(spec_set_param(&s, "rw", "maybe", &e), -1);
	assert_string_equal(e.msg, "rw = maybe: expected true or false");
	assert_int_equal(spec_set_param(&s, "bind", "/x", &e), -1);
	assert_string_equal(e.msg, "bind = /x: expected SRC:DST[:ro|rw][,dev]");
	assert_int_equal(spec_set_param(&s, "user", "nobody", &e), -1);
	assert_string_equal(e.msg, "user = nobody: expected UID[:GID], numeric");
	assert_int_equal(spec_set_param(&s, "net", "bridge", &e), -1);
	assert_string_equal(e.msg, "net = bridge: expected none or host");
	assert_int_equal(spec_set_param(&s, "allow.everything", NULL, &e), -1);
	assert_non_null(strstr(e.msg, "unknown rule"));
	assert_int_equal(spec_set_param(&s, "memory", NULL, &e), -1);
	assert_string_equal(e.msg, "memory: needs a value");
	assert_int_equal(spec_set_param(&s, "hostname", NULL, &e), -1);
	assert_int_equal(spec_set_param(&s, "name", "-bad", &e), -1);
	assert_non_null(strstr(e.msg, "invalid name"));
	spec_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bind_parses_src_dst_and_mode),
		cmocka_unit_test(bind_rejects_malformed_values),
		cmocka_unit_test(user_parses_uid_and_optional_gid),
		cmocka_unit_test(env_set_replaces_and_copies),
		cmocka_unit_test(names_follow_the_documented_alphabet),
		cmocka_unit_test(hostnames_are_rfc1123_labels),
		cmocka_unit_test(validate_fills_defaults),
		cmocka_unit_test(validate_rejects_bad_specs),
		cmocka_unit_test(sizes_and_cpus_parse),
		cmocka_unit_test(limits_are_checked_by_name),
		cmocka_unit_test(validate_checks_cgroup_params),
		cmocka_unit_test(params_set_the_spec_by_their_names),
		cmocka_unit_test(bad_params_are_errors_naming_them),
	};
	return cmocka_run_group_tests_name("spec", tests, NULL, NULL);
}
