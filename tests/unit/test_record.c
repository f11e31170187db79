/* Unit tests of record.c: spec -> JSON -> spec is the identity, over many
 * generated specs; records of older cells still load. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "param.h"
#include "record.h"
#include "spec.h"
#include "utc.h"

/* A seeded generator: the same specs on every run. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned int pick(unsigned int n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(rng >> 33) % n;
}

/* Pieces of odd strings: what a list's text or JSON must carry as is. */
static const char *const pieces[] = {"a", "Z9", " ", ",", "\"", "'",  "$",  "\\",  "\n", "\t",
				     "é", "{",	"}", ";", "#",	"//", "/*", "x=y", ":",	 "-"};

static void odd_string(char *buf, size_t size, bool may_be_empty, const char *avoid)
{
	size_t n = pick(6) + (may_be_empty ? 0 : 1), len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *piece = pieces[pick(sizeof(pieces) / sizeof(pieces[0]))];

		if (avoid != NULL && strpbrk(piece, avoid) != NULL)
			piece = "q";
		if (len + strlen(piece) + 1 >= size)
			break;
		strcpy(buf + len, piece);
		len += strlen(piece);
	}
}

static void set(struct jail_spec *s, const char *key, const char *text)
{
	struct cell_err e;

	if (param_set(s, key, text, NULL, &e) < 0)
		fail_msg("%s = %s: %s", key, text, e.msg);
}

static void set_number(struct jail_spec *s, const char *key, long long lo, long long span)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", lo + (long long)pick((unsigned int)span));
	set(s, key, buf);
}

static void set_env_as_imported(struct jail_spec *s, const char *kv)
{
	char *const env[] = {(char *)kv, NULL};
	struct cell_err e;

	assert_int_equal(spec_env_import(s, env, &e), 0);
}

/* A random spec: each parameter set or left unset, lists of several
 * elements, strings with what quoting must carry. */
static void random_spec(struct jail_spec *s)
{
	static const char *const sizes[] = {"1M", "64M", "1G", "3T", "1048577", "5000000"};
	static const char *const rules[] = {"set_hostname", "raw_sockets", "sysvipc", "chown",
					    "mlock"};
	char buf[128], buf2[128], el[300];

	spec_init(s);
	snprintf(buf, sizeof(buf), "j%u", pick(100000));
	set(s, "name", buf);
	if (pick(2))
		set(s, "hostname", pick(2) ? "web.example" : "x-1");
	if (pick(2)) {
		odd_string(buf, 60, false, NULL);
		set(s, "domainname", buf);
	}
	if (pick(2)) {
		odd_string(buf, sizeof(buf), false, NULL);
		snprintf(el, sizeof(el), "/%s", buf);
		set(s, "path", el);
	}
	set(s, "rw", pick(2) ? "true" : "false");
	for (unsigned int i = pick(4); i > 0; i--) {
		odd_string(buf, sizeof(buf), false, ":");
		odd_string(buf2, sizeof(buf2), true, ":");
		snprintf(el, sizeof(el), "/%s:/%s%s", buf, buf2, pick(2) ? ":ro" : "");
		set(s, "bind", el);
	}
	if (pick(2)) {
		odd_string(buf, sizeof(buf), true, NULL);
		snprintf(el, sizeof(el), "/%s", buf);
		set(s, "workdir", el);
	}
	for (unsigned int i = pick(5); i > 0; i--) {
		odd_string(buf, sizeof(buf), true, NULL);
		snprintf(el, sizeof(el), "K%u_%u=%s", i, pick(10), buf);
		set(s, "env", el);
	}
	/* The caller's environment holds names no --env takes. */
	if (pick(2))
		set_env_as_imported(s, "BASH_FUNC_f%%=() {  echo \"a, b\"\n}");
	if (pick(2)) {
		snprintf(buf, sizeof(buf), pick(2) ? "%u" : "%u:%u", pick(70000), pick(70000));
		set(s, "user", buf);
	}
	set(s, "net", pick(2) ? "none" : "host");
	if (pick(2))
		set_number(s, "vnet.mtu", 1280, 65535 - 1280 + 1);
	set(s, "userns", pick(2) ? "private" : "host");
	set(s, "init", pick(2) ? "true" : "false");
	set(s, "policy", pick(2) ? "true" : "false");
	for (size_t i = 0; i < 5; i++)
		if (pick(2))
			set(s, "allow", rules[i]);
	if (pick(2))
		set_number(s, "nrtask", 1, 100000);
	if (pick(2))
		set(s, "memory", sizes[pick(6)]);
	if (pick(2))
		set(s, "swap", pick(2) ? "0" : sizes[pick(6)]);
	if (pick(2)) {
		unsigned int milli = 10 + pick(64000);

		snprintf(buf, sizeof(buf), "%u.%03u", milli / 1000, milli % 1000);
		set(s, "cpus", buf);
	}
	if (pick(2))
		set_number(s, "cpu_time", 1, 1000000);
	if (pick(2))
		set(s, "memlock", sizes[pick(6)]);
	if (pick(2))
		set(s, "data", pick(2) ? "0" : sizes[pick(6)]);
	if (pick(2))
		set_number(s, "nofile", 3, 1 << 20);
	if (pick(2))
		set_number(s, "nice", -20, 40);
	if (pick(2))
		set(s, "cgroup_parent", pick(2) ? "jails/web" : "/machine.slice");
	for (unsigned int i = pick(5) + 1; i > 0; i--) {
		odd_string(buf, sizeof(buf), i != 1, NULL);
		set(s, "command", buf);
	}
}

