/*
 * exec.c - `cell exec`: a new process inside a running jail.
 *
 * Parent (cell)                          Child
 * -------------                          -----
 * lock the jail, pidfd of its pid 1
 * the jail's policy, from its record
 * setns(pidfd, PID): our children are
 *   born in the jail's pid namespace
 * clone3(CLONE_PIDFD,
 *        v2: CLONE_INTO_CGROUP)       ->  wait for "go"
 * v1: move the pid into the cgroups  ->  setns(pidfd, mount, UTS, IPC,
 *                                           net, cgroup, and user if it
 *                                           has one): the jail's root
 *                                         pty of the jail's devpts, sent
 *                                         back
 *                                         the jail's policy (caps, seccomp,
 *                                           Landlock, no_new_privs, rlimits)
 *                                         user, workdir, fds
 * EOF on the channel: unlock         <-   execve
 * relay the pty, forward signals,
 * wait (pidfd)
 *
 * So the exec'd process is in every namespace and cgroup of the jail,
 * held to the same policy: no freer than the jail's own processes.
 */
#include "exec.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "channel.h"
#include "init.h"
#include "jail.h"
#include "ns.h"
#include "policy.h"
#include "process.h"
#include "record.h"
#include "store.h"
#include "tty.h"

struct exec_child {
	const struct jail_spec *spec;
	const struct policy *policy;
	int jail_pidfd;
	int join_user; /* CLONE_NEWUSER if the jail has a user namespace of its own */
	int sock;
	sigset_t parent; /* the signal mask to restore before execve */
	mode_t umask;
};

static noreturn void exec_child(const struct exec_child *c)
{
	const struct jail_spec *s = c->spec;
	int ns = CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWCGROUP |
		 c->join_user;
	int master = -1, slave = -1;
	struct cell_err e;
	char go;
	ssize_t n;

	cell_err_clear(&e);
	/* Until its execve, this is cell's memory inside the jail: not for
	 * the jail's processes to ptrace or read (CVE-2016-9962). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		cell_err_set(&e, errno, "prctl");
		channel_fail(c->sock, &e);
	}
	if (!s->tty && setsid() < 0) {
		cell_err_set(&e, errno, "setsid");
		channel_fail(c->sock, &e);
	}
	do
		n = recv(c->sock, &go, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(CELL_EXIT_ERROR);
	/* All at once: there is no moment in some of the jail's namespaces
	 * and not the others.  The mount namespace brings the jail's root. */
	if (setns(c->jail_pidfd, ns) < 0) {
		cell_err_set(&e, errno, "join the jail's namespaces");
		channel_fail(c->sock, &e);
	}
	close(c->jail_pidfd);
	umask(022);
	if (s->tty) {
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
	if (slave >= 0 && tty_make_controlling(slave, &e) < 0)
		channel_fail(c->sock, &e);
	if (process_set_user(s, &e) < 0 || (s->has_user && policy_apply_caps(c->policy, &e) < 0) ||
	    process_set_workdir(s, &e) < 0)
		channel_fail(c->sock, &e);
	if (s->has_user)
		channel_rearm_deathsig(c->sock);
	umask(c->umask);
	if (process_close_fds(&e) < 0)
		channel_fail(c->sock, &e);
	sigprocmask(SIG_SETMASK, &c->parent, NULL);
	process_exec(s, &e);
	channel_fail(c->sock, &e);
}

/* CLONE_NEWUSER when pid 1 of jail J is in a user namespace that is not
 * ours (--allow set_hostname gives it one), else 0; -1 on an error.  Read
 * through /proc, so checked against the pidfd afterwards: still alive,
 * the pid was not reused in between. */
static int userns_to_join(const struct jail *j, struct cell_err *e)
{
	char path[64];
	struct stat own, jail;

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)j->pid);
	if (stat("/proc/self/ns/user", &own) < 0 || stat(path, &jail) < 0 ||
	    syscall(SYS_pidfd_send_signal, j->pidfd, 0, NULL, 0) < 0)
		return cell_err_set(e, errno, "jail %s: its user namespace", j->dir.name);
	return own.st_ino == jail.st_ino && own.st_dev == jail.st_dev ? 0 : CLONE_NEWUSER;
}

/* The jail's cgroup directory on v2, for CLONE_INTO_CGROUP; -1 else. */
static int v2_cgroup_fd(const struct cgroup *cg, struct cell_err *e)
{
	int fd;

	if (cg->layout != CGROUP_V2)
		return -2;
	fd = open(cg->dir[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		cell_err_set(e, errno, "open cgroup %s", cg->dir[0]);
	return fd;
}

int jail_exec(const char *state_root, struct jail_spec *s, int *status, struct cell_err *e)
{
	struct exec_child c = {.spec = s, .jail_pidfd = -1, .sock = -1};
	struct policy policy = {0};
	struct cgroup cg;
	struct jail j = {.pidfd = -1, .dir = {.dirfd = -1}};
	struct run r;
	int rootfd = -1, sv[2] = {-1, -1}, cgfd = -2, ret = -1;
	bool opened = false;

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
	if (record_exec_spec(j.state, s, e) < 0 ||
	    cgroup_from_json(&cg, json_object_get(j.state, "cgroup"), e) < 0)
		goto out;
	policy_for_exec(s, &policy);
	c.policy = &policy;
	c.join_user = userns_to_join(&j, e);
	if (c.join_user < 0)
		goto out;
	cgfd = v2_cgroup_fd(&cg, e);
	if (cgfd == -1)
		goto out;
	/* Only our children are born there: cell itself stays where it is. */
	if (setns(j.pidfd, CLONE_NEWPID) < 0) {
		cell_err_set(e, errno, "jail %s: join its pid namespace", s->name);
		goto out;
	}
	if (run_open(&r, sv, e) < 0)
		goto out;
	c.parent = r.saved;
	c.sock = sv[1];
	c.jail_pidfd = j.pidfd;
	c.umask = umask(022);
	umask(c.umask);
	r.pid = ns_clone(0, cgfd >= 0 ? cgfd : -1, &r.pidfd);
	if (r.pid < 0) {
		cell_err_set(e, errno, "jail %s: clone", s->name);
		goto out;
	}
	if (r.pid == 0) {
		close(sv[0]);
		exec_child(&c);
	}
	run_take_channel(&r, sv);
	if (cgroup_add_pid(&cg, r.pid, e) < 0 || send(r.sock, "g", 1, MSG_NOSIGNAL) != 1) {
		if (e->msg[0] == '\0')
			cell_err_set(e, errno, "jail %s: start", s->name);
		syscall(SYS_pidfd_send_signal, r.pidfd, SIGKILL, NULL, 0);
		run_supervise(&r);
		goto out;
	}
	/* Serialized with set and stop until the command runs; then the
	 * jail is free for other commands while this one waits. */
	run_wait_exec(&r);
	jail_close(&j);
	opened = false;
	*status = run_supervise(&r);
	if (r.failed) {
		run_child_error(&r, e);
		goto out;
	}
	ret = 0;
out:
	run_close(&r, sv);
	if (cgfd >= 0)
		close(cgfd);
	if (opened)
		jail_close(&j);
	cgroup_release(&cg);
	close(rootfd);
	return ret;
}
