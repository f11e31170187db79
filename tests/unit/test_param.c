/* Unit tests of param.c: the table of jail parameters, every row's parse
 * and format, the list text, JSON. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cmocka.h>

#include "param.h"
#include "spec.h"

/*
 * Every row's sample values: each TEXT parses, and formats as CANON (the
 * text the parse reads back; NULL: TEXT itself).  A row without samples
 * fails the test: a new parameter comes with its own.
 */
struct sample {
	const char *text, *canon;
};
static const struct sample samples[PARAM_COUNT][6] = {
	[PARAM_NAME] = {{"web", NULL}, {"a1.b_c-d", NULL}},
	[PARAM_HOSTNAME] = {{"web.example", NULL}, {"x-1", NULL}},
	[PARAM_DOMAINNAME] = {{"example.org", NULL}, {"any bytes, even \"these\"", NULL}},
	[PARAM_PATH] = {{"/srv/jails/web", NULL}, {"/a dir, with \"quotes\"", NULL}},
	[PARAM_RW] = {{"true", NULL}, {"no", "false"}, {"1", "true"}, {"off", "false"}},
	[PARAM_BIND] = {{"/a:/b", NULL},
			{"/a:/b:ro", NULL},
			{"/a:/b:rw", "/a:/b"},
			{"/a:/b:ro:dev", NULL},
			{"/a:/b:dev:rw", "/a:/b:dev"}},
	[PARAM_WORKDIR] = {{"/srv", NULL}, {"/a b", NULL}},
	[PARAM_ENV] = {{"A=1", NULL}, {"B=x, y; \"z\"", "\"B=x, y; \\\"z\\\"\""}, {"EMPTY=", NULL}},
	[PARAM_USER] = {{"1000", NULL},
			{"0:5", NULL},
			{"www-data", NULL},
			{"alice:staff", NULL},
			{"1000:staff", NULL},
			{"alice:0", NULL}},
	[PARAM_NET] = {{"none", NULL},
		       {"host", NULL},
		       {"bridge", NULL},
		       {"bridge:br-1", NULL},
		       {"slirp", NULL},
		       {"ns:/run/netns/x", NULL}},
	[PARAM_IP4] = {{"192.0.2.5/24", NULL}, {"192.0.2.5", NULL}, {"198.51.100.7/32", NULL}},
	[PARAM_IP6] = {{"2001:db8::5/64", NULL}, {"2001:DB8:0::5", "2001:db8::5"}},
	[PARAM_GATEWAY] = {{"192.0.2.1/24", NULL}, {"2001:db8::1", NULL}},
	[PARAM_VNET_IF] = {{"eth0", NULL}, {"net-1", NULL}},
	[PARAM_VNET_MTU] = {{"1500", NULL}, {"1280", NULL}, {"65535", NULL}, {"09000", "9000"}},
	[PARAM_PUBLISH] = {{"8080:80", "8080:80/tcp"},
			   {"192.0.2.1:53:53/udp", NULL},
			   {"[2001:db8::1]:8443:443/tcp", NULL}},
	[PARAM_NAT] = {{"true", NULL}, {"off", "false"}},
	[PARAM_DNS] = {{"192.0.2.53", NULL}, {"2001:db8::53", NULL}},
	[PARAM_USERNS] = {{"private", NULL}, {"host", NULL}},
	[PARAM_INIT] = {{"true", NULL}, {"false", NULL}, {"yes", "true"}},
	[PARAM_RESTART] = {{"no", NULL},
			   {"always", NULL},
			   {"on-failure", NULL},
			   {"on-failure:3", NULL},
			   {"on-failure:007", "on-failure:7"}},
	[PARAM_LOG_SIZE] = {{"10M", NULL}, {"8192", "8K"}, {"1g", "1G"}},
	[PARAM_LOG_KEEP] = {{"0", NULL}, {"1", NULL}, {"99", NULL}},
	[PARAM_POLICY] = {{"false", NULL}, {"on", "true"}},
	[PARAM_ALLOW] = {{"chown", NULL}, {"set_hostname", NULL}, {"mlock", NULL}},
	[PARAM_NRTASK] = {{"50", NULL}, {"1", NULL}},
	[PARAM_MEMORY] = {{"64M", NULL}, {"1048576", "1M"}, {"1536k", "1536K"}, {"2GiB", "2G"}},
	[PARAM_SWAP] = {{"0", NULL}, {"1G", NULL}, {"1000", NULL}},
	[PARAM_CPUS] =
		{{"0.5", NULL}, {"2", NULL}, {".25", "0.25"}, {"1.500", "1.5"}, {"0.01", NULL}},
	[PARAM_CPU_TIME] = {{"30", NULL}},
	[PARAM_MEMLOCK] = {{"64K", NULL}, {"0", NULL}},
	[PARAM_DATA] = {{"1T", NULL}, {"3m", "3M"}},
	[PARAM_NOFILE] = {{"3", NULL}, {"1024", NULL}},
	[PARAM_NICE] = {{"-20", NULL}, {"19", NULL}, {"0", NULL}, {"-1", NULL}},
	[PARAM_CGROUP_PARENT] = {{"jails", NULL}, {"/machine.slice/x", NULL}, {"a..b/c", NULL}},
	[PARAM_COMMAND] = {{"/bin/sh", NULL}, {"sleep 1; exit 3", "\"sleep 1; exit 3\""}},
};

