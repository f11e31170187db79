/*
 * jail_exec.c - `cell exec`: like FreeBSD's jexec(8).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exec.h"
#include "jail.h"
#include "param.h"
#include "spec.h"

static void exec_usage(FILE *out)
{
	fputs("Usage: cell exec [OPTIONS] NAME [COMMAND [ARG...]]\n"
	      "\n"
	      "Run COMMAND (default /bin/sh) inside the running jail NAME (or JID): in all\n"
	      "its namespaces and cgroups, held to the same policy and limits as the jail's\n"
	      "own processes, with its environment, working directory and user.  Exit with\n"
	      "COMMAND's status (128+N if killed by signal N; 125 if cell failed, 126 if\n"
	      "COMMAND is not executable, 127 if not found).\n"
	      "\n"
	      "  -t, --tty               a pty of the jail's even if stdin is not a terminal\n"
	      "  -T, --no-tty            never a pty\n"
	      "  -e, --env KEY=VALUE     set a variable over the jail's environment; KEY\n"
	      "                          alone copies cell's (repeatable)\n"
	      "  -w, --workdir DIR       working directory inside (default: the jail's)\n"
	      "  -u, --user USER[:GROUP] run as USER, a name of the jail's /etc/passwd or a\n"
	      "                          uid (default: the jail's user)\n"
	      "  -h, --help              show this help\n",
	      out);
}

enum { OPT_CLEAR_ENV = 256, OPT_PARAM };

/* exec's own options, after the flags of the process's parameters. */
static const struct option own_opts[] = {
	{"tty", no_argument, NULL, 't'},
	{"no-tty", no_argument, NULL, 'T'},
	{"clear-env", no_argument, NULL, OPT_CLEAR_ENV},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The process's parameters that have a flag (env, user, workdir): the
 * same flags as cell run's, read through the table. */
static void exec_opts(struct option *o)
{
	size_t n = 0;

	for (size_t i = 0; i < PARAM_COUNT; i++)
		if (param_table[i].process && param_table[i].flag != NULL)
			o[n++] = (struct option){param_table[i].flag + 2, required_argument, NULL,
						 param_table[i].short_flag
							 ? param_table[i].short_flag
							 : OPT_PARAM + (int)i};
	memcpy(o + n, own_opts, sizeof(own_opts));
}

static const struct param *exec_param(int c)
{
	if (c >= OPT_PARAM && c < OPT_PARAM + PARAM_COUNT)
		return param_get(c - OPT_PARAM);
	for (size_t i = 0; c > 0 && c < 256 && i < PARAM_COUNT; i++)
		if (param_table[i].process && param_table[i].short_flag == c)
			return &param_table[i];
	return NULL;
}

int cmd_exec(const struct cli_global *g, int argc, char **argv)
{
	struct option opts[PARAM_COUNT + sizeof(own_opts) / sizeof(own_opts[0])];
	static char *const default_cmd[] = {"/bin/sh", NULL};
	char **envs = calloc((size_t)argc + 1, sizeof(char *));
	bool force_tty = false, no_tty = false;
	struct jail_spec s;
	struct cell_err e;
	size_t nenv = 0;
	int c, status = 0, ret = CELL_EXIT_ERROR;

	cell_err_clear(&e);
	spec_init(&s);
	if (envs == NULL)
		return cli_usage_error("exec", "out of memory");
	exec_opts(opts);
	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+tTe:w:u:h", opts, NULL)) != -1) {
		const struct param *p = exec_param(c);

		if (p != NULL && p->id == PARAM_ENV) {
			envs[nenv++] = optarg; /* once the environment is there */
			continue;
		}
		if (p != NULL) {
			if (param_parse(p, &s, optarg, &e) < 0) {
				cli_spell_flag_text(&e, p, optarg);
				goto fail;
			}
			continue;
		}
		switch (c) {
		case 't':
			force_tty = true;
			break;
		case 'T':
			no_tty = true;
			break;
		case OPT_CLEAR_ENV:
			break; /* accepted, as it always holds now (cell(8)) */
		case 'h':
			exec_usage(stdout);
			ret = 0;
			goto out;
		default:
			ret = cli_bad_option("exec", argv, opts);
			goto out;
		}
	}
	if (optind >= argc) {
		ret = cli_usage_error("exec", "no jail named (see cell exec --help)");
		goto out;
	}
	if (force_tty && no_tty) {
		cell_err_set(&e, 0, "--tty and --no-tty are exclusive");
		goto fail;
	}
	s.name = strdup(cli_jail_arg(g, argv[optind])); /* a JID names a jail too */
	if (s.name == NULL)
		goto oom;
	optind++;
	if (spec_set_argv(&s, optind < argc ? argc - optind : 1,
			  optind < argc ? argv + optind : default_cmd, &e) < 0)
		goto fail;
	s.proc.terminal = force_tty || (!no_tty && isatty(STDIN_FILENO));
	/* The process's environment is the jail's (its record) with these
	 * over it, never cell's; HOME is its user's, found in the jail. */
	s.proc.home_env = s.proc.user_groups = true;
	for (size_t i = 0; i < nenv; i++)
		if (param_parse(param_get(PARAM_ENV), &s, envs[i], &e) < 0) {
			cli_spell_flag_text(&e, param_get(PARAM_ENV), envs[i]);
			goto fail;
		}
	if (s.proc.terminal && spec_env_get(&s, "TERM") == NULL &&
	    spec_env_set(&s, getenv("TERM") != NULL ? "TERM" : "TERM=xterm", &e) < 0)
		goto fail;
	if (spec_validate(&s, &e) < 0)
		goto fail;
	/* Rootless: into the jail's user namespace first (jail.h). */
	if (jail_join_userns(g->root, s.name, &e) < 0)
		goto fail;
	if (jail_exec(g->root, &s, 0, &status, &e) < 0)
		goto fail;
	ret = status;
	goto out;
oom:
	cell_err_set(&e, ENOMEM, "out of memory");
fail:
	cli_spell_flags(&e, &s);
	ret = cli_fail("exec", &e);
out:
	spec_free(&s);
	free(envs);
	return ret;
}
