/*
 * jailconf.h - jail files: FreeBSD's jail.conf(5) dialect of cell.
 *
 * A jail file names jails in blocks (`web { exec.start = "..."; }`) and
 * gives parameters outside any block as defaults for every jail.  The
 * parser resolves all of it: each jail of the result carries its final
 * list of parameters, globals merged in, `=` and `+=` applied and
 * variables expanded, so that handing them in order to param_set()
 * builds the jail's spec.  The syntax is in docs/cell.conf.5.  Its
 * parameters are the table's (param.h), plus exec.start and exec.stop.
 *
 * Every error is one line, "FILE:LINE:COL: what is wrong" (1-based, the
 * column in bytes).  The parser is iterative and bounded by the limits
 * below: it is fed untrusted files and fuzzed (tests/fuzz).
 */
#ifndef CELL_JAILCONF_H
#define CELL_JAILCONF_H

#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "spec.h"

#define JAILCONF_MAX_FILE   (1 << 20) /* bytes of a jail file */
#define JAILCONF_MAX_JAILS  1024      /* blocks of a file */
#define JAILCONF_MAX_TOKEN  4096      /* bytes of a parameter name or of a value */
#define JAILCONF_MAX_PARAMS 4096      /* parameters of one jail, globals included */
/* Bytes of the parse's result, bounding the work of copying the globals
 * into each of up to 1024 jails. */
#define JAILCONF_MAX_TOTAL (32 << 20)

struct jailconf_param {
	char *key;
	char *value; /* NULL: a boolean given bare ("init;"), true */
	int line, col;
	bool global; /* declared outside the jail's block */
};

struct jailconf_jail {
	char *name; /* the block's name, a valid jail name */
	int line, col;
	struct jailconf_param *params;
	size_t nparams;
};

struct jailconf {
	char *file; /* the name the messages use */
	struct jailconf_jail *jails;
	size_t njails;
};

/*
 * Parses TEXT (LEN bytes) read from FILE (used in messages) into *C.
 * The globals come first in each jail's params, then the block's own;
 * a block's `=` has already dropped the global it replaces (a list's
 * whole value), and every $name, ${name}, ${param} and $$ is expanded.
 * An empty file, or one of globals only, has no jails: not an error.
 * On failure *C is empty and needs no jailconf_free().
 */
int jailconf_parse(const char *text, size_t len, const char *file, struct jailconf *c,
		   struct cell_err *e);

/* Reads and parses the file PATH; errors reading it are "PATH: strerror". */
int jailconf_load(const char *path, struct jailconf *c, struct cell_err *e);

void jailconf_free(struct jailconf *c);

/* The jail named NAME, or NULL. */
const struct jailconf_jail *jailconf_find(const struct jailconf *c, const char *name);

/*
 * Sets the parameters of jail J on *S (initialised by the caller with
 * spec_init(), maybe given more fields): its name first, then each param
 * by param_set(), whose errors get the declaration's "FILE:LINE:COL: key
 * = value: " (and " (for jail \"NAME\")" after a global's).  exec.start
 * becomes the command {"/bin/sh", "-c", VALUE}; a jail needs it or
 * `command` (a list: the argv).  exec.stop, optional, is returned in
 * *EXEC_STOP (a heap string or NULL; EXEC_STOP may be NULL).  Does not
 * call spec_validate(): the caller does.  On failure *S may be half set:
 * spec_free() it.
 */
int jailconf_to_spec(const struct jailconf *c, const struct jailconf_jail *j, struct jail_spec *s,
		     char **exec_stop, struct cell_err *e);

/* exec.timeout of jail J (checked by jailconf_to_spec()): the seconds
 * `cell down` gives exec.stop before it kills it, 0 for no limit;
 * JAILCONF_EXEC_TIMEOUT when the file does not say (as FreeBSD's jail(8),
 * whose exec.timeout is the same parameter). */
#define JAILCONF_EXEC_TIMEOUT	  60
#define JAILCONF_EXEC_TIMEOUT_MAX 86400
int jailconf_exec_timeout(const struct jailconf_jail *j);

/*
 * An error found later about jail J's spec, at validation or at the
 * start (one that records its parameter, err.h), spelled for the file:
 * the declaration's "FILE:LINE:COL: key = value: " in front (a list's
 * element by its declaration) and " (for jail \"NAME\")" after it; a
 * parameter the file does not declare is named after the jail's block.
 * An error about no parameter is left as it is.
 */
void jailconf_spell(const struct jailconf *c, const struct jailconf_jail *j, struct cell_err *e);

#endif
