/*
 * cgroup.c - a jail's control groups: the interface, and what the two
 * backends share.
 *
 * Both backends do the same things: find the cgroup cell runs in (from
 * /proc/self/cgroup), create "cell-<name>" beneath it (or beneath
 * --cgroup-parent), write the limits and the device rules, add the
 * jail's processes, freeze, thaw and kill them for `cell stop`, and
 * remove the cgroups when the jail has ended.  This file decides which
 * controllers (the table below), where, in what order and what to undo;
 * cgroup_v1.c and cgroup_v2.c (cgroup_backend.h) say how, where they
 * differ:
 *
 *   limit        v1 (one hierarchy per controller)      v2 (one tree)
 *   --nrtask     pids/.../pids.max                      pids.max
 *   --memory     memory/.../memory.limit_in_bytes       memory.max
 *   swap pin     memory/.../memory.memsw.limit_in_bytes memory.swap.max
 *   --cpus       cpu/.../cpu.cfs_quota_us (+period)     cpu.max
 *   device rules devices/.../devices.deny, .allow       an eBPF device program
 *   (stop)       freezer/.../freezer.state              cgroup.freeze, cgroup.kill
 *   cpu shares   cpu/.../cpu.shares                     cpu.weight (converted)
 *   quota/period cpu/.../cpu.cfs_quota_us, _period_us   cpu.max
 *   cpuset       cpuset/.../cpuset.cpus, .mems          cpuset.cpus, .mems
 *   reservation  memory/.../memory.soft_limit_in_bytes  memory.low
 *   blkio weight blkio/.../blkio.weight or .bfq.weight  io.weight or io.bfq.weight
 *   unified      (an error)                             each file named
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
#include <dirent.h>
#include <linux/openat2.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "cleanup.h"
#include "param.h"
#include "proc.h"
#include "rootless.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define CGROUP_DEFAULT_ROOT "/run/cell" /* cell's default state root */

/* The controllers, and what of a spec needs each.  Each costs a cgroup
 * to make and remove on the start path (v1), and one the host cannot
 * give must fail only what needs it: a jail gets only those its spec
 * needs, and the freezer whenever it has cgroups at all (when it can). */
const struct cgroup_ctrl_info cgroup_ctrls[CGROUP_NCTRL] = {
	[CGROUP_PIDS] = {"pids", "pids", "pids", PARAM_NRTASK,
			 CGROUP_NEEDS_NRTASK | CGROUP_NEEDS_PARENT | CGROUP_NEEDS_ALWAYS, false},
	[CGROUP_MEMORY] = {"memory", "memory", "memory", PARAM_MEMORY,
			   CGROUP_NEEDS_MEMORY | CGROUP_NEEDS_ALWAYS, false},
	[CGROUP_CPU] = {"cpu", "cpu", "cpu", PARAM_CPUS, CGROUP_NEEDS_CPUS | CGROUP_NEEDS_ALWAYS,
			false},
	[CGROUP_DEVICES] = {"devices", "devices", NULL, -1,
			    CGROUP_NEEDS_DEVICES | CGROUP_NEEDS_ALWAYS, false},
	/* Optional: without it `cell stop` kills as before, through the end
	 * of the jail's pid namespace. */
	[CGROUP_FREEZER] = {"freezer", "freezer", NULL, -1, CGROUP_NEEDS_ANY, true},
	/* An OCI container has them (so that `update` can set them later)
	 * where the host does; the jail CLI has no parameter of theirs. */
	[CGROUP_CPUSET] = {"cpuset", "cpuset", "cpuset", -1,
			   CGROUP_NEEDS_CPUSET | CGROUP_NEEDS_ALWAYS, false},
	[CGROUP_BLKIO] = {"blkio", "blkio", "io", -1, CGROUP_NEEDS_BLKIO | CGROUP_NEEDS_ALWAYS,
			  false},
};

void cgroup_init(struct cgroup *cg)
{
	memset(cg, 0, sizeof(*cg));
	cg->fd = -1;
	for (int c = 0; c < CGROUP_NCTRL; c++)
		cg->made[c] = 1;
	cg->path_made = 1;
}

/* The backend of CG's layout; NULL for a jail without cgroups. */
static const struct cgroup_ops *ops(const struct cgroup *cg)
{
	return cg->layout == CGROUP_V1	 ? &cgroup_v1_ops
	       : cg->layout == CGROUP_V2 ? &cgroup_v2_ops
					 : NULL;
}

/* What of the limits L needs a controller. */
static unsigned int limits_needs(const struct jail_limits *l)
{
	return (l->nrtask >= 0 ? CGROUP_NEEDS_NRTASK : 0) |
	       (l->memory >= 0 || l->swap >= 0 ? CGROUP_NEEDS_MEMORY : 0) |
	       (l->cpus_milli >= 0 ? CGROUP_NEEDS_CPUS : 0);
}

/* What of the resources R needs a controller.  A 0 of cpu shares,
 * quota and period, of the blkio weight and the memory reservation is
 * "not set", as runc reads them. */
static unsigned int res_needs(const struct jail_resources *r)
{
	return (r->cpu_shares > 0 || r->cpu_quota > 0 || r->cpu_period > 0 ? CGROUP_NEEDS_CPUS
									   : 0) |
	       (r->cpuset_cpus != NULL || r->cpuset_mems != NULL ? CGROUP_NEEDS_CPUSET : 0) |
	       (r->memory_reservation > 0 || r->memory_swappiness >= 0 ? CGROUP_NEEDS_MEMORY : 0) |
	       (r->blkio_weight > 0 ? CGROUP_NEEDS_BLKIO : 0) |
	       (r->nunified > 0 ? CGROUP_NEEDS_ALWAYS : 0);
}

/* A cpu quota or period is given: it wins over cpus_milli. */
static bool res_cpu_bandwidth(const struct jail_resources *r)
{
	return r != NULL && (r->cpu_quota > 0 || r->cpu_period > 0);
}

static bool has_exact_path(const struct jail_spec *s)
{
	return s->cgroup_path != NULL && s->cgroup_path[0] != '\0';
}

/* A rootless jail's device rules need no cgroup: its device nodes are
 * the host's, bound, which the user may open or not as on the host (and
 * no rootless cell may attach a device program). */
