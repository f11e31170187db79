/*
 * seccomp_oci.h - an OCI config's seccomp profile, compiled at run time.
 *
 * The jail CLI's filters are compiled when cell is built (seccomp_bpf.h);
 * an OCI config brings a profile of its own (struct jail_seccomp_rules,
 * from linux.seccomp), which libseccomp turns into a BPF program when
 * the container is prepared.  Only OCI launches call it.
 */
#ifndef CELL_SECCOMP_OCI_H
#define CELL_SECCOMP_OCI_H

#include <linux/filter.h>

#include "err.h"
#include "spec.h"

/*
 * Compiles R into OUT (OUT->filter malloc'd, the caller frees it).
 * System call names libseccomp does not know are left out, as runc
 * leaves them out (a profile written for a newer kernel or another
 * architecture).  R's flags (SECCOMP_FILTER_FLAG_*) are no part of the
 * program: the installer passes them to seccomp(2).
 */
int seccomp_oci_compile(const struct jail_seccomp_rules *r, struct sock_fprog *out,
			struct cell_err *e);

#endif
