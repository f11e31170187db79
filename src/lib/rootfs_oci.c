/*
 * rootfs_oci.c - a jail's tree from a list of mounts: an OCI config's
 * root, mounts, devices, maskedPaths, readonlyPaths, sysctl and
 * rootfsPropagation (struct jail_mechanisms, mounts_given).  rootfs.c
 * calls it in place of the built-in /proc /dev /sys /tmp set.
 *
 * The sequence, in kernel order:
 *
 *  1. every mount of the jail's new mount namespace private: nothing
 *     done here reaches the host, whatever the config asks;
 *  2. the root (the pinned root.path) cloned recursively, attached on
 *     the state directory, entered;
 *  3. each mount of the list in order: made detached (open_tree() of a
 *     bind's source, fsopen()/fsmount() of the rest), its attributes and
 *     idmap set while detached, a fresh proc or sysfs protected through
 *     its own descriptor (sysctls first, then its read-only and masked
 *     paths), then attached on its destination, opened component by
 *     component inside the root, never through a symlink (CVE-2021-30465:
 *     a symlink swapped in while the jail starts must never send a mount
 *     outside the root; CVE-2019-16884: a /proc that is a symlink must
 *     never get an unprotected proc);
 *  4. the masked and read-only paths outside the fresh proc and sysfs
 *     mounts, in the tree, never through a symlink;
 *  5. /dev's nodes and links, unless /dev is a bind;
 *  6. the root read-only unless rw;
 *  then rootfs_pivot() switches to it and applies rootfsPropagation.
 *
 * cgroup and cgroup2 mounts are not made here: the jail's own cgroups
 * can be mounted only once its cgroup namespace exists (launch.c mounts
 * them on the place rootfs_cgroup_mount() names).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "param.h"
#include "rootfs_impl.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* How a mount's destination ends when it is missing. */
enum dest_kind {
	DEST_DIR,  /* a directory */
	DEST_FILE, /* an empty file (a bind of a file) */
};

/* What one build carries from mount to mount. */
struct oci_build {
	const struct jail_spec *s;
	const struct rootfs_ids *ids;
	int root;	    /* the jail's root, attached */
	struct masks masks; /* what masks are made of (rootfs_impl.h) */
	int null_mnt;	    /* the detached tmpfs of masks.null */
	bool sysctls_done;  /* written through a fresh proc */
};

int rootfs_clean_path(const char *in, char *out, size_t len)
{
	size_t n = 0;

	if (in == NULL || len < 2)
		return -1;
	while (*in != '\0') {
		size_t k;

		while (*in == '/')
			in++;
		k = strcspn(in, "/");
		if (k == 0)
			break;
		if (k == 2 && in[0] == '.' && in[1] == '.')
			return -1;
		if (!(k == 1 && in[0] == '.')) {
			if (n + 1 + k >= len)
				return -1;
			out[n++] = '/';
			memcpy(out + n, in, k);
			n += k;
		}
		in += k;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
}

/* IN cleaned into OUT (PATH_MAX), or an error naming WHAT. */
static int clean_or_fail(const char *what, const char *in, char *out, struct cell_err *e)
{
	if (in == NULL || in[0] == '\0')
		return cell_err_set(e, EINVAL, "%s: an empty path", what);
	if (rootfs_clean_path(in, out, PATH_MAX) < 0)
		return cell_err_set(e, EINVAL, "%s %s: a \"..\" component or too long (refused)",
				    what, in);
	return 0;
}

void rootfs_mount_attrs(unsigned long flags, unsigned long clear, struct mount_attr *a)
{
	__u64 *set = &a->attr_set, *clr = &a->attr_clr;

	static const struct {
		unsigned long ms;
		uint64_t attr;
	} bits[] = {
		{MS_RDONLY, MOUNT_ATTR_RDONLY},		{MS_NOSUID, MOUNT_ATTR_NOSUID},
		{MS_NODEV, MOUNT_ATTR_NODEV},		{MS_NOEXEC, MOUNT_ATTR_NOEXEC},
		{MS_NODIRATIME, MOUNT_ATTR_NODIRATIME}, {MS_NOSYMFOLLOW, MOUNT_ATTR_NOSYMFOLLOW},
	};
	const unsigned long atime = MS_NOATIME | MS_RELATIME | MS_STRICTATIME;

	*set = *clr = 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (flags & bits[i].ms)
			*set |= bits[i].attr;
		else if (clear & bits[i].ms)
			*clr |= bits[i].attr;
	}
	/* The access-time mode is one field: setting one clears the field;
	 * clearing one ("atime", "norelatime") is the kernel's default,
	 * relatime (MOUNT_ATTR_RELATIME is 0). */
	if (flags & atime) {
		*clr |= MOUNT_ATTR__ATIME;
		if (flags & MS_STRICTATIME)
			*set |= MOUNT_ATTR_STRICTATIME;
		else if (flags & MS_NOATIME)
			*set |= MOUNT_ATTR_NOATIME;
	} else if (clear & atime) {
		*clr |= MOUNT_ATTR__ATIME;
	}
}

int rootfs_map_id(const struct jail_idmap *map, size_t n, uint32_t id, uint32_t *out)
{
	for (size_t i = 0; i < n; i++)
		if (id >= map[i].inside && id - map[i].inside < map[i].count) {
			*out = map[i].outside + (id - map[i].inside);
			return 0;
		}
	return -1;
}

/* Whether the config's maps are of a user namespace made after the
 * root is built: not a rootless cell's own, which it builds in
 * (oci_config.c), where the config's ids are the kernel's already. */
static bool maps_later(const struct jail_mechanisms *m)
{
	return (m->nuid_map > 0 || m->ngid_map > 0) && !(m->rootless && !m->own_userns);
}

int rootfs_host_id(const struct jail_mechanisms *m, const struct rootfs_ids *ids, bool gid,
		   uint32_t id, uint32_t *out)
{
	const struct jail_idmap *map = gid ? m->gid_map : m->uid_map;
	size_t n = gid ? m->ngid_map : m->nuid_map;

	if (n > 0 && maps_later(m))
		return rootfs_map_id(map, n, id, out);
	/* A range of the jail's own (ns.h): its ids are the range's. */
	if (ids != NULL && ids->userns >= 0) {
		*out = (gid ? (uint32_t)ids->gid : (uint32_t)ids->uid) + id;
		return 0;
	}
	*out = id;
	return 0;
}

/* Whether the jail's ids are not the host's: ids given in a config
 * (tmpfs uid=, device owners) are the jail's, translated for the
 * kernel, which reads them in the host's user namespace here. */
static bool ids_translated(const struct jail_mechanisms *m, const struct rootfs_ids *ids)
{
	return maps_later(m) || (ids != NULL && ids->userns >= 0);
}

