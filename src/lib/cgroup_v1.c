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
#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "cleanup.h"
#include "param.h"
#include "proc.h"

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

/* The cgroup path of the jail for a controller whose cgroup cell is in
 * is OWN: W's exact path (beneath OWN when relative), or W's leaf
 * beneath OWN or the --cgroup-parent. */
static char *jail_path(const struct cgroup_where *w, const char *own)
{
	cleanup_free char *parent = NULL;
	char *out;

	if (w->exact != NULL)
		return cgroup_parent_path(w->exact, own);
	parent = cgroup_parent_path(w->cgparent, own);
	if (parent == NULL ||
	    asprintf(&out, "%s/%s", strcmp(parent, "/") == 0 ? "" : parent, w->leaf) < 0)
		return NULL;
	return out;
}

static int plan_one(struct cgroup *cg, int c, const char *mounts, const struct cgroup_where *w,
		    struct cgroup *from, struct cell_err *e)
{
	const char *ctrl = cgroup_ctrls[c].v1;
	cleanup_free char *mnt = NULL, *root = NULL, *own = NULL, *path = NULL;
	cleanup_free char *pdir = NULL;

	if (cgroup_parse_v1_mount(mounts, ctrl, &mnt, &root, &cg->opts[c]) < 0)
		return cell_err_set(e, ENOTSUP, "cgroup: no %s controller on this host", ctrl);
	own = cgroup_parse_own(w->own_text, ctrl);
	if (own == NULL)
		return cell_err_set(e, ENOENT, "cgroup: cell's own %s cgroup", ctrl);
	path = jail_path(w, own);
	cg->dir[c] = path ? cgroup_join(mnt, root, path) : NULL;
	if (cg->dir[c] == NULL)
		return cell_err_set(e, ENOENT, "cgroup: %s cgroup %s is not under %s", ctrl,
				    path ? path : own, mnt);
	if (w->exact != NULL)
		return cgroup_plan_exact(cg->dir[c], mnt, &cg->made[c], e);
	pdir = cgroup_up(cg->dir[c], 1);
	if (pdir == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (access(pdir, F_OK) < 0)
		return w->cgparent != NULL
			       ? cell_err_param(e, PARAM_CGROUP_PARENT, 0, errno, "%s", pdir)
			       : cell_err_set(e, errno, "cgroup %s", pdir);
	if (from != NULL && (from->dir[c] = cgroup_join(mnt, root, own)) == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	return 0;
}

/* A controller the host lacks fails the jail only when a setting needs
 * it (W->need); else the jail goes without. */
static int plan(struct cgroup *cg, const struct cgroup_where *w, struct cgroup *from,
		struct cell_err *e)
{
	cleanup_free char *mounts = cgroup_read_all("/proc/self/mountinfo");

	if (mounts == NULL)
		return cell_err_set(e, errno, "read /proc/self/mountinfo");
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (!(w->want & 1U << c) || plan_one(cg, c, mounts, w, from, e) == 0)
			continue;
		if ((w->need & 1U << c) || e->errnum == EBUSY)
			return -1;
		forget_one(cg, c);
		if (from != NULL)
			forget_one(from, c);
		cell_err_clear(e);
	}
	return 0;
}

/* A new v1 cpuset has no CPUs and no memory nodes: no task could enter
 * it.  It starts with its parent's (cgroup.clone_children does this
 * only where it is set). */
static int copy_cpuset(const char *dir, const char *parent, void *arg, struct cell_err *e)
{
	static const char *const files[] = {"cpuset.cpus", "cpuset.mems"};

	for (size_t i = 0; i < 2; i++) {
		cleanup_free char *path = NULL;
		char buf[4096];

		if (asprintf(&path, "%s/%s", parent, files[i]) < 0)
			return cell_err_set(e, ENOMEM, "cpuset");
		if (proc_read_text(path, buf, sizeof(buf)) < 0)
			return cell_err_set(e, errno, "cpuset: read %s", path);
		buf[strcspn(buf, "\n")] = '\0';
		if (cgroup_write(dir, files[i], buf[0] != '\0' ? buf : "\n") < 0)
			return cell_err_set(e, errno, "cpuset: write %s to %s/%s", buf, dir,
					    files[i]);
	}
	return 0;
}

static int make(struct cgroup *cg, unsigned int want, unsigned int need, struct cell_err *e)
{
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		cgroup_made_fn *each = c == CGROUP_CPUSET ? copy_cpuset : NULL;

		if ((want & 1U << c) && cg->dir[c] != NULL &&
		    cgroup_make_dirs(cg->dir[c], &cg->made[c], each, NULL, e) < 0) {
			forget_from(cg, c);
			return -1;
		}
	}
	return 0;
}

