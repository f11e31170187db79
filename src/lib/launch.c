/*
 * launch.c - the start sequence of a jail (DESIGN.md, "Engine rules").
 *
 * Parent (cell)                         Child (the jail's pid 1)
 * -------------                         ------------------------
 * open --rootfs and --bind sources
 * [--allow set_hostname: a helper
 *  makes user, UTS, net namespaces]     (ns.c)
 * create + lock the state directory,
 *   its JID                             (store.c)
 * name the cgroups; with any, record
 *   "creating"; create them, write
 *   the limits                          (cgroup.c)
 * -d: open the log (and exit) files
 * [the helper's maps written, its
 *  namespaces opened, it ends]
 * block the forwarded signals
 * clone3(all namespaces, CLONE_PIDFD,
 *        v2: CLONE_INTO_CGROUP)      ->  [join those UTS and net]
 * v1: move the pid into the cgroups     mounts, pivot_root   (rootfs.c)
 * record "running": pid + start time    pty, sent back       (tty.c)
 *                                       hostname, loopback   (uts.c, ns.c)
 * send "go"                          ->  wait for "go"; own cgroup namespace
 *                                       its cgroups at /sys/fs/cgroup
 *                                       [join its user namespace]
 *                                       policy               (policy.c)
 *                                       [--init: fork; pid 1 execs
 *                                        cell-init]          (init.c)
 *                                       user, workdir, fds   (process.c)
 * relay pty, forward signals            execve
 *   (foreground: unlock the jail)
 * EOF on the channel = exec'd (-d: return now; the jail lives on);
 * a message on it = the child's error
 * wait (pidfd); relock, remove the
 * cgroups and the state
 *
 * The channel is a SOCK_SEQPACKET socketpair whose child end is
 * close-on-exec: the parent reads a structured error, a pty master, or
 * end-of-file, which means the payload's execve() succeeded.
 */
#include "launch.h"

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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "channel.h"
#include "testpoint.h"
#include "init.h"
#include "jail.h"
#include "policy.h"
#include "rlimit.h"
#include "ns.h"
#include "process.h"
#include "proc.h"
#include "record.h"
#include "rootfs.h"
#include "store.h"
#include "tty.h"
#include "uts.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* Everything the child needs, prepared by the parent before the clone. */
struct child_ctx {
	const struct jail_spec *spec;
	const struct cgroup *cgroup;
	struct policy policy; /* compiled before the clone */
	char *attach;	      /* where the new root is attached: the state dir */
	int sock;	      /* child end of the channel */
	int log_fd;	      /* detached: the log file, for stdout and stderr */
	int exit_fd;	      /* detached --init: the reaper writes the status here */
	int init_fd;	      /* --init: sealed memfd of cell-init */
	struct ns_own own;    /* --allow set_hostname: its own user namespace */
	sigset_t parent;      /* the signal mask to restore before execve */
	mode_t umask;
};

static noreturn void child_fail(const struct child_ctx *c, const struct cell_err *e)
{
	channel_fail(c->sock, e);
}

static void redirect_stdio_to_null(void)
{
	int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return;
	for (int i = 0; i <= 2; i++)
		dup2(fd, i);
	close(fd);
}

/* The child builds the jail in its new namespaces, where nothing else
 * sees it, while cell records it, and then waits for "go": by then the
 * parent has moved it into its cgroups (v1) and recorded its pid, so
 * that the jail never runs its command, or a process of its own,
 * unrecorded.  Its cgroup namespace is made only then, so that the
 * jail's cgroup is the namespace's root. */
static void child_wait_go(const struct child_ctx *c, struct cell_err *e)
{
	char go;
	ssize_t n;

	do
		n = recv(c->sock, &go, 1, 0);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(CELL_EXIT_ERROR); /* cell failed, and says why */
	if (c->cgroup->layout == CGROUP_NONE)
		return;
	if (unshare(CLONE_NEWCGROUP) < 0) {
		cell_err_set(e, errno, "unshare the cgroup namespace");
		child_fail(c, e);
	}
}

