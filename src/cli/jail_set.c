/*
 * jail_set.c - `cell set`: like FreeBSD's jail -m.
 *
 * Each NAME=VALUE word is read through the table of parameters (param.h)
 * into a typed change, which the engine applies; an error about a
 * parameter is spelled as the word that named it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jail.h"
#include "param.h"
#include "set.h"

static void set_usage(FILE *out)
{
	fputs("Usage: cell set [-f] NAME PARAM=VALUE...\n"
	      "\n"
	      "Change a running jail, at once: hostname=, domainname= (the jail sees the\n"
	      "new name, nothing else does), and the limits nrtask=, memory=, swap=,\n"
	      "cpus= (its cgroups), cpu_time=, memlock=, data=, nofile= (the rlimits of\n"
	      "every process of the jail), nice= (their nice value, and the floor\n"
	      "below which the jail cannot go), a bridged jail's addresses ip4.addr=,\n"
	      "ip6.addr= (its interface).  Values are spelled as for cell run and\n"
	      "as cell ls -n prints them; another parameter may be given its current\n"
	      "value.  PARAM+=VALUE adds elements to a list, PARAM-=VALUE removes them\n"
	      "(ip4.addr+=192.0.2.9/24).  If any one cannot be applied, nothing changes.\n"
	      "A limit of max removes it (memory=max); nrtask= or memory= below what the\n"
	      "jail uses now is refused unless -f.  NAME may be the jail's JID.\n"
	      "\n"
	      "Parameters that change live:",
	      out);
	for (size_t i = 0, col = 28; i < PARAM_COUNT; i++) {
		if (!param_table[i].live)
			continue;
		if (col + strlen(param_table[i].name) + 1 > 78) {
			fputs("\n ", out);
			col = 1;
		}
		fprintf(out, " %s", param_table[i].name);
		col += strlen(param_table[i].name) + 1;
	}
	fputs("\n\n  -f, --force  set a limit even below what the jail uses now\n"
	      "  -h, --help   show this help\n",
	      out);
}

/* "key=value" words -> *C; the word of each parameter in WORDS. */
static int parse_words(char **argv, int n, struct jail_change *c, const char **words,
		       struct cell_err *e)
{
	for (int i = 0; i < n; i++) {
		char key[256];
		const char *eq = strchr(argv[i], '=');
		const struct param *p;
		int r;

		char op = '=';
		size_t klen;

		if (eq == NULL || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof(key))
			return cell_err_set(e, 0, "%s: expected PARAM=VALUE", argv[i]);
		klen = (size_t)(eq - argv[i]);
		/* PARAM+=VALUE, PARAM-=VALUE: elements of a list. */
		if (klen > 1 && (eq[-1] == '+' || eq[-1] == '-'))
			op = eq[-1], klen--;
		snprintf(key, sizeof(key), "%.*s", (int)klen, argv[i]);
		p = param_find(key);
		if (p == NULL)
			return cell_err_set(e, 0, "%s: unknown parameter", argv[i]);
		if (op != '=' && jail_change_mark(c, p->id, op, e) < 0) {
			cell_err_spell(e, argv[i], NULL);
			return -1;
		}
		/* allow.RULE=BOOL is one rule; NAME=VALUE the whole value. */
		if (strchr(key, '.') != NULL && p->id == PARAM_ALLOW)
			r = param_set(&c->values, key, eq + 1, NULL, e);
		else
			r = param_parse_text(p, &c->values, eq + 1, e);
		if (r < 0) {
			cell_err_spell(e, argv[i], NULL);
			return -1;
		}
		if (op == '=')
			jail_change_mark(c, p->id, op, e);
		words[p->id] = argv[i];
		if (op != '=' && (p->id == PARAM_IP4 || p->id == PARAM_IP6))
			words[PARAM_IP4] = words[PARAM_IP6] = argv[i];
	}
	return 0;
}

int cmd_set(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool force = false;
	const char *words[PARAM_COUNT] = {NULL};
	struct jail_change change;
	struct cell_err e;
	int c, ret = 0;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+fh", opts, NULL)) != -1) {
		if (c == 'h') {
			set_usage(stdout);
			return 0;
		}
		if (c == 'f') {
			force = true;
			continue;
		}
		return cli_bad_option("set", argv, opts);
	}
	if (optind >= argc)
		return cli_usage_error("set", "no jail named (see cell set --help)");
	if (optind + 1 >= argc)
		return cli_usage_error("set", "jail %s: no PARAM=VALUE given", argv[optind]);
	argv[optind] = cli_jail_arg(g, argv[optind]); /* a JID names a jail too */
	cell_err_clear(&e);
	jail_change_init(&change);
	change.force = force;
	/* Rootless: into the jail's user namespace first (jail.h). */
	if (parse_words(argv + optind + 1, argc - optind - 1, &change, words, &e) < 0 ||
	    jail_join_userns(g->root, argv[optind], &e) < 0 ||
	    jail_set(g->root, argv[optind], &change, &e) < 0) {
		const struct param *p = param_get(e.about.param);
		const struct param *ref = param_get(e.about.ref);

		/* The word that named it, else (a parameter not given) its
		 * name. */
		if (p != NULL || ref != NULL)
			cell_err_spell(&e,
				       p == NULL      ? NULL
				       : words[p->id] ? words[p->id]
						      : p->name,
				       ref != NULL ? ref->name : NULL);
		ret = cli_fail("set", &e);
	}
	jail_change_free(&change);
	return ret;
}
