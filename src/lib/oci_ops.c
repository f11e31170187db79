/*
 * oci_ops.c - the OCI lifecycle's operations on a container: start,
 * kill, delete, pause, resume, update, and the runtime's own hooks.
 * See oci_ops.h.
 *
 * Each operation but start holds the container's jail locked (jail.h)
 * from its status check to its act, so that two engines' commands on one
 * container are serialized.  Start leaves the lock to jail_start().
 */
#include "oci_ops.h"

#include "hooks.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "jail.h"
#include "launch.h"
#include "ns.h"
#include "oci_state.h"
#include "store.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* A container opened for one operation: its jail locked. */
struct container {
	int rootfd;
	struct jail j;
	enum oci_status st;
};

static int no_container(const char *id, struct cell_err *e)
{
	cell_err_set(e, 0, "container %s: container does not exist", id);
	e->errnum = ENOENT;
	return -1;
}

static int open_container(const char *root, const char *id, struct container *c, struct cell_err *e)
{
	memset(c, 0, sizeof(*c));
	c->rootfd = -1;
	c->j.pidfd = -1;
	c->j.dir.dirfd = -1;
	if (!oci_valid_id(id))
		return no_container(id, e);
	if (store_open_root_existing(root, &c->rootfd, e) < 0)
		return -1;
	if (c->rootfd < 0)
		return no_container(id, e);
	if (jail_open_existing(c->rootfd, id, &c->j, e) < 0) {
		close(c->rootfd);
		c->rootfd = -1;
		return e->errnum == ENOENT ? no_container(id, e) : -1;
	}
	/* A jail of the root that cell-oci did not make is no container. */
	if (oci_record_oci(c->j.state) == NULL) {
		jail_close(&c->j);
		close(c->rootfd);
		c->rootfd = -1;
		return no_container(id, e);
	}
	c->st = oci_record_status(c->j.state, NULL);
	return 0;
}

static void close_container(struct container *c)
{
	if (c->j.dir.dirfd >= 0)
		jail_close(&c->j);
	if (c->rootfd >= 0)
		close(c->rootfd);
	c->rootfd = -1;
}

/* --- hooks ------------------------------------------------------------ */

void oci_hooks_warn(const struct jail_spec *s, enum jail_hook_point point, const char *state,
		    struct cell_err *warn)
{
	const char *what = hooks_point_name(point);

	for (size_t i = 0; i < s->mech.nhooks[point]; i++) {
		struct cell_err e;

		if (hooks_run(&s->mech.hooks[point][i], 1, point, state, -1, &e) == 0 ||
		    warn->msg[0] != '\0')
			continue;
		*warn = e;
		cell_err_prefix(warn, "%s", what);
	}
}

/* --- the operations ---------------------------------------------------- */

/* The state of a record as hooks and the exec fifo read it. */
static int state_text(const char *id, const json_t *rec, char **text, struct cell_err *e)
{
	*text = oci_state_text(id, rec);
	if (*text == NULL)
		return cell_err_set(e, ENOMEM, "container %s: state", id);
	return 0;
}

static int refuse_start(const char *id, enum oci_status st, struct cell_err *e)
{
	if (st == OCI_STOPPED)
		return cell_err_set(e, 0, "container %s: cannot start a container that has stopped",
				    id);
	if (st == OCI_CREATING)
		return cell_err_set(e, 0, "container %s: cannot start a container being created",
				    id);
	return cell_err_set(e, 0, "container %s: cannot start an already running container", id);
}

int oci_start(const char *root, const char *id, struct cell_err *warn, struct cell_err *e)
{
	struct jail_spec s;
	struct container c;
	cleanup_free char *created = NULL, *running = NULL;
	json_t *rec = NULL;
	int ret = -1;

	cell_err_clear(warn);
	spec_init(&s);
	if (open_container(root, id, &c, e) < 0)
		return -1;
	/* Its hooks and state now; the lock goes to jail_start(). */
	if (c.st != OCI_CREATED)
		refuse_start(id, c.st, e);
	else if (oci_record_spec(c.j.state, id, &s, e) == 0 &&
		 state_text(id, c.j.state, &created, e) == 0)
		ret = 0;
	close_container(&c);
	if (ret < 0 || jail_start(root, id, created, e) < 0)
		goto out;
	if (oci_state_get(root, id, &rec, e) < 0) /* now "running", or gone */
		goto out;
	json_object_set_new(rec, "status", json_string("running"));
	running = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (running == NULL) {
		cell_err_set(e, ENOMEM, "container %s: state", id);
		goto out;
	}
	oci_hooks_warn(&s, JAIL_HOOK_POSTSTART, running, warn);
	ret = 0;
out:
	json_decref(rec);
	spec_free(&s);
	return ret < 0 ? -1 : 0;
}

/* kill --all: every process of the container's cgroups (frozen
 * meanwhile, so that none can end and be reused, or fork a child that
 * misses the signal; a paused container stays paused). */
static void signal_all(const struct container *c, int sig)
{
	struct cgroup cg;
	struct cell_err ignored;

	if (cgroup_from_json(&cg, json_object_get(c->j.state, "cgroup"), &ignored) == 0 &&
	    cg.layout != CGROUP_NONE)
		cgroup_signal(&cg, sig, &ignored);
	cgroup_release(&cg);
}

