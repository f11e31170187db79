/*
 * exec.c - `cell exec`: a new process inside a running jail.
 *
 * Parent (cell)                 Joiner                     Process
 * -------------                 ------                     -------
 * lock the jail, pidfd of its
 *   pid 1; the jail's policy,
 *   from its record
 * clone3(CLONE_PIDFD)       ->  v1: into the jail's
 *                                 cgroups
 *                               rlimits, nice
 *                               setns(pidfd: mount, UTS,
 *                                 IPC, net, cgroup, user
 *                                 if it has one, and pid
 *                                 for its children), all
 *                                 at once
 *                               clone3(CLONE_PARENT,
 *                                 v2: CLONE_INTO_CGROUP) ->  born in every namespace
 * sync: the process's pidfd <-  sends its pidfd, exits      of the jail at once
 * reap the joiner                                            root of the jail's user
 *                                                              namespace, if it has one
 *                                                            pty of the jail's devpts,
 *                                                              sent back
 *                                                            the jail's policy (caps,
 *                                                              seccomp, Landlock,
 *                                                              no_new_privs)
 * EOF on the channel: unlock  <-                             user, workdir, fds, execve
 * relay the pty, forward signals, wait (pidfd)
 *
 * The pid namespace is joined last and only for a child: a process that
 * stood in the jail's /proc while still in the host's mount, network or
 * UTS namespace could be caught there by the jail (its mount table, its
 * sockets; a /proc/N/net opened then reads the host's network for good).
 * The process is the joiner's child in the jail's namespaces and cell's
 * by CLONE_PARENT, so cell waits for it through its pidfd.  It is no
 * freer than the jail's own processes.
 *
 * OCI exec (jail_exec_process()) takes the same path with a process given
 * entirely and the jail's mechanisms from its recorded config; detached,
 * cell returns at the end of file (the process clears its parent-death
 * signal just before its execve); with a console socket, the pty's master
 * the process sends goes there instead of being relayed.
 */
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

#include "cgroup.h"
#include "channel.h"
#include "init.h"
#include "jail.h"
#include "ns.h"
#include "policy.h"
#include "process.h"
#include "record.h"
#include "rlimit.h"
#include "store.h"
#include "testpoint.h"
#include "tty.h"

struct exec_child {
	const struct jail_spec *spec;
	bool detach; /* the process outlives cell */
	const struct policy *policy;
	const struct cgroup *cgroup;
	int cgroup_fd; /* v2: the jail's cgroup, for CLONE_INTO_CGROUP; else -1 */
	int jail_pidfd;
	int join_user; /* CLONE_NEWUSER if the jail has a user namespace of its own */
	int join_ns;   /* the other namespaces of the jail that are not cell's */
	int sock;
	sigset_t parent; /* the signal mask to restore before execve */
	mode_t umask;
};

/* The process in the jail: born in all its namespaces, its cgroups. */
static noreturn void exec_process(const struct exec_child *c)
{
	const struct jail_spec *s = c->spec;
	int master = -1, slave = -1;
	struct cell_err e;

	cell_err_clear(&e);
	/* Until its execve, this is cell's memory inside the jail: not for
	 * the jail's processes to ptrace or read (CVE-2016-9962).  Its
	 * parent is cell (CLONE_PARENT): it dies with cell. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		cell_err_set(&e, errno, "prctl");
		channel_fail(c->sock, &e);
	}
	if (!s->proc.terminal && setsid() < 0) {
		cell_err_set(&e, errno, "setsid");
		channel_fail(c->sock, &e);
	}
	close(c->jail_pidfd);
	/* In the jail's user namespace (joined by the joiner) it still has
	 * the host's ids, which a range does not map: the jail's root now.
	 * The credentials change clears the parent-death signal: again. */
	if (c->join_user != 0) {
		if (ns_become_root(&e) < 0)
			channel_fail(c->sock, &e);
		channel_rearm_deathsig(c->sock);
	}
	umask(022);
	if (s->proc.terminal) {
		struct child_msg m = {.type = MSG_PTY};
		char path[32];

		if (tty_open_pair(&master, &slave, path, sizeof(path), &e) < 0)
			channel_fail(c->sock, &e);
		tty_copy_winsize(STDIN_FILENO, master);
		if (tty_send_fd(c->sock, &m, sizeof(m), master) < 0) {
			cell_err_set(&e, errno, "send the pty to cell");
			channel_fail(c->sock, &e);
		}
		close(master);
	}
	if (policy_apply(s, c->policy, &e) < 0)
		channel_fail(c->sock, &e);
	struct process_finish f = {
		.spec = s,
		.policy = c->policy,
		.sock = c->sock,
		.tty_slave = slave,
		.rearm_deathsig = s->proc.has_user,
		.outlive_cell = c->detach,
		.umask = c->umask,
		.sigmask = c->parent,
		.created_fd = -1,
	};
	process_finish(&f);
}

