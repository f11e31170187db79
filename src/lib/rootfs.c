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
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cleanup.h"
#include "param.h"

/* Mount points the jail always gets fresh, in the order they are made. */
static const char *const fresh_dirs[] = {"proc", "dev", "sys", "tmp", "run"};

static int sys_openat2(int dirfd, const char *path, int flags, unsigned long long resolve)
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
	return sys_openat2(root, path, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

static int check_bind_under_masks(const struct jail_spec *s, struct cell_err *e);

int rootfs_check(const struct jail_spec *s, struct cell_err *e)
{
	struct stat st;

	if (s->rootfs != NULL) {
		if (stat(s->rootfs, &st) < 0)
			return cell_err_param(e, PARAM_PATH, 0, errno, "%s", "");
		if (!S_ISDIR(st.st_mode))
			return cell_err_param(e, PARAM_PATH, 0, ENOTDIR, "%s", "");
	}
	for (size_t i = 0; i < s->nbinds; i++)
		if (stat(s->binds[i].src, &st) < 0)
			return cell_err_param(e, PARAM_BIND, (int)i, errno, "%s", s->binds[i].src);
	if (s->rootfs == NULL && s->policy)
		return check_bind_under_masks(s, e);
	return 0;
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

struct fs_opt {
	const char *key, *value;
};

/* Mounts a new instance of FSTYPE on TARGET inside ROOT. */
static int mount_fresh(int root, const char *fstype, const char *target, const struct fs_opt *opts,
		       unsigned int attrs, struct cell_err *e)
{
	cleanup_close int fs = fsopen(fstype, FSOPEN_CLOEXEC);
	cleanup_close int mnt = -1;

	if (fs < 0)
		return cell_err_set(e, errno, "mount %s on %s", fstype, target);
	/* The source names the filesystem in the jail's mountinfo. */
	if (fsconfig(fs, FSCONFIG_SET_STRING, "source", fstype, 0) < 0)
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
	if (attach_in_root(mnt, root, target, O_DIRECTORY, e) < 0)
		return cell_err_prefix(e, "mount %s", fstype);
	return 0;
}

struct dev_node {
	const char *name;
	unsigned int major, minor;
};

/* The minimal /dev of the foundation issue. */
static const struct dev_node dev_nodes[] = {
	{"null", 1, 3},	  {"zero", 1, 5},    {"full", 1, 7},
	{"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0},
};

static const struct {
	const char *target, *name;
} dev_links[] = {
	{"/proc/self/fd", "fd"},       {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"},
	{"/proc/self/fd/2", "stderr"}, {"pts/ptmx", "ptmx"},
};

static int setup_dev(int root, const struct jail_spec *s, struct cell_err *e)
{
	static const struct fs_opt dev_opts[] = {{"mode", "755"}, {"size", "64k"}, {NULL, NULL}};
	static const struct fs_opt pts_opts[] = {{"newinstance", NULL},
						 {"ptmxmode", "0666"},
						 {"mode", "0620"},
						 {"gid", "5"},
						 {NULL, NULL}};
	static const struct fs_opt shm_opts[] = {{"mode", "1777"}, {NULL, NULL}};
	cleanup_close int dev = -1;

	if (mount_fresh(root, "tmpfs", "/dev", dev_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, e) <
	    0)
		return -1;
	dev = open_in_root(root, "/dev", O_PATH | O_DIRECTORY);
	if (dev < 0)
		return cell_err_set(e, errno, "open /dev");
	for (size_t i = 0; i < sizeof(dev_nodes) / sizeof(dev_nodes[0]); i++) {
		const struct dev_node *d = &dev_nodes[i];
		if (mknodat(dev, d->name, S_IFCHR | 0666, makedev(d->major, d->minor)) < 0)
			return cell_err_set(e, errno, "mknod /dev/%s", d->name);
	}
	for (size_t i = 0; i < sizeof(dev_links) / sizeof(dev_links[0]); i++)
		if (symlinkat(dev_links[i].target, dev, dev_links[i].name) < 0)
			return cell_err_set(e, errno, "symlink /dev/%s", dev_links[i].name);
	if (mkdirat(dev, "pts", 0755) < 0 || mkdirat(dev, "shm", 01777) < 0 ||
	    mkdirat(dev, "mqueue", 0755) < 0)
		return cell_err_set(e, errno, "mkdir in /dev");
	if (s->tty) {
		/* The pty slave is bound here once it exists. */
		int fd = openat(dev, "console", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
		if (fd < 0)
			return cell_err_set(e, errno, "create /dev/console");
		close(fd);
	}
	if (mount_fresh(root, "devpts", "/dev/pts", pts_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC,
			e) < 0)
		return -1;
	if (mount_fresh(root, "tmpfs", "/dev/shm", shm_opts,
			MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, e) < 0)
		return -1;
	/* POSIX message queues of the jail's own IPC namespace. */
	return mount_fresh(root, "mqueue", "/dev/mqueue", NULL,
			   MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, e);
}

static int setup_fresh_mounts(int root, const struct jail_spec *s, struct cell_err *e)
{
	static const struct fs_opt tmp_opts[] = {{"mode", "1777"}, {NULL, NULL}};
	static const struct fs_opt run_opts[] = {{"mode", "755"}, {NULL, NULL}};
	const unsigned int hard = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;

	/* A proc of the jail's own pid namespace: it shows only the jail. */
	if (mount_fresh(root, "proc", "/proc", NULL, hard, e) < 0)
		return -1;
	if (setup_dev(root, s, e) < 0)
		return -1;
	/* sysfs shows the jail's network namespace; read-only. */
	if (mount_fresh(root, "sysfs", "/sys", NULL, hard | MOUNT_ATTR_RDONLY, e) < 0)
		return -1;
	if (mount_fresh(root, "tmpfs", "/tmp", tmp_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, e) <
	    0)
		return -1;
	return mount_fresh(root, "tmpfs", "/run", run_opts, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
			   e);
}

static int setup_binds(int root, const struct jail_spec *s, struct cell_err *e)
{
	for (size_t i = 0; i < s->nbinds; i++) {
		const struct jail_bind *b = &s->binds[i];
		struct mount_attr attr = {.attr_set = MOUNT_ATTR_RDONLY};
		cleanup_close int mnt = -1;
		struct stat st;

		/* The source is the user's own choice on the host: resolved
		 * as a shell would, before the root switch. */
		mnt = open_tree(AT_FDCWD, b->src,
				OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (mnt < 0 || fstat(mnt, &st) < 0)
			return cell_err_param(e, PARAM_BIND, (int)i, errno, "%s", b->src);
		if (b->ro &&
		    mount_setattr(mnt, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
			return cell_err_param(e, PARAM_BIND, (int)i, errno, "make read-only");
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

/* Kernel interfaces a jail may read but not write: sysctls above all. */
static const char *const proc_readonly[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/bus",
					    "/proc/fs", "/proc/irq"};
/* Kernel interfaces a jail may not even read (memory, keys, timers...). */
static const char *const proc_masked[] = {
	"/proc/kcore",	    "/proc/keys",	 "/proc/kallsyms",
	"/proc/timer_list", "/proc/sched_debug", "/proc/latency_stats",
	"/proc/acpi",	    "/proc/scsi",	 "/sys/firmware"};
/* The host's secrets, masked in the embedded root (docs/cell.8 lists them). */
static const char *const host_secrets[] = {
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/security/opasswd",
	"/etc/ssl/private",
	"/root",
	"/home",
	"/var/lib",
	"/var/backups",
	"/var/mail",
	"/var/spool",
	"/var/log",
	"/var/cache",
};

/* True when PATH is DIR or lies beneath it. */
static bool path_within(const char *path, const char *dir)
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
		if (path_within(path, s->binds[i].dst))
			return true;
	return false;
}

/* A bind destination inside a masked directory of the embedded root:
 * the mask is read-only and empty, there is nowhere to mount it. */
static int check_bind_under_masks(const struct jail_spec *s, struct cell_err *e)
{
	for (size_t i = 0; i < s->nbinds; i++) {
		const char *dst = s->binds[i].dst;

		for (size_t k = 0; k < sizeof(host_secrets) / sizeof(host_secrets[0]); k++) {
			const char *m = host_secrets[k];

			if (path_within(dst, m) && strcmp(dst, m) != 0 && !bind_covers(s, m))
				return cell_err_param(e, PARAM_BIND, (int)i, 0,
						      "%s is masked in the embedded root; bind %s "
						      "itself to show it",
						      m, m);
		}
	}
	return 0;
}

/*
 * What masks are made of: one empty read-only tmpfs, mounted over the
 * first masked directory and cloned onto the others (a clone shares the
 * superblock: much cheaper than a new tmpfs each), and the jail's
 * /dev/null, bound over masked files.
 */
struct masks {
	int dir;  /* the first masked directory, its tmpfs root; -1 until then */
	int null; /* the jail's /dev/null (O_PATH); -1 until needed */
};

static void masks_close(struct masks *m)
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

/* Mounts an empty read-only tmpfs over a directory, the jail's /dev/null
 * over anything else.  A missing path needs no mask. */
static int mask_path(int root, const char *path, struct masks *m, struct cell_err *e)
{
	static const struct fs_opt opts[] = {{"mode", "0"}, {"nr_inodes", "1"}, {NULL, NULL}};
	cleanup_close int target = open_in_root(root, path, O_PATH | O_NOFOLLOW);
	struct stat st;

	if (target < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : cell_err_set(e, errno, "mask %s", path);
	if (fstat(target, &st) < 0)
		return cell_err_set(e, errno, "mask %s", path);
	if (S_ISLNK(st.st_mode))
		return 0; /* what it points to is masked, or is the jail's */
	if (S_ISDIR(st.st_mode)) {
		if (m->dir >= 0)
			return clone_onto(m->dir, target, path, e);
		if (mount_fresh(root, "tmpfs", path, opts,
				MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
					MOUNT_ATTR_NOEXEC,
				e) < 0)
			return -1;
		m->dir = open_in_root(root, path, O_PATH | O_DIRECTORY);
		return m->dir < 0 ? cell_err_set(e, errno, "mask %s", path) : 0;
	}
	if (m->null < 0) {
		m->null = open_in_root(root, "/dev/null", O_PATH);
		if (m->null < 0)
			return cell_err_set(e, errno, "mask %s: open /dev/null", path);
	}
	return clone_onto(m->null, target, path, e);
}

/* Stacks a read-only bind of PATH on itself. */
static int readonly_path(int root, const char *path, struct cell_err *e)
{
	struct mount_attr ro = {.attr_set =
					MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
	cleanup_close int target = open_in_root(root, path, O_PATH | O_NOFOLLOW);
	cleanup_close int mnt = -1;

	if (target < 0)
		return errno == ENOENT ? 0 : cell_err_set(e, errno, "make %s read-only", path);
	mnt = open_tree(target, "",
			OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
	if (mnt < 0 || mount_setattr(mnt, "", AT_EMPTY_PATH | AT_RECURSIVE, &ro, sizeof(ro)) < 0 ||
	    move_mount(mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "make %s read-only", path);
	return 0;
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

/* The policy's mounts (policy.c, "sysctl writes", "host secrets"). */
static int setup_policy_mounts(int root, const struct jail_spec *s, struct cell_err *e)
{
	struct masks m = {-1, -1};
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < sizeof(proc_readonly) / sizeof(proc_readonly[0]); i++)
		ret = readonly_path(root, proc_readonly[i], e);
	for (size_t i = 0; ret == 0 && i < sizeof(proc_masked) / sizeof(proc_masked[0]); i++)
		ret = mask_path(root, proc_masked[i], &m, e);
	if (ret == 0 && s->rootfs == NULL) {
		for (size_t i = 0; ret == 0 && i < sizeof(host_secrets) / sizeof(host_secrets[0]);
		     i++)
			if (!bind_covers(s, host_secrets[i]))
				ret = mask_path(root, host_secrets[i], &m, e);
		/* A bind onto one key file stacks over its mask. */
		if (ret == 0 && !bind_covers(s, "/etc/ssh"))
			ret = mask_ssh_host_keys(root, &m, e);
	}
	masks_close(&m);
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

int rootfs_setup(const struct jail_spec *s, const char *attach, struct cell_err *e)
{
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV};
	const char *what = s->rootfs != NULL ? s->rootfs : "/";
	cleanup_close int root = -1;

	/* 1. Nothing below propagates to the host's mount namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return cell_err_set(e, errno, "make mounts private");

	/* 2. The new root: a detached recursive clone of the source. */
	root = open_tree(AT_FDCWD, what, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (root < 0)
		return cell_err_set(e, errno, "bind root %s", what);
	if (s->rootfs == NULL) {
		/* The host's files, read-only and without device nodes, before
		 * any of the jail's own (writable) mounts join the tree. */
		ro.attr_set |= MOUNT_ATTR_NOSUID;
		if (mount_setattr(root, "", AT_EMPTY_PATH | AT_RECURSIVE, &ro, sizeof(ro)) < 0)
			return cell_err_set(e, errno, "make root %s read-only", what);
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
	if (setup_fresh_mounts(root, s, e) < 0)
		return -1;
	if (s->policy && setup_policy_mounts(root, s, e) < 0)
		return -1;
	if (setup_binds(root, s, e) < 0)
		return -1;
	if (s->rootfs != NULL && !s->rw) {
		/* Only the root mount: the jail's /tmp, /run and rw binds
		 * stay writable. */
		if (mount_setattr(root, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
			return cell_err_set(e, errno, "make root %s read-only", what);
	}

	/* 4. Switch roots; the old one ends up on top of "." and is detached. */
	if (syscall(SYS_pivot_root, ".", ".") < 0)
		return cell_err_set(e, errno, "pivot_root to %s", what);
	if (umount2(".", MNT_DETACH) < 0)
		return cell_err_set(e, errno, "detach the old root");
	if (chdir("/") < 0)
		return cell_err_set(e, errno, "chdir /");
	return 0;
}

int rootfs_bind_console(const char *slave_path, struct cell_err *e)
{
	cleanup_close int mnt =
		open_tree(AT_FDCWD, slave_path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	cleanup_close int root = -1;

	if (mnt < 0)
		return cell_err_set(e, errno, "bind %s on /dev/console", slave_path);
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return cell_err_set(e, errno, "open /");
	return attach_in_root(mnt, root, "/dev/console", 0, e);
}
