/*
 * jail_run.c - `cell run`: flags -> struct jail_spec -> jail_run().
 *
 * A jail parameter's flag, its help line and its value's parse are the
 * table's (param.h); run has only the options of one invocation (-d,
 * --rm, -t, -T) of its own, and --clear-env, accepted and without effect
 * (the jail's environment never comes from cell's).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "policy.h"
#include "launch.h"
#include "param.h"
#include "spec.h"

/* The options of run that are no parameter of the jail: how this one
 * invocation goes. */
enum {
	OPT_RM = 256,
	OPT_CLEAR_ENV,
	OPT_PARAM,				/* + enum param_id: the table's flags */
	OPT_NO_PARAM = OPT_PARAM + PARAM_COUNT, /* + enum param_id: their no_flags */
};

static const struct option own_opts[] = {
	{"detach", no_argument, NULL, 'd'},
	{"rm", no_argument, NULL, OPT_RM},
	{"clear-env", no_argument, NULL, OPT_CLEAR_ENV},
	{"tty", no_argument, NULL, 't'},
	{"no-tty", no_argument, NULL, 'T'},
	{"help", no_argument, NULL, 'h'},
};
#define NOWN (sizeof(own_opts) / sizeof(own_opts[0]))

/* Help lines of the options that are no parameter, by section. */
static const char *const own_help[] = {
	[PARAM_GROUP_IDENTITY] = "",
	[PARAM_GROUP_FILESYSTEM] = "",
	/* (parenthesised: two literals joined on purpose) */
	[PARAM_GROUP_PROCESS] =
		("  -t, --tty               give the jail a pty even if stdin is not a terminal\n"
		 "  -T, --no-tty            never give the jail a pty\n"),
	[PARAM_GROUP_POLICY] = "",
	[PARAM_GROUP_NETWORK] = "",
};
static const char *const group_title[] = {
	[PARAM_GROUP_IDENTITY] = "Identity:\n",
	[PARAM_GROUP_FILESYSTEM] = "Filesystem:\n",
	[PARAM_GROUP_PROCESS] = "Process:\n",
	[PARAM_GROUP_POLICY] = "Policy and limits (the default jail policy is on; see cell(8)):\n",
	[PARAM_GROUP_NETWORK] = "Network:\n",
};

/* One parameter's flag in the help: "  -n, --name NAME         the ..." */
static void param_usage(FILE *out, const struct param *p)
{
	char left[64];
	const char *h = p->help;

	snprintf(left, sizeof(left), "%c%c%c %s%s%s", p->short_flag ? '-' : ' ',
		 p->short_flag ? p->short_flag : ' ', p->short_flag ? ',' : ' ', p->flag,
		 p->arg != NULL ? " " : "", p->arg != NULL ? p->arg : "");
	/* A flag too wide for its column has its text on the next line. */
	if (strlen(left) > 23)
		fprintf(out, "  %s\n%26s", left, "");
	else
		fprintf(out, "  %-23s ", left);
	/* Continuation lines line up under the first. */
	for (const char *nl; (nl = strchr(h, '\n')) != NULL; h = nl + 1)
		fprintf(out, "%.*s\n%26s", (int)(nl - h), h, "");
	fprintf(out, "%s\n", h);
	if (p->no_flag != NULL)
		fprintf(out, "      %-19s %s\n", p->no_flag, p->no_help);
}