static void assert_same_spec(const struct jail_spec *a, const struct jail_spec *b)
{
	for (int id = 0; id < PARAM_COUNT; id++) {
		const struct param *p = param_get(id);

		if (!param_equal(p, a, b)) {
			char *x = NULL, *y = NULL;

			param_format(p, a, &x);
			param_format(p, b, &y);
			fail_msg("%s: %s != %s", p->name, x ? x : "(unset)", y ? y : "(unset)");
		}
	}
}

static json_t *record_of(const struct jail_spec *s)
{
	struct record_run run = {.jid = 7,
				 .pid = 4242,
				 .start_time = 123456,
				 .created = 1700000000,
				 .state = "running",
				 .detach = true};
	json_t *rec = record_new(s, &run);

	assert_non_null(rec);
	return rec;
}

static void the_record_round_trips_over_many_generated_specs(void **state)
{
	for (int n = 0; n < 2000; n++) {
		struct jail_spec s, back;
		struct cell_err e;
		json_t *rec, *again;
		char *text, *text2;

		random_spec(&s);
		rec = record_of(&s);
		/* Through its text, as it is stored. */
		text = json_dumps(rec, JSON_SORT_KEYS);
		assert_non_null(text);
		json_decref(rec);
		rec = json_loads(text, 0, NULL);
		assert_non_null(rec);
		spec_init(&back);
		if (record_spec(rec, &back, &e) < 0)
			fail_msg("%s: %s", text, e.msg);
		assert_same_spec(&s, &back);
		/* And JSON -> spec -> JSON gives the same JSON. */
		again = record_of(&back);
		text2 = json_dumps(again, JSON_SORT_KEYS);
		assert_string_equal(text, text2);
		free(text);
		free(text2);
		json_decref(rec);
		json_decref(again);
		spec_free(&s);
		spec_free(&back);
	}
}

static void the_record_keeps_the_run_beside_the_spec(void **state)
{
	struct jail_spec s;
	json_t *rec;

	spec_init(&s);
	set(&s, "name", "web");
	set(&s, "command", "true");
	set(&s, "memory", "64M");
	rec = record_of(&s);
	assert_int_equal(json_integer_value(json_object_get(rec, "jid")), 7);
	assert_int_equal(json_integer_value(json_object_get(rec, "pid")), 4242);
	assert_int_equal(json_integer_value(json_object_get(rec, "start_time")), 123456);
	assert_string_equal(json_string_value(json_object_get(rec, "created")),
			    "2023-11-14T22:13:20Z");
	assert_string_equal(json_string_value(json_object_get(rec, "state")), "running");
	assert_true(json_is_null(json_object_get(rec, "cgroup")));
	assert_true(json_is_true(json_object_get(rec, "detach")));
	/* the parameters by their names, typed */
	assert_int_equal(json_integer_value(json_object_get(rec, "memory")), 64 << 20);
	assert_true(json_is_null(json_object_get(rec, "path")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(rec, "command"), 0)),
			    "true");
	json_decref(rec);
	spec_free(&s);
}

/* A record as the cell before the table wrote it. */
static const char old_record[] =
	"{\"name\": \"web\", \"jid\": 1, \"pid\": 100, \"start_time\": 5, \"hostname\": \"web\","
	" \"domainname\": null, \"rootfs\": \"/srv/root\", \"workdir\": \"/srv\", \"net\": "
	"\"host\", \"init\": true, \"created\": 1700000000, \"state\": \"stopped\", \"policy\": "
	"true, \"allow\": [\"chown\", \"mlock\"], \"limits\": {\"nrtask\": 50, \"memory\": "
	"67108864, \"swap\": null, \"cpu_time\": null, \"memlock\": null, \"data\": null, "
	"\"nofile\": 1024, \"cpus\": 0.5, \"nice\": -3}, \"cgroup\": null, \"detach\": true, "
	"\"autoremove\": false, \"command\": [\"sh\", \"-c\", \"sleep 300; exit 3\"], \"user\": "
	"\"1000:100\", \"cgroup_parent\": null, \"rw\": true, \"stopped\": 1700000100, \"exit\": "
	"3}";

