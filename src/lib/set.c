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
 * Those steps run in a worker born in the jail's pid namespace
 * (run_in_jail()): every pid they name is the jail's.  Its prlimit()s
 * run as the owner of the jail's user namespace (as_owner()).
 */
#include "set.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "testpoint.h"
#include "jail.h"
#include "net.h"
#include "netaddr.h"
#include "param.h"
#include "proc.h"
#include "record.h"
#include "rlimit.h"
#include "spec.h"
#include "store.h"

void jail_change_init(struct jail_change *c)
{
	c->params = c->add = c->del = 0;
	spec_init(&c->values);
}

int jail_change_mark(struct jail_change *c, int id, char op, struct cell_err *e)
{
	const struct param *p = param_get(id);
	uint64_t bits = (uint64_t)1 << id;

	if (op != '=' && p->type != PARAM_LIST)
		return cell_err_param(e, id, 0, 0, "%c= is for lists", op);
	if (op != '=' && (id == PARAM_IP4 || id == PARAM_IP6))
		bits = ((uint64_t)1 << PARAM_IP4) | ((uint64_t)1 << PARAM_IP6);
	c->params |= bits;
	if (op == '+')
		c->add |= bits;
	else if (op == '-')
		c->del |= bits;
	return 0;
}

void jail_change_free(struct jail_change *c)
{
	spec_free(&c->values);
	c->params = 0;
}

/*
 * The jail's own procfs, opened by the worker that stands in the jail's
 * pid namespace (run_in_jail()): the pids it lists are the worker's pids
 * too, those that prlimit(), setpriority() and a write to cgroup.procs
 * take.  Checked: a procfs whose "self" is the worker.
 */
static int open_jail_proc(pid_t host_pid1, struct cell_err *e)
{
	char path[64], self[32];
	struct statfs fs;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root/proc", (int)host_pid1);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return cell_err_set(e, errno, "open the jail's /proc");
	n = readlinkat(fd, "self", self, sizeof(self) - 1);
	if (fstatfs(fd, &fs) < 0 || fs.f_type != PROC_SUPER_MAGIC || n <= 0 ||
	    (self[n] = '\0', atoi(self) != (int)getpid())) {
		close(fd);
		return cell_err_set(e, EINVAL, "the jail's /proc is not its pid namespace's proc");
	}
	return fd;
}

/* A zombie forks no more and takes no limit (a write of its pid to
 * cgroup.procs is taken and does nothing): left out.  The state is the
 * field after the command, which ends at the last ')'. */
static bool is_zombie(int proc, pid_t pid)
{
	char path[32], buf[512];
	const char *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%d/stat", (int)pid);
	fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true; /* gone */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren != NULL && paren[1] == ' ' && paren[2] == 'Z';
}

/* The pids of the jail's processes, as its own procfs PROC lists them:
 * those in its pid namespace (the namespace of its pid 1). */