static void run_usage(FILE *out)
{
	fputs("Usage: cell run [OPTIONS] [--] [COMMAND [ARG...]]\n"
	      "\n"
	      "Run COMMAND (default /bin/sh) in a new jail and wait for it; exit with its\n"
	      "status (128+N if killed by signal N; 125 if cell failed, 126 if COMMAND is\n"
	      "not executable, 127 if it is not found).  With -d, print the jail's name\n"
	      "and return once COMMAND runs.\n"
	      "\n"
	      "  -d, --detach            leave the jail running, cell's reaper its pid 1;\n"
	      "                          its stdout and stderr go to its log (cell logs\n"
	      "                          NAME) unless they are files\n"
	      "      --rm                with -d: remove the jail when it ends\n",
	      out);
	for (size_t g = 0; g < sizeof(group_title) / sizeof(group_title[0]); g++) {
		fputs(group_title[g], out);
		for (size_t i = 0; i < PARAM_COUNT; i++)
			if (param_table[i].flag != NULL && param_table[i].group == g)
				param_usage(out, &param_table[i]);
		fputs(own_help[g], out);
	}
	fputs("  -h, --help              show this help\n", out);
}

/* The getopt table: the parameters' flags, then run's own. */
struct run_opts {
	struct option o[2 * PARAM_COUNT + NOWN + 1];
	char shorts[2 * PARAM_COUNT + 16];
};

static void run_opts_build(struct run_opts *r)
{
	size_t n = 0, k = 0;

	r->shorts[k++] = '+';
	for (size_t i = 0; i < PARAM_COUNT; i++) {
		const struct param *p = &param_table[i];

		if (p->flag == NULL)
			continue;
		/* A short flag is the long one's value, as getopt reports it. */
		r->o[n++] = (struct option){
			p->flag + 2, p->flag_value != NULL ? no_argument : required_argument, NULL,
			p->short_flag ? p->short_flag : OPT_PARAM + (int)i};
		if (p->short_flag != 0) {
			r->shorts[k++] = p->short_flag;
			if (p->flag_value == NULL)
				r->shorts[k++] = ':';
		}
		if (p->no_flag != NULL)
			r->o[n++] = (struct option){p->no_flag + 2, no_argument, NULL,
						    OPT_NO_PARAM + (int)i};
	}
	for (size_t i = 0; i < NOWN; i++) {
		r->o[n++] = own_opts[i];
		if (own_opts[i].val < 256)
			r->shorts[k++] = (char)own_opts[i].val;
	}
	r->o[n] = (struct option){NULL, 0, NULL, 0};
	r->shorts[k] = '\0';
}

/* The row of option C (a parameter's long or short flag), or NULL. */
static const struct param *option_param(int c)
{
	if (c >= OPT_PARAM && c < OPT_PARAM + PARAM_COUNT)
		return &param_table[c - OPT_PARAM];
	if (c >= OPT_NO_PARAM && c < OPT_NO_PARAM + PARAM_COUNT)
		return &param_table[c - OPT_NO_PARAM];
	for (size_t i = 0; c > 0 && c < 256 && i < PARAM_COUNT; i++)
		if (param_table[i].short_flag == c)
			return &param_table[i];
	return NULL;
}

/* Options applied once the environment is known. */
struct env_args {
	char **v; /* --env values, in order */
	size_t n;
};

/* A parameter's flag: its value through the table, the error's subject
 * the flag and the value as given. */
static int parse_param(const struct param *p, struct jail_spec *s, const char *arg,
		       struct cell_err *e)
{
	if (param_parse(p, s, p->flag_value != NULL ? p->flag_value : arg, e) < 0) {
		cli_spell_flag_text(e, p, arg);
		return -1;
	}
	return 0;
}

static int parse_run(int argc, char **argv, struct jail_spec *s, struct launch_opts *o,
		     struct env_args *env, bool *force_tty, bool *no_tty, struct cell_err *e)
{
	struct run_opts ro;
	int c;

