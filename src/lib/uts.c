/*
 * uts.c - setting a jail's hostname and domainname.
 *
 * clone(CLONE_NEWUTS) gives the jail a private copy of the host's
 * utsname; changes made here are seen by the jail's processes and their
 * descendants only, never by the host (uts namespaces seed, patch 1/5).
 */
#include "uts.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int uts_apply(const struct jail_spec *s, struct cell_err *e)
{
	if (s->hostname != NULL && sethostname(s->hostname, strlen(s->hostname)) < 0)
		return cell_err_set(e, errno, "set hostname %s", s->hostname);
	if (s->domainname != NULL && setdomainname(s->domainname, strlen(s->domainname)) < 0)
		return cell_err_set(e, errno, "set domainname %s", s->domainname);
	return 0;
}
