/*
 * main.c - cell's command table, global options and dispatch.
 *
 * The front door only parses and prints: each command turns its argv
 * into engine calls (src/lib) and their results into output and an exit
 * status.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "param.h"
#include "record.h"
#include "rootless.h"
#include "spec.h"
#include "store.h"

#ifndef CELL_VERSION
#define CELL_VERSION "unknown"
#endif

#define DEFAULT_ROOT "/run/cell"

static const struct cli_command commands[] = {
	{"run", cmd_run, "run a command in a new jail (-d: detached)"},
	{"ls", cmd_ls, "list the jails"},
	{"exec", cmd_exec, "run a command inside a running jail"},
	{"logs", cmd_logs, "show a detached jail's output"},
	{"ps", cmd_ps, "list the processes of a running jail"},
	{"stats", cmd_stats, "show what running jails use: CPU, memory, tasks"},
	{"set", cmd_set, "change a running jail's hostname or limits"},
	{"inspect", cmd_inspect, "describe a running jail, or the jail of a process"},
	{"start", cmd_start, "start stopped jails again, from their records"},
	{"restart", cmd_restart, "stop jails and start them again"},
	{"wait", cmd_wait, "wait for jails to end; exit with the last one's status"},
	{"stop", cmd_stop, "stop running jails"},
	{"rm", cmd_rm, "remove stopped jails"},
	{"up", cmd_up, "start the jails of a jail file (cell.conf)"},
	{"down", cmd_down, "stop and remove the jails of a jail file"},
	{"oci", cmd_oci, "the OCI runtime (runc's commands; as cell-oci, see cell-oci(8))"},
};

int cli_fail(const char *cmd, const struct cell_err *e)
{
	struct cell_err spelled = *e;

	/* An error about a parameter no one spelled: its name says which. */
	if (spelled.about.param != CELL_ERR_NO_PARAM || spelled.about.ref != CELL_ERR_NO_PARAM) {
		const struct param *p = param_get(spelled.about.param);
		const struct param *ref = param_get(spelled.about.ref);

		cell_err_spell(&spelled, p != NULL ? p->name : NULL,
			       ref != NULL ? ref->name : NULL);
	}
	fprintf(stderr, "cell: %s: %s\n", cmd, spelled.msg);
	return e->exit_code;
}

/* A parameter as cell run spells it: its flag, else its name. */
static const char *flag_or_name(const struct param *p)
{
	return p == NULL ? NULL : p->flag != NULL ? p->flag : p->name;
}

void cli_spell_flag_text(struct cell_err *e, const struct param *p, const char *text)
{
	char subject[sizeof(e->msg)];

	if (p->flag == NULL)
		cell_err_spell(e, NULL, flag_or_name(param_get(e->about.ref)));
	else if (p->flag_value != NULL || text == NULL)
		cell_err_spell(e, p->flag, flag_or_name(param_get(e->about.ref)));
	else {
		snprintf(subject, sizeof(subject), "%s %s", p->flag, text);
		cell_err_spell(e, subject, flag_or_name(param_get(e->about.ref)));
	}
}

void cli_spell_flags(struct cell_err *e, const struct jail_spec *s)
{
	const struct param *p = param_get(e->about.param);
	char *text = NULL;

	if (p == NULL) {
		if (e->about.ref != CELL_ERR_NO_PARAM)
			cell_err_spell(e, NULL, flag_or_name(param_get(e->about.ref)));
		return;
	}
	if (param_format_element(p, s, p->type == PARAM_LIST ? (size_t)e->about.index : 0, &text) <
	    0)
		text = NULL;
	cli_spell_flag_text(e, p, text != NULL ? text : "");
	free(text);
}

