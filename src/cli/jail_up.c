/*
 * jail_up.c - `cell up` and `cell down`: the jails of a jail file
 * (docs/cell.conf.5), like FreeBSD's `jail -c` and `jail -r` with
 * jail.conf.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "policy.h"
#include "exec.h"
#include "jail.h"
#include "jailconf.h"
#include "launch.h"
#include "spec.h"
#include "store.h"

#define DEFAULT_FILE "cell.conf"

static void up_usage(FILE *out)
{
	fputs("Usage: cell up [-f FILE] [NAME...]\n"
	      "\n"
	      "Start the jails declared in FILE (default ./cell.conf; see cell.conf(5)),\n"
	      "or only those NAMEs, detached, as cell run -d --name NAME would, and print\n"
	      "each name started.  Every jail of the file is checked before any starts.\n"
	      "A jail already running is left as it is; a stopped one is replaced.\n"
	      "\n"
	      "  -f, --file FILE  the jail file\n"
	      "  -h, --help       show this help\n",
	      out);
}

static void down_usage(FILE *out)
{
	fputs("Usage: cell down [-f FILE] [-t SECONDS] [NAME...]\n"
	      "\n"
	      "Stop and remove the jails declared in FILE (default ./cell.conf), or only\n"
	      "those NAMEs, in the reverse order of the file: first exec.stop inside the\n"
	      "jail (when it has one), then SIGTERM, SIGKILL after the timeout, as cell\n"
	      "stop, then cell rm.  A jail that is not there is skipped.\n"
	      "\n"
	      "  -f, --file FILE     the jail file\n"
	      "  -t, --time SECONDS  wait this long after SIGTERM (default 10)\n"
	      "  -h, --help          show this help\n",
	      out);
}

/* Relative paths of a jail file (path, bind sources) are the file's
 * directory's, as the reader of the file expects: cell works from there
 * (the state root was made absolute by main()). */
static int enter_file_dir(const char *cmd, const char *file)
{
	const char *slash = strrchr(file, '/');
	char *dir;

	if (slash == NULL)
		return 0; /* in the working directory already */
	dir = strndup(file, slash == file ? 1 : (size_t)(slash - file));
	if (dir == NULL || chdir(dir) < 0) {
		int r = cli_usage_error(cmd, "%s: %s", dir != NULL ? dir : file, strerror(errno));

		free(dir);
		return r;
	}
	free(dir);
	return 0;
}

/* The jails of C that the command names (all when none), checked to be
 * in the file; SEL[i] says whether jail i is one. */
static int select_jails(const char *cmd, const struct jailconf *c, int argc, char **argv, bool *sel)
{
	for (size_t i = 0; i < c->njails; i++)
		sel[i] = optind >= argc;
	for (int a = optind; a < argc; a++) {
		const struct jailconf_jail *j = jailconf_find(c, argv[a]);

		if (j == NULL) {
			cli_usage_error(cmd, "%s: no jail \"%s\" in it", c->file, argv[a]);
			return -1;
		}
		sel[j - c->jails] = true;
	}
	return 0;
}

/* Jail J's spec, as `cell run -d` would build it: the jail's own
 * environment (the file's env and the defaults, spec_env_jail()), no
 * terminal. */
static int build_spec(const struct jailconf *c, const struct jailconf_jail *j, struct jail_spec *s,
		      char **exec_stop, struct cell_err *e)
{
	spec_init(s);
	if (jailconf_to_spec(c, j, s, exec_stop, e) < 0)
		return -1;
	if (spec_validate(s, e) < 0) {
		jailconf_spell(c, j, e);
		return -1;
	}
	if (spec_env_jail(s, NULL, e) < 0)
		return -1;
	/* The default jail policy, as the jail's mechanisms. */
	if (policy_defaults(s, e) < 0)
		return -1;
	return 0;
}

/* A running jail NAME stays; a stopped one goes, so that up starts it
 * anew.  1: running, 0: free to start, -1: error. */
static int make_room(const char *root, const char *name, struct cell_err *e)
{
	struct jail j;
	int rootfd, ret = 0;

	if (store_open_root(root, &rootfd, e) < 0)
		return -1;
	if (jail_open(rootfd, name, &j, e) < 0) {
		close(rootfd);
		return e->errnum == ENOENT ? 0 : -1;
	}
	if (j.running)
		ret = 1;
	else if (jail_remove(rootfd, &j, false, e) < 0)
		ret = -1;
	jail_close(&j);
	close(rootfd);
	return ret;
}

