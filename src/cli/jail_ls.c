/*
 * jail_ls.c - `cell ls`: one row per jail, like FreeBSD's jls(8).
 *
 * Every field is named as the parameter of `cell run`, the jail file and
 * `cell set` (hostname, path, nrtask, memory...), so that `cell ls -n`
 * prints name=value pairs that can be fed back.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "jail.h"
#include "store.h"

enum kind { F_STR, F_INT, F_SIZE, F_CPUS, F_TIME, F_BOOL, F_ARGV };

struct field {
	const char *name;   /* the parameter's name: -o, -n and --json */
	const char *header; /* the table's column */
	const char *path;   /* where in the record: "limits.memory" */
	enum kind kind;
};

static const struct field fields[] = {
	{"name", "NAME", "name", F_STR},
	{"jid", "JID", "jid", F_INT},
	{"state", "STATE", "state", F_STR},
	{"pid", "PID", "pid", F_INT},
	{"hostname", "HOSTNAME", "hostname", F_STR},
	{"domainname", "DOMAINNAME", "domainname", F_STR},
	{"path", "PATH", "rootfs", F_STR},
	{"created", "CREATED", "created", F_TIME},
	{"exit", "EXIT", "exit", F_INT},
	{"net", "NET", "net", F_STR},
	{"userns", "USERNS", "userns", F_STR},
	{"init", "INIT", "init", F_BOOL},
	{"user", "USER", "user", F_STR},
	{"command", "COMMAND", "command", F_ARGV},
	{"nrtask", "NRTASK", "limits.nrtask", F_INT},
	{"memory", "MEMORY", "limits.memory", F_SIZE},
	{"swap", "SWAP", "limits.swap", F_SIZE},
	{"cpus", "CPUS", "limits.cpus", F_CPUS},
	{"cpu_time", "CPU_TIME", "limits.cpu_time", F_INT},
	{"memlock", "MEMLOCK", "limits.memlock", F_SIZE},
	{"data", "DATA", "limits.data", F_SIZE},
	{"nofile", "NOFILE", "limits.nofile", F_INT},
	{"nice", "NICE", "limits.nice", F_INT},
	{"cgroup_parent", "CGROUP_PARENT", "cgroup_parent", F_STR},
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* The default table; the limits follow when any jail has one set. */
static const char *const default_fields[] = {"name",	 "jid",	 "state",   "pid",
					     "hostname", "path", "created", NULL};
static const char *const limit_fields[] = {"nrtask",  "memory", "swap",	  "cpus", "cpu_time",
					   "memlock", "data",	"nofile", "nice", NULL};

static void ls_usage(FILE *out)
{
	fputs("Usage: cell ls [-a] [-q | -n | --json] [-o FIELD,...]\n"
	      "\n"
	      "List the running jails, one row each: NAME, JID, STATE, PID, HOSTNAME,\n"
	      "PATH (the --rootfs; \"-\" for the embedded root), CREATED, and the limits\n"
	      "set on any of them.\n"
	      "\n"
	      "  -a, --all          stopped jails too (with EXIT, their exit status, when\n"
	      "                     it is known)\n"
	      "  -q, --quiet        names only, one per line\n"
	      "  -n, --params       name=value pairs, spelled as the parameters of cell run,\n"
	      "                     the jail file and cell set\n"
	      "  -o, --output LIST  these fields, in this order: name, jid, state, pid,\n"
	      "                     hostname, domainname, path, created, exit, net, userns,\n"
	      "                     init, user, command, nrtask, memory, swap, cpus,\n"
	      "                     cpu_time, memlock, data, nofile, nice, cgroup_parent\n"
	      "  -j, --json         a JSON array of objects with these fields\n"
	      "  -h, --help         show this help\n",
	      out);
}

static const struct field *field_find(const char *name)
{
	if (strcmp(name, "host.hostname") == 0)
		name = "hostname";
	else if (strcmp(name, "host.domainname") == 0)
		name = "domainname";
	else if (strcmp(name, "rootfs") == 0)
		name = "path";
	for (size_t i = 0; i < NFIELDS; i++)
		if (strcmp(fields[i].name, name) == 0)
			return &fields[i];
	return NULL;
}

static const json_t *field_json(const json_t *rec, const struct field *f)
{
	const char *dot = strchr(f->path, '.');
	char head[32];

	if (dot == NULL)
		return json_object_get(rec, f->path);
	snprintf(head, sizeof(head), "%.*s", (int)(dot - f->path), f->path);
	return json_object_get(json_object_get(rec, head), dot + 1);
}

/* A size in the spelling --memory takes: 64M rather than 67108864. */
static void format_size(long long v, char *buf, size_t size)
{
	static const char units[] = "KMGT";
	int u = -1;

	while (u < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, size, "%lld", v);
	else
		snprintf(buf, size, "%lld%c", v, units[u]);
}

/* The field as text; "" when not set. */
static void field_text(const json_t *rec, const struct field *f, char *buf, size_t size)
{
	const json_t *v = field_json(rec, f);

	buf[0] = '\0';
	if (v == NULL || json_is_null(v))
		return;
	switch (f->kind) {
	case F_STR:
		snprintf(buf, size, "%s", json_string_value(v) ? json_string_value(v) : "");
		break;
	case F_INT:
		snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case F_SIZE:
		format_size((long long)json_integer_value(v), buf, size);
		break;
	case F_CPUS:
		snprintf(buf, size, "%g", json_number_value(v));
		break;
	case F_TIME: {
		time_t t = (time_t)json_integer_value(v);
		struct tm tm;

		if (gmtime_r(&t, &tm) != NULL)
			strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
		break;
	}
	case F_BOOL:
		snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
		break;
	case F_ARGV: {
		size_t i, off = 0;
		json_t *item;

		json_array_foreach((json_t *)v, i, item)
		{
			int n = snprintf(buf + off, size - off, "%s%s", i ? " " : "",
					 json_string_value(item) ? json_string_value(item) : "");
			if (n < 0 || (size_t)n >= size - off)
				break;
			off += (size_t)n;
		}
		break;
	}
	}
}

/* The chosen fields, from -o or the default. */
struct columns {
	const struct field *f[NFIELDS * 2];
	size_t n;
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

static bool any_set(const json_t *list, const struct field *f)
{
	size_t i;
	json_t *rec;

	json_array_foreach((json_t *)list, i, rec)
	{
		const json_t *v = field_json(rec, f);

		if (v != NULL && !json_is_null(v))
			return true;
	}
	return false;
}

static void columns_default(const json_t *list, bool all, struct columns *c)
{
	c->n = 0;
	for (size_t i = 0; default_fields[i] != NULL; i++)
		c->f[c->n++] = field_find(default_fields[i]);
	if (all)
		c->f[c->n++] = field_find("exit");
	for (size_t i = 0; limit_fields[i] != NULL; i++)
		if (any_set(list, field_find(limit_fields[i])))
			c->f[c->n++] = field_find(limit_fields[i]);
}

/* In the table a control character shows as '?': one row per jail. */
static void field_cell(const json_t *rec, const struct field *f, char *buf, size_t size)
{
	field_text(rec, f, buf, size);
	for (char *p = buf; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

static void print_table(const json_t *list, const struct columns *c)
{
	size_t width[NFIELDS * 2], i;
	json_t *rec;
	char buf[4096];

	for (size_t k = 0; k < c->n; k++)
		width[k] = strlen(c->f[k]->header);
	json_array_foreach((json_t *)list, i, rec)
	{
		for (size_t k = 0; k < c->n; k++) {
			field_cell(rec, c->f[k], buf, sizeof(buf));
			if (strlen(buf) > width[k])
				width[k] = strlen(buf);
		}
	}
	for (size_t k = 0; k < c->n; k++)
		printf("%-*s%s", k + 1 < c->n ? (int)width[k] : 0, c->f[k]->header,
		       k + 1 < c->n ? "  " : "\n");
	json_array_foreach((json_t *)list, i, rec)
	{
		for (size_t k = 0; k < c->n; k++) {
			field_cell(rec, c->f[k], buf, sizeof(buf));
			if (buf[0] == '\0')
				snprintf(buf, sizeof(buf), "-");
			printf("%-*s%s", k + 1 < c->n ? (int)width[k] : 0, buf,
			       k + 1 < c->n ? "  " : "\n");
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

static void print_params(const json_t *list, const struct columns *c)
{
	size_t i;
	json_t *rec;
	char buf[4096];

	json_array_foreach((json_t *)list, i, rec)
	{
		bool first = true;

		for (size_t k = 0; k < c->n; k++) {
			field_text(rec, c->f[k], buf, sizeof(buf));
			if (buf[0] == '\0')
				continue; /* not set: nothing to feed back */
			printf("%s%s=", first ? "" : " ", c->f[k]->name);
			print_word(buf);
			first = false;
		}
		putchar('\n');
	}
}

static void print_json(const json_t *list, const struct columns *c)
{
	json_t *out = json_array();
	size_t i;
	json_t *rec;

	json_array_foreach((json_t *)list, i, rec)
	{
		json_t *o = json_object();

		for (size_t k = 0; k < c->n; k++) {
			const json_t *v = field_json(rec, c->f[k]);

			json_object_set_new(o, c->f[k]->name,
					    v != NULL ? json_deep_copy(v) : json_null());
		}
		json_array_append_new(out, o);
	}
	json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(out);
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
	struct columns cols;
	struct cell_err e;
	bool all = false;
	json_t *list;
	int c, rootfd;

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
	if (optind < argc)
		return cli_usage_error("ls", "unexpected argument '%s' (see cell ls --help)",
				       argv[optind]);
	if (output != NULL && columns_parse(output, &cols) != 0)
		return CELL_EXIT_ERROR;
	cell_err_clear(&e);
	/* A root that does not exist holds no jail: ls never makes one. */
	if (store_open_root_existing(g->root, &rootfd, &e) < 0)
		return cli_fail("ls", &e);
	list = rootfd >= 0 ? jail_list(rootfd, all, &e) : json_array();
	if (rootfd >= 0)
		close(rootfd);
	if (list == NULL)
		return cli_fail("ls", &e);
	if (output == NULL) {
		if (mode == TABLE)
			columns_default(list, all, &cols);
		else {
			cols.n = 0;
			for (size_t i = 0; i < NFIELDS; i++)
				cols.f[cols.n++] = &fields[i];
		}
	}
	if (mode == QUIET) {
		size_t i;
		json_t *rec;

		json_array_foreach(list, i, rec)
			printf("%s\n", json_string_value(json_object_get(rec, "name")));
	} else if (mode == PARAMS) {
		print_params(list, &cols);
	} else if (mode == JSON) {
		print_json(list, &cols);
	} else {
		print_table(list, &cols);
	}
	json_decref(list);
	return 0;
}