char *cli_jail_arg(const struct cli_global *g, char *word)
{
	char name[JAIL_NAME_MAX + 1];
	char *found = NULL;
	int rootfd = -1;
	struct cell_err e;

	/* Only a word of digits can be a JID: no listing for a name. */
	if (word[0] == '\0' || word[strspn(word, "0123456789")] != '\0')
		return word;
	cell_err_clear(&e);
	if (store_open_root_existing(g->root, &rootfd, &e) < 0 || rootfd < 0)
		return word;
	if (store_jid_name(rootfd, word, name, sizeof(name)) == 1)
		found = strdup(name);
	close(rootfd);
	return found != NULL ? found : word;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "cell: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CELL_EXIT_ERROR;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: cell [--root DIR] COMMAND [OPTIONS] [ARGS...]\n"
		     "\n"
		     "Run programs in jails: their own hostname, root filesystem, processes,\n"
		     "IPC and network, held to a security policy and to limits.\n"
		     "\n"
		     "Global options:\n"
		     "  --root DIR     state directory (default " DEFAULT_ROOT
		     "; without root $XDG_RUNTIME_DIR/cell,\n"
		     "                 else /tmp/cell-UID)\n"
		     "  -h, --help     show this help\n"
		     "  -V, --version  show the version\n"
		     "\n"
		     "Commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\nRun 'cell COMMAND --help' for a command's options; see cell(8).\n");
}

/* `cell: unknown command "rnu" (did you mean "run"?)`; returns 125. */
static int unknown_command(const char *word)
{
	const char *names[sizeof(commands) / sizeof(commands[0])];
	const char *near;

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		names[i] = commands[i].name;
	near = cli_nearest(word, names, sizeof(commands) / sizeof(commands[0]));
	if (near != NULL)
		fprintf(stderr, "cell: unknown command \"%s\" (did you mean \"%s\"?)\n", word,
			near);
	else
		fprintf(stderr, "cell: unknown command \"%s\" (see cell --help)\n", word);
	return CELL_EXIT_ERROR;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"root", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	struct cli_global g = {.root = DEFAULT_ROOT};
	static char rootless_root[PATH_MAX];
	char *absolute = NULL;
	const char *prog = argv[0] != NULL ? strrchr(argv[0], '/') : NULL;
	int c, ret;

	record_seed();
	/* The same binary under another name speaks runc's command line. */
	prog = prog != NULL ? prog + 1 : argv[0];
	if (prog != NULL && strcmp(prog, "cell-oci") == 0)
		return oci_main(argc, argv);
	opterr = 0;
	/* "+": stop at the command; its options are its own. */
	while ((c = cli_getopt(argc, argv, "+hV", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (optarg[0] == '\0')
				return cli_usage_error("--root", "empty path");
			g.root = optarg;
			g.root_given = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("cell %s\n", CELL_VERSION);
			return 0;
		default:
			if (optopt != 0)
				return cli_usage_error(
					"option", "unknown or incomplete '-%c' (see cell --help)",
					optopt);
			return cli_usage_error("option",
					       "unknown or incomplete '%s' (see cell --help)",
					       argv[optind - 1]);
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return CELL_EXIT_ERROR;
	}
	/* Without privilege over the host, the user's own state root. */
	if (!g.root_given && rootless()) {
		struct cell_err e;

		cell_err_clear(&e);
		if (rootless_state_root("cell", rootless_root, sizeof(rootless_root), &e) < 0)
			return cli_fail(argv[optind], &e);
		g.root = rootless_root;
	}
	/* Absolute now, once: a process of cell's that works from another
	 * directory (the --rm watcher, from "/"; up, from its file's) must
	 * still mean the root the caller named. */
	if (g.root[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		if (cwd == NULL || asprintf(&absolute, "%s/%s", cwd, g.root) < 0) {
			free(cwd);
			return cli_usage_error("--root", "%s: %s", g.root, strerror(errno));
		}
		free(cwd);
		g.root = absolute;
	}
	ret = -1;
	for (size_t i = 0; ret < 0 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[optind], commands[i].name) == 0) {
			int first = optind;

			/* The command parses its own argv, from its name on;
			 * optind = 0 makes glibc's getopt start afresh. */
			optind = 0;
			ret = commands[i].run(&g, argc - first, argv + first);
		}
	if (ret < 0)
		ret = unknown_command(argv[optind]);
	free(absolute);
	return ret;
}
