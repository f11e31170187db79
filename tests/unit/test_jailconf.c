/* Unit tests of jailconf.c: the jail file syntax, merging and errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include <cmocka.h>

#include "jailconf.h"
#include "param.h"
#include "spec.h"

/* The example of the task and of docs/cell.conf.5. */
static const char example[] =
	"# comment, // comment, /* comment */\n"
	"path = \"/srv/jails/$name\";        # global: applies to every jail below\n"
	"memory = 64M;\n"
	"web {\n"
	"    host.hostname = \"$name.example\";\n"
	"    exec.start = \"/usr/sbin/httpd -f\";\n"
	"    exec.stop = \"/usr/sbin/httpd -k stop\";\n"
	"    nrtask = 100;\n"
	"    allow.raw_sockets;            # bare boolean = true\n"
	"    bind  = \"/srv/data:/data:ro\";\n"
	"    bind += \"/srv/logs:/logs\";    # += appends to a list param\n"
	"    env += \"MODE=prod\";\n"
	"}\n"
	"db { exec.start = '/usr/bin/db --no-$subst-in-single-quotes'; init = true; }\n";

/* A jail's params as "k=v;k;..." (bare booleans without '='). */
static char *flat(const struct jailconf_jail *j)
{
	static char buf[65536];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < j->nparams; i++) {
		const struct jailconf_param *p = &j->params[i];

		if (p->value != NULL)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s=%s;", p->key, p->value);
		else
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s;", p->key);
		assert_true(n < sizeof(buf));
	}
	return buf;
}

static void parse_ok(const char *text, struct jailconf *c)
{
	struct cell_err e;

	e.msg[0] = '\0';
	if (jailconf_parse(text, strlen(text), "cell.conf", c, &e) < 0)
		fail_msg("unexpected error: %s", e.msg);
}

/* Parses TEXT (as cell.conf) expecting the error MSG, exactly. */
static void parse_fails(const char *text, size_t len, const char *msg)
{
	struct jailconf c;
	struct cell_err e;

	assert_int_equal(jailconf_parse(text, len, "cell.conf", &c, &e), -1);
	assert_string_equal(e.msg, msg);
	assert_null(strchr(e.msg, '\n'));
	assert_int_equal(c.njails, 0);
	assert_null(c.jails);
}

static void fails(const char *text, const char *msg)
{
	parse_fails(text, strlen(text), msg);
}

/* Builds jail NAME of TEXT, expecting the to_spec error MSG. */
static void spec_fails(const char *text, const char *name, const char *msg)
{
	struct jailconf c;
	struct jail_spec s;
	struct cell_err e;
	char *stop = NULL;

	parse_ok(text, &c);
	spec_init(&s);
	assert_int_equal(jailconf_to_spec(&c, jailconf_find(&c, name), &s, &stop, &e), -1);
	assert_string_equal(e.msg, msg);
	assert_null(stop);
	spec_free(&s);
	jailconf_free(&c);
}

static void the_example_parses_to_its_params(void **state)
{
	struct jailconf c;
	const struct jailconf_jail *web, *db;

	parse_ok(example, &c);
	assert_string_equal(c.file, "cell.conf");
	assert_int_equal(c.njails, 2);
	web = jailconf_find(&c, "web");
	db = jailconf_find(&c, "db");
	assert_non_null(web);
	assert_non_null(db);
	assert_null(jailconf_find(&c, "nope"));
	assert_int_equal(web->line, 4);
	assert_int_equal(web->col, 1);
	assert_string_equal(flat(web), "path=/srv/jails/web;memory=64M;host.hostname=web.example;"
				       "exec.start=/usr/sbin/httpd -f;"
				       "exec.stop=/usr/sbin/httpd -k stop;nrtask=100;"
				       "allow.raw_sockets;bind=/srv/data:/data:ro;"
				       "bind=/srv/logs:/logs;env=MODE=prod;");
	assert_null(web->params[6].value);
	assert_int_equal(web->params[0].line, 2); /* a global keeps its place */
	assert_int_equal(web->params[0].col, 1);
	assert_int_equal(web->params[2].line, 5);
	assert_int_equal(web->params[2].col, 5);
	assert_string_equal(flat(db), "path=/srv/jails/db;memory=64M;"
				      "exec.start=/usr/bin/db --no-$subst-in-single-quotes;"
				      "init=true;");
	assert_int_equal(db->line, 14);
	jailconf_free(&c);
	assert_int_equal(c.njails, 0);
}