/* Appends "KEY=VALUE" (VALUE NULL: "KEY") to the options in BUF. */
static int append_opt(char **buf, size_t *len, const char *key, size_t klen, const char *value)
{
	size_t need = *len + (*len > 0) + klen + (value != NULL ? 1 + strlen(value) : 0) + 1;
	char *p = realloc(*buf, need);

	if (p == NULL)
		return -1;
	*buf = p;
	*len += (size_t)sprintf(p + *len, "%s%.*s%s%s", *len > 0 ? "," : "", (int)klen, key,
				value != NULL ? "=" : "", value != NULL ? value : "");
	return 0;
}

/* One uid= or gid= option of a fresh tmpfs or devpts: the jail's id VALUE
 * as the host's, into NUM. */
static int translate_id_opt(const struct jail_mechanisms *m, const struct rootfs_ids *ids, bool gid,
			    const char *value, size_t vlen, char *num, size_t numlen,
			    struct cell_err *e)
{
	char digits[16];
	char *end;
	unsigned long v;
	uint32_t host;

	if (vlen == 0 || vlen >= sizeof(digits))
		return cell_err_set(e, EINVAL, "option %s=%.*s: not an id", gid ? "gid" : "uid",
				    (int)vlen, value);
	memcpy(digits, value, vlen);
	digits[vlen] = '\0';
	errno = 0;
	v = strtoul(digits, &end, 10);
	if (errno != 0 || *end != '\0' || v > UINT32_MAX - 1 || digits[0] == '-')
		return cell_err_set(e, EINVAL, "option %s=%s: not an id", gid ? "gid" : "uid",
				    digits);
	if (rootfs_host_id(m, ids, gid, (uint32_t)v, &host) < 0)
		return cell_err_set(e, EINVAL,
				    "option %s=%s: not mapped in the jail's user namespace",
				    gid ? "gid" : "uid", digits);
	snprintf(num, numlen, "%u", host);
	return 0;
}

/* The superblock flags of MS_* FLAGS as fsconfig() flags. */
static int append_sb_flags(char **buf, size_t *len, unsigned long flags)
{
	static const struct {
		unsigned long ms;
		const char *key;
	} sb[] = {{MS_SYNCHRONOUS, "sync"}, {MS_DIRSYNC, "dirsync"}, {MS_MANDLOCK, "mand"}};

	for (size_t i = 0; i < sizeof(sb) / sizeof(sb[0]); i++)
		if ((flags & sb[i].ms) &&
		    append_opt(buf, len, sb[i].key, strlen(sb[i].key), NULL) < 0)
			return -1;
	return 0;
}

int rootfs_mount_data(const struct jail_mount *m, const struct jail_mechanisms *mech,
		      const struct rootfs_ids *ids, char **out, struct cell_err *e)
{
	bool idfs = m->type != NULL &&
		    (strcmp(m->type, "tmpfs") == 0 || strcmp(m->type, "devpts") == 0);
	bool translate = idfs && ids_translated(mech, ids);
	bool seen[2] = {false, false};
	const char *p = m->data != NULL ? m->data : "";
	cleanup_free char *buf = NULL;
	size_t len = 0;

	while (*p != '\0') {
		size_t k = strcspn(p, ","), klen = strcspn(p, "=");
		const char *value = NULL;
		char num[16];

		if (klen > k)
			klen = k;
		if (klen < k)
			value = p + klen + 1;
		if (k > 0 && translate && value != NULL && klen == 3 &&
		    (strncmp(p, "uid", 3) == 0 || strncmp(p, "gid", 3) == 0)) {
			bool gid = p[0] == 'g';

			if (translate_id_opt(mech, ids, gid, value, k - klen - 1, num, sizeof(num),
					     e) < 0)
				return cell_err_prefix(e, "mount %s on %s", m->type,
						       m->destination);
			seen[gid] = true;
			if (append_opt(&buf, &len, p, klen, num) < 0)
				goto nomem;
		} else if (k > 0 && append_opt(&buf, &len, p, k, NULL) < 0) {
			goto nomem;
		}
		p += k;
		if (*p == ',')
			p++;
	}
	/* A tmpfs made by the jail's root where its ids are its own, as
	 * runc's, made in the container's user namespace. */
	if (translate && strcmp(m->type, "tmpfs") == 0)
		for (int gid = 0; gid <= 1; gid++) {
			char num[16];
			uint32_t host;

			if (seen[gid] || rootfs_host_id(mech, ids, gid, 0, &host) < 0)
				continue;
			snprintf(num, sizeof(num), "%u", host);
			if (append_opt(&buf, &len, gid ? "gid" : "uid", 3, num) < 0)
				goto nomem;
		}
	if (append_sb_flags(&buf, &len, m->flags) < 0)
		goto nomem;
	*out = take_ptr(&buf);
	return 0;
nomem:
	return cell_err_set(e, ENOMEM, "mount %s on %s", m->type, m->destination);
}

int rootfs_split_options(char *data, struct fs_opt *opts, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *item = data != NULL ? strtok_r(data, ",", &save) : NULL; item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');

		if (n + 1 >= max)
			return -1;
		if (eq != NULL)
			*eq = '\0';
		opts[n++] = (struct fs_opt){item, eq != NULL ? eq + 1 : NULL};
	}
	opts[n] = (struct fs_opt){NULL, NULL};
	return (int)n;
}

/* The files lxcfs emulates: the only mounts runc lets beneath /proc. */
static const char *const proc_lxcfs[] = {
	"/proc/cpuinfo",     "/proc/diskstats",	      "/proc/meminfo",
	"/proc/stat",	     "/proc/swaps",	      "/proc/uptime",
	"/proc/loadavg",     "/proc/slabinfo",	      "/proc/pressure/cpu",
	"/proc/pressure/io", "/proc/pressure/memory", "/proc/sys/kernel/ns_last_pid",
};

int rootfs_check_proc_dest(const char *dest, bool bind, bool src_is_proc, struct cell_err *e)
{
	if (!rootfs_path_within(dest, "/proc"))
		return 0;
	/* /proc itself: a proc, or a bind of one; anything else there
	 * would hide the jail's proc behind something the host chose
	 * (CVE-2019-19921). */
	if (strcmp(dest, "/proc") == 0) {
		if (!bind || src_is_proc)
			return 0;
		return cell_err_set(e, EPERM,
				    "a bind on /proc of a source that is not a proc "
				    "(refused)");
	}
	for (size_t i = 0; i < sizeof(proc_lxcfs) / sizeof(proc_lxcfs[0]); i++)
		if (strcmp(dest, proc_lxcfs[i]) == 0)
			return 0;
	return cell_err_set(e, EPERM, "%s lies inside /proc (refused)", dest);
}

