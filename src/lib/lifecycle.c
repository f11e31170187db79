/*
 * lifecycle.c - a stopped jail started again, restarted, waited for
 * (lifecycle.h).  The start itself is the launch's (launch.c): its
 * state stage takes over the stopped jail's locked directory instead of
 * making one, so every other stage, and every undo, is the same as for
 * `cell run -d`.
 */
#include "lifecycle.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "jail.h"
#include "launch.h"
#include "policy.h"
#include "proc.h"
#include "record.h"
#include "rootless.h"
#include "spec.h"
#include "store.h"

/* The facts of the first run a start keeps: when the jail was made, and
 * the jail file it was made from (cell up, down). */
static const char *const kept_facts[] = {"created", "file"};

static int no_root(const char *name, struct cell_err *e)
{
	cell_err_set(e, 0, "jail %s: no such jail", name);
	e->errnum = ENOENT;
	return -1;
}

/* The jail's spec as it was started, from its record, with the
 * mechanisms of its policy (which the record keeps as parameters). */
static int spec_of_record(const struct jail *j, struct jail_spec *s, struct cell_err *e)
{
	if (record_spec(j->state, s, e) < 0 || spec_validate(s, e) < 0 || policy_defaults(s, e) < 0)
		return cell_err_prefix(e, "jail %s", j->dir.name);
	return 0;
}

static json_t *kept_of(const json_t *rec)
{
	json_t *kept = json_object();

	for (size_t i = 0; kept != NULL && i < sizeof(kept_facts) / sizeof(kept_facts[0]); i++) {
		json_t *v = json_object_get(rec, kept_facts[i]);

		if (v != NULL && json_object_set(kept, kept_facts[i], v) < 0) {
			json_decref(kept);
			return NULL;
		}
	}
	return kept;
}

/* The launch in a child: its error through a pipe, as a whole struct
 * (the child's memory is a copy of ours: the same layout). */
static int run_in_child(const struct jail_spec *spec, const struct launch_opts *o,
			struct cell_err *e)
{
	int p[2], child_status;
	char who[JAIL_NAME_MAX + 32];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return cell_err_set(e, errno, "jail %s: pipe", spec->name);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return cell_err_set(e, errno, "jail %s: fork", spec->name);
	}
	if (pid == 0) {
		struct cell_err ce;

		close(p[0]);
		cell_err_clear(&ce);
		if (jail_run(spec, o, &child_status, &ce) == 0)
			_exit(0);
		proc_worker_fail(p[1], &ce);
	}
	close(p[1]);
	snprintf(who, sizeof(who), "jail %s: its launcher", spec->name);
	return proc_worker_wait(pid, p[0], who, e);
}

int jail_run_apart(const struct jail_spec *spec, const struct launch_opts *o, int *status,
		   struct cell_err *e)
{
	/* Root, or already root of a namespace it was given (under
	 * rootless podman): no namespace of the launch's own to keep apart. */
	if (!o->detach || !rootless() || rootless_mapping() == ROOTLESS_INHERITED)
		return jail_run(spec, o, status, e);
	*status = -1;
	if (run_in_child(spec, o, e) < 0)
		return -1;
	*status = 0;
	return 0;
}

/* J is open, locked and stopped: its launch takes its directory over. */
static int start_locked(const char *state_root, struct jail *j, struct cell_err *e)
{
	struct jail_spec s;
	json_t *kept;
	int status, ret = -1;

	if (j->state == NULL)
		return cell_err_set(e, 0, "jail %s: no record to start it from", j->dir.name);
	/* cell-oci's containers are started by cell-oci, from their bundle. */
	if (json_object_get(j->state, "oci") != NULL)
		return cell_err_set(e, 0, "jail %s: an OCI container (cell-oci create it again)",
				    j->dir.name);
	spec_init(&s);
	kept = kept_of(j->state);
	if (kept == NULL) {
		cell_err_set(e, ENOMEM, "jail %s", j->dir.name);
	} else if (spec_of_record(j, &s, e) == 0) {
		struct launch_opts o = {
			.state_root = state_root,
			.detach = true,
			.reuse = j,
			.record_extra = kept,
		};

		ret = jail_run_apart(&s, &o, &status, e);
		/* The launch names the jail in its own errors but not in
		 * those about a parameter (its root gone since the last
		 * start...): the front door spells the parameter. */
		if (ret < 0 && e->about.param != CELL_ERR_NO_PARAM)
			cell_err_prefix(e, "jail %s", j->dir.name);
	}
	json_decref(kept);
	spec_free(&s);
	return ret;
}

/* Opens NAME, which must exist; the root is never made here. */
static int open_named(const char *state_root, const char *name, int *rootfd, struct jail *j,
		      struct cell_err *e)
{
	if (store_open_root_existing(state_root, rootfd, e) < 0)
		return -1;
	if (*rootfd < 0)
		return no_root(name, e);
	if (jail_open_existing(*rootfd, name, j, e) < 0) {
		close(*rootfd);
		*rootfd = -1;
		return -1;
	}
	return 0;
}

int jail_start_stopped(const char *state_root, const char *name, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	struct jail j;
	int ret;

	if (open_named(state_root, name, &rootfd, &j, e) < 0)
		return -1;
	if (j.running) {
		cell_err_set(e, 0, "jail %s: already running", name);
		e->errnum = EBUSY;
		ret = -1;
	} else {
		ret = start_locked(state_root, &j, e);
	}
	jail_close(&j);
	return ret;
}

int jail_restart(const char *state_root, const char *name, int timeout, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	struct jail j;
	int ret;

	if (open_named(state_root, name, &rootfd, &j, e) < 0)
		return -1;
	ret = jail_stop(rootfd, &j, timeout, e);
	if (ret == 0)
		ret = start_locked(state_root, &j, e);
	jail_close(&j);
	return ret;
}

/* Until the pidfd says its process has ended. */
static void wait_pidfd(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

int jail_wait(const char *state_root, const char *name, int *status, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	cleanup_close int pidfd = -1;
	struct jail j;

	*status = -1;
	/* The lock only to look: held while waiting, it would keep stop,
	 * exec and set from the jail. */
	if (open_named(state_root, name, &rootfd, &j, e) < 0)
		return -1;
	if (!j.running) {
		*status = j.exit_status;
		jail_close(&j);
		return 0;
	}
	pidfd = j.pidfd;
	j.pidfd = -1;
	jail_close(&j);
	wait_pidfd(pidfd);
	/* Opened again, it is released and its status read (the reaper's
	 * exit file).  Gone meanwhile (--rm): its status went with it. */
	if (jail_open(rootfd, name, &j, e) < 0)
		return e->errnum == ENOENT ? 0 : -1;
	*status = j.running ? -1 : j.exit_status;
	jail_close(&j);
	return 0;
}
