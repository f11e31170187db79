/*
 * oci_create.c - `cell-oci create`, `start` and `run`: a bundle's
 * config.json into a spec (oci_config.h), launched through the same
 * stages as `cell run` (launch.h), stopped at "created" until start.
 *
 * create = the launch with {detach, stop_created, keep_stdio without a
 * terminal, console_socket, pid_file, record_extra = the "oci" object of
 * oci_state.h}; start = jail_start() and the poststart hooks (oci_ops.h);
 * run -d = create + start; run = the launch in the foreground, its exit
 * status the container's, its state gone when it ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "hooks.h"
#include "launch.h"
#include "oci.h"
#include "oci_config.h"
#include "oci_ops.h"
#include "oci_state.h"
#include "tty.h"
#include "untrusted.h"

static const char create_usage[] =
	"Usage: cell-oci create [OPTIONS] CONTAINER-ID\n"
	"\n"
	"Create the container of a bundle (config.json and its root): everything is\n"
	"set up, its process waits for `cell-oci start`.  Its state is in the\n"
	"--root directory until `cell-oci delete`.\n"
	"\n"
	"  -b, --bundle DIR           the bundle (default: the working directory)\n"
	"      --console-socket PATH  process.terminal: the pty's master goes to this\n"
	"                             unix socket (SCM_RIGHTS)\n"
	"      --pid-file FILE        write the container process's host pid to FILE\n"
	"      --preserve-fds N       descriptors 3..3+N-1 passed to the process\n"
	"      --no-pivot             refused: cell always uses pivot_root\n"
	"      --no-new-keyring       accepted (cell makes no session keyring)\n"
	"  -h, --help                 show this help\n";

static const char run_usage[] =
	"Usage: cell-oci run [OPTIONS] CONTAINER-ID\n"
	"\n"
	"Create and start the container of a bundle.  In the foreground cell-oci\n"
	"waits for it, exits with its status and deletes it; with -d it returns once\n"
	"the process runs, and the container stays until `cell-oci delete`.\n"
	"\n"
	"  -b, --bundle DIR           the bundle (default: the working directory)\n"
	"  -d, --detach               return once the process runs\n"
	"      --console-socket PATH  with -d and process.terminal: the pty's master\n"
	"                             goes to this unix socket\n"
	"      --pid-file FILE        write the container process's host pid to FILE\n"
	"      --preserve-fds N       descriptors 3..3+N-1 passed to the process\n"
	"      --no-pivot             refused: cell always uses pivot_root\n"
	"      --no-new-keyring       accepted (cell makes no session keyring)\n"
	"      --no-subreaper         accepted (cell-oci never reaps for the container)\n"
	"  -h, --help                 show this help\n";

static const char start_usage[] =
	"Usage: cell-oci start CONTAINER-ID\n"
	"\n"
	"Run the process of a created container, then its poststart hooks.\n"
	"\n"
	"  -h, --help  show this help\n";

enum { OPT_CONSOLE = 256, OPT_PID_FILE, OPT_PRESERVE, OPT_NO_PIVOT, OPT_KEYRING, OPT_SUBREAPER };

static const struct option create_opts[] = {
	{"bundle", required_argument, NULL, 'b'},
	{"detach", no_argument, NULL, 'd'},
	{"console-socket", required_argument, NULL, OPT_CONSOLE},
	{"pid-file", required_argument, NULL, OPT_PID_FILE},
	{"preserve-fds", required_argument, NULL, OPT_PRESERVE},
	{"no-pivot", no_argument, NULL, OPT_NO_PIVOT},
	{"no-new-keyring", no_argument, NULL, OPT_KEYRING},
	{"no-subreaper", no_argument, NULL, OPT_SUBREAPER},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

struct create_args {
	const char *verb;
	const char *id;
	const char *bundle;
	const char *console_socket;
	const char *pid_file;
	unsigned int preserve_fds;
	bool detach;
};

/* create's and run's options (run's alone: -d, --no-subreaper). */
static int parse_create(const struct oci_global *g, struct create_args *a, bool is_run, int argc,
			char **argv)
{
	const char *usage = is_run ? run_usage : create_usage;
	int c, ret = OCI_EXIT_ERROR;

	while ((c = oci_getopt(g, a->verb, usage, argc, argv, is_run ? "+b:dh" : "+b:h",
			       create_opts, &ret)) != -1) {
		switch (c) {
		case 'b':
			a->bundle = optarg;
			break;
		case 'd':
			if (!is_run)
				return oci_error(g, a->verb,
						 "unknown option '--detach' (see "
						 "cell-oci create --help)");
			a->detach = true;
			break;
		case OPT_CONSOLE:
			a->console_socket = optarg;
			break;
		case OPT_PID_FILE:
			a->pid_file = optarg;
			break;
		case OPT_PRESERVE: {
			char *end;
			unsigned long n = strtoul(optarg, &end, 10);

			if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || n > 1024)
				return oci_error(
					g, a->verb,
					"--preserve-fds %s: must be a number from 0 to 1024",
					optarg);
			a->preserve_fds = (unsigned int)n;
			break;
		}
		case OPT_NO_PIVOT:
			return oci_error(g, a->verb,
					 "--no-pivot: not supported (cell always uses pivot_root)");
		case OPT_KEYRING:
			break;
		case OPT_SUBREAPER:
			if (!is_run)
				return oci_error(g, a->verb,
						 "unknown option '--no-subreaper' (see "
						 "cell-oci create --help)");
			break;
		default: /* 'h', '?' */
			return ret;
		}
	}
	a->id = oci_take_id(g, a->verb, argc, argv, 0, 0);
	return a->id == NULL ? OCI_EXIT_ERROR : -1;
}