static unsigned int spec_needs(const struct jail_spec *s, bool rootless)
{
	return limits_needs(&s->limits) | res_needs(&s->res) |
	       (s->ndevices > 0 && !rootless ? CGROUP_NEEDS_DEVICES : 0) |
	       (s->cgroup_parent != NULL ? CGROUP_NEEDS_PARENT : 0) |
	       (s->cgroup_always || has_exact_path(s) ? CGROUP_NEEDS_ALWAYS : 0);
}

/* The controllers whose rows name a setting of NEEDS. */
static unsigned int ctrls_of(unsigned int needs)
{
	unsigned int m = 0;

	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (cgroup_ctrls[c].needs & needs)
			m |= 1U << c;
	return m;
}

unsigned int cgroup_ctrls_for(unsigned int needs)
{
	return ctrls_of(needs != 0 ? needs | CGROUP_NEEDS_ANY : 0);
}

/* Of the controllers NEEDS wants, those the host must have: the ones a
 * setting needs (not only "any jail" or "an OCI container"), but the
 * optional rows. */
static unsigned int ctrls_needed(unsigned int needs)
{
	unsigned int m = ctrls_of(needs & ~(CGROUP_NEEDS_ANY | CGROUP_NEEDS_ALWAYS));

	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (cgroup_ctrls[c].optional)
			m &= ~(1U << c);
	return m;
}

void cgroup_spec_ctrls(const struct jail_spec *s, bool rootless, unsigned int *want,
		       unsigned int *need)
{
	unsigned int needs = spec_needs(s, rootless);
	unsigned int uni = cgroup_unified_ctrls(s->res.unified, s->res.nunified);

	*want = cgroup_ctrls_for(needs) | uni;
	*need = ctrls_needed(needs) | uni;
}

bool cgroup_wanted(const struct jail_spec *s)
{
	return spec_needs(s, false) != 0;
}

int cgroup_need_param(const struct jail_limits *l, const char *cgparent, unsigned int need)
{
	if ((need & 1U << CGROUP_PIDS) && l->nrtask >= 0)
		return PARAM_NRTASK;
	if ((need & 1U << CGROUP_MEMORY) && (l->memory >= 0 || l->swap >= 0))
		return l->memory >= 0 ? PARAM_MEMORY : PARAM_SWAP;
	if ((need & 1U << CGROUP_CPU) && l->cpus_milli >= 0)
		return PARAM_CPUS;
	if ((need & 1U << CGROUP_PIDS) && cgparent != NULL)
		return PARAM_CGROUP_PARENT;
	return -1;
}

unsigned int cgroup_ctrls_needed(unsigned int ctrls)
{
	return ctrls & ctrls_needed(~0U);
}

int cgroup_check_path(const char *path, struct cell_err *e)
{
	const char *p = path;
	bool named = false;

	while (*p != '\0') {
		size_t n = strcspn(p, "/");

		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return cell_err_set(e, 0, "cgroup path %s: a \"%.*s\" component", path,
					    (int)n, p);
		named |= n > 0;
		p += n;
		while (*p == '/')
			p++;
	}
	if (!named)
		return cell_err_set(e, 0, "cgroup path \"%s\": names no cgroup", path);
	return 0;
}

/* runc's conversion: the shares' range [2, 262144] onto [1, 10000]. */
long long cgroup_cpu_weight(long long shares)
{
	if (shares <= 0)
		return 0;
	if (shares < 2)
		shares = 2;
	if (shares > 262144)
		shares = 262144;
	return 1 + ((shares - 2) * 9999) / 262142;
}

unsigned int cgroup_unified_ctrls(const struct jail_sysctl *u, size_t n)
{
	unsigned int m = 0;

	for (size_t i = 0; i < n; i++)
		for (int c = 0; c < CGROUP_NCTRL; c++) {
			const char *v2 = cgroup_ctrls[c].v2;
			size_t len = v2 ? strlen(v2) : 0;

			if (v2 != NULL && strncmp(u[i].key, v2, len) == 0 && u[i].key[len] == '.')
				m |= 1U << c;
		}
	return m;
}

/* --- parsers ------------------------------------------------------- */

/* True when LIST (LEN bytes of words separated by SEP) holds WORD. */
bool cgroup_words_have(const char *list, size_t len, char sep, const char *word)
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
	return cgroup_words_have(list, len, ',', word);
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
char *cgroup_read_all(const char *path)
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

int cgroup_write(const char *dir, const char *file, const char *value)
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

bool cgroup_file_exists(const char *dir, const char *file)
{
	cleanup_free char *path = NULL;

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return false;
	return access(path, F_OK) == 0;
}

