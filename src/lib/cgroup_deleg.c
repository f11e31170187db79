/*
 * cgroup_deleg.c - where a rootless cell may make cgroups: a cgroup v2
 * subtree delegated to the user.
 *
 * Without privilege in the initial user namespace (rootless.h) cell can
 * make cgroups only in a directory of the cgroup2 hierarchy that is the
 * user's: systemd's user@UID.service (or a scope run with Delegate=yes),
 * or a directory root made and chowned to the user.  Delegation in
 * cgroup v2 is ownership: the directory itself (to mkdir in it) and its
 * cgroup.procs and cgroup.subtree_control (to move processes in, and
 * give controllers to the cgroups beneath).  cgroup v1 is never
 * delegated: a hybrid host's cgroup2 at /sys/fs/cgroup/unified is looked
 * at, but its controllers are mostly bound to v1, and one a limit needs
 * that the subtree lacks is no delegation for that limit.
 *
 * The finder walks from the hierarchy's root down to cell's own cgroup
 * (the "0::" line of /proc/self/cgroup) and takes the topmost directory
 * that is the user's: the jails' cgroups go beneath it, in a directory
 * "cell" of cell's own that holds no process (cgroup v2 gives
 * controllers only to the children of a cgroup without processes), and
 * the move of a jail's first process, from cell's cgroup into its own
 * (CLONE_INTO_CGROUP), needs write access to the cgroup.procs of their
 * common ancestor: the delegated directory, or one beneath it.
 * `--cgroup-parent` names the directory instead; it must be the user's
 * in the same way, and so must the common ancestor of it and cell's
 * cgroup.  Ownership is compared with the caller's effective uid, which
 * is right both before and after cell enters a user namespace of its
 * own (the user's files show as owned by its root there).
 */
#include "cgroup.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup_backend.h"
#include "cleanup.h"
#include "param.h"
#include "proc.h"
#include "rootless.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* A hybrid host's cgroup2, beside the v1 hierarchies. */
#define CGROUP_FS_UNIFIED CGROUP_FS "/unified"

void cgroup_deleg_free(struct cgroup_deleg *d)
{
	free(d->mnt);
	free(d->own);
	free(d->dir);
	memset(d, 0, sizeof(*d));
}

/* UID owns DIR/FILE and may write it. */
static bool file_is_users(const char *dir, const char *file, uid_t uid)
{
	cleanup_free char *path = NULL;
	struct stat st;

	if (asprintf(&path, "%s/%s", dir, file) < 0) {
		path = NULL;
		return false;
	}
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid &&
	       (st.st_mode & S_IWUSR) != 0;
}

bool cgroup_deleg_is_users(const char *dir, uid_t uid)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid &&
	       file_is_users(dir, "cgroup.procs", uid) &&
	       file_is_users(dir, "cgroup.subtree_control", uid);
}

/* The controllers (1 << ctrl) the cgroup DIR has: its cgroup.controllers,
 * and the freezer, which every v2 cgroup has (cgroup.freeze).  The
 * devices row is a BPF program no rootless cell may attach: never. */
unsigned int cgroup_deleg_ctrls(const char *dir)
{
	cleanup_free char *path = NULL, *text = NULL;
	unsigned int m = 1U << CGROUP_FREEZER;

	if (asprintf(&path, "%s/cgroup.controllers", dir) < 0) {
		path = NULL;
		return m;
	}
	text = cgroup_read_all(path);
	if (text == NULL)
		return m;
	text[strcspn(text, "\n")] = '\0';
	for (int c = 0; c < CGROUP_NCTRL; c++)
		if (cgroup_ctrls[c].v2 != NULL &&
		    cgroup_words_have(text, strlen(text), ' ', cgroup_ctrls[c].v2))
			m |= 1U << c;
	return m;
}

/* MNT + the first LEN bytes of the cgroup path PATH; heap. */
static char *dir_at(const char *mnt, const char *path, size_t len)
{
	char *out;

	if (asprintf(&out, "%s%.*s", mnt, (int)len, path) < 0)
		return NULL;
	return out;
}