/* Bad values, and what the parse says about each: the value only. */
struct bad {
	int id;
	const char *text, *msg;
};
static const struct bad bads[] = {
	{PARAM_NAME, "-bad",
	 "invalid name (1-64 characters of [A-Za-z0-9_.-], starting with a "
	 "letter or digit)"},
	{PARAM_NAME, "", NULL},
	{PARAM_HOSTNAME, "web_1", "invalid hostname"},
	{PARAM_DOMAINNAME, "", "must be 1-64 bytes"},
	{PARAM_PATH, "", "empty path"},
	{PARAM_RW, "maybe", "expected true or false"},
	{PARAM_RESTART, "sometimes", "expected no, on-failure[:N] or always"},
	{PARAM_RESTART, "on-failure:0", "expected no, on-failure[:N] or always"},
	{PARAM_RESTART, "on-failure:", "expected no, on-failure[:N] or always"},
	{PARAM_RESTART, "always:3", "expected no, on-failure[:N] or always"},
	{PARAM_LOG_SIZE, "0", "at least 8K"},
	{PARAM_LOG_SIZE, "4K", "at least 8K"},
	{PARAM_LOG_SIZE, "big", "expected a size (e.g. 64M, 1G)"},
	{PARAM_LOG_KEEP, "-1", "expected a number of files, 0..99"},
	{PARAM_LOG_KEEP, "100", "expected a number of files, 0..99"},
	{PARAM_BIND, "/x", "expected SRC:DST[:ro|:rw][:dev]"},
	{PARAM_BIND, ":/b", "expected SRC:DST[:ro|:rw][:dev]"},
	{PARAM_BIND, "/a:", "expected SRC:DST[:ro|:rw][:dev]"},
	{PARAM_BIND, "/a:rel", "destination must be an absolute path"},
	{PARAM_BIND, "/a:/b:rx", "unknown option \"rx\" (ro, rw or dev)"},
	{PARAM_BIND, "/a:/b:", "expected SRC:DST[:ro|:rw][:dev]"},
	{PARAM_BIND, "/a:/b:ro::dev", "expected SRC:DST[:ro|:rw][:dev]"},
	{PARAM_BIND, "", "expected SRC:DST[:ro|:rw][:dev]"},
	{PARAM_WORKDIR, "tmp", "must be an absolute path"},
	{PARAM_ENV, "=v", "expected KEY=VALUE"},
	{PARAM_ENV, "1A=v", "invalid variable name"},
	{PARAM_USER, "-1", "expected USER[:GROUP], names or numeric ids"},
	{PARAM_USER, "1:", NULL},
	{PARAM_USER, "a b", NULL},
	{PARAM_USER, "alice:-x", NULL},
	{PARAM_USER, "a:b:c", NULL},
	{PARAM_USER, "x$y", NULL},
	{PARAM_USER, "4294967295", NULL},
	{PARAM_USER, "", NULL},
	{PARAM_NET, "bogus", "expected none, host, bridge[:NAME], slirp or ns:PATH"},
	{PARAM_NET, "bridge:a/b", "an interface name holds no '/', ':' or blanks"},
	{PARAM_NET, "bridge:a-name-far-too-long", "expected an interface name of 1-15 bytes"},
	{PARAM_NET, "ns:run/x", "ns:PATH: the path must be absolute"},
	{PARAM_IP4, "192.0.2", "expected an IPv4 or IPv6 address [/PREFIX]"},
	{PARAM_IP4, "192.0.2.5/33", "expected a prefix length of 1-32"},
	{PARAM_IP4, "192.0.2.5/", NULL},
	{PARAM_IP6, "2001:db8::5/129", "expected a prefix length of 1-128"},
	{PARAM_GATEWAY, "gw", "expected an IPv4 or IPv6 address [/PREFIX]"},
	{PARAM_VNET_IF, "", "expected an interface name of 1-15 bytes"},
	{PARAM_VNET_MTU, "1279", "expected an MTU of 1280..65535"},
	{PARAM_VNET_MTU, "65536", "expected an MTU of 1280..65535"},
	{PARAM_VNET_MTU, "0", NULL},
	{PARAM_VNET_MTU, "-1500", NULL},
	{PARAM_VNET_MTU, "abc", NULL},
	{PARAM_VNET_MTU, "max", NULL},
	{PARAM_VNET_MTU, "", NULL},
	{PARAM_PUBLISH, "80", "expected [HOSTADDR:]HOSTPORT:JAILPORT[/tcp|/udp]"},
	{PARAM_PUBLISH, "0:80", NULL},
	{PARAM_PUBLISH, "80:80/sctp", "unknown protocol \"sctp\" (tcp or udp)"},
	{PARAM_PUBLISH, "2001:db8::1:80:80", NULL},
	{PARAM_DNS, "192.0.2.53/24", "expected an address without a prefix"},
	{PARAM_USERNS, "shared", "expected private or host"},
	{PARAM_USERNS, "", NULL},
	{PARAM_INIT, "2", "expected true or false"},
	{PARAM_ALLOW, "everything",
	 "unknown rule (known: set_hostname, raw_sockets, sysvipc, chown, mlock, io_uring)"},
	{PARAM_NRTASK, "0", "expected a number of tasks >= 1"},
	{PARAM_MEMORY, "lots", "expected a size (e.g. 64M, 1G)"},
	{PARAM_MEMORY, "1k", "at least 1M"},
	{PARAM_SWAP, "-1", "expected a size (e.g. 64M, 1G)"},
	{PARAM_SWAP, "12Q", NULL},
	{PARAM_CPUS, "0.001", "at least 0.01"},
	{PARAM_CPUS, "x", "expected a number of CPUs (e.g. 0.5, 2)"},
	{PARAM_CPUS, "0.0001", NULL},
	{PARAM_CPU_TIME, "0", "expected seconds >= 1"},
	{PARAM_NOFILE, "2", "expected a number >= 3"},
	{PARAM_NICE, "-21", "expected -20..19"},
	{PARAM_NICE, "20", "expected -20..19"},
	{PARAM_NICE, "", NULL},
	{PARAM_CGROUP_PARENT, "a/../b", "expected a cgroup path without \".\" or \"..\""},
	{PARAM_CGROUP_PARENT, "..", NULL},
	{PARAM_CGROUP_PARENT, "", NULL},
};

