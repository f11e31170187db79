/*
 * oci_main.c - cell-oci, the OCI runtime front door: runc's global
 * options (--root, --log, --log-format, --debug, --systemd-cgroup,
 * --version, --help), the verb table, and what every verb shares: the
 * one-line errors, their log records, option parsing with --help, the
 * container ID.
 *
 * The same binary as cell: main.c comes here when it is called as
 * "cell-oci", or for `cell oci ...`.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "oci.h"
#include "oci_state.h"
#include "param.h"
#include "rootless.h"

#ifndef CELL_VERSION
#define CELL_VERSION "unknown"
#endif

static const struct oci_verb verbs[] = {
	{"create", oci_verb_create, "create a container (it waits for start)"},
	{"start", oci_verb_start, "run the process of a created container"},
	{"run", oci_verb_run, "create and start a container"},
	{"state", oci_verb_state, "print a container's state (JSON)"},
	{"list", oci_verb_list, "list the containers"},
	{"ps", oci_verb_ps, "list a container's processes"},
	{"kill", oci_verb_kill, "send a signal to a container's process"},
	{"delete", oci_verb_delete, "delete a container"},
	{"exec", oci_verb_exec, "run a new process in a container"},
	{"pause", oci_verb_pause, "freeze a container's processes"},
	{"resume", oci_verb_resume, "thaw a paused container's processes"},
	{"update", oci_verb_update, "change a container's resource limits"},
	{"spec", oci_verb_spec, "write a default config.json"},
	{"features", oci_verb_features, "print what this runtime supports (JSON)"},
};
#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

/* --- errors and the log --------------------------------------------- */

/* TEXT as a JSON string's body or a logfmt quoted value: quotes,
 * backslashes and control characters escaped. */
static void put_escaped(FILE *f, const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
}

void oci_log(const struct oci_global *g, const char *level, const char *msg)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;

	if (g->log == NULL)
		return;
	if (gmtime_r(&now, &tm) == NULL ||
	    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(when, sizeof(when), "%lld", (long long)now);
	/* runc's records: logrus's text, or its JSON, one per line. */
	if (g->log_json) {
		fprintf(g->log, "{\"level\":\"%s\",\"msg\":\"", level);
		put_escaped(g->log, msg);
		fprintf(g->log, "\",\"time\":\"%s\"}\n", when);
	} else {
		fprintf(g->log, "time=\"%s\" level=%s msg=\"", when, level);
		put_escaped(g->log, msg);
		fputs("\"\n", g->log);
	}
	fflush(g->log);
}

/* The message without the engine's "jail ID: " in front: the front door
 * says "container ID" itself. */
static const char *without_jail(const char *msg, const char *id)
{
	size_t n = id != NULL ? strlen(id) : 0;

	if (n > 0 && strncmp(msg, "jail ", 5) == 0 && strncmp(msg + 5, id, n) == 0 &&
	    strncmp(msg + 5 + n, ": ", 2) == 0)
		return msg + 7 + n;
	if (n > 0 && strncmp(msg, "container ", 10) == 0 && strncmp(msg + 10, id, n) == 0 &&
	    strncmp(msg + 10 + n, ": ", 2) == 0)
		return msg + 12 + n;
	return msg;
}

/* A parameter of the table as a config.json says it: the subject of an
 * error about it found after the config was read (at the start: "linux.
 * resources.memory.limit: needs a delegated cgroup v2 subtree"), and
 * where the engine's message refers to one ("... and pass
 * cgroup_parent").  NULL: one a config does not set; no subject, and a
 * reference keeps the table's name. */
