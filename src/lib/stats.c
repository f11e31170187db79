/*
 * stats.c - a jail's processes and its use of CPU, memory and tasks
 * (stats.h), read from the host's /proc and the jail's cgroups.
 */
#include "stats.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "jail.h"
#include "proc.h"
#include "record.h"
#include "store.h"

#define CMDLINE_MAX 4096 /* bytes of a command line shown */

/* The inode of PID's pid namespace (stat follows the nsfs link). */
static int pidns_of(const char *pid, unsigned long long *ino)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%s/ns/pid", pid);
	if (stat(path, &st) < 0)
		return -1;
	*ino = (unsigned long long)st.st_ino;
	return 0;
}

/* The fields of /proc/PID/stat after the command's closing parenthesis
 * (a command may hold spaces and parentheses): field 3 (state) is [0]. */
struct pstat {
	char state;
	unsigned long long utime, stime, cutime, cstime; /* ticks */
	long long threads;
};

static int read_pstat(const char *pid, struct pstat *ps)
{
	char path[300], buf[1024], *p;
	unsigned long long v[18];

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (proc_read_text(path, buf, sizeof(buf)) < 0 || (p = strrchr(buf, ')')) == NULL ||
	    p[1] != ' ')
		return -1;
	ps->state = p[2];
	p += 3;
	for (size_t i = 1; i < sizeof(v) / sizeof(v[0]); i++) {
		char *end;

		v[i] = strtoull(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	ps->utime = v[11];
	ps->stime = v[12];
	ps->cutime = v[13];
	ps->cstime = v[14];
	ps->threads = (long long)v[17];
	return 0;
}

static long long ticks_to_ms(unsigned long long ticks)
{
	static long hz;

	if (hz <= 0)
		hz = sysconf(_SC_CLK_TCK);
	return hz > 0 ? (long long)(ticks * 1000ULL / (unsigned long long)hz) : 0;
}

/* A field of /proc/PID/FILE ("Pss:", "NSpid:"): the text after it. */
static const char *field_after(const char *text, const char *key)
{
	size_t len = strlen(key);

	for (const char *p = text; p != NULL && *p != '\0'; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, len) == 0)
			return p + len;
	return NULL;
}

/* --- cell ps ----------------------------------------------------- */

/* The command line as an array (arguments split at NUL); a kernel
 * thread's or a zombie's, empty, as [comm]. */
static json_t *argv_of(const char *pid)
{
	char path[300], buf[CMDLINE_MAX + 1];
	cleanup_close int fd = -1;
	json_t *a = json_array();
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, CMDLINE_MAX) : -1;
	if (a == NULL)
		return NULL;
	if (n > 0) {
		buf[n] = '\0';
		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
			json_array_append_new(a, json_stringn_nocheck(buf + i, strlen(buf + i)));
		return a;
	}
	snprintf(path, sizeof(path), "/proc/%s/comm", pid);
	if (proc_read_text(path, buf, sizeof(buf) - 2) == 0) {
		char name[CMDLINE_MAX + 4];

		buf[strcspn(buf, "\n")] = '\0';
		snprintf(name, sizeof(name), "[%s]", buf);
		json_array_append_new(a, json_stringn_nocheck(name, strlen(name)));
	}
	return a;
}