static int apply(const struct cgroup *cg, const struct jail_limits *l, bool skip_cpus,
		 struct cell_err *e)
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
	if (l->cpus_milli >= 0 && !skip_cpus) {
		if (cgroup_write_ll(cpu, "cpu.cfs_period_us", CPU_PERIOD_US) < 0)
			return cgroup_limit_failed(PARAM_CPUS, cpu, "cpu.cfs_period_us", e);
		if (cgroup_write_ll(cpu, "cpu.cfs_quota_us", l->cpus_milli * CPU_PERIOD_US / 1000) <
		    0)
			return cgroup_limit_failed(PARAM_CPUS, cpu, "cpu.cfs_quota_us", e);
	}
	return 0;
}

/* The directory of controller C for resource WHAT; NULL (and E) when the
 * jail has none. */
static const char *res_dir(const struct cgroup *cg, int c, const char *what, struct cell_err *e)
{
	if (cg->dir[c] == NULL)
		cell_err_set(e, ENOENT, "%s: the jail has no %s cgroup", what,
			     cgroup_ctrls[c].name);
	return cg->dir[c];
}

static int write_res(const struct cgroup *cg, int c, const char *what, const char *file,
		     long long v, struct cell_err *e)
{
	const char *dir = res_dir(cg, c, what, e);

	if (dir == NULL)
		return -1;
	if (cgroup_write_ll(dir, file, v) < 0)
		return cgroup_res_failed(what, dir, file, e);
	return 0;
}

static int write_res_text(const struct cgroup *cg, int c, const char *what, const char *file,
			  const char *v, struct cell_err *e)
{
	const char *dir = res_dir(cg, c, what, e);

	if (dir == NULL)
		return -1;
	if (cgroup_write(dir, file, v) < 0)
		return cgroup_res_failed(what, dir, file, e);
	return 0;
}

/* The CPU's share, and its bandwidth: the period first, which the quota
 * is a part of. */
static int cpu_resources(const struct cgroup *cg, const struct jail_resources *r,
			 struct cell_err *e)
{
	if (r->cpu_shares > 0 &&
	    write_res(cg, CGROUP_CPU, "cpu shares", "cpu.shares", r->cpu_shares, e) < 0)
		return -1;
	if (r->cpu_period > 0 &&
	    write_res(cg, CGROUP_CPU, "cpu period", "cpu.cfs_period_us", r->cpu_period, e) < 0)
		return -1;
	if (r->cpu_quota > 0 &&
	    write_res(cg, CGROUP_CPU, "cpu quota", "cpu.cfs_quota_us", r->cpu_quota, e) < 0)
		return -1;
	return 0;
}

/* The blkio weight goes to CFQ's blkio.weight or BFQ's blkio.bfq.weight,
 * whichever the host's I/O scheduler gives. */
static int blkio_weight(const struct cgroup *cg, long long w, struct cell_err *e)
{
	const char *dir = res_dir(cg, CGROUP_BLKIO, "blkio weight", e);
	const char *file;

	if (dir == NULL)
		return -1;
	file = cgroup_file_exists(dir, "blkio.weight")	     ? "blkio.weight"
	       : cgroup_file_exists(dir, "blkio.bfq.weight") ? "blkio.bfq.weight"
							     : NULL;
	if (file == NULL)
		return cell_err_set(e, ENOTSUP,
				    "blkio weight: this host's blkio cgroup has no weight (neither "
				    "blkio.weight nor blkio.bfq.weight: no CFQ or BFQ scheduler)");
	if (cgroup_write_ll(dir, file, w) < 0)
		return cgroup_res_failed("blkio weight", dir, file, e);
	return 0;
}

