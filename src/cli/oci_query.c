/*
 * oci_query.c - `cell-oci state`, `list` and `ps`: what engines read
 * back, printed as runc prints it (oci_state.h gives the values).
 *
 * state: the state object, indented; list: a table (ID PID STATUS BUNDLE
 * CREATED OWNER, runc's tabwriter spacing), a JSON array or the IDs;
 * ps: the host pids of the container's cgroups as a JSON array, or ps(1)'s
 * output cut to its header and the container's processes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "oci.h"
#include "oci_state.h"

extern char **environ;

static const char state_usage[] =
	"Usage: cell-oci state CONTAINER-ID\n"
	"\n"
	"Print the container's state as JSON (the OCI runtime spec's, with runc's\n"
	"rootfs, created and owner): its status is creating, created, running,\n"
	"paused or stopped.\n"
	"\n"
	"  -h, --help  show this help\n";

static const char list_usage[] =
	"Usage: cell-oci list [OPTIONS]\n"
	"\n"
	"List the containers of the --root directory.\n"
	"\n"
	"  -f, --format FORMAT  table (default: ID PID STATUS BUNDLE CREATED OWNER)\n"
	"                       or json (an array of states)\n"
	"  -q, --quiet          the IDs only\n"
	"  -h, --help           show this help\n";

static const char ps_usage[] =
	"Usage: cell-oci ps [OPTIONS] CONTAINER-ID [PS-ARGS...]\n"
	"\n"
	"List the container's processes: ps(1)'s output (ps -ef, or PS-ARGS) cut to\n"
	"its header and the container's processes, or their host pids as JSON.\n"
	"\n"
	"  -f, --format FORMAT  table (default) or json\n"
	"  -h, --help           show this help\n";

/* "table" or "json"; -1 after the error. */
static int parse_format(const struct oci_global *g, const char *verb, const char *arg)
{
	if (strcmp(arg, "table") == 0)
		return 0;
	if (strcmp(arg, "json") == 0)
		return 1;
	return oci_error(g, verb, "--format %s: expected table or json", arg), -1;
}