/* The joiner: enters the jail's cgroups and namespaces, the pid
 * namespace for its children only, and forks the process there. */
static noreturn void exec_joiner(const struct exec_child *c)
{
	int ns = c->join_ns | c->join_user;
	struct child_msg m = {.type = MSG_PROCESS};
	struct cell_err e;
	int pidfd = -1;
	pid_t pid;

	cell_err_clear(&e);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		cell_err_set(&e, errno, "prctl");
		channel_fail(c->sock, &e);
	}
	/* v1: by path, from the host's mounts, before the jail's hide them;
	 * the fork inherits them.  v2: the clone below goes straight in. */
	if (c->cgroup->layout == CGROUP_V1 && cgroup_add_pid(c->cgroup, getpid(), &e) < 0)
		channel_fail(c->sock, &e);
	/* The jail's rlimits and nice value, inherited by the process, while
	 * this is still the host's root: in the jail's user namespace a
	 * lower nice value would need CAP_SYS_NICE in the host's. */
	if (rlimit_apply(c->spec, &e) < 0)
		channel_fail(c->sock, &e);
	/* All at once: there is no moment in some of the jail's namespaces
	 * and not the others.  The mount namespace brings the jail's root. */
	if (setns(c->jail_pidfd, ns) < 0) {
		cell_err_set(&e, errno, "join the jail's namespaces");
		channel_fail(c->sock, &e);
	}
	pid = ns_clone(CLONE_PARENT, c->cgroup_fd, &pidfd);
	if (pid < 0) {
		cell_err_set(&e, errno, "fork into the jail");
		channel_fail(c->sock, &e);
	}
	if (pid == 0)
		exec_process(c);
	testpoint_pause("exec:handover");
	/* sync: the process's pidfd to cell, which is its parent. */
	m.exit_code = (int)pid;
	if (tty_send_fd(c->sock, &m, sizeof(m), pidfd) < 0)
		_exit(CELL_EXIT_ERROR); /* cell is gone; the process dies with it */
	_exit(0);
}

/* Until the joiner has handed over the process (MSG_PROCESS; the
 * process's pty may come first): its pidfd and pid in R, the joiner
 * reaped.  An error it reported is in r->failed.  A process that failed
 * before the joiner handed it over is still taken (or the channel's end
 * waited for: no process came) and reaped: it is cell's child, and its
 * zombie would keep the jail's pid namespace from emptying. */
static int take_process(struct run *r, struct cell_err *e)
{
	siginfo_t info;

	while (r->sock >= 0 && r->handed_pidfd < 0) {
		struct pollfd p = {.fd = r->sock, .events = POLLIN};

		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		if (p.revents)
			run_read_channel(r);
	}
	while (waitid((idtype_t)P_PIDFD, (id_t)r->pidfd, &info, WEXITED) < 0 && errno == EINTR)
		;
	close(r->pidfd);
	r->pidfd = r->handed_pidfd;
	r->pid = r->handed_pid;
	r->handed_pidfd = -1;
	if (r->pidfd >= 0 && !r->failed)
		return 0;
	if (r->pidfd >= 0) {
		while (waitid((idtype_t)P_PIDFD, (id_t)r->pidfd, &info, WEXITED) < 0 &&
		       errno == EINTR)
			;
		close(r->pidfd);
		r->pidfd = -1;
	}
	r->pid = -1;
	if (r->failed) {
		run_child_error(r, e);
		return -1;
	}
	return cell_err_set(e, 0, "start the process in the jail: the joiner ended");
}

/*
 * The namespaces of jail J's pid 1 that are not cell's own, to join (user
 * among them: every jail but --userns host's has one); -1 on an error.
 * One it shares with the host (--net host, an OCI config without that
 * type) is not joined: a rootless cell may not join the host's (owned by
 * the initial user namespace), and for root it is joined already.  Read
 * through /proc, so checked against the pidfd afterwards: still alive,
 * the pid was not reused in between.
 */