static void a_record_of_an_older_cell_still_loads(void **state)
{
	json_t *rec = json_loads(old_record, 0, NULL);
	struct jail_spec s;
	struct cell_err e;

	assert_non_null(rec);
	record_upgrade(rec);
	spec_init(&s);
	assert_int_equal(record_spec(rec, &s, &e), 0);
	assert_string_equal(s.name, "web");
	assert_string_equal(s.rootfs, "/srv/root");
	assert_string_equal(s.proc.cwd, "/srv");
	assert_int_equal(s.net, JAIL_NET_HOST);
	assert_true(s.init);
	assert_true(s.rw);
	assert_int_equal(s.allow, JAIL_ALLOW_CHOWN | JAIL_ALLOW_MLOCK);
	assert_int_equal(s.limits.nrtask, 50);
	assert_int_equal(s.limits.memory, 64 << 20);
	assert_int_equal(s.limits.swap, -1);
	assert_int_equal(s.limits.nofile, 1024);
	assert_int_equal(s.limits.cpus_milli, 500);
	assert_true(s.limits.has_nice);
	assert_int_equal(s.limits.nice, -3);
	assert_int_equal(s.proc.uid, 1000);
	assert_int_equal(s.proc.gid, 100);
	assert_string_equal(s.proc.argv[2], "sleep 300; exit 3");
	assert_int_equal(s.nbinds, 0); /* not recorded then: none */
	/* Today's layout: path, flat limits, ISO times; the rest kept. */
	assert_null(json_object_get(rec, "rootfs"));
	assert_null(json_object_get(rec, "limits"));
	assert_int_equal(json_integer_value(json_object_get(rec, "memory")), 64 << 20);
	assert_string_equal(json_string_value(json_object_get(rec, "created")),
			    "2023-11-14T22:13:20Z");
	assert_string_equal(json_string_value(json_object_get(rec, "stopped")),
			    "2023-11-14T22:15:00Z");
	assert_int_equal(json_integer_value(json_object_get(rec, "exit")), 3);
	assert_int_equal(json_integer_value(json_object_get(rec, "start_time")), 5);
	/* Once upgraded, again is a no-op. */
	record_upgrade(rec);
	assert_string_equal(json_string_value(json_object_get(rec, "path")), "/srv/root");
	json_decref(rec);
	spec_free(&s);
}

static void a_bad_record_is_an_error_naming_the_key(void **state)
{
	json_t *rec = json_pack("{s:s, s:s}", "name", "web", "memory", "lots");
	struct jail_spec s;
	struct cell_err e;

	spec_init(&s);
	assert_int_equal(record_spec(rec, &s, &e), -1);
	assert_string_equal(e.msg, "state record: memory: expected a number");
	json_decref(rec);
	spec_free(&s);
	rec = json_pack("{s:s}", "name", "../x");
	spec_init(&s);
	assert_int_equal(record_spec(rec, &s, &e), -1);
	assert_non_null(strstr(e.msg, "state record: name: invalid name"));
	json_decref(rec);
	spec_free(&s);
}

/* Started again from its record, a jail finds HOME in its files; a jail
 * CLI's jail its user's groups too, an OCI container (its config
 * recorded) never: additionalGids alone, as runc. */
static void a_record_gives_home_always_and_the_users_groups_to_the_jail_cli_alone(void **state)
{
	json_t *rec = json_pack("{s:s}", "name", "web");
	struct jail_spec s;
	struct cell_err e;

	assert_non_null(rec);
	spec_init(&s);
	assert_int_equal(record_spec(rec, &s, &e), 0);
	assert_true(s.proc.home_env);
	assert_true(s.proc.user_groups);
	spec_free(&s);
	assert_int_equal(json_object_set_new(rec, "oci", json_pack("{s:s}", "bundle", "/b")), 0);
	spec_init(&s);
	assert_int_equal(record_spec(rec, &s, &e), 0);
	assert_true(s.proc.home_env);
	assert_false(s.proc.user_groups);
	spec_free(&s);
	json_decref(rec);
}

