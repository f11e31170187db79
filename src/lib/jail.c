/*
 * jail.c - named jails in the state store: open, list, stop, remove.
 * See jail.h for the model (no daemon; the record and the kernel only).
 */
#include "jail.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "cleanup.h"
#include "idrange.h"
#include "net.h"
#include "testpoint.h"
#include "proc.h"
#include "record.h"
#include "rootless.h"

#define STOP_KILL_WAIT_MS 10000 /* after SIGKILL: the kernel is quick */

static int pidfd_open_checked(pid_t pid, unsigned long long start)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	/* Checked again once the pidfd pins the process: a pid recycled
	 * between the first look and the open is never taken for the jail. */
	if (fd >= 0 && !proc_alive(pid, start)) {
		close(fd);
		return -1;
	}
	return fd;
}

int jail_read_exit(int dirfd)
{
	char buf[16];

	if (proc_read_text_at(dirfd, "exit", buf, sizeof(buf)) < 0 || buf[0] == '\0')
		return -1;
	return atoi(buf);
}

int jail_read_restarts(int dirfd)
{
	char buf[24];

	if (proc_read_text_at(dirfd, "restarts", buf, sizeof(buf)) < 0)
		return -1;
	return atoi(buf); /* empty: none yet */
}

/* "restarts": how often the reaper started the payload again, when the
 * jail's directory DIRFD says (a reaper's jail); else null. */
static void put_restarts(json_t *rec, int dirfd)
{
	int n = dirfd >= 0 ? jail_read_restarts(dirfd) : -1;

	json_object_set_new(rec, "restarts", n >= 0 ? json_integer(n) : json_null());
}

/* The record's "state": "creating", "created" (an OCI create's process
 * waits for start), "running" or "stopped". */
static bool has_phase(const json_t *st, const char *phase)
{
	const char *p = json_string_value(json_object_get(st, "state"));

	return p != NULL && strcmp(p, phase) == 0;
}

/* What the record says about its pid 1.  A record still "creating" names
 * its creator, whose lock we could take only if it died. */
static bool record_running(const json_t *st, pid_t *pid, unsigned long long *start)
{
	json_int_t p = 0, t = 0;

	if (st == NULL || json_unpack((json_t *)st, "{s:I, s:I}", "pid", &p, "start_time", &t) < 0)
		return false;
	*pid = (pid_t)p;
	*start = (unsigned long long)t;
	if (has_phase(st, "stopped"))
		return false;
	if (!proc_alive(*pid, *start))
		return false;
	/* A record still being made names its creator, a process of the
	 * host; any other names a jail's pid 1, which has a pid namespace
	 * of its own: one that shares ours is some other process that took
	 * the pid (in the same clock tick, or a forged record), never to be
	 * signalled or joined. */
	return has_phase(st, "creating") || json_is_true(json_object_get(st, "host_pidns")) ||
	       !proc_in_own_pidns(*pid);
}

static bool record_autoremove(const json_t *st)
{
	/* A directory without a record is a crashed creator's: it goes. */
	return st == NULL || json_is_true(json_object_get(st, "autoremove"));
}

/* Removes the cgroups a record names (a dead jail's: empty). */
static int release_cgroups(const json_t *state, struct cell_err *e)
{
	struct cgroup cg;

	if (state == NULL || cgroup_from_json(&cg, json_object_get(state, "cgroup"), e) < 0)
		return 0; /* none recorded, or a record we cannot read */
	return cgroup_destroy(&cg, e);
}

/* Gives back the range of host ids the record names (idrange.h): kept
 * while the jail is, running or stopped, so that no other jail's files
 * could ever carry its ids while it may start again. */
static void release_ids(const json_t *state, int dirfd)
{
	const json_t *map = json_object_get(state, "idmap");
	struct idrange r;

	/* No record (a start killed before it wrote one, which may have
	 * taken a range already): the held ranges say whose they are. */
	if (map == NULL) {
		idrange_release_owner(dirfd);
		return;
	}
	idrange_from_json(map, &r);
	idrange_release(&r, dirfd);
}

