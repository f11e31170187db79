/*
 * policy.h - the default jail policy (the bsdjail rules).
 */
#ifndef CELL_POLICY_H
#define CELL_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "seccomp_bpf.h"
#include "spec.h"

/* One rule of the policy and the mechanisms that enforce it. */
struct policy_rule {
	const char *key;	/* its parameter name: policy.KEY in inspect */
	const char *name;	/* what is forbidden, in words */
	unsigned int allow;	/* the --allow bit that relaxes it, 0: none */
	const char *mechanisms; /* how, in the words inspect prints */
	const char *relaxed;	/* what the --allow keeps, if it says more than "allowed" */
};

extern const struct policy_rule policy_rules[];
extern const size_t policy_nrules;

/* What the policy decides for one spec, computed in cell before the clone. */
struct policy {
	bool on;
	uint64_t caps;	       /* kept capabilities: bounding, permitted, effective */
	unsigned int landlock; /* LANDLOCK_SCOPE_* */
	struct seccomp_prog seccomp;
};

/* The capabilities a default jail keeps, before --allow adds any. */
uint64_t policy_default_caps(void);

void policy_build(const struct jail_spec *s, struct policy *p);

/*
 * The policy of a process that `cell exec` adds to a running jail.  A
 * Landlock domain cannot be joined, and one of its own would fence the
 * process off from the jail's (it could not signal the jail's pid 1, nor
 * reach its abstract sockets): it gets none where the jail's namespaces
 * already keep it in (signals: the pid namespace; abstract sockets: the
 * network namespace), and only the abstract-socket scope when the jail
 * shares the host's network.
 */
void policy_for_exec(const struct jail_spec *s, struct policy *p);

/*
 * In the jail's first process, after the root switch and the hostname,
 * before the --init fork: rlimits and nice, no_new_privs, the bounding
 * set, the capability sets, the Landlock scopes, and the seccomp filter
 * last (so that nothing above needs a call it denies).
 */
int policy_apply(const struct jail_spec *s, const struct policy *p, struct cell_err *e);

/* Capability sets again, after process_set_user() changed the uid. */
int policy_apply_caps(const struct policy *p, struct cell_err *e);

#endif