/* The bundle made absolute; NULL after the error. */
static char *bundle_path(const struct oci_global *g, const struct create_args *a)
{
	char *dir = realpath(a->bundle != NULL ? a->bundle : ".", NULL);

	if (dir == NULL)
		oci_error(g, a->verb, "container %s: bundle %s: %s", a->id,
			  a->bundle != NULL ? a->bundle : ".", strerror(errno));
	return dir;
}

/* BUNDLE's config.json, read once: its text into the spec S and, as
 * JSON, into the record's "oci" object *EXTRA. */
static int load_bundle(const char *bundle, const char *id, struct jail_spec *s, json_t **extra,
		       struct cell_err *e)
{
	char path[PATH_MAX + 16];
	char *text = NULL;
	size_t len = 0;
	json_t *config;

	*extra = NULL;
	snprintf(path, sizeof(path), "%s/config.json", bundle);
	if (untrusted_read(AT_FDCWD, path, UNTRUSTED_NOFOLLOW, OCI_CONFIG_MAX, &text, &len, e) < 0)
		return cell_err_prefix(e, "config.json");
	if (oci_config_parse_keep(text, len, bundle, s, &config, e) < 0) {
		free(text);
		return -1;
	}
	free(text);
	free(s->name);
	s->name = strdup(id);
	if (config != NULL && s->name != NULL)
		*extra = oci_record_extra(bundle, config, s->rootfs);
	json_decref(config);
	if (*extra == NULL)
		return cell_err_set(e, ENOMEM, "config.json");
	return 0;
}

/* runc's rules for a terminal: a detached one needs a console socket, a
 * console socket needs a terminal. */
static int check_terminal(const struct jail_spec *s, const struct create_args *a, bool detached,
			  struct cell_err *e)
{
	if (s->proc.terminal && detached && a->console_socket == NULL)
		return cell_err_set(e, 0,
				    "process.terminal needs --console-socket when the "
				    "container runs detached");
	if (!s->proc.terminal && a->console_socket != NULL)
		return cell_err_set(e, 0, "--console-socket needs process.terminal true");
	if (a->console_socket != NULL && !detached)
		return cell_err_set(e, 0, "--console-socket needs -d");
	return 0;
}

/* What the create-time hooks need at the hold before pivot_root. */
struct create_hooks {
	const struct oci_global *g;
	const struct jail_spec *spec;
	const char *id;
	const char *bundle;
	const json_t *extra;
};

/* The OCI state of the container being made or run: STATUS, pid PID. */
static json_t *state_object(const struct create_hooks *h, const char *status, pid_t pid)
{
	json_t *st = json_pack("{s:s, s:s, s:s, s:i, s:s}", "ociVersion", OCI_STATE_VERSION, "id",
			       h->id, "status", status, "pid", (int)pid, "bundle", h->bundle);
	const json_t *ann = json_object_get(json_object_get(h->extra, "oci"), "annotations");

	if (st != NULL && json_is_object(ann) && json_object_size(ann) > 0)
		json_object_set(st, "annotations", (json_t *)ann);
	return st;
}