int oci_verb_state(const struct oci_global *g, int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	struct cell_err e;
	const char *id;
	json_t *st;
	int ret = OCI_EXIT_ERROR;

	if (oci_getopt(g, "state", state_usage, argc, argv, "+h", opts, &ret) != -1)
		return ret;
	id = oci_take_id(g, "state", argc, argv, 0, 0);
	if (id == NULL)
		return OCI_EXIT_ERROR;
	cell_err_clear(&e);
	if (oci_state_get(g->root, id, &st, &e) < 0)
		return oci_fail(g, "state", id, &e);
	json_dumpf(st, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(st);
	return 0;
}

/* One column of list's table: runc's tabwriter, minimum width 12,
 * padding 3. */
static const char *const list_cols[] = {"id", "pid", "status", "bundle", "created", "owner"};
#define NCOLS (sizeof(list_cols) / sizeof(list_cols[0]))

static char *cell_text(const json_t *st, size_t col)
{
	const json_t *v = json_object_get(st, list_cols[col]);
	char *text = NULL;

	if (json_is_integer(v)) {
		if (asprintf(&text, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0)
			text = NULL;
		return text;
	}
	return strdup(json_is_string(v) ? json_string_value(v) : "");
}

/* The last column is not padded. */
static void print_cell(const char *text, const size_t *width, size_t col)
{
	if (col + 1 < NCOLS)
		printf("%-*s", (int)width[col], text);
	else
		printf("%s\n", text);
}

static void print_table(const json_t *list)
{
	static const char *const heads[NCOLS] = {"ID",	   "PID",     "STATUS",
						 "BUNDLE", "CREATED", "OWNER"};
	size_t width[NCOLS], i;
	const json_t *st;

	for (size_t c = 0; c < NCOLS; c++)
		width[c] = strlen(heads[c]);
	json_array_foreach(list, i, st)
	{
		for (size_t c = 0; c < NCOLS; c++) {
			char *t = cell_text(st, c);

			if (t != NULL && strlen(t) > width[c])
				width[c] = strlen(t);
			free(t);
		}
	}
	for (size_t c = 0; c < NCOLS; c++)
		width[c] = width[c] + 3 < 12 ? 12 : width[c] + 3;
	for (size_t c = 0; c < NCOLS; c++)
		print_cell(heads[c], width, c);
	json_array_foreach(list, i, st)
	{
		for (size_t c = 0; c < NCOLS; c++) {
			char *t = cell_text(st, c);

			print_cell(t != NULL ? t : "", width, c);
			free(t);
		}
	}
}

int oci_verb_list(const struct oci_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, json = 0, ret = OCI_EXIT_ERROR;
	bool quiet = false;
	struct cell_err e;
	json_t *list, *st;
	size_t i;

	while ((c = oci_getopt(g, "list", list_usage, argc, argv, "+f:qh", opts, &ret)) != -1) {
		if (c == 'f' && (json = parse_format(g, "list", optarg)) < 0)
			return OCI_EXIT_ERROR;
		else if (c == 'q')
			quiet = true;
		else if (c != 'f')
			return ret;
	}
	if (optind < argc)
		return oci_error(g, "list", "takes no arguments (see cell-oci list --help)");
	cell_err_clear(&e);
	list = oci_state_list(g->root, &e);
	if (list == NULL)
		return oci_fail(g, "list", NULL, &e);
	if (quiet) {
		json_array_foreach(list, i, st) puts(json_string_value(json_object_get(st, "id")));
	} else if (json) {
		json_dumpf(list, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
		putchar('\n');
	} else {
		print_table(list);
	}
	json_decref(list);
	return 0;
}

static bool has_pid(const pid_t *pids, size_t n, long pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* The field number of "PID" in ps's header; -1 when none. */
static int pid_field(const char *header)
{
	char *copy = strdup(header), *save = NULL;
	int n = 0, at = -1;

	for (char *w = copy != NULL ? strtok_r(copy, " \t\n", &save) : NULL; w != NULL;
	     w = strtok_r(NULL, " \t\n", &save), n++)
		if (strcmp(w, "PID") == 0) {
			at = n;
			break;
		}
	free(copy);
	return at;
}

static long field_value(const char *line, int field)
{
	char *copy = strdup(line), *save = NULL, *w;
	long v = -1;

	w = copy != NULL ? strtok_r(copy, " \t\n", &save) : NULL;
	for (int i = 0; w != NULL && i < field; i++)
		w = strtok_r(NULL, " \t\n", &save);
	if (w != NULL)
		v = strtol(w, NULL, 10);
	free(copy);
	return v;
}

/* ps ARGS (or -ef), its lines kept when their PID is one of PIDS. */
static int ps_table(const struct oci_global *g, const pid_t *pids, size_t n, int argc, char **argv)
{
	char *def[] = {"ps", "-ef", NULL}, **args = def, *line = NULL;
	int fds[2], status, field = -1, ret = 0;
	posix_spawn_file_actions_t fa;
	size_t cap = 0;
	FILE *out;
	pid_t pid;

	if (argc > 0) {
		args = calloc((size_t)argc + 2, sizeof(*args));
		if (args == NULL)
			return oci_error(g, "ps", "out of memory");
		args[0] = "ps";
		memcpy(args + 1, argv, (size_t)argc * sizeof(*args));
	}
	if (pipe2(fds, O_CLOEXEC) < 0) {
		ret = oci_error(g, "ps", "pipe: %s", strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	errno = posix_spawnp(&pid, "ps", &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (errno != 0) {
		ret = oci_error(g, "ps", "run ps: %s", strerror(errno));
		close(fds[0]);
		goto out;
	}
	out = fdopen(fds[0], "r");
	for (bool first = true; out != NULL && getline(&line, &cap, out) > 0; first = false) {
		if (first)
			field = pid_field(line);
		if (first || (field >= 0 && has_pid(pids, n, field_value(line, field))))
			fputs(line, stdout);
	}
	if (out != NULL)
		fclose(out);
	else
		close(fds[0]);
	free(line);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (field < 0)
		ret = oci_error(g, "ps", "ps printed no PID column");
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		ret = oci_error(g, "ps", "ps failed");
out:
	if (args != def)
		free(args);
	return ret;
}

int oci_verb_ps(const struct oci_global *g, int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, json = 0, ret = OCI_EXIT_ERROR;
	struct cell_err e;
	const char *id;
	pid_t *pids;
	size_t n;

	while ((c = oci_getopt(g, "ps", ps_usage, argc, argv, "+f:h", opts, &ret)) != -1) {
		if (c != 'f')
			return ret;
		if ((json = parse_format(g, "ps", optarg)) < 0)
			return OCI_EXIT_ERROR;
	}
	id = oci_take_id(g, "ps", argc, argv, 0, -1);
	if (id == NULL)
		return OCI_EXIT_ERROR;
	if (json && optind + 1 < argc)
		return oci_error(g, "ps", "container %s: ps arguments need --format table", id);
	cell_err_clear(&e);
	if (oci_state_pids(g->root, id, &pids, &n, &e) < 0)
		return oci_fail(g, "ps", id, &e);
	if (json) {
		putchar('[');
		for (size_t i = 0; i < n; i++)
			printf("%s%d", i > 0 ? "," : "", (int)pids[i]);
		puts("]");
	} else {
		ret = ps_table(g, pids, n, argc - optind - 1, argv + optind + 1);
	}
	free(pids);
	return json ? 0 : ret;
}
