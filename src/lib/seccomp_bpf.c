/*
 * seccomp_bpf.c - a jail's system call filter, as cell carries it.
 *
 * The deny list is src/lib/seccomp_rules.c; libseccomp compiles it at
 * build time (src/gen/seccomp_gen.c) into the programs of
 * seccomp_filters.h, so that neither cell nor the jail spends anything
 * on it at run time: the jail's first process installs the program with
 * one prctl().
 */
#include "seccomp_bpf.h"

#include <errno.h>
#include <sys/prctl.h>

#include "seccomp_filters.h"

void seccomp_filter_for(unsigned int relax, struct seccomp_prog *p)
{
	const struct seccomp_filter *f = &seccomp_filters[relax & SECCOMP_RELAX_ALL];

	p->insns = f->insns;
	p->len = f->len;
}

int seccomp_install(const struct seccomp_prog *p, struct cell_err *e)
{
	/* The kernel takes a non-const pointer but does not write through it. */
	struct sock_fprog prog = {.len = p->len, .filter = (struct sock_filter *)p->insns};

	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
		return cell_err_set(e, errno, "seccomp: install the filter");
	return 0;
}