long long cgroup_read_number(const char *dir, const char *file)
{
	cleanup_free char *path = NULL;
	char buf[64];

	if (asprintf(&path, "%s/%s", dir, file) < 0 || proc_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	if (strncmp(buf, "max", 3) == 0)
		return -1;
	return strtoll(buf, NULL, 10);
}

int cgroup_write_ll(const char *dir, const char *file, long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld", v);
	return cgroup_write(dir, file, buf);
}

char *cgroup_parent_path(const char *cgparent, const char *own)
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

int cgroup_make_dir(const char *dir, struct cell_err *e)
{
	if (mkdir(dir, 0755) == 0)
		return 0;
	if (errno == EEXIST && cgroup_empty(dir) && rmdir(dir) == 0 && mkdir(dir, 0755) == 0)
		return 0;
	if (errno == EEXIST)
		return cell_err_set(e, EBUSY, "cgroup %s", dir);
	return cell_err_set(e, errno, "create cgroup %s", dir);
}

/* Waiting up to ~2 s: the last tasks of a jail leave their cgroup
 * shortly after its pid 1 is reaped. */
int cgroup_remove_dir(const char *dir)
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

char *cgroup_up(const char *dir, unsigned int n)
{
	char *out = strdup(dir);

	for (; out != NULL && n > 0; n--) {
		char *slash = strrchr(out, '/');

		if (slash == NULL || slash == out) {
			free(out);
			return NULL;
		}
		*slash = '\0';
	}
	return out;
}

/* A cgroup_path already there is the jail's only when empty: cell never
 * puts a jail beside processes it did not start. */
static int check_unused(const char *dir, struct cell_err *e)
{
	cleanup_free pid_t *pids = NULL;
	size_t n = 0;

	if (cgroup_read_procs(dir, &pids, &n, e) < 0)
		return -1;
	if (n > 0)
		return cell_err_set(e, EBUSY, "cgroup %s has processes in it (pid %d)", dir,
				    (int)pids[0]);
	return 0;
}

int cgroup_plan_exact(const char *dir, const char *mnt, unsigned int *made, struct cell_err *e)
{
	size_t ml = strlen(mnt);
	struct stat st;

	*made = 0;
	if (stat(dir, &st) == 0)
		return check_unused(dir, e);
	if (errno != ENOENT)
		return cell_err_set(e, errno, "cgroup %s", dir);
	/* Up to the first that is there; the hierarchy's root always is. */
	for (*made = 1;; (*made)++) {
		cleanup_free char *p = cgroup_up(dir, *made);

		if (p == NULL)
			return cell_err_set(e, ENOMEM, "cgroup %s", dir);
		if (strlen(p) <= ml || stat(p, &st) == 0)
			return 0;
		if (errno != ENOENT)
			return cell_err_set(e, errno, "cgroup %s", p);
	}
}

/* Removes the directories of DIR from N - 1 up to FROM (parents made
 * before a failure). */
static void unmake(const char *dir, unsigned int from, unsigned int n)
{
	for (unsigned int i = from; i < n; i++) {
		cleanup_free char *d = cgroup_up(dir, i);

		if (d != NULL)
			rmdir(d);
	}
}

int cgroup_make_dirs(const char *dir, unsigned int *made, cgroup_made_fn *each, void *arg,
		     struct cell_err *e)
{
	/* Top first: a cgroup's parent is made before it. */
	for (unsigned int i = *made; i-- > 0;) {
		cleanup_free char *d = cgroup_up(dir, i), *parent = cgroup_up(dir, i + 1);

		if (d == NULL || parent == NULL) {
			unmake(dir, i + 1, *made);
			return cell_err_set(e, ENOMEM, "cgroup %s", dir);
		}
		if (i == 0 && cgroup_make_dir(d, e) < 0) {
			unmake(dir, 1, *made);
			return -1;
		}
		if (i > 0 && mkdir(d, 0755) < 0) {
			if (errno == EEXIST && i == *made - 1) {
				(*made)--; /* made meanwhile by someone else: not ours */
				continue;
			}
			cell_err_set(e, errno, "create cgroup %s", d);
			unmake(dir, i + 1, *made);
			return -1;
		}
		if (each != NULL && each(d, parent, arg, e) < 0) {
			unmake(dir, i, *made);
			return -1;
		}
	}
	return 0;
}

int cgroup_remove_dirs(const char *dir, unsigned int made)
{
	if (made == 0)
		return 0;
	if (cgroup_remove_dir(dir) < 0)
		return -1;
	for (unsigned int i = 1; i < made; i++) {
		cleanup_free char *p = cgroup_up(dir, i);

		/* Busy: another jail's cgroup is beneath it now; it stays. */
		if (p == NULL || (rmdir(p) < 0 && errno != ENOENT))
			break;
	}
	return 0;
}

int cgroup_res_failed(const char *what, const char *dir, const char *file, struct cell_err *e)
{
	return cell_err_set(e, errno, "%s: write %s/%s", what, dir, file);
}

/* A unified setting names a file of the jail's cgroup: no path, and none
 * of the core's cgroup.* files, which move processes (cgroup.procs),
 * kill or freeze them, or hand out controllers: those are cell's. */
static bool unified_name_ok(const char *key)
{
	return key[0] != '\0' && key[0] != '.' && strchr(key, '/') == NULL &&
	       strncmp(key, "cgroup.", 7) != 0;
}

int cgroup_write_unified(const char *dir, const struct jail_sysctl *u, size_t n, struct cell_err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (!unified_name_ok(u[i].key))
			return cell_err_set(e, EINVAL,
					    "unified %s: not a setting of the jail's cgroup",
					    u[i].key);
		if (cgroup_write(dir, u[i].key, u[i].value) < 0)
			return cell_err_set(e, errno, "unified %s: write %s to %s/%s", u[i].key,
					    u[i].value, dir, u[i].key);
	}
	return 0;
}

int cgroup_limit_failed(int param, const char *dir, const char *file, struct cell_err *e)
{
	return cell_err_param(e, param, 0, errno, "write %s/%s", dir, file);
}

