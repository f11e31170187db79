/*
 * inspect.c - a running jail, described from the host.
 *
 * The record in the state store says what was asked (the parameters,
 * the limits, the --allow rules, the cgroups); /proc and the cgroup
 * files say what holds now: the namespaces of the jail's first process,
 * its capabilities, no_new_privs and seccomp mode, its rlimits and nice
 * value, and the jail's use of tasks and memory.  This is the seed's
 * /proc/PID/attr/current, grown up.
 */
#include "inspect.h"

#include "jail.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps.h"
#include "cgroup.h"
#include "cleanup.h"
#include "landlock.h"
#include "net.h"
#include "policy.h"
#include "proc.h"
#include "record.h"
#include "store.h"
#include "untrusted.h"

static const char *const ns_names[] = {"user", "uts", "ipc", "pid", "mnt", "net", "cgroup"};

static int ns_inode(pid_t pid, const char *ns, unsigned long long *ino)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, ns);
	if (stat(path, &st) < 0)
		return -1;
	*ino = (unsigned long long)st.st_ino;
	return 0;
}

static json_t *namespaces_of(pid_t pid)
{
	json_t *j = json_object();

	for (size_t i = 0; j != NULL && i < sizeof(ns_names) / sizeof(ns_names[0]); i++) {
		unsigned long long ino;

		if (ns_inode(pid, ns_names[i], &ino) == 0)
			json_object_set_new(j, ns_names[i], json_integer((json_int_t)ino));
	}
	return j;
}

/* One map of PID's user namespace ("uid_map", "gid_map"), its extents in
 * the record's spelling ("0 1073741824 65536", comma-joined); NULL when it
 * cannot be read. */
static json_t *map_of(pid_t pid, const char *map)
{
	char path[64], buf[1024], out[1024] = "";
	size_t len = 0;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, map);
	if (proc_read_text(path, buf, sizeof(buf)) < 0)
		return NULL;
	for (char *l = buf; l != NULL && *l != '\0';
	     l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long in, host, count;

		if (sscanf(l, "%llu %llu %llu", &in, &host, &count) != 3)
			continue;
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%llu %llu %llu",
					len ? "," : "", in, host, count);
		if (len >= sizeof(out))
			return NULL;
	}
	return json_string(out);
}

/* What the jail's user namespace maps, read from its pid 1 (what holds,
 * not what was asked); null when it has the host's. */
static json_t *idmap_of(pid_t pid)
{
	unsigned long long own, jail;
	json_t *u, *g;

	if (ns_inode(pid, "user", &jail) < 0 || ns_inode(getpid(), "user", &own) < 0 || own == jail)
		return json_null();
	u = map_of(pid, "uid_map");
	g = map_of(pid, "gid_map");
	if (u == NULL || g == NULL) {
		json_decref(u);
		json_decref(g);
		return json_null();
	}
	return json_pack("{s:o, s:o}", "uid_map", u, "gid_map", g);
}

/* The value of "KEY:\t..." in /proc/PID/status, or -1. */
/* The number after "KEY:" in /proc/PID/FILE (status, smaps_rollup). */
static long long proc_field(pid_t pid, const char *file, const char *key)
{
	char path[64], buf[4096];
	size_t kl = strlen(key);

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	if (proc_read_text(path, buf, sizeof(buf)) < 0)
		return -1;
	for (char *l = buf; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, kl) == 0 && l[kl] == ':')
			return strtoll(l + kl + 1, NULL, 10);
	return -1;
}

static long long status_field(pid_t pid, const char *key)
{
	return proc_field(pid, "status", key);
}

/* Field 19 of /proc/PID/stat: the nice value. */
static int nice_of(pid_t pid, long long *nice)
{
	char path[64], buf[1024];
	char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (proc_read_text(path, buf, sizeof(buf)) < 0 || (p = strrchr(buf, ')')) == NULL)
		return -1;
	for (int field = 2; field < 19; field++)
		if ((p = strchr(p + 1, ' ')) == NULL)
			return -1;
	*nice = strtoll(p + 1, NULL, 10);
	return 0;
}

/* /proc/PID/limits rows, "Max cpu time   1   2   seconds", by the names
 * the flags use; values "SOFT:HARD" ("unlimited" spelled out). */