/* One process of the jail, from its status and stat files. */
static int read_proc(const char *pid, struct jail_proc *p)
{
	char path[300], buf[4096];
	const char *v;
	struct pstat ps;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	if (proc_read_text(path, buf, sizeof(buf)) < 0 || read_pstat(pid, &ps) < 0)
		return -1;
	p->host_pid = (pid_t)atoi(pid);
	p->pid = p->host_pid;
	/* NSpid: its pid in each namespace from the host's down; the last
	 * is the jail's. */
	v = field_after(buf, "NSpid:");
	while (v != NULL && *v != '\0' && *v != '\n') {
		char *end;
		long n = strtol(v, &end, 10);

		if (end == v)
			break;
		p->pid = (pid_t)n;
		v = end;
	}
	v = field_after(buf, "Uid:");
	p->uid = v != NULL ? (uid_t)strtoul(v, NULL, 10) : (uid_t)-1;
	p->state = ps.state;
	p->cpu_ms = (unsigned long long)ticks_to_ms(ps.utime + ps.stime);
	p->argv = argv_of(pid);
	/* cell's reaper: its arguments are its own plumbing (descriptors,
	 * the payload's path), not a command anyone typed. */
	if (p->argv != NULL && p->pid == 1 && json_array_size(p->argv) > 1 &&
	    strcmp(json_string_value(json_array_get(p->argv, 0)), "cell-init") == 0) {
		while (json_array_size(p->argv) > 1)
			json_array_remove(p->argv, 1);
	}
	return p->argv != NULL ? 0 : -1;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct jail_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* The pid namespace of NAME's pid 1, checked against a pidfd of it: a
 * pid reused since the record was written is never taken for it. */
static int jail_pidns(int rootfd, const char *name, unsigned long long *ino, pid_t *pid1,
		      struct cell_err *e)
{
	json_t *st = store_jail_peek(rootfd, name);
	cleanup_close int pidfd = -1;
	struct pollfd p;
	char pid[16];

	if (st == NULL) {
		cell_err_set(e, 0, "jail %s: no such jail", name);
		e->errnum = ENOENT;
		return -1;
	}
	pidfd = jail_record_pidfd(st);
	jail_record_running(st, pid1);
	json_decref(st);
	if (pidfd < 0)
		return cell_err_set(e, 0, "jail %s: is not running", name);
	snprintf(pid, sizeof(pid), "%d", (int)*pid1);
	p = (struct pollfd){.fd = pidfd, .events = POLLIN};
	if (pidns_of(pid, ino) < 0 || poll(&p, 1, 0) != 0)
		return cell_err_set(e, 0, "jail %s: is not running", name);
	return 0;
}

int jail_ps(int rootfd, const char *name, struct jail_proc **procs, size_t *n, struct cell_err *e)
{
	unsigned long long ns = 0, ino;
	struct jail_proc *v = NULL;
	size_t len = 0, cap = 0;
	struct dirent *de;
	pid_t pid1;
	DIR *d;

	*procs = NULL;
	*n = 0;
	if (jail_pidns(rootfd, name, &ns, &pid1, e) < 0)
		return -1;
	d = opendir("/proc");
	if (d == NULL)
		return cell_err_set(e, errno, "jail %s: read /proc", name);
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]) || pidns_of(de->d_name, &ino) < 0 ||
		    ino != ns)
			continue;
		if (len == cap) {
			struct jail_proc *nv = realloc(v, (cap = cap * 2 + 16) * sizeof(*v));

			if (nv == NULL) {
				closedir(d);
				jail_procs_free(v, len);
				return cell_err_set(e, ENOMEM, "jail %s: ps", name);
			}
			v = nv;
		}
		/* Gone since the listing: not one of them any more. */
		if (read_proc(de->d_name, &v[len]) == 0)
			len++;
	}
	closedir(d);
	if (len > 0)
		qsort(v, len, sizeof(*v), cmp_proc);
	*procs = v;
	*n = len;
	return 0;
}

void jail_procs_free(struct jail_proc *procs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(procs[i].argv);
	free(procs);
}

/* --- cell stats -------------------------------------------------- */

