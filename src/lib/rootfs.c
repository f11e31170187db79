/*
 * rootfs.c - building a jail's root filesystem and switching to it.
 *
 * The sequence, in kernel order:
 *
 *  1. make every mount of the new mount namespace private, so nothing we
 *     do propagates back to the host;
 *  2. clone the source tree (the host's "/" for the embedded root, or
 *     --rootfs DIR) as a detached recursive bind with open_tree(), and
 *     attach it on an empty directory of the state root;
 *  3. build /proc /dev /sys /tmp /run and the --bind mounts inside it,
 *     through descriptors: every path inside the new root is resolved by
 *     openat2(RESOLVE_IN_ROOT), so a symlink in a hostile rootfs can
 *     never point a mount outside it;
 *  4. pivot_root(".", ".") stacks the old root on top of the new one, and
 *     a lazy unmount of "." detaches it: nothing of the host tree stays
 *     reachable (the chroot_ns helper of the bsdjail seed, done with the
 *     new mount API).
 */
#include "rootfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cleanup.h"
#include "param.h"
#include "process.h"
#include "rootfs_impl.h"
#include "rootless.h"

/* Mount points the jail always gets fresh, in the order they are made. */
static const char *const fresh_dirs[] = {"proc", "dev", "sys", "tmp", "run"};

int rootfs_openat2(int dirfd, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how = {
		.flags = (unsigned long long)flags | O_CLOEXEC,
		.resolve = resolve,
	};
	int fd;

	do
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	while (fd < 0 && errno == EINTR);
	return fd;
}