static void the_example_builds_its_specs(void **state)
{
	struct jailconf c;
	struct jail_spec s;
	struct cell_err e;
	char *stop = NULL;

	parse_ok(example, &c);
	spec_init(&s);
	assert_int_equal(jailconf_to_spec(&c, jailconf_find(&c, "web"), &s, &stop, &e), 0);
	assert_string_equal(s.name, "web");
	assert_string_equal(s.hostname, "web.example");
	assert_string_equal(s.rootfs, "/srv/jails/web");
	assert_int_equal(s.limits.memory, 64LL << 20);
	assert_int_equal(s.limits.nrtask, 100);
	assert_int_equal(s.allow, JAIL_ALLOW_RAW_SOCKETS);
	assert_int_equal(s.nbinds, 2);
	assert_string_equal(s.binds[0].src, "/srv/data");
	assert_string_equal(s.binds[0].dst, "/data");
	assert_true(s.binds[0].ro);
	assert_string_equal(s.binds[1].dst, "/logs");
	assert_false(s.binds[1].ro);
	assert_string_equal(spec_env_get(&s, "MODE"), "prod");
	assert_string_equal(s.proc.argv[0], "/bin/sh");
	assert_string_equal(s.proc.argv[1], "-c");
	assert_string_equal(s.proc.argv[2], "/usr/sbin/httpd -f");
	assert_null(s.proc.argv[3]);
	assert_string_equal(stop, "/usr/sbin/httpd -k stop");
	assert_false(s.init);
	assert_int_equal(spec_validate(&s, &e), 0);
	free(stop);
	spec_free(&s);

	spec_init(&s);
	assert_int_equal(jailconf_to_spec(&c, jailconf_find(&c, "db"), &s, &stop, &e), 0);
	assert_string_equal(s.name, "db");
	assert_null(stop);
	assert_true(s.init);
	assert_string_equal(s.rootfs, "/srv/jails/db");
	assert_string_equal(s.proc.argv[2], "/usr/bin/db --no-$subst-in-single-quotes");
	assert_int_equal(spec_validate(&s, &e), 0);
	assert_string_equal(s.hostname, "db");
	spec_free(&s);
	jailconf_free(&c);
}

static void globals_apply_to_every_jail_wherever_they_are(void **state)
{
	struct jailconf c;

	parse_ok("nrtask = 5;\na { x = 1; }\nb { }\nmemory = 2M;\n", &c);
	assert_int_equal(c.njails, 2);
	assert_string_equal(flat(&c.jails[0]), "nrtask=5;memory=2M;x=1;");
	assert_string_equal(flat(&c.jails[1]), "nrtask=5;memory=2M;");
	jailconf_free(&c);
}

static void a_block_overrides_a_global(void **state)
{
	struct jailconf c;

	/* The override comes last, so it wins in spec_set_param's order
	 * also over an alias set later in the globals. */
	parse_ok("memory = 1G; hostname = g; a { memory = 2M; } b { }", &c);
	assert_string_equal(flat(&c.jails[0]), "hostname=g;memory=2M;");
	assert_string_equal(flat(&c.jails[1]), "memory=1G;hostname=g;");
	jailconf_free(&c);
	parse_ok("init; a { init = false; }", &c);
	assert_string_equal(flat(&c.jails[0]), "init=false;");
	jailconf_free(&c);
}

