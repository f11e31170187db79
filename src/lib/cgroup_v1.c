/*
 * cgroup_v1.c - the cgroup v1 (and hybrid) backend: one directory per
 * controller, each in the hierarchy that /proc/self/mountinfo names for
 * it ("cpu,cpuacct" where two share one).
 *
 * The jail's first process is moved into each directory by the parent
 * while it waits (cgroup_add_pid()).  Devices: "a" into devices.deny,
 * then each rule into devices.allow or devices.deny.  Freezer:
 * freezer.state.  There is no cgroup.kill: cgroup_kill() signals each
 * pid of a frozen jail.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "param.h"
#include "cleanup.h"

/* How long cgroup_freeze() waits for FROZEN: a task in an
 * uninterruptible sleep freezes only when it wakes. */
#define FREEZE_WAIT_MS 2000

static void forget_one(struct cgroup *cg, int c)
{
	free(cg->dir[c]);
	free(cg->opts[c]);
	cg->dir[c] = cg->opts[c] = NULL;
}

/* Forgets the planned directories from controller FROM on: they were
 * not made, and a cgroup cell did not make is never removed. */
static void forget_from(struct cgroup *cg, int from)
{
	for (int c = from; c < CGROUP_NCTRL; c++)
		forget_one(cg, c);
}

static int plan_one(struct cgroup *cg, int c, const char *mounts, const char *own_text,
		    const char *cgparent, const char *leaf, struct cgroup *from, struct cell_err *e)
{
	const char *ctrl = cgroup_ctrls[c].v1;
	cleanup_free char *mnt = NULL, *root = NULL, *own = NULL, *parent = NULL;
	cleanup_free char *pdir = NULL;

	if (cgroup_parse_v1_mount(mounts, ctrl, &mnt, &root, &cg->opts[c]) < 0)
		return cell_err_set(e, ENOTSUP, "cgroup: no %s controller on this host", ctrl);
	own = cgroup_parse_own(own_text, ctrl);
	if (own == NULL)
		return cell_err_set(e, ENOENT, "cgroup: cell's own %s cgroup", ctrl);
	parent = cgroup_parent_path(cgparent, own);
	pdir = parent ? cgroup_join(mnt, root, parent) : NULL;
	if (pdir == NULL)
		return cell_err_set(e, ENOENT, "cgroup: %s cgroup %s is not under %s", ctrl,
				    parent ? parent : own, mnt);
	if (access(pdir, F_OK) < 0)
		return cgparent != NULL
			       ? cell_err_param(e, PARAM_CGROUP_PARENT, 0, errno, "%s", pdir)
			       : cell_err_set(e, errno, "cgroup %s", pdir);
	if (asprintf(&cg->dir[c], "%s/%s", pdir, leaf) < 0) {
		cg->dir[c] = NULL;
		return cell_err_set(e, ENOMEM, "cgroup");
	}
	if (from != NULL && (from->dir[c] = cgroup_join(mnt, root, own)) == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	return 0;
}

static int plan(struct cgroup *cg, const char *own_text, unsigned int want, const char *cgparent,
		const char *leaf, struct cgroup *from, struct cell_err *e)
{
	cleanup_free char *mounts = cgroup_read_all("/proc/self/mountinfo");

	if (mounts == NULL)
		return cell_err_set(e, errno, "read /proc/self/mountinfo");
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (!(want & 1U << c) ||
		    plan_one(cg, c, mounts, own_text, cgparent, leaf, from, e) == 0)
			continue;
		if (!cgroup_ctrls[c].optional)
			return -1;
		forget_one(cg, c);
		if (from != NULL)
			forget_one(from, c);
		cell_err_clear(e);
	}
	return 0;
}

static int make(struct cgroup *cg, unsigned int want, struct cell_err *e)
{
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if ((want & 1U << c) && cg->dir[c] != NULL && cgroup_make_dir(cg->dir[c], e) < 0) {
			forget_from(cg, c);
			return -1;
		}
	return 0;
}

static int apply(const struct cgroup *cg, const struct jail_limits *l, struct cell_err *e)
{
	const char *pids = cg->dir[CGROUP_PIDS], *mem = cg->dir[CGROUP_MEMORY],
		   *cpu = cg->dir[CGROUP_CPU];

	if (l->nrtask >= 0 && cgroup_write_ll(pids, "pids.max", l->nrtask) < 0)
		return cgroup_limit_failed(PARAM_NRTASK, pids, "pids.max", e);
	if (l->memory >= 0) {
		/* The plain limit first: memsw may never be below it. */
		if (cgroup_write_ll(mem, "memory.limit_in_bytes", l->memory) < 0)
			return cgroup_limit_failed(PARAM_MEMORY, mem, "memory.limit_in_bytes", e);
		/* v1 limits memory + swap together. */
		if (cgroup_pin_swap(mem, "memory.memsw.limit_in_bytes",
				    l->memory + (l->swap >= 0 ? l->swap : 0), l, e) < 0)
			return -1;
	}
	if (l->cpus_milli >= 0) {
		if (cgroup_write_ll(cpu, "cpu.cfs_period_us", CPU_PERIOD_US) < 0)
			return cgroup_limit_failed(PARAM_CPUS, cpu, "cpu.cfs_period_us", e);
		if (cgroup_write_ll(cpu, "cpu.cfs_quota_us", l->cpus_milli * CPU_PERIOD_US / 1000) <
		    0)
			return cgroup_limit_failed(PARAM_CPUS, cpu, "cpu.cfs_quota_us", e);
	}
	return 0;
}