static void record_times_are_utc_iso_8601(void **state)
{
	const struct {
		time_t t;
		const char *text;
	} cases[] = {
		{0, "1970-01-01T00:00:00Z"},
		{1714564800, "2024-05-01T12:00:00Z"},
		{951782399, "2000-02-28T23:59:59Z"},
		{4102444800, "2100-01-01T00:00:00Z"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *j = record_time(cases[i].t);

		assert_non_null(j);
		assert_string_equal(json_string_value(j), cases[i].text);
		json_decref(j);
	}
}

/* utc_tm() is glibc's gmtime_r() without the time zone: the same fields
 * over four centuries of days (leap years, 1900, 2000 and 2100 among
 * them), times before the epoch, and odd seconds of the day. */
static void utc_tm_agrees_with_gmtime(void **state)
{
	long long t;

	(void)state;
	for (t = -2208988800LL; t < 10413792000LL; t += 86400LL * 3 + 3607) {
		struct tm want, got;
		time_t tt = (time_t)t;

		assert_non_null(gmtime_r(&tt, &want));
		assert_true(utc_tm(t, &got));
		assert_int_equal(got.tm_year, want.tm_year);
		assert_int_equal(got.tm_mon, want.tm_mon);
		assert_int_equal(got.tm_mday, want.tm_mday);
		assert_int_equal(got.tm_hour, want.tm_hour);
		assert_int_equal(got.tm_min, want.tm_min);
		assert_int_equal(got.tm_sec, want.tm_sec);
		assert_int_equal(got.tm_wday, want.tm_wday);
		assert_int_equal(got.tm_yday, want.tm_yday);
	}
}

static void utc_tm_refuses_years_beyond_four_digits(void **state)
{
	struct tm tm;

	(void)state;
	assert_true(utc_tm(253402300799LL, &tm)); /* 9999-12-31T23:59:59 */
	assert_int_equal(tm.tm_year, 9999 - 1900);
	assert_false(utc_tm(253402300800LL, &tm));
	assert_true(utc_tm(-62167219200LL, &tm)); /* 0000-01-01 */
	assert_int_equal(tm.tm_year, -1900);
	assert_false(utc_tm(-62167219201LL, &tm));
	assert_null(json_string_value(record_time((time_t)253402300800LL)));
}

static void exec_takes_the_jail_and_its_process_under_its_own(void **state)
{
	struct jail_spec jail, s;
	struct cell_err e;
	json_t *rec;

	spec_init(&jail);
	set(&jail, "name", "web");
	set(&jail, "command", "sleep");
	set(&jail, "env", "A=1");
	set(&jail, "workdir", "/srv");
	set(&jail, "user", "1000");
	set(&jail, "allow", "chown");
	set(&jail, "net", "host");
	set(&jail, "nofile", "100");
	rec = record_of(&jail);
	spec_init(&s);
	set(&s, "name", "web");
	set(&s, "command", "id");
	assert_int_equal(record_exec_spec(rec, &s, &e), 0);
	assert_string_equal(s.proc.argv[0], "id");
	/* The jail's environment, working directory and user (docker exec). */
	assert_string_equal(spec_env_get(&s, "A"), "1");
	assert_non_null(spec_env_get(&s, "PATH"));
	assert_string_equal(s.proc.cwd, "/srv");
	assert_int_equal(s.proc.uid, 1000); /* no user of its own: the jail's */
	assert_int_equal(s.allow, JAIL_ALLOW_CHOWN);
	assert_int_equal(s.net, JAIL_NET_HOST);
	assert_int_equal(s.limits.nofile, 100);
	spec_free(&s);
	spec_init(&s);
	set(&s, "user", "5:5");
	set(&s, "env", "A=2");
	set(&s, "env", "B=3");
	set(&s, "workdir", "/tmp");
	assert_int_equal(record_exec_spec(rec, &s, &e), 0);
	/* Its own over the jail's. */
	assert_int_equal(s.proc.uid, 5);
	assert_string_equal(spec_env_get(&s, "A"), "2");
	assert_string_equal(spec_env_get(&s, "B"), "3");
	assert_string_equal(s.proc.cwd, "/tmp");
	spec_free(&s);
	spec_free(&jail);
	json_decref(rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_record_round_trips_over_many_generated_specs),
		cmocka_unit_test(the_record_keeps_the_run_beside_the_spec),
		cmocka_unit_test(a_record_of_an_older_cell_still_loads),
		cmocka_unit_test(a_bad_record_is_an_error_naming_the_key),
		cmocka_unit_test(
			a_record_gives_home_always_and_the_users_groups_to_the_jail_cli_alone),
		cmocka_unit_test(exec_takes_the_jail_and_its_process_under_its_own),
		cmocka_unit_test(record_times_are_utc_iso_8601),
		cmocka_unit_test(utc_tm_agrees_with_gmtime),
		cmocka_unit_test(utc_tm_refuses_years_beyond_four_digits),
	};
	return cmocka_run_group_tests_name("record", tests, NULL, NULL);
}