static char *format_of(int id, const struct jail_spec *s)
{
	char *text = NULL;

	assert_int_not_equal(param_format(param_get(id), s, &text), -1);
	return text;
}

/* TEXT into a fresh spec, as the whole value; its format in *OUT. */
static void parse_one(int id, const char *text, struct jail_spec *s)
{
	struct cell_err e;

	spec_init(s);
	if (param_parse(param_get(id), s, text, &e) < 0)
		fail_msg("%s %s: %s", param_get(id)->name, text, e.msg);
}

static void every_row_parses_formats_and_round_trips(void **state)
{
	for (int id = 0; id < PARAM_COUNT; id++) {
		const struct param *p = param_get(id);

		assert_non_null(samples[id][0].text); /* every row has samples */
		for (size_t k = 0; k < 6 && samples[id][k].text != NULL; k++) {
			const struct sample *x = &samples[id][k];
			struct jail_spec a, b;
			struct cell_err e;
			char *text, *again;

			parse_one(id, x->text, &a);
			assert_true(param_is_set(p, &a));
			text = format_of(id, &a);
			assert_non_null(text);
			assert_string_equal(text, x->canon != NULL ? x->canon : x->text);
			/* parse(format(x)) == x, through the whole value's text */
			spec_init(&b);
			if (param_parse_text(p, &b, text, &e) < 0)
				fail_msg("%s: %s: %s", p->name, text, e.msg);
			assert_true(param_equal(p, &a, &b));
			again = format_of(id, &b);
			assert_string_equal(again, text);
			free(text);
			free(again);
			spec_free(&a);
			spec_free(&b);
		}
	}
}

