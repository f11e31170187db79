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
#include "lifecycle.h"
#include "spec.h"
#include "store.h"

#define DEFAULT_FILE "cell.conf"

static void up_usage(FILE *out)
{
	fputs("Usage: cell up [-f FILE] [NAME...]\n"
	      "\n"
	      "Start the jails declared in FILE (default ./cell.conf; see cell.conf(5)),\n"
	      "or only those NAMEs, detached, as cell run -d --name NAME would, and print\n"
	      "each name started.  Every jail of the file is checked before any starts,\n"
	      "its spec and its name: a jail of that name that this file did not make\n"
	      "(cell run, another file; the record keeps the file's absolute path) is an\n"
	      "error, and nothing starts.  A jail of the file already running is left\n"
	      "as it is; a stopped one is replaced.  An error found at the start names\n"
	      "the jail's FILE:LINE:COLUMN.\n"
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
	      "stop, then cell rm; the jails stop side by side (every SIGTERM first, then\n"
	      "one timeout for all).  Prints each name removed.  A jail that is not\n"
	      "there is skipped; one this file did not make is left alone, with a\n"
	      "warning.\n"
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
	struct launch_opts o = {.detach = true};

	spec_init(s);
	if (jailconf_to_spec(c, j, s, exec_stop, e) < 0)
		return -1;
	if (spec_validate(s, e) < 0 || launch_complete_spec(s, &o, e) < 0) {
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

/* The jail file a record says its jail was made from (its absolute
 * path), or NULL: made by cell run. */
static const char *made_from(const json_t *rec)
{
	return json_string_value(json_object_get(rec, "file"));
}

/* Whether jail REC (NULL: none) may be up's and down's to act on: one
 * made from FILE.  Else E says who made it. */
static bool ours(const json_t *rec, const char *name, const char *file, struct cell_err *e)
{
	const char *from = made_from(rec);

	if (rec == NULL || (from != NULL && strcmp(from, file) == 0))
		return true;
	if (from != NULL)
		cell_err_set(e, 0, "jail %s: made from %s, not from this file (left as it is)",
			     name, from);
	else
		cell_err_set(e, 0, "jail %s: made by cell run, not from this file (left as it is)",
			     name);
	e->errnum = EEXIST;
	return false;
}

/* Before anything starts: no selected jail's name is held by a jail
 * this file did not make.  Each one that is is an error line. */
static int check_owners(const char *root, const struct jail_spec *specs, const bool *sel, size_t n,
			const char *file)
{
	int rootfd, ret = 0;
	struct cell_err e;

	cell_err_clear(&e);
	if (store_open_root_existing(root, &rootfd, &e) < 0)
		return cli_fail("up", &e);
	for (size_t i = 0; rootfd >= 0 && i < n; i++) {
		json_t *rec = sel[i] ? store_jail_peek(rootfd, specs[i].name) : NULL;

		if (!ours(rec, specs[i].name, file, &e))
			ret = cli_fail("up", &e);
		json_decref(rec);
	}
	if (rootfd >= 0)
		close(rootfd);
	return ret;
}

/* A running jail NAME stays; a stopped one goes, so that up starts it
 * anew; one the file did not make is never touched.  1: running, 0: free
 * to start, -1: error. */
static int make_room(const char *root, const char *name, const char *file, struct cell_err *e)
{
	struct jail j;
	int rootfd, ret = 0;

	if (store_open_root(root, &rootfd, e) < 0)
		return -1;
	if (jail_open(rootfd, name, &j, e) < 0) {
		close(rootfd);
		return e->errnum == ENOENT ? 0 : -1;
	}
	if (!ours(j.state, name, file, e))
		ret = -1;
	else if (j.running)
		ret = 1;
	else if (jail_remove(rootfd, &j, false, e) < 0)
		ret = -1;
	jail_close(&j);
	close(rootfd);
	return ret;
}

/* An error of jail J's start: one about a parameter names where the
 * file declares it; any other the jail's block (FILE:LINE:COL). */
static void spell_start_error(const struct jailconf *c, const struct jailconf_jail *j,
			      struct cell_err *e)
{
	char named[128];

	if (e->about.param != CELL_ERR_NO_PARAM) {
		jailconf_spell(c, j, e);
		return;
	}
	/* Most of the launch's errors name the jail already; the words
	 * only decide whether to name it again. */
	snprintf(named, sizeof(named), "jail %s: ", j->name);
	if (strncmp(e->msg, named, strlen(named)) == 0)
		cell_err_prefix(e, "%s:%d:%d", c->file, j->line, j->col);
	else
		cell_err_prefix(e, "%s:%d:%d: jail %s", c->file, j->line, j->col, j->name);
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
	char *abs = NULL;
	json_t *extra = NULL;
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
	/* Its jails record the file they came from, by its absolute path
	 * (before the chdir below), so that up and down act only on them. */
	abs = realpath(file, NULL);
	extra = abs != NULL ? json_pack("{s:s}", "file", abs) : NULL;
	if (extra == NULL) {
		ret = cli_usage_error("up", "%s: %s", file, strerror(errno));
		jailconf_free(&conf);
		free(abs);
		return ret;
	}
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
	/* No jail of another's replaced, and none started when one is. */
	if (check_owners(root, specs, sel, conf.njails, abs) != 0) {
		ret = CELL_EXIT_ERROR;
		goto out;
	}
	for (size_t i = 0; i < conf.njails; i++) {
		struct jail_spec *s = &specs[i];
		struct launch_opts o = {.state_root = root, .detach = true, .record_extra = extra};
		int status, room;

		if (!sel[i])
			continue;
		room = make_room(root, s->name, abs, &e);
		if (room == 0 && jail_run_apart(s, &o, &status, &e) < 0)
			room = -1;
		if (room < 0) {
			spell_start_error(&conf, &conf.jails[i], &e);
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
	free(abs);
	json_decref(extra);
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
	/* HOME, groups: the jail's user's, as exec's */
	s.proc.home_env = s.proc.user_groups = true;
	if (s.name == NULL || spec_set_argv(&s, 3, argv, &e) < 0 || spec_validate(&s, &e) < 0 ||
	    jail_exec(root, &s, timeout, &status, &e) < 0)
		fprintf(stderr, "cell: down: jail %s: exec.stop: %s%s\n", name, e.msg,
			e.errnum == ETIMEDOUT ? " (exec.timeout)" : "");
	else if (status != 0)
		fprintf(stderr, "cell: down: jail %s: exec.stop exited %d\n", name, status);
	spec_free(&s);
}

/* The jails down acts on, in the order it stops them: their names, and
 * whether each one still needs its exec.stop. */
struct down_jail {
	char *name;
	char *exec_stop;
	int exec_timeout;
	struct jail j;
};

/* Jail I of the file, if it is there and was made from FILE: exec.stop
 * run inside it when it runs; then opened (locked) into D.  0: opened,
 * 1: nothing to do (not there, or another's: a warning), -1: error. */
static int down_open(const char *root, int rootfd, const struct jailconf *conf, size_t i,
		     const char *file, struct down_jail *d, struct cell_err *e)
{
	struct jail_spec s;

	spec_init(&s);
	if (jailconf_to_spec(conf, &conf->jails[i], &s, &d->exec_stop, e) < 0) {
		spec_free(&s);
		return -1;
	}
	d->name = strdup(s.name);
	spec_free(&s);
	if (d->name == NULL)
		return cell_err_set(e, ENOMEM, "down");
	if (jail_open(rootfd, d->name, &d->j, e) < 0)
		return e->errnum == ENOENT ? 1 : -1;
	if (!ours(d->j.state, d->name, file, e)) {
		fprintf(stderr, "cell: down: warning: %s\n", e->msg);
		jail_close(&d->j);
		return 1;
	}
	/* exec.stop joins the jail, which takes its lock. */
	if (d->j.running && d->exec_stop != NULL) {
		jail_close(&d->j);
		run_exec_stop(root, d->name, d->exec_stop, jailconf_exec_timeout(&conf->jails[i]));
		if (jail_open(rootfd, d->name, &d->j, e) < 0)
			return e->errnum == ENOENT ? 1 : -1;
	}
	return 0;
}

/* Stops the opened jails side by side (one timeout for all), removes
 * them and prints each name. */
static int down_stop(int rootfd, struct down_jail *d, size_t n, int timeout)
{
	struct jail *js = calloc(n + 1, sizeof(*js));
	struct cell_err *errs = calloc(n + 1, sizeof(*errs));
	int ret = 0;

	if (js == NULL || errs == NULL) {
		free(js);
		free(errs);
		return cli_usage_error("down", "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		js[i] = d[i].j;
		cell_err_clear(&errs[i]);
	}
	jail_stop_all(rootfd, js, n, timeout, errs);
	for (size_t i = 0; i < n; i++) {
		if (errs[i].msg[0] == '\0' && jail_remove(rootfd, &js[i], true, &errs[i]) == 0)
			printf("%s\n", d[i].name);
		else
			ret = cli_fail("down", &errs[i]);
		jail_close(&js[i]);
		d[i].j = js[i];
	}
	fflush(stdout);
	free(js);
	free(errs);
	return ret;
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
	struct down_jail *d = NULL;
	struct jailconf conf;
	struct cell_err e;
	bool *sel = NULL;
	char *abs = NULL;
	size_t n = 0;
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
	abs = realpath(file, NULL);
	sel = calloc(conf.njails + 1, sizeof(*sel));
	d = calloc(conf.njails + 1, sizeof(*d));
	if (abs == NULL || sel == NULL || d == NULL) {
		ret = cli_usage_error("down", "%s: %s", file, strerror(errno));
		goto out;
	}
	if (select_jails("down", &conf, argc, argv, sel) < 0) {
		ret = CELL_EXIT_ERROR;
		goto out;
	}
	if (store_open_root_existing(g->root, &rootfd, &e) < 0) {
		ret = cli_fail("down", &e);
		goto out;
	}
	/* In the reverse order of the file: each exec.stop first, then every
	 * jail stopped at once. */
	for (size_t i = conf.njails; rootfd >= 0 && i-- > 0;) {
		int r;

		if (!sel[i])
			continue;
		d[n].j.dir.dirfd = -1;
		r = down_open(g->root, rootfd, &conf, i, abs, &d[n], &e);
		if (r < 0)
			ret = cli_fail("down", &e);
		if (r == 0)
			n++;
		else {
			free(d[n].name);
			free(d[n].exec_stop);
			memset(&d[n], 0, sizeof(d[n]));
		}
	}
	if (n > 0 && down_stop(rootfd, d, n, (int)timeout) != 0)
		ret = CELL_EXIT_ERROR;
out:
	for (size_t i = 0; d != NULL && i < n; i++) {
		free(d[i].name);
		free(d[i].exec_stop);
	}
	free(d);
	if (rootfd >= 0)
		close(rootfd);
	free(sel);
	free(abs);
	jailconf_free(&conf);
	return ret;
}
