/*
 * jail_set.c - `cell set`: like FreeBSD's jail -m.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "set.h"

static void set_usage(FILE *out)
{
	fputs("Usage: cell set NAME PARAM=VALUE...\n"
	      "\n"
	      "Change a running jail, at once: hostname=, domainname= (the jail sees the\n"
	      "new name, nothing else does), and the limits nrtask=, memory=, swap=,\n"
	      "cpus= (its cgroups), cpu_time=, memlock=, data=, nofile= (the rlimits of\n"
	      "every process of the jail), nice= (their nice value, and the floor\n"
	      "below which the jail cannot go).  Values are spelled as for cell run and\n"
	      "as cell ls -n prints them.  If any one cannot be applied, nothing\n"
	      "changes.\n"
	      "\n"
	      "  -h, --help   show this help\n",
	      out);
}

int cmd_set(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cell_err e;
	int c;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			set_usage(stdout);
			return 0;
		}
		return cli_bad_option("set", argv, opts);
	}
	if (optind >= argc)
		return cli_usage_error("set", "no jail named (see cell set --help)");
	if (optind + 1 >= argc)
		return cli_usage_error("set", "jail %s: no PARAM=VALUE given", argv[optind]);
	cell_err_clear(&e);
	if (jail_set(g->root, argv[optind], argv + optind + 1, (size_t)(argc - optind - 1), &e) < 0)
		return cli_fail("set", &e);
	return 0;
}
