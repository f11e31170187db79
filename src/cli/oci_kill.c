/*
 * oci_kill.c - `cell-oci kill`, `delete`, `pause` and `resume`: the
 * end of a container's life and its freezer, through oci_ops.h.
 */
#include <errno.h>
#include <ctype.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "oci.h"
#include "oci_ops.h"
#include "oci_state.h"

static const char kill_usage[] =
	"Usage: cell-oci kill [OPTIONS] CONTAINER-ID [SIGNAL]\n"
	"\n"
	"Send SIGNAL (default SIGTERM; a name with or without SIG, or a number) to\n"
	"the container's process.  A stopped container is an error.\n"
	"\n"
	"  -a, --all   to every process of the container's cgroups\n"
	"  -h, --help  show this help\n";

static const char delete_usage[] =
	"Usage: cell-oci delete [OPTIONS] CONTAINER-ID\n"
	"\n"
	"Delete a container: its state and cgroups; then its poststop hooks run.  A\n"
	"created container is killed; a running one is an error unless -f.\n"
	"\n"
	"  -f, --force  kill a running container (SIGKILL) first\n"
	"  -h, --help   show this help\n";

static const char pause_usage[] =
	"Usage: cell-oci pause CONTAINER-ID\n"
	"\n"
	"Freeze every process of a running container (its freezer cgroup).\n"
	"\n"
	"  -h, --help  show this help\n";

static const char resume_usage[] = "Usage: cell-oci resume CONTAINER-ID\n"
				   "\n"
				   "Thaw the processes of a paused container.\n"
				   "\n"
				   "  -h, --help  show this help\n";

/* "KILL", "SIGKILL", "sigkill", "9" -> 9; -1 when none. */
static int parse_signal(const char *text)
{
	const char *name = strncasecmp(text, "SIG", 3) == 0 ? text + 3 : text;
	char *end;
	long n;

	if (isdigit((unsigned char)text[0])) {
		n = strtol(text, &end, 10);
		return *end == '\0' && n > 0 && n <= SIGRTMAX ? (int)n : -1;
	}
	for (int sig = 1; sig < NSIG; sig++) {
		const char *abbrev = sigabbrev_np(sig);

		if (abbrev != NULL && strcasecmp(name, abbrev) == 0)
			return sig;
	}
	return -1;
}

int oci_verb_kill(const struct oci_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"all", no_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, sig = SIGTERM, ret = OCI_EXIT_ERROR;
	bool all = false;
	struct cell_err e;
	const char *id;

	while ((c = oci_getopt(g, "kill", kill_usage, argc, argv, "+ah", opts, &ret)) != -1) {
		if (c != 'a')
			return ret;
		all = true;
	}
	id = oci_take_id(g, "kill", argc, argv, 0, 1);
	if (id == NULL)
		return OCI_EXIT_ERROR;
	if (optind + 1 < argc && (sig = parse_signal(argv[optind + 1])) < 0)
		return oci_error(g, "kill", "container %s: %s: no such signal", id,
				 argv[optind + 1]);
	cell_err_clear(&e);
	if (oci_kill(g->root, id, sig, all, &e) < 0)
		return oci_fail(g, "kill", id, &e);
	return 0;
}

int oci_verb_delete(const struct oci_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, ret = OCI_EXIT_ERROR;
	struct cell_err e, warn;
	bool force = false;
	const char *id;

	while ((c = oci_getopt(g, "delete", delete_usage, argc, argv, "+fh", opts, &ret)) != -1) {
		if (c != 'f')
			return ret;
		force = true;
	}
	id = oci_take_id(g, "delete", argc, argv, 0, 0);
	if (id == NULL)
		return OCI_EXIT_ERROR;
	cell_err_clear(&e);
	if (oci_delete(g->root, id, force, &warn, &e) < 0) {
		/* runc: delete -f of a container that does not exist (a create
		 * that failed) succeeds; nothing is left of it either way. */
		if (force && e.errnum == ENOENT)
			return 0;
		return oci_fail(g, "delete", id, &e);
	}
	if (warn.msg[0] != '\0')
		oci_warn(g, "delete", &warn);
	return 0;
}

/* pause and resume: an ID, one operation. */
static int freezer_verb(const struct oci_global *g, const char *verb, const char *usage,
			int (*op)(const char *, const char *, struct cell_err *), int argc,
			char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int ret = OCI_EXIT_ERROR;
	struct cell_err e;
	const char *id;

	if (oci_getopt(g, verb, usage, argc, argv, "+h", opts, &ret) != -1)
		return ret;
	id = oci_take_id(g, verb, argc, argv, 0, 0);
	if (id == NULL)
		return OCI_EXIT_ERROR;
	cell_err_clear(&e);
	if (op(g->root, id, &e) < 0)
		return oci_fail(g, verb, id, &e);
	return 0;
}

int oci_verb_pause(const struct oci_global *g, int argc, char **argv)
{
	return freezer_verb(g, "pause", pause_usage, oci_pause, argc, argv);
}

int oci_verb_resume(const struct oci_global *g, int argc, char **argv)
{
	return freezer_verb(g, "resume", resume_usage, oci_resume, argc, argv);
}