int cgroup_v1_device_line(const struct jail_device_rule *r, char *out, size_t size)
{
	char major[16] = "*", minor[16] = "*";

	if (r->type != 'a') {
		if (r->major >= 0)
			snprintf(major, sizeof(major), "%d", r->major);
		if (r->minor >= 0)
			snprintf(minor, sizeof(minor), "%d", r->minor);
	}
	return snprintf(out, size, "%c %s:%s %.3s", r->type, major, minor, r->access) < (int)size
		       ? 0
		       : -1;
}

/* The kernel starts a new cgroup with its parent's rules: "a" into
 * devices.deny empties them (deny everything), and each rule then adds
 * or takes away an exception. */
static int devices(const struct cgroup *cg, const struct jail_device_rule *r, size_t n,
		   struct cell_err *e)
{
	const char *dir = cg->dir[CGROUP_DEVICES];
	char line[64];

	if (dir == NULL)
		return cell_err_set(e, ENOENT, "devices: the jail has no devices cgroup");
	if (cgroup_write(dir, "devices.deny", "a") < 0)
		return cell_err_set(e, errno, "devices: write a to %s/devices.deny", dir);
	for (size_t i = 0; i < n; i++) {
		const char *file = r[i].allow ? "devices.allow" : "devices.deny";

		if (cgroup_v1_device_line(&r[i], line, sizeof(line)) < 0)
			return cell_err_set(e, EINVAL, "devices: rule %zu", i);
		if (cgroup_write(dir, file, line) < 0)
			return cell_err_set(e, errno, "devices: write %s to %s/%s", line, dir,
					    file);
	}
	return 0;
}

static int update_memory(const struct cgroup *cg, const struct jail_limits *old,
			 const struct jail_limits *new, struct cell_err *e)
{
	const char *dir = cg->dir[CGROUP_MEMORY];
	long long swap = new->swap >= 0 ? new->swap : 0;

	/* memory may never be above memory + swap: raise the sum first,
	 * lower it last. */
	if (new->memory > old->memory &&
	    cgroup_pin_swap(dir, "memory.memsw.limit_in_bytes", new->memory + swap, new, e) < 0)
		return -1;
	if (cgroup_write_ll(dir, "memory.limit_in_bytes", new->memory) < 0)
		return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.limit_in_bytes", e);
	return cgroup_pin_swap(dir, "memory.memsw.limit_in_bytes", new->memory + swap, new, e);
}

static int update(const struct cgroup *cg, const struct jail_limits *old,
		  const struct jail_limits *new, struct cell_err *e)
{
	const char *pids = cg->dir[CGROUP_PIDS], *cpu = cg->dir[CGROUP_CPU];

	if (new->nrtask != old->nrtask && cgroup_write_ll(pids, "pids.max", new->nrtask) < 0)
		return cgroup_limit_failed(PARAM_NRTASK, pids, "pids.max", e);
	if ((new->memory != old->memory || new->swap != old->swap) &&
	    update_memory(cg, old, new, e) < 0)
		return -1;
	if (new->cpus_milli != old->cpus_milli &&
	    cgroup_write_ll(cpu, "cpu.cfs_quota_us", new->cpus_milli *CPU_PERIOD_US / 1000) < 0)
		return cgroup_limit_failed(PARAM_CPUS, cpu, "cpu.cfs_quota_us", e);
	return 0;
}

static const char *ctrl_dir(const struct cgroup *cg, enum cgroup_ctrl c)
{
	return cg->dir[c];
}

/* Each controller has a directory of its own: nothing is enabled. */
static int enable(const struct cgroup *cg, unsigned int want, struct cell_err *e)
{
	return 0;
}

static void unset(const struct cgroup *cg, unsigned int ctrls)
{
}

static int add_pid(const struct cgroup *cg, pid_t pid, struct cell_err *e)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (cg->dir[c] != NULL && cgroup_write(cg->dir[c], "cgroup.procs", buf) < 0)
			return cell_err_set(e, errno, "move pid %d into cgroup %s", (int)pid,
					    cg->dir[c]);
	return 0;
}