/* A detached jail's stdio: stdin /dev/null, stdout and stderr the log
 * unless the caller redirected them to a file of its own. */
static int detach_stdio(const struct child_ctx *c, struct cell_err *e)
{
	const struct jail_spec *s = c->spec;
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		return cell_err_set(e, errno, "stdin from /dev/null");
	close(null);
	if ((!s->keep_stdout && dup2(c->log_fd, STDOUT_FILENO) < 0) ||
	    (!s->keep_stderr && dup2(c->log_fd, STDERR_FILENO) < 0))
		return cell_err_set(e, errno, "stdout and stderr to the log");
	return 0;
}

static noreturn void child_main(const struct child_ctx *c)
{
	const struct jail_spec *s = c->spec;
	struct cell_err e;
	int master = -1, slave = -1;
	char slave_path[32];

	cell_err_clear(&e);
	/* A foreground jail dies with its cell: nothing is left running
	 * if cell is killed. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		cell_err_set(&e, errno, "set parent-death signal");
		child_fail(c, &e);
	}
	/* Without a pty of its own the jail shares cell's terminal: in a
	 * session of its own, that terminal is not its controlling one, and
	 * the kernel refuses it TIOCSTI (typing into the host's shell). */
	if (!s->tty && setsid() < 0) {
		cell_err_set(&e, errno, "setsid");
		child_fail(c, &e);
	}
	/* --allow set_hostname: the UTS and network namespaces made for it
	 * (ns.h) replace the ones the clone did not make, before anything
	 * is named, mounted or brought up. */
	if (c->own.uts >= 0 && ns_own_join_uts_net(&c->own, &e) < 0)
		child_fail(c, &e);
	testpoint_pause("run:building");
	/* Device nodes and mount points get exactly the modes we ask. */
	umask(0);
	if (rootfs_setup(s, c->attach, &e) < 0)
		child_fail(c, &e);
	if (s->tty) {
		struct child_msg m = {.type = MSG_PTY};

		if (tty_open_pair(&master, &slave, slave_path, sizeof(slave_path), &e) < 0 ||
		    rootfs_bind_console(slave_path, &e) < 0)
			child_fail(c, &e);
		/* The size now, before the payload runs: set later by cell,
		 * the change would raise a SIGWINCH the payload never asked
		 * for. */
		tty_copy_winsize(STDIN_FILENO, master);
		if (tty_send_fd(c->sock, &m, sizeof(m), master) < 0) {
			cell_err_set(&e, errno, "send the pty to cell");
			child_fail(c, &e);
		}
		close(master);
	}
	if (uts_apply(s, &e) < 0)
		child_fail(c, &e);
	if (s->net == JAIL_NET_NONE && ns_loopback_up(&e) < 0)
		child_fail(c, &e);
	child_wait_go(c, &e);
	if (cgroup_mount_jail(c->cgroup, &e) < 0)
		child_fail(c, &e);
	/* Root of its own user namespace from here on: the root is built.
	 * The parent-death signal stays armed (to the kernel, the new
	 * credentials are a subset of the old; tested). */
	if (c->own.user >= 0) {
		if (ns_own_join_user(&c->own, &e) < 0)
			child_fail(c, &e);
		testpoint_pause("run:userns");
	}
	/* The policy binds --init's reaper too: it is a process of the jail. */
	if (policy_apply(s, &c->policy, &e) < 0)
		child_fail(c, &e);
	if (s->init) {
		pid_t pid = fork();

		if (pid < 0) {
			cell_err_set(&e, errno, "--init: fork");
			child_fail(c, &e);
		}
		if (pid > 0) {
			int status_fd = -1, memfd = -1;

			/* Close, not mark, every runtime descriptor (state
			 * root, rootfs, channel) but the status file (fd 3)
			 * and cell-init's memfd (fd 4, closed by the exec), or
			 * the jail could reach the host through /proc/1/fd
			 * (CVE-2024-21626).  The payload's exec closes the
			 * channel's last copy. */
			if (c->exit_fd >= 0)
				status_fd = fcntl(c->exit_fd, F_DUPFD, 10);
			if (c->init_fd >= 0)
				memfd = fcntl(c->init_fd, F_DUPFD_CLOEXEC, 10);
			if ((status_fd >= 0 && dup2(status_fd, 3) < 0) ||
			    (memfd >= 0 && dup3(memfd, 4, O_CLOEXEC) < 0))
				_exit(CELL_EXIT_ERROR);
			syscall(SYS_close_range, 5U, ~0U, 0U);
			if (status_fd < 0)
				close(3);
			if (memfd < 0)
				close(4);
			/* Until the exec its /proc/1/exe is cell's binary on the host, reachable
			 * through the magic link (CVE-2019-5736's way in): not
			 * dumpable, /proc/1 is closed to processes without
			 * CAP_SYS_PTRACE, which no jail has.  cell-init says
			 * the same of itself. */
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
			if (slave >= 0 || s->detach)
				redirect_stdio_to_null(); /* keep no host terminal */
			/* A detached jail outlives its cell. */
			if (s->detach)
				prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
			init_exec(memfd >= 0 ? 4 : -1, pid, status_fd >= 0 ? 3 : -1);
		}
	}
	if (slave >= 0 && tty_make_controlling(slave, &e) < 0)
		child_fail(c, &e);
	/* A uid change empties the permitted set; set the kept caps again. */
	if (process_set_user(s, &e) < 0 || (s->has_user && policy_apply_caps(&c->policy, &e) < 0) ||
	    process_set_workdir(s, &e) < 0)
		child_fail(c, &e);
	if (s->has_user && !s->detach)
		channel_rearm_deathsig(c->sock);
	umask(c->umask);
	if (s->detach && detach_stdio(c, &e) < 0)
		child_fail(c, &e);
	if (process_close_fds(&e) < 0)
		child_fail(c, &e);
	sigprocmask(SIG_SETMASK, &c->parent, NULL);
	/* A detached jail outlives its cell, from its exec on: before, a
	 * cell killed mid-start takes the unfinished jail with it. */
	if (s->detach && !s->init)
		prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0);
	process_exec(s, &e);
	child_fail(c, &e);
}

