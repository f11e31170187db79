/*
 * oci_exec.c - `cell-oci exec`: a new process in a created or running
 * container.  The process is the container's own (its config's: user,
 * capabilities, environment, working directory, no_new_privileges) with
 * the command given and the flags' changes, or the `process` object of
 * --process FILE entirely (oci_config.h parses it, as it parses the
 * config's).  The engine runs it through the container's mechanisms
 * (exec.h, jail_exec_process()).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <sys/capability.h>

#include "exec.h"
#include "oci.h"
#include "oci_config.h"
#include "oci_state.h"
#include "spec.h"

static const char exec_usage[] =
	"Usage: cell-oci exec [OPTIONS] CONTAINER-ID [COMMAND [ARG...]]\n"
	"\n"
	"Run COMMAND in a created or running container, as the container's process\n"
	"runs (its user, capabilities, environment, working directory), or the\n"
	"process of --process FILE.  Exit with its status; 1 if cell-oci failed.\n"
	"\n"
	"  -d, --detach                return once it runs\n"
	"  -t, --tty                   a pty of the container's (needs --console-socket\n"
	"                              with -d)\n"
	"  -p, --process FILE          an OCI process object (JSON), instead of COMMAND\n"
	"                              and the flags below\n"
	"      --console-socket PATH   with -t -d: the pty's master goes to this socket\n"
	"      --pid-file FILE         write the process's host pid to FILE\n"
	"  -e, --env KEY=VALUE         set a variable (repeatable)\n"
	"      --cwd DIR               working directory (absolute)\n"
	"  -u, --user UID[:GID]        run as UID (and GID)\n"
	"  -g, --additional-gids GID   a supplementary group (repeatable)\n"
	"  -c, --cap CAP               add a capability (CAP_NET_ADMIN; repeatable)\n"
	"      --no-new-privs          set no_new_privileges\n"
	"      --preserve-fds N        more descriptors for the process: only 0\n"
	"      --ignore-paused         accepted\n"
	"  -h, --help                  show this help\n";

enum {
	OPT_CONSOLE = 256,
	OPT_PID_FILE,
	OPT_CWD,
	OPT_NNP,
	OPT_PRESERVE,
	OPT_IGNORE_PAUSED,
	OPT_LABEL,
	OPT_APPARMOR,
};

static const struct option exec_opts[] = {
	{"detach", no_argument, NULL, 'd'},
	{"tty", no_argument, NULL, 't'},
	{"process", required_argument, NULL, 'p'},
	{"console-socket", required_argument, NULL, OPT_CONSOLE},
	{"pid-file", required_argument, NULL, OPT_PID_FILE},
	{"env", required_argument, NULL, 'e'},
	{"cwd", required_argument, NULL, OPT_CWD},
	{"user", required_argument, NULL, 'u'},
	{"additional-gids", required_argument, NULL, 'g'},
	{"cap", required_argument, NULL, 'c'},
	{"no-new-privs", no_argument, NULL, OPT_NNP},
	{"preserve-fds", required_argument, NULL, OPT_PRESERVE},
	{"ignore-paused", no_argument, NULL, OPT_IGNORE_PAUSED},
	{"process-label", required_argument, NULL, OPT_LABEL},
	{"apparmor", required_argument, NULL, OPT_APPARMOR},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* What the command line asks, applied once the container's process is
 * read. */
struct exec_args {
	const char *process_file;
	const char *cwd, *user, *label, *apparmor;
	const char **env, **gids, **caps;
	size_t nenv, ngids, ncaps;
	bool tty, nnp;
	struct exec_opts o;
};

/* Appends ARG to a list sized for every word of argv. */
static void push(const char **list, size_t *n, const char *arg)
{
	list[(*n)++] = arg;
}