static const char *freezer_dir(const struct cgroup *cg, struct cell_err *e)
{
	if (cg->dir[CGROUP_FREEZER] == NULL)
		cell_err_set(e, ENOTSUP, "the jail has no freezer cgroup");
	return cg->dir[CGROUP_FREEZER];
}

static int freeze(const struct cgroup *cg, struct cell_err *e)
{
	const char *dir = freezer_dir(cg, e);

	if (dir == NULL)
		return -1;
	if (cgroup_write(dir, "freezer.state", "FROZEN") < 0)
		return cell_err_set(e, errno, "freeze: write %s/freezer.state", dir);
	/* FREEZING until every task is held. */
	if (cgroup_wait_file(dir, "freezer.state", NULL, "FROZEN", FREEZE_WAIT_MS) < 0)
		return cell_err_set(e, errno, "freeze %s", dir);
	return 0;
}

static int thaw(const struct cgroup *cg, struct cell_err *e)
{
	const char *dir = freezer_dir(cg, e);

	if (dir == NULL)
		return -1;
	if (cgroup_write(dir, "freezer.state", "THAWED") < 0)
		return cell_err_set(e, errno, "thaw: write %s/freezer.state", dir);
	return 0;
}

/* The pids come from cgroup.procs: in a frozen jail none exits (so none
 * is reused) and none forks meanwhile.  The kills are delivered once it
 * is thawed. */
static int kill_all(const struct cgroup *cg, struct cell_err *e)
{
	const char *dir = freezer_dir(cg, e);
	cleanup_free pid_t *pids = NULL;
	size_t n = 0;

	if (dir == NULL || cgroup_read_procs(dir, &pids, &n, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (kill(pids[i], SIGKILL) < 0 && errno != ESRCH)
			return cell_err_set(e, errno, "kill pid %d", (int)pids[i]);
	return 0;
}

static void usage(const struct cgroup *cg, struct cgroup_usage *u)
{
	if (cg->dir[CGROUP_PIDS] != NULL)
		u->tasks = cgroup_read_number(cg->dir[CGROUP_PIDS], "pids.current");
	if (cg->dir[CGROUP_MEMORY] != NULL) {
		u->memory = cgroup_read_number(cg->dir[CGROUP_MEMORY], "memory.usage_in_bytes");
		u->memory_peak =
			cgroup_read_number(cg->dir[CGROUP_MEMORY], "memory.max_usage_in_bytes");
	}
}

/* A tmpfs holding one mount per controller, like the host's.  A v1
 * mount in a cgroup namespace must name its hierarchy's controllers
 * exactly ("cpu,cpuacct" where they share one), as read by the parent
 * from the host's mountinfo. */
static int mount_jail(const struct cgroup *cg, struct cell_err *e)
{
	const unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (mount("tmpfs", CGROUP_FS, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755") < 0)
		return cell_err_set(e, errno, "mount tmpfs on %s", CGROUP_FS);
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		const char *opts = cg->opts[c];
		char path[64];

		if (cg->dir[c] == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", CGROUP_FS, cgroup_ctrls[c].name);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return cell_err_set(e, errno, "mkdir %s", path);
		if (mount("cgroup", path, "cgroup", ro, opts) < 0)
			return cell_err_set(e, errno, "mount cgroup %s on %s", opts, path);
	}
	if (mount(NULL, CGROUP_FS, NULL, MS_REMOUNT | MS_BIND | ro, NULL) < 0)
		return cell_err_set(e, errno, "remount %s read-only", CGROUP_FS);
	return 0;
}

static int to_json(const struct cgroup *cg, json_t *j)
{
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (cg->dir[c] != NULL &&
		    json_object_set_new(j, cgroup_ctrls[c].name, json_string(cg->dir[c])) < 0)
			return -1;
	return 0;
}

/* A record of before the devices and freezer controllers names only
 * pids, memory and cpu: the others are absent, as in a jail without
 * them. */
static int from_json(struct cgroup *cg, const json_t *j, struct cell_err *e)
{
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		const json_t *v = json_object_get(j, cgroup_ctrls[c].name);

		if (v == NULL)
			continue;
		if (!json_is_string(v))
			return cell_err_set(e, EINVAL, "cgroup: %s: not a path",
					    cgroup_ctrls[c].name);
		cg->dir[c] = strdup(json_string_value(v));
		if (cg->dir[c] == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
	}
	return 0;
}

const struct cgroup_ops cgroup_v1_ops = {
	.plan = plan,
	.make = make,
	.apply = apply,
	.devices = devices,
	.update = update,
	.ctrl_dir = ctrl_dir,
	.enable = enable,
	.unset = unset,
	.add_pid = add_pid,
	.freeze = freeze,
	.thaw = thaw,
	.kill = kill_all,
	.usage = usage,
	.mount_jail = mount_jail,
	.to_json = to_json,
	.from_json = from_json,
};