/* The longest cgroup path both A and B are beneath ("/" at least), as a
 * length of A. */
static size_t common_len(const char *a, const char *b)
{
	size_t i = 0, last = 0;

	for (; a[i] != '\0' && a[i] == b[i]; i++)
		if (a[i] == '/')
			last = i;
	if ((a[i] == '\0' || a[i] == '/') && (b[i] == '\0' || b[i] == '/'))
		last = i;
	return last;
}

/* --cgroup-parent when rootless: the user's, and cell's cgroup inside it
 * or below a common ancestor that is the user's too. */
static int find_parent(struct cgroup_deleg *d, const char *cgparent, uid_t uid, struct cell_err *e)
{
	cleanup_free char *path = cgroup_parent_path(cgparent, d->own), *common = NULL;
	size_t n;

	if (path == NULL || (d->dir = dir_at(d->mnt, path, strlen(path))) == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	/* "/a/" names "/a" */
	for (n = strlen(d->dir); n > strlen(d->mnt) && d->dir[n - 1] == '/'; n--)
		d->dir[n - 1] = '\0';
	if (access(d->dir, F_OK) < 0)
		return cell_err_param(e, PARAM_CGROUP_PARENT, 0, errno, "%s", d->dir);
	if (!cgroup_deleg_is_users(d->dir, uid))
		return cell_err_param(e, PARAM_CGROUP_PARENT, 0, 0,
				      "%s: not a cgroup v2 directory of yours (rootless: it, its "
				      "cgroup.procs and its cgroup.subtree_control must be yours)",
				      d->dir);
	n = common_len(path, d->own);
	common = dir_at(d->mnt, path, n);
	if (common == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (!file_is_users(common, "cgroup.procs", uid))
		return cell_err_param(e, PARAM_CGROUP_PARENT, 0, 0,
				      "cell runs in the cgroup %s, outside it, and a move from "
				      "there needs write access to %s/cgroup.procs, their common "
				      "ancestor's (run cell inside the delegated directory)",
				      *d->own != '\0' ? d->own : "/", common);
	d->ctrls = cgroup_deleg_ctrls(d->dir);
	return 0;
}

int cgroup_deleg_find(struct cgroup_deleg *d, const char *mnt, const char *own,
		      const char *cgparent, uid_t uid, struct cell_err *e)
{
	size_t len = strlen(own);

	memset(d, 0, sizeof(*d));
	/* "/" is the root: no component. */
	while (len > 0 && own[len - 1] == '/')
		len--;
	d->mnt = strdup(mnt);
	d->own = strndup(own, len);
	if (d->mnt == NULL || d->own == NULL)
		return cell_err_set(e, ENOMEM, "cgroup");
	if (cgparent != NULL)
		return find_parent(d, cgparent, uid, e);
	/* Topmost first: the hierarchy's root, then each ancestor of
	 * cell's cgroup, then that cgroup itself. */
	for (size_t i = 0; i <= len; i++) {
		cleanup_free char *dir = NULL;

		if (i > 0 && i < len && d->own[i] != '/')
			continue;
		dir = dir_at(mnt, d->own, i);
		if (dir == NULL)
			return cell_err_set(e, ENOMEM, "cgroup");
		if (cgroup_deleg_is_users(dir, uid)) {
			d->dir = take_ptr(&dir);
			d->ctrls = cgroup_deleg_ctrls(d->dir);
			break;
		}
	}
	return 0;
}

/* The cgroup2 mount: the whole of /sys/fs/cgroup, or a hybrid host's
 * /sys/fs/cgroup/unified; NULL when neither. */
static const char *v2_mount(void)
{
	struct statfs st;

	if (statfs(CGROUP_FS, &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC)
		return CGROUP_FS;
	if (statfs(CGROUP_FS_UNIFIED, &st) == 0 && st.f_type == CGROUP2_SUPER_MAGIC)
		return CGROUP_FS_UNIFIED;
	return NULL;
}

int cgroup_deleg_host_of(struct cgroup_deleg *d, const char *own_text, const char *cgparent,
			 struct cell_err *e)
{
	const char *mnt = v2_mount();
	cleanup_free char *text = NULL, *own = NULL;

	memset(d, 0, sizeof(*d));
	if (mnt == NULL)
		return 0; /* no cgroup2 at all: no delegation */
	if (own_text == NULL) {
		own_text = text = cgroup_read_all("/proc/self/cgroup");
		if (text == NULL)
			return cell_err_set(e, errno, "read /proc/self/cgroup");
	}
	own = cgroup_parse_own(own_text, NULL);
	if (own == NULL)
		return 0;
	return cgroup_deleg_find(d, mnt, own, cgparent, geteuid(), e);
}

int cgroup_deleg_host(struct cgroup_deleg *d, const char *cgparent, struct cell_err *e)
{
	return cgroup_deleg_host_of(d, NULL, cgparent, e);
}

/* How to get a delegated subtree, for the refusals. */
#define DELEG_HOW                                                                                   \
	"run in a scope of \"systemd-run --user --scope -p Delegate=yes\" or have root delegate a " \
	"directory (chown it to you) and pass cgroup_parent"

/* The v2 names of the controllers MASK, space-separated, into BUF. */
static const char *ctrl_names(unsigned int mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int c = 0; c < CGROUP_NCTRL && len < size; c++)
		if ((mask & 1U << c) && cgroup_ctrls[c].v2 != NULL)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? " " : "",
						cgroup_ctrls[c].v2);
	return buf;
}

int cgroup_deleg_refuse(const struct cgroup_deleg *d, int param, unsigned int need,
			struct cell_err *e)
{
	char lack[128], have[128];

	if (d->dir == NULL)
		cell_err_param(e, param < 0 ? CELL_ERR_NO_PARAM : param, 0, 0,
			       "needs a delegated cgroup v2 subtree (rootless, and none found): %s",
			       DELEG_HOW);
	else
		cell_err_param(e, param < 0 ? CELL_ERR_NO_PARAM : param, 0, 0,
			       "needs the %s controller%s of a delegated cgroup v2 subtree "
			       "(rootless, and %s has %s): %s",
			       ctrl_names(need & ~d->ctrls, lack, sizeof(lack)),
			       strchr(lack, ' ') != NULL ? "s" : "", d->dir,
			       *ctrl_names(d->ctrls, have, sizeof(have)) != '\0' ? have : "none",
			       DELEG_HOW);
	return cell_err_ref(e, PARAM_CGROUP_PARENT, "cgroup_parent");
}

int cgroup_deleg_check(const struct cgroup_deleg *d, const struct jail_spec *s, struct cell_err *e)
{
	unsigned int want, need, lack;

	cgroup_spec_ctrls(s, true, &want, &need);
	lack = d->dir == NULL ? need : need & ~d->ctrls;
	if (want == 0 || lack == 0)
		return 0;
	return cgroup_deleg_refuse(d, cgroup_need_param(&s->limits, s->cgroup_parent, lack), lack,
				   e);
}

int cgroup_check_rootless(const struct jail_spec *s, struct cell_err *e)
{
	struct cgroup_deleg d;
	int ret;

	if (!cgroup_wanted(s) || !(s->mech.rootless || rootless()))
		return 0;
	ret = cgroup_deleg_host(&d, s->cgroup_parent, e) < 0 || cgroup_deleg_check(&d, s, e) < 0
		      ? -1
		      : 0;
	cgroup_deleg_free(&d);
	return ret;
}

json_t *cgroup_inspect(const json_t *rec, bool rootless_jail)
{
	struct cgroup_deleg d;
	struct cell_err ignored;
	bool found;

	if (rec != NULL && !json_is_null(rec))
		return json_deep_copy(rec);
	if (!rootless_jail)
		return NULL;
	found = cgroup_deleg_host(&d, NULL, &ignored) == 0 && d.dir != NULL;
	cgroup_deleg_free(&d);
	return json_string(found ? "none" : "none (rootless, no delegated cgroup v2 subtree)");
}