static void plus_equals_appends_and_equals_replaces_a_list(void **state)
{
	struct jailconf c;

	parse_ok("bind = \"/g1:/g1\", '/g2:/g2'; env += A=1;\n"
		 "keep { bind += /k:/k; }\n"
		 "drop { bind = /d:/d; env += B=2; }\n"
		 "twice { bind = /x:/x; bind = /y:/y, /z:/z; }\n",
		 &c);
	assert_string_equal(flat(jailconf_find(&c, "keep")),
			    "bind=/g1:/g1;bind=/g2:/g2;env=A=1;bind=/k:/k;");
	assert_string_equal(flat(jailconf_find(&c, "drop")), "env=A=1;bind=/d:/d;env=B=2;");
	assert_string_equal(flat(jailconf_find(&c, "twice")), "env=A=1;bind=/y:/y;bind=/z:/z;");
	jailconf_free(&c);
}

static void variables_expand_per_jail(void **state)
{
	struct jailconf c;

	parse_ok("path = \"/srv/$name\";\n"
		 "workdir = /w/${name}/x;\n"
		 "web {\n"
		 "  host.hostname = \"${name}.example\";\n"
		 "  exec.start = \"ls ${path} ${host.hostname} $$HOME \\$x\";\n"
		 "  bind = \"${path}/a:/a\", \"${path}/b:/b\";\n"
		 "  env = \"LAST=${bind}\";\n"
		 "  init;\n"
		 "  exec.stop = \"echo ${init}\";\n"
		 "}\n"
		 "db { path = \"${path}-old\"; }\n",
		 &c);
	assert_string_equal(flat(jailconf_find(&c, "web")),
			    "path=/srv/web;workdir=/w/web/x;host.hostname=web.example;"
			    "exec.start=ls /srv/web web.example $HOME $x;"
			    "bind=/srv/web/a:/a;bind=/srv/web/b:/b;env=LAST=/srv/web/b:/b;init;"
			    "exec.stop=echo true;");
	assert_string_equal(flat(jailconf_find(&c, "db")), "workdir=/w/db/x;path=/srv/db-old;");
	jailconf_free(&c);
	/* A list's = sees the list as it was before it. */
	parse_ok("bind = /a:/a; j { bind = \"${bind}x\", /c:/c; }", &c);
	assert_string_equal(flat(&c.jails[0]), "bind=/a:/ax;bind=/c:/c;");
	jailconf_free(&c);
}

static void single_quotes_are_literal(void **state)
{
	struct jailconf c;

	parse_ok("j { exec.start = 'echo \"$name\" ${x} \\n $$'; }", &c);
	assert_string_equal(flat(&c.jails[0]), "exec.start=echo \"$name\" ${x} \\n $$;");
	jailconf_free(&c);
	parse_ok("j { a = \"x\\\"y\\\\z\\n\\t\"; b = \"multi\nline\"; }", &c);
	assert_string_equal(c.jails[0].params[0].value, "x\"y\\z\n\t");
	assert_string_equal(c.jails[0].params[1].value, "multi\nline");
	assert_int_equal(c.jails[0].params[1].line, 1);
	jailconf_free(&c);
}

static void comments_of_all_three_kinds(void **state)
{
	struct jailconf c;

	parse_ok("# hash\n"
		 "// slashes\n"
		 "/* a block\n   comment */ j /* inside */ { // to the end\n"
		 "  path = /srv//x; # a // in a word is no comment\n"
		 "  workdir = \"/a # b // c /* d\";\n"
		 "} # done",
		 &c);
	assert_int_equal(c.njails, 1);
	assert_string_equal(flat(&c.jails[0]), "path=/srv//x;workdir=/a # b // c /* d;");
	assert_int_equal(c.jails[0].line, 4);
	assert_int_equal(c.jails[0].col, 15);
	jailconf_free(&c);
}

