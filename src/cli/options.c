/*
 * options.c - what every command's option parsing shares: getopt_long()
 * without its abbreviations, and the one-line error for a bad option.
 *
 * glibc's getopt_long() takes any unambiguous prefix of a long option
 * for the option: `cell run --root DIR` was `--rootfs DIR`, and the
 * jail ran in DIR.  An option of cell's is spelled in full or not at all.
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *opts,
	       int *longindex)
{
	/* optind 0 asks glibc to start afresh, at argv[1]. */
	int at = optind == 0 ? 1 : optind, idx = -1, c;
	const char *arg;

	c = getopt_long(argc, argv, shortopts, opts, &idx);
	if (longindex != NULL)
		*longindex = idx;
	/* idx is set for a long option only; a short one, or a cluster
	 * such as -dt, leaves it alone. */
	if (c == -1 || c == '?' || c == ':' || idx < 0 || at >= argc)
		return c;
	arg = argv[at];
	if (strncmp(arg, "--", 2) != 0 || strlen(opts[idx].name) == strcspn(arg + 2, "="))
		return c;
	/* A prefix: unknown, as cli_bad_option() says of argv[optind - 1]
	 * (the option, not the value a separate word gave it). */
	optind = at + 1;
	optopt = 0;
	return '?';
}

void cli_bad_option_text(const char *prog, const char *cmd, char **argv, const struct option *opts,
			 char *buf, size_t size)
{
	const char *arg = argv[optind - 1];

	if (strncmp(arg, "--", 2) == 0) {
		size_t n = strcspn(arg + 2, "=");

		for (const struct option *o = opts; o->name != NULL; o++) {
			if (strlen(o->name) != n || strncmp(o->name, arg + 2, n) != 0)
				continue;
			snprintf(buf, size, "option --%s %s", o->name,
				 arg[2 + n] == '=' && o->has_arg == no_argument ? "takes no value"
										: "needs a value");
			return;
		}
		snprintf(buf, size, "unknown option '%.*s' (see %s %s --help)", (int)n + 2, arg,
			 prog, cmd);
		return;
	}
	/* A short option: a known one that takes a value lacked it. */
	for (const struct option *o = opts; o->name != NULL; o++)
		if (optopt != 0 && o->val == optopt && o->has_arg == required_argument) {
			snprintf(buf, size, "option -%c needs a value", optopt);
			return;
		}
	if (optopt > 0 && optopt < 128)
		snprintf(buf, size, "unknown option '-%c' (see %s %s --help)", optopt, prog, cmd);
	else
		snprintf(buf, size, "unknown option '%s' (see %s %s --help)", arg, prog, cmd);
}

int cli_bad_option(const char *cmd, char **argv, const struct option *opts)
{
	char msg[256];

	cli_bad_option_text("cell", cmd, argv, opts, msg, sizeof(msg));
	return cli_usage_error(cmd, "%s", msg);
}
