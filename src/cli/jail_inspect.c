/*
 * jail_inspect.c - `cell inspect`: a jail's parameters, namespaces,
 * cgroups, limits with their use, and the policy in force.
 *
 * Text output is one name=value per line, the keys of the JSON output
 * joined with dots (usage.tasks=3, rules.mount=...), so that a script
 * reads either form the same way.  The jail's parameters are spelled as
 * cell ls and cell set spell them (memory=64M; the JSON has 67108864).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "inspect.h"
#include "param.h"
#include "record.h"

static void inspect_usage(FILE *out)
{
	fputs("Usage: cell inspect [--json] NAME\n"
	      "       cell inspect [--json] --pid PID\n"
	      "\n"
	      "Describe a running jail: its parameters, namespaces (inode numbers),\n"
	      "cgroups, limits with their current use, the policy rule by rule with the\n"
	      "mechanism that enforces it, and what its first process holds\n"
	      "(capabilities, no_new_privs, seccomp, rlimits, nice).\n"
	      "\n"
	      "  -p, --pid PID   describe the jail PID runs in, and PID itself; prints\n"
	      "                  \"not jailed\" and exits 1 when it is in none\n"
	      "  -j, --json      print a JSON object instead of name=value lines\n"
	      "  -h, --help      show this help\n",
	      out);
}

static void print_value(const json_t *v)
{
	size_t i;
	json_t *item;

	switch (json_typeof(v)) {
	case JSON_STRING:
		fputs(json_string_value(v), stdout);
		break;
	case JSON_INTEGER:
		printf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		printf("%g", json_real_value(v));
		break;
	case JSON_TRUE:
		fputs("true", stdout);
		break;
	case JSON_FALSE:
		fputs("false", stdout);
		break;
	case JSON_ARRAY:
		json_array_foreach(v, i, item)
		{
			if (i > 0)
				putchar(',');
			print_value(item);
		}
		break;
	default: /* null: not set */
		break;
	}
}

/* A parameter's line: its format, as cell ls and cell set spell it. */
static void print_param(const struct param *p, const struct jail_spec *spec)
{
	char *text = NULL;

	printf("%s=", p->name);
	if (param_format(p, spec, &text) > 0)
		fputs(text, stdout);
	free(text);
	putchar('\n');
}

/* name=value lines of an object, nested keys joined with '.'; the jail's
 * parameters (SPEC, at the top) in their text format. */
static void print_flat(const char *prefix, const json_t *obj, const struct jail_spec *spec)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)obj, key, v)
	{
		const struct param *p = spec != NULL ? param_find(key) : NULL;
		char name[256];

		if (p != NULL && strcmp(p->name, key) == 0) {
			print_param(p, spec);
			continue;
		}
		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", key);
		if (json_is_object(v)) {
			print_flat(name, v, NULL);
			continue;
		}
		printf("%s=", name);
		print_value(v);
		putchar('\n');
	}
}

int cmd_inspect(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"pid", required_argument, NULL, 'p'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cell_err e;
	const char *pid_arg = NULL;
	bool as_json = false;
	json_t *out = NULL;
	int c;

	cell_err_clear(&e);
	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+p:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid_arg = optarg;
			break;
		case 'j':
			as_json = true;
			break;
		case 'h':
			inspect_usage(stdout);
			return 0;
		default:
			return cli_bad_option("inspect", argv, opts);
		}
	}
	if (pid_arg != NULL) {
		char *end;
		long pid;

		if (optind != argc)
			return cli_usage_error("inspect", "give either NAME or --pid PID");
		errno = 0;
		pid = strtol(pid_arg, &end, 10);
		if (errno != 0 || end == pid_arg || *end != '\0' || pid <= 0 || pid > 0x7fffffff)
			return cli_usage_error("inspect", "--pid %s: expected a process id",
					       pid_arg);
		if (jail_inspect_pid(g->root, (pid_t)pid, &out, &e) < 0)
			return cli_fail("inspect", &e);
		if (out == NULL) {
			puts(as_json ? "null" : "not jailed");
			return 1;
		}
	} else {
		if (optind + 1 != argc)
			return cli_usage_error("inspect",
					       "expected one jail NAME (see cell inspect --help)");
		argv[optind] = cli_jail_arg(g, argv[optind]); /* a JID names a jail too */
		if (jail_inspect(g->root, argv[optind], &out, &e) < 0)
			return cli_fail("inspect", &e);
	}
	/* As ls: the parameters it hides (env: the caller's environment)
	 * only when asked, with cell ls -o. */
	for (size_t i = 0; i < PARAM_COUNT; i++)
		if (param_table[i].hidden)
			json_object_del(out, param_table[i].name);
	if (as_json) {
		char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

		if (text != NULL)
			puts(text);
		free(text);
	} else {
		struct jail_spec spec;

		spec_init(&spec);
		/* A record it cannot read shows what it could. */
		if (record_spec(out, &spec, &e) < 0)
			cell_err_clear(&e);
		print_flat("", out, &spec);
		spec_free(&spec);
	}
	json_decref(out);
	return 0;
}
