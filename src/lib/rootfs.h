/*
 * rootfs.h - the jail's root filesystem.
 */
#ifndef CELL_ROOTFS_H
#define CELL_ROOTFS_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "spec.h"

/* The --rootfs directory as rootfs_check() found it: the child's clone
 * of it must be that very directory. */
struct rootfs_pin {
	bool set;
	dev_t dev;
	ino_t ino;
	/* No etc/passwd in it (ENOENT), looked for where HOME alone would
	 * come from it (process_home_from_rootfs()): the jail's first
	 * process reads none (process_reads_image()). */
	bool passwd_absent;
};

/* Host-side part, before anything is created: --rootfs is a directory,
 * not a symlink, not the host's root, and no one but root (or the
 * caller) can change it or a parent (PIN: what it is); every --bind
 * source exists; clear errors. */
int rootfs_check(const struct jail_spec *s, struct rootfs_pin *pin, struct cell_err *e);

/*
 * Jail-side part, in the jail's first process, in its new mount
 * namespace, in two stages with a stop between them (launch.c):
 * rootfs_build() builds the root tree on ATTACH (an empty directory, seen
 * in this namespace only) and enters it (the cwd); rootfs_pivot()
 * switches to it with pivot_root and detaches the old root.  On return
 * the cwd and root are the jail's "/".
 *
 * Paths are opened here, not inherited as descriptors from cell: a
 * descriptor opened before the clone names a mount of the host's
 * namespace, which move_mount() and open_tree() refuse.
 */
/*
 * The jail's user namespace as its mounts need it: the host ids of its
 * root own the fresh tmpfs mounts (/dev, /dev/shm, /tmp, /run), devpts
 * gives new ptys the jail's tty group (host gid GID + 5), and a --rootfs
 * and the binds are idmapped through USERNS (MOUNT_ATTR_IDMAP), so that
 * their files' owners look inside as they are on disk.  The embedded
 * root is not: the host's files are seen through the mapping (the
 * host's root's as nobody).  USERNS -1: no range (the host's ids).
 */
struct rootfs_ids {
	int userns;
	uid_t uid;
	gid_t gid;
	/* Called before a sysfs is mounted (it shows the network namespace
	 * of the process that mounts it) and before sysctls are written
	 * (net.* and kernel.domainname are the writer's namespaces'): the
	 * launch joins the jail's UTS and network namespaces there if they
	 * were still being made at the clone (ns.h), else at once after the
	 * root is built; NULL, or a call that finds it done, does nothing. */
	int (*join_net)(void *arg, struct cell_err *e);
	void *arg;
};

/* IDS->join_net, when it is set. */
int rootfs_join_net(const struct rootfs_ids *ids, struct cell_err *e);

int rootfs_build(const struct jail_spec *s, const struct rootfs_pin *pin, const char *attach,
		 const struct rootfs_ids *ids, struct cell_err *e);
int rootfs_pivot(const struct jail_spec *s, struct cell_err *e);

/* After rootfs_pivot(): the policy's mounts are there, as the jail sees
 * them (/proc/sys and /sys read-only); fails closed. */
int rootfs_verify(const struct jail_spec *s, struct cell_err *e);

/*
 * A jail whose spec lists its mounts (mech.mounts_given: an OCI config):
 * rootfs_check() checks the list (destinations, bind sources, mounts
 * inside /proc, device paths, sysctls), rootfs_build() makes the tree
 * from it (rootfs_oci.c), rootfs_pivot() applies root_propagation and
 * rootfs_verify() checks a read-only root and the masked and read-only
 * paths.  Its first cgroup or cgroup2 mount is not made: only its
 * destination, a directory.  This returns that mount (NULL: none), for
 * the launch to mount the jail's own cgroups there once its cgroup
 * namespace exists (read-only when its flags have MS_RDONLY).
 */
const struct jail_mount *rootfs_cgroup_mount(const struct jail_spec *s);

/* After rootfs_pivot(): binds the pty slave at /dev/console (a symlink
 * there is refused). */
int rootfs_bind_console(const char *slave_path, struct cell_err *e);

#endif