static void empty_and_globals_only_files_have_no_jails(void **state)
{
	struct jailconf c;

	parse_ok("", &c);
	assert_int_equal(c.njails, 0);
	jailconf_free(&c);
	parse_ok("  # nothing\n;\n", &c);
	assert_int_equal(c.njails, 0);
	jailconf_free(&c);
	/* Globals are expanded per jail: with none, ${nope} is never read. */
	parse_ok("memory = 64M; path = \"/srv/$name\";\n", &c);
	assert_int_equal(c.njails, 0);
	assert_null(jailconf_find(&c, "x"));
	jailconf_free(&c);
	parse_ok("j { }", &c);
	assert_int_equal(c.njails, 1);
	assert_int_equal(c.jails[0].nparams, 0);
	jailconf_free(&c);
}

static void syntax_errors_name_file_line_and_column(void **state)
{
	fails("path = /x;\nmemory = 64M\nweb { }",
	      "cell.conf:3:1: expected ';' after the value of memory");
	fails("x {\n  memory = 64M }", "cell.conf:2:16: expected ';' after the value of memory");
	fails("web { }\n\n\n\n\n\nweb { }", "cell.conf:7:1: jail \"web\" declared twice");
	fails("j {\n  a = \"abc\n", "cell.conf:2:7: unterminated string");
	fails("j { a = 'abc", "cell.conf:1:9: unterminated string");
	fails("j { a = \"ab\\", "cell.conf:1:9: unterminated string");
	fails("j {\n  memory += 1M;\n}", "cell.conf:2:3: += on memory, which is not a list");
	fails("j { a { } }",
	      "cell.conf:1:5: nested blocks are not supported (\"a\" inside jail \"j\")");
	fails("* { }", "cell.conf:1:1: wildcard jails (*) are not supported");
	fails("web* { }", "cell.conf:1:1: wildcard jails (*) are not supported");
	fails(".include \"/etc/x.conf\";", "cell.conf:1:1: .include is not supported");
	fails("j { }\n}", "cell.conf:2:1: '}' outside of a jail block");
	fails("\nj {\n a = 1;", "cell.conf:2:1: jail \"j\" has no closing '}'");
	fails("/* open", "cell.conf:1:1: unterminated comment");
	fails("a = ;", "cell.conf:1:5: expected a value for a, found ';'");
	fails("a =", "cell.conf:1:4: expected a value for a, found the end of the file");
	fails("a = 1, 2;", "cell.conf:1:8: a is not a list: it takes one value");
	fails("a = 1", "cell.conf:1:6: expected ';' after the value of a");
	fails("a = \"x\"y;", "cell.conf:1:8: expected ';' after the value of a");
	fails("a b;", "cell.conf:1:3: expected '=', '+=', ';' or '{' after \"a\", found 'b'");
	fails("\"a\" = 1;", "cell.conf:1:1: expected a parameter or a jail name, found '\"'");
	fails("a = \"\\q\";",
	      "cell.conf:1:6: unknown escape in a string (known: \\\" \\\\ \\n \\t \\$)");
	fails("a = \"$\";",
	      "cell.conf:1:6: expected a variable name after '$' (write $$ for a literal $)");
	fails("a = x${y;",
	      "cell.conf:1:6: expected a variable name and '}' after '${' (write $$ for a literal $)");
	fails("a = \"${}\";",
	      "cell.conf:1:6: expected a variable name and '}' after '${' (write $$ for a literal $)");
	fails("-x { }",
	      "cell.conf:1:1: invalid jail name \"-x\" (1-64 characters of [A-Za-z0-9_.-], starting with a letter or digit)");
	fails("j { name = k; }",
	      "cell.conf:1:5: name cannot be set: a jail's name is its block's name");
	fails("\x01", "cell.conf:1:1: expected a parameter or a jail name, found byte 0x01");
}

static void unknown_variables_are_errors(void **state)
{
	fails("j {\n  path = \"/srv/${nope}\";\n}", "cell.conf:2:16: unknown variable \"nope\"");
	/* A global names the jail it failed for. */
	fails("path = /x/$nope;\nj { }",
	      "cell.conf:1:11: unknown variable \"nope\" (for jail \"j\")");
	/* Only what is set so far: a global does not see a block's. */
	fails("a = $b;\nj { b = 1; }", "cell.conf:1:5: unknown variable \"b\" (for jail \"j\")");
	fails("j { a = $b; b = 1; }", "cell.conf:1:9: unknown variable \"b\"");
}