int jail_release(int rootfd, struct jail *j, bool remove, struct cell_err *e)
{
	json_t *rec;
	bool net_was = net_record_active(j->state);

	if (release_cgroups(j->state, e) < 0)
		return cell_err_prefix(e, "jail %s", j->dir.name);
	testpoint_pause("release:cgroups");
	/* Its network's rules, veth and (its last jail gone) bridge, which
	 * outlive the jail's namespace; idempotent, so a record a killed
	 * cell left (even "creating") is torn down again safely. */
	if (net_release(j->state, e) < 0)
		return cell_err_prefix(e, "jail %s", j->dir.name);
	testpoint_pause("release:net");
	if (remove || record_autoremove(j->state)) {
		release_ids(j->state, j->dir.dirfd);
		return store_jail_remove(rootfd, &j->dir, e);
	}
	rec = j->state;
	if (has_phase(rec, "stopped") && json_is_null(json_object_get(rec, "cgroup")) && !net_was)
		return 0; /* nothing changed since it was last marked */
	json_object_set_new(rec, "state", json_string("stopped"));
	json_object_set_new(rec, "cgroup", json_null());
	if (json_object_get(rec, "stopped") == NULL)
		json_object_set_new(rec, "stopped", record_time(time(NULL)));
	if (j->exit_status >= 0)
		json_object_set_new(rec, "exit", json_integer(j->exit_status));
	return store_jail_write(&j->dir, rec, e);
}

bool jail_record_running(const json_t *state, pid_t *pid)
{
	unsigned long long start;
	pid_t p = 0;
	bool running = record_running(state, &p, &start) && !has_phase(state, "creating");

	if (pid != NULL)
		*pid = running ? p : 0;
	return running;
}

int jail_record_pidfd(const json_t *state)
{
	unsigned long long start;
	pid_t pid;

	if (!record_running(state, &pid, &start) || has_phase(state, "creating"))
		return -1;
	return pidfd_open_checked(pid, start);
}

/* Fills J from its locked directory. */
static int jail_load(int rootfd, struct jail *j, struct cell_err *e)
{
	pid_t pid = 0;

	j->state = store_jail_read(&j->dir);
	record_upgrade(j->state);
	/* Under our lock a record still "creating" is a creator's that
	 * died: it held the lock until the record named the jail. */
	j->pidfd = jail_record_pidfd(j->state);
	j->running = j->pidfd >= 0;
	j->pid = j->running && jail_record_running(j->state, &pid) ? pid : 0;
	j->exit_status = jail_read_exit(j->dir.dirfd);
	if (j->exit_status < 0 && j->state != NULL &&
	    json_is_integer(json_object_get(j->state, "exit")))
		j->exit_status = (int)json_integer_value(json_object_get(j->state, "exit"));
	if (j->running)
		return 0;
	j->autoremove = record_autoremove(j->state);
	if (j->autoremove)
		return 0; /* the caller removes it */
	return jail_release(rootfd, j, false, e);
}

/* "jail NAME: no such jail", with errno ENOENT for the callers. */
static int no_such_jail(struct cell_err *e, const char *name)
{
	cell_err_set(e, 0, "jail %s: no such jail", name);
	e->errnum = ENOENT;
	return -1;
}

int jail_open(int rootfd, const char *name, struct jail *j, struct cell_err *e)
{
	memset(j, 0, sizeof(*j));
	j->pidfd = -1;
	j->exit_status = -1;
	j->dir.dirfd = -1;
	if (store_jail_open(rootfd, name, &j->dir, e) < 0) {
		if (e->errnum == ENOENT)
			no_such_jail(e, name);
		return -1;
	}
	if (jail_load(rootfd, j, e) < 0) {
		jail_close(j);
		return -1;
	}
	return 0;
}

int jail_open_existing(int rootfd, const char *name, struct jail *j, struct cell_err *e)
{
	struct cell_err ignored;

	if (jail_open(rootfd, name, j, e) < 0)
		return -1;
	if (!j->running && j->autoremove) {
		jail_release(rootfd, j, true, &ignored);
		jail_close(j);
		return no_such_jail(e, name);
	}
	return 0;
}

void jail_close(struct jail *j)
{
	if (j->pidfd >= 0)
		close(j->pidfd);
	j->pidfd = -1;
	json_decref(j->state);
	j->state = NULL;
	store_jail_close(&j->dir);
}

