/*
 * ns.h - a jail's namespaces.
 */
#ifndef CELL_NS_H
#define CELL_NS_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "idrange.h"
#include "spec.h"

/* The clone flags of the namespaces a spec asks for. */
unsigned long long ns_clone_flags(const struct jail_spec *s);

/* clone3() into FLAGS' namespaces, and into the cgroup v2 directory
 * CGROUP_FD unless it is -1; *pidfd receives a pidfd of the child.
 * Returns like fork(). */
pid_t ns_clone(unsigned long long flags, int cgroup_fd, int *pidfd);
/* The same with CLONE_VM: the child runs FN(ARG) on STACK (SIZE bytes,
 * its lowest address first) in cell's own memory until its execve(), and
 * never returns here.  -1 with ENOSYS where there is no such clone
 * (architectures other than x86-64). */
pid_t ns_clone_vm(unsigned long long flags, int cgroup_fd, int *pidfd, void *stack, size_t size,
		  int (*fn)(void *), void *arg);

/* In a new network namespace: brings the loopback interface up (the
 * helper of a user namespace of the jail's own does it in the one it
 * makes; a failure there is ns_own_finish()'s or ns_own_join_helper()'s). */
int ns_loopback_up(struct cell_err *e);

/*
 * A user namespace of the jail's own.  By default its ids 0..65535 map
 * to a range of host ids of the jail's alone (idrange.h), and its owner
 * is the range's first uid; with --userns host and --allow set_hostname,
 * today's identity maps (every id to itself, owner root).  With --allow
 * set_hostname it also owns the jail's UTS and (unless --net host)
 * network namespaces, and nothing else, so that the CAP_SYS_ADMIN
 * sethostname(2) asks for reaches nothing the host's user namespace owns
 * (mounts, files' trusted.* xattrs, ...).
 *
 * A helper of cell's is born in the user namespace (ns_own_start(), once
 * the range is known; a thread-like child in cell's memory, made as the
 * owner-to-be) and makes the UTS and network namespaces there itself,
 * while cell goes on.  cell writes the maps and opens the user namespace
 * (ns_own_finish()).  When cell needs the UTS and network namespaces
 * itself (a bridge, slirp), it waits for the helper's word, opens them
 * and kills the helper before the clone; else the jail's first process
 * waits for that word itself (the helper's eventfd and pidfd are among
 * the descriptors it is born with) and joins them through the helper's
 * pidfd (ns_own_join_helper()) and says so on a second eventfd, on which
 * the helper ends; cell reaps it once that process has exec'd.  Either
 * way the jail's first process joins the UTS and network namespaces
 * before it mounts a sysfs or writes sysctls (rootfs.h), the user
 * namespace once its root is built (mounting needs the host's), and
 * becomes its root there: every mount and every other namespace stays
 * owned by the host's user namespace.
 */
struct ns_own {
	pid_t helper;	    /* -1: none, or reaped */
	int helper_pidfd;   /* the helper's pidfd, -1 */
	int ready;	    /* eventfd: the helper made its namespaces; -1 */
	int joined;	    /* eventfd: the jail's first process joined them; -1 */
	bool pending;	    /* UTS/network made by the helper, not opened yet */
	bool killed;	    /* the helper has been let go */
	int flags;	    /* CLONE_NEWUSER and what the helper makes with it */
	int user, uts, net; /* the namespaces, -1 until made (or not asked) */
	struct idrange ids; /* the range; count 0: identity maps */
	/* Maps given line by line (an OCI config's), instead of the range
	 * or identity ones; set before ns_own_finish(). */
	const struct jail_idmap *uid_map, *gid_map;
	size_t nuid_map, ngid_map;
};

void ns_own_init(struct ns_own *o);
/* The helper, born in a new user namespace owned by the first uid of
 * range R (NULL, or a count 0: root, for identity maps), which then makes
 * new namespaces of FLAGS (CLONE_NEWUTS, CLONE_NEWNET) there. */
int ns_own_start(struct ns_own *o, unsigned long flags, const struct idrange *r,
		 struct cell_err *e);
/* Writes the maps and opens the user namespace.  The UTS and network
 * namespaces too, and the helper let go, if NOW (cell needs them before
 * the clone); else they stay pending, for ns_own_join_helper(). */
int ns_own_finish(struct ns_own *o, bool now, struct cell_err *e);
/* The jail's first process, while pending (its copy of O): waits for the
 * helper's word and joins the namespaces it made. */
int ns_own_join_helper(struct ns_own *o, struct cell_err *e);
/* The helper let go (if it still waits), the descriptors closed. */
void ns_own_close(struct ns_own *o);
/* The namespaces' descriptors closed; the helper and its eventfd, which
 * it writes through cell's descriptor table, are left for
 * ns_own_close(). */
void ns_own_close_namespaces(struct ns_own *o);
/* The helper let go and reaped. */
void ns_own_reap(struct ns_own *o);
/* In the jail's first process: setns() into the UTS and network
 * namespaces made with the user namespace, if any; later into the user
 * namespace (the descriptors then closed), becoming its root. */
int ns_own_join_uts_net(struct ns_own *o, struct cell_err *e);
int ns_own_join_user(const struct ns_own *o, struct cell_err *e);
/* In the jail's first process, still the host's root: files it creates
 * are owned by UID and GID (the host ids of the jail's root), with every
 * capability kept. */
int ns_fs_ids(uid_t uid, gid_t gid, struct cell_err *e);
/* In a user namespace just joined: no supplementary groups, uid and gid
 * 0 of the namespace.  The credentials change: the parent-death signal
 * is cleared and the process made non-dumpable by the kernel. */
int ns_become_root(struct cell_err *e);

#endif