/* A host that does not account swap lacks FILE: an error only for --swap. */
int cgroup_pin_swap(const char *dir, const char *file, long long value, const struct jail_limits *l,
		    struct cell_err *e)
{
	if (!cgroup_file_exists(dir, file))
		return l->swap < 0 ? 0
				   : cell_err_param(e, PARAM_SWAP, 0, ENOTSUP,
						    "this host does not account swap (no %s/%s)",
						    dir, file);
	if (cgroup_write_ll(dir, file, value) < 0)
		return cgroup_limit_failed(l->swap >= 0 ? PARAM_SWAP : PARAM_MEMORY, dir, file, e);
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int cgroup_read_procs(const char *dir, pid_t **out, size_t *n, struct cell_err *e)
{
	cleanup_free char *path = NULL, *text = NULL;
	size_t cap = 0;

	*out = NULL;
	*n = 0;
	if (asprintf(&path, "%s/cgroup.procs", dir) < 0)
		return cell_err_set(e, ENOMEM, "cgroup");
	text = cgroup_read_all(path);
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

/* True when TEXT has the line "KEY WANT", or starts with the line WANT
 * when KEY is NULL. */
static bool file_says(const char *text, const char *key, const char *want)
{
	size_t kl = key ? strlen(key) : 0, wl = strlen(want);

	for (const char *line = text; line != NULL;
	     line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		if (key != NULL && (strncmp(line, key, kl) != 0 || line[kl] != ' '))
			continue;
		line += key ? kl + 1 : 0;
		return strncmp(line, want, wl) == 0 && (line[wl] == '\n' || line[wl] == '\0');
	}
	return false;
}

int cgroup_wait_file(const char *dir, const char *file, const char *key, const char *want, int ms)
{
	cleanup_free char *path = NULL;
	struct timespec t = {0, 100000}; /* 0.1 ms, doubling up to 16 ms */
	char buf[512];

	if (asprintf(&path, "%s/%s", dir, file) < 0)
		return -1;
	for (long waited = 0;; waited += t.tv_nsec / 1000) {
		if (proc_read_text(path, buf, sizeof(buf)) < 0)
			return -1;
		if (file_says(buf, key, want))
			return 0;
		if (waited >= ms * 1000L) {
			errno = ETIMEDOUT;
			return -1;
		}
		nanosleep(&t, NULL);
		if (t.tv_nsec < 16000000)
			t.tv_nsec *= 2;
	}
}

size_t cgroup_dirs(const struct cgroup *cg, unsigned int mask, const char **out)
{
	size_t n = 0;

	if (cg->layout == CGROUP_V2) {
		if (cg->path != NULL && mask != 0)
			out[n++] = cg->path;
		return n;
	}
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if ((mask & 1U << c) && cg->dir[c] != NULL)
			out[n++] = cg->dir[c];
	return n;
}

/* Every controller: for cgroup_dirs(), all the jail's directories. */
#define ALL_CTRLS ((1U << CGROUP_NCTRL) - 1)

/* --- creation ------------------------------------------------------ */

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

/* The text of /proc/PID/cgroup, or of /proc/self/cgroup for PID 0. */
static char *own_cgroups(pid_t pid, struct cell_err *e)
{
	char path[64];
	char *text;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	else
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	text = cgroup_read_all(path);
	if (text == NULL)
		cell_err_set(e, errno, "read %s", path);
	return text;
}

int cgroup_check_cpus(long long milli, struct cell_err *e)
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

static int v1_unified(struct cell_err *e)
{
	return cell_err_set(e, ENOTSUP,
			    "unified: cgroup v2 settings, and this host's controllers are v1");
}

/* True when the cgroup_path EXACT is beneath the delegated directory D
 * (relative paths are). */
static bool exact_in_deleg(const struct cgroup_deleg *d, const char *exact)
{
	size_t ml = strlen(d->mnt), n = strlen(d->dir) - ml;
	const char *rel = d->dir + ml; /* the directory's cgroup path */

	return exact[0] != '/' || (strncmp(exact, rel, n) == 0 && exact[n] == '/');
}

/* Rootless: the jail's cgroup in the delegated subtree, or none when
 * there is no delegation and its settings need none (refused when they
 * do: cgroup_deleg_check()). */
static int plan_rootless(struct cgroup *cg, const struct jail_spec *s, struct cgroup_where *w,
			 struct cell_err *e)
{
	struct cgroup_deleg d;
	int ret = 0;

	if (cgroup_deleg_host(&d, s->cgroup_parent, e) < 0 || cgroup_deleg_check(&d, s, e) < 0) {
		cgroup_deleg_free(&d);
		return -1;
	}
	if (d.dir != NULL && w->exact != NULL && !exact_in_deleg(&d, w->exact)) {
		if (w->need != 0)
			ret = cell_err_set(e, EPERM,
					   "cgroup path %s: outside %s, the cgroup v2 subtree "
					   "delegated to you (rootless)",
					   w->exact, d.dir);
		cgroup_deleg_free(&d);
		return ret;
	}
	if (d.dir != NULL) {
		cg->layout = CGROUP_V2;
		w->deleg = d.dir;
		w->mnt = d.mnt;
		ret = ops(cg)->plan(cg, w, NULL, e);
	}
	cgroup_deleg_free(&d);
	return ret;
}

int cgroup_plan(struct cgroup *cg, const struct jail_spec *s, const char *state_root,
		struct cell_err *e)
{
	char leaf[JAIL_NAME_MAX + 16];
	cleanup_free char *own = NULL;
	enum cgroup_layout layout = CGROUP_NONE;
	bool exact = has_exact_path(s), rl;
	struct cgroup_where w = {.cgparent = s->cgroup_parent};

	cgroup_init(cg);
	if (!cgroup_wanted(s))
		return 0;
	rl = s->mech.rootless || rootless();
	cgroup_spec_ctrls(s, rl, &w.want, &w.need);
	if (w.want == 0)
		return 0; /* rootless device rules alone */
	if (exact && cgroup_check_path(s->cgroup_path, e) < 0)
		return -1;
	if (!exact && leaf_name(state_root, s->name, leaf, sizeof(leaf)) < 0)
		return cell_err_set(e, ENAMETOOLONG, "cgroup of %s", s->name);
	if (!rl && host_layout(&layout, e) < 0)
		return -1;
	if (layout == CGROUP_V1 && s->res.nunified > 0)
		return v1_unified(e);
	if ((own = own_cgroups(0, e)) == NULL)
		return -1;
	cg->layout = layout;
	w.own_text = own;
	w.leaf = exact ? NULL : leaf;
	w.exact = exact ? s->cgroup_path : NULL;
	if (rl ? plan_rootless(cg, s, &w, e) < 0 : ops(cg)->plan(cg, &w, NULL, e) < 0) {
		cgroup_release(cg);
		return -1;
	}
	return 0;
}

int cgroup_make(struct cgroup *cg, const struct jail_spec *s, struct cell_err *e)
{
	struct cell_err ignored;
	unsigned int want, need;

	if (cg->layout == CGROUP_NONE)
		return 0;
	/* Rootless (a delegated subtree): no device program. */
	cgroup_spec_ctrls(s, cg->deleg != NULL, &want, &need);
	if (ops(cg)->make(cg, want, need, e) < 0 ||
	    ops(cg)->apply(cg, &s->limits, res_cpu_bandwidth(&s->res), e) < 0 ||
	    ops(cg)->resources(cg, &s->res, e) < 0 ||
	    (s->ndevices > 0 && cg->deleg == NULL &&
	     ops(cg)->devices(cg, s->devices, s->ndevices, e) < 0)) {
		cgroup_destroy(cg, &ignored);
		return -1;
	}
	return 0;
}

/* --- cell set: limits of a running jail ---------------------------- */

/* The controllers whose limits differ between OLD and NEW. */
static unsigned int changed_ctrls(const struct jail_limits *old, const struct jail_limits *new)
{
	unsigned int needs =
		(new->nrtask != old->nrtask ? CGROUP_NEEDS_NRTASK : 0) |
		(new->memory != old->memory || new->swap != old->swap ? CGROUP_NEEDS_MEMORY : 0) |
		(new->cpus_milli != old->cpus_milli ? CGROUP_NEEDS_CPUS : 0);
	unsigned int m = 0;

	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (cgroup_ctrls[c].needs & needs)
			m |= 1U << c;
	return m;
}

/* The controllers whose limits L sets (no freezer: it has none). */
static unsigned int set_ctrls(const struct jail_limits *l)
{
	return cgroup_ctrls_for(limits_needs(l)) & ~(1U << CGROUP_FREEZER);
}

int cgroup_update(const struct cgroup *cg, const struct jail_limits *old,
		  const struct jail_limits *new, struct cell_err *e)
{
	unsigned int changed = changed_ctrls(old, new);
	struct cell_err ignored;

	/* Every limit checked before any is written. */
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		int param = cgroup_ctrls[c].param;

		if (!(changed & 1U << c) || (ops(cg) != NULL && ops(cg)->ctrl_dir(cg, c) != NULL))
			continue;
		cell_err_param(
			e, c == CGROUP_MEMORY && new->memory == old->memory ? PARAM_SWAP : param, 0,
			0, "the jail has no %s cgroup (it was started without %s)",
			cgroup_ctrls[c].name, param_get(param)->name);
		return cell_err_ref(e, param, param_get(param)->name);
	}
	/* A limit unset ("max") is written as no limit; its cgroup stays. */
	if (changed == 0)
		return 0;
	if (ops(cg)->update(cg, old, new, e) < 0) {
		ops(cg)->update(cg, new, old, &ignored); /* back to where it was */
		return -1;
	}
	return 0;
}

/* --- cell set: cgroups a running jail did not start with ----------- */

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
	cgroup_init(&g->from);
}