static int parse_exec(const struct oci_global *g, struct exec_args *a, int argc, char **argv)
{
	int c, ret = OCI_EXIT_ERROR;

	while ((c = oci_getopt(g, "exec", exec_usage, argc, argv, "+dtp:e:u:g:c:h", exec_opts,
			       &ret)) != -1) {
		switch (c) {
		case 'd':
			a->o.detach = true;
			break;
		case 't':
			a->tty = true;
			break;
		case 'p':
			a->process_file = optarg;
			break;
		case OPT_CONSOLE:
			a->o.console_socket = optarg;
			break;
		case OPT_PID_FILE:
			a->o.pid_file = optarg;
			break;
		case 'e':
			push(a->env, &a->nenv, optarg);
			break;
		case OPT_CWD:
			a->cwd = optarg;
			break;
		case 'u':
			a->user = optarg;
			break;
		case 'g':
			push(a->gids, &a->ngids, optarg);
			break;
		case 'c':
			push(a->caps, &a->ncaps, optarg);
			break;
		case OPT_NNP:
			a->nnp = true;
			break;
		case OPT_PRESERVE:
			if (strcmp(optarg, "0") != 0)
				return oci_error(g, "exec",
						 "--preserve-fds %s: not supported (only 0)",
						 optarg);
			break;
		case OPT_IGNORE_PAUSED:
			break;
		case OPT_LABEL:
			a->label = optarg;
			break;
		case OPT_APPARMOR:
			a->apparmor = optarg;
			break;
		default: /* 'h', '?' */
			return ret;
		}
	}
	return -1;
}

/* The process of --process FILE in place of the container's. */
static int process_from_file(const char *file, struct jail_spec *s, struct cell_err *e)
{
	struct jail_spec old;
	json_error_t jerr;
	json_t *p = json_load_file(file, 0, &jerr);
	int ret;

	if (p == NULL)
		return cell_err_set(e, 0, "--process %s:%d:%d: %s", file, jerr.line, jerr.column,
				    jerr.text);
	/* The container's process goes (spec_free() of a spec holding it
	 * alone), the file's takes its place. */
	spec_init(&old);
	old.proc = s->proc;
	memset(&s->proc, 0, sizeof(s->proc));
	spec_free(&old);
	ret = oci_process_parse(p, &s->proc, e);
	json_decref(p);
	if (ret < 0)
		return cell_err_prefix(e, "--process %s", file);
	return 0;
}

/* "CAP_NET_ADMIN" or "NET_ADMIN" as a capability number. */
static int cap_number(const char *name, cap_value_t *cap)
{
	char lower[64];
	size_t i;

	if (strncasecmp(name, "CAP_", 4) != 0) {
		if (snprintf(lower, sizeof(lower), "cap_%s", name) >= (int)sizeof(lower))
			return -1;
	} else if (snprintf(lower, sizeof(lower), "%s", name) >= (int)sizeof(lower)) {
		return -1;
	}
	for (i = 0; lower[i] != '\0'; i++)
		lower[i] = (char)tolower((unsigned char)lower[i]);
	return cap_from_name(lower, cap) == 0 && *cap < 64 ? 0 : -1;
}

/* --cap: added to the bounding, effective and permitted sets, as runc
 * adds them. */
static int add_caps(const struct exec_args *a, struct jail_process *p, struct cell_err *e)
{
	for (size_t i = 0; i < a->ncaps; i++) {
		cap_value_t cap;
		uint64_t bit;

		if (cap_number(a->caps[i], &cap) < 0)
			return cell_err_set(e, 0, "--cap %s: no such capability", a->caps[i]);
		bit = 1ULL << cap;
		p->caps.bounding |= bit;
		p->caps.effective |= bit;
		p->caps.permitted |= bit;
		p->has_caps = true;
	}
	return 0;
}