/* Opens PATH inside the tree rooted at ROOT, as if ROOT were "/". */
static int open_in_root(int root, const char *path, int flags)
{
	while (*path == '/')
		path++;
	if (*path == '\0')
		path = ".";
	return rootfs_openat2(root, path, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

static int check_bind_under_masks(const struct jail_spec *s, struct cell_err *e);

/*
 * Whether UID may own what a jail's root is made of: root or the caller.
 * For a rootless cell that is root of someone else's user namespace
 * (rootless podman's runtime) any owner: every id that namespace maps is
 * the user's own or one of its subordinate ids, and one it does not map
 * (the host's root, another user) shows as the overflow uid, which the
 * user's mapped nobody shows as too; none can be told apart there, and
 * such a jail holds no privilege beyond the user's (runc and crun do not
 * look at all).  The modes are checked all the same.
 */
static bool owner_ok(const struct jail_spec *s, uid_t uid, uid_t me)
{
	return uid == 0 || uid == me || (s->mech.rootless && me == 0);
}

/*
 * Whether others than root (and the caller) could change what DIR is:
 * DIR itself writable by another, or a parent writable by another
 * without the sticky bit (which keeps others from renaming what they do
 * not own, /tmp's and /var/tmp's case) or owned by another.  A --rootfs
 * such a user can swap or fill is theirs to hand to the jail.
 */
static int check_owners(const struct jail_spec *s, const char *dir, const struct stat *st,
			struct cell_err *e)
{
	char path[PATH_MAX];
	struct stat p = *st;
	uid_t me = getuid();

	if (!owner_ok(s, p.st_uid, me) || (p.st_mode & (S_IWGRP | S_IWOTH)))
		return cell_err_param(e, PARAM_PATH, 0, EPERM,
				      "others than root may change it (owner %u, mode %04o)",
				      (unsigned int)p.st_uid, (unsigned int)(p.st_mode & 07777));
	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return cell_err_param(e, PARAM_PATH, 0, ENAMETOOLONG, "%s", "");
	for (;;) {
		char *slash = strrchr(path, '/');

		if (slash == NULL)
			return 0;
		*(slash == path ? slash + 1 : slash) = '\0';
		if (stat(path, &p) < 0)
			return cell_err_param(e, PARAM_PATH, 0, errno, "%s", path);
		if (!owner_ok(s, p.st_uid, me) ||
		    ((p.st_mode & (S_IWGRP | S_IWOTH)) && !(p.st_mode & S_ISVTX)))
			return cell_err_param(
				e, PARAM_PATH, 0, EPERM,
				"others than root may change its parent %s (owner %u, "
				"mode %04o)",
				path, (unsigned int)p.st_uid, (unsigned int)(p.st_mode & 07777));
		if (strcmp(path, "/") == 0)
			return 0;
	}
}

int rootfs_check(const struct jail_spec *s, struct rootfs_pin *pin, struct cell_err *e)
{
	struct stat st, host;

	pin->set = false;
	pin->passwd_absent = false;
	if (s->rootfs != NULL) {
		/* Opened once, a final symlink not followed (a link to "/"
		 * once ran the jail on the host's own root); the child opens
		 * it again and must find this very directory. */
		cleanup_close int fd = open(s->rootfs, O_PATH | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0 || fstat(fd, &st) < 0)
			return cell_err_param(e, PARAM_PATH, 0, errno, "%s", "");
		if (S_ISLNK(st.st_mode))
			return cell_err_param(e, PARAM_PATH, 0, ELOOP,
					      "a symlink (give the directory itself)");
		if (!S_ISDIR(st.st_mode))
			return cell_err_param(e, PARAM_PATH, 0, ENOTDIR, "%s", "");
		if (stat("/", &host) < 0)
			return cell_err_set(e, errno, "stat /");
		if (st.st_dev == host.st_dev && st.st_ino == host.st_ino)
			return cell_err_param(e, PARAM_PATH, 0, 0,
					      "the host's own root (the embedded root, the jail's "
					      "without a path, is the host's files read-only)");
		if (s->rootfs[0] == '/' && check_owners(s, s->rootfs, &st, e) < 0)
			return -1;
		pin->dev = st.st_dev;
		pin->ino = st.st_ino;
		pin->set = true;
		/* Only looked up, never opened for reading, and only where
		 * HOME would come from it: a root without an /etc/passwd (a
		 * scratch image) has no HOME to parse, and one made there
		 * later is not read either. */
		if (process_home_from_rootfs(s)) {
			cleanup_close int pw =
				rootfs_openat2(fd, "etc/passwd", O_PATH | O_NOFOLLOW,
					       RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
			pin->passwd_absent = pw < 0 && errno == ENOENT;
		}
	}
	if (s->mech.mounts_given)
		return rootfs_oci_check(s, e);
	for (size_t i = 0; i < s->nbinds; i++)
		if (stat(s->binds[i].src, &st) < 0)
			return cell_err_param(e, PARAM_BIND, (int)i, errno, "%s", s->binds[i].src);
	return check_bind_under_masks(s, e);
}

/* As many symlinks as the kernel follows in one lookup (MAXSYMLINKS). */
#define CREATE_MAX_LINKS 40

/*
 * When the component BASE of COPY (a path inside ROOT, ending at BASE;
 * PARENT is its directory) is a symlink to nothing, *NEXT is the path to
 * create instead: the link's target, then REST.  Returns 1 then, 0 when
 * BASE is no dangling symlink, -1 with errno on failure.
 */
static int follow_dangling(int root, int parent, const char *copy, const char *base,
			   const char *rest, char **next)
{
	cleanup_close int fd = -1;
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int r;

	if (fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	fd = open_in_root(root, copy, O_PATH);
	if (fd >= 0 || errno != ENOENT)
		return 0;
	n = readlinkat(parent, base, target, sizeof(target) - 1);
	if (n < 0)
		return -1;
	target[n] = '\0';
	/* A relative target is relative to the link's own directory; the
	 * walk that follows resolves ".." inside ROOT like any path. */
	if (target[0] == '/')
		r = asprintf(next, "%s/%s", target, rest);
	else
		r = asprintf(next, "%.*s%s/%s", (int)(base - copy), copy, target, rest);
	if (r < 0) {
		*next = NULL;
		errno = ENOMEM;
		return -1;
	}
	return 1;
}

/*
 * Creates PATH (a directory, or an empty file when !dir) and its missing
 * parents inside ROOT.  Each parent is resolved again with
 * RESOLVE_IN_ROOT, so a symlinked component stays inside ROOT; a
 * component that is a dangling symlink is created where the link points,
 * inside ROOT, as a lookup in the jail would find it (runc does the same
 * for mount points).
 */
static int create_in_root_links(int root, const char *path, bool dir, int links, struct cell_err *e)
{
	cleanup_free char *copy = strdup(path);
	char *p;

	if (copy == NULL)
		return cell_err_set(e, ENOMEM, "create %s", path);
	if (links > CREATE_MAX_LINKS)
		return cell_err_set(e, ELOOP, "create %s", path);
	for (p = copy; *p == '/'; p++)
		;
	while (p != NULL && *p != '\0') {
		char *slash = strchr(p, '/');
		bool last;
		cleanup_close int parent = -1;
		const char *base;
		char saved = 0;
		bool exists = false;

		if (slash != NULL) {
			saved = *slash;
			*slash = '\0';
		}
		last = slash == NULL || slash[1] == '\0';
		/* copy now ends at this component: split it into parent/base. */
		base = strrchr(copy, '/');
		if (base == NULL || base == copy) {
			parent = open_in_root(root, "/", O_PATH | O_DIRECTORY);
			base = copy[0] == '/' ? copy + 1 : copy;
		} else {
			*(char *)base = '\0';
			parent = open_in_root(root, copy, O_PATH | O_DIRECTORY);
			*(char *)base = '/';
			base++;
		}
		if (parent < 0)
			return cell_err_set(e, errno, "create %s", path);
		if (last && !dir) {
			int fd = openat(parent, base,
					O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
			if (fd < 0 && errno != EEXIST)
				return cell_err_set(e, errno, "create %s", path);
			if (fd >= 0)
				close(fd);
			exists = fd < 0;
		} else if (mkdirat(parent, base, 0755) < 0) {
			if (errno != EEXIST)
				return cell_err_set(e, errno, "create %s", path);
			exists = true;
		}
		if (exists) {
			cleanup_free char *next = NULL;
			int r = follow_dangling(root, parent, copy, base,
						slash != NULL ? slash + 1 : "", &next);

			if (r < 0)
				return cell_err_set(e, errno, "create %s", path);
			if (r > 0)
				return create_in_root_links(root, next, dir, links + 1, e);
		}
		if (slash != NULL)
			*slash = saved;
		p = slash != NULL ? slash + 1 : NULL;
	}
	return 0;
}

static int create_in_root(int root, const char *path, bool dir, struct cell_err *e)
{
	return create_in_root_links(root, path, dir, 0, e);
}

/* Attaches the detached mount MNT on TARGET inside ROOT. */
static int attach_in_root(int mnt, int root, const char *target, int oflags, struct cell_err *e)
{
	cleanup_close int tfd = open_in_root(root, target, O_PATH | oflags);

	if (tfd < 0)
		return cell_err_set(e, errno, "open mount point %s", target);
	if (move_mount(mnt, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "attach mount on %s", target);
	return 0;
}

/*
 * Opens the mount point PATH beneath DIR (RESOLVE: RESOLVE_IN_ROOT for
 * the jail's root, RESOLVE_BENEATH inside a mount of the jail's own)
 * once, refusing a symlink anywhere on the way: a mount and its
 * protections go where the path is now and never follow a link that a
 * later mount could redirect (a --rootfs whose proc -> run/l/x got a
 * proc, unprotected, where /run/l pointed before /run was mounted).
 */
int rootfs_open_mount_point(int dir, const char *path, const char *shown,
			    unsigned long long resolve, int oflags, struct cell_err *e)
{
	const char *rel = path;
	struct stat st;
	int fd;

	while (*rel == '/')
		rel++;
	/* A final symlink comes back as itself (O_PATH | O_NOFOLLOW), one
	 * on the way as ELOOP: both refused. */
	fd = rootfs_openat2(dir, *rel != '\0' ? rel : ".", O_PATH | O_NOFOLLOW,
			    resolve | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (fd < 0 && errno != ELOOP)
		return cell_err_set(e, errno, "open mount point %s", shown);
	if (fd < 0 || fstat(fd, &st) < 0 || S_ISLNK(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return cell_err_set(e, ELOOP, "mount point %s: a symlink on the way (refused)",
				    shown);
	}
	if ((oflags & O_DIRECTORY) && !S_ISDIR(st.st_mode)) {
		close(fd);
		return cell_err_set(e, ENOTDIR, "open mount point %s", shown);
	}
	return fd;
}

/* Attaches the detached mount MNT on PATH beneath DIR (as above); SHOWN
 * is its path in the jail, for errors. */
static int attach_pinned(int mnt, int dir, const char *path, const char *shown,
			 unsigned long long resolve, struct cell_err *e)
{
	cleanup_close int tfd = rootfs_open_mount_point(dir, path, shown, resolve, O_DIRECTORY, e);

	if (tfd < 0)
		return -1;
	if (move_mount(mnt, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "attach mount on %s", shown);
	return 0;
}

int rootfs_fs_mount(const char *fstype, const char *source, const char *target,
		    const struct fs_opt *opts, unsigned int attrs, struct cell_err *e)
{
	cleanup_close int fs = fsopen(fstype, FSOPEN_CLOEXEC);
	int mnt;

	if (fs < 0)
		return cell_err_set(e, errno, "mount %s on %s", fstype, target);
	/* The source names the filesystem in the jail's mountinfo. */
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", source, 0) < 0)
		return cell_err_set(e, errno, "mount %s on %s: source", fstype, target);
	for (; opts != NULL && opts->key != NULL; opts++) {
		int r = opts->value != NULL
				? fsconfig(fs, FSCONFIG_SET_STRING, opts->key, opts->value, 0)
				: fsconfig(fs, FSCONFIG_SET_FLAG, opts->key, NULL, 0);
		if (r < 0)
			return cell_err_set(e, errno, "mount %s on %s: option %s", fstype, target,
					    opts->key);
	}
	if (fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return cell_err_set(e, errno, "mount %s on %s", fstype, target);
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, attrs);
	if (mnt < 0)
		return cell_err_set(e, errno, "mount %s on %s", fstype, target);
	return mnt;
}

/* A new instance of FSTYPE (for TARGET, named in errors), detached: what
 * protects it is done to it before it is attached anywhere. */
static int fresh_mount(const char *fstype, const char *target, const struct fs_opt *opts,
		       unsigned int attrs, struct cell_err *e)
{
	return rootfs_fs_mount(fstype, fstype, target, opts, attrs, e);
}

/* A new instance of FSTYPE attached on PATH beneath DIR at once (TARGET:
 * its path in the jail). */
static int mount_fresh(int dir, unsigned long long resolve, const char *fstype, const char *path,
		       const char *target, const struct fs_opt *opts, unsigned int attrs,
		       struct cell_err *e)
{
	cleanup_close int mnt = fresh_mount(fstype, target, opts, attrs, e);

	if (mnt < 0)
		return -1;
	if (attach_pinned(mnt, dir, path, target, resolve, e) < 0)
		return cell_err_prefix(e, "mount %s", fstype);
	return 0;
}

/*
 * Sizes of the jail's tmpfs mounts.  Without a limit each could take half
 * the host's memory (tmpfs's default), so one jail could fill the host's
 * RAM through /tmp, /run and /dev/shm.  With --memory, each is half of it
 * (its pages are charged to the jail's memory cgroup anyway: a full
 * tmpfs then says ENOSPC before the jail is out of memory); without, a
 * fixed size: 512M for /tmp, 64M for /run and /dev/shm (docker's /dev/shm).
 * /dev holds only nodes and links: 64k.
 */
#define TMPFS_TMP_DEFAULT "512m"
#define TMPFS_RUN_DEFAULT "64m"
#define TMPFS_SHM_DEFAULT "64m"
#define TMPFS_SIZE_MAX	  24 /* "size" digits */

/* The size of one of the jail's tmpfs mounts, as the "size" option. */
static const char *tmpfs_size(const struct jail_spec *s, const char *fixed, char *buf, size_t len)
{
	if (s->limits.memory <= 0)
		return fixed;
	snprintf(buf, len, "%lld", s->limits.memory / 2 > 4096 ? s->limits.memory / 2 : 4096);
	return buf;
}

/*
 * The ptys one jail may hold (devpts "max").  Jails' devpts instances
 * share the kernel's pool (kernel.pty.max, 4096 by default, less the 1024
 * kept for the host's own instance, kernel.pty.reserve): without a limit
 * one jail took all 3072 and others' interactive starts failed.  256 is
 * far above what a jail of shells, tmux or an sshd uses, and a twelfth of
 * the pool.
 */
#define DEVPTS_MAX "256"

/* The minimal /dev of the foundation issue (OCI's default devices too). */
const struct rootfs_dev_node rootfs_std_nodes[] = {
	{"null", 1, 3},	  {"zero", 1, 5},    {"full", 1, 7},
	{"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0},
};
const size_t rootfs_nstd_nodes = sizeof(rootfs_std_nodes) / sizeof(rootfs_std_nodes[0]);

static const struct {
	const char *target, *name;
} dev_links[] = {
	{"/proc/self/fd", "fd"},       {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"},
	{"/proc/self/fd/2", "stderr"}, {"pts/ptmx", "ptmx"},
};

/*
 * The owners of the jail's fresh mounts, as mount options: made by the
 * jail's first process while it is still the host's root, they would be
 * the host root's, which the jail's user namespace does not map (its root
 * could not write its own /run).  With a range, "uid" and "gid" of its
 * root, and devpts' tty group its gid 5; keys NULL (the end of the
 * option list) without one.
 */
struct fresh_owner {
	const char *uid_key, *gid_key;
	char uid[16], gid[16], tty[16];
};

static void fresh_owner_init(struct fresh_owner *o, const struct rootfs_ids *ids)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->tty, sizeof(o->tty), "%u", 5U);
	if (ids->userns < 0)
		return;
	o->uid_key = "uid";
	o->gid_key = "gid";
	snprintf(o->uid, sizeof(o->uid), "%u", (unsigned int)ids->uid);
	snprintf(o->gid, sizeof(o->gid), "%u", (unsigned int)ids->gid);
	snprintf(o->tty, sizeof(o->tty), "%u", (unsigned int)ids->gid + 5U);
}

/* Idmaps the detached tree MNT through the jail's user namespace (with
 * ATTRS too): its files' owners on disk are the jail's ids inside, and
 * what the jail's root makes is root's on disk.  The kernel takes it on
 * a mount never attached only. */
static int idmap_tree(int mnt, const struct rootfs_ids *ids, unsigned int attrs)
{
	struct mount_attr a = {.attr_set = MOUNT_ATTR_IDMAP | attrs,
			       .userns_fd = (unsigned long long)ids->userns};

	return mount_setattr(mnt, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a));
}

/* Why the tree MNT could not be idmapped (ERR): a tmpfs is idmapped
 * from Linux 6.3 on (an EINVAL before); other filesystems may never be. */
static const char *idmap_refusal(int mnt, int err)
{
	struct statfs sf;

	if (err == EINVAL && fstatfs(mnt, &sf) == 0 && sf.f_type == TMPFS_MAGIC)
		return "a tmpfs is idmapped from Linux 6.3 on";
	return "its filesystem may not support idmapped mounts";
}

/*
 * A rootless cell may not mknod (rootless.h): the host's node of NAME,
 * bound on an empty file of the jail's /dev (DEV), as bubblewrap and
 * runc do; only when it is the very device asked for.
 */
static int bind_host_node(int dev, const struct rootfs_dev_node *d, struct cell_err *e)
{
	char path[32];
	cleanup_close int mnt = -1, target = -1;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", d->name);
	mnt = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (mnt < 0 || fstat(mnt, &st) < 0)
		return cell_err_set(e, errno, "bind the host's %s", path);
	struct mount_attr a = {.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC};

	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(d->major, d->minor))
		return cell_err_set(e, ENODEV, "bind the host's %s: another device", path);
	if (mount_setattr(mnt, "", AT_EMPTY_PATH, &a, sizeof(a)) < 0)
		return cell_err_set(e, errno, "bind the host's %s: nosuid", path);
	fd = openat(dev, d->name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return cell_err_set(e, errno, "create /dev/%s", d->name);
	close(fd);
	target = openat(dev, d->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (target < 0 ||
	    move_mount(mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "bind the host's %s", path);
	return 0;
}

/* The host's /sys, recursively, read-only with ATTRS (rootless). */
static int bind_host_sys(unsigned int attrs, struct cell_err *e)
{
	struct mount_attr a = {.attr_set = attrs | MOUNT_ATTR_RDONLY};
	int mnt = open_tree(AT_FDCWD, "/sys", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	if (mnt < 0)
		return cell_err_set(e, errno, "bind the host's /sys");
	if (mount_setattr(mnt, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a)) < 0) {
		cell_err_set(e, errno, "bind the host's /sys: read-only");
		close(mnt);
		return -1;
	}
	return mnt;
}

/*
 * The jail's /dev, made detached: a tmpfs with the standard nodes (but a
 * rootless jail's, bound later), links and the directories of its
 * mounts; returned as its mount's descriptor.  What is mounted in it
 * comes once it is attached (fill_dev()).
 */
static int build_dev(const struct jail_spec *s, const struct fresh_owner *o, struct cell_err *e)
{
	const struct fs_opt dev_opts[] = {{"mode", "755"},
					  {"size", "64k"},
					  {o->uid_key, o->uid},
					  {o->gid_key, o->gid},
					  {NULL, NULL}};
	cleanup_close int dev =
		fresh_mount("tmpfs", "/dev", dev_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, e);

	if (dev < 0)
		return -1;
	for (size_t i = 0; i < rootfs_nstd_nodes && !s->mech.rootless; i++) {
		const struct rootfs_dev_node *d = &rootfs_std_nodes[i];

		if (mknodat(dev, d->name, S_IFCHR | 0666, makedev(d->major, d->minor)) < 0)
			return cell_err_set(e, errno, "mknod /dev/%s", d->name);
	}
	for (size_t i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
		if (symlinkat(dev_links[i].target, dev, dev_links[i].name) < 0)
			return cell_err_set(e, errno, "symlink /dev/%s", dev_links[i].name);
	if (mkdirat(dev, "pts", 0755) < 0 || mkdirat(dev, "shm", 01777) < 0 ||
	    mkdirat(dev, "mqueue", 0755) < 0)
		return cell_err_set(e, errno, "mkdir in /dev");
	if (s->proc.terminal) {
		/* The pty slave is bound here once it exists. */
		int fd = openat(dev, "console", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return cell_err_set(e, errno, "create /dev/console");
		close(fd);
	}
	return take_fd(&dev);
}

/*
 * The mounts in the jail's /dev (DEV, attached by now: a mount into a
 * detached tree needs Linux 6.15, and the jail's child is alone in its
 * mount namespace, so nothing sees /dev half made): a rootless jail's
 * host nodes, its own devpts, shm and mqueue.
 */
static int fill_dev(int dev, const struct jail_spec *s, const struct fresh_owner *o,
		    struct cell_err *e)
{
	/* The tty group, unless a rootless jail's single mapping leaves it
	 * out (its ptys are then root's group). */
	const bool tty_mapped = !s->mech.rootless || rootless_gid_mapped(5);
	const struct fs_opt pts_opts[] = {{"newinstance", NULL},
					  {"ptmxmode", "0666"},
					  {"mode", "0620"},
					  {"max", DEVPTS_MAX},
					  {tty_mapped ? "gid" : NULL, o->tty},
					  {NULL, NULL}};
	const unsigned int hard = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
	char size[TMPFS_SIZE_MAX];
	const struct fs_opt shm_opts[] = {
		{"mode", "1777"},
		{"size", tmpfs_size(s, TMPFS_SHM_DEFAULT, size, sizeof(size))},
		{o->uid_key, o->uid},
		{o->gid_key, o->gid},
		{NULL, NULL}};

	for (size_t i = 0; i < rootfs_nstd_nodes && s->mech.rootless; i++)
		if (bind_host_node(dev, &rootfs_std_nodes[i], e) < 0)
			return -1;
	if (mount_fresh(dev, RESOLVE_BENEATH, "devpts", "pts", "/dev/pts", pts_opts,
			MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, e) < 0 ||
	    mount_fresh(dev, RESOLVE_BENEATH, "tmpfs", "shm", "/dev/shm", shm_opts, hard, e) < 0)
		return -1;
	/* POSIX message queues of the jail's own IPC namespace (a rootless
	 * jail sharing the host's may not mount the host's). */
	if ((s->mech.ns_new & CLONE_NEWIPC || !s->mech.rootless) &&
	    mount_fresh(dev, RESOLVE_BENEATH, "mqueue", "mqueue", "/dev/mqueue", NULL, hard, e) < 0)
		return -1;
	return 0;
}

static int setup_binds(int root, const struct jail_spec *s, const struct rootfs_ids *ids,
		       struct cell_err *e)
{
	for (size_t i = 0; i < s->nbinds; i++) {
		const struct jail_bind *b = &s->binds[i];
		struct mount_attr attr = {.attr_set = (b->ro ? MOUNT_ATTR_RDONLY : 0) |
						      (b->dev ? 0 : MOUNT_ATTR_NODEV)};
		cleanup_close int mnt = -1;
		struct stat st;

		/* The source is the user's own choice on the host: resolved
		 * as a shell would, before the root switch. */
		mnt = open_tree(AT_FDCWD, b->src,
				OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (mnt < 0 || fstat(mnt, &st) < 0)
			return cell_err_param(e, PARAM_BIND, (int)i, errno, "%s", b->src);
		/* Idmapped, with ro and nodev in the same call.  A filesystem
		 * that cannot be idmapped (EINVAL: procfs, sysfs...) is bound
		 * as it is: its files seen through the mapping, the host
		 * root's as nobody's, which opens nothing more. */
		if (ids->userns >= 0) {
			if (idmap_tree(mnt, ids, attr.attr_set) == 0)
				attr.attr_set = 0;
			else if (errno != EINVAL)
				return cell_err_param(e, PARAM_BIND, (int)i, errno, "idmap");
		}
		/* Device nodes only when asked: a bind (even read-only)
		 * otherwise opens the host's /dev/kvm, loop devices, kmsg to
		 * whoever finds them in it. */
		if (attr.attr_set != 0 &&
		    mount_setattr(mnt, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
			return cell_err_param(e, PARAM_BIND, (int)i, errno, "set ro/nodev");
		if (create_in_root(root, b->dst, S_ISDIR(st.st_mode), e) < 0 ||
		    attach_in_root(mnt, root, b->dst, 0, e) < 0) {
			/* The reason is the mount's: the subject goes in front. */
			e->about.param = PARAM_BIND;
			e->about.index = (int)i;
			e->about.at = 0;
			return -1;
		}
	}
	return 0;
}

/* PATH's part beneath TOP ("/proc/sys" beneath "/proc": "sys"), or NULL
 * when PATH does not lie strictly beneath TOP. */
const char *rootfs_beneath(const char *path, const char *top)
{
	size_t n = strlen(top);

	return strncmp(path, top, n) == 0 && path[n] == '/' && path[n + 1] != '\0' ? path + n + 1
										   : NULL;
}

/* A path the jail's fresh proc or sysfs holds: done through their
 * descriptors, not in the tree. */
static bool in_kernel_fs(const char *path)
{
	return rootfs_beneath(path, "/proc") != NULL || rootfs_beneath(path, "/sys") != NULL;
}

/* True when PATH is DIR or lies beneath it. */
bool rootfs_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* A --bind at PATH or above it shows what the user asked for there, so
 * PATH needs no mask.  A bind *beneath* a masked directory lifts nothing
 * (rootfs_check() refuses it): it would unmask the whole directory. */
static bool bind_covers(const struct jail_spec *s, const char *path)
{
	for (size_t i = 0; i < s->nbinds; i++)
		if (rootfs_path_within(path, s->binds[i].dst))
			return true;
	return false;
}

/* A bind destination inside a masked directory of the tree: the mask is
 * read-only and empty, there is nowhere to mount it. */
static int check_bind_under_masks(const struct jail_spec *s, struct cell_err *e)
{
	for (size_t i = 0; i < s->nbinds; i++) {
		const char *dst = s->binds[i].dst;

		for (size_t k = 0; k < s->mech.nmasked; k++) {
			const char *m = s->mech.masked[k];

			if (in_kernel_fs(m))
				continue;
			if (rootfs_path_within(dst, m) && strcmp(dst, m) != 0 && !bind_covers(s, m))
				return cell_err_param(e, PARAM_BIND, (int)i, 0,
						      "%s is masked in the embedded root; bind %s "
						      "itself to show it",
						      m, m);
		}
	}
	return 0;
}

/* struct masks (rootfs_impl.h): the jail's /dev/null here. */
void rootfs_masks_close(struct masks *m)
{
	if (m->dir >= 0)
		close(m->dir);
	if (m->null >= 0)
		close(m->null);
}

/* Clones the mount at FROM onto TARGET. */
static int clone_onto(int from, int target, const char *path, struct cell_err *e)
{
	cleanup_close int mnt =
		open_tree(from, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);

	if (mnt < 0 ||
	    move_mount(mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "mask %s", path);
	return 0;
}

/*
 * A path the policy protects that the jail's tree lacks (the lookup
 * failed with ERR).  Nothing to protect only when the host has no such
 * path either (a kernel built without it: /proc/kcore, /proc/config.gz);
 * when the host has it, the jail's tree is not where the policy looks:
 * fail closed.  Runs before pivot_root: "/" is the host's.
 */
static int missing_path(const char *path, int err, const char *what, struct cell_err *e)
{
	struct stat st;

	if (err != ENOENT && err != ENOTDIR)
		return cell_err_set(e, err, "%s %s", what, path);
	if (fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	return cell_err_set(e, err, "%s %s: the jail's tree has no such path but the host has",
			    what, path);
}

/* Masks what TARGET (opened, not followed) is: an empty read-only tmpfs
 * over a directory, the jail's /dev/null over anything else. */
int rootfs_mask_opened(const char *path, int target, struct masks *m, struct cell_err *e)
{
	static const struct fs_opt closed[] = {{"mode", "0"}, {"nr_inodes", "1"}, {NULL, NULL}};
	static const struct fs_opt listable[] = {
		{"mode", "0755"}, {"nr_inodes", "1"}, {NULL, NULL}};
	const struct fs_opt *opts = m->listable ? listable : closed;
	struct stat st;

	if (fstat(target, &st) < 0)
		return cell_err_set(e, errno, "mask %s", path);
	if (S_ISLNK(st.st_mode))
		return 0; /* what it points to is masked, or is the jail's */
	if (!S_ISDIR(st.st_mode) && !m->null_moves)
		return clone_onto(m->null, target, path, e);
	if (!S_ISDIR(st.st_mode)) {
		if (move_mount(m->null, "", target, "",
			       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
			return cell_err_set(e, errno, "mask %s", path);
		m->null_moves = false;
		return 0;
	}
	if (m->dir >= 0)
		return clone_onto(m->dir, target, path, e);
	/* The first masked directory gets the tmpfs itself, the next ones
	 * clones of it: Linux before 6.15 clones no detached mount. */
	m->dir = fresh_mount(
		"tmpfs", path, opts,
		MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, e);
	if (m->dir < 0)
		return -1;
	if (move_mount(m->dir, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) <
	    0)
		return cell_err_set(e, errno, "mask %s", path);
	return 0;
}

/* Masks PATH inside the jail's root (the host's own tree for the host's
 * secrets); a path missing here and on the host needs no mask. */
static int mask_path(int root, const char *path, struct masks *m, struct cell_err *e)
{
	cleanup_close int target = open_in_root(root, path, O_PATH | O_NOFOLLOW);

	if (target < 0)
		return missing_path(path, errno, "mask", e);
	return rootfs_mask_opened(path, target, m, e);
}

/* Opens REL beneath the root of the jail's own mount MNT (its proc or
 * sysfs, just attached), never through a symlink; HOST is the same path on
 * the host, for missing_path() and errors.  0 with *fd -1: the kernel
 * has no such file. */
static int open_beneath(int mnt, const char *rel, const char *host, const char *what, int *fd,
			struct cell_err *e)
{
	*fd = rootfs_openat2(mnt, rel, O_PATH | O_NOFOLLOW,
			     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
				     RESOLVE_NO_XDEV);
	if (*fd >= 0)
		return 0;
	return missing_path(host, errno, what, e);
}

/* Stacks a read-only bind of TARGET (opened, PATH in errors) on itself. */
int rootfs_readonly_over(int target, const char *path, struct cell_err *e)
{
	struct mount_attr ro = {.attr_set =
					MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
	cleanup_close int clone = open_tree(
		target, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);

	if (clone < 0 ||
	    mount_setattr(clone, "", AT_EMPTY_PATH | AT_RECURSIVE, &ro, sizeof(ro)) < 0 ||
	    move_mount(clone, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) <
		    0)
		return cell_err_set(e, errno, "make %s read-only", path);
	return 0;
}

/* REL (beneath MNT) made read-only. */
static int readonly_beneath(int mnt, const char *rel, const char *host, struct cell_err *e)
{
	cleanup_close int target = -1;

	if (open_beneath(mnt, rel, host, "make read-only", &target, e) < 0)
		return -1;
	return target < 0 ? 0 : rootfs_readonly_over(target, host, e);
}

static int mask_beneath(int mnt, const char *rel, const char *host, struct masks *m,
			struct cell_err *e)
{
	cleanup_close int target = -1;

	if (open_beneath(mnt, rel, host, "mask", &target, e) < 0)
		return -1;
	return target < 0 ? 0 : rootfs_mask_opened(host, target, m, e);
}

/* The protections of the mechanisms M that lie beneath TOP ("/proc",
 * "/sys"), done to the fresh mount MNT itself, attached just before (the
 * mounts need 6.15 in a detached tree; nothing else is in this mount
 * namespace to see it unprotected): by its descriptor, never by a path
 * of the jail's tree. */
static int protect_kernel_fs(int mnt, const char *top, const struct jail_mechanisms *m,
			     struct masks *masks, struct cell_err *e)
{
	for (size_t i = 0; i < m->nreadonly; i++) {
		const char *rel = rootfs_beneath(m->readonly[i], top);

		if (rel != NULL && readonly_beneath(mnt, rel, m->readonly[i], e) < 0)
			return -1;
	}
	for (size_t i = 0; i < m->nmasked; i++) {
		const char *rel = rootfs_beneath(m->masked[i], top);

		if (rel != NULL && mask_beneath(mnt, rel, m->masked[i], masks, e) < 0)
			return -1;
	}
	return 0;
}

/* PATH of the jail's tree made read-only. */
static int readonly_in_tree(int root, const char *path, struct cell_err *e)
{
	cleanup_close int target = open_in_root(root, path, O_PATH | O_NOFOLLOW);

	if (target < 0)
		return missing_path(path, errno, "make read-only", e);
	return rootfs_readonly_over(target, path, e);
}

/* The host's ssh host keys: /etc/ssh/ssh_host_*_key. */
static int mask_ssh_host_keys(int root, struct masks *m, struct cell_err *e)
{
	DIR *d = opendir("etc/ssh"); /* cwd is the embedded root: the host's own tree */
	struct dirent *de;
	int ret = 0;

	if (d == NULL)
		return 0;
	while (ret == 0 && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		char path[300];

		if (strncmp(de->d_name, "ssh_host_", 9) != 0 || n < 13 ||
		    strcmp(de->d_name + n - 4, "_key") != 0)
			continue;
		snprintf(path, sizeof(path), "/etc/ssh/%s", de->d_name);
		ret = mask_path(root, path, m, e);
	}
	closedir(d);
	return ret;
}

/*
 * cell's state root (the directory ATTACH, the jail's own state
 * directory, lies in), where the jail's tree shows it: a state root in
 * the embedded root (`--root /var/tmp/x`) or in a --rootfs would let
 * one jail read the others' logs and records.  Found by its path inside
 * the tree, and masked only when that is the host's very directory
 * (device and inode): the default /run/cell lies under the jail's fresh
 * /run, and nothing needs doing.
 */
static int mask_state_root(int root, const struct jail_spec *s, const char *attach, struct masks *m,
			   struct cell_err *e)
{
	cleanup_free char *dir = strdup(attach);
	cleanup_close int target = -1;
	const char *inside = NULL;
	struct stat host, seen;
	char *end;

	if (dir == NULL)
		return cell_err_set(e, ENOMEM, "mask the state root");
	end = strrchr(dir, '/');
	while (end != NULL && end > dir && end[-1] == '/')
		end--;
	if (end == NULL || end == dir)
		return 0; /* a relative or "/" root: never made so by the CLI */
	*end = '\0';
	if (s->rootfs == NULL) {
		inside = dir;
	} else if (s->rootfs[0] == '/' && rootfs_path_within(dir, s->rootfs)) {
		size_t n = strlen(s->rootfs);

		while (n > 1 && s->rootfs[n - 1] == '/')
			n--;
		inside = n == 1 ? dir : dir + n; /* "" when it is the root itself */
	}
	if (inside == NULL || inside[0] != '/')
		return 0;
	/* Looked for in the tree first: under the fresh /run (the default
	 * root) it is not there, and that costs one call. */
	target = open_in_root(root, inside, O_PATH | O_NOFOLLOW | O_DIRECTORY);
	if (target < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : cell_err_set(e, errno, "mask the state root %s", dir);
	if (fstat(target, &seen) < 0 || stat(dir, &host) < 0)
		return cell_err_set(e, errno, "mask the state root %s", dir);
	if (seen.st_dev != host.st_dev || seen.st_ino != host.st_ino)
		return 0;
	return rootfs_mask_opened(inside, target, m, e);
}

/* The mechanisms' protections in the jail's tree, outside /proc and
 * /sys (the host's secrets in the embedded root); a bind at or above
 * a path uncovers it. */
static int setup_tree_protections(int root, const struct jail_spec *s, const char *attach,
				  struct masks *m, struct cell_err *e)
{
	const struct jail_mechanisms *mech = &s->mech;
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < mech->nreadonly; i++)
		if (!in_kernel_fs(mech->readonly[i]) && !bind_covers(s, mech->readonly[i]))
			ret = readonly_in_tree(root, mech->readonly[i], e);
	for (size_t i = 0; ret == 0 && i < mech->nmasked; i++)
		if (!in_kernel_fs(mech->masked[i]) && !bind_covers(s, mech->masked[i]))
			ret = mask_path(root, mech->masked[i], m, e);
	/* A bind onto one key file stacks over its mask. */
	if (ret == 0 && mech->mask_ssh_host_keys && !bind_covers(s, "/etc/ssh"))
		ret = mask_ssh_host_keys(root, m, e);
	if (ret == 0 && mech->hide_state_root)
		ret = mask_state_root(root, s, attach, m, e);
	return ret;
}

/*
 * The jail's fresh mounts, each made detached, attached on its mount
 * point, opened once without following a symlink, then given what is
 * mounted in it (/dev's) or protected (with the policy's mounts: proc
 * and sysfs) through its own descriptor.  Attached first because Linux
 * before 6.15 mounts nothing into a detached tree (the same calls on
 * newer ones); the jail's child is alone in its mount namespace before
 * pivot_root, so no one sees a mount half made.  /dev comes first: its
 * /dev/null is what masks files.
 */
static int setup_fresh_mounts(int root, const struct jail_spec *s, const char *attach,
			      const struct rootfs_ids *ids, struct cell_err *e)
{
	char tmp_size[TMPFS_SIZE_MAX], run_size[TMPFS_SIZE_MAX];
	struct fresh_owner o;

	fresh_owner_init(&o, ids);
	const struct fs_opt tmp_opts[] = {
		{"mode", "1777"},
		{"size", tmpfs_size(s, TMPFS_TMP_DEFAULT, tmp_size, sizeof(tmp_size))},
		{o.uid_key, o.uid},
		{o.gid_key, o.gid},
		{NULL, NULL}};
	const struct fs_opt run_opts[] = {
		{"mode", "755"},
		{"size", tmpfs_size(s, TMPFS_RUN_DEFAULT, run_size, sizeof(run_size))},
		{o.uid_key, o.uid},
		{o.gid_key, o.gid},
		{NULL, NULL}};
	const unsigned int hard = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
	cleanup_close int dev = build_dev(s, &o, e);
	cleanup_close int proc = -1, sys = -1;
	struct masks m = {-1, -1, false, false};
	int ret = -1;

	if (dev < 0 || attach_pinned(dev, root, "/dev", "/dev", RESOLVE_IN_ROOT, e) < 0 ||
	    fill_dev(dev, s, &o, e) < 0)
		return -1;
	m.null = rootfs_openat2(dev, "null", O_PATH | O_NOFOLLOW,
				RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS);
	if (m.null < 0)
		return cell_err_set(e, errno, "open /dev/null");
	/* A proc of the jail's own pid namespace: it shows only the jail. */
	proc = fresh_mount("proc", "/proc", NULL, hard, e);
	if (proc < 0 || attach_pinned(proc, root, "/proc", "/proc", RESOLVE_IN_ROOT, e) < 0 ||
	    protect_kernel_fs(proc, "/proc", &s->mech, &m, e) < 0)
		goto out;
	/* sysfs shows the jail's network namespace; read-only.  A rootless
	 * jail in a network namespace it does not own (--net host, ns:)
	 * may not mount one: the host's, bound read-only. */
	if (rootfs_join_net(ids, e) < 0)
		goto out;
	sys = s->mech.rootless && !(s->mech.ns_new & CLONE_NEWNET)
		      ? bind_host_sys(hard, e)
		      : fresh_mount("sysfs", "/sys", NULL, hard | MOUNT_ATTR_RDONLY, e);
	if (sys < 0 || attach_pinned(sys, root, "/sys", "/sys", RESOLVE_IN_ROOT, e) < 0 ||
	    protect_kernel_fs(sys, "/sys", &s->mech, &m, e) < 0)
		goto out;
	if (mount_fresh(root, RESOLVE_IN_ROOT, "tmpfs", "/tmp", "/tmp", tmp_opts,
			MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, e) < 0 ||
	    mount_fresh(root, RESOLVE_IN_ROOT, "tmpfs", "/run", "/run", run_opts,
			MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, e) < 0)
		goto out;
	if (setup_tree_protections(root, s, attach, &m, e) < 0)
		goto out;
	ret = 0;
out:
	rootfs_masks_close(&m);
	return ret;
}

/*
 * In the embedded root, the clone of the host's tree carries the host's
 * own /proc, /dev, /sys (with its cgroup mounts) and maybe /run and /tmp.
 * Take them out rather than cover them, so that the jail's mountinfo
 * shows only its own mounts: each is moved (cwd is the clone) onto its
 * own place in the old root, cell's copy of the host's tree, and leaves
 * with it in the one detach after pivot_root.  An unmount each would
 * wait for an RCU grace period apiece (namespace_unlock()); a move waits
 * for none.  The paths are the host's, hence trusted.
 */
static int detach_host_mounts(struct cell_err *e)
{
	for (size_t i = 0; i < sizeof(fresh_dirs) / sizeof(fresh_dirs[0]); i++) {
		char old[8];

		snprintf(old, sizeof(old), "/%s", fresh_dirs[i]);
		if (move_mount(AT_FDCWD, fresh_dirs[i], AT_FDCWD, old, 0) == 0)
			continue;
		/* Not moved: detach it (EINVAL: it is no mount point). */
		if (umount2(fresh_dirs[i], MNT_DETACH | UMOUNT_NOFOLLOW) < 0 && errno != EINVAL)
			return cell_err_set(e, errno, "detach host /%s", fresh_dirs[i]);
	}
	return 0;
}

int rootfs_clone_root(const char *what, const struct rootfs_pin *pin, struct cell_err *e)
{
	cleanup_close int root =
		open_tree(AT_FDCWD, what,
			  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);

	if (root < 0)
		return cell_err_set(e, errno, "bind root %s", what);
	if (pin->set) {
		struct stat st;

		/* The directory rootfs_check() looked at, not one put in
		 * its place since. */
		if (fstat(root, &st) < 0)
			return cell_err_set(e, errno, "bind root %s", what);
		if (st.st_dev != pin->dev || st.st_ino != pin->ino)
			return cell_err_param(e, PARAM_PATH, 0, ESTALE,
					      "replaced while the jail started (refused)");
	}
	return take_fd(&root);
}

/*
 * A bridged or joined network's files, which net.c wrote in the jail's
 * state directory: each cloned (before the root covers that directory)
 * and bound read-only over the root's /etc/hosts, /etc/hostname and
 * /etc/resolv.conf, where the root has that file (a symlink there, say
 * resolv.conf -> ../run/..., is left as it is: never followed).
 */
static const char *const net_files[] = {"hosts", "hostname", "resolv.conf"};
#define NNET_FILES (sizeof(net_files) / sizeof(net_files[0]))

static void net_files_close(int *fds)
{
	for (size_t i = 0; i < NNET_FILES; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static int clone_net_files(const char *attach, int *fds, struct cell_err *e)
{
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
					    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC};
	char path[PATH_MAX];

	for (size_t i = 0; i < NNET_FILES; i++) {
		snprintf(path, sizeof(path), "%s/%s", attach, net_files[i]);
		fds[i] = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (fds[i] < 0 || mount_setattr(fds[i], "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
			return cell_err_set(e, errno, "bind the jail's /etc/%s", net_files[i]);
	}
	return 0;
}

static int attach_net_files(int root, int *fds, struct cell_err *e)
{
	for (size_t i = 0; i < NNET_FILES; i++) {
		char target[32];
		cleanup_close int t = -1;
		struct stat st;

		snprintf(target, sizeof(target), "etc/%s", net_files[i]);
		t = rootfs_openat2(root, target, O_PATH | O_NOFOLLOW,
				   RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (t < 0 || fstat(t, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (move_mount(fds[i], "", t, "",
			       MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
			return cell_err_set(e, errno, "bind the jail's /%s", target);
	}
	return 0;
}

int rootfs_join_net(const struct rootfs_ids *ids, struct cell_err *e)
{
	return ids->join_net != NULL ? ids->join_net(ids->arg, e) : 0;
}

int rootfs_build(const struct jail_spec *s, const struct rootfs_pin *pin, const char *attach,
		 const struct rootfs_ids *ids, struct cell_err *e)
{
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV};
	const char *what = s->rootfs != NULL ? s->rootfs : "/";
	cleanup_close int root = -1;
	int netf[NNET_FILES] = {-1, -1, -1};
	int ret;

	/* An OCI config's tree: its own list of mounts (rootfs_oci.c). */
	if (s->mech.mounts_given)
		return rootfs_oci_build(s, pin, attach, ids, e);

	/* 1. Nothing below propagates to the host's mount namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return cell_err_set(e, errno, "make mounts private");

	/* 2. The new root: a detached recursive clone of the source. */
	root = rootfs_clone_root(what, pin, e);
	if (root < 0)
		return -1;
	if ((s->net == JAIL_NET_BRIDGE || s->net == JAIL_NET_NS || s->net == JAIL_NET_SLIRP) &&
	    clone_net_files(attach, netf, e) < 0)
		return -1;
	if (s->rootfs == NULL) {
		/* The host's files, read-only and without device nodes, before
		 * any of the jail's own (writable) mounts join the tree.  Not
		 * idmapped: the jail sees them through its mapping, and what
		 * the host's root keeps to itself stays closed. */
		ro.attr_set |= MOUNT_ATTR_NOSUID;
		if (mount_setattr(root, "", AT_EMPTY_PATH | AT_RECURSIVE, &ro, sizeof(ro)) < 0)
			return cell_err_set(e, errno, "make root %s read-only", what);
	} else if (ids->userns >= 0 && idmap_tree(root, ids, 0) < 0) {
		/* A root of the jail's own: its files are the jail's. */
		cell_err_param(e, PARAM_PATH, 0, errno, "idmap it (%s; userns host does without)",
			       idmap_refusal(root, errno));
		return cell_err_ref(e, PARAM_USERNS, "userns");
	}
	if (move_mount(root, "", AT_FDCWD, attach, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "attach root %s", what);
	if (fchdir(root) < 0)
		return cell_err_set(e, errno, "enter root %s", what);

	/* 3. The jail's own mounts. */
	if (s->rootfs == NULL) {
		if (detach_host_mounts(e) < 0)
			return -1;
	} else {
		for (size_t i = 0; i < sizeof(fresh_dirs) / sizeof(fresh_dirs[0]); i++)
			if (create_in_root(root, fresh_dirs[i], true, e) < 0)
				return cell_err_prefix(e, "rootfs %s", what);
	}
	if (setup_fresh_mounts(root, s, attach, ids, e) < 0)
		return -1;
	/* Before the binds: a --bind over /etc/hosts is the user's word. */
	ret = netf[0] >= 0 ? attach_net_files(root, netf, e) : 0;
	net_files_close(netf);
	if (ret < 0 || setup_binds(root, s, ids, e) < 0)
		return -1;
	if (s->rootfs != NULL) {
		/* Only the root mount: the jail's /tmp, /run and rw binds
		 * stay writable.  Written or not, its device nodes stay
		 * dead: the jail's devices are its /dev. */
		if (s->rw)
			ro.attr_set = MOUNT_ATTR_NODEV;
		if (mount_setattr(root, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
			return cell_err_set(e, errno, "make root %s %s", what,
					    s->rw ? "nodev" : "read-only");
	}

	return 0;
}

int rootfs_pivot(const struct jail_spec *s, struct cell_err *e)
{
	const char *what = s->rootfs != NULL ? s->rootfs : "/";

	/* 4. Switch roots; the old one ends up on top of "." and is detached. */
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return cell_err_set(e, errno, "pivot_root to %s", what);
	if (umount2(".", MNT_DETACH) < 0)
		return cell_err_set(e, errno, "detach the old root");
	if (chdir("/") < 0)
		return cell_err_set(e, errno, "chdir /");
	return s->mech.mounts_given ? rootfs_oci_propagate(s, e) : 0;
}

int rootfs_verify(const struct jail_spec *s, struct cell_err *e)
{
	struct statvfs v;

	if (s->mech.mounts_given)
		return rootfs_oci_verify(s, e);
	/* What inspect calls enforced is what the jail got: checked in the
	 * jail's own tree, after the root switch.  A path the kernel lacks
	 * (ENOENT) was not there to protect. */
	for (size_t i = 0; i < s->mech.nreadonly; i++) {
		const char *path = s->mech.readonly[i];

		if (statvfs(path, &v) < 0) {
			if (errno == ENOENT)
				continue;
			return cell_err_set(e, errno, "policy: check %s", path);
		}
		if (!(v.f_flag & ST_RDONLY))
			return cell_err_set(e, EPERM, "policy: %s is not read-only in the jail",
					    path);
	}
	return 0;
}

int rootfs_bind_console(const char *slave_path, struct cell_err *e)
{
	cleanup_close int mnt =
		open_tree(AT_FDCWD, slave_path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	cleanup_close int target = -1;

	if (mnt < 0)
		return cell_err_set(e, errno, "bind %s on /dev/console", slave_path);
	/* An OCI rootfs brings its own /dev/console (without a /dev mount
	 * over it): a symlink there is refused, not followed. */
	target = rootfs_open_mount_point(AT_FDCWD, "/dev/console", "/dev/console", RESOLVE_IN_ROOT,
					 0, e);
	if (target < 0)
		return -1;
	if (move_mount(mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "attach mount on /dev/console");
	return 0;
}