/* Whether the jail has a namespace of TYPE of its own (new or joined,
 * never the host's). */
static bool ns_own(const struct jail_mechanisms *m, int type)
{
	if (m->ns_new & (unsigned long)type)
		return true;
	for (size_t i = 0; i < m->nns_join; i++)
		if (m->ns_join[i].type == type)
			return true;
	return false;
}

int rootfs_check_sysctl(const char *key, const struct jail_mechanisms *m, struct cell_err *e)
{
	static const char *const ipc[] = {"kernel.msg", "kernel.sem", "kernel.shm", "fs.mqueue."};

	if (key == NULL || key[0] == '\0' || strchr(key, '/') != NULL ||
	    strstr(key, "..") != NULL || key[0] == '.')
		return cell_err_set(e, EINVAL, "sysctl %s: not a sysctl name (refused)",
				    key != NULL ? key : "");
	/* Only what the jail's own namespaces hold: a write to any other
	 * would change the host (runc's rule). */
	for (size_t i = 0; i < sizeof(ipc) / sizeof(ipc[0]); i++)
		if (strncmp(key, ipc[i], strlen(ipc[i])) == 0) {
			if (ns_own(m, CLONE_NEWIPC))
				return 0;
			return cell_err_set(e, EPERM,
					    "sysctl %s: needs an IPC namespace of the "
					    "jail's own",
					    key);
		}
	if (strncmp(key, "net.", 4) == 0) {
		if (ns_own(m, CLONE_NEWNET))
			return 0;
		return cell_err_set(e, EPERM,
				    "sysctl %s: needs a network namespace of the jail's "
				    "own",
				    key);
	}
	if (strcmp(key, "kernel.domainname") == 0 && ns_own(m, CLONE_NEWUTS))
		return 0;
	/* The hostname is set after the root is built: a sysctl would be
	 * overwritten (runc refuses it too). */
	if (strcmp(key, "kernel.hostname") == 0)
		return cell_err_set(e, EINVAL, "sysctl %s: set the hostname instead", key);
	return cell_err_set(e, EPERM, "sysctl %s: not in a namespace of the jail's own (refused)",
			    key);
}

static bool is_bind(const struct jail_mount *m)
{
	return (m->flags & MS_BIND) != 0;
}

static bool is_cgroup(const struct jail_mount *m)
{
	return !is_bind(m) && m->type != NULL &&
	       (strcmp(m->type, "cgroup") == 0 || strcmp(m->type, "cgroup2") == 0);
}

static bool type_is(const struct jail_mount *m, const char *type)
{
	return !is_bind(m) && m->type != NULL && strcmp(m->type, type) == 0;
}

const struct jail_mount *rootfs_cgroup_mount(const struct jail_spec *s)
{
	for (size_t i = 0; i < s->mech.nmounts; i++)
		if (is_cgroup(&s->mech.mounts[i]))
			return &s->mech.mounts[i];
	return NULL;
}

/* One mount of the list, before anything is made. */
static int check_mount(const struct jail_mount *m, struct cell_err *e)
{
	char dest[PATH_MAX];
	struct statfs fs;
	bool src_is_proc = false;

	if (clean_or_fail("destination", m->destination, dest, e) < 0)
		return -1;
	if (strcmp(dest, "/") == 0)
		return cell_err_set(e, EINVAL, "destination /: the root is the jail's root path");
	if (is_bind(m)) {
		if (m->source == NULL || m->source[0] != '/')
			return cell_err_set(e, EINVAL, "bind source %s: not an absolute path",
					    m->source != NULL ? m->source : "(none)");
		if (statfs(m->source, &fs) < 0)
			return cell_err_set(e, errno, "bind source %s", m->source);
		src_is_proc = fs.f_type == PROC_SUPER_MAGIC;
	} else if (m->type == NULL || m->type[0] == '\0') {
		return cell_err_set(e, EINVAL, "no filesystem type (and not a bind)");
	}
	return rootfs_check_proc_dest(dest, is_bind(m), src_is_proc, e);
}

static int check_dev_node(const struct jail_device_node *d, struct cell_err *e)
{
	char path[PATH_MAX];

	if (clean_or_fail("device", d->path, path, e) < 0)
		return -1;
	if (rootfs_beneath(path, "/dev") == NULL)
		return cell_err_set(e, EINVAL, "device %s: not beneath /dev (refused)", d->path);
	if (strchr("cbup", d->type) == NULL || d->type == '\0')
		return cell_err_set(e, EINVAL, "device %s: type %c (c, b, u or p)", d->path,
				    d->type);
	return 0;
}

int rootfs_oci_check(const struct jail_spec *s, struct cell_err *e)
{
	const struct jail_mechanisms *m = &s->mech;
	char path[PATH_MAX];

	if (s->rootfs == NULL)
		return cell_err_param(e, PARAM_PATH, 0, EINVAL,
				      "a jail that lists its mounts "
				      "needs its root's path");
	for (size_t i = 0; i < m->nmounts; i++)
		if (check_mount(&m->mounts[i], e) < 0)
			return cell_err_prefix(
				e, "mounts[%zu] %s", i,
				m->mounts[i].destination != NULL ? m->mounts[i].destination : "");
	for (size_t i = 0; i < m->ndev_nodes; i++)
		if (check_dev_node(&m->dev_nodes[i], e) < 0)
			return -1;
	for (size_t i = 0; i < m->nsysctls; i++)
		if (rootfs_check_sysctl(m->sysctls[i].key, m, e) < 0)
			return -1;
	for (size_t i = 0; i < m->nmasked; i++)
		if (clean_or_fail("masked path", m->masked[i], path, e) < 0)
			return -1;
	for (size_t i = 0; i < m->nreadonly; i++)
		if (clean_or_fail("read-only path", m->readonly[i], path, e) < 0)
			return -1;
	return 0;
}

