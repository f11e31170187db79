/*
 * seccomp_rules.h - the jail's system call deny list, compiled to BPF by
 * libseccomp at build time (src/gen/seccomp_gen.c).
 */
#ifndef CELL_SECCOMP_RULES_H
#define CELL_SECCOMP_RULES_H

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seccomp_bpf.h"

/* The calls denied (EPERM) outright, NULL-terminated. */
extern const char *const seccomp_denied[];
/* Denied (EPERM) outright, by number: calls this libseccomp has no name
 * for.  Ends with a NULL name. */
struct seccomp_new_call {
	const char *name;
	int nr;
};
extern const struct seccomp_new_call seccomp_denied_new[];
/* Denied unless --allow set_hostname (SECCOMP_RELAX_HOSTNAME). */
extern const char *const seccomp_hostname_calls[];
/* Denied unless --allow io_uring (SECCOMP_RELAX_IO_URING). */
extern const char *const seccomp_io_uring_calls[];

/* A call denied (EPERM) when (argument ARG & MASK) == VALUE and, when
 * ARG2 is set (1-6: the argument's index + 1), its argument ARG2 - 1 ==
 * VALUE2 too. */
struct seccomp_arg_denial {
	const char *name;
	unsigned int arg;
	uint64_t mask, value;
	unsigned int arg2;
	uint64_t value2;
};
/* Ends with a NULL name. */
extern const struct seccomp_arg_denial seccomp_arg_denials[];

/* A call that makes a file with the mode argument MODE_ARG, denied
 * (EPERM) when that mode has S_ISUID or S_ISGID; for an open, only when
 * FLAGS_ARG (>= 0) asks for a file to be made (O_CREAT, O_TMPFILE).  NR:
 * the call's number when libseccomp may not know it, else 0. */
struct seccomp_setid_call {
	const char *name;
	int nr;
	unsigned int mode_arg;
	int flags_arg;
};
/* Ends with a NULL name. */
extern const struct seccomp_setid_call seccomp_setid_calls[];

/* The filter for ARCH (an SCMP_ARCH_* value; SCMP_ARCH_NATIVE for this
 * machine's), or NULL. */
scmp_filter_ctx seccomp_rules_filter(uint32_t arch, unsigned int relax);

/* The filter compiled to BPF: a malloc'd program of *LEN instructions, or
 * NULL. */
struct sock_filter *seccomp_rules_compile(uint32_t arch, unsigned int relax, size_t *len);

#endif
