/*
 * jail_ls.c - `cell ls`: one row per jail, like FreeBSD's jls(8).
 *
 * The fields are the jail's parameters (the table of param.h: named as
 * the jail file and `cell set` name them) and a few facts of its run
 * (jid, state, pid, created, exit, restarts).  Text outputs (the table, -n) spell a
 * parameter as its format, which `cell set` and jail files read back;
 * --json gives the same keys with the typed values of the record.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jail.h"
#include "param.h"
#include "record.h"
#include "store.h"

/* A field: a jail parameter (its row), or a fact of the run. */
struct field {
	const char *name;      /* -o, -n and --json */
	const struct param *p; /* NULL: a fact of the run, from the record */
};

/* The facts of a run, shown among the parameters in this order.
 * "status" is the state as people read it ("up 5 minutes"), for the
 * table (and -o): -n and --json keep the exact facts. */
static const char *const run_fields[] = {"jid",	    "state", "status", "pid",	  "created",
					 "started", "exit",  "file",   "restarts"};
/* The fields in their order: these first, then every other parameter as
 * the table has them. */
static const char *const first_fields[] = {
	"name", "jid",	   "state",   "status", "pid",	"hostname", "domainname",
	"path", "created", "started", "exit",	"file", "restarts"};

static struct field fields[PARAM_COUNT + sizeof(run_fields) / sizeof(run_fields[0])];
static size_t nfields;

static bool is_run_field(const char *name)
{
	for (size_t i = 0; i < sizeof(run_fields) / sizeof(run_fields[0]); i++)
		if (strcmp(name, run_fields[i]) == 0)
			return true;
	return false;
}

static void fields_build(void)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(first_fields) / sizeof(first_fields[0]); i++) {
		const char *name = first_fields[i];

		fields[n++] = (struct field){name, is_run_field(name) ? NULL : param_find(name)};
	}
	for (size_t i = 0; i < PARAM_COUNT; i++) {
		bool listed = false;

		for (size_t k = 0; k < n; k++)
			listed = listed || fields[k].p == &param_table[i];
		if (!listed)
			fields[n++] = (struct field){param_table[i].name, &param_table[i]};
	}
	nfields = n;
}

/* The default table: these, then the limits any jail has set; its
 * times as people read them ("up 5 minutes", "2 hours ago"). */
static const char *const default_fields[] = {"name",	 "jid",	 "status",  "pid",
					     "hostname", "path", "created", NULL};

static bool is_limit(const struct field *f)
{
	return f->p != NULL && f->p->num != NULL;
}

static void ls_usage(FILE *out)
{
	fputs("Usage: cell ls [-a] [-q | -n | --json] [-o FIELD,...] [NAME...]\n"
	      "\n"
	      "List the running jails (only the NAMEs, running or stopped, when given),\n"
	      "one row each: NAME, JID, STATUS (\"up 5 minutes\", \"exited (4) 2 minutes\n"
	      "ago\"), PID, HOSTNAME, PATH (the --rootfs; \"-\" for the embedded root),\n"
	      "CREATED (\"5 minutes ago\"), IP4.ADDR when any has an address, and the\n"
	      "limits set on any of them.  Values are spelled as cell set and jail files\n"
	      "take them (64M, 0.5, a list as \"a, b\"); with -o, -n and --json times are\n"
	      "exact, ISO 8601 UTC, and the state one word (running, stopped); --json\n"
	      "has the same keys with typed values (sizes in bytes, lists as arrays).\n"
	      "A NAME that is no jail is an error (the others are listed).\n"
	      "\n"
	      "  -a, --all          stopped jails too\n"
	      "  -q, --quiet        names only, one per line\n"
	      "  -n, --params       name=value pairs, spelled as the parameters of cell set\n"
	      "                     and the jail file (every field but env)\n"
	      "  -o, --output LIST  these fields, in this order:\n"
	      "                    ",
	      out);
	for (size_t i = 0, col = 20; i < nfields; i++) {
		size_t len = strlen(fields[i].name) + 2;

		if (col + len > 78) {
			fputs("\n                    ", out);
			col = 20;
		}
		fprintf(out, " %s%s", fields[i].name, i + 1 < nfields ? "," : "\n");
		col += len;
	}
	fputs("  -j, --json         a JSON array of objects with these fields\n"
	      "  -h, --help         show this help\n",
	      out);
}

static const struct field *field_find(const char *name)
{
	const struct param *p = param_find(name);

	for (size_t i = 0; i < nfields; i++)
		if (strcmp(fields[i].name, name) == 0 ||
		    (p != NULL && strncmp(name, "allow.", 6) != 0 && fields[i].p == p))
			return &fields[i];
	return NULL;
}

/* One jail: its record, and the spec the record holds. */
struct row {
	const json_t *rec;
	struct jail_spec spec;
};