/* Creates NAME in DIR as KIND; it may exist already. */
static int create_at(int dir, const char *name, enum dest_kind kind)
{
	int fd;

	if (kind == DEST_DIR)
		return mkdirat(dir, name, 0755) < 0 && errno != EEXIST ? -1 : 0;
	fd = openat(dir, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return errno == EEXIST ? 0 : -1;
	close(fd);
	return 0;
}

/*
 * Opens PATH (clean, absolute) inside ROOT, one component at a time, each
 * created when missing (directories, the last of KIND), never through a
 * symlink: one on the way or at the end is an error naming it.  One
 * component per openat() with O_NOFOLLOW cannot leave ROOT (no "..").
 * Returns an O_PATH descriptor.
 */
static int open_dest(int root, const char *path, enum dest_kind kind, struct cell_err *e)
{
	cleanup_close int cur = fcntl(root, F_DUPFD_CLOEXEC, 3);
	const char *p = path;

	if (cur < 0)
		return cell_err_set(e, errno, "open %s", path);
	while (*p == '/')
		p++;
	while (*p != '\0') {
		size_t k = strcspn(p, "/");
		bool last = p[k] == '\0';
		char name[NAME_MAX + 1];
		struct stat st;
		int fd;

		if (k > NAME_MAX)
			return cell_err_set(e, ENAMETOOLONG, "open %s", path);
		memcpy(name, p, k);
		name[k] = '\0';
		fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 && errno == ENOENT) {
			if (create_at(cur, name, last ? kind : DEST_DIR) < 0)
				return cell_err_set(e, errno, "create %.*s", (int)(p + k - path),
						    path);
			fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd < 0)
			return cell_err_set(e, errno, "open %.*s", (int)(p + k - path), path);
		close(cur);
		cur = fd;
		if (fstat(cur, &st) < 0)
			return cell_err_set(e, errno, "open %.*s", (int)(p + k - path), path);
		if (S_ISLNK(st.st_mode))
			return cell_err_set(e, ELOOP, "%.*s is a symlink (refused)",
					    (int)(p + k - path), path);
		if (!last && !S_ISDIR(st.st_mode))
			return cell_err_set(e, ENOTDIR, "open %.*s", (int)(p + k - path), path);
		p += k;
		while (*p == '/')
			p++;
	}
	return take_fd(&cur);
}

/* Sets ATTR on the detached mount MNT (recursively with REC). */
static int set_attrs(int mnt, bool rec, struct mount_attr *attr)
{
	if (attr->attr_set == 0 && attr->attr_clr == 0)
		return 0;
	return mount_setattr(mnt, "", AT_EMPTY_PATH | (rec ? AT_RECURSIVE : 0), attr,
			     sizeof(*attr));
}

/* Writes the id map MAP (N lines) to FILE of the process PID. */
static int write_map(pid_t pid, const char *file, const struct jail_idmap *map, size_t n)
{
	char path[64], text[4096];
	size_t len = 0;
	cleanup_close int fd = -1;

	for (size_t i = 0; i < n; i++) {
		int r = snprintf(text + len, sizeof(text) - len, "%u %u %u\n", map[i].inside,
				 map[i].outside, map[i].count);

		if (r < 0 || (size_t)r >= sizeof(text) - len) {
			errno = E2BIG;
			return -1;
		}
		len += (size_t)r;
	}
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	return write(fd, text, len) == (ssize_t)len ? 0 : -1;
}

/* The host's pid of the process PIDFD names: the jail's first process
 * sits in a new pid namespace, and /proc here is still the host's. */
static pid_t host_pid(int pidfd)
{
	char path[64], buf[512];
	cleanup_close int fd = -1;
	ssize_t n;
	char *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "\nPid:");
	return p != NULL ? (pid_t)strtol(p + 5, NULL, 10) : -1;
}

/*
 * A user namespace with the maps of M, for MOUNT_ATTR_IDMAP: a child
 * made in a new one only waits to be killed; its maps are written, its
 * namespace opened, and it is killed and reaped.
 */
static int userns_of_maps(const struct jail_mount *m, struct cell_err *e)
{
	int pidfd = -1;
	struct clone_args args = {.flags = CLONE_NEWUSER | CLONE_PIDFD,
				  .pidfd = (uint64_t)(uintptr_t)&pidfd,
				  .exit_signal = SIGCHLD};
	const struct jail_idmap *gmap = m->ngid_map > 0 ? m->gid_map : m->uid_map;
	size_t ngmap = m->ngid_map > 0 ? m->ngid_map : m->nuid_map;
	char path[64];
	pid_t pid, hpid;
	int ns = -1, err = 0;

	pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (pid < 0)
		return cell_err_set(e, errno, "idmap: a user namespace");
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		for (;;)
			pause();
	}
	hpid = host_pid(pidfd);
	if (hpid <= 0)
		err = errno != 0 ? errno : ESRCH;
	else if (write_map(hpid, "uid_map", m->uid_map, m->nuid_map) < 0 ||
		 write_map(hpid, "gid_map", gmap, ngmap) < 0)
		err = errno;
	if (err == 0) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)hpid);
		ns = open(path, O_RDONLY | O_CLOEXEC);
		if (ns < 0)
			err = errno;
	}
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	while (waitid(P_PIDFD, (id_t)pidfd, NULL, WEXITED) < 0 && errno == EINTR)
		;
	close(pidfd);
	if (ns < 0)
		return cell_err_set(e, err, "idmap: the user namespace's maps");
	return ns;
}

/* The propagation of the attached mount MNT, when M says one. */
static int set_propagation(int mnt, const struct jail_mount *m, struct cell_err *e)
{
	struct mount_attr a = {.propagation = m->propagation & ~(unsigned long)MS_REC};

	if (a.propagation == 0)
		return 0;
	if (mount_setattr(mnt, "", AT_EMPTY_PATH | ((m->propagation & MS_REC) ? AT_RECURSIVE : 0),
			  &a, sizeof(a)) < 0)
		return cell_err_set(e, errno, "propagation");
	return 0;
}

/* Attaches MNT on DEST (clean) of the jail's tree. */
static int attach_only(struct oci_build *b, int mnt, const char *dest, enum dest_kind kind,
		       struct cell_err *e)
{
	cleanup_close int target = open_dest(b->root, dest, kind, e);

	if (target < 0)
		return -1;
	if (move_mount(mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno, "attach");
	return 0;
}

/* Attaches MNT on DEST (clean) of the jail's tree, then its propagation. */
static int attach_dest(struct oci_build *b, int mnt, const struct jail_mount *m, const char *dest,
		       enum dest_kind kind, struct cell_err *e)
{
	if (attach_only(b, mnt, dest, kind, e) < 0)
		return -1;
	return set_propagation(mnt, m, e);
}

/* A bind: its source cloned (with its submounts for rbind), its
 * attributes and idmap set while detached, attached. */
static int mount_bind(struct oci_build *b, const struct jail_mount *m, const char *dest,
		      struct cell_err *e)
{
	bool rec = (m->flags & MS_REC) != 0;
	cleanup_close int mnt = -1, userns = -1;
	struct mount_attr attr = {0};
	struct stat st;