static int jail_pids(int proc, pid_t **out, size_t *n, struct cell_err *e)
{
	char path[64];
	struct stat ns, st;
	struct dirent *de;
	size_t cap = 0;
	pid_t self = getpid();
	int dfd;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (fstatat(proc, "1/ns/pid", &ns, 0) < 0)
		return cell_err_set(e, errno, "the jail's /proc/1/ns/pid");
	dfd = openat(proc, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (d == NULL) {
		if (dfd >= 0)
			close(dfd);
		return cell_err_set(e, errno, "list the jail's /proc");
	}
	while ((de = readdir(d)) != NULL) {
		pid_t pid = (pid_t)atoi(de->d_name);

		/* The worker itself stands in the namespace too: no process
		 * of the jail's. */
		if (pid <= 0 || pid == self)
			continue;
		snprintf(path, sizeof(path), "%d/ns/pid", (int)pid);
		if (fstatat(proc, path, &st, 0) < 0 || st.st_ino != ns.st_ino ||
		    st.st_dev != ns.st_dev || is_zombie(proc, pid))
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

/* The nice value of every thread of PID (in the jail's procfs PROC). */
static int set_nice(int proc, pid_t pid, int nice, struct cell_err *e)
{
	char path[64];
	struct dirent *de;
	int dfd;
	DIR *d;

	snprintf(path, sizeof(path), "%d/task", (int)pid);
	dfd = openat(proc, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (d == NULL) {
		int err = errno;

		if (dfd >= 0)
			close(dfd);
		return err == ENOENT ? 0 : cell_err_set(e, err, "the jail's /proc/%s", path);
	}
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
static int adopt_all(const struct cgroup *cg, const struct cgroup_growth *g, int proc,
		     struct cell_err *e)
{
	if ((g->made | g->resumed) == 0)
		return 0;
	for (int walk = 0; walk < SET_WALKS; walk++) {
		cleanup_free pid_t *pids = NULL;
		size_t n = 0;
		int moved;

		if (jail_pids(proc, &pids, &n, e) < 0)
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
 * capability in it.  So the worker takes the owner's uid as its
 * effective one around the calls: its real and saved uids stay 0, and
 * euid 0 brings its capabilities back.  OWNER 0: the host's ids
 * (--userns host), which are the worker's own.
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
	if (owner == 0)
		return 0;
	if (setresuid((uid_t)-1, 0, (uid_t)-1) < 0)
		return cell_err_set(e, errno, "become root again");
	/* A change of ids clears the parent-death signal. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		return cell_err_set(e, errno, "set the parent-death signal again");
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

static int update_pid(int proc, pid_t pid, uid_t owner, const struct jail_spec *old,
		      const struct jail_spec *want, bool nice_changed, struct cell_err *e)
{
	/* The nice value as root: a value below the jail's RLIMIT_NICE
	 * needs CAP_SYS_NICE in the host's user namespace. */
	if (rlimits_pid(pid, owner, old, want, nice_changed, false, e) < 0 ||
	    (nice_changed && set_nice(proc, pid, (int)want->limits.nice, e) < 0))
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
static int update_all(int proc, uid_t owner, pid_t **pids, size_t *npids,
		      const struct jail_spec *old, const struct jail_spec *want, bool nice_changed,
		      struct cell_err *e)
{
	for (size_t i = 0; i < *npids; i++)
		if (update_pid(proc, (*pids)[i], owner, old, want, nice_changed, e) < 0)
			return -1;
	for (int walk = 0; walk < SET_WALKS; walk++) {
		pid_t *now = NULL;
		size_t nnow = 0, seen = *npids;

		qsort(*pids, seen, sizeof(pid_t), cmp_pid);
		if (jail_pids(proc, &now, &nnow, e) < 0)
			return -1;
		for (size_t i = 0; i < nnow; i++) {
			pid_t *grown;

			if (bsearch(&now[i], *pids, seen, sizeof(pid_t), cmp_pid) != NULL)
				continue;
			if (update_pid(proc, now[i], owner, old, want, nice_changed, e) < 0) {
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
static int grow_cgroups(struct jail *j, int proc, const char *state_root, const char *name,
			struct cgroup *cg, const struct jail_spec *old_spec,
			const struct jail_limits *want, struct cgroup_growth *g, struct cell_err *e)
{
	const struct jail_limits *old = &old_spec->limits;
	const char *cgparent = old_spec->cgroup_parent;
	json_t *rec;

	if (cgroup_grow_plan(cg, old, want, cgparent, j->pid, state_root, name, g, e) < 0)
		return -1;
	if (g->made == 0) {
		if ((g->enabled != 0 && cgroup_grow_make(cg, want, g, e) < 0) ||
		    adopt_all(cg, g, proc, e) < 0) {
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
	if (cgroup_grow_make(cg, want, g, e) < 0 || adopt_all(cg, g, proc, e) < 0)
		goto fail;
	json_decref(rec);
	return 0;
fail:
	json_decref(rec);
	ungrow_cgroups(j, cg, g);
	return -1;
}

/* Whether two elements of list P are one: the same address (the
 * prefix left out of one given without it), else the same text. */
static bool same_element(const struct param *p, const char *x, const char *y)
{
	struct cell_err ignored;
	struct netaddr a, b;

	if ((p->id == PARAM_IP4 || p->id == PARAM_IP6 || p->id == PARAM_DNS) &&
	    netaddr_parse(x, true, &a, &ignored) == 0 && netaddr_parse(y, true, &b, &ignored) == 0)
		return netaddr_same(&a, &b) &&
		       (a.prefix < 0 || b.prefix < 0 || a.prefix == b.prefix);
	return strcmp(x, y) == 0;
}

/* The elements of list P in S, as text (*N of them). */
static char **elements(const struct param *p, const struct jail_spec *s, size_t *n)
{
	char **v = NULL, *el;

	for (*n = 0; param_format_element(p, s, *n, &el) > 0; (*n)++) {
		char **grown = realloc(v, (*n + 1) * sizeof(*grown));

		if (grown == NULL) {
			free(el);
			param_strv_free(v, *n);
			return NULL;
		}
		v = grown;
		v[*n] = el;
	}
	return v != NULL ? v : calloc(1, sizeof(char *));
}

/* `+=`: VALS's elements of P appended to WANT's; `-=`: removed from it,
 * each of them there (else an error naming it). */
static int apply_list_op(const struct param *p, struct jail_spec *want,
			 const struct jail_spec *vals, bool add, struct cell_err *e)
{
	size_t nhave, nop;
	char **have = elements(p, want, &nhave), **op = elements(p, vals, &nop);
	int ret = 0;

	if (have == NULL || op == NULL) {
		ret = cell_err_set(e, ENOMEM, "%s", p->name);
		goto out;
	}
	if (add) {
		for (size_t i = 0; i < nop && ret == 0; i++)
			ret = p->parse(p, want, op[i], e);
		goto out;
	}
	for (size_t k = 0; k < nop; k++) {
		bool found = false;

		for (size_t i = 0; i < nhave && !found; i++)
			found = same_element(p, have[i], op[k]);
		if (!found) {
			ret = cell_err_param(e, p->id, (int)k, 0, "not in the jail's %s", p->name);
			goto out;
		}
	}
	p->clear(p, want);
	for (size_t i = 0; i < nhave && ret == 0; i++) {
		bool gone = false;

		for (size_t k = 0; k < nop && !gone; k++)
			gone = same_element(p, have[i], op[k]);
		if (!gone)
			ret = p->parse(p, want, have[i], e);
	}
out:
	param_strv_free(have, nhave);
	param_strv_free(op, nop);
	return ret;
}

/* WANT: the jail's spec OLD with the change C; a parameter fixed at the
 * start must keep its value. */
static int apply_change(const struct jail_spec *old, struct jail_spec *want,
			const struct jail_change *c, struct cell_err *e)
{
	for (int id = 0; id < PARAM_COUNT; id++) {
		const struct param *p = param_get(id);
		uint64_t bit = (uint64_t)1 << id;

		if (!jail_change_has(c, id))
			continue;
		if ((c->add | c->del) & bit) {
			if (apply_list_op(p, want, &c->values, (c->add & bit) != 0, e) < 0)
				return -1;
		} else if (param_copy(p, want, &c->values, e) < 0) {
			return -1;
		}
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

/* What jail_set() found and the worker changes. */
struct set_args {
	struct jail *j;
	const char *state_root;
	const char *name;
	struct jail_spec *old, *want;
	struct cgroup *cg;
	const char *host, *domain;
	uid_t owner; /* of the jail's user namespace: 0 for the host's */
};

/*
 * The changes, all or nothing, in the worker (run_in_jail()): every pid
 * it lists and acts on is one of the jail's pid namespace, so a pid
 * recycled between the walk and the act can only be another process of
 * the jail, never the host's (it once lowered a host process's
 * open-files limit, raised its nice value and moved it into the jail's
 * memory cgroup).
 */
static int set_apply(struct set_args *a, struct cell_err *e)
{
	struct jail *j = a->j;
	struct jail_spec *old = a->old, *want = a->want;
	struct cgroup_growth growth;
	struct jail_limits base;
	struct cell_err ignored;
	cleanup_free pid_t *pids = NULL;
	size_t npids = 0;
	bool nice_changed;
	int proc = open_jail_proc(j->pid, e), ret = -1;

	cgroup_growth_init(&growth);
	if (proc < 0)
		return -1;
	nice_changed = want->limits.has_nice &&
		       (!old->limits.has_nice || old->limits.nice != want->limits.nice);
	if (!limits_equal_rlimits(&old->limits, &want->limits) || nice_changed) {
		if (jail_pids(proc, &pids, &npids, e) < 0)
			goto out;
		testpoint_pause("set:listed");
		/* Checked in every process before any changes: a lowered
		 * hard limit cannot be raised back. */
		for (size_t i = 0; i < npids; i++)
			if (rlimits_pid(pids[i], a->owner, old, want, nice_changed, true, e) < 0) {
				cell_err_prefix(e, "nothing changed");
				goto out;
			}
	}
	/* The steps that can be undone first. */
	if (grow_cgroups(j, proc, a->state_root, a->name, a->cg, old, &want->limits, &growth, e) <
	    0) {
		cell_err_prefix(e, "nothing changed");
		goto out;
	}
	/* The new cgroups have their limits: only the others change now. */
	base = cgroup_grown_limits(&growth, &old->limits, &want->limits);
	if (cgroup_update(a->cg, &base, &want->limits, e) < 0) {
		ungrow_cgroups(j, a->cg, &growth);
		cell_err_prefix(e, "nothing changed");
		goto out;
	}
	if ((testpoint_fail("set:uts") &&
	     cell_err_set(e, EIO, "set the hostname (test failure)")) ||
	    ((a->host != NULL || a->domain != NULL) &&
	     set_uts(j->pidfd, a->host, a->domain, e) < 0)) {
		cgroup_update(a->cg, &want->limits, &base, &ignored);
		ungrow_cgroups(j, a->cg, &growth);
		cell_err_prefix(e, "nothing changed");
		goto out;
	}
	if (npids > 0 &&
	    update_all(proc, a->owner, &pids, &npids, old, want, nice_changed, e) < 0) {
		cell_err_prefix(e, "partly applied");
		goto out;
	}
	if (record_put_spec(j->state, want, e) < 0)
		goto out;
	if (growth.made != 0)
		json_object_set_new(j->state, "cgroup", cgroup_to_json(a->cg));
	if (store_jail_write(&j->dir, j->state, e) < 0)
		goto out;
	ret = 0;
out:
	cgroup_growth_free(&growth);
	close(proc);
	return ret;
}

#ifdef CELL_TESTPOINTS
static volatile pid_t paused_worker = -1;

/* Test builds: a test resumes cell's pause points with SIGUSR1, sent to
 * cell; the worker is the one paused. */
static void resume_worker(int sig)
{
	if (paused_worker > 0)
		kill(paused_worker, sig);
}
#endif

/*
 * Runs set_apply() in a worker born in the jail's pid namespace (cell
 * joins it for its children only) and waits for it; its error comes back
 * through a pipe.  The worker dies with cell.
 */
static int run_in_jail(struct set_args *a, struct cell_err *e)
{
	int p[2];
	char who[JAIL_NAME_MAX + 32];
	pid_t w;

	if (pipe2(p, O_CLOEXEC) < 0)
		return cell_err_set(e, errno, "jail %s: set: pipe", a->name);
	if (setns(a->j->pidfd, CLONE_NEWPID) < 0) {
		close(p[0]);
		close(p[1]);
		return cell_err_set(e, errno, "jail %s: join its pid namespace", a->name);
	}
	testpoint_owner(getpid());
	/* The worker is cell's memory in the jail's pid namespace: not for
	 * the jail's processes to ptrace or read, from its first instant
	 * (the flag is inherited by the fork; CVE-2016-9962). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		close(p[0]);
		close(p[1]);
		return cell_err_set(e, errno, "jail %s: set: make cell non-dumpable", a->name);
	}
#ifdef CELL_TESTPOINTS
	signal(SIGUSR1, resume_worker); /* before a pause can be seen */
#endif
	w = fork();
	if (w < 0) {
		close(p[0]);
		close(p[1]);
		return cell_err_set(e, errno, "jail %s: set: fork", a->name);
	}
	if (w == 0) {
		struct cell_err we;

		close(p[0]);
		cell_err_clear(&we);
#ifdef CELL_TESTPOINTS
		signal(SIGUSR1, SIG_DFL); /* testpoint_pause() installs its own */
#endif
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
			_exit(CELL_EXIT_ERROR);
		if (set_apply(a, &we) == 0)
			_exit(0);
		proc_worker_fail(p[1], &we);
	}
	close(p[1]);
#ifdef CELL_TESTPOINTS
	paused_worker = w;
#endif
	snprintf(who, sizeof(who), "jail %s: set: its worker", a->name);
	return proc_worker_wait(w, p[0], who, e);
}

/* One address set adds or removes, live. */
struct addr_op {
	const char *addr;
	bool add;
};

/* The elements of A not in B. */
static size_t addr_only_in(char *const *a, size_t na, char *const *b, size_t nb, bool add,
			   struct addr_op *out)
{
	size_t n = 0;

	for (size_t i = 0; i < na; i++) {
		bool in = false;

		for (size_t k = 0; k < nb && !in; k++)
			in = strcmp(a[i], b[k]) == 0;
		if (!in)
			out[n++] = (struct addr_op){a[i], add};
	}
	return n;
}

/* The ops done so far undone, last first. */
static void addr_undo(const json_t *rec, pid_t pid, const struct addr_op *ops, size_t n)
{
	struct cell_err ignored;

	while (n-- > 0)
		net_addr(rec, pid, !ops[n].add, ops[n].addr, &ignored);
}

/*
 * The jail's addresses as the change leaves them (ip4.addr, ip6.addr):
 * each new one given its prefix, refused when another jail holds it
 * (checked under the root's network lock, *LOCK, held until the record
 * says them), added to its interface; each gone one removed.  *OPS and
 * *NOPS: what was done, for the caller to undo.
 */
static int set_addrs(int rootfd, struct jail *j, const struct jail_spec *old,
		     struct jail_spec *want, int *lock, struct addr_op **ops, size_t *nops,
		     struct cell_err *e)
{
	struct jail_network *w = &want->network;
	const struct jail_network *o = &old->network;
	size_t n = 0, max = w->nip4 + w->nip6 + o->nip4 + o->nip6;

	*ops = NULL;
	*nops = 0;
	if (net_complete(j->state, w, e) < 0)
		return -1;
	*ops = calloc(max + 1, sizeof(**ops));
	if (*ops == NULL)
		return cell_err_set(e, ENOMEM, "addresses");
	n += addr_only_in(w->ip4, w->nip4, o->ip4, o->nip4, true, *ops + n);
	n += addr_only_in(w->ip6, w->nip6, o->ip6, o->nip6, true, *ops + n);
	n += addr_only_in(o->ip4, o->nip4, w->ip4, w->nip4, false, *ops + n);
	n += addr_only_in(o->ip6, o->nip6, w->ip6, w->nip6, false, *ops + n);
	if (n == 0)
		return 0;
	if (!net_record_active(j->state))
		return cell_err_param(e, PARAM_IP4, 0, 0, "the jail has no bridged network");
	*lock = net_lock(rootfd, e);
	if (*lock < 0 ||
	    net_check_free(rootfd, j->dir.name, j->state, PARAM_IP4, w->ip4, w->nip4, o->ip4,
			   o->nip4, e) < 0 ||
	    net_check_free(rootfd, j->dir.name, j->state, PARAM_IP6, w->ip6, w->nip6, o->ip6,
			   o->nip6, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (net_addr(j->state, j->pid, (*ops)[i].add, (*ops)[i].addr, e) < 0) {
			char reason[sizeof(e->msg)];

			snprintf(reason, sizeof(reason), "%s", e->msg);
			addr_undo(j->state, j->pid, *ops, i);
			cell_err_param(e, PARAM_IP4, 0, 0, "%s %s: %s (nothing changed)",
				       (*ops)[i].add ? "add" : "remove", (*ops)[i].addr, reason);
			return -1;
		}
		*nops = i + 1;
	}
	return 0;
}

/* A limit below what the jail uses now, as its cgroups count it (a jail
 * without that cgroup yet has no count: not checked). */
static int check_usage(const struct cgroup *cg, const struct jail_limits *old,
		       const struct jail_limits *want, struct cell_err *e)
{
	static const char force[] = "cell set --force sets it anyway";
	struct cgroup_usage u;
	char used[48];

	if ((want->nrtask < 0 || want->nrtask == old->nrtask) &&
	    (want->memory < 0 || want->memory == old->memory))
		return 0;
	cgroup_usage(cg, &u);
	if (want->nrtask >= 0 && want->nrtask != old->nrtask && u.tasks > want->nrtask)
		return cell_err_param(e, PARAM_NRTASK, 0, 0,
				      "below what the jail uses now (%lld tasks); %s", u.tasks,
				      force);
	if (want->memory >= 0 && want->memory != old->memory && u.memory > want->memory) {
		param_format_size(u.memory, used, sizeof(used));
		return cell_err_param(e, PARAM_MEMORY, 0, 0,
				      "below what the jail uses now (%s); %s", used, force);
	}
	return 0;
}

/* A bridged or joined jail's hosts, hostname and resolv.conf, from the
 * spec WANT it now has. */
static int set_files(struct jail *j, const struct jail_spec *want, struct cell_err *e)
{
	struct net_plan n;
	int ret;

	net_plan_init(&n);
	n.ip4 = want->network.ip4;
	n.nip4 = want->network.nip4;
	n.ip6 = want->network.ip6;
	n.nip6 = want->network.nip6;
	ret = net_write_files(j->dir.dirfd, want, &n, e);
	if (ret < 0)
		cell_err_prefix(e, "changed, but its /etc/hosts could not be written");
	return ret;
}

int jail_set(const char *state_root, const char *name, const struct jail_change *c,
	     struct cell_err *e)
{
	struct jail_spec old, want;
	struct jail j = {.pidfd = -1, .dir = {.dirfd = -1}};
	struct cgroup cg;
	struct addr_op *ops = NULL;
	size_t nops = 0;
	bool opened = false;
	int rootfd = -1, ret = -1, lock = -1;

	spec_init(&old);
	spec_init(&want);
	cgroup_init(&cg);
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
	if ((want.limits.cpus_milli != old.limits.cpus_milli &&
	     cgroup_check_cpus(want.limits.cpus_milli, e) < 0) ||
	    cgroup_grow_check(&cg, &old.limits, &want.limits, old.cgroup_parent, j.pid, e) < 0) {
		cell_err_prefix(e, "jail %s", name);
		goto out;
	}
	if (!c->force && check_usage(&cg, &old.limits, &want.limits, e) < 0) {
		cell_err_prefix(e, "jail %s", name);
		goto out;
	}
	struct set_args a = {
		.j = &j,
		.state_root = state_root,
		.name = name,
		.old = &old,
		.want = &want,
		.cg = &cg,
		.host = changed(PARAM_HOSTNAME, &old, &want),
		.domain = changed(PARAM_DOMAINNAME, &old, &want),
	};
	if (userns_owner(&j, &a.owner, e) < 0)
		goto out;
	if ((jail_change_has(c, PARAM_IP4) || jail_change_has(c, PARAM_IP6)) &&
	    set_addrs(rootfd, &j, &old, &want, &lock, &ops, &nops, e) < 0)
		goto out;
	if (run_in_jail(&a, e) < 0) {
		addr_undo(j.state, j.pid, ops, nops);
		goto out;
	}
	ret = 0;
	/* The jail's /etc/hosts names its addresses and hostname: written
	 * again in place (the bind shows the same file).  The change is
	 * made: a failure here is only said. */
	if (net_has_files(&want) && (nops > 0 || a.host != NULL || a.domain != NULL))
		ret = set_files(&j, &want, e);
out:
	net_unlock(lock);
	free(ops);
	cgroup_release(&cg);
	spec_free(&old);
	spec_free(&want);
	if (opened)
		jail_close(&j);
	close(rootfd);
	return ret;
}
