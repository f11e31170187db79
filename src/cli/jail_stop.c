/*
 * jail_stop.c - `cell stop` and `cell rm`: the end of a jail's life.
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jail.h"
#include "spec.h"
#include "store.h"

#define STOP_TIMEOUT_DEFAULT 10

static void stop_usage(FILE *out)
{
	fputs("Usage: cell stop [-t SECONDS] NAME...\n"
	      "\n"
	      "Stop running jails: SIGTERM to the jail's pid 1, then, after the timeout,\n"
	      "SIGKILL, which ends every process of the jail at once (they live in its\n"
	      "pid namespace).  The jail's cgroups are released; its record stays, as\n"
	      "stopped, until cell rm (or cell start).  A jail already stopped is not\n"
	      "an error.  Several jails stop side by side: every SIGTERM first, then\n"
	      "one wait.  Prints each name stopped, one per line.\n"
	      "\n"
	      "  -t, --time SECONDS  wait this long after SIGTERM (default 10; 0: SIGKILL\n"
	      "                      at once)\n"
	      "  -h, --help          show this help\n",
	      out);
}

static void rm_usage(FILE *out)
{
	fputs("Usage: cell rm [-f] NAME...\n"
	      "\n"
	      "Remove stopped jails: their state, log, cgroups.  A running jail is an\n"
	      "error unless -f.  Prints each name removed, one per line.\n"
	      "\n"
	      "  -f, --force  stop a running jail first (SIGKILL)\n"
	      "  -h, --help   show this help\n",
	      out);
}

/* Without a state root (never made here) no name is a jail. */
static int no_such_jails(const char *cmd, int argc, char **argv)
{
	for (int i = optind; i < argc; i++)
		cli_usage_error(cmd, "jail %s: no such jail", argv[i]);
	return CELL_EXIT_ERROR;
}

static int check_names(const char *cmd, int argc, char **argv)
{
	if (optind >= argc)
		return cli_usage_error(cmd, "no jail named (see cell %s --help)", cmd);
	return 0;
}

/* Opens the N jails NAMES, stops them side by side (jail_stop_all()),
 * and prints each one stopped; an error is printed per jail and the rest
 * go on. */
static int stop_names(int rootfd, int n, char **names, int timeout)
{
	struct jail *js = calloc((size_t)n + 1, sizeof(*js));
	struct cell_err *errs = calloc((size_t)n + 1, sizeof(*errs));
	const char **opened = calloc((size_t)n + 1, sizeof(*opened));
	struct cell_err e;
	size_t k = 0;
	int ret = 0;

	if (js == NULL || errs == NULL || opened == NULL) {
		free(js);
		free(errs);
		free(opened);
		return cli_usage_error("stop", "out of memory");
	}
	for (int i = 0; i < n; i++) {
		cell_err_clear(&e);
		if (jail_open_existing(rootfd, names[i], &js[k], &e) < 0) {
			ret = cli_fail("stop", &e);
			continue;
		}
		cell_err_clear(&errs[k]);
		opened[k++] = names[i];
	}
	jail_stop_all(rootfd, js, k, timeout, errs);
	for (size_t i = 0; i < k; i++) {
		if (errs[i].msg[0] != '\0')
			ret = cli_fail("stop", &errs[i]);
		else
			printf("%s\n", opened[i]);
		jail_close(&js[i]);
	}
	fflush(stdout);
	free(js);
	free(errs);
	free(opened);
	return ret;
}

int cmd_stop(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"time", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	long long timeout = STOP_TIMEOUT_DEFAULT;
	struct cell_err e;
	int c, rootfd, ret = 0;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+t:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (spec_parse_count(optarg, &timeout) < 0 || timeout > INT_MAX)
				return cli_usage_error("stop", "-t %s: expected seconds >= 0",
						       optarg);
			break;
		case 'h':
			stop_usage(stdout);
			return 0;
		default:
			return cli_bad_option("stop", argv, opts);
		}
	}
	if (check_names("stop", argc, argv) != 0)
		return CELL_EXIT_ERROR;
	cell_err_clear(&e);
	if (store_open_root_existing(g->root, &rootfd, &e) < 0)
		return cli_fail("stop", &e);
	if (rootfd < 0)
		return no_such_jails("stop", argc, argv);
	for (int i = optind; i < argc; i++)
		argv[i] = cli_jail_arg(g, argv[i]); /* a JID names a jail too */
	ret = stop_names(rootfd, argc - optind, argv + optind, (int)timeout);
	close(rootfd);
	return ret;
}

int cmd_rm(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	bool force = false;
	struct cell_err e;
	int c, rootfd, ret = 0;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			force = true;
			break;
		case 'h':
			rm_usage(stdout);
			return 0;
		default:
			return cli_bad_option("rm", argv, opts);
		}
	}
	if (check_names("rm", argc, argv) != 0)
		return CELL_EXIT_ERROR;
	cell_err_clear(&e);
	if (store_open_root_existing(g->root, &rootfd, &e) < 0)
		return cli_fail("rm", &e);
	if (rootfd < 0)
		return no_such_jails("rm", argc, argv);
	for (int i = optind; i < argc; i++) {
		struct jail j;

		argv[i] = cli_jail_arg(g, argv[i]); /* a JID names a jail too */
		if (jail_open_existing(rootfd, argv[i], &j, &e) < 0) {
			ret = cli_fail("rm", &e);
			continue;
		}
		if (jail_remove(rootfd, &j, force, &e) < 0)
			ret = cli_fail("rm", &e);
		else
			printf("%s\n", argv[i]);
		jail_close(&j);
	}
	close(rootfd);
	return ret;
}
