/*
 * landlock.c - Landlock scopes for a jail.
 *
 * The pid namespace already hides every outside process, and a new
 * network namespace every outside abstract unix socket.  Landlock's
 * scopes (ABI 6, Linux 6.12) make both rules hold by construction, also
 * for `--net host` jails and for any descriptor or pid that could leak
 * into the jail: a scoped process can signal, or connect to abstract
 * sockets of, processes of its own domain only.  SIGCHLD to the jail's
 * parent is sent by the kernel, not by the jail, and is not affected.
 *
 * The uapi header of Debian 12 predates the scopes, hence the local
 * definitions of the ABI.
 */
#include "landlock.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_restrict_self  446
#endif

#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_SCOPE_ABSTRACT_UNIX	  (1ULL << 0)
#define LL_SCOPE_SIGNAL		  (1ULL << 1)

/* struct landlock_ruleset_attr of ABI 6. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

int landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

int landlock_can_scope(void)
{
	return landlock_abi() >= 6;
}

int landlock_scope(unsigned int scopes, int *applied, struct cell_err *e)
{
	struct ll_ruleset_attr attr;
	int fd;

	*applied = 0;
	if (scopes == 0 || !landlock_can_scope())
		return 0;
	memset(&attr, 0, sizeof(attr));
	if (scopes & LANDLOCK_SCOPE_ABSTRACT)
		attr.scoped |= LL_SCOPE_ABSTRACT_UNIX;
	if (scopes & LANDLOCK_SCOPE_SIGNALS)
		attr.scoped |= LL_SCOPE_SIGNAL;
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return cell_err_set(e, errno, "landlock: create ruleset");
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0) {
		int err = errno;
		close(fd);
		return cell_err_set(e, err, "landlock: restrict self");
	}
	close(fd);
	*applied = 1;
	return 0;
}