static const char *config_spelling(int param)
{
	static const struct {
		int param;
		const char *path;
	} paths[] = {
		{PARAM_HOSTNAME, "hostname"},
		{PARAM_DOMAINNAME, "domainname"},
		{PARAM_PATH, "root.path"},
		{PARAM_RW, "root.readonly"},
		{PARAM_WORKDIR, "process.cwd"},
		{PARAM_ENV, "process.env"},
		{PARAM_USER, "process.user"},
		{PARAM_COMMAND, "process.args"},
		{PARAM_NRTASK, "linux.resources.pids.limit"},
		{PARAM_MEMORY, "linux.resources.memory.limit"},
		{PARAM_SWAP, "linux.resources.memory.swap"},
		{PARAM_CGROUP_PARENT, "linux.cgroupsPath"},
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (paths[i].param == param)
			return paths[i].path;
	return NULL;
}

/* The config's path of the parameter an error is about, with the
 * element of a list ("process.env[2]"); NULL: none. */
static const char *config_subject(const struct cell_err_about *a, char *buf, size_t size)
{
	const char *path = config_spelling(a->param);
	const struct param *p = param_get(a->param);

	if (path == NULL || p == NULL || p->type != PARAM_LIST)
		return path;
	snprintf(buf, size, "%s[%d]", path, a->index);
	return buf;
}

static void report(const struct oci_global *g, const char *level, const char *verb, const char *id,
		   const struct cell_err *err)
{
	const char *why = err->exit_code == CELL_EXIT_NOTFOUND
				  ? " (exec: executable file not found in $PATH)"
			  : err->exit_code == CELL_EXIT_NOEXEC ? " (exec: permission denied)"
							       : "";
	struct cell_err spelled = *err, *e = &spelled;
	char line[sizeof(e->msg) + 256], subject[96];

	cell_err_spell(e, config_subject(&e->about, subject, sizeof(subject)),
		       config_spelling(e->about.ref));
	if (id != NULL)
		snprintf(line, sizeof(line), "%s: container %s: %s%s", verb, id,
			 without_jail(e->msg, id), why);
	else
		snprintf(line, sizeof(line), "%s: %s%s", verb, e->msg, why);
	fprintf(stderr, "cell-oci: %s%s\n", strcmp(level, "error") == 0 ? "" : "warning: ", line);
	oci_log(g, level, line);
}

int oci_fail(const struct oci_global *g, const char *verb, const char *id, const struct cell_err *e)
{
	report(g, "error", verb, id, e);
	return OCI_EXIT_ERROR;
}

void oci_warn(const struct oci_global *g, const char *verb, const struct cell_err *e)
{
	report(g, "warning", verb, NULL, e);
}

int oci_error(const struct oci_global *g, const char *verb, const char *fmt, ...)
{
	struct cell_err e;
	va_list ap;

	cell_err_clear(&e);
	va_start(ap, fmt);
	vsnprintf(e.msg, sizeof(e.msg), fmt, ap);
	va_end(ap);
	e.exit_code = OCI_EXIT_ERROR;
	return oci_fail(g, verb, NULL, &e);
}

/* --- options --------------------------------------------------------- */

/* cli_bad_option()'s wording, through the OCI front door's errors. */
static int bad_option(const struct oci_global *g, const char *verb, char **argv,
		      const struct option *opts)
{
	char msg[256];

	cli_bad_option_text("cell-oci", verb, argv, opts, msg, sizeof(msg));
	return oci_error(g, verb, "%s", msg);
}

int oci_getopt(const struct oci_global *g, const char *verb, const char *usage, int argc,
	       char **argv, const char *shortopts, const struct option *opts, int *ret)
{
	int c;

	opterr = 0;
	c = cli_getopt(argc, argv, shortopts, opts, NULL);
	if (c == 'h') {
		fputs(usage, stdout);
		*ret = 0;
	} else if (c == '?' || c == ':') {
		*ret = bad_option(g, verb, argv, opts);
		c = '?';
	}
	return c;
}

const char *oci_take_id(const struct oci_global *g, const char *verb, int argc, char **argv,
			int min_more, int max_more)
{
	const char *id;
	int more;

	if (optind >= argc) {
		oci_error(g, verb, "no container ID given (see cell-oci %s --help)", verb);
		return NULL;
	}
	id = argv[optind];
	more = argc - optind - 1;
	if (!oci_valid_id(id)) {
		oci_error(g, verb,
			  "invalid container ID format: IDs are 1 to %d of A-Z a-z 0-9 _ + - .",
			  JAIL_NAME_MAX);
		return NULL;
	}
	if (more < min_more || (max_more >= 0 && more > max_more)) {
		oci_error(g, verb, "container %s: %s arguments (see cell-oci %s --help)", id,
			  more < min_more ? "missing" : "too many", verb);
		return NULL;
	}
	return id;
}

/* --- the global options and dispatch ---------------------------------- */

static void usage(FILE *out)
{
	fputs("Usage: cell-oci [GLOBAL OPTIONS] COMMAND [OPTIONS] CONTAINER-ID [ARGS...]\n"
	      "\n"
	      "cell's OCI runtime: runc's command line over cell's jails, for container\n"
	      "engines (podman, containerd, dockerd).  Also `cell oci COMMAND ...`.\n"
	      "\n"
	      "Global options:\n"
	      "  --root DIR            state directory (default " OCI_DEFAULT_ROOT ";\n"
	      "                        without root $XDG_RUNTIME_DIR/cell-oci, else\n"
	      "                        /tmp/cell-oci-UID)\n"
	      "  --log FILE            append errors (and with --debug, commands) to FILE\n"
	      "  --log-format FORMAT   text (default) or json\n"
	      "  --debug               log each command\n"
	      "  --systemd-cgroup      refused: cell manages cgroupfs paths only\n"
	      "  -h, --help            show this help\n"
	      "  -v, --version         show the version\n"
	      "\n"
	      "Commands:\n",
	      out);
	for (size_t i = 0; i < NVERBS; i++)
		fprintf(out, "  %-9s %s\n", verbs[i].name, verbs[i].summary);
	fputs("\nRun 'cell-oci COMMAND --help' for a command's options; see cell-oci(8).\n", out);
}

enum { OPT_LOG = 256, OPT_LOG_FORMAT, OPT_DEBUG, OPT_SYSTEMD, OPT_ROOTLESS, OPT_CRIU };

/* The global options into G; the index of the verb, or -1 with *RET. */
static int global_options(struct oci_global *g, const char **log_path, int argc, char **argv,
			  int *ret)
{
	static const struct option opts[] = {
		{"root", required_argument, NULL, 'r'},
		{"log", required_argument, NULL, OPT_LOG},
		{"log-format", required_argument, NULL, OPT_LOG_FORMAT},
		{"debug", no_argument, NULL, OPT_DEBUG},
		{"systemd-cgroup", no_argument, NULL, OPT_SYSTEMD},
		{"rootless", required_argument, NULL, OPT_ROOTLESS},
		{"criu", required_argument, NULL, OPT_CRIU},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'v'},
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	while ((c = cli_getopt(argc, argv, "+hv", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (optarg[0] == '\0')
				return *ret = oci_error(g, "--root", "empty path"), -1;
			g->root = optarg;
			g->root_given = true;
			break;
		case OPT_LOG:
			*log_path = optarg;
			break;
		case OPT_LOG_FORMAT:
			if (strcmp(optarg, "json") != 0 && strcmp(optarg, "text") != 0)
				return *ret = oci_error(g, "--log-format",
							"%s: expected text or json", optarg),
				       -1;
			g->log_json = strcmp(optarg, "json") == 0;
			break;
		case OPT_DEBUG:
			g->debug = true;
			break;
		case OPT_SYSTEMD:
			return *ret = oci_error(g, "--systemd-cgroup",
						"not supported: cell-oci manages cgroupfs paths "
						"(podman: --cgroup-manager cgroupfs)"),
			       -1;
		case OPT_ROOTLESS:
			/* runc's "auto", "true", "false": cell finds its ids
			 * itself; the value is checked, nothing else. */
			if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "true") != 0 &&
			    strcmp(optarg, "false") != 0)
				return *ret = oci_error(g, "--rootless",
							"%s: expected auto, true or false", optarg),
				       -1;
			break;
		case OPT_CRIU:
			break; /* no checkpoint verb: the path is never used */
		case 'h':
			usage(stdout);
			return *ret = 0, -1;
		case 'v':
			printf("cell-oci version %s\nspec: %s\n", CELL_VERSION, OCI_STATE_VERSION);
			return *ret = 0, -1;
		default:
			return *ret = bad_option(g, "option", argv, opts), -1;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return *ret = OCI_EXIT_ERROR, -1;
	}
	return optind;
}

/* The log file, opened for appending (runc's --log). */
static int open_log(struct oci_global *g, const char *path)
{
	g->log = fopen(path, "ae");
	if (g->log == NULL) {
		int err = errno;

		return oci_error(g, "--log", "%s: %s", path, strerror(err));
	}
	return 0;
}

/* Logs the command line (--debug). */
static void log_command(const struct oci_global *g, int argc, char **argv)
{
	char line[2048];
	size_t n = 0;

	for (int i = 0; i < argc && n + 2 < sizeof(line); i++) {
		int w = snprintf(line + n, sizeof(line) - n, "%s%s", i > 0 ? " " : "", argv[i]);

		if (w < 0)
			return;
		n += (size_t)w < sizeof(line) - n ? (size_t)w : sizeof(line) - n - 1;
	}
	oci_log(g, "debug", line);
}

/* ARGV[0] is the program (cell-oci) or the word "oci" (cell oci);
 * DEFAULT_ROOT is cell's --root when the user gave one. */
static int oci_dispatch(const char *default_root, int argc, char **argv)
{
	static char rootless_root[PATH_MAX];
	struct oci_global g = {.root = default_root != NULL ? default_root : OCI_DEFAULT_ROOT};
	const char *log_path = NULL;
	char *absolute = NULL;
	int at, ret = 0;

	optind = 0;
	at = global_options(&g, &log_path, argc, argv, &ret);
	if (at < 0)
		return ret;
	if (log_path != NULL && open_log(&g, log_path) != 0)
		return OCI_EXIT_ERROR;
	/* Without privilege over the host, the user's own state root. */
	if (default_root == NULL && !g.root_given && rootless()) {
		struct cell_err e;

		cell_err_clear(&e);
		if (rootless_state_root("cell-oci", rootless_root, sizeof(rootless_root), &e) < 0) {
			ret = oci_fail(&g, argv[at], NULL, &e);
			goto out;
		}
		g.root = rootless_root;
	}
	/* Absolute once: a process of cell's that works from another
	 * directory must still mean the same root. */
	if (g.root[0] != '/') {
		char *cwd = getcwd(NULL, 0);

		if (cwd == NULL || asprintf(&absolute, "%s/%s", cwd, g.root) < 0) {
			free(cwd);
			ret = oci_error(&g, "--root", "%s: %s", g.root, strerror(errno));
			goto out;
		}
		free(cwd);
		g.root = absolute;
	}
	if (g.debug)
		log_command(&g, argc, argv);
	ret = -1;
	for (size_t i = 0; ret < 0 && i < NVERBS; i++)
		if (strcmp(argv[at], verbs[i].name) == 0) {
			optind = 0; /* the verb's argv from its name on */
			ret = verbs[i].run(&g, argc - at, argv + at);
		}
	if (ret < 0)
		ret = oci_error(&g, argv[at], "unknown command (see cell-oci --help)");
out:
	free(absolute);
	if (g.log != NULL)
		fclose(g.log);
	return ret;
}

int oci_main(int argc, char **argv)
{
	return oci_dispatch(NULL, argc, argv);
}

int cmd_oci(const struct cli_global *g, int argc, char **argv)
{
	return oci_dispatch(g->root_given ? g->root : NULL, argc, argv);
}