static json_t *rlimits_of(pid_t pid)
{
	static const struct {
		const char *row, *key;
	} rows[] = {{"Max cpu time", "cpu_time"},	{"Max data size", "data"},
		    {"Max locked memory", "memlock"},	{"Max open files", "nofile"},
		    {"Max processes", "nproc"},		{"Max nice priority", "nice"},
		    {"Max realtime priority", "rtprio"}};
	char path[64], buf[4096];
	json_t *j;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if (proc_read_text(path, buf, sizeof(buf)) < 0 || (j = json_object()) == NULL)
		return NULL;
	for (char *l = buf; l != NULL; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			size_t rl = strlen(rows[i].row);
			char soft[32], hard[32], value[72];

			if (strncmp(l, rows[i].row, rl) != 0 || l[rl] != ' ')
				continue;
			/* The row name is padded to 26 columns. */
			if (strlen(l) < 26 || sscanf(l + 26, "%31s %31s", soft, hard) != 2)
				continue;
			snprintf(value, sizeof(value), "%s:%s", soft, hard);
			json_object_set_new(j, rows[i].key, json_string(value));
		}
	}
	return j;
}

static const char *seccomp_mode(long long m)
{
	return m == 2 ? "filter" : m == 1 ? "strict" : m == 0 ? "disabled" : "unknown";
}

/* What one process of the jail holds. */
static json_t *process_of(pid_t pid)
{
	uint64_t bounding = 0, effective = 0;
	cleanup_free char *bnd = NULL, *eff = NULL;
	long long nice = 0;
	json_t *j = json_pack("{s:I}", "pid", (json_int_t)pid);

	if (j == NULL)
		return NULL;
	if (caps_of_pid(pid, &bounding, &effective) == 0) {
		bnd = caps_to_text(bounding);
		eff = caps_to_text(effective);
		json_object_set_new(j, "caps_bounding", json_string(bnd ? bnd : ""));
		json_object_set_new(j, "caps_effective", json_string(eff ? eff : ""));
	}
	json_object_set_new(j, "no_new_privs", json_boolean(status_field(pid, "NoNewPrivs") == 1));
	json_object_set_new(j, "seccomp", json_string(seccomp_mode(status_field(pid, "Seccomp"))));
	if (nice_of(pid, &nice) == 0)
		json_object_set_new(j, "nice", json_integer((json_int_t)nice));
	json_object_set_new(j, "rlimits", rlimits_of(pid));
	return j;
}

/* What the jail has no cgroup to count, counted in /proc over the
 * processes whose pid namespace is PIDNS: *TASKS their threads, *MEMORY
 * the sum of their Pss in bytes (a shared page split between those that
 * map it, so nothing is counted twice).  Either may be NULL. */
static void count_in_proc(unsigned long long pidns, long long *tasks, long long *memory)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (d == NULL)
		return;
	if (tasks != NULL)
		*tasks = 0;
	if (memory != NULL)
		*memory = 0;
	while ((de = readdir(d)) != NULL) {
		unsigned long long ino;
		pid_t pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = (pid_t)atoi(de->d_name);
		if (ns_inode(pid, "pid", &ino) < 0 || ino != pidns)
			continue;
		if (tasks != NULL) {
			long long threads = status_field(pid, "Threads");
			*tasks += threads > 0 ? threads : 1;
		}
		if (memory != NULL) {
			long long kb = proc_field(pid, "smaps_rollup", "Pss");
			*memory += kb > 0 ? kb * 1024 : 0;
		}
	}
	closedir(d);
}

static json_t *usage_of(const json_t *state, pid_t pid)
{
	struct cgroup cg;
	struct cgroup_usage u;
	struct cell_err ignored;
	unsigned long long pidns;
	json_t *j = json_object();

	if (j == NULL)
		return NULL;
	if (cgroup_from_json(&cg, json_object_get(state, "cgroup"), &ignored) < 0)
		cgroup_init(&cg);
	cgroup_usage(&cg, &u);
	cgroup_release(&cg);
	if ((u.tasks < 0 || u.memory < 0) && ns_inode(pid, "pid", &pidns) == 0)
		count_in_proc(pidns, u.tasks < 0 ? &u.tasks : NULL,
			      u.memory < 0 ? &u.memory : NULL);
	const struct {
		const char *key;
		long long v;
	} vals[] = {{"tasks", u.tasks},
		    {"memory", u.memory},
		    {"memory_peak", u.memory_peak},
		    {"cpu_usec", u.cpu_usec}};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (vals[i].v >= 0)
			json_object_set_new(j, vals[i].key, json_integer((json_int_t)vals[i].v));
	return j;
}

/* The flags of the jail's root mount: read from its pid 1's mountinfo
 * (the kernel's text, bounded) when it runs, the last mount on "/" (the
 * top one); else as the launch sets them (rootfs.c): nodev always,
 * nosuid for the embedded root only. */
struct root_flags {
	bool nodev, nosuid;
};