static int resources(const struct cgroup *cg, const struct jail_resources *r, struct cell_err *e)
{
	if (cpu_resources(cg, r, e) < 0)
		return -1;
	if (r->cpuset_cpus != NULL &&
	    write_res_text(cg, CGROUP_CPUSET, "cpuset cpus", "cpuset.cpus", r->cpuset_cpus, e) < 0)
		return -1;
	if (r->cpuset_mems != NULL &&
	    write_res_text(cg, CGROUP_CPUSET, "cpuset mems", "cpuset.mems", r->cpuset_mems, e) < 0)
		return -1;
	if (r->memory_reservation > 0 &&
	    write_res(cg, CGROUP_MEMORY, "memory reservation", "memory.soft_limit_in_bytes",
		      r->memory_reservation, e) < 0)
		return -1;
	if (r->memory_swappiness >= 0 &&
	    write_res(cg, CGROUP_MEMORY, "memory swappiness", "memory.swappiness",
		      r->memory_swappiness, e) < 0)
		return -1;
	if (r->blkio_weight > 0 && blkio_weight(cg, r->blkio_weight, e) < 0)
		return -1;
	if (r->nunified > 0)
		return cell_err_set(e, ENOTSUP, "unified: cgroup v2 settings on a v1 host");
	return 0;
}

/* v1 reads "no limit" as a number near LLONG_MAX (rounded to pages). */
#define V1_UNLIMITED (LLONG_MAX / 2)

/* The kernel refuses a memory limit below what the jail uses (EBUSY
 * once reclaim fails): said as such. */
static int memory_refused(const char *dir, long long limit, struct cell_err *e)
{
	int err = errno;
	long long used = cgroup_read_number(dir, "memory.usage_in_bytes");

	if (err == EBUSY && used >= 0)
		return cell_err_param(
			e, PARAM_MEMORY, 0, err,
			"%lld bytes is below what the jail uses (%lld bytes), and "
			"the kernel could not reclaim it: write %s/memory.limit_in_bytes",
			limit, used, dir);
	errno = err;
	return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.limit_in_bytes", e);
}

/* cell-oci update of memory and swap.  memory + swap (memsw) may never
 * be below memory: the one that grows is written first.  Memory alone
 * keeps the swap beyond it the jail had; a host that does not account
 * swap has no memsw, an error only when swap is asked. */
static int set_memory(const char *dir, const struct jail_limits *l, struct cell_err *e)
{
	long long cur = cgroup_read_number(dir, "memory.limit_in_bytes");
	long long cur_sw = cgroup_read_number(dir, "memory.memsw.limit_in_bytes");
	long long mem = l->memory >= 0 ? l->memory : cur, total = -1;
	bool has_sw = cgroup_file_exists(dir, "memory.memsw.limit_in_bytes");

	if (l->swap >= 0 && !has_sw)
		return cgroup_pin_swap(dir, "memory.memsw.limit_in_bytes", 0, l, e);
	if (l->swap >= 0)
		total = mem + l->swap;
	else if (has_sw && cur >= 0 && cur_sw >= 0 && cur_sw < V1_UNLIMITED)
		total = mem + (cur_sw - cur);
	if (total >= 0 && (cur_sw < 0 || total > cur_sw) &&
	    cgroup_write_ll(dir, "memory.memsw.limit_in_bytes", total) < 0)
		return cgroup_limit_failed(PARAM_SWAP, dir, "memory.memsw.limit_in_bytes", e);
	if (l->memory >= 0 && cgroup_write_ll(dir, "memory.limit_in_bytes", l->memory) < 0)
		return memory_refused(dir, l->memory, e);
	if (total >= 0 && cgroup_write_ll(dir, "memory.memsw.limit_in_bytes", total) < 0)
		return cgroup_limit_failed(l->swap >= 0 ? PARAM_SWAP : PARAM_MEMORY, dir,
					   "memory.memsw.limit_in_bytes", e);
	return 0;
}

static int set_limits(const struct cgroup *cg, const struct jail_limits *l, bool skip_cpus,
		      struct cell_err *e)
{
	const char *pids = cg->dir[CGROUP_PIDS], *cpu = cg->dir[CGROUP_CPU];

