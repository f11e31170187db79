/*
 * jail_life.c - `cell start`, `cell restart` and `cell wait`: a named
 * jail's life after its first start (lifecycle.h).
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "lifecycle.h"
#include "param.h"
#include "record.h"
#include "spec.h"
#include "store.h"

#define RESTART_TIMEOUT_DEFAULT 10

static void start_usage(FILE *out)
{
	fputs("Usage: cell start NAME...\n"
	      "\n"
	      "Start stopped jails again, detached, from their records: the same\n"
	      "parameters, command and environment as their first start, in the same\n"
	      "state directory (the same JID), their output appended to their log.\n"
	      "Prints each name started.  A running jail is an error.\n"
	      "\n"
	      "  -h, --help  show this help\n",
	      out);
}

static void restart_usage(FILE *out)
{
	fputs("Usage: cell restart [-t SECONDS] NAME...\n"
	      "\n"
	      "Stop jails as cell stop does (a stopped one is not an error), then start\n"
	      "them again as cell start does.  Prints each name restarted.\n"
	      "\n"
	      "  -t, --time SECONDS  wait this long after SIGTERM (default 10; 0: SIGKILL\n"
	      "                      at once)\n"
	      "  -h, --help          show this help\n",
	      out);
}

static void wait_usage(FILE *out)
{
	fputs("Usage: cell wait NAME...\n"
	      "\n"
	      "Wait until each jail has ended (at once for a stopped one), then exit\n"
	      "with the last one's exit status.  Prints nothing.  A jail whose status\n"
	      "is not known (one that ran without cell's reaper and ended by itself)\n"
	      "is an error.\n"
	      "\n"
	      "  -h, --help  show this help\n",
	      out);
}

/* The options of a command that takes only --help (and -t when TIMEOUT
 * is not NULL); 0 to go on, 1 after --help, else the exit status. */
static int parse(const char *cmd, int argc, char **argv, long long *timeout, void (*usage)(FILE *))
{
	static const struct option with_time[] = {
		{"time", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct option *opts = timeout != NULL ? with_time : with_time + 1;
	int c;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, timeout != NULL ? "+t:h" : "+h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (spec_parse_count(optarg, timeout) < 0 || *timeout > INT_MAX)
				return cli_usage_error(cmd, "-t %s: expected seconds >= 0", optarg);
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return cli_bad_option(cmd, argv, opts);
		}
	}
	if (optind >= argc)
		return cli_usage_error(cmd, "no jail named (see cell %s --help)", cmd);
	return 0;
}

/* An error about one of jail NAME's parameters spelled as cell set and
 * ls -n spell it, PARAM=VALUE, the value from its record (a list's
 * element by itself). */
static void spell_from_record(const char *root, const char *name, struct cell_err *e)
{
	const struct param *p = param_get(e->about.param);
	const struct param *ref = param_get(e->about.ref);
	struct jail_spec s;
	struct cell_err ignored;
	char *text = NULL, *word = NULL;
	json_t *rec = NULL;
	int rootfd = -1;

	if (p == NULL)
		return;
	spec_init(&s);
	if (store_open_root_existing(root, &rootfd, &ignored) == 0 && rootfd >= 0)
		rec = store_jail_peek(rootfd, name);
	if (rec != NULL && record_spec(rec, &s, &ignored) == 0 &&
	    param_format_element(p, &s, p->type == PARAM_LIST ? (size_t)e->about.index : 0, &text) >
		    0 &&
	    asprintf(&word, "%s=%s", p->name, text) < 0)
		word = NULL;
	cell_err_spell(e, word != NULL ? word : p->name, ref != NULL ? ref->name : NULL);
	free(word);
	free(text);
	json_decref(rec);
	spec_free(&s);
	if (rootfd >= 0)
		close(rootfd);
}

int cmd_start(const struct cli_global *g, int argc, char **argv)
{
	struct cell_err e;
	int ret = parse("start", argc, argv, NULL, start_usage);

	if (ret != 0)
		return ret == 1 ? 0 : ret;
	for (int i = optind; i < argc; i++) {
		argv[i] = cli_jail_arg(g, argv[i]); /* a JID names a jail too */
		cell_err_clear(&e);
		if (jail_start_stopped(g->root, argv[i], &e) < 0) {
			spell_from_record(g->root, argv[i], &e);
			ret = cli_fail("start", &e);
			continue;
		}
		printf("%s\n", argv[i]);
		fflush(stdout);
	}
	return ret;
}

int cmd_restart(const struct cli_global *g, int argc, char **argv)
{
	long long timeout = RESTART_TIMEOUT_DEFAULT;
	struct cell_err e;
	int ret = parse("restart", argc, argv, &timeout, restart_usage);

	if (ret != 0)
		return ret == 1 ? 0 : ret;
	for (int i = optind; i < argc; i++) {
		argv[i] = cli_jail_arg(g, argv[i]); /* a JID names a jail too */
		cell_err_clear(&e);
		if (jail_restart(g->root, argv[i], (int)timeout, &e) < 0) {
			spell_from_record(g->root, argv[i], &e);
			ret = cli_fail("restart", &e);
			continue;
		}
		printf("%s\n", argv[i]);
		fflush(stdout);
	}
	return ret;
}

int cmd_wait(const struct cli_global *g, int argc, char **argv)
{
	struct cell_err e;
	int ret = parse("wait", argc, argv, NULL, wait_usage);

	if (ret != 0)
		return ret == 1 ? 0 : ret;
	for (int i = optind; i < argc; i++) {
		int status;

		argv[i] = cli_jail_arg(g, argv[i]); /* a JID names a jail too */
		cell_err_clear(&e);
		if (jail_wait(g->root, argv[i], &status, &e) < 0)
			ret = cli_fail("wait", &e);
		else if (status < 0)
			ret = cli_usage_error(
				"wait", "jail %s: ended; its exit status is not known", argv[i]);
		else
			ret = status;
	}
	return ret;
}