static int ns_to_join(const struct jail *j, struct cell_err *e)
{
	static const struct {
		const char *name;
		int flag;
	} kinds[] = {{"user", CLONE_NEWUSER}, {"mnt", CLONE_NEWNS},  {"uts", CLONE_NEWUTS},
		     {"ipc", CLONE_NEWIPC},   {"net", CLONE_NEWNET}, {"cgroup", CLONE_NEWCGROUP},
		     {"pid", CLONE_NEWPID}};
	int mask = 0;

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		char own[64], jail[64];
		struct stat a, b;

		snprintf(own, sizeof(own), "/proc/self/ns/%s", kinds[i].name);
		snprintf(jail, sizeof(jail), "/proc/%d/ns/%s", (int)j->pid, kinds[i].name);
		if (stat(own, &a) < 0 || stat(jail, &b) < 0)
			return cell_err_set(e, errno, "jail %s: its %s namespace", j->dir.name,
					    kinds[i].name);
		if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
			mask |= kinds[i].flag;
	}
	if (syscall(SYS_pidfd_send_signal, j->pidfd, 0, NULL, 0) < 0)
		return cell_err_set(e, errno, "jail %s: its namespaces", j->dir.name);
	return mask;
}

/* The jail's cgroup directory on v2, for CLONE_INTO_CGROUP; -1 else. */
static int v2_cgroup_fd(const struct cgroup *cg, struct cell_err *e)
{
	int fd;

	if (cg->layout != CGROUP_V2)
		return -2;
	fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		cell_err_set(e, errno, "open cgroup %s", cg->path);
	return fd;
}

/* A unix socket connected to PATH (the console socket), before the
 * clone: a host path, which the jail's mount namespace does not show. */
