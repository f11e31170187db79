/*
 * rootfs_impl.h - what rootfs.c (the built-in tree, the pivot) and
 * rootfs_oci.c (a tree from an OCI config's list of mounts) share.  No
 * other module includes it: rootfs.h is the interface.
 */
#ifndef CELL_ROOTFS_IMPL_H
#define CELL_ROOTFS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mount.h>

#include "err.h"
#include "rootfs.h"
#include "spec.h"

/* One fsconfig() option: KEY=VALUE, or the flag KEY when VALUE is NULL;
 * lists end with a NULL key. */
struct fs_opt {
	const char *key, *value;
};

/* A character device of the jail's standard set (/dev/NAME). */
struct rootfs_dev_node {
	const char *name;
	unsigned int major, minor;
};

extern const struct rootfs_dev_node rootfs_std_nodes[];
extern const size_t rootfs_nstd_nodes;

/*
 * What masks are made of: one empty read-only tmpfs, made once, mounted
 * on the first masked directory and cloned from there onto each other
 * one (a clone shares the superblock: much cheaper than a new tmpfs
 * each; cloned from an attached mount, as Linux before 6.15 requires),
 * and a /dev/null, bound over masked files.  Every target is in the
 * attached tree: mounts into a detached one need 6.15 too.
 */
struct masks {
	int dir;  /* the empty tmpfs, on the first masked directory; -1 until needed */
	int null; /* a /dev/null (O_PATH) */
	/* An OCI config's masked directory lists empty (mode 0755, as
	 * runc's); the jail CLI's cannot even be listed (mode 0). */
	bool listable;
	/* NULL is a detached mount of its own (the host's /dev/null
	 * cloned): the first masked file gets it, the next ones clones of
	 * it there; cleared once it is attached. */
	bool null_moves;
};

void rootfs_masks_close(struct masks *m);
/* Masks what TARGET (opened, not followed; PATH in errors) is: the empty
 * tmpfs over a directory, /dev/null over anything else; a symlink is
 * left alone. */
int rootfs_mask_opened(const char *path, int target, struct masks *m, struct cell_err *e);
/* Stacks a read-only bind of TARGET (opened, PATH in errors) on itself. */
int rootfs_readonly_over(int target, const char *path, struct cell_err *e);

/* openat2(2) with O_CLOEXEC, retried on EINTR. */
int rootfs_openat2(int dirfd, const char *path, int flags, unsigned long long resolve);
/* Opens the mount point PATH beneath DIR once (RESOLVE: RESOLVE_IN_ROOT
 * or RESOLVE_BENEATH), refusing a symlink anywhere on the way; SHOWN
 * names it in errors; OFLAGS: O_DIRECTORY or 0. */
int rootfs_open_mount_point(int dir, const char *path, const char *shown,
			    unsigned long long resolve, int oflags, struct cell_err *e);
/* A new instance of FSTYPE named SOURCE, configured with OPTS, as a
 * detached mount with the MOUNT_ATTR_* ATTRS; TARGET names it in errors. */
int rootfs_fs_mount(const char *fstype, const char *source, const char *target,
		    const struct fs_opt *opts, unsigned int attrs, struct cell_err *e);
/* A detached recursive clone of the root WHAT, which must be the
 * directory PIN names when it is set. */
int rootfs_clone_root(const char *what, const struct rootfs_pin *pin, struct cell_err *e);

/* PATH's part beneath TOP ("/proc/sys" beneath "/proc": "sys"), or NULL
 * when PATH does not lie strictly beneath TOP. */
const char *rootfs_beneath(const char *path, const char *top);
/* True when PATH is DIR or lies beneath it. */
bool rootfs_path_within(const char *path, const char *dir);

/*
 * rootfs_oci.c's rules, pure (tested in tests/unit/test_rootfs.c).
 */
/* IN as "/a/b" into OUT (LEN): a leading "/", no "." or empty
 * components, no trailing "/"; -1 for a ".." component or no room. */
int rootfs_clean_path(const char *in, char *out, size_t len);
/* A mount's MS_* FLAGS and the attributes its options CLEAR as
 * mount_setattr()'s attr_set and attr_clr of *A (fsmount() takes
 * attr_set); its other fields are left as they are. */
void rootfs_mount_attrs(unsigned long flags, unsigned long clear, struct mount_attr *a);
/* ID of the jail through MAP (N lines of a user namespace's map) into
 * *OUT, the host's; -1 when no line maps it. */
int rootfs_map_id(const struct jail_idmap *map, size_t n, uint32_t id, uint32_t *out);
/* The host's uid (GID: gid) of the jail's ID: through M's maps when it
 * has any, else a range of the jail's own (IDS), else ID itself. */
int rootfs_host_id(const struct jail_mechanisms *m, const struct rootfs_ids *ids, bool gid,
		   uint32_t id, uint32_t *out);
/* The fsconfig() options of the fresh mount M, as one "k=v,flag" string
 * (*OUT, malloc'd; NULL when none): its data, with a tmpfs's or devpts's
 * uid= and gid= the host's ids of the jail's, a tmpfs owned by the
 * jail's root where its ids are not the host's, and the superblock
 * flags of its MS_* flags ("sync", "dirsync", "mand"). */
int rootfs_mount_data(const struct jail_mount *m, const struct jail_mechanisms *mech,
		      const struct rootfs_ids *ids, char **out, struct cell_err *e);
/* Splits DATA (modified) at commas into OPTS (MAX entries, the last the
 * NULL end): "k=v" and "flag".  The count, or -1 when MAX is too few. */
int rootfs_split_options(char *data, struct fs_opt *opts, size_t max);
/* A mount on DEST (clean) inside /proc: only a proc, or a bind of one
 * (SRC_IS_PROC), on /proc itself, and the files lxcfs emulates beneath
 * it (runc's rule, CVE-2019-19921). */
int rootfs_check_proc_dest(const char *dest, bool bind, bool src_is_proc, struct cell_err *e);
/* A sysctl the jail of M may set: a name (no "/", no ".."), in a
 * namespace of the jail's own: kernel.msg*, kernel.sem*, kernel.shm*,
 * fs.mqueue.* (IPC), net.* (network), kernel.domainname (UTS); not
 * kernel.hostname (the hostname is set after). */
int rootfs_check_sysctl(const char *key, const struct jail_mechanisms *m, struct cell_err *e);

/* rootfs_oci.c: the mounts_given counterparts of rootfs_check(),
 * rootfs_build(), the propagation after rootfs_pivot() and
 * rootfs_verify(). */
int rootfs_oci_check(const struct jail_spec *s, struct cell_err *e);
int rootfs_oci_build(const struct jail_spec *s, const struct rootfs_pin *pin, const char *attach,
		     const struct rootfs_ids *ids, struct cell_err *e);
int rootfs_oci_propagate(const struct jail_spec *s, struct cell_err *e);
int rootfs_oci_verify(const struct jail_spec *s, struct cell_err *e);

#endif