static void bad_values_say_what_is_wrong_with_the_value_only(void **state)
{
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct param *p = param_get(bads[i].id);
		struct jail_spec s;
		struct cell_err e;

		spec_init(&s);
		cell_err_clear(&e);
		if (param_parse(p, &s, bads[i].text, &e) != -1)
			fail_msg("%s = %s: accepted", p->name, bads[i].text);
		if (bads[i].msg != NULL)
			assert_string_equal(e.msg, bads[i].msg);
		/* Never the parameter's flag or "name = value": the front
		 * door says which parameter. */
		assert_null(strstr(e.msg, "--"));
		assert_null(strstr(e.msg, " = "));
		assert_int_equal(e.about.param, CELL_ERR_NO_PARAM);
		spec_free(&s);
	}
}

static void rows_are_consistent(void **state)
{
	for (int id = 0; id < PARAM_COUNT; id++) {
		const struct param *p = &param_table[id];

		assert_int_equal(p->id, id);
		assert_non_null(p->name);
		assert_non_null(p->parse);
		assert_non_null(p->format);
		assert_non_null(p->clear);
		assert_ptr_equal(param_find(p->name), p);
		if (p->alias != NULL)
			assert_ptr_equal(param_find(p->alias), p);
		/* A flag has its help; a flag without a value is a boolean's. */
		if (p->flag != NULL) {
			assert_memory_equal(p->flag, "--", 2);
			assert_non_null(p->help);
		}
		if (p->flag_value != NULL)
			assert_int_equal(p->type, PARAM_BOOL);
		if (p->type == PARAM_INT || p->type == PARAM_REAL)
			assert_non_null(p->num);
		for (int k = 0; k < id; k++) {
			assert_string_not_equal(param_table[k].name, p->name);
			if (p->flag != NULL && param_table[k].flag != NULL)
				assert_string_not_equal(param_table[k].flag, p->flag);
			if (p->short_flag != 0)
				assert_int_not_equal(param_table[k].short_flag, p->short_flag);
		}
	}
	/* What cell set may change live: the UTS names and the limits. */
	assert_true(param_get(PARAM_HOSTNAME)->live);
	assert_true(param_get(PARAM_MEMORY)->live);
	assert_false(param_get(PARAM_PATH)->live);
	assert_false(param_get(PARAM_BIND)->live);
	/* The MTU is the bridge's, chosen at the start. */
	assert_false(param_get(PARAM_VNET_MTU)->live);
}

static void params_are_set_by_their_names_and_aliases(void **state)
{
	struct jail_spec s;
	struct cell_err e;
	const struct param *row;

	spec_init(&s);
	assert_int_equal(param_set(&s, "name", "web", &row, &e), 0);
	assert_ptr_equal(row, param_get(PARAM_NAME));
	assert_int_equal(param_set(&s, "host.hostname", "h1", NULL, &e), 0);
	assert_int_equal(param_set(&s, "host.domainname", "d1", NULL, &e), 0);
	assert_int_equal(param_set(&s, "rootfs", "/srv/web", &row, &e), 0);
	assert_ptr_equal(row, param_get(PARAM_PATH));
	assert_int_equal(param_set(&s, "rw", NULL, NULL, &e), 0); /* bare: true */
	assert_int_equal(param_set(&s, "init", "false", NULL, &e), 0);
	assert_int_equal(param_set(&s, "policy", "no", NULL, &e), 0);
	assert_int_equal(param_set(&s, "bind", "/a:/b:ro", NULL, &e), 0);
	assert_int_equal(param_set(&s, "bind", "/c:/d", NULL, &e), 0);
	assert_int_equal(param_set(&s, "env", "A=1", NULL, &e), 0);
	assert_int_equal(param_set(&s, "user", "1000:100", NULL, &e), 0);
	assert_int_equal(param_set(&s, "net", "host", NULL, &e), 0);
	assert_int_equal(param_set(&s, "allow.raw_sockets", NULL, &row, &e), 0);
	assert_ptr_equal(row, param_get(PARAM_ALLOW));
	assert_int_equal(param_set(&s, "allow.mlock", "true", NULL, &e), 0);
	assert_int_equal(param_set(&s, "allow.mlock", "false", NULL, &e), 0);
	assert_int_equal(param_set(&s, "allow", "chown", NULL, &e), 0);
	assert_int_equal(param_set(&s, "memory", "64M", NULL, &e), 0);
	assert_int_equal(param_set(&s, "cpus", "0.5", NULL, &e), 0);
	assert_int_equal(param_set(&s, "nice", "-3", NULL, &e), 0);
	assert_int_equal(param_set(&s, "command", "sleep", NULL, &e), 0);
	assert_int_equal(param_set(&s, "command", "1", NULL, &e), 0);
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
	assert_int_equal(s.proc.uid, 1000);
	assert_int_equal(s.proc.gid, 100);
	assert_int_equal(s.net, JAIL_NET_HOST);
	assert_int_equal(s.allow, JAIL_ALLOW_RAW_SOCKETS | JAIL_ALLOW_CHOWN);
	assert_int_equal(s.limits.memory, 64LL << 20);
	assert_int_equal(s.limits.cpus_milli, 500);
	assert_true(s.limits.has_nice);
	assert_int_equal(s.limits.nice, -3);
	assert_string_equal(s.proc.argv[1], "1");
	assert_null(s.proc.argv[2]);
	spec_free(&s);
}