	if (l->nrtask >= 0 && cgroup_write_ll(pids, "pids.max", l->nrtask) < 0)
		return cgroup_limit_failed(PARAM_NRTASK, pids, "pids.max", e);
	if ((l->memory >= 0 || l->swap >= 0) && set_memory(cg->dir[CGROUP_MEMORY], l, e) < 0)
		return -1;
	if (l->cpus_milli >= 0 && !skip_cpus) {
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

	/* Unset: no limit, the sum first (memory may never be above it). */
	if (new->memory < 0) {
		if (cgroup_file_exists(dir, "memory.memsw.limit_in_bytes") &&
		    cgroup_write(dir, "memory.memsw.limit_in_bytes", "-1") < 0)
			return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.memsw.limit_in_bytes",
						   e);
		if (cgroup_write(dir, "memory.limit_in_bytes", "-1") < 0)
			return cgroup_limit_failed(PARAM_MEMORY, dir, "memory.limit_in_bytes", e);
		return 0;
	}
	/* memory may never be above memory + swap: raise the sum first,
	 * lower it last (from no limit, the sum is none yet either). */
	if (old->memory >= 0 && new->memory > old->memory &&
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

	/* A limit unset: "max" tasks, -1 (no quota) CPU. */
	if (new->nrtask != old->nrtask &&
	    (new->nrtask < 0 ? cgroup_write(pids, "pids.max", "max")
			     : cgroup_write_ll(pids, "pids.max", new->nrtask)) < 0)
		return cgroup_limit_failed(PARAM_NRTASK, pids, "pids.max", e);
	if ((new->memory != old->memory || new->swap != old->swap) &&
	    update_memory(cg, old, new, e) < 0)
		return -1;
	if (new->cpus_milli != old->cpus_milli &&
	    cgroup_write_ll(cpu, "cpu.cfs_quota_us",
			    new->cpus_milli < 0 ? -1 : new->cpus_milli *CPU_PERIOD_US / 1000) < 0)
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

static bool frozen(const struct cgroup *cg)
{
	cleanup_free char *path = NULL;
	char buf[32];

	if (cg->dir[CGROUP_FREEZER] == NULL ||
	    asprintf(&path, "%s/freezer.state", cg->dir[CGROUP_FREEZER]) < 0)
		return false;
	return proc_read_text(path, buf, sizeof(buf)) == 0 && strncmp(buf, "FROZEN", 6) == 0;
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

/* A fresh cgroup mount of the hierarchy whose controllers are OPTS
 * ("cpu,cpuacct"), detached. */
static int fresh_cgroup(const char *opts, unsigned int attrs, struct cell_err *e)
{
	cleanup_free char *copy = strdup(opts);
	cleanup_close int fs = fsopen("cgroup", FSOPEN_CLOEXEC);
	char *save = NULL;
	int mnt;

	if (copy == NULL || fs < 0)
		return cell_err_set(e, copy ? errno : ENOMEM, "mount cgroup %s", opts);
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", "cgroup", 0) < 0)
		return cell_err_set(e, errno, "mount cgroup %s: source", opts);
	for (char *w = strtok_r(copy, ",", &save); w != NULL; w = strtok_r(NULL, ",", &save))
		if (fsconfig(fs, FSCONFIG_SET_FLAG, w, NULL, 0) < 0)
			return cell_err_set(e, errno, "mount cgroup %s: option %s", opts, w);
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs)) < 0)
		return cell_err_set(e, errno, "mount cgroup %s", opts);
	return mnt;
}

