/*
 * policy.h - the default jail policy (the bsdjail rules), as the
 * mechanisms of a spec.
 *
 * policy_defaults() is a parser's step, not the engine's: the jail CLI
 * and jail files call it to turn the parameters policy, allow.* and net
 * into the spec's mechanisms (struct jail_mechanisms), which are all the
 * engine reads.  Each rule of the table names the mechanisms that
 * enforce it, and `cell inspect` says, rule by rule, whether a jail's
 * mechanisms hold it (policy_rule_state()).
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
	/* What a jail's mechanisms must hold for the rule to be enforced: */
	uint64_t caps_dropped;	  /* none of these in the bounding set */
	enum jail_seccomp filter; /* a filter at least this strict (DEFAULT is stricter) */
	unsigned long ns;	  /* these namespaces new */
	unsigned int landlock;	  /* these Landlock scopes */
	bool no_new_privs;
	const char *path; /* a path made read-only or masked; NULL: none */
};

extern const struct policy_rule policy_rules[];
extern const size_t policy_nrules;

/* The capabilities a default jail keeps, before --allow adds any. */
uint64_t policy_default_caps(void);

/*
 * The jail CLI's and jail files' policy: fills S's mechanisms from its
 * parameters: with `policy` on, the bsdjail rules (new namespaces, the
 * kept capabilities, no_new_privs, Landlock scopes, the seccomp deny
 * list, pinned priority, the protective mounts, the standard devices
 * where a --rootfs or --bind could hold others), each allow.* bit
 * relaxing one; with it off, new namespaces only.
 */
int policy_defaults(struct jail_spec *s, struct cell_err *e);

/* "enforced", "allowed" (relaxed by the jail's --allow) or "off": whether
 * the mechanisms of S hold rule R. */
const char *policy_rule_state(const struct policy_rule *r, const struct jail_spec *s);

/* What the first process of a jail, or one exec adds, applies: the
 * mechanisms of the spec, with the seccomp program picked before the
 * clone. */
struct policy {
	const struct jail_mechanisms *mech;
	const struct jail_process *proc; /* its capabilities, no_new_privs */
	unsigned int landlock;		 /* LANDLOCK_SCOPE_* */
	struct seccomp_prog seccomp;
	unsigned int seccomp_flags;   /* SECCOMP_FILTER_FLAG_* (an OCI profile's) */
	struct sock_filter *compiled; /* an OCI profile's program, owned */
	/* An OCI profile with a listenerPath: the filter's notify listener
	 * goes to *listener (the launch hands it to the agent). */
	bool want_listener;
	int *listener;
};

/* Picks, or for an OCI profile compiles (libseccomp), the seccomp
 * program; fails on a profile that cannot be compiled. */
int policy_build(const struct jail_spec *s, struct policy *p, struct cell_err *e);
void policy_free(struct policy *p);

/*
 * The policy of a process that `cell exec` adds to a running jail.  A
 * Landlock domain cannot be joined, and one of its own would fence the
 * process off from the jail's (it could not signal the jail's pid 1, nor
 * reach its abstract sockets): it gets none where the jail's namespaces
 * already keep it in (signals: the pid namespace; abstract sockets: the
 * network namespace), and only the abstract-socket scope when the jail
 * shares the host's network.
 */
int policy_for_exec(const struct jail_spec *s, struct policy *p, struct cell_err *e);

/*
 * In the jail's first process, after the root switch, the hostname and
 * the join of its user namespace, before the --init fork: the
 * personality, no_new_privs, the bounding set, the capability sets, the
 * Landlock scopes, and the seccomp filter last (so that nothing above
 * needs a call it denies) — but an OCI profile without no_new_privs
 * first, while the process still holds CAP_SYS_ADMIN, which installing
 * a filter then needs (as runc does).  The rlimits and nice value come
 * before, from the caller (rlimit_apply()): in the jail's user namespace
 * a lower nice value would need CAP_SYS_NICE in the host's.
 */
int policy_apply(const struct jail_spec *s, const struct policy *p, struct cell_err *e);

/* What policy_apply() did, read back from the kernel (no_new_privs, the
 * seccomp mode, the bounding set); fails closed.  policy_apply() calls it. */
int policy_verify(const struct policy *p, struct cell_err *e);

/* Capability sets again, after the process took its user (process.c) and changed the uid. */
int policy_apply_caps(const struct policy *p, struct cell_err *e);

#endif