	/* The source is the host's, the config's author's choice. */
	mnt = open_tree(AT_FDCWD, m->source,
			OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | (rec ? AT_RECURSIVE : 0));
	if (mnt < 0 || fstat(mnt, &st) < 0)
		return cell_err_set(e, errno, "bind %s", m->source);
	rootfs_mount_attrs(m->flags, m->clear, &attr);
	if (m->nuid_map > 0 || m->ngid_map > 0) {
		userns = userns_of_maps(m, e);
		if (userns < 0)
			return -1;
		attr.attr_set |= MOUNT_ATTR_IDMAP;
		attr.userns_fd = (uint64_t)userns;
	}
	/* Read-only reaches an rbind's submounts too: a read-only volume
	 * must not hold a writable mount. */
	if (set_attrs(mnt, rec, &attr) < 0)
		return cell_err_set(e, errno, "bind %s: set its attributes", m->source);
	return attach_dest(b, mnt, m, dest, S_ISDIR(st.st_mode) ? DEST_DIR : DEST_FILE, e);
}

/* Opens PATH beneath the fresh mount MNT, never through a symlink:
 * 0 with *FD -1 when it does not exist; a symlink on the way fails. */
static int open_in_mount(int mnt, const char *rel, const char *path, int *fd, struct cell_err *e)
{
	*fd = rootfs_openat2(mnt, rel, O_PATH | O_NOFOLLOW,
			     RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
				     RESOLVE_NO_XDEV);
	/* EXDEV: beneath a mask or read-only bind made a moment ago,
	 * already hidden or read-only. */
	if (*fd >= 0 || errno == ENOENT || errno == ENOTDIR || errno == EXDEV)
		return 0;
	if (errno == ELOOP)
		return cell_err_set(e, ELOOP, "%s: a symlink on the way (refused)", path);
	return cell_err_set(e, errno, "open %s", path);
}

/* Whether the opened FD is a symlink (left alone: what it names is
 * protected where it lies, or is the jail's). */
static bool is_symlink(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISLNK(st.st_mode);
}

static int host_null(struct masks *m, struct cell_err *e);

/*
 * Masks PATH, opened as FD.  A file gets the null device of open_null()'s
 * tmpfs, detached; Linux before 6.15 clones nothing from a detached
 * mount (EINVAL): then, from the first such file on, the host's
 * /dev/null, as runc's masks are.
 */
static int mask_opened(struct oci_build *b, const char *path, int fd, struct cell_err *e)
{
	struct stat st;

	if (rootfs_mask_opened(path, fd, &b->masks, e) == 0)
		return 0;
	if (e->errnum != EINVAL || b->null_mnt < 0 || fstat(fd, &st) < 0 || S_ISDIR(st.st_mode))
		return -1;
	close(b->masks.null);
	close(b->null_mnt);
	b->masks.null = b->null_mnt = -1;
	cell_err_clear(e);
	if (host_null(&b->masks, e) < 0)
		return -1;
	return rootfs_mask_opened(path, fd, &b->masks, e);
}

/* Protects PATH, opened as FD: read-only or masked. */
static int protect_opened(struct oci_build *b, const char *path, int fd, bool mask,
			  struct cell_err *e)
{
	if (fd < 0 || is_symlink(fd))
		return 0;
	if (mask)
		return mask_opened(b, path, fd, e);
	return rootfs_readonly_over(fd, path, e);
}

/* The masked and read-only paths beneath DEST done to the fresh MNT
 * mounted there, through its descriptor, once it is attached (Linux
 * before 6.15 mounts nothing into a detached tree; the jail's child is
 * alone in its mount namespace to see it unprotected) and before its
 * propagation is set. */
static int protect_beneath(struct oci_build *b, int mnt, const char *dest, bool mask,
			   struct cell_err *e)
{
	const struct jail_mechanisms *m = &b->s->mech;
	const char *const *list = mask ? m->masked : m->readonly;
	size_t n = mask ? m->nmasked : m->nreadonly;

	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		cleanup_close int fd = -1;
		const char *rel;

		if (rootfs_clean_path(list[i], path, sizeof(path)) < 0)
			return cell_err_set(e, EINVAL, "protect %s", list[i]);
		rel = rootfs_beneath(path, dest);
		if (rel == NULL)
			continue;
		if (open_in_mount(mnt, rel, path, &fd, e) < 0 ||
		    protect_opened(b, path, fd, mask, e) < 0)
			return -1;
	}
	return 0;
}

/* Writes the sysctls through PROC, a fresh proc: the jail's /proc/sys
 * is made read-only after. */
static int write_sysctls(struct oci_build *b, int proc, struct cell_err *e)
{
	const struct jail_mechanisms *m = &b->s->mech;

	/* net.* and kernel.domainname are the namespaces' of the writer. */
	if (m->nsysctls > 0 && rootfs_join_net(b->ids, e) < 0)
		return -1;
	for (size_t i = 0; i < m->nsysctls; i++) {
		const char *key = m->sysctls[i].key, *value = m->sysctls[i].value;
		char rel[PATH_MAX];
		cleanup_close int fd = -1;
		size_t len = strlen(value);

		if (snprintf(rel, sizeof(rel), "sys/%s", key) >= (int)sizeof(rel))
			return cell_err_set(e, ENAMETOOLONG, "sysctl %s", key);
		for (char *p = rel + 4; *p != '\0'; p++)
			if (*p == '.')
				*p = '/';
		fd = rootfs_openat2(proc, rel, O_WRONLY | O_NOCTTY,
				    RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0)
			return cell_err_set(e, errno, "sysctl %s", key);
		if (write(fd, value, len) != (ssize_t)len)
			return cell_err_set(e, errno, "sysctl %s = %s", key, value);
	}
	b->sysctls_done = true;
	return 0;
}

/* The protections of a fresh proc or sysfs MNT for DEST. */
static int protect_kernel_mount(struct oci_build *b, const struct jail_mount *m, int mnt,
				const char *dest, struct cell_err *e)
{
	bool proc = type_is(m, "proc");

	if (!proc && !type_is(m, "sysfs"))
		return 0;
	if (proc && !b->sysctls_done && write_sysctls(b, mnt, e) < 0)
		return -1;
	/* Masks first: a read-only bind stacked on a directory would hide
	 * the paths beneath it that are masked. */
	if (protect_beneath(b, mnt, dest, true, e) < 0 ||
	    protect_beneath(b, mnt, dest, false, e) < 0)
		return -1;
	return 0;
}

/*
 * A rootless container without a network namespace of its own may not
 * mount a sysfs (it shows the host's network): the host's /sys, with its
 * submounts, detached, with ATTR over all of them (a read-only sysfs
 * must not hold a writable mount), as runc falls back to.
 */
static int host_sys(struct mount_attr *attr, struct cell_err *e)
{
	int mnt = open_tree(AT_FDCWD, "/sys", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);

	cell_err_clear(e);
	if (mnt < 0)
		return cell_err_set(e, errno, "bind the host's /sys");
	if (set_attrs(mnt, true, attr) < 0) {
		cell_err_set(e, errno, "bind the host's /sys: set its attributes");
		close(mnt);
		return -1;
	}
	return mnt;
}