/* state.json: what `cell ls`, `cell inspect`, `exec` and `set` read
 * (record.h).  PHASE is "creating" (PID is then cell's own: a record
 * that outlives its creator names the cgroups to remove) or "running". */
static json_t *state_record(const struct jail_spec *s, const struct cgroup *cg, pid_t pid,
			    unsigned long long start, int jid, time_t created, const char *phase)
{
	struct record_run run = {.jid = jid,
				 .pid = pid,
				 .start_time = start,
				 .created = created,
				 .state = phase,
				 .cgroup = cgroup_to_json(cg),
				 .detach = s->detach,
				 .autoremove = !s->detach || s->autoremove};

	return record_new(s, &run);
}

static int record_state(struct store_jail *j, const struct jail_spec *s, const struct cgroup *cg,
			pid_t pid, time_t created, const char *phase, struct cell_err *e)
{
	unsigned long long start;
	json_t *st;
	int ret;

	if (proc_start_time(pid, &start) < 0)
		return cell_err_set(e, errno, "jail %s: read start time of pid %d", s->name,
				    (int)pid);
	st = state_record(s, cg, pid, start, j->jid, created, phase);
	if (st == NULL)
		return cell_err_set(e, ENOMEM, "jail %s: state", s->name);
	ret = store_jail_write(j, st, e);
	json_decref(st);
	return ret;
}

/* The child waits for "go": by then it is in its cgroups (v1: moved
 * here) and recorded. */
static int start_child(const struct run *r, const struct cgroup *cg, struct cell_err *e)
{
	if (cg->layout == CGROUP_V1 && cgroup_add_pid(cg, r->pid, e) < 0)
		return -1;
	return 0;
}

/* A child that has failed already is no error here: its reason waits on
 * the channel, read next. */