static char *human_status(const json_t *rec);

/* The field's typed value, a new reference; null when not set. */
static json_t *field_json(const struct row *r, const struct field *f)
{
	const json_t *v;

	if (f->p != NULL)
		return param_to_json(f->p, &r->spec);
	if (strcmp(f->name, "status") == 0) {
		char *text = human_status(r->rec);
		json_t *j = text != NULL ? json_string(text) : json_null();

		free(text);
		return j;
	}
	v = json_object_get(r->rec, f->name);
	return v != NULL ? json_deep_copy(v) : json_null();
}

/* A record's time ("2024-05-01T12:00:00Z"), -1 when absent. */
static time_t record_when(const json_t *rec, const char *key)
{
	const char *v = json_string_value(json_object_get(rec, key));
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof(tm));
	if (v == NULL || (end = strptime(v, "%Y-%m-%dT%H:%M:%SZ", &tm)) == NULL || *end != '\0')
		return -1;
	return timegm(&tm);
}

/* A duration as docker words it, lowercase: "less than a second",
 * "5 seconds", "about a minute", "3 hours", "2 weeks". */
static void human_duration(time_t d, char *buf, size_t size)
{
	long long s = d < 0 ? 0 : (long long)d, m = s / 60, h = s / 3600;

	if (s < 1)
		snprintf(buf, size, "less than a second");
	else if (s == 1)
		snprintf(buf, size, "1 second");
	else if (s < 60)
		snprintf(buf, size, "%lld seconds", s);
	else if (m == 1)
		snprintf(buf, size, "about a minute");
	else if (m < 60)
		snprintf(buf, size, "%lld minutes", m);
	else if (h == 1)
		snprintf(buf, size, "about an hour");
	else if (h < 48)
		snprintf(buf, size, "%lld hours", h);
	else if (h < 24 * 7 * 2)
		snprintf(buf, size, "%lld days", h / 24);
	else if (h < 24 * 30 * 2)
		snprintf(buf, size, "%lld weeks", h / 24 / 7);
	else if (h < 24 * 365 * 2)
		snprintf(buf, size, "%lld months", h / 24 / 30);
	else
		snprintf(buf, size, "%lld years", h / 24 / 365);
}

/* "5 minutes ago", or "" when the record has no such time. */
static char *human_ago(const json_t *rec, const char *key)
{
	time_t t = record_when(rec, key);
	char d[48], *text = NULL;

	if (t < 0)
		return strdup("");
	human_duration(time(NULL) - t, d, sizeof(d));
	if (asprintf(&text, "%s ago", d) < 0)
		text = NULL;
	return text;
}

/* The state as docker words it: "up 5 minutes", "exited (4) 2 minutes
 * ago" ("stopped 2 minutes ago" when its status is not known),
 * "creating", "created". */
static char *human_status(const json_t *rec)
{
	const char *state = json_string_value(json_object_get(rec, "state"));
	const json_t *exit = json_object_get(rec, "exit");
	time_t t;
	char d[48], *text = NULL;
	int r;

	if (state == NULL)
		return strdup("");
	if (strcmp(state, "running") == 0) {
		t = record_when(rec, "started");
		if (t < 0)
			t = record_when(rec, "created");
		human_duration(t < 0 ? 0 : time(NULL) - t, d, sizeof(d));
		r = asprintf(&text, "up %s", d);
	} else if (strcmp(state, "stopped") == 0) {
		char code[32] = "stopped";

		if (json_is_integer(exit))
			snprintf(code, sizeof(code), "exited (%" JSON_INTEGER_FORMAT ")",
				 json_integer_value(exit));
		t = record_when(rec, "stopped");
		human_duration(time(NULL) - t, d, sizeof(d));
		r = t < 0 ? asprintf(&text, "%s", code) : asprintf(&text, "%s %s ago", code, d);
	} else {
		r = asprintf(&text, "%s", state);
	}
	return r < 0 ? NULL : text;
}

/* The field as text, a heap string; "" when not set. */
static char *field_text(const struct row *r, const struct field *f)
{
	const json_t *v;
	char *text = NULL;

	if (f->p == NULL && strcmp(f->name, "status") == 0)
		return human_status(r->rec);
	if (f->p != NULL) {
		if (param_format(f->p, &r->spec, &text) <= 0)
			text = NULL;
		return text != NULL ? text : strdup("");
	}
	v = json_object_get(r->rec, f->name);
	if (json_is_integer(v)) {
		if (asprintf(&text, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0)
			text = NULL;
	} else if (json_is_string(v)) {
		text = strdup(json_string_value(v));
	}
	return text != NULL ? text : strdup("");
}

/* The chosen fields, from -o or the default. */
struct columns {
	const struct field *f[(PARAM_COUNT + 8) * 2];
	size_t n;
	bool human; /* the default table: created as "5 minutes ago" */
};

static int columns_parse(const char *list, struct columns *c)
{
	char *copy = strdup(list), *save = NULL;

	if (copy == NULL)
		return cli_usage_error("ls", "out of memory");
	c->n = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct field *f = field_find(tok);

		if (f == NULL) {
			int r = cli_usage_error("ls", "-o %s: unknown field (see cell ls --help)",
						tok);
			free(copy);
			return r;
		}
		if (c->n < sizeof(c->f) / sizeof(c->f[0]))
			c->f[c->n++] = f;
	}
	free(copy);
	if (c->n == 0)
		return cli_usage_error("ls", "-o: no field given");
	return 0;
}