static void spec_errors_name_the_param(void **state)
{
	spec_fails("j {\n  exec.start = x;\n    memroy = 64M;\n}", "j",
		   "cell.conf:3:5: unknown parameter \"memroy\"");
	/* A global's error names the jail it was for. */
	spec_fails("memory = lots;\nj { exec.start = x; }", "j",
		   "cell.conf:1:1: memory = lots: expected a size (e.g. 64M, 1G) (for jail \"j\")");
	spec_fails("j { exec.start = x; memory = 1k; }", "j",
		   "cell.conf:1:21: memory = 1k: at least 1M");
	spec_fails("j { exec.start = x; allow.bogus; }", "j",
		   "cell.conf:1:21: allow.bogus: unknown rule (known: set_hostname, raw_sockets, "
		   "sysvipc, chown, mlock, io_uring)");
	spec_fails("j { exec.start = x; command = a, b; }", "j",
		   "cell.conf:1:21: command = b: exec.start gives the command already");
	spec_fails("\n\n  web { memory = 64M; }", "web",
		   "cell.conf:3:3: jail \"web\": exec.start or command is required");
	spec_fails("j { exec.start; }", "j", "cell.conf:1:5: exec.start: needs a command");
	spec_fails("j { exec.start = x; exec.stop = \"\"; }", "j",
		   "cell.conf:1:21: exec.stop = \"\": needs a command");
	/* A value is quoted as the file needs it: its newline does not
	 * split the message. */
	spec_fails("j { exec.start = x; nrtask = \"1\n2\"; }", "j",
		   "cell.conf:1:21: nrtask = \"1\\n2\": expected a number of tasks >= 1");
}

/* Jail NAME of TEXT built and validated; MSG the error, spelled for the
 * file.  With ERRNUM, the error is made as the start's checks would:
 * about PARAM (element INDEX), the reason alone. */
static void later_fails(const char *text, const char *name, int param, int index, int errnum,
			const char *msg)
{
	struct jailconf c;
	struct jail_spec s;
	struct cell_err e;
	const struct jailconf_jail *j;

	parse_ok(text, &c);
	j = jailconf_find(&c, name);
	spec_init(&s);
	assert_int_equal(jailconf_to_spec(&c, j, &s, NULL, &e), 0);
	if (errnum != 0) {
		assert_int_equal(spec_validate(&s, &e), 0);
		cell_err_param(&e, param, index, errnum, "%s", "");
		cell_err_prefix(&e, "ctx"); /* the context stays in front */
	} else {
		assert_int_equal(spec_validate(&s, &e), -1);
	}
	jailconf_spell(&c, j, &e);
	assert_string_equal(e.msg, msg);
	assert_int_equal(e.about.param, CELL_ERR_NO_PARAM);
	spec_free(&s);
	jailconf_free(&c);
}

static void validation_errors_name_the_declaration(void **state)
{
	later_fails("j {\n  exec.start = x;\n  rw;\n}", "j", 0, 0, 0,
		    "cell.conf:3:3: rw: needs path: the embedded root is the host's own files and "
		    "stays read-only (for jail \"j\")");
	later_fails("swap = 1G;\nj { exec.start = x; }", "j", 0, 0, 0,
		    "cell.conf:1:1: swap = 1G: needs memory (for jail \"j\")");
	later_fails("j { command = \"\"; }", "j", 0, 0, 0,
		    "cell.conf:1:5: command = \"\": no command to run (for jail \"j\")");
}

