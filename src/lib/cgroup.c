/*
 * cgroup.c - a jail's control groups on cgroup v1/hybrid and v2.
 *
 * Both backends do the same four things: find the cgroup cell runs in
 * (from /proc/self/cgroup), create "cell-<name>" beneath it (or beneath
 * --cgroup-parent), write the limits, and remove the cgroup when the
 * jail has ended.  They differ in where the files are:
 *
 *   limit      v1 (one hierarchy per controller)      v2 (one tree)
 *   --nrtask   pids/.../pids.max                      pids.max
 *   --memory   memory/.../memory.limit_in_bytes       memory.max
 *   swap pin   memory/.../memory.memsw.limit_in_bytes memory.swap.max
 *   --cpus     cpu/.../cpu.cfs_quota_us (+period)     cpu.max
 *
 * and in how the jail gets in: on v2 the clone3() that creates the jail
 * puts it straight into its cgroup (CLONE_INTO_CGROUP); on v1 the parent
 * writes the new pid to each cgroup.procs while the child waits, so that
 * no process of the jail ever runs outside its limits.
 */
#include "cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "param.h"
#include "proc.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define CGROUP_FS	    "/sys/fs/cgroup"
#define CGROUP_DEFAULT_ROOT "/run/cell" /* cell's default state root */
#define CPU_PERIOD_US	    100000LL

static const char *const ctrl_names[CGROUP_NCTRL] = {"pids", "memory", "cpu"};

void cgroup_init(struct cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->fd = -1;
}

bool cgroup_wanted(const struct jail_spec *s)
{
	const struct jail_limits *l = &s->limits;

	return l->nrtask >= 0 || l->memory >= 0 || l->swap >= 0 || l->cpus_milli >= 0 ||
	       s->cgroup_parent != NULL;
}

/* The controllers a spec's limits use, and no others: each costs a
 * cgroup to make and remove on the start path, and one the host cannot
 * give must fail only a limit that needs it.  A --cgroup-parent without
 * limits gets a pids cgroup, so that the jail is there at all. */
static unsigned int wanted_ctrls(const struct jail_spec *s)
{
	const struct jail_limits *l = &s->limits;
	unsigned int m = 0;

	if (l->nrtask >= 0 || s->cgroup_parent != NULL)
		m |= 1U << CGROUP_PIDS;
	if (l->memory >= 0 || l->swap >= 0)
		m |= 1U << CGROUP_MEMORY;
	if (l->cpus_milli >= 0)
		m |= 1U << CGROUP_CPU;
	return m;
}

/* --- parsers ------------------------------------------------------- */

/* True when LIST (LEN bytes of words separated by SEP) holds WORD. */
static bool words_have(const char *list, size_t len, char sep, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *c = memchr(p, sep, (size_t)(end - p));
		size_t n = c ? (size_t)(c - p) : (size_t)(end - p);

		if (n == wl && memcmp(p, word, n) == 0)
			return true;
		p += n + 1;
	}
	return false;
}

static bool list_has(const char *list, size_t len, const char *word)
{
	return words_have(list, len, ',', word);
}