int jail_reap_cb(int rootfd, int dirfd, const char *name, void *ctx)
{
	struct jail j = {.pidfd = -1, .exit_status = -1, .dir = {.dirfd = dirfd, .locked = true}};
	struct cell_err e;
	int ret = 0;

	j.dir.name = strdup(name);
	if (j.dir.name == NULL)
		return -1;
	/* Only its cgroups: the store removes the directory. */
	if (jail_load(rootfd, &j, &e) < 0 || j.running || !j.autoremove ||
	    release_cgroups(j.state, &e) < 0 || net_release(j.state, &e) < 0) {
		errno = EEXIST;
		ret = -1;
	} else {
		release_ids(j.state, dirfd);
	}
	if (j.pidfd >= 0)
		close(j.pidfd);
	json_decref(j.state);
	free(j.dir.name);
	return ret;
}

/* Waits up to MS milliseconds (-1: for ever) for the pidfd to say the
 * process has ended; true when it has. */
static bool wait_ended(int pidfd, int ms)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int left = ms, r;

		if (ms >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			left = ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					  (t.tv_nsec - t0.tv_nsec) / 1000000);
			if (left < 0)
				left = 0;
		}
		r = poll(&p, 1, left);
		if (r > 0)
			return true;
		if (r == 0)
			return false;
		if (errno != EINTR)
			return false;
	}
}

/*
 * SIGKILL to pid 1 ends its pid namespace: the kernel kills every other
 * process of the jail.  With cgroups the rest are killed through them
 * too.  v2 has cgroup.kill, one write for the whole tree.  v1 has none:
 * the jail is frozen first, so that no process escapes by forking while
 * its pids are listed and signalled, then thawed so that the kills are
 * delivered.  A freeze that fails or times out (a task asleep in the
 * kernel) does not stop the kill.
 */
static int kill_jail(const struct jail *j)
{
	struct cgroup cg;
	struct cell_err ignored;
	bool frozen;
	int ret = 0;

	if (cgroup_from_json(&cg, json_object_get(j->state, "cgroup"), &ignored) < 0)
		cgroup_init(&cg);
	frozen = cg.layout == CGROUP_V1 && cgroup_freeze(&cg, &ignored) == 0;
	testpoint_pause("stop:frozen");
	if (syscall(SYS_pidfd_send_signal, j->pidfd, SIGKILL, NULL, 0) < 0 && errno != ESRCH)
		ret = -errno;
	/* v1 signals pids it read: only in a frozen jail, where none can
	 * have ended and been reused. */
	if (ret == 0 && (cg.layout == CGROUP_V2 || frozen))
		cgroup_kill(&cg, &ignored);
	if (cg.layout == CGROUP_V1)
		cgroup_thaw(&cg, &ignored); /* also after a freeze half done */
	cgroup_release(&cg);
	errno = -ret;
	return ret < 0 ? -1 : 0;
}

int jail_stop(int rootfd, struct jail *j, int timeout, struct cell_err *e)
{
	testpoint_pause("stop:locked");
	if (!j->running)
		return 0;
	if (timeout > 0) {
		if (syscall(SYS_pidfd_send_signal, j->pidfd, SIGTERM, NULL, 0) < 0 &&
		    errno != ESRCH)
			return cell_err_set(e, errno, "jail %s: SIGTERM to pid %d", j->dir.name,
					    (int)j->pid);
		testpoint_pause("stop:signalled");
		if (wait_ended(j->pidfd, timeout > 86400 ? 86400000 : timeout * 1000))
			goto ended;
	}
	if (kill_jail(j) < 0)
		return cell_err_set(e, errno, "jail %s: SIGKILL to pid %d", j->dir.name,
				    (int)j->pid);
	testpoint_pause("stop:killed");
	if (!wait_ended(j->pidfd, STOP_KILL_WAIT_MS))
		return cell_err_set(e, ETIMEDOUT, "jail %s: pid %d did not end after SIGKILL",
				    j->dir.name, (int)j->pid);
	/* Its status, unless its --init reaper recorded one: it died of
	 * our SIGKILL. */
	j->exit_status = 128 + SIGKILL;
ended:
	j->running = false;
	close(j->pidfd);
	j->pidfd = -1;
	{
		int recorded = jail_read_exit(j->dir.dirfd);

		if (recorded >= 0)
			j->exit_status = recorded;
	}
	return jail_release(rootfd, j, false, e);
}