static void start_errors_name_the_declaration_and_the_jail(void **state)
{
	later_fails("path = \"/nope\";\nj {\n  exec.start = x;\n}", "j", PARAM_PATH, 0, ENOENT,
		    "ctx: cell.conf:1:1: path = /nope: No such file or directory (for jail \"j\")");
	later_fails(
		"j {\n  exec.start = x;\n  rootfs = /nope;\n}", "j", PARAM_PATH, 0, ENOENT,
		"ctx: cell.conf:3:3: rootfs = /nope: No such file or directory (for jail \"j\")");
	/* A list's element is its own declaration. */
	later_fails("bind = \"/a:/a\";\nj {\n  exec.start = x;\n  bind += \"/b:/b\";\n}", "j",
		    PARAM_BIND, 1, ENOENT,
		    "ctx: cell.conf:4:3: bind = /b:/b: No such file or directory (for jail \"j\")");
	/* exec.start is the command. */
	later_fails(
		"j {\n  exec.start = x;\n}", "j", PARAM_COMMAND, 0, ENOENT,
		"ctx: cell.conf:2:3: exec.start = x: No such file or directory (for jail \"j\")");
	/* Not declared: the jail's block says which jail. */
	later_fails("\n j { exec.start = x; }", "j", PARAM_HOSTNAME, 0, EPERM,
		    "ctx: cell.conf:2:2: jail \"j\": hostname: Operation not permitted");
}

static void limits_are_clear_errors(void **state)
{
	size_t n = (JAILCONF_MAX_JAILS + 1) * 12 + 1;
	char *big = malloc(n > JAILCONF_MAX_FILE + 2 ? n : JAILCONF_MAX_FILE + 2);
	char msg[128];
	size_t len = 0;
	struct jailconf c;

	assert_non_null(big);
	for (int i = 0; i < JAILCONF_MAX_JAILS; i++)
		len += (size_t)sprintf(big + len, "j%d {}\n", i);
	parse_ok(big, &c);
	assert_int_equal(c.njails, JAILCONF_MAX_JAILS);
	jailconf_free(&c);
	sprintf(big + len, "one.more { }");
	snprintf(msg, sizeof(msg), "cell.conf:%d:1: more than %d jails", JAILCONF_MAX_JAILS + 1,
		 JAILCONF_MAX_JAILS);
	fails(big, msg);

	/* A value of 4096 bytes is the most. */
	memcpy(big, "a = \"", 5);
	memset(big + 5, 'x', JAILCONF_MAX_TOKEN);
	strcpy(big + 5 + JAILCONF_MAX_TOKEN, "\";");
	parse_ok(big, &c);
	jailconf_free(&c);
	memset(big + 5, 'x', JAILCONF_MAX_TOKEN + 1);
	strcpy(big + 6 + JAILCONF_MAX_TOKEN, "\";");
	fails(big, "cell.conf:1:5: value longer than 4096 bytes");
	/* Also once expanded: 32 * 16 bytes, then 8 times that and one. */
	strcpy(big, "a = \"0123456789abcdef\"; j { b = \"");
	for (int i = 0; i < 32; i++)
		strcat(big, "${a}");
	strcat(big, "\"; c = \"");
	snprintf(msg, sizeof(msg), "cell.conf:1:%zu: value longer than 4096 bytes",
		 strlen(big) - 1 + 1);
	for (int i = 0; i < 8; i++)
		strcat(big, "${b}");
	strcat(big, "x\"; }");
	fails(big, msg);
	memset(big, 'n', JAILCONF_MAX_TOKEN + 1);
	strcpy(big + JAILCONF_MAX_TOKEN + 1, ";");
	fails(big, "cell.conf:1:1: name longer than 4096 bytes");

	/* A NUL byte, where it is; a file over 1 MiB, where it goes over. */
	parse_fails("a = 1;\nb = \"x\0\";", 15, "cell.conf:2:7: NUL byte in a jail file");
	memset(big, '\n', JAILCONF_MAX_FILE + 1);
	parse_fails(big, JAILCONF_MAX_FILE + 1,
		    "cell.conf:1048577:1: file larger than 1048576 bytes (1 MiB)");
	free(big);
}