char *cgroup_parse_own(const char *text, const char *ctrl)
{
	const char *line = text;

	while (line != NULL && *line != '\0') {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		const char *c1 = memchr(line, ':', len);
		const char *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;

		if (c2 != NULL) {
			size_t clen = (size_t)(c2 - c1 - 1);
			bool match = ctrl == NULL
					     ? clen == 0 && (size_t)(c1 - line) == 1 && *line == '0'
					     : list_has(c1 + 1, clen, ctrl);

			if (match)
				return strndup(c2 + 1, len - (size_t)(c2 + 1 - line));
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* Undoes mountinfo's octal escapes (\040 for a space) in place. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r != '\0'; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Splits one mountinfo line into root, mount point, fstype and super
 * options (pointers into LINE, which is modified). */
static bool mountinfo_fields(char *line, char **root, char **mnt, char **fstype, char **opts)
{
	char *save = NULL, *f[6] = {NULL};
	char *tok = strtok_r(line, " ", &save);
	int i = 0;

	/* id parent major:minor root mountpoint options [optional...] - */
	for (; tok != NULL && i < 6; i++, tok = strtok_r(NULL, " ", &save))
		f[i] = tok;
	if (i < 6)
		return false;
	while (tok != NULL && strcmp(tok, "-") != 0)
		tok = strtok_r(NULL, " ", &save);
	if (tok == NULL)
		return false;
	*fstype = strtok_r(NULL, " ", &save);
	if (*fstype == NULL || strtok_r(NULL, " ", &save) == NULL) /* source */
		return false;
	*opts = strtok_r(NULL, " ", &save);
	if (*opts == NULL)
		return false;
	*root = f[3];
	*mnt = f[4];
	return true;
}

/* The controller names among a v1 mount's super options, comma-joined. */
static char *controllers_of(const char *opts)
{
	cleanup_free char *copy = strdup(opts);
	char *out = calloc(1, strlen(opts) + 1), *save = NULL;

	if (copy == NULL || out == NULL) {
		free(out);
		return NULL;
	}
	for (char *t = strtok_r(copy, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		if (strcmp(t, "rw") == 0 || strcmp(t, "ro") == 0 || strchr(t, '=') != NULL ||
		    strcmp(t, "noprefix") == 0 || strcmp(t, "clone_children") == 0 ||
		    strcmp(t, "xattr") == 0)
			continue;
		if (out[0] != '\0')
			strcat(out, ",");
		strcat(out, t);
	}
	return out;
}

int cgroup_parse_v1_mount(const char *text, const char *ctrl, char **mnt_out, char **root_out,
			  char **ctrls_out)
{
	const char *line = text;

	while (line != NULL && *line != '\0') {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		cleanup_free char *copy = strndup(line, len);
		char *root, *mnt, *fstype, *opts;

		if (copy == NULL)
			return -1;
		if (mountinfo_fields(copy, &root, &mnt, &fstype, &opts) &&
		    strcmp(fstype, "cgroup") == 0 && list_has(opts, strlen(opts), ctrl)) {
			unescape(root);
			unescape(mnt);
			*mnt_out = strdup(mnt);
			*root_out = strdup(root);
			*ctrls_out = controllers_of(opts);
			if (*mnt_out == NULL || *root_out == NULL || *ctrls_out == NULL) {
				free(*mnt_out);
				free(*root_out);
				free(*ctrls_out);
				return -1;
			}
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -1;
}

char *cgroup_join(const char *mnt, const char *root, const char *path)
{
	size_t rl = strlen(root);
	char *out;

	if (strcmp(root, "/") != 0) {
		/* A hierarchy mounted from a sub-cgroup (a container's view)
		 * only shows paths beneath its root. */
		if (strncmp(path, root, rl) != 0 || (path[rl] != '/' && path[rl] != '\0'))
			return NULL;
		path += rl;
	}
	while (*path == '/')
		path++;
	if (asprintf(&out, "%s%s%s", mnt, *path ? "/" : "", path) < 0)
		return NULL;
	return out;
}

/* --- files --------------------------------------------------------- */

/* A whole file, heap-allocated (for /proc files of unknown size). */
static char *read_all(const char *path)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf = NULL;

	if (fd < 0)
		return NULL;
	for (;;) {
		char *nb = len + 1 >= cap || buf == NULL ? realloc(buf, cap *= 2) : buf;
		ssize_t n;

		if (nb == NULL) {
			free(buf);
			return NULL;
		}
		buf = nb;
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return buf;
}

static int write_text(const char *dir, const char *file, const char *value)
{
	cleanup_free char *path = NULL;
	cleanup_close int fd = -1;
	size_t len = strlen(value);
	ssize_t n;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		n = write(fd, value, len);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

static bool file_exists(const char *dir, const char *file)
{
	cleanup_free char *path = NULL;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return false;
	return access(path, F_OK) == 0;
}

static long long read_number(const char *dir, const char *file)
{
	cleanup_free char *path = NULL;
	char buf[64];

	if (asprintf(&path, "%s/%s", dir, file) < 0 || proc_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	if (strncmp(buf, "max", 3) == 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

/* --- creation ------------------------------------------------------ */

/* The cgroup path the jail's cgroup goes beneath, in hierarchy terms:
 * --cgroup-parent when absolute, cell's own cgroup + it when relative. */
static char *parent_path(const char *cgparent, const char *own)
{
	char *out;

	if (cgparent == NULL)
		return strdup(own);
	if (cgparent[0] == '/')
		return strdup(cgparent);
	if (asprintf(&out, "%s/%s", strcmp(own, "/") == 0 ? "" : own, cgparent) < 0)
		return NULL;
	return out;
}

/* True when the cgroup at DIR has no process. */
static bool cgroup_empty(const char *dir)
{
	cleanup_free char *path = NULL;
	char buf[16];

	if (asprintf(&path, "%s/cgroup.procs", dir) < 0 ||
	    proc_read_text(path, buf, sizeof(buf)) < 0)
		return false;
	return buf[0] == '\0';
}

/* Creates DIR.  A leftover of a jail of the same name whose cell was
 * killed (empty: no process) is removed first; one in use is an error. */
static int make_dir(const char *dir, struct cell_err *e)
{
	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno == EEXIST && cgroup_empty(dir) && rmdir(dir) == 0 && mkdir(dir, 0755) == 0)
		return 0;
	if (errno == EEXIST)
		return cell_err_set(e, EBUSY, "cgroup %s", dir);
	return cell_err_set(e, errno, "create cgroup %s", dir);
}

static int limit_failed(int param, const char *dir, const char *file, struct cell_err *e)
{
	return cell_err_param(e, param, 0, errno, "write %s/%s", dir, file);
}

static int write_ll(const char *dir, const char *file, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	return write_text(dir, file, buf);
}

/* Swap beyond the memory limit: VALUE into FILE (none unless --swap).  A
 * host that does not account swap lacks FILE: an error only for --swap. */
static int pin_swap(const char *dir, const char *file, long long value, const struct jail_limits *l,
		    struct cell_err *e)
{
	if (!file_exists(dir, file))
		return l->swap < 0 ? 0
				   : cell_err_param(e, PARAM_SWAP, 0, ENOTSUP,
						    "this host does not account swap (no %s/%s)",
						    dir, file);
	if (write_ll(dir, file, value) < 0)
		return limit_failed(l->swap >= 0 ? PARAM_SWAP : PARAM_MEMORY, dir, file, e);
	return 0;
}

static int apply_v1(const struct cgroup *cg, const struct jail_limits *l, struct cell_err *e)
{
	const char *pids = cg->dir[CGROUP_PIDS], *mem = cg->dir[CGROUP_MEMORY],
		   *cpu = cg->dir[CGROUP_CPU];

	if (l->nrtask >= 0 && write_ll(pids, "pids.max", l->nrtask) < 0)
		return limit_failed(PARAM_NRTASK, pids, "pids.max", e);
	if (l->memory >= 0) {
		/* The plain limit first: memsw may never be below it. */
		if (write_ll(mem, "memory.limit_in_bytes", l->memory) < 0)
			return limit_failed(PARAM_MEMORY, mem, "memory.limit_in_bytes", e);
		/* v1 limits memory + swap together. */
		if (pin_swap(mem, "memory.memsw.limit_in_bytes",
			     l->memory + (l->swap >= 0 ? l->swap : 0), l, e) < 0)
			return -1;
	}
	if (l->cpus_milli >= 0) {
		if (write_ll(cpu, "cpu.cfs_period_us", CPU_PERIOD_US) < 0)
			return limit_failed(PARAM_CPUS, cpu, "cpu.cfs_period_us", e);
		if (write_ll(cpu, "cpu.cfs_quota_us", l->cpus_milli * CPU_PERIOD_US / 1000) < 0)
			return limit_failed(PARAM_CPUS, cpu, "cpu.cfs_quota_us", e);
	}
	return 0;
}

static int apply_v2(const struct cgroup *cg, const struct jail_limits *l, struct cell_err *e)
{
	const char *dir = cg->dir[0];
	char buf[64];

	if (l->nrtask >= 0 && write_ll(dir, "pids.max", l->nrtask) < 0)
		return limit_failed(PARAM_NRTASK, dir, "pids.max", e);
	if (l->memory >= 0) {
		if (write_ll(dir, "memory.max", l->memory) < 0)
			return limit_failed(PARAM_MEMORY, dir, "memory.max", e);
		if (pin_swap(dir, "memory.swap.max", l->swap >= 0 ? l->swap : 0, l, e) < 0)
			return -1;
		/* An out-of-memory kill takes the whole jail, as on v1 a
		 * jail whose pid 1 is killed ends. */
		if (file_exists(dir, "memory.oom.group"))
			write_text(dir, "memory.oom.group", "1");
	}
	if (l->cpus_milli >= 0) {
		snprintf(buf, sizeof(buf), "%lld %lld", l->cpus_milli * CPU_PERIOD_US / 1000,
			 CPU_PERIOD_US);
		if (write_text(dir, "cpu.max", buf) < 0)
			return limit_failed(PARAM_CPUS, dir, "cpu.max", e);
	}
	return 0;
}

/*
 * Names the jail's v1 cgroups of the controllers WANT, beneath the ones
 * the process whose /proc/PID/cgroup is SELF is in (or --cgroup-parent
 * CGPARENT).  FROM, when not NULL, gets that process's own directories.
 */
static int plan_v1(struct cgroup *cg, const char *self, unsigned int want, const char *cgparent,
		   const char *leaf, char **from, struct cell_err *e)
{
	cleanup_free char *own_text = read_all(self);
	cleanup_free char *mounts = read_all("/proc/self/mountinfo");

	if (own_text == NULL || mounts == NULL)
		return cell_err_set(e, errno, "read %s and /proc/self/mountinfo", self);
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		cleanup_free char *mnt = NULL, *root = NULL, *own = NULL, *parent = NULL;
		cleanup_free char *pdir = NULL;
		char *dir;

		if (!(want & 1U << c))
			continue;
		if (cgroup_parse_v1_mount(mounts, ctrl_names[c], &mnt, &root, &cg->opts[c]) < 0)
			return cell_err_set(e, ENOTSUP, "cgroup: no %s controller on this host",
					    ctrl_names[c]);
		own = cgroup_parse_own(own_text, ctrl_names[c]);
		if (own == NULL)
			return cell_err_set(e, ENOENT, "cgroup: cell's own %s cgroup",
					    ctrl_names[c]);
		parent = parent_path(cgparent, own);
		pdir = parent ? cgroup_join(mnt, root, parent) : NULL;
		if (pdir == NULL)
			return cell_err_set(e, ENOENT, "cgroup: %s cgroup %s is not under %s",
					    ctrl_names[c], parent ? parent : own, mnt);
		if (access(pdir, F_OK) < 0)
			return cgparent != NULL ? cell_err_param(e, PARAM_CGROUP_PARENT, 0, errno,
								 "%s", pdir)
						: cell_err_set(e, errno, "cgroup %s", pdir);
		if (asprintf(&dir, "%s/%s", pdir, leaf) < 0)
			return cell_err_set(e, ENOMEM, "cgroup");
		cg->dir[c] = dir;
		if (from != NULL && (from[c] = cgroup_join(mnt, root, own)) == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
	}
	return 0;
}

/* The controllers a v2 jail needs must be enabled for the children of
 * its parent; cell enables them if the parent allows (it cannot when
 * processes live in the parent itself: "no internal processes"). */
static int enable_v2(const char *pdir, unsigned int want, struct cell_err *e)
{
	cleanup_free char *path = NULL;
	char have[512], ctl[64];

	if (asprintf(&path, "%s/cgroup.subtree_control", pdir) < 0)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (proc_read_text(path, have, sizeof(have)) < 0)
		return cell_err_set(e, errno, "cgroup: read %s", path);
	have[strcspn(have, "\n")] = '\0';
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (!(want & 1U << c) || words_have(have, strlen(have), ' ', ctrl_names[c]))
			continue;
		snprintf(ctl, sizeof(ctl), "+%s", ctrl_names[c]);
		if (write_text(pdir, "cgroup.subtree_control", ctl) < 0) {
			cell_err_set(e, errno,
				     "cgroup: enable %s in %s/cgroup.subtree_control (try "
				     "cgroup_parent)",
				     ctrl_names[c], pdir);
			return cell_err_ref(e, PARAM_CGROUP_PARENT, "cgroup_parent");
		}
	}
	return 0;
}

/* The same on v2: one directory, in cg->dir[0] (and FROM[0]). */
static int plan_v2(struct cgroup *cg, const char *self, const char *cgparent, const char *leaf,
		   char **from, struct cell_err *e)
{
	cleanup_free char *own_text = read_all(self);
	cleanup_free char *own = NULL, *parent = NULL, *pdir = NULL;
	char *dir;

	if (own_text == NULL)
		return cell_err_set(e, errno, "read %s", self);
	own = cgroup_parse_own(own_text, NULL);
	if (own == NULL)
		return cell_err_set(e, ENOENT, "cgroup: the unified cgroup in %s", self);
	parent = parent_path(cgparent, own);
	pdir = parent ? cgroup_join(CGROUP_FS, "/", parent) : NULL;
	if (pdir == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (access(pdir, F_OK) < 0)
		return cgparent != NULL
			       ? cell_err_param(e, PARAM_CGROUP_PARENT, 0, errno, "%s", pdir)
			       : cell_err_set(e, errno, "cgroup %s", pdir);
	if (asprintf(&dir, "%s/%s", pdir, leaf) < 0)
		return cell_err_set(e, ENOMEM, "cgroup");
	cg->dir[0] = dir;
	if (from != NULL && (from[0] = cgroup_join(CGROUP_FS, "/", own)) == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	return 0;
}

/* Forgets the planned directories from controller FROM on: they were
 * not made, and a cgroup cell did not make is never removed. */
static void forget_from(struct cgroup *cg, int from)
{
	for (int c = from; c < CGROUP_NCTRL; c++) {
		free(cg->dir[c]);
		cg->dir[c] = NULL;
	}
}

/* Makes the planned directories and writes the limits. */
static int make_planned(struct cgroup *cg, const struct jail_spec *s, struct cell_err *e)
{
	if (cg->layout == CGROUP_V1) {
		for (int c = 0; c < CGROUP_NCTRL; c++)
			if (cg->dir[c] != NULL && make_dir(cg->dir[c], e) < 0) {
				forget_from(cg, c);
				return -1;
			}
		return apply_v1(cg, &s->limits, e);
	}
	{
		cleanup_free char *pdir = strdup(cg->dir[0]);

		if (pdir == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
		*strrchr(pdir, '/') = '\0';
		if (enable_v2(pdir, wanted_ctrls(s), e) < 0 || make_dir(cg->dir[0], e) < 0) {
			forget_from(cg, 0);
			return -1;
		}
	}
	cg->fd = open(cg->dir[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->fd < 0)
		return cell_err_set(e, errno, "open cgroup %s", cg->dir[0]);
	return apply_v2(cg, &s->limits, e);
}

static int host_layout(enum cgroup_layout *out, struct cell_err *e)
{
	struct statfs st;

	if (statfs(CGROUP_FS, &st) < 0)
		return cell_err_set(e, errno, "cgroup: %s", CGROUP_FS);
	*out = st.f_type == CGROUP2_SUPER_MAGIC ? CGROUP_V2 : CGROUP_V1;
	return 0;
}

/* The jail's cgroup name: "cell-NAME" under the default state root;
 * under another, "cell-HASH-NAME", HASH naming the state root, so that
 * jails of one name under two state roots never share a cgroup. */
static int leaf_name(const char *state_root, const char *name, char *out, size_t size)
{
	uint32_t h = 2166136261U; /* FNV-1a */

	if (state_root == NULL || strcmp(state_root, CGROUP_DEFAULT_ROOT) == 0)
		return snprintf(out, size, "cell-%s", name) < (int)size ? 0 : -1;
	for (const char *p = state_root; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 16777619U;
	return snprintf(out, size, "cell-%08x-%s", h, name) < (int)size ? 0 : -1;
}

int cgroup_check_cpus(long long milli, bool unused, struct cell_err *e)
{
	cpu_set_t set;
	int n;

	if (milli < 0 || sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	n = CPU_COUNT(&set);
	if (milli <= (long long)n * 1000)
		return 0;
	return cell_err_param(e, PARAM_CPUS, 0, 0, "more than the %d CPU%s cell may run on", n,
			      n == 1 ? "" : "s");
}

int cgroup_plan(struct cgroup *cg, const struct jail_spec *s, const char *state_root,
		struct cell_err *e)
{
	char leaf[JAIL_NAME_MAX + 16];
	int ret;

	cgroup_init(cg);
	if (!cgroup_wanted(s))
		return 0;
	if (leaf_name(state_root, s->name, leaf, sizeof(leaf)) < 0)
		return cell_err_set(e, ENAMETOOLONG, "cgroup of %s", s->name);
	if (host_layout(&cg->layout, e) < 0) {
		cg->layout = CGROUP_NONE;
		return -1;
	}
	ret = cg->layout == CGROUP_V2
		      ? plan_v2(cg, "/proc/self/cgroup", s->cgroup_parent, leaf, NULL, e)
		      : plan_v1(cg, "/proc/self/cgroup", wanted_ctrls(s), s->cgroup_parent, leaf,
				NULL, e);
	if (ret < 0)
		cgroup_release(cg);
	return ret;
}

int cgroup_make(struct cgroup *cg, const struct jail_spec *s, struct cell_err *e)
{
	struct cell_err ignored;

	if (cg->layout == CGROUP_NONE)
		return 0;
	if (make_planned(cg, s, e) < 0) {
		cgroup_destroy(cg, &ignored);
		return -1;
	}
	return 0;
}

int cgroup_create(struct cgroup *cg, const struct jail_spec *s, const char *state_root,
		  struct cell_err *e)
{
	if (cgroup_plan(cg, s, state_root, e) < 0)
		return -1;
	return cgroup_make(cg, s, e);
}

/* The directory holding controller C's files, NULL when the jail has no
 * cgroup of that controller. */
static const char *ctrl_dir(const struct cgroup *cg, int c)
{
	static const char *const probe[] = {"pids.max", "memory.max", "cpu.max"};

	if (cg->layout == CGROUP_V1)
		return cg->dir[c];
	if (cg->layout == CGROUP_V2 && cg->dir[0] != NULL && file_exists(cg->dir[0], probe[c]))
		return cg->dir[0];
	return NULL;
}

static int update_memory(const struct cgroup *cg, const struct jail_limits *old,
			 const struct jail_limits *new, struct cell_err *e)
{
	const char *dir = ctrl_dir(cg, CGROUP_MEMORY);
	long long swap = new->swap >= 0 ? new->swap : 0;

	if (cg->layout == CGROUP_V2) {
		if (write_ll(dir, "memory.max", new->memory) < 0)
			return limit_failed(PARAM_MEMORY, dir, "memory.max", e);
		return pin_swap(dir, "memory.swap.max", swap, new, e);
	}
	/* v1: memory may never be above memory + swap: raise the sum first,
	 * lower it last. */
	if (new->memory > old->memory &&
	    pin_swap(dir, "memory.memsw.limit_in_bytes", new->memory + swap, new, e) < 0)
		return -1;
	if (write_ll(dir, "memory.limit_in_bytes", new->memory) < 0)
		return limit_failed(PARAM_MEMORY, dir, "memory.limit_in_bytes", e);
	return pin_swap(dir, "memory.memsw.limit_in_bytes", new->memory + swap, new, e);
}

static int update(const struct cgroup *cg, const struct jail_limits *old,
		  const struct jail_limits *new, struct cell_err *e)
{
	char buf[64];

	if (new->nrtask != old->nrtask &&
	    write_ll(ctrl_dir(cg, CGROUP_PIDS), "pids.max", new->nrtask) < 0)
		return limit_failed(PARAM_NRTASK, ctrl_dir(cg, CGROUP_PIDS), "pids.max", e);
	if ((new->memory != old->memory || new->swap != old->swap) &&
	    update_memory(cg, old, new, e) < 0)
		return -1;
	if (new->cpus_milli != old->cpus_milli) {
		const char *dir = ctrl_dir(cg, CGROUP_CPU);
		long long quota = new->cpus_milli *CPU_PERIOD_US / 1000;

		if (cg->layout == CGROUP_V2) {
			snprintf(buf, sizeof(buf), "%lld %lld", quota, CPU_PERIOD_US);
			if (write_text(dir, "cpu.max", buf) < 0)
				return limit_failed(PARAM_CPUS, dir, "cpu.max", e);
		} else if (write_ll(dir, "cpu.cfs_quota_us", quota) < 0) {
			return limit_failed(PARAM_CPUS, dir, "cpu.cfs_quota_us", e);
		}
	}
	return 0;
}

int cgroup_update(const struct cgroup *cg, const struct jail_limits *old,
		  const struct jail_limits *new, struct cell_err *e)
{
	static const int param[] = {PARAM_NRTASK, PARAM_MEMORY, PARAM_CPUS};
	bool changed[CGROUP_NCTRL] = {
		new->nrtask != old->nrtask,
		new->memory != old->memory || new->swap != old->swap,
		new->cpus_milli != old->cpus_milli,
	};
	struct cell_err ignored;

	/* Every limit checked before any is written. */
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (changed[c] && ctrl_dir(cg, c) == NULL) {
			cell_err_param(e,
				       c == CGROUP_MEMORY && new->memory == old->memory ? PARAM_SWAP
											: param[c],
				       0, 0,
				       "the jail has no %s cgroup (it was started without %s)",
				       ctrl_names[c], param_get(param[c])->name);
			return cell_err_ref(e, param[c], param_get(param[c])->name);
		}
	if ((changed[CGROUP_PIDS] && new->nrtask < 0) ||
	    (changed[CGROUP_MEMORY] && new->memory < 0) ||
	    (changed[CGROUP_CPU] && new->cpus_milli < 0))
		return cell_err_set(e, 0, "a cgroup limit cannot be unset in a running jail");
	if (update(cg, old, new, e) < 0) {
		update(cg, new, old, &ignored); /* back to where it was */
		return -1;
	}
	return 0;
}

/* rmdir, waiting up to ~2 s while the kernel finishes emptying it: the
 * last tasks of a jail leave their cgroup shortly after its pid 1 is
 * reaped. */
static int remove_dir(const char *dir)
{
	struct timespec t = {0, 1000000};

	for (int i = 0; i < 40; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		nanosleep(&t, NULL);
		if (t.tv_nsec < 64000000)
			t.tv_nsec *= 2;
	}
	return -1;
}

/* --- cell set: cgroups a running jail did not start with ----------- */

static unsigned int changed_ctrls(const struct jail_limits *old, const struct jail_limits *new)
{
	return (new->nrtask != old->nrtask ? 1U << CGROUP_PIDS : 0) |
	       (new->memory != old->memory || new->swap != old->swap ? 1U << CGROUP_MEMORY : 0) |
	       (new->cpus_milli != old->cpus_milli ? 1U << CGROUP_CPU : 0);
}

/* L with only the limits of the controllers CTRLS. */
static struct jail_limits limits_of(const struct jail_limits *l, unsigned int ctrls)
{
	struct jail_limits out = *l;

	if (!(ctrls & 1U << CGROUP_PIDS))
		out.nrtask = -1;
	if (!(ctrls & 1U << CGROUP_MEMORY))
		out.memory = out.swap = -1;
	if (!(ctrls & 1U << CGROUP_CPU))
		out.cpus_milli = -1;
	return out;
}

/* Whether dir[C] is one of the directories of controllers CTRLS: one
 * per controller on v1, dir[0] for all on v2. */
static bool dir_of(const struct cgroup *cg, unsigned int ctrls, int c)
{
	if (cg->layout == CGROUP_V2)
		return c == 0 && ctrls != 0;
	return (ctrls & 1U << c) != 0;
}

/* Controllers whose limits L sets. */
static unsigned int set_ctrls(const struct jail_limits *l)
{
	struct jail_limits none = limits_of(l, 0);

	return changed_ctrls(&none, l);
}

struct jail_limits cgroup_grown_limits(const struct cgroup_growth *g, const struct jail_limits *old,
				       const struct jail_limits *new)
{
	unsigned int grown = g->made | g->enabled;
	struct jail_limits out = *old;

	if (grown & 1U << CGROUP_PIDS)
		out.nrtask = new->nrtask;
	if (grown & 1U << CGROUP_MEMORY) {
		out.memory = new->memory;
		out.swap = new->swap;
	}
	if (grown & 1U << CGROUP_CPU)
		out.cpus_milli = new->cpus_milli;
	return out;
}

void cgroup_growth_init(struct cgroup_growth *g)
{
	memset(g, 0, sizeof(*g));
}

void cgroup_growth_free(struct cgroup_growth *g)
{
	for (int c = 0; c < CGROUP_NCTRL; c++)
		free(g->from[c]);
	cgroup_growth_init(g);
}

int cgroup_grow_plan(struct cgroup *cg, const struct jail_limits *old,
		     const struct jail_limits *new, const char *cgparent, pid_t pid1,
		     const char *state_root, const char *name, struct cgroup_growth *g,
		     struct cell_err *e)
{
	char leaf[JAIL_NAME_MAX + 16], self[64];
	unsigned int changed = changed_ctrls(old, new), want = 0;
	enum cgroup_layout layout = cg->layout;
	struct cgroup add;
	int ret;

	/* A directory recorded but missing is one a killed cell set named
	 * and never made: planned again. */
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (!(changed & 1U << c))
			continue;
		if (ctrl_dir(cg, c) == NULL || access(ctrl_dir(cg, c), F_OK) < 0)
			want |= 1U << c;
		else if (!(set_ctrls(old) & 1U << c))
			g->resumed |= 1U << c; /* made by a set killed before its end */
	}
	if (want == 0)
		return 0;
	if (layout == CGROUP_NONE && host_layout(&layout, e) < 0)
		return -1;
	if (layout == CGROUP_V2 && cg->dir[0] != NULL && access(cg->dir[0], F_OK) == 0) {
		g->enabled = want; /* one tree: the controllers are enabled for it */
		return 0;
	}
	if (leaf_name(state_root, name, leaf, sizeof(leaf)) < 0)
		return cell_err_set(e, ENAMETOOLONG, "cgroup of %s", name);
	/* Beneath the cgroups the jail's processes are in: where the cell
	 * that started it ran, not where this one runs. */
	snprintf(self, sizeof(self), "/proc/%d/cgroup", (int)pid1);
	cgroup_init(&add);
	add.layout = layout;
	ret = layout == CGROUP_V2 ? plan_v2(&add, self, cgparent, leaf, g->from, e)
				  : plan_v1(&add, self, want, cgparent, leaf, g->from, e);
	if (ret < 0) {
		cgroup_release(&add);
		cgroup_growth_free(g);
		return -1;
	}
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (add.dir[c] == NULL)
			continue;
		free(cg->dir[c]);
		free(cg->opts[c]);
		cg->dir[c] = add.dir[c];
		cg->opts[c] = add.opts[c];
		add.dir[c] = add.opts[c] = NULL;
	}
	cg->layout = layout;
	g->made = want;
	return 0;
}

int cgroup_grow_make(const struct cgroup *cg, const struct jail_limits *new,
		     struct cgroup_growth *g, struct cell_err *e)
{
	struct jail_limits only = limits_of(new, g->made | g->enabled);
	cleanup_free char *pdir = NULL;
	unsigned int made = 0;

	if (g->enabled != 0) {
		pdir = strdup(cg->dir[0]);
		if (pdir == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
		*strrchr(pdir, '/') = '\0';
		return enable_v2(pdir, g->enabled, e) < 0 ? -1 : apply_v2(cg, &only, e);
	}
	if (cg->layout == CGROUP_V2) {
		pdir = strdup(cg->dir[0]);
		if (pdir == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
		*strrchr(pdir, '/') = '\0';
		if (enable_v2(pdir, g->made, e) < 0 || make_dir(cg->dir[0], e) < 0)
			return -1;
		made = g->made;
	} else {
		for (int c = 0; c < CGROUP_NCTRL; c++) {
			if (!(g->made & 1U << c))
				continue;
			if (make_dir(cg->dir[c], e) < 0)
				goto fail;
			made |= 1U << c;
		}
	}
	if ((cg->layout == CGROUP_V2 ? apply_v2(cg, &only, e) : apply_v1(cg, &only, e)) == 0)
		return 0;
fail:
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if ((cg->layout == CGROUP_V2 ? c == 0 && made : made & 1U << c))
			rmdir(cg->dir[c]);
	return -1;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The pids in DIR's cgroup.procs, sorted. */
static int read_procs(const char *dir, pid_t **out, size_t *n, struct cell_err *e)
{
	cleanup_free char *path = NULL, *text = NULL;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (asprintf(&path, "%s/cgroup.procs", dir) < 0)
		return cell_err_set(e, ENOMEM, "cgroup");
	text = read_all(path);
	if (text == NULL)
		return cell_err_set(e, errno, "read %s", path);
	for (char *p = text; *p != '\0';) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p)
			break;
		if (*n == cap) {
			pid_t *np = realloc(*out, (cap = cap * 2 + 16) * sizeof(pid_t));

			if (np == NULL) {
				free(*out);
				*out = NULL;
				return cell_err_set(e, ENOMEM, "read %s", path);
			}
			*out = np;
		}
		(*out)[(*n)++] = (pid_t)v;
		p = end + (*end == '\n');
	}
	if (*n > 1)
		qsort(*out, *n, sizeof(pid_t), cmp_pid);
	return 0;
}

int cgroup_grow_adopt(const struct cgroup *cg, const struct cgroup_growth *g, const pid_t *pids,
		      size_t n, struct cell_err *e)
{
	cleanup_free pid_t *in = NULL;
	size_t nin = 0;
	int first = -1, moved = 0;

	for (int c = 0; c < CGROUP_NCTRL && first < 0; c++)
		if (dir_of(cg, g->made | g->resumed, c))
			first = c;
	if (first < 0)
		return 0;
	/* Each process goes into all of them at once: one is enough to
	 * tell which are in. */
	if (read_procs(cg->dir[first], &in, &nin, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char buf[16];
		bool gone = false;

		if (bsearch(&pids[i], in, nin, sizeof(pid_t), cmp_pid) != NULL)
			continue;
		snprintf(buf, sizeof(buf), "%d", (int)pids[i]);
		for (int c = first; c < CGROUP_NCTRL && !gone; c++) {
			if (!dir_of(cg, g->made | g->resumed, c) ||
			    write_text(cg->dir[c], "cgroup.procs", buf) == 0)
				continue;
			if (errno != ESRCH)
				return cell_err_set(e, errno, "move pid %d into cgroup %s",
						    (int)pids[i], cg->dir[c]);
			gone = true; /* ended meanwhile, or a zombie: it forks no more */
		}
		if (!gone)
			moved++;
	}
	return moved;
}

void cgroup_grow_undo(struct cgroup *cg, struct cgroup_growth *g)
{
	static const char *const unset[] = {"pids.max", "memory.max", "cpu.max"};
	static const char *const unset_value[] = {"max", "max", "max 100000"};

	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (g->enabled & 1U << c)
			write_text(cg->dir[0], unset[c], unset_value[c]);
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (!dir_of(cg, g->made, c))
			continue;
		/* Back to where they were, until none is left (one that
		 * forks meanwhile has its child in here too). */
		for (int walk = 0; walk < 64 && g->from[c] != NULL; walk++) {
			cleanup_free pid_t *in = NULL;
			size_t nin = 0;
			struct cell_err ignored;

			if (read_procs(cg->dir[c], &in, &nin, &ignored) < 0 || nin == 0)
				break;
			for (size_t i = 0; i < nin; i++) {
				char buf[16];

				snprintf(buf, sizeof(buf), "%d", (int)in[i]);
				write_text(g->from[c], "cgroup.procs", buf);
			}
		}
		remove_dir(cg->dir[c]);
		free(cg->dir[c]);
		free(cg->opts[c]);
		cg->dir[c] = cg->opts[c] = NULL;
	}
	if (cg->dir[0] == NULL && cg->dir[1] == NULL && cg->dir[2] == NULL)
		cg->layout = CGROUP_NONE;
	g->made = g->enabled = 0;
}

int cgroup_add_pid(const struct cgroup *cg, pid_t pid, struct cell_err *e)
{
	char buf[16];

	if (cg->layout != CGROUP_V1)
		return 0;
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (cg->dir[c] != NULL && write_text(cg->dir[c], "cgroup.procs", buf) < 0)
			return cell_err_set(e, errno, "move pid %d into cgroup %s", (int)pid,
					    cg->dir[c]);
	return 0;
}

/* --- inside the jail ----------------------------------------------- */

int cgroup_mount_jail(const struct cgroup *cg, struct cell_err *e)
{
	const unsigned long ro = MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (cg->layout == CGROUP_NONE)
		return 0;
	if (cg->layout == CGROUP_V2) {
		if (mount("cgroup2", CGROUP_FS, "cgroup2", ro, NULL) < 0)
			return cell_err_set(e, errno, "mount cgroup2 on %s", CGROUP_FS);
		return 0;
	}
	/* v1: a tmpfs holding one mount per controller, like the host's.
	 * A v1 mount in a cgroup namespace must name its hierarchy's
	 * controllers exactly ("cpu,cpuacct" where they share one), as
	 * read by the parent from the host's mountinfo. */
	if (mount("tmpfs", CGROUP_FS, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755") < 0)
		return cell_err_set(e, errno, "mount tmpfs on %s", CGROUP_FS);
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		const char *opts = cg->opts[c];
		char path[64];

		if (cg->dir[c] == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", CGROUP_FS, ctrl_names[c]);
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return cell_err_set(e, errno, "mkdir %s", path);
		if (mount("cgroup", path, "cgroup", ro, opts) < 0)
			return cell_err_set(e, errno, "mount cgroup %s on %s", opts, path);
	}
	if (mount(NULL, CGROUP_FS, NULL, MS_REMOUNT | MS_BIND | ro, NULL) < 0)
		return cell_err_set(e, errno, "remount %s read-only", CGROUP_FS);
	return 0;
}

/* --- removal ------------------------------------------------------- */

int cgroup_destroy(struct cgroup *cg, struct cell_err *e)
{
	int ret = 0;

	if (cg->layout == CGROUP_V2 && cg->dir[0] != NULL && file_exists(cg->dir[0], "cgroup.kill"))
		write_text(cg->dir[0], "cgroup.kill", "1");
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (cg->dir[c] == NULL)
			continue;
		if (remove_dir(cg->dir[c]) < 0 && ret == 0)
			ret = cell_err_set(e, errno, "remove cgroup %s", cg->dir[c]);
	}
	cgroup_release(cg);
	return ret;
}

void cgroup_release(struct cgroup *cg)
{
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		free(cg->dir[c]);
		free(cg->opts[c]);
	}
	if (cg->fd >= 0)
		close(cg->fd);
	cgroup_init(cg);
}

/* --- state and use ------------------------------------------------- */

json_t *cgroup_to_json(const struct cgroup *cg)
{
	json_t *j;

	if (cg->layout == CGROUP_NONE)
		return NULL;
	if (cg->layout == CGROUP_V2)
		return json_pack("{s:s, s:s}", "layout", "v2", "path", cg->dir[0]);
	j = json_pack("{s:s}", "layout", "v1");
	for (int c = 0; j != NULL && c < CGROUP_NCTRL; c++)
		if (cg->dir[c] != NULL &&
		    json_object_set_new(j, ctrl_names[c], json_string(cg->dir[c])) < 0) {
			json_decref(j);
			return NULL;
		}
	return j;
}

static int dup_string(char **out, const json_t *v, struct cell_err *e)
{
	if (v == NULL)
		return 0;
	if (!json_is_string(v))
		return cell_err_set(e, EINVAL, "cgroup: not a path");
	*out = strdup(json_string_value(v));
	return *out == NULL ? cell_err_set(e, ENOMEM, "cgroup") : 0;
}

int cgroup_from_json(struct cgroup *cg, const json_t *j, struct cell_err *e)
{
	const char *layout;

	cgroup_init(cg);
	if (j == NULL || json_is_null(j))
		return 0;
	layout = json_string_value(json_object_get(j, "layout"));
	if (layout == NULL)
		return cell_err_set(e, EINVAL, "cgroup: no layout");
	if (strcmp(layout, "v2") == 0) {
		cg->layout = CGROUP_V2;
		return dup_string(&cg->dir[0], json_object_get(j, "path"), e);
	}
	if (strcmp(layout, "v1") != 0)
		return cell_err_set(e, EINVAL, "cgroup: layout %s", layout);
	cg->layout = CGROUP_V1;
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (dup_string(&cg->dir[c], json_object_get(j, ctrl_names[c]), e) < 0) {
			cgroup_release(cg);
			return -1;
		}
	return 0;
}

static long long stat_field(const char *dir, const char *file, const char *key)
{
	cleanup_free char *path = NULL;
	char buf[2048];
	size_t kl = strlen(key);

	if (asprintf(&path, "%s/%s", dir, file) < 0 || proc_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	for (char *line = buf; line != NULL;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (strncmp(line, key, kl) == 0 && line[kl] == ' ')
			return strtoll(line + kl + 1, NULL, 10);
	return -1;
}

void cgroup_usage(const struct cgroup *cg, struct cgroup_usage *u)
{
	u->tasks = u->memory = u->memory_peak = u->cpu_usec = -1;
	if (cg->layout == CGROUP_V2 && cg->dir[0] != NULL) {
		u->tasks = read_number(cg->dir[0], "pids.current");
		u->memory = read_number(cg->dir[0], "memory.current");
		u->memory_peak = read_number(cg->dir[0], "memory.peak");
		u->cpu_usec = stat_field(cg->dir[0], "cpu.stat", "usage_usec");
	} else if (cg->layout == CGROUP_V1) {
		if (cg->dir[CGROUP_PIDS] != NULL)
			u->tasks = read_number(cg->dir[CGROUP_PIDS], "pids.current");
		if (cg->dir[CGROUP_MEMORY] != NULL) {
			u->memory = read_number(cg->dir[CGROUP_MEMORY], "memory.usage_in_bytes");
			u->memory_peak =
				read_number(cg->dir[CGROUP_MEMORY], "memory.max_usage_in_bytes");
		}
	}
}
