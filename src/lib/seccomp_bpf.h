/*
 * seccomp_bpf.h - a jail's system call filter (libseccomp).
 */
#ifndef CELL_SECCOMP_BPF_H
#define CELL_SECCOMP_BPF_H

#include <linux/filter.h>
#include <stdbool.h>

#include "err.h"

/* A compiled filter, built by cell before the clone so that the jail's
 * process only has to install it. */
struct seccomp_prog {
	struct sock_filter *insns;
	unsigned short len;
};

/* Compiles the deny list of the policy: every listed call fails with
 * EPERM.  ALLOW_HOSTNAME leaves sethostname/setdomainname out of it. */
int seccomp_build(bool allow_hostname, struct seccomp_prog *p, struct cell_err *e);

/* Installs P in the calling process (no_new_privs must be set). */
int seccomp_install(const struct seccomp_prog *p, struct cell_err *e);

void seccomp_prog_free(struct seccomp_prog *p);

/* The names of the calls the filter denies, NULL-terminated. */
extern const char *const seccomp_denied[];

#endif