/* A new instance of the mount's filesystem, detached, attached,
 * protected, then given its propagation. */
static int mount_fresh_fs(struct oci_build *b, const struct jail_mount *m, const char *dest,
			  struct cell_err *e)
{
	cleanup_free char *data = NULL;
	cleanup_free struct fs_opt *opts = NULL;
	cleanup_close int mnt = -1;
	struct mount_attr attr = {0};
	size_t max;

	if (rootfs_mount_data(m, &b->s->mech, b->ids, &data, e) < 0 ||
	    (type_is(m, "sysfs") && rootfs_join_net(b->ids, e) < 0))
		return -1;
	max = (data != NULL ? strlen(data) / 2 + 2 : 1) + 1;
	opts = calloc(max, sizeof(*opts));
	if (opts == NULL)
		return cell_err_set(e, ENOMEM, "mount %s", m->type);
	if (rootfs_split_options(data, opts, max) < 0)
		return cell_err_set(e, E2BIG, "mount %s: options", m->type);
	rootfs_mount_attrs(m->flags, m->clear, &attr);
	mnt = rootfs_fs_mount(m->type,
			      m->source != NULL && m->source[0] != '\0' ? m->source : m->type, dest,
			      opts, (unsigned int)attr.attr_set, e);
	if (mnt < 0 && e->errnum == EPERM && b->s->mech.rootless && type_is(m, "sysfs"))
		mnt = host_sys(&attr, e);
	if (mnt < 0 || attach_only(b, mnt, dest, DEST_DIR, e) < 0 ||
	    protect_kernel_mount(b, m, mnt, dest, e) < 0)
		return -1;
	return set_propagation(mnt, m, e);
}

/* Mount I of the list. */
static int mount_one(struct oci_build *b, size_t i, struct cell_err *e)
{
	const struct jail_mount *m = &b->s->mech.mounts[i];
	char dest[PATH_MAX];
	int r;

	if (clean_or_fail("destination", m->destination, dest, e) < 0)
		return -1;
	if (is_cgroup(m)) {
		/* Only its place: the launch mounts the jail's cgroups. */
		cleanup_close int fd = open_dest(b->root, dest, DEST_DIR, e);

		r = fd < 0 ? -1 : 0;
	} else if (is_bind(m)) {
		r = mount_bind(b, m, dest, e);
	} else {
		r = mount_fresh_fs(b, m, dest, e);
	}
	if (r < 0)
		return cell_err_prefix(e, "mounts[%zu] %s on %s", i, is_bind(m) ? "bind" : m->type,
				       dest);
	return 0;
}

/* Whether PATH (clean) lies beneath a fresh proc or sysfs of the list,
 * which protected it through its descriptor. */
static bool done_in_kernel_mount(const struct jail_mechanisms *m, const char *path)
{
	for (size_t i = 0; i < m->nmounts; i++) {
		char dest[PATH_MAX];
		const struct jail_mount *mt = &m->mounts[i];

		if ((type_is(mt, "proc") || type_is(mt, "sysfs")) &&
		    rootfs_clean_path(mt->destination, dest, sizeof(dest)) == 0 &&
		    rootfs_beneath(path, dest) != NULL)
			return true;
	}
	return false;
}

/*
 * The masked and read-only paths elsewhere, once every mount is there:
 * in the tree, never through a symlink (one on the way fails; one at the
 * end is left alone); a missing path is skipped, as runc does (configs
 * list paths a kernel may lack).
 */
static int protect_tree(struct oci_build *b, bool mask, struct cell_err *e)
{
	const struct jail_mechanisms *m = &b->s->mech;
	const char *const *list = mask ? m->masked : m->readonly;
	size_t n = mask ? m->nmasked : m->nreadonly;

	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		cleanup_close int fd = -1;

		if (rootfs_clean_path(list[i], path, sizeof(path)) < 0)
			return cell_err_set(e, EINVAL, "protect %s", list[i]);
		if (done_in_kernel_mount(m, path))
			continue;
		fd = rootfs_openat2(b->root, path + 1, O_PATH | O_NOFOLLOW,
				    RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
		if (fd < 0 && errno != ENOENT && errno != ENOTDIR)
			return cell_err_set(e, errno, "%s %s%s", mask ? "mask" : "make read-only",
					    path, errno == ELOOP ? ": a symlink on the way" : "");
		if (protect_opened(b, path, fd, mask, e) < 0)
			return -1;
	}
	return 0;
}

/* A node of the host's /dev itself (not below) of that TYPE and RDEV,
 * cloned; -1 (ENOENT) when none: a host without /dev/char. */
