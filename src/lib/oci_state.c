/*
 * oci_state.c - an OCI container's state from its jail's record: its
 * status (the record and the kernel), the state object runc prints, the
 * list of a root's containers, the pids of its cgroups.  See oci_state.h.
 */
#include "oci_state.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "jail.h"
#include "oci_config.h"
#include "proc.h"
#include "store.h"
#include "utc.h"

const char *oci_status_name(enum oci_status st)
{
	static const char *const names[] = {
		[OCI_CREATING] = "creating", [OCI_CREATED] = "created", [OCI_RUNNING] = "running",
		[OCI_PAUSED] = "paused",     [OCI_STOPPED] = "stopped",
	};

	return names[st];
}

bool oci_valid_id(const char *id)
{
	size_t n = strlen(id);

	/* runc's ^[\w+-\.]+$: no '/', no control character, nothing a
	 * shell or a path would read twice; "." and ".." are directories
	 * of their own. */
	if (n == 0 || n > JAIL_NAME_MAX || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)id[i];

		if (!(isalnum(c) || c == '_' || c == '+' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

/* Now as RFC 3339 with nanoseconds, as runc's "created". */
static json_t *time_now_ns(void)
{
	struct timespec ts;
	struct tm tm;
	char buf[64];

	if (clock_gettime(CLOCK_REALTIME, &ts) < 0 || !utc_tm((long long)ts.tv_sec, &tm))
		return json_null();
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec);
	return json_string(buf);
}

json_t *oci_record_extra(const char *bundle, const json_t *config, const char *rootfs)
{
	const json_t *annotations = json_object_get(config, "annotations");
	const json_t *version = json_object_get(config, "ociVersion");
	json_t *oci = json_object(), *extra = json_object();

	if (oci == NULL || extra == NULL ||
	    json_object_set_new(oci, "bundle", json_string(bundle)) < 0 ||
	    json_object_set_new(oci, "ociVersion",
				json_is_string(version) ? json_copy((json_t *)version)
							: json_string("")) < 0 ||
	    json_object_set_new(oci, "annotations",
				json_is_object(annotations) ? json_incref((json_t *)annotations)
							    : json_object()) < 0 ||
	    json_object_set_new(oci, "rootfs", rootfs != NULL ? json_string(rootfs) : json_null()) <
		    0 ||
	    json_object_set_new(oci, "created", time_now_ns()) < 0 ||
	    json_object_set(oci, "config", (json_t *)config) < 0 ||
	    json_object_set(extra, "oci", oci) < 0) {
		json_decref(oci);
		json_decref(extra);
		return NULL;
	}
	json_decref(oci);
	return extra;
}

const json_t *oci_record_oci(const json_t *rec)
{
	const json_t *oci = json_object_get(rec, "oci");

	return json_is_object(oci) ? oci : NULL;
}

static const char *record_phase(const json_t *rec)
{
	const char *p = json_string_value(json_object_get(rec, "state"));

	return p != NULL ? p : "";
}

/* Whether the record's cgroups are frozen (paused). */
static bool record_frozen(const json_t *rec)
{
	struct cgroup cg;
	struct cell_err ignored;
	bool frozen;

	if (cgroup_from_json(&cg, json_object_get(rec, "cgroup"), &ignored) < 0)
		return false;
	frozen = cg.layout != CGROUP_NONE && cgroup_frozen(&cg);
	cgroup_release(&cg);
	return frozen;
}

enum oci_status oci_record_status(const json_t *rec, pid_t *pid)
{
	const char *phase = record_phase(rec);
	json_int_t p = 0, start = 0;
	pid_t running = 0;

	if (pid != NULL)
		*pid = 0;
	if (strcmp(phase, "creating") == 0) {
		/* Its creator's pid: a create still under way, or one that
		 * died (its leftovers are the next command's to clean). */
		if (json_unpack((json_t *)rec, "{s:I, s:I}", "pid", &p, "start_time", &start) ==
			    0 &&
		    proc_alive((pid_t)p, (unsigned long long)start))
			return OCI_CREATING;
		return OCI_STOPPED;
	}
	if (!jail_record_running(rec, &running))
		return OCI_STOPPED;
	if (pid != NULL)
		*pid = running;
	if (strcmp(phase, "created") == 0)
		return OCI_CREATED;
	return record_frozen(rec) ? OCI_PAUSED : OCI_RUNNING;
}

/* The owner's name runc shows: "root" for uid 0, else the number (a
 * static cell looks no names up through NSS). */
static json_t *owner_of(uid_t uid)
{
	char buf[16];

	if (uid == 0)
		return json_string("root");
	snprintf(buf, sizeof(buf), "%u", (unsigned)uid);
	return json_string(buf);
}

json_t *oci_state_json(const char *id, const json_t *rec, bool runc_keys)
{
	const json_t *oci = oci_record_oci(rec);
	const json_t *ann = json_object_get(oci, "annotations");
	const char *bundle = json_string_value(json_object_get(oci, "bundle"));
	enum oci_status st;
	pid_t pid;
	json_t *out;

	st = oci_record_status(rec, &pid);
	out = json_pack("{s:s, s:s, s:s, s:I, s:s}", "ociVersion", OCI_STATE_VERSION, "id", id,
			"status", oci_status_name(st), "pid", (json_int_t)pid, "bundle",
			bundle != NULL ? bundle : "");
	if (out == NULL)
		return NULL;
	/* runc leaves out empty annotations (omitempty); so does cell. */
	if (json_object_size(ann) > 0 && json_object_set(out, "annotations", (json_t *)ann) < 0)
		goto oom;
	if (!runc_keys)
		return out;
	{
		const char *rootfs = json_string_value(json_object_get(oci, "rootfs"));
		json_t *created = json_object_get(oci, "created");

		if (json_object_set_new(out, "rootfs", json_string(rootfs != NULL ? rootfs : "")) <
			    0 ||
		    json_object_set(out, "created",
				    created != NULL ? created : json_object_get(rec, "created")) <
			    0 ||
		    json_object_set_new(out, "owner", json_string("")) < 0)
			goto oom;
	}
	return out;
oom:
	json_decref(out);
	return NULL;
}

char *oci_state_text(const char *id, const json_t *rec)
{
	json_t *st = oci_state_json(id, rec, false);
	char *text = st != NULL ? json_dumps(st, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(st);
	return text;
}

/* "container ID does not exist", errno ENOENT. */
static int no_container(const char *id, struct cell_err *e)
{
	cell_err_set(e, 0, "container %s: container does not exist", id);
	e->errnum = ENOENT;
	return -1;
}

/* The record of container ID, read without its lock. */
static json_t *peek_container(int rootfd, const char *id, struct cell_err *e)
{
	json_t *rec = rootfd >= 0 && oci_valid_id(id) ? store_jail_peek(rootfd, id) : NULL;

	if (rec == NULL || oci_record_oci(rec) == NULL) {
		json_decref(rec);
		no_container(id, e);
		return NULL;
	}
	return rec;
}

int oci_state_get(const char *root, const char *id, json_t **state, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	json_t *rec;

	*state = NULL;
	if (store_open_root_existing(root, &rootfd, e) < 0)
		return -1;
	rec = peek_container(rootfd, id, e);
	if (rec == NULL)
		return -1;
	*state = oci_state_json(id, rec, true);
	json_decref(rec);
	if (*state == NULL)
		return cell_err_set(e, ENOMEM, "container %s: state", id);
	return 0;
}

/* One entry of the list: the state, and the owner of its record. */
static json_t *list_entry(int rootfd, const char *id)
{
	json_t *rec = store_jail_peek(rootfd, id), *st = NULL;
	struct stat sb;

	if (rec != NULL && oci_record_oci(rec) != NULL) {
		st = oci_state_json(id, rec, true);
		if (st != NULL && fstatat(rootfd, id, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			json_object_set_new(st, "owner", owner_of(sb.st_uid));
	}
	json_decref(rec);
	return st;
}

json_t *oci_state_list(const char *root, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	json_t *list = json_array();
	char **names = NULL;
	size_t n = 0;

	if (list == NULL) {
		cell_err_set(e, ENOMEM, "list");
		return NULL;
	}
	if (store_open_root_existing(root, &rootfd, e) < 0) {
		json_decref(list);
		return NULL;
	}
	if (rootfd < 0)
		return list;
	if (store_list(rootfd, &names, &n, e) < 0) {
		json_decref(list);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *st = list_entry(rootfd, names[i]);

		if (st != NULL)
			json_array_append_new(list, st);
	}
	store_names_free(names, n);
	return list;
}

int oci_state_pids(const char *root, const char *id, pid_t **pids, size_t *n, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	struct cgroup cg;
	json_t *rec;
	pid_t pid;
	int ret = 0;

	*pids = NULL;
	*n = 0;
	if (store_open_root_existing(root, &rootfd, e) < 0)
		return -1;
	rec = peek_container(rootfd, id, e);
	if (rec == NULL)
		return -1;
	cgroup_init(&cg);
	if (oci_record_status(rec, &pid) == OCI_STOPPED)
		goto out; /* no process: an empty list, as runc's */
	if (cgroup_from_json(&cg, json_object_get(rec, "cgroup"), e) < 0)
		ret = -1;
	else if (cg.layout != CGROUP_NONE)
		ret = cgroup_procs(&cg, pids, n, e);
	else if ((*pids = malloc(sizeof(**pids))) != NULL)
		(*pids)[(*n)++] = pid;
	else
		ret = cell_err_set(e, ENOMEM, "pids");
out:
	if (ret < 0)
		cell_err_prefix(e, "container %s", id);
	cgroup_release(&cg);
	json_decref(rec);
	return ret;
}

int oci_record_spec(const json_t *rec, const char *id, struct jail_spec *s, struct cell_err *e)
{
	const json_t *oci = oci_record_oci(rec);
	const char *bundle = json_string_value(json_object_get(oci, "bundle"));
	cleanup_free char *text = NULL;

	if (oci == NULL || bundle == NULL || !json_is_object(json_object_get(oci, "config")))
		return cell_err_set(e, 0, "container %s: its record holds no config", id);
	text = json_dumps(json_object_get(oci, "config"), JSON_COMPACT);
	if (text == NULL)
		return cell_err_set(e, ENOMEM, "container %s: its config", id);
	if (oci_config_parse(text, strlen(text), bundle, s, e) < 0)
		return cell_err_prefix(e, "container %s: its recorded config", id);
	free(s->name);
	s->name = strdup(id);
	if (s->name == NULL)
		return cell_err_set(e, ENOMEM, "container %s", id);
	return 0;
}

int oci_state_spec(const char *root, const char *id, struct jail_spec *s, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	enum oci_status st;
	json_t *rec;
	int ret;

	if (store_open_root_existing(root, &rootfd, e) < 0)
		return -1;
	rec = peek_container(rootfd, id, e);
	if (rec == NULL)
		return -1;
	st = oci_record_status(rec, NULL);
	if (st == OCI_CREATED || st == OCI_RUNNING)
		ret = oci_record_spec(rec, id, s, e);
	else
		ret = cell_err_set(e, 0, "container %s: cannot exec in a %s container", id,
				   oci_status_name(st));
	json_decref(rec);
	return ret;
}