static int console_connect(const char *path, struct cell_err *e)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(addr.sun_path))
		return cell_err_set(e, ENAMETOOLONG, "console socket %s", path);
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return cell_err_set(e, errno, "console socket %s", path);
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		cell_err_set(e, errno, "console socket %s", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* The pty's master to the console socket, with runc's message (the
 * master's name); cell keeps no copy and relays nothing. */
static int console_send(int sock, struct run *r, const char *path, struct cell_err *e)
{
	static const char name[] = "/dev/ptmx";
	int ret = 0;

	if (r->master < 0)
		return cell_err_set(e, 0, "console socket %s: the process has no pty", path);
	if (tty_send_fd(sock, name, sizeof(name) - 1, r->master) < 0)
		ret = cell_err_set(e, errno, "send the pty to console socket %s", path);
	close(r->master);
	r->master = -1;
	return ret;
}

/* PID to FILE: a temporary beside it, renamed over it, so that a reader
 * never sees half a number. */
static int write_pid_file(const char *file, pid_t pid, struct cell_err *e)
{
	char tmp[4096];
	int fd, n;

	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", file, (int)getpid()) >= (int)sizeof(tmp))
		return cell_err_set(e, ENAMETOOLONG, "pid file %s", file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return cell_err_set(e, errno, "pid file %s", file);
	n = dprintf(fd, "%d", (int)pid);
	if (n <= 0 || close(fd) < 0 || rename(tmp, file) < 0) {
		cell_err_set(e, errno, "pid file %s", file);
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Once the process runs: its pty to the console socket, its pid file;
 * then, detached, cell is done with it. */
static int exec_started(struct run *r, int console, const struct exec_opts *o, struct cell_err *e)
{
	if (console >= 0 && console_send(console, r, o->console_socket, e) < 0)
		return -1;
	if (o->pid_file != NULL && write_pid_file(o->pid_file, r->pid, e) < 0)
		return -1;
	return 0;
}

/* The jail CLI's process takes the jail's parameters from its record and
 * the policy they make; an OCI process comes with its mechanisms. */
static int exec_in(const char *state_root, struct jail_spec *s, bool from_record,
		   const struct exec_opts *o, int *status, struct cell_err *e)
{
	struct exec_child c = {.spec = s, .detach = o->detach, .jail_pidfd = -1, .sock = -1};
	struct policy policy = {0};
	struct cgroup cg;
	struct jail j = {.pidfd = -1, .dir = {.dirfd = -1}};
	struct run r;
	int rootfd = -1, sv[2] = {-1, -1}, cgfd = -2, console = -1, ret = -1;
	bool opened = false, killed = false;

	cgroup_init(&cg);
	run_init(&r);
	if (store_open_root(state_root, &rootfd, e) < 0)
		return -1;
	if (jail_open_existing(rootfd, s->name, &j, e) < 0)
		goto out;
	opened = true;
	if (!j.running) {
		cell_err_set(e, 0, "jail %s: is not running", s->name);
		goto out;
	}
	if ((from_record && record_exec_spec(j.state, s, e) < 0) ||
	    cgroup_from_json(&cg, json_object_get(j.state, "cgroup"), e) < 0)
		goto out;
	/* The jail's mechanisms, as its start made them from the same
	 * parameters. */
	if (from_record && policy_defaults(s, e) < 0)
		goto out;
	if (policy_for_exec(s, &policy, e) < 0)
		goto out;
	c.policy = &policy;
	c.join_ns = ns_to_join(&j, e);
	if (c.join_ns < 0)
		goto out;
	c.join_user = c.join_ns & CLONE_NEWUSER;
	c.join_ns &= ~CLONE_NEWUSER;
	cgfd = v2_cgroup_fd(&cg, e);
	if (cgfd == -1)
		goto out;
	if (o->console_socket != NULL && (console = console_connect(o->console_socket, e)) < 0)
		goto out;
	if (run_open(&r, sv, e) < 0)
		goto out;
	c.parent = r.saved;
	c.sock = sv[1];
	c.jail_pidfd = j.pidfd;
	c.umask = umask(022);
	umask(c.umask);
	c.cgroup = &cg;
	c.cgroup_fd = cgfd >= 0 ? cgfd : -1;
	r.pid = ns_clone(0, -1, &r.pidfd);
	if (r.pid < 0) {
		cell_err_set(e, errno, "jail %s: clone", s->name);
		goto out;
	}
	if (r.pid == 0) {
		close(sv[0]);
		exec_joiner(&c);
	}
	run_take_channel(&r, sv);
	if (take_process(&r, e) < 0) {
		cell_err_prefix(e, "jail %s", s->name);
		goto out;
	}
	/* Serialized with set and stop until the command runs; then the
	 * jail is free for other commands while this one waits. */
	run_wait_exec(&r);
	jail_close(&j);
	opened = false;
	if (r.failed) {
		siginfo_t info;

		/* It said why and exits: reaped, or its zombie would keep
		 * the jail's pid namespace (and a stop waiting on it). */
		while (waitid((idtype_t)P_PIDFD, (id_t)r.pidfd, &info, WEXITED) < 0 &&
		       errno == EINTR)
			;
		run_child_error(&r, e);
		cell_err_prefix(e, "jail %s", s->name);
		goto out;
	}
	if (exec_started(&r, console, o, e) < 0) {
		/* Not left running where no one expects it. */
		syscall(SYS_pidfd_send_signal, r.pidfd, SIGKILL, NULL, 0);
		run_supervise(&r);
		cell_err_prefix(e, "jail %s", s->name);
		goto out;
	}
	if (o->detach) {
		/* It runs on: once cell has exited, its new parent (the
		 * engine's subreaper, or init) reaps it. */
		*status = 0;
		ret = 0;
		goto out;
	}
	*status = run_supervise_for(&r, o->timeout, &killed);
	if (r.failed) {
		run_child_error(&r, e);
		cell_err_prefix(e, "jail %s", s->name);
		goto out;
	}
	if (killed) {
		cell_err_set(e, 0, "killed after %d s", o->timeout);
		e->errnum = ETIMEDOUT; /* for the caller; the message says it */
		goto out;
	}
	ret = 0;
out:
	run_close(&r, sv);
	policy_free(&policy);
	if (console >= 0)
		close(console);
	if (cgfd >= 0)
		close(cgfd);
	if (opened)
		jail_close(&j);
	cgroup_release(&cg);
	close(rootfd);
	return ret;
}

int jail_exec(const char *state_root, struct jail_spec *s, int timeout, int *status,
	      struct cell_err *e)
{
	const struct exec_opts o = {.timeout = timeout};

	return exec_in(state_root, s, true, &o, status, e);
}

int jail_exec_process(const char *state_root, struct jail_spec *s, const struct exec_opts *o,
		      int *status, struct cell_err *e)
{
	if (o->console_socket != NULL && (!o->detach || !s->proc.terminal))
		return cell_err_set(e, 0, "a console socket needs a terminal and detach");
	return exec_in(state_root, s, false, o, status, e);
}
