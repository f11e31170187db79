/*
 * oci_config.h - an OCI bundle's config.json: the third parser of the spec.
 *
 * The OCI runtime specification's config.json (ociVersion 1.0.x-1.3.x)
 * becomes a struct jail_spec whose mechanisms are exactly what the
 * config says: no policy_defaults(), s->policy false.  A field cell does
 * not know and that would change what the container is (linux.intelRdt
 * with values, a namespace type, a mount option) is an error; one that
 * does not (annotations, commandLine, vm) is ignored, as runc does.
 *
 * Errors are one line, with exit code 125: a malformed file says
 * "config.json:LINE:COL: <what is wrong>"; a bad value names the JSON
 * path of its field: "config.json: linux.resources.memory.limit: must
 * be ...".  The parser is fed untrusted files and fuzzed (tests/fuzz).
 */
#ifndef CELL_OCI_CONFIG_H
#define CELL_OCI_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"
#include "spec.h"

#define OCI_CONFIG_MAX (4 << 20) /* bytes of a config.json */
#define OCI_VERSION    "1.2.0"	 /* what oci_config_default() writes */

/*
 * Reads BUNDLE/config.json (a regular file, not a symlink, at most
 * OCI_CONFIG_MAX bytes) into S, which the caller has spec_init()'d, and
 * names it ID.  root.path relative to the bundle is made absolute, as
 * are the sources of binds.  On failure S holds a partial spec the
 * caller frees with spec_free().
 */
int oci_config_load(const char *bundle, const char *id, struct jail_spec *s, struct cell_err *e);

/* The loader's core: TEXT (LEN bytes, not NUL-terminated) as a
 * config.json of BUNDLE (an absolute directory; relative paths of the
 * config are made absolute against it). */
int oci_config_parse(const char *text, size_t len, const char *bundle, struct jail_spec *s,
		     struct cell_err *e);

/* oci_config_parse(), the parsed config kept in *CONFIG (the caller's
 * reference) for the record: one parse per create. */
int oci_config_parse_keep(const char *text, size_t len, const char *bundle, struct jail_spec *s,
			  json_t **config, struct cell_err *e);

/* The `process` object alone into P (zeroed or spec_init()'d by the
 * caller): a config's, or `cell-oci exec --process FILE`'s.  Error
 * messages name the fields from "process.". */
int oci_process_parse(const json_t *process, struct jail_process *p, struct cell_err *e);

/* The config `cell-oci spec [--rootless]` writes: runc's default (sh,
 * a terminal, the usual mounts, masked and read-only paths, capabilities
 * AUDIT_WRITE KILL NET_BIND_SERVICE); ROOTLESS adds a user namespace
 * mapping the caller's uid and gid to root.  NULL when out of memory. */
json_t *oci_config_default(bool rootless);

/* What `cell-oci features` prints (runc's features JSON): the versions,
 * hooks, mount options, namespaces, capabilities, cgroup, seccomp
 * actions, operators and architectures this parser accepts.  NULL when
 * out of memory. */
json_t *oci_features(void);

#endif