static void root_flags_of(pid_t pid, bool own_root, struct root_flags *f)
{
	cleanup_free char *text = NULL;
	struct cell_err ignored;
	char path[64];
	size_t len;

	f->nodev = true;
	f->nosuid = !own_root;
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", (int)pid);
	if (pid <= 0 || untrusted_read(AT_FDCWD, path, 0, 4U << 20, &text, &len, &ignored) < 0)
		return;
	for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
		char *mnt, *opts, *save = NULL, *osave = NULL;

		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS ... */
		if (strtok_r(line, " ", &save) == NULL || strtok_r(NULL, " ", &save) == NULL ||
		    strtok_r(NULL, " ", &save) == NULL || strtok_r(NULL, " ", &save) == NULL ||
		    (mnt = strtok_r(NULL, " ", &save)) == NULL ||
		    (opts = strtok_r(NULL, " ", &save)) == NULL || strcmp(mnt, "/") != 0)
			continue;
		f->nodev = f->nosuid = false;
		for (char *o = strtok_r(opts, ",", &osave); o != NULL;
		     o = strtok_r(NULL, ",", &osave)) {
			f->nodev = f->nodev || strcmp(o, "nodev") == 0;
			f->nosuid = f->nosuid || strcmp(o, "nosuid") == 0;
		}
	}
}

/* A rule's mechanisms as they hold for this jail: what its root mount
 * says (a --rootfs root is not nosuid; inspect once claimed flags the
 * root did not have). */
static void rule_text(const struct policy_rule *r, const struct root_flags *f, char *buf,
		      size_t size)
{
	static const struct {
		const char *key, *phrase, *without;
	} mount_claims[] = {
		{"mknod", "root mounted nodev", "root mounted without nodev"},
		{"privileges", "embedded root mounted nosuid",
		 "the root (the jail's own, path) not mounted nosuid"},
	};
	const char *at;

	snprintf(buf, size, "%s", r->mechanisms);
	for (size_t i = 0; i < sizeof(mount_claims) / sizeof(mount_claims[0]); i++) {
		bool holds = strcmp(mount_claims[i].key, "mknod") == 0 ? f->nodev : f->nosuid;

		if (strcmp(r->key, mount_claims[i].key) != 0 ||
		    (at = strstr(r->mechanisms, mount_claims[i].phrase)) == NULL)
			continue;
		snprintf(buf, size, "%.*s%s%s", (int)(at - r->mechanisms), r->mechanisms,
			 holds ? (i == 0 ? "root mounted nodev" : "root mounted nosuid")
			       : mount_claims[i].without,
			 at + strlen(mount_claims[i].phrase));
	}
}

/* Each rule of the policy: "enforced: <mechanisms>" when the jail's
 * mechanisms hold it (the record's parameters through policy_defaults(),
 * as the jail was started, and its root's mount flags as they are),
 * "allowed" (relaxed by its --allow) or "off". */
static json_t *policy_of(const json_t *state, pid_t pid)
{
	bool scopes = landlock_can_scope();
	bool own_root = json_is_string(json_object_get(state, "path"));
	struct jail_spec s;
	struct cell_err ignored;
	json_t *j = json_object();
	struct root_flags flags;
	char mech[512];

	root_flags_of(pid, own_root, &flags);
	spec_init(&s);
	if (record_spec(state, &s, &ignored) < 0 || policy_defaults(&s, &ignored) < 0) {
		spec_free(&s);
		json_decref(j);
		return json_null();
	}
	for (size_t i = 0; j != NULL && i < policy_nrules; i++) {
		const struct policy_rule *r = &policy_rules[i];
		const char *st = policy_rule_state(r, &s);
		char text[sizeof(mech) + 64];

		rule_text(r, &flags, mech, sizeof(mech));

		if (own_root && strcmp(r->key, "host_secrets") == 0 && s.policy)
			snprintf(text, sizeof(text),
				 "not applicable: the jail's own root (path) holds no host files");
		else if (strcmp(st, "allowed") == 0)
			snprintf(text, sizeof(text), "allowed%s%s", r->relaxed != NULL ? ": " : "",
				 r->relaxed != NULL ? r->relaxed : "");
		else if (strcmp(st, "enforced") == 0)
			snprintf(text, sizeof(text), "enforced: %s%s", mech,
				 !scopes && r->landlock != 0
					 ? " (no Landlock scopes in this kernel)"
					 : "");
		else
			snprintf(text, sizeof(text), "%s", st);
		json_object_set_new(j, r->key, json_string(text));
	}
	spec_free(&s);
	return j;
}

/* The jail record, checked: a record whose process is gone is shown
 * as stopped. */