void cgroup_growth_free(struct cgroup_growth *g)
{
	cgroup_release(&g->from);
	cgroup_growth_init(g);
}

/* Whether controller C's directory is recorded and there. */
static bool has_dir(const struct cgroup *cg, int c)
{
	const char *dir = ops(cg) != NULL ? ops(cg)->ctrl_dir(cg, c) : NULL;

	return dir != NULL && access(dir, F_OK) == 0;
}

/* Moves the directories ADD planned into CG. */
static void take_planned(struct cgroup *cg, struct cgroup *add)
{
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (add->dir[c] == NULL)
			continue;
		free(cg->dir[c]);
		free(cg->opts[c]);
		cg->dir[c] = take_ptr(&add->dir[c]);
		cg->opts[c] = take_ptr(&add->opts[c]);
	}
	if (add->path != NULL) {
		free(cg->path);
		cg->path = take_ptr(&add->path);
		free(cg->deleg);
		cg->deleg = take_ptr(&add->deleg);
		/* rootless: "cell" too, when no other jail had made it */
		cg->path_made = add->path_made;
	}
	cg->layout = add->layout;
}

/* Rootless: the controllers WANT of the jail's delegated subtree (its
 * recorded one; for a jail without cgroups, the one above the cgroup
 * its pid 1 is in, OWN, or CGPARENT), found into D; refused, about the
 * first limit of NEW that needs one, when it lacks one. */
static int grow_deleg(const struct cgroup *cg, const struct jail_limits *new, const char *cgparent,
		      const char *own, unsigned int want, struct cgroup_deleg *d,
		      struct cell_err *e)
{
	unsigned int lack;

	if (cgroup_deleg_host_of(d, own, cgparent, e) < 0)
		return -1;
	if (cg->deleg != NULL) {
		free(d->dir);
		d->dir = strdup(cg->deleg);
		if (d->dir == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
		d->ctrls = cgroup_deleg_ctrls(d->dir);
	}
	lack = cgroup_ctrls_needed(want) & (d->dir != NULL ? ~d->ctrls : ~0U);
	if (lack == 0)
		return 0;
	return cgroup_deleg_refuse(d, cgroup_need_param(new, NULL, lack), lack, e);
}

int cgroup_grow_check(const struct cgroup *cg, const struct jail_limits *old,
		      const struct jail_limits *new, const char *cgparent, pid_t pid1,
		      struct cell_err *e)
{
	unsigned int changed = changed_ctrls(old, new), want = 0;
	cleanup_free char *own = NULL;
	struct cgroup_deleg d;
	int ret;

	for (int c = 0; c < CGROUP_NCTRL; c++)
		if ((changed & 1U << c) && !has_dir(cg, c))
			want |= 1U << c;
	if (want == 0 || !rootless())
		return 0;
	own = own_cgroups(pid1, e);
	if (own == NULL)
		return -1;
	ret = grow_deleg(cg, new, cgparent, own, want, &d, e);
	cgroup_deleg_free(&d);
	return ret;
}

int cgroup_grow_plan(struct cgroup *cg, const struct jail_limits *old,
		     const struct jail_limits *new, const char *cgparent, pid_t pid1,
		     const char *state_root, const char *name, struct cgroup_growth *g,
		     struct cell_err *e)
{
	char leaf[JAIL_NAME_MAX + 16];
	unsigned int changed = changed_ctrls(old, new), want = 0;
	enum cgroup_layout layout = cg->layout;
	cleanup_free char *own = NULL;
	struct cgroup add;
	struct cgroup_where w;
	struct cgroup_deleg d = {0};
	int ret;