	run_opts_build(&ro);
	opterr = 0;
	while ((c = cli_getopt(argc, argv, ro.shorts, ro.o, NULL)) != -1) {
		const struct param *p = option_param(c);

		if (p != NULL && p->id == PARAM_ENV) {
			env->v[env->n++] = optarg; /* once the environment is there */
			continue;
		}
		if (p != NULL && c >= OPT_NO_PARAM) {
			if (param_parse(p, s, "false", e) < 0)
				return -1;
			continue;
		}
		if (p != NULL) {
			if (parse_param(p, s, optarg, e) < 0)
				return -1;
			continue;
		}
		switch (c) {
		case 'd':
			o->detach = true;
			break;
		case OPT_RM:
			o->autoremove = true;
			break;
		case OPT_CLEAR_ENV:
			break; /* accepted, as it always holds now (cell(8)) */
		case 't':
			*force_tty = true;
			break;
		case 'T':
			*no_tty = true;
			break;
		case 'h':
			run_usage(stdout);
			exit(0);
		default:
			cli_bad_option("run", argv, ro.o);
			return -2; /* reported */
		}
	}
	return optind;
}

/* A detached jail keeps an output the caller sent to a file (or
 * /dev/null); a terminal, pipe or socket would tie the jail to the
 * caller (`name=$(cell run -d ...)` would wait for the jail's end). */
static bool kept_output(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return false;
	return S_ISREG(st.st_mode) || (S_ISCHR(st.st_mode) && !isatty(fd));
}

int cmd_run(const struct cli_global *g, int argc, char **argv)
{
	static char *const default_cmd[] = {"/bin/sh", NULL};
	struct jail_spec s;
	struct launch_opts o = {.state_root = g->root};
	struct env_args env = {.v = calloc((size_t)argc, sizeof(char *))};
	struct cell_err e;
	bool force_tty = false, no_tty = false;
	int first, status = 0, ret = CELL_EXIT_ERROR;

	cell_err_clear(&e);
	spec_init(&s);
	if (env.v == NULL) {
		cell_err_set(&e, ENOMEM, "arguments");
		goto fail;
	}
	first = parse_run(argc, argv, &s, &o, &env, &force_tty, &no_tty, &e);
	if (first == -2)
		goto out; /* the option's error is printed */
	if (first < 0)
		goto fail;
	if (force_tty && no_tty) {
		cell_err_set(&e, 0, "--tty and --no-tty are exclusive");
		goto fail;
	}
	if (o.detach && force_tty) {
		cell_err_set(&e, 0, "--tty needs a jail in the foreground (not -d)");
		goto fail;
	}
	if (o.autoremove && !o.detach) {
		cell_err_set(&e, 0, "--rm is for -d: a jail in the foreground is always removed");
		goto fail;
	}
	s.proc.terminal = !o.detach && (force_tty || (!no_tty && isatty(STDIN_FILENO)));
	o.keep_stdout = o.detach && kept_output(STDOUT_FILENO);
	o.keep_stderr = o.detach && kept_output(STDERR_FILENO);
	if (first < argc) {
		if (spec_set_argv(&s, argc - first, argv + first, &e) < 0)
			goto fail;
	} else if (spec_set_argv(&s, 1, default_cmd, &e) < 0) {
		goto fail;
	}
	/* The jail's environment is its own (-e and the defaults), never
	 * cell's: --clear-env is what always happens now. */
	for (size_t i = 0; i < env.n; i++)
		if (parse_param(param_get(PARAM_ENV), &s, env.v[i], &e) < 0)
			goto fail;
	if (spec_validate(&s, &e) < 0 || spec_env_jail(&s, getenv("TERM"), &e) < 0 ||
	    launch_complete_spec(&s, &o, &e) < 0)
		goto fail;
	/* The default jail policy, as the jail's mechanisms. */
	if (policy_defaults(&s, &e) < 0)
		goto fail;
	if (jail_run(&s, &o, &status, &e) < 0) {
		cli_spell_flags(&e, &s);
		if (status < 0)
			goto fail;
		/* The command ran: what failed after it is said, and its
		 * status is still cell's. */
		cli_fail("run", &e);
	}
	if (o.detach) {
		printf("%s\n", s.name);
		fflush(stdout);
	}
	ret = status;
	goto out;
fail:
	cli_spell_flags(&e, &s);
	ret = cli_fail("run", &e);
out:
	spec_free(&s);
	free(env.v);
	return ret;
}
