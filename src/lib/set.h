/*
 * set.h - changing a running jail.
 */
#ifndef CELL_SET_H
#define CELL_SET_H

#include <stdint.h>

#include "err.h"
#include "spec.h"

/* A change: the parameters named (param.h) and their new values. */
struct jail_change {
	uint64_t params; /* 1 << enum param_id of each parameter named */
	/* Of those, the lists whose values are elements to add (`+=`) or
	 * to remove (`-=`), not the new list. */
	uint64_t add, del;
	struct jail_spec values; /* their new values; the others unused */
	bool force;		 /* a limit below what the jail uses now is set anyway */
};

void jail_change_init(struct jail_change *c);
/* Marks parameter ID named with operation OP: '=' (its new value), '+'
 * (elements to add) or '-' (elements to remove: a list's).  ip4.addr and
 * ip6.addr go together with + and -: each takes either family. */
int jail_change_mark(struct jail_change *c, int id, char op, struct cell_err *e);
void jail_change_free(struct jail_change *c);
static inline bool jail_change_has(const struct jail_change *c, int id)
{
	return (c->params >> id) & 1;
}

/*
 * Applies change C to the running jail NAME of STATE_ROOT, live, and
 * records it.  A parameter that cannot change in a running jail (param.h:
 * every one but hostname, domainname and the limits) is an error unless
 * its value stays the same; so are values that cannot be applied, and
 * then nothing has changed.  A limit (nrtask, memory) below what the jail
 * uses now, as its cgroup counts it, is refused unless C->force: lowered
 * under a running service it breaks it (its next fork fails).  An unset
 * cgroup limit ("max") is removed; an rlimit cannot be unset.  An error about a parameter records
 * it (err.h).
 */
int jail_set(const char *state_root, const char *name, const struct jail_change *c,
	     struct cell_err *e);

#endif