static int host_node_by_number(mode_t type, dev_t rdev)
{
	DIR *d = opendir("/dev");
	struct dirent *de;
	int fd = -1;

	if (d == NULL)
		return -1;
	while (fd < 0 && (de = readdir(d)) != NULL) {
		struct stat st;

		if ((de->d_type == DT_CHR || de->d_type == DT_BLK) &&
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (st.st_mode & S_IFMT) == type && st.st_rdev == rdev)
			fd = open_tree(dirfd(d), de->d_name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	}
	closedir(d);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}

/* The host's node at PATH, bound on an empty file NAME of DIR; only
 * when it is the very node asked for (TYPE, RDEV). */
static int bind_host_node(int dir, const char *name, const char *path, mode_t type, dev_t rdev,
			  struct cell_err *e)
{
	cleanup_close int mnt = open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	cleanup_close int target = -1;
	struct stat st;

	/* The host has no node at that path: its node of those numbers
	 * (/dev/char/MAJ:MIN, /dev/block/MAJ:MIN). */
	if (mnt < 0 && errno == ENOENT && type != S_IFIFO) {
		char by_num[64];

		snprintf(by_num, sizeof(by_num), "/dev/%s/%u:%u",
			 type == S_IFBLK ? "block" : "char", major(rdev), minor(rdev));
		mnt = open_tree(AT_FDCWD, by_num, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (mnt < 0)
			mnt = host_node_by_number(type, rdev);
	}
	if (mnt < 0 || fstat(mnt, &st) < 0)
		return cell_err_set(e, errno, "device %s: bind the host's", path);
	if ((st.st_mode & S_IFMT) != type || st.st_rdev != rdev)
		return cell_err_set(e, ENODEV, "device %s: the host's node is another", path);
	if (create_at(dir, name, DEST_FILE) < 0)
		return cell_err_set(e, errno, "device %s", path);
	target = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (target < 0 || is_symlink(target) ||
	    move_mount(mnt, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return cell_err_set(e, errno != 0 ? errno : ELOOP, "device %s: bind the host's",
				    path);
	return 0;
}

/* mknod of D (PATH, its NAME in the directory DIR), with its owner; where
 * mknod is not allowed, the host's node of that path bound instead, as
 * runc does. */
static int make_node(struct oci_build *b, int dir, const char *name, const char *path,
		     const struct jail_device_node *d, struct cell_err *e)
{
	mode_t type = d->type == 'b' ? S_IFBLK : d->type == 'p' ? S_IFIFO : S_IFCHR;
	dev_t rdev = d->type == 'p' ? 0 : makedev(d->major, d->minor);
	uint32_t uid, gid;

	if (mknodat(dir, name, type | (d->mode & 07777), rdev) == 0) {
		if (rootfs_host_id(&b->s->mech, b->ids, false, d->uid, &uid) < 0 ||
		    rootfs_host_id(&b->s->mech, b->ids, true, d->gid, &gid) < 0)
			return cell_err_set(e, EINVAL,
					    "device %s: owner %u:%u not mapped in the "
					    "jail's user namespace",
					    d->path, (unsigned int)d->uid, (unsigned int)d->gid);
		if (fchownat(dir, name, uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
			return cell_err_set(e, errno, "device %s: chown", d->path);
		return 0;
	}
	if (errno == EEXIST) {
		/* The rootfs's own, or listed twice: kept when it is that
		 * very device, else an error (never a file posing as it). */
		struct stat st;

		if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (st.st_mode & S_IFMT) == type && (d->type == 'p' || st.st_rdev == rdev))
			return 0;
		return cell_err_set(e, 0, "device %s: a file that is not that device is there",
				    d->path);
	}
	if (errno != EPERM)
		return cell_err_set(e, errno, "mknod %s", d->path);
	return bind_host_node(dir, name, path, type, rdev, e);
}

/* One device node, its missing parents made beneath /dev. */
static int create_node(struct oci_build *b, const struct jail_device_node *d, struct cell_err *e)
{
	char path[PATH_MAX];
	cleanup_close int dir = -1;
	char *slash;

	if (clean_or_fail("device", d->path, path, e) < 0)
		return -1;
	slash = strrchr(path, '/');
	*slash = '\0';
	dir = open_dest(b->root, path, DEST_DIR, e);
	*slash = '/';
	if (dir < 0)
		return cell_err_prefix(e, "device %s", path);
	return make_node(b, dir, slash + 1, path, d, e);
}

/* Whether the list has a device at /dev/NAME. */
static bool node_listed(const struct jail_mechanisms *m, const char *name)
{
	for (size_t i = 0; i < m->ndev_nodes; i++) {
		char path[PATH_MAX];

		if (rootfs_clean_path(m->dev_nodes[i].path, path, sizeof(path)) == 0 &&
		    strncmp(path, "/dev/", 5) == 0 && strcmp(path + 5, name) == 0)
			return true;
	}
	return false;
}

/* Whether a mount of the list is a TYPE (NULL: a bind) at DEST. */
static bool mount_at(const struct jail_mechanisms *m, const char *type, const char *dest)
{
	for (size_t i = 0; i < m->nmounts; i++) {
		const struct jail_mount *mt = &m->mounts[i];
		char path[PATH_MAX];

		if ((type == NULL ? is_bind(mt) : type_is(mt, type)) &&
		    rootfs_clean_path(mt->destination, path, sizeof(path)) == 0 &&
		    strcmp(path, dest) == 0)
			return true;
	}
	return false;
}

/* The links of config-linux.md's "Dev symbolic links", and /dev/core
 * where the kernel has a kcore (runc's). */
static int dev_links(struct oci_build *b, int dev, struct cell_err *e)
{
	static const struct {
		const char *target, *name;
	} links[] = {{"/proc/self/fd", "fd"},
		     {"/proc/self/fd/0", "stdin"},
		     {"/proc/self/fd/1", "stdout"},
		     {"/proc/self/fd/2", "stderr"},
		     {"/proc/kcore", "core"}};
	struct stat st;
	size_t n = sizeof(links) / sizeof(links[0]);

	/* cwd is the jail's root, "/" still the host's. */
	if (stat("/proc/kcore", &st) < 0)
		n--;
	for (size_t i = 0; i < n; i++)
		if (symlinkat(links[i].target, dev, links[i].name) < 0 && errno != EEXIST)
			return cell_err_set(e, errno, "symlink /dev/%s", links[i].name);
	/* The ptys of the jail's own devpts, not a node of the host's. */
	if (mount_at(&b->s->mech, "devpts", "/dev/pts")) {
		if (unlinkat(dev, "ptmx", 0) < 0 && errno != ENOENT)
			return cell_err_set(e, errno, "remove /dev/ptmx");
		if (symlinkat("pts/ptmx", dev, "ptmx") < 0)
			return cell_err_set(e, errno, "symlink /dev/ptmx");
	}
	/* The pty's slave is bound here once it exists. */
	if (b->s->proc.terminal && create_at(dev, "console", DEST_FILE) < 0)
		return cell_err_set(e, errno, "create /dev/console");
	return 0;
}

/* /dev as the list made it (a tmpfs, usually), with its nodes: the
 * listed ones, then the default set (config-linux.md's "Default
 * Devices") where the list has none of that name, then the links.
 * Nothing when /dev is a bind: the host's choice, as runc. */
static int setup_dev(struct oci_build *b, struct cell_err *e)
{
	const struct jail_mechanisms *m = &b->s->mech;
	cleanup_close int dev = -1;

	if (mount_at(m, NULL, "/dev"))
		return 0;
	for (size_t i = 0; i < m->ndev_nodes; i++)
		if (create_node(b, &m->dev_nodes[i], e) < 0)
			return -1;
	for (size_t i = 0; i < rootfs_nstd_nodes; i++) {
		const struct rootfs_dev_node *n = &rootfs_std_nodes[i];
		char path[32];
		struct jail_device_node d = {.path = path,
					     .type = 'c',
					     .major = n->major,
					     .minor = n->minor,
					     .mode = 0666};

		if (node_listed(m, n->name))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", n->name);
		if (create_node(b, &d, e) < 0)
			return -1;
	}
	dev = open_dest(b->root, "/dev", DEST_DIR, e);
	if (dev < 0)
		return -1;
	return dev_links(b, dev, e);
}

/* Where mknod is not allowed (a rootless cell-oci, rootless.h): the
 * host's /dev/null, detached and read-only, masks files, as runc's do. */
static int host_null(struct masks *m, struct cell_err *e)
{
	struct mount_attr ro = {.attr_set =
					MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC};
	struct stat st;

	m->null = open_tree(AT_FDCWD, "/dev/null", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (m->null < 0 || fstat(m->null, &st) < 0)
		return cell_err_set(e, errno, "bind the host's /dev/null for masks");
	if (!S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
		return cell_err_set(e, ENODEV, "the host's /dev/null is not the null device");
	if (mount_setattr(m->null, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		return cell_err_set(e, errno, "the null device for masks: read-only");
	/* Cloned from where it is attached: Linux before 6.15 clones no
	 * detached mount. */
	m->null_moves = true;
	return 0;
}

/*
 * What masks files: a null device on a tiny tmpfs of the jail's own,
 * detached (MNT, kept open while masks are cloned from it): the jail's
 * /dev may not exist yet when its proc is protected, and a bind of the
 * host's would show the host's devtmpfs in the jail's mountinfo.
 * Read-only: a device node still reads and writes.
 */
static int open_null(struct masks *m, int *mnt, struct cell_err *e)
{
	static const struct fs_opt opts[] = {
		{"mode", "0755"}, {"nr_inodes", "2"}, {"size", "4k"}, {NULL, NULL}};
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};

	*mnt = rootfs_fs_mount("tmpfs", "tmpfs", "/dev/null", opts,
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, e);
	if (*mnt < 0)
		return -1;
	if (mknodat(*mnt, "null", S_IFCHR | 0666, makedev(1, 3)) < 0)
		return errno == EPERM ? host_null(m, e)
				      : cell_err_set(e, errno, "mknod a null device for masks");
	m->null = openat(*mnt, "null", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (m->null < 0)
		return cell_err_set(e, errno, "open the null device for masks");
	if (mount_setattr(*mnt, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		return cell_err_set(e, errno, "the null device for masks: read-only");
	return 0;
}

/* Sysctls when the list mounts no proc: through one made for them. */
static int sysctls_without_proc(struct oci_build *b, struct cell_err *e)
{
	cleanup_close int proc = -1;

	if (b->sysctls_done || b->s->mech.nsysctls == 0)
		return 0;
	proc = rootfs_fs_mount("proc", "proc", "/proc", NULL,
			       MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC, e);
	return proc < 0 ? -1 : write_sysctls(b, proc, e);
}

/* Steps 3 to 6 of the header, in the entered root. */
static int build_tree(struct oci_build *b, struct cell_err *e)
{
	const struct jail_spec *s = b->s;
	struct mount_attr ro = {.attr_set = MOUNT_ATTR_RDONLY};

	if (s->mech.nmasked > 0 && open_null(&b->masks, &b->null_mnt, e) < 0)
		return -1;
	for (size_t i = 0; i < s->mech.nmounts; i++)
		if (mount_one(b, i, e) < 0)
			return -1;
	if (sysctls_without_proc(b, e) < 0)
		return -1;
	/* Masks first: a read-only bind stacked on a directory would hide
	 * the paths beneath it that are masked. */
	if (protect_tree(b, true, e) < 0 || protect_tree(b, false, e) < 0)
		return -1;
	if (setup_dev(b, e) < 0)
		return -1;
	/* Only the root mount: its mounts keep their own flags. */
	if (!s->rw && mount_setattr(b->root, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
		return cell_err_set(e, errno, "make root %s read-only", s->rootfs);
	return 0;
}

int rootfs_oci_build(const struct jail_spec *s, const struct rootfs_pin *pin, const char *attach,
		     const struct rootfs_ids *ids, struct cell_err *e)
{
	struct oci_build b = {
		.s = s, .ids = ids, .root = -1, .masks = {-1, -1, true, false}, .null_mnt = -1};
	int ret = -1;

	/* 1. Nothing below propagates to the host's mount namespace. */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return cell_err_set(e, errno, "make mounts private");
	/* 2. The root, not idmapped: a config's root is as its engine
	 * prepared it for the jail's user namespace. */
	b.root = rootfs_clone_root(s->rootfs, pin, e);
	if (b.root < 0)
		return -1;
	if (move_mount(b.root, "", AT_FDCWD, attach, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		cell_err_set(e, errno, "attach root %s", s->rootfs);
	else if (fchdir(b.root) < 0)
		cell_err_set(e, errno, "enter root %s", s->rootfs);
	else
		ret = build_tree(&b, e);
	rootfs_masks_close(&b.masks);
	if (b.null_mnt >= 0)
		close(b.null_mnt);
	close(b.root);
	return ret;
}

int rootfs_oci_propagate(const struct jail_spec *s, struct cell_err *e)
{
	unsigned long p = s->mech.root_propagation;

	/* Everything is private since step 1: only another kind needs a
	 * call.  Shared or slave reach the jail's own namespaces only. */
	if (p == 0 || (p & ~(unsigned long)MS_REC) == MS_PRIVATE)
		return 0;
	if (mount(NULL, "/", NULL, p, NULL) < 0)
		return cell_err_set(e, errno, "root propagation");
	return 0;
}

/* PATH of the jail is masked: an empty read-only tmpfs or the null
 * device; missing, or a symlink, it has nothing to show. */
static int verify_masked(const char *path, struct cell_err *e)
{
	struct stat st;
	struct statfs fs;
	struct statvfs v;

	if (lstat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : cell_err_set(e, errno, "check %s", path);
	if (S_ISLNK(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode)) {
		if (statfs(path, &fs) < 0 || statvfs(path, &v) < 0)
			return cell_err_set(e, errno, "check %s", path);
		if (fs.f_type == TMPFS_MAGIC && (v.f_flag & ST_RDONLY))
			return 0;
	} else if (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) {
		return 0;
	}
	return cell_err_set(e, EPERM, "%s is not masked in the jail", path);
}

static int verify_readonly(const char *path, struct cell_err *e)
{
	struct stat st;
	struct statvfs v;

	if (lstat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR
			       ? 0
			       : cell_err_set(e, errno, "check %s", path);
	if (S_ISLNK(st.st_mode))
		return 0;
	if (statvfs(path, &v) < 0)
		return cell_err_set(e, errno, "check %s", path);
	if (!(v.f_flag & ST_RDONLY))
		return cell_err_set(e, EPERM, "%s is not read-only in the jail", path);
	return 0;
}

int rootfs_oci_verify(const struct jail_spec *s, struct cell_err *e)
{
	const struct jail_mechanisms *m = &s->mech;
	struct statvfs v;

	/* What the config asked is what the jail got, seen from inside. */
	if (!s->rw) {
		if (statvfs("/", &v) < 0)
			return cell_err_set(e, errno, "check /");
		if (!(v.f_flag & ST_RDONLY))
			return cell_err_set(e, EPERM, "the root is not read-only in the jail");
	}
	for (size_t i = 0; i < m->nmasked; i++)
		if (verify_masked(m->masked[i], e) < 0)
			return -1;
	for (size_t i = 0; i < m->nreadonly; i++)
		if (verify_readonly(m->readonly[i], e) < 0)
			return -1;
	return 0;
}