static void unknown_names_and_bare_values_are_errors(void **state)
{
	struct jail_spec s;
	struct cell_err e;
	const struct param *row = param_get(PARAM_NAME);

	spec_init(&s);
	assert_int_equal(param_set(&s, "memroy", "64M", &row, &e), -1);
	assert_null(row);
	assert_string_equal(e.msg, "unknown parameter");
	assert_null(param_find("limits.memory"));
	assert_int_equal(param_set(&s, "memory", NULL, NULL, &e), -1);
	assert_string_equal(e.msg, "needs a value");
	assert_int_equal(param_set(&s, "hostname", NULL, NULL, &e), -1);
	assert_int_equal(param_set(&s, "allow.everything", NULL, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "unknown rule"));
	assert_int_equal(param_set(&s, "allow.chown", "maybe", NULL, &e), -1);
	spec_free(&s);
}

static void a_relative_bind_source_is_made_absolute(void **state)
{
	struct jail_spec s;
	char *text;

	assert_int_equal(chdir("/usr"), 0);
	parse_one(PARAM_BIND, "rel/dir:/b/c:ro", &s);
	assert_string_equal(s.binds[0].src, "/usr/rel/dir");
	assert_string_equal(s.binds[0].dst, "/b/c");
	assert_true(s.binds[0].ro);
	text = format_of(PARAM_BIND, &s);
	assert_string_equal(text, "/usr/rel/dir:/b/c:ro");
	free(text);
	spec_free(&s);
	parse_one(PARAM_BIND, "./share:/s", &s);
	assert_string_equal(s.binds[0].src, "/usr/share");
	spec_free(&s);
}

static void max_unsets_a_limit(void **state)
{
	static const int ids[] = {PARAM_NRTASK,	  PARAM_MEMORY,	 PARAM_SWAP, PARAM_CPUS,
				  PARAM_CPU_TIME, PARAM_MEMLOCK, PARAM_DATA, PARAM_NOFILE};
	struct jail_spec s;
	struct cell_err e;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		const struct param *p = param_get(ids[i]);

		spec_init(&s);
		assert_int_equal(
			param_parse(p, &s, p->arg[0] == 'S' && p->arg[1] == 'I' ? "64M" : "4", &e),
			0);
		assert_true(param_is_set(p, &s));
		assert_int_equal(param_parse(p, &s, "max", &e), 0);
		assert_false(param_is_set(p, &s));
		spec_free(&s);
	}
	/* nice has no "no limit". */
	spec_init(&s);
	assert_int_equal(param_parse(param_get(PARAM_NICE), &s, "max", &e), -1);
	spec_free(&s);
}

static void a_relative_root_path_is_made_absolute(void **state)
{
	struct jail_spec s;

	assert_int_equal(chdir("/usr"), 0);
	parse_one(PARAM_PATH, "rel/root", &s);
	assert_string_equal(s.rootfs, "/usr/rel/root");
	spec_free(&s);
	parse_one(PARAM_PATH, ".//./lib", &s);
	assert_string_equal(s.rootfs, "/usr/lib");
	spec_free(&s);
	parse_one(PARAM_PATH, ".", &s);
	assert_string_equal(s.rootfs, "/usr");
	spec_free(&s);
	assert_int_equal(chdir("/"), 0);
	parse_one(PARAM_PATH, "srv", &s);
	assert_string_equal(s.rootfs, "/srv");
	spec_free(&s);
	/* Not resolved: a symlink stays one (rootfs_check() refuses it). */
	parse_one(PARAM_PATH, "/a/../b", &s);
	assert_string_equal(s.rootfs, "/a/../b");
	spec_free(&s);
}

