/*
 * set.c - `cell set`: changing a running jail (FreeBSD's jail -m).
 *
 * The new values are parsed and checked first, and so is every process's
 * permission for its new rlimits (a hard limit lowered cannot be raised
 * back without CAP_SYS_RESOURCE, so that step cannot be undone: it comes
 * last, once it cannot fail).  Then: the cgroups of limits the jail did
 * not start with (recorded, made, the jail's processes moved in), cgroup
 * limits, the hostname and domainname (one step, in the jail's UTS
 * namespace), rlimits and nice values, the record.  A failure undoes the
 * steps before it, so that a set changes everything it names or nothing.
 */
#include "set.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "testpoint.h"
#include "jail.h"
#include "param.h"
#include "record.h"
#include "rlimit.h"
#include "spec.h"
#include "store.h"

void jail_change_init(struct jail_change *c)
{
	c->params = 0;
	spec_init(&c->values);
}

void jail_change_free(struct jail_change *c)
{
	spec_free(&c->values);
	c->params = 0;
}

/* The pids of the jail's processes: those in its pid namespace. */
static int jail_pids(pid_t pid1, pid_t **out, size_t *n, struct cell_err *e)
{
	char path[64];
	struct stat ns, st;
	struct dirent *de;
	size_t cap = 0;
	DIR *d;

	*out = NULL;
	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid1);
	if (stat(path, &ns) < 0)
		return cell_err_set(e, errno, "%s", path);
	d = opendir("/proc");
	if (d == NULL)
		return cell_err_set(e, errno, "/proc");
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(de->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
		if (stat(path, &st) < 0 || st.st_ino != ns.st_ino || st.st_dev != ns.st_dev)
			continue;
		if (*n == cap) {
			pid_t *np = realloc(*out, (cap = cap * 2 + 16) * sizeof(pid_t));

			if (np == NULL) {
				closedir(d);
				free(*out);
				*out = NULL;
				return cell_err_set(e, ENOMEM, "list the jail's processes");
			}
			*out = np;
		}
		(*out)[(*n)++] = pid;
	}
	closedir(d);
	return 0;
}

/* The nice value of every thread of PID. */
static int set_nice(pid_t pid, int nice, struct cell_err *e)
{
	char path[64];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (d == NULL)
		return errno == ENOENT ? 0 : cell_err_set(e, errno, "%s", path);
	while ((de = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid > 0 && setpriority(PRIO_PROCESS, (id_t)tid, nice) < 0 && errno != ESRCH) {
			closedir(d);
			return cell_err_set(e, errno, "nice = %d: thread %d", nice, (int)tid);
		}
	}
	closedir(d);
	return 0;
}

/* The policy's floor moves with the start value: the jail can never go
 * below the nice value set here (RLIMIT_NICE, lowered only). */
static int nice_floor(pid_t pid, int nice, bool dry_run, struct cell_err *e)
{
	struct rlimit cur, r = {(rlim_t)(20 - nice), (rlim_t)(20 - nice)};

	if (prlimit(pid, RLIMIT_NICE, NULL, &cur) < 0)
		return errno == ESRCH ? 0 : cell_err_set(e, errno, "nice: pid %d", (int)pid);
	if (cur.rlim_max <= r.rlim_max)
		r = cur; /* already at or below: kept */
	if (dry_run)
		r = cur; /* a write of its own value tests the permission */
	if (prlimit(pid, RLIMIT_NICE, &r, NULL) < 0 && errno != ESRCH)
		return cell_err_set(e, errno, "nice = %d: pid %d", nice, (int)pid);
	return 0;
}

/* Sets the hostname and domainname in the jail's UTS namespace, from a
 * child of ours that joins it; both or neither. */