static long long record_int(const json_t *rec, const char *key)
{
	const json_t *v = json_object_get(rec, key);

	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* Adds the running jail of record ST to the samples; false when it does
 * not run. */
static bool add_jail(json_t *st, const char *name, struct jail_sample *s)
{
	char pid[16];

	memset(s, 0, sizeof(*s));
	if (!jail_record_running(st, &s->pid))
		return false;
	snprintf(pid, sizeof(pid), "%d", (int)s->pid);
	if (pidns_of(pid, &s->pidns) < 0)
		return false;
	s->name = strdup(name);
	s->memory_limit = record_int(st, "memory");
	s->tasks_limit = record_int(st, "nrtask");
	s->cgroup = json_incref(json_object_get(st, "cgroup"));
	return s->name != NULL;
}

int jail_stats_open(int rootfd, char **names, size_t n, struct jail_sample **out, size_t *nout,
		    struct cell_err *e)
{
	char **all = NULL;
	size_t nall = 0, len = 0;
	struct jail_sample *v;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	if (n == 0 && store_list(rootfd, &all, &nall, e) < 0)
		return -1;
	if (n == 0) {
		names = all;
		n = nall;
	}
	v = calloc(n + 1, sizeof(*v));
	if (v == NULL) {
		store_names_free(all, nall);
		return cell_err_set(e, ENOMEM, "stats");
	}
	for (size_t i = 0; i < n; i++) {
		json_t *st = store_jail_peek(rootfd, names[i]);
		bool running = st != NULL && add_jail(st, names[i], &v[len]);

		json_decref(st);
		if (running) {
			len++;
		} else if (all == NULL) {
			/* Named by the caller: it must run. */
			cell_err_set(e, 0, "jail %s: %s", names[i],
				     st == NULL ? "no such jail" : "is not running");
			ret = -1;
			break;
		}
	}
	store_names_free(all, nall);
	if (ret < 0) {
		jail_stats_free(v, len);
		return -1;
	}
	*out = v;
	*nout = len;
	return 0;
}

static int cmp_ns(const void *a, const void *b)
{
	const struct jail_sample *const *x = a, *const *y = b;

	return ((*x)->pidns > (*y)->pidns) - ((*x)->pidns < (*y)->pidns);
}

/* The Pss of a process, in bytes (0 when it cannot be read). */
static long long pss_of(const char *pid)
{
	char path[300], buf[2048];
	const char *v;

	snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", pid);
	if (proc_read_text(path, buf, sizeof(buf)) < 0 || (v = field_after(buf, "Pss:")) == NULL)
		return 0;
	return strtoll(v, NULL, 10) * 1024;
}

/* What the scan of /proc adds up for one jail. */
struct scan_sum {
	long long cpu_ms, tasks, pss;
};

/* One pass over /proc: each process of a jail of BY_NS (sorted by pid
 * namespace) adds its CPU time, its threads and, for a jail whose
 * memory is wanted and not known from a cgroup (MEMORY), its Pss. */
static void scan_proc(struct jail_sample **by_ns, size_t n, struct scan_sum *sum, bool memory)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		struct jail_sample key, *kp = &key, **hit;
		struct scan_sum *to;
		struct pstat ps;

		if (!isdigit((unsigned char)de->d_name[0]) || pidns_of(de->d_name, &key.pidns) < 0)
			continue;
		hit = bsearch(&kp, by_ns, n, sizeof(*by_ns), cmp_ns);
		if (hit == NULL || read_pstat(de->d_name, &ps) < 0)
			continue;
		to = &sum[hit - by_ns];
		/* Its reaped children's too: a jail's time does not drop
		 * when a busy process ends (its parent holds it now). */
		to->cpu_ms += ticks_to_ms(ps.utime + ps.stime + ps.cutime + ps.cstime);
		to->tasks += ps.threads > 0 ? ps.threads : 1;
		if (memory && (*hit)->memory < 0)
			to->pss += pss_of(de->d_name);
	}
	closedir(d);
}

void jail_stats_sample(struct jail_sample *s, size_t n, bool memory)
{
	struct jail_sample **by_ns = calloc(n + 1, sizeof(*by_ns));
	struct scan_sum *sum = calloc(n + 1, sizeof(*sum));

	if (by_ns == NULL || sum == NULL)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct cgroup cg;
		struct cgroup_usage u;
		struct cell_err ignored;

		if (cgroup_from_json(&cg, s[i].cgroup, &ignored) < 0)
			cgroup_init(&cg);
		cgroup_usage(&cg, &u);
		cgroup_release(&cg);
		s[i].cpu_usec = u.cpu_usec;
		s[i].tasks = u.tasks;
		s[i].memory = memory ? u.memory : -1;
		by_ns[i] = &s[i];
	}
	qsort(by_ns, n, sizeof(*by_ns), cmp_ns);
	scan_proc(by_ns, n, sum, memory);
	/* What the cgroups did not say, from /proc. */
	for (size_t i = 0; i < n; i++) {
		struct jail_sample *j = by_ns[i];

		if (j->cpu_usec < 0)
			j->cpu_usec = sum[i].cpu_ms * 1000;
		if (j->tasks < 0)
			j->tasks = sum[i].tasks;
		if (memory && j->memory < 0)
			j->memory = sum[i].pss;
	}
out:
	free(by_ns);
	free(sum);
}

void jail_stats_free(struct jail_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].name);
		json_decref(s[i].cgroup);
	}
	free(s);
}