static void too_many_params_or_copies_are_errors(void **state)
{
	size_t cap = 64 << 10;
	char *big = malloc(cap);
	char msg[128];
	size_t len = 0;

	assert_non_null(big);
	len = (size_t)sprintf(big, "j {");
	for (int i = 0; i <= JAILCONF_MAX_PARAMS; i++)
		len += (size_t)sprintf(big + len, "\nenv+=A%d=1;", i);
	sprintf(big + len, "}");
	snprintf(msg, sizeof(msg), "cell.conf:%d:1: jail \"j\" has more than %d parameters",
		 JAILCONF_MAX_PARAMS + 2, JAILCONF_MAX_PARAMS);
	fails(big, msg);
	free(big);

	/* Globals copied into many jails: bounded, not a memory blow-up. */
	cap = JAILCONF_MAX_FILE;
	big = malloc(cap);
	assert_non_null(big);
	len = (size_t)sprintf(big, "env = \"");
	memset(big + len, 'v', JAILCONF_MAX_TOKEN - 2);
	len += JAILCONF_MAX_TOKEN - 2;
	len += (size_t)sprintf(big + len, "\";\n");
	for (int i = 0; i < 40; i++)
		len += (size_t)sprintf(big + len, "env += \"${env}\";\n");
	for (int i = 0; i < 1000; i++)
		len += (size_t)sprintf(big + len, "j%d{}", i);
	{
		struct jailconf c;
		struct cell_err e;

		assert_int_equal(jailconf_parse(big, len, "cell.conf", &c, &e), -1);
		assert_non_null(strstr(e.msg, "MiB of parameters once the globals are copied"));
	}
	/* Bare globals cost too, however short. */
	len = 0;
	for (int i = 0; i < 200000; i++)
		len += (size_t)sprintf(big + len, "a;");
	for (int i = 0; i < 1000; i++)
		len += (size_t)sprintf(big + len, "j%d{}", i);
	{
		struct jailconf c;
		struct cell_err e;

		assert_int_equal(jailconf_parse(big, len, "cell.conf", &c, &e), -1);
		/* Where it ran out, in the third jail. */
		assert_non_null(strstr(e.msg, ": more than 32 MiB of parameters once the globals "
					      "are copied into each jail (for jail \"j2\")"));
	}
	free(big);
}

static void load_reads_a_file_or_says_why_not(void **state)
{
	char path[] = "/tmp/cell-jailconf-XXXXXX";
	int fd = mkstemp(path);
	struct jailconf c;
	struct cell_err e;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, example, strlen(example)), (ssize_t)strlen(example));
	close(fd);
	assert_int_equal(jailconf_load(path, &c, &e), 0);
	assert_string_equal(c.file, path);
	assert_int_equal(c.njails, 2);
	jailconf_free(&c);
	unlink(path);
	assert_int_equal(jailconf_load(path, &c, &e), -1);
	assert_int_equal(e.errnum, ENOENT);
	assert_non_null(strstr(e.msg, path));
	assert_non_null(strstr(e.msg, ": No such file or directory"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_example_parses_to_its_params),
		cmocka_unit_test(the_example_builds_its_specs),
		cmocka_unit_test(globals_apply_to_every_jail_wherever_they_are),
		cmocka_unit_test(a_block_overrides_a_global),
		cmocka_unit_test(plus_equals_appends_and_equals_replaces_a_list),
		cmocka_unit_test(variables_expand_per_jail),
		cmocka_unit_test(single_quotes_are_literal),
		cmocka_unit_test(comments_of_all_three_kinds),
		cmocka_unit_test(empty_and_globals_only_files_have_no_jails),
		cmocka_unit_test(syntax_errors_name_file_line_and_column),
		cmocka_unit_test(unknown_variables_are_errors),
		cmocka_unit_test(spec_errors_name_the_param),
		cmocka_unit_test(validation_errors_name_the_declaration),
		cmocka_unit_test(start_errors_name_the_declaration_and_the_jail),
		cmocka_unit_test(limits_are_clear_errors),
		cmocka_unit_test(too_many_params_or_copies_are_errors),
		cmocka_unit_test(load_reads_a_file_or_says_why_not),
	};
	return cmocka_run_group_tests_name("jailconf", tests, NULL, NULL);
}
