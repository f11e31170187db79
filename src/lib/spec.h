/*
 * spec.h - struct jail_spec, the one description of a jail.
 *
 * Every front door (command-line flags, a jail file, an OCI config.json)
 * is a parser that fills a jail_spec; the engine reads nothing else.  The
 * spec is plain data: strings are heap copies owned by the spec and freed
 * by spec_free().
 */
#ifndef CELL_SPEC_H
#define CELL_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"

#define JAIL_NAME_MAX 64
#define JAIL_UTS_MAX  64 /* __NEW_UTS_LEN: hostname and domainname */

enum jail_net {
	JAIL_NET_NONE, /* own network namespace, only loopback, up */
	JAIL_NET_HOST, /* share the host's network namespace */
};

struct jail_bind {
	char *src; /* host path */
	char *dst; /* absolute path inside the jail */
	bool ro;
};

struct jail_spec {
	char *name;	  /* validated name; the state directory's name */
	char *hostname;	  /* NULL: the name given with --name, else "cell" */
	char *domainname; /* NULL: leave the copy of the host's */

	char **argv; /* NULL-terminated; argv[0] is the command */
	char **env;  /* NULL-terminated, "KEY=VALUE" */
	size_t nenv;
	char *workdir; /* NULL: "/" */

	bool has_user;
	uid_t uid;
	bool has_gid; /* false: primary group from the jail's /etc/passwd */
	gid_t gid;

	char *rootfs; /* NULL: the embedded root (host's / read-only) */
	bool rw;      /* root writable (only with rootfs) */
	struct jail_bind *binds;
	size_t nbinds;

	enum jail_net net;
	bool init; /* our reaper is pid 1, the command its child */
	bool tty;  /* give the jail a new pty (the caller's stdin is a tty) */
};

void spec_init(struct jail_spec *s);
void spec_free(struct jail_spec *s);

/* "SRC:DST[:ro|:rw]" -> *b (fields heap-allocated). */
int spec_parse_bind(const char *arg, struct jail_bind *b, struct cell_err *e);
int spec_add_bind(struct jail_spec *s, const char *arg, struct cell_err *e);

/* "UID[:GID]", both numeric. */
int spec_parse_user(struct jail_spec *s, const char *arg, struct cell_err *e);

/* Sets KEY=VALUE, replacing an earlier KEY.  "KEY" alone copies the
 * caller's value of KEY (as docker run -e KEY), or is ignored when unset. */
int spec_env_set(struct jail_spec *s, const char *kv, struct cell_err *e);
/* Starts the environment from a NULL-terminated array (e.g. environ). */
int spec_env_import(struct jail_spec *s, char *const *envp, struct cell_err *e);
/* Value of KEY in the spec's environment, or NULL. */
const char *spec_env_get(const struct jail_spec *s, const char *key);

int spec_set_argv(struct jail_spec *s, int argc, char *const *argv, struct cell_err *e);

bool spec_valid_name(const char *name);
bool spec_valid_hostname(const char *host);

/* Checks the whole spec, fills the defaults that depend on other fields. */
int spec_validate(struct jail_spec *s, struct cell_err *e);

/* Parses a decimal id in [0, 2^32-2]. */
int spec_parse_id(const char *str, unsigned int *out);

#endif