	/* A directory recorded but missing is one a killed cell set named
	 * and never made: planned again. */
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (!(changed & 1U << c))
			continue;
		if (!has_dir(cg, c))
			want |= 1U << c;
		else if (!(set_ctrls(old) & 1U << c))
			g->resumed |= 1U << c; /* made by a set killed before its end */
	}
	if (want == 0 && g->resumed == 0)
		return 0;
	/* Beneath the cgroups the jail's processes are in: where the cell
	 * that started it ran, not where this one runs. */
	own = own_cgroups(pid1, e);
	if (own == NULL)
		return -1;
	if (rootless()) {
		if (grow_deleg(cg, new, cgparent, own, want, &d, e) < 0) {
			cgroup_deleg_free(&d);
			return -1;
		}
		layout = CGROUP_V2;
	}
	if (layout == CGROUP_NONE && host_layout(&layout, e) < 0)
		return -1;
	/* A jail that gets cgroups gets a freezer too: on v1 a directory
	 * of its own (one a killed set made is moved into again). */
	if (layout == CGROUP_V1 && want != 0 && !has_dir(cg, CGROUP_FREEZER))
		want |= 1U << CGROUP_FREEZER;
	else if (layout == CGROUP_V1 && g->resumed != 0 && has_dir(cg, CGROUP_FREEZER))
		g->resumed |= 1U << CGROUP_FREEZER;
	if (want == 0) {
		cgroup_deleg_free(&d);
		return 0;
	}
	if (layout == CGROUP_V2 && cg->path != NULL && access(cg->path, F_OK) == 0) {
		g->enabled = want; /* one tree: the controllers are enabled for it */
		cgroup_deleg_free(&d);
		return 0;
	}
	if (leaf_name(state_root, name, leaf, sizeof(leaf)) < 0) {
		cgroup_deleg_free(&d);
		return cell_err_set(e, ENAMETOOLONG, "cgroup of %s", name);
	}
	cgroup_init(&add);
	add.layout = layout;
	g->from.layout = layout;
	w = (struct cgroup_where){.own_text = own,
				  .cgparent = cgparent,
				  .leaf = leaf,
				  .want = want,
				  .need = want & ctrls_needed(~0U),
				  .deleg = d.dir,
				  .mnt = d.mnt};
	ret = ops(&add)->plan(&add, &w, &g->from, e);
	cgroup_deleg_free(&d);
	if (ret < 0) {
		cgroup_release(&add);
		cgroup_growth_free(g);
		return -1;
	}
	take_planned(cg, &add);
	cgroup_release(&add);
	g->made = want;
	return 0;
}

int cgroup_grow_make(const struct cgroup *cg, const struct jail_limits *new,
		     struct cgroup_growth *g, struct cell_err *e)
{
	struct jail_limits only = limits_of(new, g->made | g->enabled);
	struct cgroup made = *cg;
	int ret = 0;

	if (g->enabled != 0)
		return ops(cg)->enable(cg, g->enabled, e) < 0 ? -1
							      : ops(cg)->apply(cg, &only, false, e);
	/* cg is the caller's (const): a copy whose unmade directories
	 * make() may forget, so that only the made ones are removed. */
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		made.dir[c] = (g->made & 1U << c) && cg->dir[c] ? strdup(cg->dir[c]) : NULL;
		made.opts[c] = NULL;
	}
	made.path = cg->path != NULL ? strdup(cg->path) : NULL;
	made.fd = -1;
	if (ops(cg)->make(&made, g->made, g->made & ctrls_needed(~0U), e) < 0 ||
	    ops(cg)->apply(cg, &only, false, e) < 0) {
		const char *dirs[CGROUP_NCTRL];
		size_t n = cgroup_dirs(&made, g->made, dirs);

		for (size_t i = 0; i < n; i++)
			rmdir(dirs[i]);
		ret = -1;
	}
	for (int c = 0; c < CGROUP_NCTRL; c++)
		free(made.dir[c]);
	free(made.path);
	if (made.fd >= 0)
		close(made.fd);
	return ret;
}

int cgroup_grow_adopt(const struct cgroup *cg, const struct cgroup_growth *g, const pid_t *pids,
		      size_t n, struct cell_err *e)
{
	const char *dirs[CGROUP_NCTRL];
	size_t ndirs = cgroup_dirs(cg, g->made | g->resumed, dirs), nin = 0;
	cleanup_free pid_t *in = NULL;
	int moved = 0;

	if (ndirs == 0)
		return 0;
	/* Each process goes into all of them at once: the first is enough
	 * to tell which are in. */
	if (cgroup_read_procs(dirs[0], &in, &nin, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char buf[16];
		bool gone = false;

		if (bsearch(&pids[i], in, nin, sizeof(pid_t), cmp_pid) != NULL)
			continue;
		snprintf(buf, sizeof(buf), "%d", (int)pids[i]);
		for (size_t d = 0; d < ndirs && !gone; d++) {
			if (cgroup_write(dirs[d], "cgroup.procs", buf) == 0)
				continue;
			if (errno != ESRCH)
				return cell_err_set(e, errno, "move pid %d into cgroup %s",
						    (int)pids[i], dirs[d]);
			gone = true; /* ended meanwhile, or a zombie: it forks no more */
		}
		if (!gone)
			moved++;
	}
	return moved;
}

/* Moves every process in DIR to FROM until none is left (one that forks
 * meanwhile has its child in DIR too). */
static void move_back(const char *dir, const char *from)
{
	for (int walk = 0; walk < 64 && from != NULL; walk++) {
		cleanup_free pid_t *in = NULL;
		size_t nin = 0;
		struct cell_err ignored;

		if (cgroup_read_procs(dir, &in, &nin, &ignored) < 0 || nin == 0)
			break;
		for (size_t i = 0; i < nin; i++) {
			char buf[16];

			snprintf(buf, sizeof(buf), "%d", (int)in[i]);
			cgroup_write(from, "cgroup.procs", buf);
		}
	}
}

void cgroup_grow_undo(struct cgroup *cg, struct cgroup_growth *g)
{
	const char *dirs[CGROUP_NCTRL], *from[CGROUP_NCTRL];
	size_t n, nfrom;

	if (ops(cg) == NULL)
		return;
	if (g->enabled != 0)
		ops(cg)->unset(cg, g->enabled);
	/* Both lists in controller order: the Ith made directory's
	 * processes came from the Ith. */
	n = cgroup_dirs(cg, g->made, dirs);
	nfrom = cgroup_dirs(&g->from, g->made, from);
	for (size_t i = 0; i < n; i++) {
		move_back(dirs[i], i < nfrom ? from[i] : NULL);
		cgroup_remove_dir(dirs[i]);
	}
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		if (cg->layout == CGROUP_V2 || !(g->made & 1U << c))
			continue;
		free(cg->dir[c]);
		free(cg->opts[c]);
		cg->dir[c] = cg->opts[c] = NULL;
	}
	if (cg->layout == CGROUP_V2 && g->made != 0) {
		free(cg->path);
		cg->path = NULL;
	}
	if (cgroup_dirs(cg, ALL_CTRLS, dirs) == 0)
		cg->layout = CGROUP_NONE;
	g->made = g->enabled = 0;
}

