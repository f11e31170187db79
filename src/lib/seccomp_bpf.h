/*
 * seccomp_bpf.h - a jail's system call filter, compiled at build time
 * (seccomp_rules.c, src/gen/seccomp_gen.c).
 */
#ifndef CELL_SECCOMP_BPF_H
#define CELL_SECCOMP_BPF_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>

#include "err.h"

/* A compiled filter: a program in cell's read-only data. */
struct seccomp_prog {
	const struct sock_filter *insns;
	unsigned short len;
};

/* The policy's filter: every call of the deny list fails with EPERM.
 * ALLOW_HOSTNAME leaves sethostname/setdomainname out of it. */
void seccomp_filter_for(bool allow_hostname, struct seccomp_prog *p);

/* Installs P in the calling process (no_new_privs must be set). */
int seccomp_install(const struct seccomp_prog *p, struct cell_err *e);

#endif