static int send_go(const struct run *r, struct cell_err *e)
{
	if (send(r->sock, "g", 1, MSG_NOSIGNAL) != 1 && errno != EPIPE && errno != ECONNRESET)
		return cell_err_set(e, errno, "start the jail");
	return 0;
}

/* Opens FILE in the jail's state directory for the child. */
static int open_jail_file(struct store_jail *j, const char *file, int flags, struct cell_err *e)
{
	int fd = openat(j->dirfd, file, flags | O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return cell_err_set(e, errno, "jail %s: open %s", j->name, file);
	return fd;
}

/* Without cgroups of its own the jail gets its cgroup namespace from the
 * clone; with them, only once it is inside (child_enter_cgroup()).  With
 * a user namespace of its own, its UTS and network namespaces are the
 * ones made for it (ns_own_start()). */
static unsigned long long clone_flags(const struct jail_spec *s, const struct cgroup *cg,
				      const struct ns_own *own)
{
	unsigned long long f = ns_clone_flags(s);

	if (cg->layout != CGROUP_NONE)
		f &= ~(unsigned long long)CLONE_NEWCGROUP;
	if (own->uts >= 0)
		f &= ~(unsigned long long)(CLONE_NEWUTS | CLONE_NEWNET);
	return f;
}

/* `--allow set_hostname` under the policy: the jail is root of a user
 * namespace of its own (ns.h), so that the CAP_SYS_ADMIN it keeps for
 * sethostname(2) is worth nothing against the host's mounts, files and
 * kernel. */
static bool wants_own_userns(const struct jail_spec *s, const struct policy *p)
{
	return p->on && (s->allow & JAIL_ALLOW_SET_HOSTNAME);
}

/* cell set may have given the jail cgroups it did not start with: the
 * record names every one to remove. */
static void reload_cgroups(struct store_jail *j, struct cgroup *cg)
{
	json_t *st = store_jail_read(j);
	struct cgroup now;
	struct cell_err ignored;

	if (st == NULL)
		return;
	if (cgroup_from_json(&now, json_object_get(st, "cgroup"), &ignored) == 0) {
		cgroup_release(cg);
		*cg = now;
	} else {
		cgroup_release(&now);
	}
	json_decref(st);
}

int jail_run(const struct jail_spec *s, const char *state_root, int *status, struct cell_err *e)
{
	struct cgroup cg;
	struct child_ctx c = {
		.spec = s, .cgroup = &cg, .sock = -1, .log_fd = -1, .exit_fd = -1, .init_fd = -1};
	struct run r;
	struct store_jail jail = {.dirfd = -1};
	struct cell_err ignored;
	int rootfd = -1, sv[2] = {-1, -1}, ret = -1;
	bool keep = false;
	time_t created = time(NULL);

	*status = -1;

	cgroup_init(&cg);
	run_init(&r);
	ns_own_init(&c.own);
	if (rootfs_check(s, e) < 0 || rlimit_check(s, e) < 0 ||
	    cgroup_check_cpus(s->limits.cpus_milli, false, e) < 0)
		return -1;
	policy_build(s, &c.policy);
	/* Its helper makes the namespaces while we make the rest. */
	if (wants_own_userns(s, &c.policy) && ns_own_start(&c.own, s->net == JAIL_NET_NONE, e) < 0)
		goto out;
	if (store_open_root(state_root, &rootfd, e) < 0)
		goto out;
	if (store_jail_create(rootfd, s->name, jail_reap_cb, NULL, &jail, e) < 0)
		goto out;
	testpoint_pause("run:created");
	/* Cgroups are recorded before they exist: a cell killed from here
	 * on leaves a record naming what to remove.  (Without cgroups, such
	 * a cell leaves a directory without a record, which the next
	 * command removes.) */
	if (cgroup_plan(&cg, s, state_root, e) < 0 ||
	    (cg.layout != CGROUP_NONE &&
	     record_state(&jail, s, &cg, getpid(), created, "creating", e) < 0))
		goto out;
	testpoint_pause("run:recorded");
	if (cgroup_make(&cg, s, e) < 0)
		goto out;
	testpoint_pause("run:cgroups");
	if (s->detach) {
		c.log_fd = open_jail_file(&jail, "log", O_APPEND, e);
		if (c.log_fd < 0)
			goto out;
		if (s->init && (c.exit_fd = open_jail_file(&jail, "exit", O_TRUNC, e)) < 0)
			goto out;
	}
	if (s->init && (c.init_fd = init_memfd(e)) < 0)
		goto out;
	/* The jail's root is attached over its (empty) state directory, in
	 * the jail's mount namespace only. */
	if (asprintf(&c.attach, "%s/%s", state_root, s->name) < 0) {
		c.attach = NULL;
		cell_err_set(e, ENOMEM, "jail %s", s->name);
		goto out;
	}
	if (c.own.helper > 0 && ns_own_finish(&c.own, e) < 0)
		goto out;
	if (run_open(&r, sv, e) < 0)
		goto out;
	c.parent = r.saved;
	c.sock = sv[1];
	c.umask = umask(022);
	umask(c.umask);
	r.pid = ns_clone(clone_flags(s, &cg, &c.own), cg.fd, &r.pidfd);
	if (r.pid < 0) {
		cell_err_set(e, errno, "clone the jail's namespaces");
		goto out;
	}
	if (r.pid == 0) {
		close(sv[0]);
		child_main(&c);
	}
	ns_own_close(&c.own);
	run_take_channel(&r, sv);
	testpoint_pause("run:cloned");
	if (start_child(&r, &cg, e) < 0 ||
	    record_state(&jail, s, &cg, r.pid, created, "running", e) < 0 || send_go(&r, e) < 0) {
		syscall(SYS_pidfd_send_signal, r.pidfd, SIGKILL, NULL, 0);
		run_supervise(&r);
		goto out;
	}
	testpoint_pause("run:started");
	/* The lock is held until the command runs: exec, set and stop find
	 * the jail built or not at all, never half-way (a cell exec that
	 * joined it now could land in the copy of the host's mounts). */
	run_wait_exec(&r);
	if (s->detach)
		testpoint_pause("run:execd");
	if (r.failed) {
		run_supervise(&r); /* reaps the child */
		goto failed;
	}
	if (s->detach) {
		/* The jail lives on without us: its cgroups and state stay. */
		keep = true;
		*status = 0;
		ret = 0;
		if (s->autoremove && jail_watch_remove(state_root, s->name, r.pid, r.pidfd, e) < 0)
			ret = -1;
		goto out;
	}
	/* Other commands (exec, set, stop) may take the jail while its
	 * command runs. */
	store_jail_unlock(&jail);
	*status = run_supervise(&r);
	if (store_jail_relock(rootfd, &jail) < 0) {
		/* Removed meanwhile (cell rm -f): its cgroups went with it,
		 * and a jail of the same name may own them now. */
		keep = true;
		store_jail_close(&jail);
	} else {
		reload_cgroups(&jail, &cg);
	}
failed:
	if (r.failed) {
		*status = -1;
		run_child_error(&r, e);
		goto out;
	}
	ret = 0;
	if (testpoint_fail("run:cleanup")) {
		cell_err_set(e, EBUSY, "remove the jail's cgroups (test failure)");
		ret = -1;
	}
out:
	run_close(&r, sv);
	ns_own_close(&c.own);
	if (c.log_fd >= 0)
		close(c.log_fd);
	if (c.exit_fd >= 0)
		close(c.exit_fd);
	if (c.init_fd >= 0)
		close(c.init_fd);
	if (keep) {
		cgroup_release(&cg);
		store_jail_close(&jail);
	}
	if (cgroup_destroy(&cg, ret == 0 ? e : &ignored) < 0 && ret == 0)
		ret = -1;
	if (jail.dirfd >= 0) {
		if (store_jail_remove(rootfd, &jail, ret == 0 ? e : &ignored) < 0 && ret == 0)
			ret = -1;
	}
	if (rootfd >= 0)
		close(rootfd);
	free(c.attach);
	return ret;
}