static bool any_set(const struct row *rows, size_t n, const struct field *f)
{
	for (size_t i = 0; i < n; i++)
		if (f->p != NULL ? param_is_set(f->p, &rows[i].spec)
				 : !json_is_null(json_object_get(rows[i].rec, f->name)))
			return true;
	return false;
}

static void columns_default(const struct row *rows, size_t n, bool all, struct columns *c)
{
	c->n = 0;
	c->human = true;
	for (size_t i = 0; default_fields[i] != NULL; i++)
		c->f[c->n++] = field_find(default_fields[i]);
	(void)all; /* a stopped jail's exit status is in its STATUS */
	/* A bridged jail's IPv4 addresses, when any jail has one (IPv6 ones
	 * are too wide for the table: ls -o ip6.addr). */
	if (any_set(rows, n, field_find("ip4.addr")))
		c->f[c->n++] = field_find("ip4.addr");
	for (size_t i = 0; i < nfields; i++)
		if (is_limit(&fields[i]) && any_set(rows, n, &fields[i]))
			c->f[c->n++] = &fields[i];
}

/* In the table a control character shows as '?': one row per jail; an
 * unset value as "-". */
static char *field_cell(const struct row *r, const struct field *f, bool human)
{
	char *text = human && f->p == NULL && strcmp(f->name, "created") == 0
			     ? human_ago(r->rec, "created")
			     : field_text(r, f);

	if (text == NULL)
		return NULL;
	if (text[0] == '\0') {
		free(text);
		return strdup("-");
	}
	for (char *p = text; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	return text;
}

static void print_header(const struct columns *c, const size_t *width)
{
	for (size_t k = 0; k < c->n; k++) {
		const char *name = c->f[k]->name;

		for (size_t i = 0; name[i] != '\0'; i++)
			putchar(toupper((unsigned char)name[i]));
		printf("%*s", k + 1 < c->n ? (int)(width[k] - strlen(name) + 2) : 0, "");
	}
	putchar('\n');
}

static void print_table(const struct row *rows, size_t n, const struct columns *c)
{
	size_t width[sizeof(c->f) / sizeof(c->f[0])];

	for (size_t k = 0; k < c->n; k++) {
		width[k] = strlen(c->f[k]->name);
		for (size_t i = 0; i < n; i++) {
			char *cell = field_cell(&rows[i], c->f[k], c->human);

			if (cell != NULL && strlen(cell) > width[k])
				width[k] = strlen(cell);
			free(cell);
		}
	}
	print_header(c, width);
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < c->n; k++) {
			char *cell = field_cell(&rows[i], c->f[k], c->human);

			printf("%-*s%s", k + 1 < c->n ? (int)width[k] : 0, cell ? cell : "-",
			       k + 1 < c->n ? "  " : "\n");
			free(cell);
		}
	}
}

static bool has_control(const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return true;
	return false;
}

/* A value with control characters as a shell word: $'...' with escapes,
 * so that a jail stays on one line. */
static void print_escaped(const char *v)
{
	fputs("$'", stdout);
	for (const unsigned char *p = (const unsigned char *)v; *p != '\0'; p++) {
		if (*p == '\n')
			fputs("\\n", stdout);
		else if (*p == '\t')
			fputs("\\t", stdout);
		else if (*p == '\\' || *p == '\'')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			printf("\\x%02x", *p);
		else
			putchar(*p);
	}
	putchar('\'');
}

/* A value as a shell word: quoted when it holds what a shell splits on. */
static void print_word(const char *v)
{
	if (has_control(v)) {
		print_escaped(v);
		return;
	}
	if (v[0] != '\0' && strpbrk(v, " \t\n'\"\\$`;&|<>()*?[]#~") == NULL) {
		fputs(v, stdout);
		return;
	}
	putchar('\'');
	for (const char *p = v; *p != '\0'; p++) {
		if (*p == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*p);
	}
	putchar('\'');
}

