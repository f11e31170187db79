/*
 * oci_state.h - an OCI container's state (the runtime spec's "State"),
 * read from its jail's record.
 *
 * An OCI container is a jail of cell-oci's state root whose record
 * carries, beside the spec's parameters, an "oci" object that the
 * create put there (oci_record_extra(), the launch's record_extra): the
 * bundle, the config's ociVersion and annotations, the root path, the
 * creation time to the nanosecond (runc's "created") and the config
 * itself, from which exec takes the container's process and start and
 * delete their hooks (the record's parameters hold neither).
 *
 * The status is the kernel's word, not only the record's: a record that
 * names a process that has ended is "stopped" whatever it says, and a
 * running container whose freezer holds it is "paused".
 */
#ifndef CELL_OCI_STATE_H
#define CELL_OCI_STATE_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "spec.h"

/* The runtime spec's version of the state cell-oci prints. */
#define OCI_STATE_VERSION "1.2.0"

enum oci_status {
	OCI_CREATING, /* create under way (its creator alive) */
	OCI_CREATED,  /* waiting for start on its exec fifo */
	OCI_RUNNING,
	OCI_PAUSED, /* running, its freezer cgroup frozen */
	OCI_STOPPED,
};

/* "creating", "created", "running", "paused", "stopped". */
const char *oci_status_name(enum oci_status st);

/* A container ID as runc takes it: 1 to JAIL_NAME_MAX characters of
 * [A-Za-z0-9_+.-], not "." or ".." (it names a directory of the state
 * root); podman's 64 hex digits fit. */
bool oci_valid_id(const char *id);

/* The record_extra of a container of BUNDLE (absolute) made from
 * CONFIG (the parsed config.json, an object, copied), its root at
 * ROOTFS: {"oci": {...}} as above.  NULL when out of memory. */
json_t *oci_record_extra(const char *bundle, const json_t *config, const char *rootfs);

/* The "oci" object of a record; NULL for a jail cell-oci did not make. */
const json_t *oci_record_oci(const json_t *rec);

/* The status of a record (read with or without the jail's lock) and its
 * process's host pid in *PID (0 once stopped; PID may be NULL). */
enum oci_status oci_record_status(const json_t *rec, pid_t *pid);

/* The OCI state of container ID from its record: ociVersion, id,
 * status, pid, bundle, annotations (when any); with RUNC_KEYS also
 * rootfs, created and owner, as `runc state` prints them.  NULL when out
 * of memory. */
json_t *oci_state_json(const char *id, const json_t *rec, bool runc_keys);

/* The same as text, compact (the state hooks and the exec fifo read). */
char *oci_state_text(const char *id, const json_t *rec);

/* The state of container ID of the state root ROOT, read without its
 * lock.  No such container: "container ID does not exist" (errno
 * ENOENT; also when the root itself is missing). */
int oci_state_get(const char *root, const char *id, json_t **state, struct cell_err *e);

/* Every container of ROOT, by ID, as an array of states with runc's
 * keys (owner: the state's owner, "root" for uid 0).  A missing root is
 * an empty list. */
json_t *oci_state_list(const char *root, struct cell_err *e);

/* The host pids of container ID's processes: every pid of its cgroups
 * (its pid 1 alone when it has none); sorted, in *PIDS (free()). */
int oci_state_pids(const char *root, const char *id, pid_t **pids, size_t *n, struct cell_err *e);

/* The container's spec as its recorded config says (hooks, process,
 * mechanisms): S spec_init()'d by the caller. */
int oci_record_spec(const json_t *rec, const char *id, struct jail_spec *s, struct cell_err *e);

/* The spec of created or running container ID of ROOT, for exec: its
 * mechanisms and its process as its config says; any other status is
 * an error ("cannot exec in a stopped container"). */
int oci_state_spec(const char *root, const char *id, struct jail_spec *s, struct cell_err *e);

#endif