/* The same as text, for hooks and the exec fifo. */
static char *run_state(const struct create_hooks *h, const char *status, pid_t pid)
{
	json_t *st = state_object(h, status, pid);
	char *text = st != NULL ? json_dumps(st, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(st);
	return text;
}

/* The hold before pivot_root (launch.h): prestart and createRuntime
 * hooks in the runtime's namespaces, then createContainer in the
 * container's, each with the state ("creating", the process's pid) on
 * its stdin.  A failure fails the create: the launch undoes itself. */
static int run_create_hooks(enum launch_hold where, pid_t pid, void *ctx, struct cell_err *e)
{
	const struct create_hooks *h = ctx;
	const struct jail_mechanisms *m = &h->spec->mech;
	static const enum jail_hook_point runtime[] = {JAIL_HOOK_PRESTART,
						       JAIL_HOOK_CREATE_RUNTIME};
	char *state;
	int pidfd, ret = 0;

	if (where != LAUNCH_HOLD_PREPIVOT)
		return 0;
	state = run_state(h, "creating", pid);
	if (state == NULL)
		return cell_err_set(e, ENOMEM, "hooks: state");
	for (size_t i = 0; i < 2 && ret == 0; i++)
		if (hooks_run(m->hooks[runtime[i]], m->nhooks[runtime[i]], runtime[i], state, -1,
			      e) < 0)
			ret = cell_err_prefix(e, "%s", hooks_point_name(runtime[i]));
	if (ret == 0 && m->nhooks[JAIL_HOOK_CREATE_CONTAINER] > 0) {
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		if (pidfd < 0)
			ret = cell_err_set(e, errno, "createContainer hooks: pidfd of %d",
					   (int)pid);
		else if (hooks_run(m->hooks[JAIL_HOOK_CREATE_CONTAINER],
				   m->nhooks[JAIL_HOOK_CREATE_CONTAINER],
				   JAIL_HOOK_CREATE_CONTAINER, state, pidfd, e) < 0)
			ret = cell_err_prefix(e, "createContainer");
		if (pidfd >= 0)
			close(pidfd);
	}
	free(state);
	return ret;
}

/* The seccomp agent of the profile's listenerPath gets the filter's
 * listener with the container process state (the runtime spec's
 * "fds": ["seccompFd"], the pid, the metadata and the state), one
 * message over its unix socket, the descriptor in SCM_RIGHTS. */
static int send_to_agent(int listener, pid_t pid, void *ctx, struct cell_err *e)
{
	const struct create_hooks *h = ctx;
	const struct jail_seccomp_rules *r = h->spec->mech.seccomp_rules;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	json_t *st = state_object(h, "creating", pid);
	json_t *msg =
		json_pack("{s:s, s:[s], s:i, s:s, s:o*}", "ociVersion", OCI_STATE_VERSION, "fds",
			  "seccompFd", "pid", (int)pid, "metadata",
			  r->listener_metadata != NULL ? r->listener_metadata : "", "state", st);
	char *text = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;
	int sock = -1, ret = 0;

	json_decref(msg);
	if (text == NULL)
		return cell_err_set(e, ENOMEM, "seccomp agent: state");
	if (strlen(r->listener_path) >= sizeof(sa.sun_path)) {
		ret = cell_err_set(e, ENAMETOOLONG, "seccomp agent %s", r->listener_path);
	} else {
		strcpy(sa.sun_path, r->listener_path);
		sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			ret = cell_err_set(e, errno, "seccomp agent %s", r->listener_path);
		else if (tty_send_fd(sock, text, strlen(text), listener) < 0)
			ret = cell_err_set(e, errno, "seccomp agent %s: send the listener",
					   r->listener_path);
	}
	if (sock >= 0)
		close(sock);
	free(text);
	return ret;
}

/* Foreground run, at created: the state its startContainer hooks read. */
static char *run_start_state(pid_t pid, void *ctx)
{
	return run_state(ctx, "created", pid);
}

/* Foreground run, started: the poststart hooks, each one's failure a
 * warning (the others run, the container runs). */
static void run_started(pid_t pid, void *ctx)
{
	const struct create_hooks *h = ctx;
	char *state = run_state(h, "running", pid);
	struct cell_err warn;

	cell_err_clear(&warn);
	if (state != NULL)
		oci_hooks_warn(h->spec, JAIL_HOOK_POSTSTART, state, &warn);
	if (warn.msg[0] != '\0')
		oci_warn(h->g, "run", &warn);
	free(state);
}

/* Creates the container (STOP_CREATED) or runs it in the foreground;
 * *STATUS the foreground container's exit status. */
static int launch(const struct oci_global *g, const struct create_args *a, bool stop_created,
		  int *status)
{
	struct jail_spec s;
	struct cell_err e;
	json_t *extra = NULL;
	char *bundle = bundle_path(g, a);
	int ret = OCI_EXIT_ERROR;

	cell_err_clear(&e);
	spec_init(&s);
	if (bundle == NULL)
		goto out;
	if (load_bundle(bundle, a->id, &s, &extra, &e) < 0 ||
	    check_terminal(&s, a, stop_created, &e) < 0)
		goto fail;
	{
		struct launch_opts o = {
			.state_root = g->root,
			.detach = stop_created,
			.stop_created = stop_created,
			.keep_stdio = !s.proc.terminal,
			.console_socket = a->console_socket,
			.pid_file = a->pid_file,
			.record_extra = extra,
			.preserve_fds = a->preserve_fds,
		};
		struct create_hooks hooks = {
			.g = g, .spec = &s, .id = a->id, .bundle = bundle, .extra = extra};
		const struct jail_mechanisms *m = &s.mech;

		/* run: create, start and wait, in one launch. */
		o.stop_created = true;
		o.ctx = &hooks;
		if (m->seccomp_rules != NULL && m->seccomp_rules->listener_path != NULL)
			o.on_seccomp = send_to_agent;
		if (!stop_created) {
			o.start_state = run_start_state;
			o.started = run_started;
		}

		if (m->nhooks[JAIL_HOOK_PRESTART] + m->nhooks[JAIL_HOOK_CREATE_RUNTIME] +
			    m->nhooks[JAIL_HOOK_CREATE_CONTAINER] >
		    0) {
			o.hold = LAUNCH_HOLD_PREPIVOT;
			o.on_hold = run_create_hooks;
		}

		if (jail_run(&s, &o, status, &e) < 0)
			goto fail;
	}
	ret = 0;
	if (!stop_created) {
		/* The foreground container is gone: its poststop hooks. */
		struct cell_err warn;
		json_t *st =
			json_pack("{s:s, s:s, s:s, s:i, s:s}", "ociVersion", OCI_STATE_VERSION,
				  "id", a->id, "status", "stopped", "pid", 0, "bundle", bundle);
		char *state =
			st != NULL ? json_dumps(st, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

		cell_err_clear(&warn);
		if (state != NULL)
			oci_hooks_warn(&s, JAIL_HOOK_POSTSTOP, state, &warn);
		if (warn.msg[0] != '\0')
			oci_warn(g, a->verb, &warn);
		free(state);
		json_decref(st);
	}
	goto out;
fail:
	ret = oci_fail(g, a->verb, a->id, &e);
	/* The command ran, and only what came after it failed: its
	 * status is still the run's (launch.h). */
	if (!stop_created && *status >= 0)
		ret = *status;
out:
	json_decref(extra);
	spec_free(&s);
	free(bundle);
	return ret;
}

int oci_verb_create(const struct oci_global *g, int argc, char **argv)
{
	struct create_args a = {.verb = "create"};
	int ret = parse_create(g, &a, false, argc, argv), status;

	if (ret >= 0)
		return ret;
	return launch(g, &a, true, &status);
}

static int start(const struct oci_global *g, const char *verb, const char *id)
{
	struct cell_err e, warn;

	cell_err_clear(&e);
	if (oci_start(g->root, id, &warn, &e) < 0)
		return oci_fail(g, verb, id, &e);
	if (warn.msg[0] != '\0')
		oci_warn(g, verb, &warn);
	return 0;
}

int oci_verb_run(const struct oci_global *g, int argc, char **argv)
{
	struct create_args a = {.verb = "run"};
	int ret = parse_create(g, &a, true, argc, argv), status = -1;

	if (ret >= 0)
		return ret;
	if (!a.detach) {
		ret = launch(g, &a, false, &status);
		return ret != 0 ? ret : status;
	}
	ret = launch(g, &a, true, &status);
	if (ret != 0)
		return ret;
	ret = start(g, "run", a.id);
	if (ret != 0) {
		/* Not left half made: a container that could not start goes. */
		struct cell_err ignored, warn;

		oci_delete(g->root, a.id, true, &warn, &ignored);
	}
	return ret;
}

int oci_verb_start(const struct oci_global *g, int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *id;
	int c, ret = OCI_EXIT_ERROR;

	while ((c = oci_getopt(g, "start", start_usage, argc, argv, "+h", opts, &ret)) != -1)
		return ret;
	id = oci_take_id(g, "start", argc, argv, 0, 0);
	if (id == NULL)
		return OCI_EXIT_ERROR;
	return start(g, "start", id);
}