static void print_params(const struct row *rows, size_t n, const struct columns *c)
{
	for (size_t i = 0; i < n; i++) {
		bool first = true;

		for (size_t k = 0; k < c->n; k++) {
			char *text = field_text(&rows[i], c->f[k]);

			/* Not set: nothing to feed back. */
			if (text != NULL && text[0] != '\0') {
				printf("%s%s=", first ? "" : " ", c->f[k]->name);
				print_word(text);
				first = false;
			}
			free(text);
		}
		putchar('\n');
	}
}

static void print_json(const struct row *rows, size_t n, const struct columns *c)
{
	json_t *out = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();

		for (size_t k = 0; k < c->n; k++) {
			json_t *v = field_json(&rows[i], c->f[k]);

			json_object_set_new(o, c->f[k]->name, v != NULL ? v : json_null());
		}
		json_array_append_new(out, o);
	}
	json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(out);
}

/* Keeps the jails of LIST named in NAMES; a name not there is an error
 * line each (the others are listed all the same). */
static int only_named(json_t *list, int n, char **names)
{
	int ret = 0;

	for (size_t i = json_array_size(list); i-- > 0;) {
		const char *name =
			json_string_value(json_object_get(json_array_get(list, i), "name"));
		bool named = false;

		for (int k = 0; k < n && !named; k++)
			named = name != NULL && strcmp(name, names[k]) == 0;
		if (!named)
			json_array_remove(list, i);
	}
	for (int k = 0; k < n; k++) {
		bool found = false;
		size_t i;
		json_t *rec;

		json_array_foreach(list, i, rec) found =
			found ||
			strcmp(json_string_value(json_object_get(rec, "name")), names[k]) == 0;
		if (!found) {
			cli_usage_error("ls", "jail %s: no such jail", names[k]);
			ret = -1;
		}
	}
	return ret;
}

int cmd_ls(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"all", no_argument, NULL, 'a'},
		{"quiet", no_argument, NULL, 'q'},
		{"params", no_argument, NULL, 'n'},
		{"output", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	enum { TABLE, QUIET, PARAMS, JSON } mode = TABLE;
	const char *output = NULL;
	struct columns cols = {.n = 0};
	struct cell_err e;
	bool all = false;
	json_t *list, *rec;
	struct row *rows;
	size_t n, i;
	int c, rootfd, ret = 0;

	fields_build();
	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+aqno:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'q':
			mode = QUIET;
			break;
		case 'n':
			mode = PARAMS;
			break;
		case 'j':
			mode = JSON;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			ls_usage(stdout);
			return 0;
		default:
			return cli_bad_option("ls", argv, opts);
		}
	}
	if (output != NULL && columns_parse(output, &cols) != 0)
		return CELL_EXIT_ERROR;
	for (int a = optind; a < argc; a++)
		argv[a] = cli_jail_arg(g, argv[a]); /* a JID names a jail too */
	cell_err_clear(&e);
	/* A root that does not exist holds no jail: ls never makes one. */
	if (store_open_root_existing(g->root, &rootfd, &e) < 0)
		return cli_fail("ls", &e);
	/* Named jails are listed running or stopped. */
	list = rootfd >= 0 ? jail_list(rootfd, all || optind < argc, &e) : json_array();
	if (rootfd >= 0)
		close(rootfd);
	if (list == NULL)
		return cli_fail("ls", &e);
	if (optind < argc && only_named(list, argc - optind, argv + optind) < 0)
		ret = CELL_EXIT_ERROR;
	n = json_array_size(list);
	rows = calloc(n + 1, sizeof(*rows));
	if (rows == NULL) {
		json_decref(list);
		return cli_usage_error("ls", "out of memory");
	}
	json_array_foreach(list, i, rec)
	{
		rows[i].rec = rec;
		spec_init(&rows[i].spec);
		/* A record it cannot read shows what it could. */
		if (record_spec(rec, &rows[i].spec, &e) < 0)
			cell_err_clear(&e);
	}
	if (output == NULL) {
		if (mode == TABLE)
			columns_default(rows, n, all, &cols);
		else {
			cols.n = 0;
			for (size_t k = 0; k < nfields; k++)
				if ((fields[k].p == NULL || !fields[k].p->hidden) &&
				    strcmp(fields[k].name, "status") != 0)
					cols.f[cols.n++] = &fields[k];
		}
	}
	if (mode == QUIET) {
		json_array_foreach(list, i, rec)
			printf("%s\n", json_string_value(json_object_get(rec, "name")));
	} else if (mode == PARAMS) {
		print_params(rows, n, &cols);
	} else if (mode == JSON) {
		print_json(rows, n, &cols);
	} else {
		print_table(rows, n, &cols);
	}
	for (i = 0; i < n; i++)
		spec_free(&rows[i].spec);
	free(rows);
	json_decref(list);
	return ret;
}