static int describe(const json_t *state, pid_t who, json_t **out, struct cell_err *e)
{
	json_int_t rec = 0, start = 0;
	pid_t pid = 0;
	json_t *j;
	bool running;

	if (json_unpack((json_t *)state, "{s:I, s:I}", "pid", &rec, "start_time", &start) < 0)
		return cell_err_set(e, EINVAL, "malformed state record");
	running = jail_record_running(state, &pid);
	j = json_deep_copy(state);
	if (j == NULL)
		return cell_err_set(e, ENOMEM, "inspect");
	json_object_del(j, "start_time");
	/* Where its cgroup is, or that a rootless jail has none. */
	json_object_set_new(j, "cgroup",
			    cgroup_inspect(json_object_get(state, "cgroup"),
					   json_object_get(state, "rootless") != NULL));
	json_object_set_new(j, "state", json_string(running ? "running" : "stopped"));
	/* The exit status of a stopped jail, when it is known (--init
	 * records it; cell stop's SIGKILL too). */
	if (running || json_object_get(j, "exit") == NULL)
		json_object_set_new(j, "exit", json_null());
	if (!running)
		json_object_set_new(j, "pid", json_null());
	if (running) {
		json_object_set_new(j, "namespaces", namespaces_of((pid_t)pid));
		json_object_set_new(j, "idmap", idmap_of((pid_t)pid));
		json_object_set_new(j, "usage", usage_of(state, (pid_t)pid));
		json_object_set_new(j, "process", process_of(who > 0 ? who : (pid_t)pid));
	}
	/* "policy" is the parameter (on or off); its rules go beside it. */
	json_object_set_new(j, "rules", policy_of(state, running ? (pid_t)pid : 0));
	/* Its network: the mode, the bridge and interfaces, addresses,
	 * published ports, and while it runs cell-net's counters. */
	json_object_set_new(j, "network", net_inspect(state, running ? pid : 0));
	*out = j;
	return 0;
}

/* The record of jail NAME with what its reaper's files say beside it:
 * the last exit status, the count of restarts (null without a reaper). */
static void add_reaper_files(int rootfd, const char *name, json_t *st)
{
	cleanup_close int dirfd =
		openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int status = dirfd >= 0 ? jail_read_exit(dirfd) : -1;
	int restarts = dirfd >= 0 ? jail_read_restarts(dirfd) : -1;

	if (status >= 0)
		json_object_set_new(st, "exit", json_integer(status));
	json_object_set_new(st, "restarts", restarts >= 0 ? json_integer(restarts) : json_null());
}

int jail_inspect(const char *state_root, const char *name, json_t **out, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	json_t *st;
	int ret;

	*out = NULL;
	if (store_open_root_existing(state_root, &rootfd, e) < 0)
		return -1;
	st = rootfd >= 0 ? store_jail_peek(rootfd, name) : NULL;
	if (st == NULL)
		return cell_err_set(e, 0, "%s: no such jail", name);
	record_upgrade(st);
	add_reaper_files(rootfd, name, st);
	ret = describe(st, 0, out, e);
	json_decref(st);
	return ret;
}

int jail_inspect_pid(const char *state_root, pid_t pid, json_t **out, struct cell_err *e)
{
	cleanup_close int rootfd = -1;
	unsigned long long want, ino;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	*out = NULL;
	if (pid <= 0)
		return cell_err_set(e, 0, "pid %d: expected a pid >= 1", (int)pid);
	if (store_open_root_existing(state_root, &rootfd, e) < 0)
		return -1;
	if (ns_inode(pid, "pid", &want) < 0)
		return errno == ENOENT
			       ? cell_err_set(e, 0, "pid %d: no such process", (int)pid)
			       : cell_err_set(e, errno, "pid %d: its pid namespace", (int)pid);
	if (rootfd < 0)
		return 0;
	d = fdopendir(dup(rootfd));
	if (d == NULL)
		return cell_err_set(e, errno, "state root %s", state_root);
	while (*out == NULL && ret == 0 && (de = readdir(d)) != NULL) {
		json_t *st = store_jail_peek(rootfd, de->d_name);
		pid_t jpid = 0;

		if (st == NULL)
			continue;
		record_upgrade(st);
		/* A jail is its pid namespace: PID is in it when it sees the
		 * same one as the jail's first process. */
		if (jail_record_running(st, &jpid) && ns_inode(jpid, "pid", &ino) == 0 &&
		    ino == want) {
			add_reaper_files(rootfd, de->d_name, st);
			ret = describe(st, pid, out, e);
		}
		json_decref(st);
	}
	closedir(d);
	return ret;
}