/* --- processes ----------------------------------------------------- */

int cgroup_add_pid(const struct cgroup *cg, pid_t pid, struct cell_err *e)
{
	return ops(cg) != NULL ? ops(cg)->add_pid(cg, pid, e) : 0;
}

static int no_cgroup(const char *what, struct cell_err *e)
{
	return cell_err_set(e, ENOENT, "%s: the jail has no cgroups", what);
}

int cgroup_freeze(const struct cgroup *cg, struct cell_err *e)
{
	return ops(cg) != NULL ? ops(cg)->freeze(cg, e) : no_cgroup("freeze", e);
}

int cgroup_thaw(const struct cgroup *cg, struct cell_err *e)
{
	return ops(cg) != NULL ? ops(cg)->thaw(cg, e) : no_cgroup("thaw", e);
}

int cgroup_kill(const struct cgroup *cg, struct cell_err *e)
{
	return ops(cg) != NULL ? ops(cg)->kill(cg, e) : no_cgroup("kill", e);
}

static int sys_openat2(int dir, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how = {.flags = (uint64_t)flags | O_CLOEXEC, .resolve = resolve};
	int fd;

	do
		fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how));
	while (fd < 0 && errno == EAGAIN);
	return fd;
}

#define NO_LINKS (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)

/* The directory DEST of the jail (its root is "/" by now), made where
 * missing, each component opened without following a symlink: a mount
 * never lands where a link in the jail's tree points. */
static int open_dest(const char *dest, struct cell_err *e)
{
	cleanup_free char *copy = strdup(dest);
	cleanup_close int dir = -1;
	char *save = NULL;
	int fd = sys_openat2(AT_FDCWD, dest, O_PATH | O_DIRECTORY, NO_LINKS);

	if (fd >= 0 || errno != ENOENT)
		return fd >= 0 ? fd : cell_err_set(e, errno, "cgroup mount point %s", dest);
	if (copy == NULL || (dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return cell_err_set(e, errno ? errno : ENOMEM, "cgroup mount point %s", dest);
	for (char *c = strtok_r(copy, "/", &save); c != NULL; c = strtok_r(NULL, "/", &save)) {
		int next;

		if (mkdirat(dir, c, 0755) < 0 && errno != EEXIST)
			return cell_err_set(e, errno, "cgroup mount point %s: mkdir %s", dest, c);
		next = sys_openat2(dir, c, O_PATH | O_DIRECTORY, NO_LINKS | RESOLVE_BENEATH);
		if (next < 0)
			return cell_err_set(e, errno, "cgroup mount point %s: %s", dest, c);
		close(dir);
		dir = next;
	}
	return take_fd(&dir);
}

int cgroup_mount_jail(const struct cgroup *cg, const char *dest, bool ro, struct cell_err *e)
{
	cleanup_close int fd = -1;

	if (ops(cg) == NULL)
		return 0;
	if (dest == NULL)
		return ops(cg)->mount_jail(cg, -1, CGROUP_JAIL_MOUNT, ro, e);
	if (dest[0] != '/')
		return cell_err_set(e, EINVAL, "cgroup mount point %s: not absolute", dest);
	fd = open_dest(dest, e);
	if (fd < 0)
		return -1;
	return ops(cg)->mount_jail(cg, fd, dest, ro, e);
}

/* --- for the OCI verbs --------------------------------------------- */

/* A growing list of pids. */
struct pidv {
	pid_t *v;
	size_t n, cap;
};

static int pidv_add(struct pidv *p, const pid_t *v, size_t n)
{
	if (n == 0)
		return 0; /* V is NULL for an empty cgroup */
	if (p->n + n > p->cap) {
		size_t cap = (p->n + n) * 2 + 16;
		pid_t *nv = realloc(p->v, cap * sizeof(pid_t));

		if (nv == NULL)
			return -1;
		p->v = nv;
		p->cap = cap;
	}
	memcpy(p->v + p->n, v, n * sizeof(pid_t));
	p->n += n;
	return 0;
}

/* A jail with a writable cgroup mount may make cgroups of its own
 * beneath its cgroup: how deep cell looks. */
#define PROCS_DEPTH 16

/* The pids of DIR and of the cgroups beneath it into P.  A cgroup
 * beneath that goes away meanwhile is skipped. */
static int collect_procs(const char *dir, int depth, struct pidv *p, struct cell_err *e)
{
	cleanup_free pid_t *pids = NULL;
	size_t n = 0;
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (cgroup_read_procs(dir, &pids, &n, e) < 0)
		return -1;
	if (pidv_add(p, pids, n) < 0)
		return cell_err_set(e, ENOMEM, "read %s", dir);
	if (depth >= PROCS_DEPTH || (d = opendir(dir)) == NULL)
		return 0;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		cleanup_free char *sub = NULL;
		struct cell_err ignored;

		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&sub, "%s/%s", dir, de->d_name) < 0) {
			sub = NULL;
			ret = cell_err_set(e, ENOMEM, "read %s", dir);
		} else if (collect_procs(sub, depth + 1, p, &ignored) < 0 &&
			   ignored.errnum != ENOENT) {
			*e = ignored;
			ret = -1;
		}
	}
	closedir(d);
	return ret;
}

/* The directories that hold every process of the jail: v1 the pids or
 * the freezer hierarchy's (each task is in one cgroup of each), else all. */
static size_t procs_dirs(const struct cgroup *cg, const char **out)
{
	if (cg->layout == CGROUP_V1 && cg->dir[CGROUP_PIDS] != NULL) {
		out[0] = cg->dir[CGROUP_PIDS];
		return 1;
	}
	if (cg->layout == CGROUP_V1 && cg->dir[CGROUP_FREEZER] != NULL) {
		out[0] = cg->dir[CGROUP_FREEZER];
		return 1;
	}
	return cgroup_dirs(cg, ALL_CTRLS, out);
}

