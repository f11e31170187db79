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

/* What an --allow takes out of the deny list: sethostname and
 * setdomainname (set_hostname), the io_uring calls (io_uring).  Every
 * combination is compiled at build time. */
enum {
	SECCOMP_RELAX_HOSTNAME = 1 << 0,
	SECCOMP_RELAX_IO_URING = 1 << 1,
	SECCOMP_RELAX_ALL = (1 << 2) - 1,
};

/* The policy's filter: every call of the deny list fails with EPERM,
 * but those RELAX (SECCOMP_RELAX_* bits) lets through. */
void seccomp_filter_for(unsigned int relax, struct seccomp_prog *p);

/* Installs P in the calling process (no_new_privs must be set). */
int seccomp_install(const struct seccomp_prog *p, struct cell_err *e);

#endif