/* Milliseconds left until DEADLINE (CLOCK_MONOTONIC), 0 once past. */
static int ms_left(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000LL + (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (int)ms;
}

/* Until every running jail of JS has ended or DEADLINE has passed;
 * ENDED[i] says which have. */
static void wait_all_ended(const struct jail *js, size_t n, bool *ended,
			   const struct timespec *deadline)
{
	struct pollfd *p = calloc(n, sizeof(*p));

	if (p == NULL)
		return; /* each jail_stop() then waits on its own */
	for (;;) {
		size_t k = 0;
		int r;

		for (size_t i = 0; i < n; i++)
			p[i] = (struct pollfd){.fd = js[i].running && !ended[i] ? js[i].pidfd : -1,
					       .events = POLLIN};
		for (size_t i = 0; i < n; i++)
			k += p[i].fd >= 0;
		if (k == 0)
			break;
		r = poll(p, n, ms_left(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (size_t i = 0; i < n; i++)
			if (p[i].fd >= 0 && p[i].revents != 0)
				ended[i] = true;
	}
	free(p);
}

size_t jail_stop_all(int rootfd, struct jail *js, size_t n, int timeout, struct cell_err *errs)
{
	struct timespec deadline;
	size_t failed = 0;
	bool *ended;

	if (n == 1 || timeout <= 0) {
		for (size_t i = 0; i < n; i++)
			failed += jail_stop(rootfd, &js[i], timeout, &errs[i]) < 0;
		return failed;
	}
	ended = calloc(n, sizeof(*ended));
	if (ended == NULL) {
		for (size_t i = 0; i < n; i++)
			cell_err_set(&errs[i], ENOMEM, "jail %s: stop", js[i].dir.name);
		return n;
	}
	/*
	 * Every SIGTERM first, so that the jails end side by side: three
	 * jails take one timeout, not three.  A jail this SIGTERM cannot
	 * reach is killed after the wait.
	 */
	for (size_t i = 0; i < n; i++)
		if (js[i].running)
			syscall(SYS_pidfd_send_signal, js[i].pidfd, SIGTERM, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout > 86400 ? 86400 : timeout;
	wait_all_ended(js, n, ended, &deadline);
	/* Each one's end as jail_stop() makes it: released with its status
	 * (a second SIGTERM to an ended process does nothing; the pidfd is
	 * that process's), or killed now. */
	for (size_t i = 0; i < n; i++)
		failed += jail_stop(rootfd, &js[i], ended[i] ? 1 : 0, &errs[i]) < 0;
	free(ended);
	return failed;
}

int jail_remove(int rootfd, struct jail *j, bool force, struct cell_err *e)
{
	testpoint_pause("rm:locked");
	if (j->running && !force)
		return cell_err_set(e, EBUSY,
				    "jail %s: is running (cell stop it first, or cell rm -f)",
				    j->dir.name);
	if (j->running && jail_stop(rootfd, j, 0, e) < 0)
		return -1;
	return jail_release(rootfd, j, true, e);
}

/* ls's view of one jail, from its record, without its lock. */
static json_t *list_entry(int rootfd, const char *name, bool *dead)
{
	json_t *st = store_jail_peek(rootfd, name);
	unsigned long long start;
	cleanup_close int dirfd = -1;
	pid_t pid;
	int status;

	*dead = false;
	if (st == NULL)
		return NULL;
	record_upgrade(st);
	dirfd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	put_restarts(st, dirfd);
	if (record_running(st, &pid, &start)) {
		if (!has_phase(st, "creating") && !has_phase(st, "created"))
			json_object_set_new(st, "state", json_string("running"));
		json_object_set_new(st, "exit", json_null());
		return st;
	}
	*dead = !has_phase(st, "stopped") || record_autoremove(st);
	json_object_set_new(st, "state", json_string("stopped"));
	json_object_set_new(st, "cgroup", json_null());
	json_object_set_new(st, "pid", json_null());
	status = dirfd >= 0 ? jail_read_exit(dirfd) : -1;
	if (status >= 0)
		json_object_set_new(st, "exit", json_integer(status));
	else if (json_object_get(st, "exit") == NULL)
		json_object_set_new(st, "exit", json_null());
	return st;
}

/* A stopped jail seen by ls: released (or removed) now, unless another
 * command holds it. */
static bool tidy_stopped(int rootfd, const char *name)
{
	struct jail j = {.pidfd = -1, .exit_status = -1};
	struct cell_err e;
	bool removed = false;

	if (store_jail_trylock(rootfd, name, &j.dir) < 0)
		return false;
	if (jail_load(rootfd, &j, &e) == 0 && !j.running && j.autoremove)
		removed = jail_release(rootfd, &j, true, &e) == 0;
	jail_close(&j);
	return removed;
}

json_t *jail_list(int rootfd, bool all, struct cell_err *e)
{
	char **names;
	size_t n;
	json_t *list = json_array();

	if (list == NULL)
		return cell_err_set(e, ENOMEM, "list"), NULL;
	if (store_list(rootfd, &names, &n, e) < 0) {
		json_decref(list);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		bool dead;
		json_t *st = list_entry(rootfd, names[i], &dead);

		if (st == NULL) {
			/* Not a jail yet: being made (its creator holds the
			 * lock), or a crashed creator's leftover, which goes
			 * (store_list() named only cell's directories). */
			tidy_stopped(rootfd, names[i]);
			continue;
		}
		if (dead && record_autoremove(st) && tidy_stopped(rootfd, names[i])) {
			json_decref(st);
			continue;
		}
		if (dead && !record_autoremove(st))
			tidy_stopped(rootfd, names[i]);
		if (!all &&
		    strcmp(json_string_value(json_object_get(st, "state")), "stopped") == 0) {
			json_decref(st);
			continue;
		}
		if (record_autoremove(st) &&
		    strcmp(json_string_value(json_object_get(st, "state")), "stopped") == 0) {
			json_decref(st);
			continue; /* due to go: gone for every command */
		}
		json_array_append_new(list, st);
	}
	store_names_free(names, n);
	return list;
}

int jail_watch_remove(const char *state_root, const char *name, pid_t pid, int pidfd,
		      struct cell_err *e)
{
	pid_t mid = fork();
	int status;

	if (mid < 0)
		return cell_err_set(e, errno, "jail %s: --rm: fork", name);
	if (mid == 0) {
		/* Twice forked: the watcher is nobody's child but init's,
		 * and outlives this cell in a session of its own. */
		if (setsid() < 0 || fork() != 0)
			_exit(0);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		for (int i = 0; i <= 2 && null >= 0; i++)
			dup2(null, i);
		if (pidfd != 3 && dup2(pidfd, 3) < 0)
			_exit(1);
		syscall(SYS_close_range, 4U, ~0U, 0U);
		signal(SIGHUP, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		if (chdir("/") < 0 || !wait_ended(3, -1))
			_exit(1);
		struct cell_err err;
		struct jail j;
		int rootfd;

		/* Never made again here: gone with its jails, nothing to do. */
		if (store_open_root_existing(state_root, &rootfd, &err) < 0 || rootfd < 0)
			_exit(1);
		/* The name may have been removed and made again meanwhile:
		 * only the jail of the pid we watched goes. */
		if (jail_open(rootfd, name, &j, &err) == 0) {
			json_int_t rec = 0;

			if (!j.running && json_unpack(j.state, "{s:I}", "pid", &rec) == 0 &&
			    (pid_t)rec == pid)
				jail_release(rootfd, &j, true, &err);
			jail_close(&j);
		}
		_exit(0);
	}
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

int jail_join_userns(const char *state_root, const char *name, struct cell_err *e)
{
	cleanup_close int rootfd = -1, pidfd = -1;
	json_t *st;
	pid_t pid = 0;

	if (!rootless())
		return 0;
	if (store_open_root_existing(state_root, &rootfd, e) < 0)
		return -1;
	st = rootfd >= 0 ? store_jail_peek(rootfd, name) : NULL;
	if (st == NULL)
		return 0; /* no such jail: the command says so */
	record_upgrade(st);
	pidfd = jail_record_pidfd(st);
	if (pidfd >= 0)
		jail_record_running(st, &pid);
	json_decref(st);
	if (pidfd < 0 || pid <= 0)
		return 0; /* not running: the command says so */
	if (rootless_join(pid, e) < 0)
		return cell_err_prefix(e, "jail %s", name);
	/* The pidfd pins the process the record named: still alive, the
	 * namespace joined was its (a pid reused since would be another's,
	 * and the command then finds the jail's namespaces are not ours). */
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
		return cell_err_set(e, errno, "jail %s: join its user namespace", name);
	return 0;
}