/* A tmpfs mounted on DEST, its root's fd. */
static int fresh_tmpfs(int dest, const char *target, struct cell_err *e)
{
	cleanup_close int fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	int mnt;

	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "source", "tmpfs", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", "755", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return cell_err_set(e, errno, "mount tmpfs on %s", target);
	mnt = fsmount(fs, FSMOUNT_CLOEXEC,
		      MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		return cell_err_set(e, errno, "mount tmpfs on %s", target);
	if (move_mount(mnt, "", dest, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) {
		cell_err_set(e, errno, "mount tmpfs on %s", target);
		close(mnt);
		return -1;
	}
	return mnt;
}

/* The jail CLI's place, in the fresh sysfs cell mounted (no symlink
 * can be there): by path, with mount(2), the fewest system calls on the
 * start path. */
static int mount_at_path(const struct cgroup *cg, const char *target, bool ro, struct cell_err *e)
{
	const unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC | (ro ? MS_RDONLY : 0);

	if (mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755") < 0)
		return cell_err_set(e, errno, "mount tmpfs on %s", target);
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		const char *opts = cg->opts[c];
		char path[PATH_MAX];

		if (cg->dir[c] == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", target, cgroup_ctrls[c].name);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return cell_err_set(e, errno, "mkdir %s", path);
		if (mount("cgroup", path, "cgroup", flags, opts) < 0)
			return cell_err_set(e, errno, "mount cgroup %s on %s", opts, path);
	}
	if (ro && mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | flags, NULL) < 0)
		return cell_err_set(e, errno, "remount %s read-only", target);
	return 0;
}

/* A tmpfs holding one mount per controller, like the host's.  A v1
 * mount in a cgroup namespace must name its hierarchy's controllers
 * exactly ("cpu,cpuacct" where they share one), as read by the parent
 * from the host's mountinfo.  Read-only, the tmpfs is made so last.
 * Anywhere but the jail CLI's place (DEST -1), every mount is attached
 * through a descriptor: no path in the jail's tree is walked twice. */
static int mount_jail(const struct cgroup *cg, int dest, const char *target, bool ro,
		      struct cell_err *e)
{
	const unsigned int attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC |
				   (ro ? MOUNT_ATTR_RDONLY : 0);
	struct mount_attr rdonly = {.attr_set = MOUNT_ATTR_RDONLY};
	cleanup_close int top = -1;

	if (dest < 0)
		return mount_at_path(cg, target, ro, e);
	top = fresh_tmpfs(dest, target, e);
	if (top < 0)
		return -1;
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		const char *name = cgroup_ctrls[c].name;
		cleanup_close int mnt = -1;

		if (cg->dir[c] == NULL)
			continue;
		if (mkdirat(top, name, 0755) < 0 && errno != EEXIST)
			return cell_err_set(e, errno, "mkdir %s/%s", target, name);
		mnt = fresh_cgroup(cg->opts[c], attrs, e);
		if (mnt < 0)
			return cell_err_prefix(e, "%s/%s", target, name);
		if (move_mount(mnt, "", top, name, MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return cell_err_set(e, errno, "mount cgroup %s on %s/%s", cg->opts[c],
					    target, name);
	}
	if (ro && mount_setattr(top, "", AT_EMPTY_PATH, &rdonly, sizeof(rdonly)) < 0)
		return cell_err_set(e, errno, "make %s read-only", target);
	return 0;
}

/* "made" lists only the counts that are not 1 (a cgroup_path's): a jail
 * of the jail CLI is recorded as before. */
static int to_json(const struct cgroup *cg, json_t *j)
{
	json_t *made = json_object();

	if (made == NULL)
		return -1;
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (cg->dir[c] == NULL)
			continue;
		if (json_object_set_new(j, cgroup_ctrls[c].name, json_string(cg->dir[c])) < 0 ||
		    (cg->made[c] != 1 && json_object_set_new(made, cgroup_ctrls[c].name,
							     json_integer(cg->made[c])) < 0)) {
			json_decref(made);
			return -1;
		}
	}
	if (json_object_size(made) == 0) {
		json_decref(made);
		return 0;
	}
	return json_object_set_new(j, "made", made);
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
		if (cgroup_made_from_json(
			    json_object_get(json_object_get(j, "made"), cgroup_ctrls[c].name),
			    &cg->made[c], e) < 0)
			return -1;
	}
	return 0;
}

const struct cgroup_ops cgroup_v1_ops = {
	.plan = plan,
	.make = make,
	.apply = apply,
	.resources = resources,
	.set_limits = set_limits,
	.devices = devices,
	.update = update,
	.ctrl_dir = ctrl_dir,
	.enable = enable,
	.unset = unset,
	.add_pid = add_pid,
	.freeze = freeze,
	.thaw = thaw,
	.kill = kill_all,
	.frozen = frozen,
	.usage = usage,
	.mount_jail = mount_jail,
	.to_json = to_json,
	.from_json = from_json,
};
