/*
 * ns.h - a jail's namespaces.
 */
#ifndef CELL_NS_H
#define CELL_NS_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "spec.h"

/* The clone flags of the namespaces a spec asks for. */
unsigned long long ns_clone_flags(const struct jail_spec *s);

/* clone3() into FLAGS' namespaces, and into the cgroup v2 directory
 * CGROUP_FD unless it is -1; *pidfd receives a pidfd of the child.
 * Returns like fork(). */
pid_t ns_clone(unsigned long long flags, int cgroup_fd, int *pidfd);

/* In a new network namespace: brings the loopback interface up. */
int ns_loopback_up(struct cell_err *e);

/* `--allow set_hostname`: the jail is root of a user namespace of its
 * own, which maps every uid and gid to itself and owns the jail's UTS
 * and (unless --net host) network namespaces, and nothing else, so that
 * the CAP_SYS_ADMIN sethostname(2) asks for reaches nothing the host's
 * user namespace owns (mounts, files' trusted.* xattrs, ...).  A helper
 * forked by cell makes the three namespaces; cell writes its maps and
 * keeps a descriptor of each.  The jail's first process joins the UTS
 * and network namespaces at once, the user namespace once its root is
 * built (mounting needs the host's). */
struct ns_own {
	pid_t helper; /* -1: none, or reaped */
	int sock;     /* to the helper; its end-of-file lets the helper go */
	bool want_net;
	int user, uts, net; /* the namespaces, -1 until made (net: or not asked) */
};

void ns_own_init(struct ns_own *o);
/* Forks the helper, which makes the namespaces while cell goes on. */
int ns_own_start(struct ns_own *o, bool net, struct cell_err *e);
/* Waits for them, writes the identity maps, opens each, ends the helper. */
int ns_own_finish(struct ns_own *o, struct cell_err *e);
/* Ends and reaps the helper, if it still runs. */
void ns_own_end_helper(struct ns_own *o);
/* The helper ended, the descriptors closed. */
void ns_own_close(struct ns_own *o);
/* In the jail's first process: setns() into the UTS and network
 * namespaces; later into the user namespace (the descriptors then
 * closed). */
int ns_own_join_uts_net(const struct ns_own *o, struct cell_err *e);
int ns_own_join_user(const struct ns_own *o, struct cell_err *e);

#endif
