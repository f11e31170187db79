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

/* Moves the calling process into a user namespace of its own that maps
 * every uid and gid to itself and owns a new UTS namespace (a copy of
 * the current one) and, if NET, a new network namespace: what the jail
 * is root of is then only those.  `--allow set_hostname` uses it, so
 * that the CAP_SYS_ADMIN sethostname(2) asks for reaches nothing the
 * host's user namespace owns (mounts, files' trusted.* xattrs, ...). */
int ns_own_userns(bool net, struct cell_err *e);

#endif