static int set_uts(int pidfd, const char *host, const char *domain, struct cell_err *e)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return cell_err_set(e, errno, "fork");
	if (pid == 0) {
		char old[65] = "";

		struct stat own, joined;

		/* Only ever in a UTS namespace that is not cell's own. */
		if (stat("/proc/self/ns/uts", &own) < 0 || setns(pidfd, CLONE_NEWUTS) < 0 ||
		    stat("/proc/self/ns/uts", &joined) < 0 ||
		    (joined.st_ino == own.st_ino && joined.st_dev == own.st_dev))
			_exit(10);
		if (host != NULL) {
			if (gethostname(old, sizeof(old)) < 0)
				_exit(11);
			if (sethostname(host, strlen(host)) < 0)
				_exit(12);
		}
		if (domain != NULL && setdomainname(domain, strlen(domain)) < 0) {
			if (host != NULL)
				sethostname(old, strlen(old));
			_exit(13);
		}
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return cell_err_set(e, errno, "wait");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return cell_err_set(e, 0, "set the hostname in the jail's UTS namespace (step %d)",
				    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

static bool limits_equal_rlimits(const struct jail_limits *a, const struct jail_limits *b)
{
	return a->cpu_time == b->cpu_time && a->memlock == b->memlock && a->data == b->data &&
	       a->nofile == b->nofile;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Undoes grow_cgroups(): the processes back, the cgroups removed, the
 * record as it was. */
static void ungrow_cgroups(struct jail *j, struct cgroup *cg, struct cgroup_growth *g)
{
	struct cell_err ignored;
	bool made = g->made != 0;

	cgroup_grow_undo(cg, g);
	if (made)
		store_jail_write(&j->dir, j->state, &ignored);
}

/* The most walks of the pid namespace update_all() and adopt_all() make. */
#define SET_WALKS 64

/*
 * Moves every process of the jail into the cgroups G made, walking its
 * pid namespace until a walk finds none outside: a process forked from
 * one not yet moved starts outside, one forked from a moved one inside.
 */
static int adopt_all(const struct cgroup *cg, const struct cgroup_growth *g, pid_t pid1,
		     struct cell_err *e)
{
	if ((g->made | g->resumed) == 0)
		return 0;
	for (int walk = 0; walk < SET_WALKS; walk++) {
		cleanup_free pid_t *pids = NULL;
		size_t n = 0;
		int moved;

		if (jail_pids(pid1, &pids, &n, e) < 0)
			return -1;
		if (walk == 0)
			testpoint_pause("set:adopting");
		moved = cgroup_grow_adopt(cg, g, pids, n, e);
		if (moved <= 0)
			return moved;
	}
	return cell_err_set(e, EAGAIN,
			    "the jail forks new processes faster than they can be moved");
}

/*
 * prlimit(2) on another process needs its ids, or CAP_SYS_RESOURCE over
 * its user namespace.  A jail's processes have ids of the jail's range,
 * and cell may lack CAP_SYS_RESOURCE (a host's root can); but the owner
 * of a user namespace (idrange.h: the range's first uid) holds every
 * capability in it.  So cell takes the owner's uid as its effective one
 * around the calls: its real and saved uids stay 0, and its capabilities
 * come back with euid 0.  OWNER 0: the host's ids (--userns host), where
 * cell's own ids match.
 */
static int as_owner(uid_t owner, struct cell_err *e)
{
	if (owner != 0 && setresuid((uid_t)-1, owner, (uid_t)-1) < 0)
		return cell_err_set(e, errno,
				    "act as the owner (uid %u) of the jail's user namespace",
				    (unsigned int)owner);
	return 0;
}

static int as_root(uid_t owner, struct cell_err *e)
{
	if (owner != 0 && setresuid((uid_t)-1, 0, (uid_t)-1) < 0)
		return cell_err_set(e, errno, "become root again");
	return 0;
}

/* The owner of jail J's user namespace: 0 for the host's. */
static int userns_owner(const struct jail *j, uid_t *owner, struct cell_err *e)
{
	char path[64];
	cleanup_close int fd = -1;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)j->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	/* Checked against the pidfd afterwards: the pid was not reused. */
	if (fd < 0 || ioctl(fd, NS_GET_OWNER_UID, owner) < 0 ||
	    syscall(SYS_pidfd_send_signal, j->pidfd, 0, NULL, 0) < 0)
		return cell_err_set(e, errno, "jail %s: its user namespace", j->dir.name);
	return 0;
}

/* PID's new rlimits (and RLIMIT_NICE floor) as OWNER; DRY_RUN checks. */
static int rlimits_pid(pid_t pid, uid_t owner, const struct jail_spec *old,
		       const struct jail_spec *want, bool nice_changed, bool dry_run,
		       struct cell_err *e)
{
	struct cell_err ignored;
	int ret = 0;

	if (as_owner(owner, e) < 0)
		return -1;
	if (rlimit_update_pid(pid, &old->limits, &want->limits, dry_run, e) < 0 ||
	    (nice_changed && want->policy &&
	     nice_floor(pid, (int)want->limits.nice, dry_run, e) < 0))
		ret = -1;
	if (as_root(owner, ret == 0 ? e : &ignored) < 0)
		ret = -1;
	return ret;
}

static int update_pid(pid_t pid, uid_t owner, const struct jail_spec *old,
		      const struct jail_spec *want, bool nice_changed, struct cell_err *e)
{
	/* The nice value as root: a value below the jail's RLIMIT_NICE
	 * needs CAP_SYS_NICE in the host's user namespace. */
	if (rlimits_pid(pid, owner, old, want, nice_changed, false, e) < 0 ||
	    (nice_changed && set_nice(pid, (int)want->limits.nice, e) < 0))
		return -1;
	return 0;
}

/*
 * Applies the new rlimits and nice value to *PIDS, then walks the jail's
 * pid namespace again for the processes that the last walk missed: a
 * process forked from one not yet changed has the old values.  A walk
 * that finds none ends it; a jail that forks new processes faster than
 * that for SET_WALKS walks is an error.  *PIDS grows to every pid seen.
 */
static int update_all(pid_t pid1, uid_t owner, pid_t **pids, size_t *npids,
		      const struct jail_spec *old, const struct jail_spec *want, bool nice_changed,
		      struct cell_err *e)
{
	for (size_t i = 0; i < *npids; i++)
		if (update_pid((*pids)[i], owner, old, want, nice_changed, e) < 0)
			return -1;
	for (int walk = 0; walk < SET_WALKS; walk++) {
		pid_t *now = NULL;
		size_t nnow = 0, seen = *npids;

		qsort(*pids, seen, sizeof(pid_t), cmp_pid);
		if (jail_pids(pid1, &now, &nnow, e) < 0)
			return -1;
		for (size_t i = 0; i < nnow; i++) {
			pid_t *grown;

			if (bsearch(&now[i], *pids, seen, sizeof(pid_t), cmp_pid) != NULL)
				continue;
			if (update_pid(now[i], owner, old, want, nice_changed, e) < 0) {
				free(now);
				return -1;
			}
			grown = realloc(*pids, (*npids + 1) * sizeof(pid_t));
			if (grown == NULL) {
				free(now);
				return cell_err_set(e, ENOMEM, "list the jail's processes");
			}
			*pids = grown;
			(*pids)[(*npids)++] = now[i];
		}
		free(now);
		if (*npids == seen)
			return 0;
	}
	return cell_err_set(e, EAGAIN,
			    "the jail forks new processes faster than they can be changed");
}

/*
 * The cgroups of limits the jail did not start with: named and recorded
 * before they exist (a cell killed from here on leaves a record naming
 * what to remove when the jail ends), made, and the jail moved in.
 */
static int grow_cgroups(struct jail *j, const char *state_root, const char *name, struct cgroup *cg,
			const struct jail_spec *old_spec, const struct jail_limits *want,
			struct cgroup_growth *g, struct cell_err *e)
{
	const struct jail_limits *old = &old_spec->limits;
	const char *cgparent = old_spec->cgroup_parent;
	json_t *rec;

	if (cgroup_grow_plan(cg, old, want, cgparent, j->pid, state_root, name, g, e) < 0)
		return -1;
	if (g->made == 0) {
		if ((g->enabled != 0 && cgroup_grow_make(cg, want, g, e) < 0) ||
		    adopt_all(cg, g, j->pid, e) < 0) {
			ungrow_cgroups(j, cg, g);
			return -1;
		}
		return 0;
	}
	rec = json_deep_copy(j->state);
	if (rec == NULL || json_object_set_new(rec, "cgroup", cgroup_to_json(cg)) < 0) {
		cell_err_set(e, ENOMEM, "record the cgroups");
		goto fail;
	}
	if (store_jail_write(&j->dir, rec, e) < 0)
		goto fail;
	testpoint_pause("set:recorded");
	if (cgroup_grow_make(cg, want, g, e) < 0 || adopt_all(cg, g, j->pid, e) < 0)
		goto fail;
	json_decref(rec);
	return 0;
fail:
	json_decref(rec);
	ungrow_cgroups(j, cg, g);
	return -1;
}

/* WANT: the jail's spec OLD with the change C; a parameter fixed at the
 * start must keep its value. */
static int apply_change(const struct jail_spec *old, struct jail_spec *want,
			const struct jail_change *c, struct cell_err *e)
{
	for (int id = 0; id < PARAM_COUNT; id++) {
		const struct param *p = param_get(id);

		if (!jail_change_has(c, id))
			continue;
		if (param_copy(p, want, &c->values, e) < 0)
			return -1;
		if (!p->live && !param_equal(p, old, want))
			return cell_err_param(e, id, 0, 0, "cannot be changed in a running jail");
	}
	return spec_check(want, e);
}

/* The new value of a text parameter ID when it changes, else NULL. */
static const char *changed(int id, const struct jail_spec *old, const struct jail_spec *want)
{
	const struct param *p = param_get(id);

	return param_equal(p, old, want) ? NULL : *p->str((struct jail_spec *)want);
}

int jail_set(const char *state_root, const char *name, const struct jail_change *c,
	     struct cell_err *e)
{
	struct jail_spec old, want;
	struct jail j = {.pidfd = -1, .dir = {.dirfd = -1}};
	struct cgroup cg;
	struct cgroup_growth growth;
	struct jail_limits base;
	size_t npids = 0;
	pid_t *pids = NULL;
	const char *host, *domain;
	struct cell_err ignored;
	bool opened = false, nice_changed;
	uid_t owner = 0;
	int rootfd = -1, ret = -1;

	spec_init(&old);
	spec_init(&want);
	cgroup_init(&cg);
	cgroup_growth_init(&growth);
	if (store_open_root(state_root, &rootfd, e) < 0)
		return -1;
	if (jail_open_existing(rootfd, name, &j, e) < 0)
		goto out;
	opened = true;
	if (!j.running) {
		cell_err_set(e, 0, "jail %s: is not running", name);
		goto out;
	}
	if (record_spec(j.state, &old, e) < 0 || record_spec(j.state, &want, e) < 0 ||
	    cgroup_from_json(&cg, json_object_get(j.state, "cgroup"), e) < 0) {
		cell_err_prefix(e, "jail %s", name);
		goto out;
	}
	/* Every value checked before anything changes. */
	if (apply_change(&old, &want, c, e) < 0)
		goto out;
	host = changed(PARAM_HOSTNAME, &old, &want);
	domain = changed(PARAM_DOMAINNAME, &old, &want);
	if (want.limits.cpus_milli != old.limits.cpus_milli &&
	    cgroup_check_cpus(want.limits.cpus_milli, e) < 0) {
		cell_err_prefix(e, "jail %s", name);
		goto out;
	}
	nice_changed = want.limits.has_nice &&
		       (!old.limits.has_nice || old.limits.nice != want.limits.nice);
	if (!limits_equal_rlimits(&old.limits, &want.limits) || nice_changed) {
		if (userns_owner(&j, &owner, e) < 0 || jail_pids(j.pid, &pids, &npids, e) < 0)
			goto out;
		testpoint_pause("set:listed");
		/* Checked in every process before any changes: a lowered
		 * hard limit cannot be raised back. */
		for (size_t i = 0; i < npids; i++)
			if (rlimits_pid(pids[i], owner, &old, &want, nice_changed, true, e) < 0) {
				cell_err_prefix(e, "nothing changed");
				goto out;
			}
	}
	/* The steps that can be undone first. */
	if (grow_cgroups(&j, state_root, name, &cg, &old, &want.limits, &growth, e) < 0) {
		cell_err_prefix(e, "nothing changed");
		goto out;
	}
	/* The new cgroups have their limits: only the others change now. */
	base = cgroup_grown_limits(&growth, &old.limits, &want.limits);
	if (cgroup_update(&cg, &base, &want.limits, e) < 0) {
		ungrow_cgroups(&j, &cg, &growth);
		cell_err_prefix(e, "nothing changed");
		goto out;
	}
	if ((testpoint_fail("set:uts") &&
	     cell_err_set(e, EIO, "set the hostname (test failure)")) ||
	    ((host != NULL || domain != NULL) && set_uts(j.pidfd, host, domain, e) < 0)) {
		cgroup_update(&cg, &want.limits, &base, &ignored);
		ungrow_cgroups(&j, &cg, &growth);
		cell_err_prefix(e, "nothing changed");
		goto out;
	}
	if (npids > 0 &&
	    update_all(j.pid, owner, &pids, &npids, &old, &want, nice_changed, e) < 0) {
		cell_err_prefix(e, "partly applied");
		goto out;
	}
	if (record_put_spec(j.state, &want, e) < 0)
		goto out;
	if (growth.made != 0)
		json_object_set_new(j.state, "cgroup", cgroup_to_json(&cg));
	if (store_jail_write(&j.dir, j.state, e) < 0)
		goto out;
	ret = 0;
out:
	free(pids);
	cgroup_growth_free(&growth);
	cgroup_release(&cg);
	spec_free(&old);
	spec_free(&want);
	if (opened)
		jail_close(&j);
	close(rootfd);
	return ret;
}