static void lists_format_as_a_jail_file_reads_them(void **state)
{
	char *const odd[] = {"sh",   "-c",    "sleep 1; exit 3", "",	      "a,b",	"\"q\"",
			     "it's", "$HOME", "tab\there",	 "new\nline", "back\\", "//x",
			     "/*y",  "é"};
	size_t n = sizeof(odd) / sizeof(odd[0]), got_n;
	char *text = param_join(odd, n), **got;
	struct cell_err e;

	assert_non_null(text);
	assert_string_equal(text, "sh, -c, \"sleep 1; exit 3\", \"\", \"a,b\", \"\\\"q\\\"\", "
				  "\"it's\", \"\\$HOME\", \"tab\\there\", \"new\\nline\", "
				  "\"back\\\\\", \"//x\", \"/*y\", é");
	assert_int_equal(param_split(text, &got, &got_n, &e), 0);
	assert_int_equal(got_n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(got[i], odd[i]);
	param_strv_free(got, got_n);
	free(text);
	/* Single quotes as a jail file has them; blanks around commas. */
	assert_int_equal(param_split("  'a b' ,c,\"d\"  ", &got, &got_n, &e), 0);
	assert_int_equal(got_n, 3);
	assert_string_equal(got[0], "a b");
	assert_string_equal(got[2], "d");
	param_strv_free(got, got_n);
	assert_int_equal(param_split("", &got, &got_n, &e), 0);
	assert_int_equal(got_n, 0);
	/* What does not read as a list is an error. */
	assert_int_equal(param_split("a b", &got, &got_n, &e), -1);
	assert_int_equal(param_split("a,", &got, &got_n, &e), -1);
	assert_int_equal(param_split(",a", &got, &got_n, &e), -1);
	assert_int_equal(param_split("\"a", &got, &got_n, &e), -1);
	assert_string_equal(e.msg, "unterminated string");
	assert_int_equal(param_split("\"\\q\"", &got, &got_n, &e), -1);
}

static void a_list_text_replaces_the_list(void **state)
{
	const struct param *p = param_get(PARAM_COMMAND);
	struct jail_spec s;
	struct cell_err e;
	char *text;

	parse_one(PARAM_COMMAND, "old", &s);
	assert_int_equal(param_parse_text(p, &s, "sh, -c, 'echo \"hi\"; exit 3'", &e), 0);
	assert_string_equal(s.proc.argv[0], "sh");
	assert_string_equal(s.proc.argv[2], "echo \"hi\"; exit 3");
	assert_null(s.proc.argv[3]);
	text = format_of(PARAM_COMMAND, &s);
	assert_string_equal(text, "sh, -c, \"echo \\\"hi\\\"; exit 3\"");
	free(text);
	/* An element's error is the element's. */
	assert_int_equal(param_parse_text(param_get(PARAM_ALLOW), &s, "chown, nope", &e), -1);
	assert_non_null(strstr(e.msg, "unknown rule"));
	spec_free(&s);
}

static void json_values_are_typed_and_read_back(void **state)
{
	struct jail_spec s, t;
	struct cell_err e;
	json_t *v;

	spec_init(&s);
	param_set(&s, "memory", "64M", NULL, &e);
	param_set(&s, "cpus", "0.75", NULL, &e);
	param_set(&s, "nice", "-1", NULL, &e);
	param_set(&s, "bind", "/a:/b:ro", NULL, &e);
	v = param_to_json(param_get(PARAM_MEMORY), &s);
	assert_int_equal(json_integer_value(v), 64LL << 20);
	json_decref(v);
	v = param_to_json(param_get(PARAM_CPUS), &s);
	assert_true(json_is_real(v));
	assert_true(json_real_value(v) == 0.75);
	json_decref(v);
	v = param_to_json(param_get(PARAM_SWAP), &s);
	assert_true(json_is_null(v));
	json_decref(v);
	v = param_to_json(param_get(PARAM_RW), &s);
	assert_true(json_is_false(v));
	json_decref(v);
	v = param_to_json(param_get(PARAM_BIND), &s);
	assert_string_equal(json_string_value(json_array_get(v, 0)), "/a:/b:ro");
	json_decref(v);
	for (int id = 0; id < PARAM_COUNT; id++) {
		const struct param *p = param_get(id);

		v = param_to_json(p, &s);
		spec_init(&t);
		assert_int_equal(param_from_json(p, &t, v, &e), 0);
		assert_true(param_equal(p, &s, &t));
		json_decref(v);
		spec_free(&t);
	}
	spec_free(&s);
}

static void json_values_out_of_range_or_type_are_errors(void **state)
{
	struct jail_spec s;
	struct cell_err e;
	json_t *v;

	spec_init(&s);
	v = json_integer(1000);
	assert_int_equal(param_from_json(param_get(PARAM_MEMORY), &s, v, &e), -1);
	assert_string_equal(e.msg, "out of range");
	json_decref(v);
	v = json_integer(-21);
	assert_int_equal(param_from_json(param_get(PARAM_NICE), &s, v, &e), -1);
	json_decref(v);
	v = json_real(0.001);
	assert_int_equal(param_from_json(param_get(PARAM_CPUS), &s, v, &e), -1);
	json_decref(v);
	v = json_integer(2); /* 2 CPUs, as an integer */
	assert_int_equal(param_from_json(param_get(PARAM_CPUS), &s, v, &e), 0);
	assert_int_equal(s.limits.cpus_milli, 2000);
	json_decref(v);
	v = json_string("64M");
	assert_int_equal(param_from_json(param_get(PARAM_MEMORY), &s, v, &e), -1);
	assert_int_equal(param_from_json(param_get(PARAM_RW), &s, v, &e), -1);
	assert_int_equal(param_from_json(param_get(PARAM_BIND), &s, v, &e), -1);
	json_decref(v);
	v = json_pack("[i]", 1);
	assert_int_equal(param_from_json(param_get(PARAM_COMMAND), &s, v, &e), -1);
	json_decref(v);
	v = json_string("a/b");
	assert_int_equal(param_from_json(param_get(PARAM_NAME), &s, v, &e), -1);
	json_decref(v);
	spec_free(&s);
}

static void copy_and_equal_follow_the_value(void **state)
{
	struct jail_spec a, b;
	struct cell_err e;

	spec_init(&a);
	spec_init(&b);
	param_set(&a, "bind", "/a:/b", NULL, &e);
	param_set(&a, "bind", "/c:/d:ro", NULL, &e);
	param_set(&b, "bind", "/x:/y", NULL, &e);
	assert_false(param_equal(param_get(PARAM_BIND), &a, &b));
	assert_int_equal(param_copy(param_get(PARAM_BIND), &b, &a, &e), 0);
	assert_true(param_equal(param_get(PARAM_BIND), &a, &b));
	assert_int_equal(b.nbinds, 2);
	/* unset and set differ; two unset are equal */
	param_set(&a, "nice", "0", NULL, &e);
	assert_false(param_equal(param_get(PARAM_NICE), &a, &b));
	assert_int_equal(param_copy(param_get(PARAM_NICE), &b, &a, &e), 0);
	assert_true(b.limits.has_nice);
	assert_true(param_equal(param_get(PARAM_SWAP), &a, &b));
	spec_free(&a);
	spec_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_row_parses_formats_and_round_trips),
		cmocka_unit_test(bad_values_say_what_is_wrong_with_the_value_only),
		cmocka_unit_test(rows_are_consistent),
		cmocka_unit_test(params_are_set_by_their_names_and_aliases),
		cmocka_unit_test(unknown_names_and_bare_values_are_errors),
		cmocka_unit_test(a_relative_bind_source_is_made_absolute),
		cmocka_unit_test(a_relative_root_path_is_made_absolute),
		cmocka_unit_test(max_unsets_a_limit),
		cmocka_unit_test(lists_format_as_a_jail_file_reads_them),
		cmocka_unit_test(a_list_text_replaces_the_list),
		cmocka_unit_test(json_values_are_typed_and_read_back),
		cmocka_unit_test(json_values_out_of_range_or_type_are_errors),
		cmocka_unit_test(copy_and_equal_follow_the_value),
	};
	return cmocka_run_group_tests_name("param", tests, NULL, NULL);
}