/* -u UID[:GID] and -g GID. */
static int set_ids(const struct exec_args *a, struct jail_process *p, struct cell_err *e)
{
	unsigned int id;

	if (a->user != NULL) {
		char *copy = strdup(a->user), *colon;

		if (copy == NULL)
			return cell_err_set(e, ENOMEM, "--user");
		colon = strchr(copy, ':');
		if (colon != NULL)
			*colon = '\0';
		if (spec_parse_id(copy, &id) < 0 ||
		    (colon != NULL && spec_parse_id(colon + 1, &p->gid) < 0)) {
			free(copy);
			return cell_err_set(e, 0, "--user %s: expected UID[:GID], numbers",
					    a->user);
		}
		p->has_user = true;
		p->uid = id;
		p->has_gid = colon != NULL;
		free(copy);
	}
	if (a->ngids > 0) {
		gid_t *groups = realloc(p->groups, (p->ngroups + a->ngids) * sizeof(gid_t));

		if (groups == NULL)
			return cell_err_set(e, ENOMEM, "--additional-gids");
		p->groups = groups;
		for (size_t i = 0; i < a->ngids; i++) {
			if (spec_parse_id(a->gids[i], &id) < 0)
				return cell_err_set(e, 0, "--additional-gids %s: expected a number",
						    a->gids[i]);
			p->groups[p->ngroups++] = id;
		}
		p->has_groups = true;
	}
	return 0;
}

static int replace_text(char **field, const char *value, struct cell_err *e)
{
	free(*field);
	*field = strdup(value);
	return *field == NULL ? cell_err_set(e, ENOMEM, "out of memory") : 0;
}

/* The container's process with the command line's changes. */
static int apply_flags(const struct exec_args *a, int argc, char **argv, struct jail_spec *s,
		       struct cell_err *e)
{
	struct jail_process *p = &s->proc;

	if (a->process_file == NULL && spec_set_argv(s, argc, argv, e) < 0)
		return -1;
	if (a->process_file == NULL)
		p->terminal = a->tty;
	else if (a->tty)
		p->terminal = true;
	for (size_t i = 0; i < a->nenv; i++)
		if (spec_env_set(s, a->env[i], e) < 0)
			return cell_err_prefix(e, "--env %s", a->env[i]);
	if (a->cwd != NULL && a->cwd[0] != '/')
		return cell_err_set(e, 0, "--cwd %s: not an absolute path", a->cwd);
	if ((a->cwd != NULL && replace_text(&p->cwd, a->cwd, e) < 0) ||
	    (a->label != NULL && replace_text(&p->selinux_label, a->label, e) < 0) ||
	    (a->apparmor != NULL && replace_text(&p->apparmor_profile, a->apparmor, e) < 0))
		return -1;
	if (a->nnp)
		p->no_new_privs = true;
	if (set_ids(a, p, e) < 0 || add_caps(a, p, e) < 0)
		return -1;
	if (p->terminal && a->o.detach && a->o.console_socket == NULL)
		return cell_err_set(e, 0, "-t with -d needs --console-socket");
	if (a->o.console_socket != NULL && (!p->terminal || !a->o.detach))
		return cell_err_set(e, 0, "--console-socket needs -t and -d");
	return 0;
}

int oci_verb_exec(const struct oci_global *g, int argc, char **argv)
{
	struct exec_args a = {0};
	struct jail_spec s;
	struct cell_err e;
	const char *id;
	int ret, status = 0;

	spec_init(&s);
	cell_err_clear(&e);
	a.env = calloc((size_t)argc + 1, sizeof(char *));
	a.gids = calloc((size_t)argc + 1, sizeof(char *));
	a.caps = calloc((size_t)argc + 1, sizeof(char *));
	if (a.env == NULL || a.gids == NULL || a.caps == NULL) {
		ret = oci_error(g, "exec", "out of memory");
		goto out;
	}
	ret = parse_exec(g, &a, argc, argv);
	if (ret >= 0)
		goto out;
	ret = OCI_EXIT_ERROR;
	id = oci_take_id(g, "exec", argc, argv, a.process_file != NULL ? 0 : 1,
			 a.process_file != NULL ? 0 : -1);
	if (id == NULL)
		goto out;
	if (oci_state_spec(g->root, id, &s, &e) < 0 ||
	    (a.process_file != NULL && process_from_file(a.process_file, &s, &e) < 0) ||
	    apply_flags(&a, argc - optind - 1, argv + optind + 1, &s, &e) < 0 ||
	    jail_exec_process(g->root, &s, &a.o, &status, &e) < 0) {
		ret = oci_fail(g, "exec", id, &e);
		goto out;
	}
	ret = status;
out:
	free(a.env);
	free(a.gids);
	free(a.caps);
	spec_free(&s);
	return ret;
}