int cmd_up(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"file", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *file = DEFAULT_FILE, *root = g->root;
	struct jail_spec *specs = NULL;
	struct jailconf conf;
	struct cell_err e;
	bool *sel = NULL;
	int c, ret = 0;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+f:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 'h':
			up_usage(stdout);
			return 0;
		default:
			return cli_bad_option("up", argv, opts);
		}
	}
	cell_err_clear(&e);
	if (jailconf_load(file, &conf, &e) < 0)
		return cli_fail("up", &e);
	sel = calloc(conf.njails + 1, sizeof(*sel));
	if (sel == NULL || select_jails("up", &conf, argc, argv, sel) < 0 ||
	    enter_file_dir("up", file) != 0) {
		ret = CELL_EXIT_ERROR;
		goto out;
	}
	/* Every jail's spec built and checked before any starts: a typo in
	 * the last one starts nothing. */
	specs = calloc(conf.njails + 1, sizeof(*specs));
	if (specs == NULL) {
		ret = cli_usage_error("up", "out of memory");
		goto out;
	}
	for (size_t i = 0; i < conf.njails; i++) {
		spec_init(&specs[i]);
		if (sel[i] && build_spec(&conf, &conf.jails[i], &specs[i], NULL, &e) < 0) {
			ret = cli_fail("up", &e);
			goto out;
		}
	}
	for (size_t i = 0; i < conf.njails; i++) {
		struct jail_spec *s = &specs[i];
		struct launch_opts o = {.state_root = root, .detach = true};
		int status, room;

		if (!sel[i])
			continue;
		room = make_room(root, s->name, &e);
		if (room == 0 && jail_run(s, &o, &status, &e) < 0)
			room = -1;
		if (room < 0) {
			/* What the start found about a parameter: where the
			 * file declares it. */
			jailconf_spell(&conf, &conf.jails[i], &e);
			ret = cli_fail("up", &e);
		} else if (room == 1)
			fprintf(stderr, "cell: up: jail %s: already running\n", s->name);
		else
			printf("%s\n", s->name);
		fflush(stdout);
	}
out:
	for (size_t i = 0; specs != NULL && i < conf.njails; i++)
		spec_free(&specs[i]);
	free(specs);
	free(sel);
	jailconf_free(&conf);
	return ret;
}

/* exec.stop inside the running jail NAME, killed after TIMEOUT seconds
 * (exec.timeout; a stop command that ignores signals once hung `down`
 * for ever); its failure is reported, and the jail stopped all the
 * same. */
static void run_exec_stop(const char *root, const char *name, const char *cmd, int timeout)
{
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
	struct jail_spec s;
	struct cell_err e;
	int status = 0;

	cell_err_clear(&e);
	spec_init(&s);
	s.name = strdup(name);
	s.proc.user_env = true; /* HOME, groups: the jail's user's, as exec's */
	if (s.name == NULL || spec_set_argv(&s, 3, argv, &e) < 0 || spec_validate(&s, &e) < 0 ||
	    jail_exec(root, &s, timeout, &status, &e) < 0)
		fprintf(stderr, "cell: down: jail %s: exec.stop: %s%s\n", name, e.msg,
			e.errnum == ETIMEDOUT ? " (exec.timeout)" : "");
	else if (status != 0)
		fprintf(stderr, "cell: down: jail %s: exec.stop exited %d\n", name, status);
	spec_free(&s);
}

int cmd_down(const struct cli_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"file", required_argument, NULL, 'f'},
		{"time", required_argument, NULL, 't'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *file = DEFAULT_FILE;
	long long timeout = 10;
	struct jailconf conf;
	struct cell_err e;
	bool *sel = NULL;
	int c, rootfd = -1, ret = 0;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+f:t:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			file = optarg;
			break;
		case 't':
			if (spec_parse_count(optarg, &timeout) < 0 || timeout > INT_MAX)
				return cli_usage_error("down", "-t %s: expected seconds >= 0",
						       optarg);
			break;
		case 'h':
			down_usage(stdout);
			return 0;
		default:
			return cli_bad_option("down", argv, opts);
		}
	}
	cell_err_clear(&e);
	if (jailconf_load(file, &conf, &e) < 0)
		return cli_fail("down", &e);
	sel = calloc(conf.njails + 1, sizeof(*sel));
	if (sel == NULL || select_jails("down", &conf, argc, argv, sel) < 0) {
		ret = CELL_EXIT_ERROR;
		goto out;
	}
	if (store_open_root_existing(g->root, &rootfd, &e) < 0) {
		ret = cli_fail("down", &e);
		goto out;
	}
	for (size_t i = conf.njails; i-- > 0;) {
		struct jail_spec s;
		char *exec_stop = NULL;
		struct jail j;

		if (!sel[i])
			continue;
		spec_init(&s);
		if (jailconf_to_spec(&conf, &conf.jails[i], &s, &exec_stop, &e) < 0) {
			ret = cli_fail("down", &e);
		} else if (jail_open(rootfd, s.name, &j, &e) == 0) {
			/* exec.stop joins the jail, which takes its lock. */
			bool running = j.running;

			jail_close(&j);
			if (running && exec_stop != NULL)
				run_exec_stop(g->root, s.name, exec_stop,
					      jailconf_exec_timeout(&conf.jails[i]));
			if (jail_open(rootfd, s.name, &j, &e) == 0) {
				if (jail_stop(rootfd, &j, (int)timeout, &e) < 0 ||
				    jail_remove(rootfd, &j, true, &e) < 0)
					ret = cli_fail("down", &e);
				jail_close(&j);
			}
		}
		free(exec_stop);
		spec_free(&s);
	}
out:
	if (rootfd >= 0)
		close(rootfd);
	free(sel);
	jailconf_free(&conf);
	return ret;
}
