/*
 * options.c - what every command's option parsing shares: getopt_long()
 * without its abbreviations, and the one-line error for a bad option.
 *
 * glibc's getopt_long() takes any unambiguous prefix of a long option
 * for the option: `cell run --root DIR` was `--rootfs DIR`, and the
 * jail ran in DIR.  An option of cell's is spelled in full or not at all.
 * An unknown command or long option suggests the nearest known one, by
 * edit distance.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
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

/* The edit distance of A and B (insertions, deletions, substitutions
 * and swaps of two neighbours, each 1: "rnu" is 1 from "run"); words of
 * 32 bytes or more are far from everything. */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[33][33];

	if (la > 32 || lb > 32)
		return SIZE_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *cli_nearest(const char *word, const char *const *names, size_t n)
{
	/* Close enough to be a typo: 1 edit in a short word, a third of a
	 * longer one's letters. */
	size_t len = strlen(word), limit = len < 6 ? 1 : len / 3, best = SIZE_MAX;
	const char *found = NULL;

	for (size_t i = 0; i < n; i++) {
		size_t d = distance(word, names[i]);

		if (d <= limit && d < best) {
			best = d;
			found = names[i];
		}
	}
	return found;
}

/* The long option nearest to the unknown "--WORD" (argv[optind - 1]). */
static const char *nearest_option(char **argv, const struct option *opts)
{
	const char *arg = argv[optind - 1], *names[128];
	char word[64];
	size_t n = 0;

	if (strncmp(arg, "--", 2) != 0 || strcspn(arg + 2, "=") >= sizeof(word))
		return NULL;
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg + 2, "="), arg + 2);
	for (const struct option *o = opts; o->name != NULL && n < 128; o++)
		names[n++] = o->name;
	return cli_nearest(word, names, n);
}

int cli_bad_option(const char *cmd, char **argv, const struct option *opts)
{
	char msg[256];
	const char *near;
	char *see;

	cli_bad_option_text("cell", cmd, argv, opts, msg, sizeof(msg));
	/* An unknown long option near a known one: that one, instead of
	 * "(see cell CMD --help)". */
	see = strstr(msg, " (see cell ");
	if (strncmp(msg, "unknown option '--", 18) == 0 && see != NULL &&
	    (near = nearest_option(argv, opts)) != NULL)
		snprintf(see, sizeof(msg) - (size_t)(see - msg), " (did you mean '--%s'?)", near);
	return cli_usage_error(cmd, "%s", msg);
}