int oci_kill(const char *root, const char *id, int sig, bool all, struct cell_err *e)
{
	struct container c;
	int ret = 0;

	if (open_container(root, id, &c, e) < 0)
		return -1;
	if (c.st == OCI_STOPPED || c.st == OCI_CREATING) {
		ret = cell_err_set(e, 0, "container %s: container not running", id);
	} else if (syscall(SYS_pidfd_send_signal, c.j.pidfd, sig, NULL, 0) < 0 && errno != ESRCH) {
		ret = cell_err_set(e, errno, "container %s: signal %d", id, sig);
	} else if (all) {
		signal_all(&c, sig);
	}
	close_container(&c);
	return ret;
}

int oci_delete(const char *root, const char *id, bool force, struct cell_err *warn,
	       struct cell_err *e)
{
	struct jail_spec s;
	struct container c;
	cleanup_free char *stopped = NULL;
	struct cell_err ignored;
	bool hooks;
	json_t *st;
	int ret = -1;

	cell_err_clear(warn);
	spec_init(&s);
	if (open_container(root, id, &c, e) < 0)
		return -1;
	if ((c.st == OCI_RUNNING || c.st == OCI_PAUSED || c.st == OCI_CREATING) && !force) {
		/* runc's words, which engines match: no strerror after them. */
		cell_err_set(e, 0,
			     "container %s: cannot delete container %s that is not stopped: %s", id,
			     id, oci_status_name(c.st));
		e->errnum = EBUSY;
		goto out;
	}
	/* Its poststop hooks from its record, before the record goes; a
	 * record whose config no longer parses still goes. */
	hooks = oci_record_spec(c.j.state, id, &s, &ignored) == 0;
	/* A created container is killed (runtime spec: delete of a created
	 * container); -f kills a running one. */
	if (jail_remove(c.rootfd, &c.j, true, e) < 0)
		goto out;
	ret = 0;
	st = oci_state_json(id, c.j.state, false);
	if (st != NULL) {
		json_object_set_new(st, "status", json_string("stopped"));
		json_object_set_new(st, "pid", json_integer(0));
		stopped = json_dumps(st, JSON_COMPACT | JSON_PRESERVE_ORDER);
		json_decref(st);
	}
	if (hooks && stopped != NULL)
		oci_hooks_warn(&s, JAIL_HOOK_POSTSTOP, stopped, warn);
out:
	close_container(&c);
	spec_free(&s);
	return ret;
}

/* The container's cgroups, from its record: none is an error. */
static int container_cgroup(const struct container *c, const char *id, struct cgroup *cg,
			    struct cell_err *e)
{
	if (cgroup_from_json(cg, json_object_get(c->j.state, "cgroup"), e) < 0)
		return cell_err_prefix(e, "container %s", id);
	if (cg->layout == CGROUP_NONE)
		return cell_err_set(e, 0, "container %s: has no cgroups", id);
	return 0;
}

/* pause (FREEZE) or resume: the freezer of a running, or a paused,
 * container; runc's words for the other states. */
static int freezer(const char *root, const char *id, bool freeze, struct cell_err *e)
{
	struct container c;
	struct cgroup cg;
	int ret = -1;

	cgroup_init(&cg);
	if (open_container(root, id, &c, e) < 0)
		return -1;
	if (freeze && c.st == OCI_PAUSED)
		cell_err_set(e, 0, "container %s: container already paused", id);
	else if (freeze && c.st != OCI_RUNNING)
		cell_err_set(e, 0, "container %s: container not running", id);
	else if (!freeze && c.st != OCI_PAUSED)
		cell_err_set(e, 0, "container %s: container not paused", id);
	else if (container_cgroup(&c, id, &cg, e) == 0 &&
		 (freeze ? cgroup_freeze(&cg, e) : cgroup_thaw(&cg, e)) == 0)
		ret = 0;
	else
		cell_err_prefix(e, "container %s: %s", id, freeze ? "pause" : "resume");
	cgroup_release(&cg);
	close_container(&c);
	return ret;
}

int oci_pause(const char *root, const char *id, struct cell_err *e)
{
	return freezer(root, id, true, e);
}

int oci_resume(const char *root, const char *id, struct cell_err *e)
{
	return freezer(root, id, false, e);
}

int oci_update(const char *root, const char *id, const struct jail_limits *l,
	       const struct jail_resources *r, struct cell_err *e)
{
	struct container c;
	struct cgroup cg;
	int ret = -1;

	cgroup_init(&cg);
	if (open_container(root, id, &c, e) < 0)
		return -1;
	if (c.st == OCI_STOPPED || c.st == OCI_CREATING)
		cell_err_set(e, 0, "container %s: container not running", id);
	else if (container_cgroup(&c, id, &cg, e) == 0 &&
		 cgroup_update_resources(&cg, l, r, e) == 0)
		ret = 0;
	else
		cell_err_prefix(e, "container %s: update", id);
	cgroup_release(&cg);
	close_container(&c);
	return ret;
}