int cgroup_procs(const struct cgroup *cg, pid_t **pids, size_t *n, struct cell_err *e)
{
	const char *dirs[CGROUP_NCTRL];
	size_t nd = procs_dirs(cg, dirs), out = 0;
	struct pidv p = {NULL, 0, 0};

	*pids = NULL;
	*n = 0;
	if (nd == 0)
		return no_cgroup("list processes", e);
	for (size_t i = 0; i < nd; i++)
		if (collect_procs(dirs[i], 0, &p, e) < 0) {
			free(p.v);
			return -1;
		}
	if (p.n > 1)
		qsort(p.v, p.n, sizeof(pid_t), cmp_pid);
	for (size_t i = 0; i < p.n; i++)
		if (out == 0 || p.v[out - 1] != p.v[i])
			p.v[out++] = p.v[i];
	if (out == 0) {
		free(p.v);
		return 0;
	}
	*pids = p.v;
	*n = out;
	return 0;
}

bool cgroup_frozen(const struct cgroup *cg)
{
	return ops(cg) != NULL && ops(cg)->frozen(cg);
}

/* Each pid of the jail gets SIG; one gone meanwhile is no error. */
static int signal_each(const struct cgroup *cg, int sig, struct cell_err *e)
{
	cleanup_free pid_t *pids = NULL;
	size_t n = 0;

	if (cgroup_procs(cg, &pids, &n, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (kill(pids[i], sig) < 0 && errno != ESRCH)
			return cell_err_set(e, errno, "signal %d to pid %d", sig, (int)pids[i]);
	return 0;
}

int cgroup_signal(const struct cgroup *cg, int sig, struct cell_err *e)
{
	struct cell_err ignored;
	bool paused, held;
	int ret;

	if (ops(cg) == NULL)
		return no_cgroup("signal", e);
	if (cg->layout == CGROUP_V2 && sig == SIGKILL)
		return ops(cg)->kill(cg, e);
	/* Held still, no process forks past the list or ends and has its
	 * pid reused before it is signalled.  A freeze half done (a task in
	 * an uninterruptible sleep) still holds the others. */
	paused = cgroup_frozen(cg);
	held = !paused && (cg->layout == CGROUP_V2 || cg->dir[CGROUP_FREEZER] != NULL);
	if (held)
		ops(cg)->freeze(cg, &ignored);
	ret = signal_each(cg, sig, e);
	/* A paused jail stays paused, but a SIGKILL must reach it (v1
	 * holds it back from frozen tasks). */
	if (held || (paused && sig == SIGKILL))
		ops(cg)->thaw(cg, &ignored);
	return ret;
}

int cgroup_update_resources(const struct cgroup *cg, const struct jail_limits *l,
			    const struct jail_resources *r, struct cell_err *e)
{
	unsigned int want = ctrls_of(limits_needs(l) | res_needs(r)) |
			    cgroup_unified_ctrls(r->unified, r->nunified);
	bool skip_cpus = res_cpu_bandwidth(r);

	if (ops(cg) == NULL)
		return no_cgroup("update", e);
	if (cg->layout == CGROUP_V1 && r->nunified > 0)
		return v1_unified(e);
	/* Every setting checked before any is written. */
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if ((want & 1U << c) && ops(cg)->ctrl_dir(cg, c) == NULL)
			return cell_err_set(e, ENOENT, "the jail has no %s cgroup",
					    cgroup_ctrls[c].name);
	if (ops(cg)->set_limits(cg, l, skip_cpus, e) < 0 || ops(cg)->resources(cg, r, e) < 0)
		return -1;
	return 0;
}

/* --- removal ------------------------------------------------------- */

/* Removes DIR and the parents cell made of it, MADE in all. */
static int remove_made(const char *dir, unsigned int made, int ret, struct cell_err *e)
{
	if (dir != NULL && cgroup_remove_dirs(dir, made) < 0 && ret == 0)
		return cell_err_set(e, errno, "remove cgroup %s", dir);
	return ret;
}

int cgroup_destroy(struct cgroup *cg, struct cell_err *e)
{
	struct cell_err ignored;
	int ret = 0;

	/* Whatever is still inside goes (v2: cgroup.kill; a dead jail's
	 * cgroups are empty, and v1 has nothing to kill then). */
	if (cg->layout == CGROUP_V2 && cg->path != NULL) {
		ops(cg)->kill(cg, &ignored);
		ret = remove_made(cg->path, cg->path_made, ret, e);
	}
	for (int c = 0; c < CGROUP_NCTRL && cg->layout == CGROUP_V1; c++)
		ret = remove_made(cg->dir[c], cg->made[c], ret, e);
	cgroup_release(cg);
	return ret;
}

void cgroup_release(struct cgroup *cg)
{
	for (int c = 0; c < CGROUP_NCTRL; c++) {
		free(cg->dir[c]);
		free(cg->opts[c]);
	}
	free(cg->path);
	free(cg->deleg);
	if (cg->fd >= 0)
		close(cg->fd);
	cgroup_init(cg);
}

/* --- state and use ------------------------------------------------- */

/* Deeper than any cgroup path cell would make. */
#define MADE_MAX 64

int cgroup_made_from_json(const json_t *j, unsigned int *made, struct cell_err *e)
{
	if (j == NULL)
		return 0;
	if (!json_is_integer(j) || json_integer_value(j) < 0 || json_integer_value(j) > MADE_MAX)
		return cell_err_set(e, EINVAL, "cgroup: made: not a count");
	*made = (unsigned int)json_integer_value(j);
	return 0;
}

json_t *cgroup_to_json(const struct cgroup *cg)
{
	json_t *j;

	if (ops(cg) == NULL)
		return NULL;
	j = json_pack("{s:s}", "layout", cg->layout == CGROUP_V2 ? "v2" : "v1");
	if (j != NULL && ops(cg)->to_json(cg, j) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
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
	if (strcmp(layout, "v2") == 0)
		cg->layout = CGROUP_V2;
	else if (strcmp(layout, "v1") == 0)
		cg->layout = CGROUP_V1;
	else
		return cell_err_set(e, EINVAL, "cgroup: layout %s", layout);
	if (ops(cg)->from_json(cg, j, e) < 0) {
		cgroup_release(cg);
		return -1;
	}
	return 0;
}

void cgroup_usage(const struct cgroup *cg, struct cgroup_usage *u)
{
	u->tasks = u->memory = u->memory_peak = u->cpu_usec = -1;
	if (ops(cg) != NULL)
		ops(cg)->usage(cg, u);
}
