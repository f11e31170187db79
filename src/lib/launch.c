/*
 * launch.c - the launch of a jail, in stages (DESIGN.md, "The launch,
 * in stages").
 *
 * Parent (cell), one stage each          Child (the jail's pid 1)
 * ------------------------------         ------------------------
 * prepare: open --rootfs and --bind
 *   sources, rlimits, the policy
 * state: create + lock the state
 *   directory, its JID                   (store.c)
 * userns: [rootless: cell becomes root
 *   of a user namespace of its own,
 *   mapped by newuidmap or itself]      (rootless.c)
 * ids: [a range of host ids held in
 *   its name; a helper born in the user
 *   namespace, owned by the range; it
 *   makes the net (UTS) namespace there,
 *   meanwhile]                           (idrange.c, ns.c)
 * cgroups: name them; with any, record
 *   "creating"; create them, write
 *   the limits                           (cgroup.c)
 * files: -d: the log (and exit) files;
 *   --init: cell-init's memfd; [the
 *   helper's maps written, its user
 *   namespace opened; a bridge or
 *   slirp: its net namespace too]
 * spawn: block the forwarded signals;
 *   clone3(all namespaces, CLONE_PIDFD,
 *   v2: CLONE_INTO_CGROUP; CLONE_VM
 *   unless an OCI create or a time
 *   namespace: "shared", below)       ->  [shared: wait for "go" first]
 *                                         enter: namespaces joined by path
 *                                         [fsuid the jail's root's]
 *                                         built: mounts; --rootfs and
 *                                           binds idmapped           (rootfs.c)
 *                                           [before sysfs or sysctls:
 *                                           the helper's net and UTS,
 *                                           once it says they are made,
 *                                           joined by its pidfd]
 *                                           hold "prepivot"
 *                                         pivoted: pivot_root
 *                                           hold "postpivot"
 *                                         pty, sent back (sync 2)    (tty.c)
 *                                         identity: hostname, lo     (uts.c, ns.c)
 * start: v1: the pid into the cgroups;
 *   record "running": pid + start time;
 *   "go" (sync 1)                     ->  entered: wait for "go"; own cgroup
 *                                           namespace, its cgroups at
 *                                           /sys/fs/cgroup
 *                                         rlimits, nice              (rlimit.c)
 *                                         [join its user namespace,
 *                                          become its root]          (ns.c)
 *                                         policy                     (policy.c)
 *                                         [--init: fork; pid 1 execs
 *                                          cell-init]                (init.c)
 *                                         user, workdir, fds          (process.c)
 * exec: wait for end-of-file (sync 3) <-  execve
 *   [the helper reaped]
 *   (-d: return; the jail lives on)
 * wait (foreground): unlock, relay the
 *   pty, forward signals, pidfd
 * release: relock; the stages undone in reverse: cgroups, ids, state
 *
 * The sync points, over the channel (a SOCK_SEQPACKET socketpair whose
 * child end is close-on-exec):
 *   sync 1  parent -> child  "g": the child is recorded and in its
 *           cgroups; nothing before it forks or runs the command.
 *   sync 2  child -> parent  MSG_PTY: the pty's master (with a terminal).
 *   sync 3  child -> parent  end-of-file: the payload's execve succeeded;
 *           MSG_ERROR instead, at any point: the child's error.
 *   hold    child -> parent  MSG_HOLD (prepivot, postpivot), then parent
 *           -> child "c": the launch stops with the root built, before
 *           and after pivot_root, where a launch asks (LAUNCH_HOLD_*:
 *           where OCI's createRuntime and createContainer hooks run).
 *
 * Shared: the jail's first process is born in cell's memory (CLONE_VM,
 * on a stack of its own: ns_clone_vm()), which a fork would copy, page
 * table by page table and then page by page as either writes, only for
 * the payload's execve() to throw the copy away; on this test machine
 * that was 1.5 ms of a 10 ms start.  Two processes in one memory must
 * never run cell's code at once (the heap, errno and stdio are one), so
 * they take turns: the child waits for "go" before anything else (cell
 * records it meanwhile); from "go" on cell waits, in raw system calls
 * (run_send()), until the child execs, ends, or sends a message it then
 * waits for "c" to (a hold, MSG_PTY, MSG_SECCOMP).  The child works on a
 * copy of the context; PR_SET_DUMPABLE is the memory's, so cell's own is
 * given back once the child has left it (child_left()).  A child that
 * parses a file of the image (process_reads_image(): a flaw of that
 * parser must never reach cell's memory) forks as before; so does an OCI
 * create (cell ends while the process waits to be started), and
 * so does a child born in a time namespace of its own (its clock pages
 * are the memory's), and any child where ns_clone_vm() is not (other
 * architectures than x86-64).
 *
 * A stage that fails undoes the stages before it, in reverse (as jail(8)
 * runs its stop commands as its start commands reversed); a child that
 * fails sends its error and exits, and the parent's stages are undone the
 * same way.  In builds with pause points, CELL_TEST_FAIL=launch:STAGE
 * makes STAGE fail (parent's and child's alike) and CELL_TEST_HOLD=
 * prepivot|postpivot holds the child there while cell pauses at
 * run:prepivot / run:postpivot.
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
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "channel.h"
#include "cleanup.h"
#include "idrange.h"
#include "testpoint.h"
#include "init.h"
#include "jail.h"
#include "logfile.h"
#include "net.h"
#include "param.h"
#include "policy.h"
#include "rlimit.h"
#include "ns.h"
#include "process.h"
#include "proc.h"
#include "rawcall.h"
#include "record.h"
#include "rootfs.h"
#include "rootless.h"
#include "store.h"
#include "tty.h"
#include "uts.h"

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

/* Everything the child needs, prepared by the parent before the clone. */
struct child_ctx {
	const struct jail_spec *spec;
	const struct launch_opts *opts;
	const struct cgroup *cgroup;
	struct policy policy; /* compiled before the clone */
	char *attach;	      /* where the new root is attached: the state dir */
	int sock;	      /* child end of the channel */
	/* The reaper's files (its memfd; detached: the exit, restarts and
	 * log files), opened by stage_files(). */
	struct init_plan init;
	int log_fds[INIT_MAX_LOGS];
	unsigned int hold;     /* LAUNCH_HOLD_*: where to stop for the parent */
	struct rootfs_pin pin; /* the --rootfs directory rootfs_check() found */
	bool go_seen;	       /* sync 1 came while held, or first (shared) */
	bool joined_net;       /* child_join_net() done */
	bool shared;	       /* in cell's memory until its exec (stage_spawn) */
	int peer;	       /* shared: cell's end of the channel, to close */
	struct ns_own own;     /* its own user namespace, and what that owns */
	sigset_t parent;       /* the signal mask to restore before execve */
	mode_t umask;
	int fifo_fd; /* stop_created: the exec fifo, open for reading */
	/* The namespaces joined by path (mech.ns_join), opened at prepare,
	 * joined by the child in child_enter() (the pid one by cell, before
	 * the clone: it holds for children only). */
	int join_fd[8];
	int join_type[8];
	size_t njoin;
};

static noreturn void child_fail(const struct child_ctx *c, const struct cell_err *e)
{
	channel_fail(c->sock, e);
}

/* Reads the parent's next byte WANT ("g" or "c").  A "g" that comes
 * while the child waits for a "c" (cell recorded it while it was held)
 * is kept for child_wait_go(). */
static void child_wait_byte(struct child_ctx *c, char want)
{
	char got;
	ssize_t n;

	if (want == 'g' && c->go_seen)
		return;
	for (;;) {
		do
			n = recv(c->sock, &got, 1, 0);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(CELL_EXIT_ERROR); /* cell failed, and says why */
		if (got == want)
			return;
		if (got == 'g')
			c->go_seen = true;
	}
}

/* The end of child stage NAME: a failure injected there (test builds),
 * and the hold the launch asked for. */
static void child_stage(struct child_ctx *c, const char *name, unsigned int hold)
{
	struct cell_err e;

	if (testpoint_fail_at("launch", name, &e))
		child_fail(c, &e);
	if (hold != 0 && (c->hold & hold)) {
		struct child_msg m = {.type = MSG_HOLD, .errnum = (int)hold};

		if (send(c->sock, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
			_exit(CELL_EXIT_ERROR);
		child_wait_byte(c, 'c');
	}
}

/* The child builds the jail in its new namespaces, where nothing else
 * sees it, while cell records it, and then waits for "go" (sync 1): by
 * then the parent has moved it into its cgroups (v1) and recorded its
 * pid, so that the jail never runs its command, or a process of its
 * own, unrecorded.  Its cgroup namespace is made only then, so that the
 * jail's cgroup is the namespace's root. */
static void child_wait_go(struct child_ctx *c, struct cell_err *e)
{
	child_wait_byte(c, 'g');
	if (c->cgroup->layout == CGROUP_NONE)
		return;
	if (unshare(CLONE_NEWCGROUP) < 0) {
		cell_err_set(e, errno, "unshare the cgroup namespace");
		child_fail(c, e);
	}
}

/* enter: dies with cell until set free; its session; the namespaces it
 * joins rather than makes. */
static void child_enter(struct child_ctx *c, struct cell_err *e)
{
	const struct jail_spec *s = c->spec;

	/* CVE-2019-5736: until its exec this process is cell's binary, and
	 * its /proc/PID/exe a way to it; not dumpable, that is closed to
	 * every process without CAP_SYS_PTRACE over the host's. */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		cell_err_set(e, errno, "make the jail's first process non-dumpable");
		child_fail(c, e);
	}
	/* A foreground jail dies with its cell: nothing is left running
	 * if cell is killed. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		cell_err_set(e, errno, "set parent-death signal");
		child_fail(c, e);
	}
	/* Without a pty of its own the jail shares cell's terminal: in a
	 * session of its own, that terminal is not its controlling one, and
	 * the kernel refuses it TIOCSTI (typing into the host's shell). */
	if (!s->proc.terminal && setsid() < 0) {
		cell_err_set(e, errno, "setsid");
		child_fail(c, e);
	}
	/* The namespaces it joins by path (an OCI pod's network, IPC...). */
	for (size_t i = 0; i < c->njoin; i++)
		if (c->join_type[i] != CLONE_NEWPID && setns(c->join_fd[i], c->join_type[i]) < 0) {
			cell_err_set(e, errno, "join namespace %s", s->mech.ns_join[i].path);
			child_fail(c, e);
		}
	child_stage(c, "enter", 0);
}

/* The pty (sync 2): opened in the jail's own devpts, its slave the
 * jail's /dev/console, its master sent to cell.  Returns the slave. */
static int child_terminal(struct child_ctx *c, struct cell_err *e)
{
	struct child_msg m = {.type = MSG_PTY};
	int master = -1, slave = -1;
	char slave_path[32];

	if (tty_open_pair(&master, &slave, slave_path, sizeof(slave_path), e) < 0 ||
	    rootfs_bind_console(slave_path, e) < 0)
		child_fail(c, e);
	/* The size now, before the payload runs: set later by cell, the
	 * change would raise a SIGWINCH the payload never asked for. */
	if (c->spec->proc.console_rows != 0 || c->spec->proc.console_cols != 0) {
		struct winsize ws = {.ws_row = c->spec->proc.console_rows,
				     .ws_col = c->spec->proc.console_cols};

		ioctl(master, TIOCSWINSZ, &ws);
	} else {
		tty_copy_winsize(STDIN_FILENO, master);
	}
	if (tty_send_fd(c->sock, &m, sizeof(m), master) < 0) {
		cell_err_set(e, errno, "send the pty to cell");
		child_fail(c, e);
	}
	/* Sharing cell's memory, the child waits while cell takes it. */
	if (c->shared)
		child_wait_byte(c, 'c');
	close(master);
	return slave;
}

/*
 * The UTS and network namespaces made with its own user namespace (ns.h)
 * replace the ones the clone did not make, before anything is named or
 * brought up and before a sysfs is mounted (the root's build calls this
 * there, rootfs.h), else once the root is built.  The helper may still
 * be making them at the clone: the child waits for its word there (its
 * eventfd) and joins them through its pidfd, having built meanwhile what
 * needs neither.
 */
static int child_join_net(void *arg, struct cell_err *e)
{
	struct child_ctx *c = arg;

	if (c->joined_net)
		return 0;
	if ((c->own.pending && ns_own_join_helper(&c->own, e) < 0) ||
	    ns_own_join_uts_net(&c->own, e) < 0)
		return -1;
	c->joined_net = true;
	return 0;
}

/* A listed mount of type cgroup: the jail's own cgroups there. */
static int mount_listed_cgroups(const struct child_ctx *c, struct cell_err *e)
{
	const struct jail_mount *m = rootfs_cgroup_mount(c->spec);

	if (m == NULL)
		return 0;
	return cgroup_mount_jail(c->cgroup, m->destination, (m->flags & MS_RDONLY) != 0, e);
}

static noreturn void child_main(struct child_ctx *c)
{
	const struct jail_spec *s = c->spec;
	const struct rootfs_ids ids = {
		.userns = c->own.ids.count != 0 ? c->own.user : -1,
		.uid = c->own.ids.uid,
		.gid = c->own.ids.gid,
		.join_net = child_join_net,
		.arg = c,
	};
	struct cell_err e;
	int slave = -1, listener = -1;

	cell_err_clear(&e);
	child_enter(c, &e);
	testpoint_pause("run:building");
	/* What it creates from here on (mount points, /dev, the pty) is
	 * the jail's root's, and creating in an idmapped --rootfs or bind
	 * needs an fsuid the mapping holds.  The credentials change clears
	 * the parent-death signal: armed again. */
	if (ids.userns >= 0) {
		if (ns_fs_ids(ids.uid, ids.gid, &e) < 0)
			child_fail(c, &e);
		channel_rearm_deathsig(c->sock);
	}
	/* Device nodes and mount points get exactly the modes we ask. */
	umask(0);
	if (rootfs_build(s, &c->pin, c->attach, &ids, &e) < 0 || child_join_net(c, &e) < 0)
		child_fail(c, &e);
	child_stage(c, "built", LAUNCH_HOLD_PREPIVOT);
	if (rootfs_pivot(s, &e) < 0 || rootfs_verify(s, &e) < 0)
		child_fail(c, &e);
	child_stage(c, "pivoted", LAUNCH_HOLD_POSTPIVOT);
	if (s->proc.terminal)
		slave = child_terminal(c, &e);
	if (uts_apply(s, &e) < 0)
		child_fail(c, &e);
	/* A network namespace the helper made has its lo up already. */
	if ((s->mech.ns_new & CLONE_NEWNET) && !(c->own.flags & CLONE_NEWNET) &&
	    ns_loopback_up(&e) < 0)
		child_fail(c, &e);
	child_stage(c, "identity", 0);
	child_wait_go(c, &e);
	/* Its cgroups at /sys/fs/cgroup, or where its list of mounts puts
	 * them (read-only unless it says rw), or nowhere if it lists none. */
	if (!s->mech.mounts_given ? cgroup_mount_jail(c->cgroup, NULL, true, &e) < 0
				  : mount_listed_cgroups(c, &e) < 0)
		child_fail(c, &e);
	/* Its rlimits and nice value while it is still the host's root: in
	 * its user namespace, lowering the nice value would need
	 * CAP_SYS_NICE in the host's. */
	if (rlimit_apply(s, &e) < 0)
		child_fail(c, &e);
	/* Root of its own user namespace from here on: the root is built.
	 * Becoming its root changes the credentials, which clears the
	 * parent-death signal: armed again, or a cell killed now would
	 * leave the jail running unrecorded. */
	if (c->own.user >= 0) {
		if (ns_own_join_user(&c->own, &e) < 0)
			child_fail(c, &e);
		channel_rearm_deathsig(c->sock);
		testpoint_pause("run:userns");
	}
	child_stage(c, "entered", 0);
	/* The policy binds --init's reaper too: it is a process of the jail. */
	c->policy.listener = &listener;
	if (policy_apply(s, &c->policy, &e) < 0)
		child_fail(c, &e);
	/* A notify listener goes to cell, for the profile's agent. */
	if (listener >= 0) {
		struct child_msg m = {.type = MSG_SECCOMP};

		if (tty_send_fd(c->sock, &m, sizeof(m), listener) < 0) {
			cell_err_set(&e, errno, "send the seccomp listener to cell");
			child_fail(c, &e);
		}
		if (c->shared)
			child_wait_byte(c, 'c');
		close(listener);
	}
	child_stage(c, "policy", 0);
	struct process_finish f = {
		.spec = s,
		.policy = &c->policy,
		.sock = c->sock,
		.tty_slave = slave,
		/* A pty is its stdio (sent to a console socket), not the log. */
		.detached = c->opts->detach && !c->opts->keep_stdio && slave < 0,
		.init = s->init ? &c->init : NULL,
		.created_fd = c->fifo_fd,
		.preserve_fds = c->opts->preserve_fds,
		.keep_stdout = c->opts->keep_stdout,
		.keep_stderr = c->opts->keep_stderr,
		.rearm_deathsig = s->proc.has_user && !c->opts->detach,
		.outlive_cell = c->opts->detach,
		.umask = c->umask,
		.sigmask = c->parent,
		.passwd_absent = c->pin.passwd_absent,
	};
	process_finish(&f);
}

/* Where a detached jail's stream FD went: "log" (the reaper's), the
 * file the caller sent it to (as /proc/self/fd/FD names it: cell logs
 * says so), or null (not kept: no reaper). */
static json_t *output_of(const struct jail_spec *s, bool kept, int fd)
{
	char link[32], path[4096];
	ssize_t n;

	if (!kept)
		return s->init ? json_string("log") : json_null();
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n < 0)
		return json_string("?");
	path[n] = '\0';
	/* jansson takes UTF-8 only. */
	return json_stringn(path, (size_t)n) ?: json_string("?");
}

/* state.json: what `cell ls`, `cell inspect`, `exec` and `set` read
 * (record.h).  PHASE is "creating" (PID is then cell's own: a record
 * that outlives its creator names the cgroups to remove) or "running". */
static json_t *state_record(const struct jail_spec *s, const struct launch_opts *o,
			    const struct cgroup *cg, const struct net_plan *net, pid_t pid,
			    unsigned long long start, int jid, time_t created, const char *phase)
{
	struct record_run run = {.jid = jid,
				 .pid = pid,
				 .start_time = start,
				 .created = created,
				 .state = phase,
				 .cgroup = cgroup_to_json(cg),
				 .detach = o->detach,
				 .autoremove = !o->detach || o->autoremove};
	json_t *rec = record_new(s, &run);

	/* When this run began (created stays the jail's first, cell start). */
	if (rec != NULL && json_object_set_new(rec, "started", record_time(time(NULL))) < 0) {
		json_decref(rec);
		return NULL;
	}

	if (rec != NULL && o->detach && !o->keep_stdio &&
	    json_object_set_new(rec, "output",
				json_pack("{s:o, s:o}", "stdout",
					  output_of(s, o->keep_stdout, STDOUT_FILENO), "stderr",
					  output_of(s, o->keep_stderr, STDERR_FILENO))) < 0) {
		json_decref(rec);
		return NULL;
	}
	/* A jail in the host's pid namespace (an OCI config without one):
	 * its pid 1 is no pid 1, and is known by pid and start time only. */
	if (rec != NULL && !(s->mech.ns_new & CLONE_NEWPID) &&
	    json_object_set_new(rec, "host_pidns", json_true()) < 0) {
		json_decref(rec);
		return NULL;
	}

	/* A rootless cell's jail: how its user namespace maps the user's
	 * ids (rootless.h), for inspect. */
	if (rec != NULL && s->mech.rootless &&
	    json_object_set_new(rec, "rootless",
				json_string(rootless_mapping_name(rootless_mapping()))) < 0) {
		json_decref(rec);
		return NULL;
	}
	/* A bridged jail's network, as chosen: what its teardown needs. */
	if (rec != NULL && net_record(rec, net) < 0) {
		json_decref(rec);
		return NULL;
	}
	if (rec != NULL && o->record_extra != NULL &&
	    json_object_update(rec, (json_t *)o->record_extra) < 0) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

static int record_state(struct store_jail *j, const struct jail_spec *s,
			const struct launch_opts *o, const struct cgroup *cg,
			const struct net_plan *net, const struct idrange *ids, pid_t pid,
			time_t created, const char *phase, struct cell_err *e)
{
	unsigned long long start;
	json_t *st;
	int ret;

	if (proc_start_time(pid, &start) < 0)
		return cell_err_set(e, errno, "jail %s: read start time of pid %d", s->name,
				    (int)pid);
	st = state_record(s, o, cg, net, pid, start, j->jid, created, phase);
	/* The range of host ids the jail holds (idrange.h): its removal
	 * gives it back. */
	if (st == NULL || json_object_set_new(st, "idmap", idrange_to_json(ids)) < 0) {
		json_decref(st);
		return cell_err_set(e, ENOMEM, "jail %s: state", s->name);
	}
	ret = store_jail_write(j, st, e);
	json_decref(st);
	return ret;
}

/* A launch under way: what its stages made, for the stages after them
 * and for their undoing. */
struct launch {
	const struct jail_spec *spec;
	const struct launch_opts *opts;
	struct child_ctx child;
	struct cgroup cg;
	struct run r;
	struct store_jail jail;
	struct idrange ids;  /* the jail's host ids; count 0: none */
	struct net_plan net; /* a bridged jail's network (net.h) */
	int netns_fd;	     /* the jail's network namespace, for cell-net; -1: its pid's */
	int rootfd;
	int sv[2];
	time_t created;
	bool keep; /* the jail lives on (-d), or was removed meanwhile (rm -f) */
	/* Whether cell was dumpable before a child in its memory made their
	 * memory not (stage_spawn; the child is there while r.shared). */
	int dumpable;
};

/* No reaper's files (yet). */
static void init_plan_clear(struct child_ctx *c)
{
	c->init = (struct init_plan){.memfd = -1,
				     .status_fd = -1,
				     .restarts_fd = -1,
				     .out_fd = -1,
				     .err_fd = -1,
				     .log_fds = c->log_fds,
				     .restart = c->spec->restart,
				     .restart_max = c->spec->restart_max};
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
 * clone; with them, only once it is inside (child_wait_go()).  The
 * namespaces its user namespace owns were made with it (ns_own_start()). */
static unsigned long long clone_flags(const struct jail_spec *s, const struct cgroup *cg)
{
	unsigned long long f = ns_clone_flags(s);

	if (cg->layout != CGROUP_NONE)
		f &= ~(unsigned long long)CLONE_NEWCGROUP;
	if (s->mech.own_userns)
		f &= ~(unsigned long long)s->mech.userns_owns;
	/* With offsets, cell made it for the clone (time_ns_for_child()). */
	if (s->mech.has_time_offsets)
		f &= ~(unsigned long long)CLONE_NEWTIME;
	return f;
}

/* cell set may have given the jail cgroups it did not start with: the
 * record names every one to remove (read again only if another command
 * has replaced it). */
static void reload_cgroups(struct store_jail *j, struct cgroup *cg)
{
	json_t *st = store_jail_rewritten(j) ? store_jail_read(j) : NULL;
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

/* --- the parent's stages ------------------------------------------- */

/* The namespaces the spec joins by path, opened and checked to be
 * namespaces of the type it says.  The mount, user and time namespaces
 * cannot be joined: the jail's root is built in a mount namespace of its
 * own, by cell as the host's root. */
static int open_joined(struct launch *l, struct cell_err *e)
{
	const struct jail_mechanisms *m = &l->spec->mech;
	struct child_ctx *c = &l->child;

	if (m->nns_join > sizeof(c->join_fd) / sizeof(c->join_fd[0]))
		return cell_err_set(e, E2BIG, "jail %s: too many namespaces to join",
				    l->spec->name);
	for (size_t i = 0; i < m->nns_join; i++) {
		const char *path = m->ns_join[i].path;
		int type = m->ns_join[i].type, fd, got;

		if (type == CLONE_NEWNS || type == CLONE_NEWUSER || type == CLONE_NEWTIME)
			return cell_err_set(e, EINVAL,
					    "namespace %s: joining a %s namespace is not supported",
					    path,
					    type == CLONE_NEWNS	    ? "mount"
					    : type == CLONE_NEWUSER ? "user"
								    : "time");
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return cell_err_set(e, errno, "namespace %s", path);
		c->join_fd[c->njoin] = fd;
		c->join_type[c->njoin++] = type;
		got = ioctl(fd, NS_GET_NSTYPE);
		if (got < 0)
			return cell_err_set(e, errno == ENOTTY ? EINVAL : errno,
					    "namespace %s: not a namespace", path);
		if (got != type)
			return cell_err_set(e, EINVAL, "namespace %s: not a namespace of that type",
					    path);
	}
	return 0;
}

/* prepare: the clear errors, before anything is created; the policy. */
static int stage_prepare(struct launch *l, struct cell_err *e)
{
	const struct jail_spec *s = l->spec;

	if (net_check(s, e) < 0 || rootfs_check(s, &l->child.pin, e) < 0 ||
	    rlimit_check(s, e) < 0 || cgroup_check_cpus(s->limits.cpus_milli, e) < 0 ||
	    cgroup_check_rootless(s, e) < 0 || open_joined(l, e) < 0 ||
	    policy_build(s, &l->child.policy, e) < 0)
		return -1;
	/* --net slirp: its program found, or the one clear error. */
	return slirp_find(&l->net.slirp, s, e);
}

static void undo_prepare(struct launch *l)
{
	struct child_ctx *c = &l->child;

	for (size_t i = 0; i < c->njoin; i++)
		close(c->join_fd[i]);
	c->njoin = 0;
	policy_free(&c->policy);
}

/* userns: a rootless cell becomes root of a user namespace of its own,
 * mapped as the user may (rootless.h); the stages after run in it.  The
 * checks of prepare and the state root's ran before, in the host's
 * terms (a --rootfs or state root owned by root or the user).  Nothing to undo: the namespace goes
 * with cell. */
static int stage_userns(struct launch *l, struct cell_err *e)
{
	const struct jail_mechanisms *m = &l->spec->mech;

	if (!m->rootless)
		return 0;
	/* An OCI config's user namespace is this one, with its maps
	 * (oci_config.c); without a helper of cell's to make it. */
	if (!m->own_userns && m->nuid_map > 0)
		return rootless_enter(m->uid_map, m->nuid_map, m->gid_map, m->ngid_map, e);
	return rootless_enter(NULL, 0, NULL, 0, e);
}

/* state, for `cell start`: the stopped jail's own directory, which the
 * caller has locked, taken over with its JID. */
static int take_over_state(struct launch *l, struct cell_err *e)
{
	struct jail *old = l->opts->reuse;

	if (store_open_root(l->opts->state_root, &l->rootfd, e) < 0)
		return -1;
	l->jail = old->dir;
	old->dir.dirfd = -1;
	old->dir.name = NULL;
	old->dir.locked = false;
	return 0;
}

/* state: the jail's directory, created, locked, with its JID. */
static int stage_state(struct launch *l, struct cell_err *e)
{
	if (l->opts->reuse != NULL)
		return take_over_state(l, e);
	if (store_open_root(l->opts->state_root, &l->rootfd, e) < 0 ||
	    store_jail_create(l->rootfd, l->spec->name, jail_reap_cb, NULL, &l->jail, e) < 0)
		return -1;
	testpoint_pause("run:created");
	return 0;
}

static void undo_state(struct launch *l)
{
	struct cell_err ignored;

	if (l->jail.dirfd < 0)
		return;
	/* A stopped jail started again stays, stopped, with its record. */
	if (l->opts->reuse != NULL) {
		store_jail_write(&l->jail, l->opts->reuse->state, &ignored);
		store_jail_close(&l->jail);
		return;
	}
	store_jail_remove(l->rootfd, &l->jail, &ignored);
}

/* ids: the jail's range of host ids, held in its name (it needs the
 * jail's directory: the range's owner), and its user namespace, owned by
 * the range's first uid, made with its helper (ns.h). */
static int stage_ids(struct launch *l, struct cell_err *e)
{
	const struct jail_spec *s = l->spec;

	if (!s->mech.own_userns)
		return 0;
	/* A jail started again keeps the range it has held since its first
	 * start (released only with its state). */
	if (l->opts->reuse != NULL)
		idrange_from_json(json_object_get(l->opts->reuse->state, "idmap"), &l->ids);
	if (s->mech.userns_range && l->ids.count == 0 &&
	    idrange_acquire(l->opts->state_root, s->name, l->jail.dirfd, &l->ids, e) < 0)
		return cell_err_prefix(e, "jail %s", s->name);
	l->child.own.uid_map = s->mech.uid_map;
	l->child.own.nuid_map = s->mech.nuid_map;
	l->child.own.gid_map = s->mech.gid_map;
	l->child.own.ngid_map = s->mech.ngid_map;
	return ns_own_start(&l->child.own, s->mech.userns_owns, &l->ids, e);
}

static void undo_ids(struct launch *l)
{
	ns_own_close(&l->child.own);
	if (l->opts->reuse == NULL)
		idrange_release(&l->ids, l->jail.dirfd);
	l->ids.count = 0;
}

/* cgroups: recorded before they exist, so that a cell killed from here
 * on leaves a record naming what to remove.  (Without cgroups, such a
 * cell leaves a directory without a record, which the next command
 * removes: one write fewer on the common path.) */
static int stage_cgroups(struct launch *l, struct cell_err *e)
{
	const struct jail_spec *s = l->spec;

	if (cgroup_plan(&l->cg, s, l->opts->state_root, e) < 0 ||
	    (l->cg.layout != CGROUP_NONE &&
	     record_state(&l->jail, s, l->opts, &l->cg, &l->net, &l->ids, getpid(), l->created,
			  "creating", e) < 0))
		return -1;
	testpoint_pause("run:recorded");
	if (cgroup_make(&l->cg, s, e) < 0)
		return -1;
	testpoint_pause("run:cgroups");
	return 0;
}

static void undo_cgroups(struct launch *l)
{
	struct cell_err ignored;

	cgroup_destroy(&l->cg, &ignored);
}

/* A detached jail's files for its reaper: the exit status, the count of
 * restarts, the ring of log files (logfile.h). */
static int init_files(struct launch *l, struct cell_err *e)
{
	const struct jail_spec *s = l->spec;
	struct init_plan *p = &l->child.init;
	long long keep = s->log_keep >= 0 ? s->log_keep : LAUNCH_LOG_KEEP;

	if ((p->status_fd = open_jail_file(&l->jail, "exit", O_TRUNC, e)) < 0 ||
	    (p->restarts_fd = open_jail_file(&l->jail, "restarts", O_TRUNC, e)) < 0)
		return -1;
	/* Both streams sent to files by the caller: nothing to log. */
	if (l->opts->keep_stdout && l->opts->keep_stderr)
		return 0;
	if (logfile_open_ring(l->jail.dirfd, (int)keep + 1, l->child.log_fds, &p->log_cur, e) < 0)
		return cell_err_prefix(e, "jail %s", s->name);
	p->nlogs = (int)keep + 1;
	p->log_size = s->log_size >= 0 ? s->log_size : LAUNCH_LOG_SIZE;
	return 0;
}

/* files: what the child takes with it: a detached jail's log, exit and
 * restarts files, cell-init's memfd, the attach point (its own state directory:
 * the root is attached over it in the jail's mount namespace only), the
 * helper's namespaces with their maps written. */
static int stage_files(struct launch *l, struct cell_err *e)
{
	const struct jail_spec *s = l->spec;
	struct child_ctx *c = &l->child;

	if (l->opts->stop_created) {
		if (mkfifoat(l->jail.dirfd, "exec.fifo", 0600) < 0)
			return cell_err_set(e, errno, "jail %s: make exec.fifo", s->name);
		c->fifo_fd = openat(l->jail.dirfd, "exec.fifo",
				    O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
		if (c->fifo_fd < 0)
			return cell_err_set(e, errno, "jail %s: open exec.fifo", s->name);
	}
	if (s->init && (c->init.memfd = init_memfd(e)) < 0)
		return -1;
	if (s->init && l->opts->detach && !l->opts->keep_stdio && init_files(l, e) < 0)
		return -1;
	if (asprintf(&c->attach, "%s/%s", l->opts->state_root, s->name) < 0) {
		c->attach = NULL;
		return cell_err_set(e, ENOMEM, "jail %s", s->name);
	}
	/* The helper's network namespace is cell's business before the
	 * clone only for a bridge or slirp; else the jail's first process
	 * joins it itself once the helper says it is made (meanwhile). */
	if (c->own.helper > 0 &&
	    ns_own_finish(&c->own, net_has_stage(&l->net) || l->net.slirp.on, e) < 0)
		return cell_err_prefix(e, "jail %s", s->name);
	/* The network namespace made with the jail's user namespace is
	 * the jail's before its first process has joined it: cell-net (or
	 * the slirp program) gets this one, not what /proc/PID/ns/net says
	 * at that moment. */
	if (l->net.slirp.on && c->own.net < 0 && (c->own.net = slirp_netns(e)) < 0)
		return cell_err_prefix(e, "jail %s", s->name);
	if (net_has_stage(&l->net) && c->own.net >= 0 &&
	    (l->netns_fd = fcntl(c->own.net, F_DUPFD_CLOEXEC, 3)) < 0)
		return cell_err_set(e, errno, "jail %s: its network namespace", s->name);
	return 0;
}

static void undo_files(struct launch *l)
{
	struct child_ctx *c = &l->child;

	struct init_plan *p = &c->init;

	for (int i = 0; i < p->nlogs; i++)
		close(c->log_fds[i]);
	if (p->status_fd >= 0)
		close(p->status_fd);
	if (p->restarts_fd >= 0)
		close(p->restarts_fd);
	if (p->memfd >= 0)
		close(p->memfd);
	if (c->fifo_fd >= 0)
		close(c->fifo_fd);
	c->fifo_fd = -1;
	init_plan_clear(c);
	free(c->attach);
	c->attach = NULL;
	if (l->netns_fd >= 0)
		close(l->netns_fd);
	l->netns_fd = -1;
}

/*
 * address: a bridged jail's addresses chosen under the root's network
 * lock and recorded ("creating", with what the teardown needs) before
 * the lock goes and before anything is made: a cell killed from here on
 * leaves a record the next command tears down.  A bridged or joined
 * jail's hosts, hostname and resolv.conf, which its root binds.
 */
static int stage_address(struct launch *l, struct cell_err *e)
{
	const struct jail_spec *s = l->spec;
	int lock = -1, ret;

	if (!net_has_files(s))
		return 0;
	if (net_plan(&l->net, s, l->opts->state_root, l->rootfd, l->jail.jid, &lock, e) < 0)
		return -1;
	if (l->net.bridged) {
		ret = record_state(&l->jail, s, l->opts, &l->cg, &l->net, &l->ids, getpid(),
				   l->created, "creating", e);
		net_unlock(lock);
		if (ret < 0)
			return -1;
		testpoint_pause("run:net-recorded");
	}
	return net_write_files(l->jail.dirfd, s, &l->net, e);
}

/* net: cell-net setup, or the slirp program started, with the jail's
 * namespace made and its first process waiting for "go" (sync 1). */
static int stage_net(struct launch *l, struct cell_err *e)
{
	cleanup_close int own = -1;
	char path[64];
	int fd, ret;

	if (!net_has_stage(&l->net))
		return 0;
	if (l->netns_fd < 0) {
		/* Made by the clone itself: the child's already. */
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)l->r.pid);
		own = open(path, O_RDONLY | O_CLOEXEC);
		if (own < 0)
			return cell_err_set(e, errno, "jail %s: its network namespace",
					    l->spec->name);
	}
	testpoint_pause("run:net");
	fd = l->netns_fd >= 0 ? l->netns_fd : own;
	if (l->net.slirp.on)
		ret = slirp_start(&l->net.slirp, l->spec, l->jail.dirfd, fd, l->r.pidfd, e);
	else
		ret = net_setup(&l->net, l->spec, fd, e);
	if (ret < 0)
		return -1;
	/* cell holds the namespace no longer: it goes with the jail's last
	 * process, and the kernel takes the veth with it (teardown
	 * --ended: deleting it would wait out unregister's grace periods). */
	if (l->netns_fd >= 0)
		close(l->netns_fd);
	l->netns_fd = -1;
	testpoint_pause("run:net-made");
	return 0;
}

/* What cell-net made goes: the rules, the veth, the bridge when it was
 * its last jail's.  (Idempotent: also after a setup that failed.) */
static void undo_net(struct launch *l)
{
	struct cell_err ignored;

	net_teardown(&l->net, false, &ignored);
}

/* A time namespace with clock offsets: they can be written only before
 * a process enters it, so cell makes it for its children (unshare), writes
 * them, and the clone is born there (*OWN: cell's own, to go back to). */
static int time_ns_for_child(struct launch *l, int *own, struct cell_err *e)
{
	const struct jail_mechanisms *m = &l->spec->mech;
	char text[128];
	int fd, len;

	*own = open("/proc/self/ns/time", O_RDONLY | O_CLOEXEC);
	if (*own < 0)
		return cell_err_set(e, errno, "time namespace: open cell's");
	len = snprintf(text, sizeof(text), "monotonic %lld %ld\nboottime %lld %ld\n",
		       m->time_offsets[0].secs, m->time_offsets[0].nanosecs,
		       m->time_offsets[1].secs, m->time_offsets[1].nanosecs);
	if (unshare(CLONE_NEWTIME) < 0) {
		cell_err_set(e, errno, "time namespace: unshare");
		goto fail;
	}
	fd = open("/proc/self/timens_offsets", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, (size_t)len) != len) {
		cell_err_set(e, errno, "time namespace: write its offsets");
		if (fd >= 0)
			close(fd);
		setns(*own, CLONE_NEWTIME);
		goto fail;
	}
	close(fd);
	return 0;
fail:
	close(*own);
	*own = -1;
	return -1;
}

/* The stack of a child in cell's memory, its lowest page a guard; its
 * context at its top. */
#define CHILD_STACK (1024 * 1024)

/*
 * The jail's first process, born in cell's memory (CLONE_VM): no page
 * tables copied at the clone, no page copied when either writes, nothing
 * torn down at its execve(), which gives it a memory of its own.  The two
 * take turns (channel.h, run_send()): it waits for "go" (sync 1) before
 * anything else, while cell records it; then cell waits while it builds,
 * until its execve(), its end, or a message it waits for an answer to.
 * It works on its own copy of the context (at the top of its stack).
 */
static int child_shared(void *arg)
{
	struct child_ctx *c = arg;
	char got = 0;
	long n;

	/* Raw calls until "go": cell still has the turn.  cell's end closed
	 * first, so that a cell that dies before it is end-of-file here. */
	raw_call(SYS_close, c->peer, 0, 0, 0);
	do
		n = raw_call6(SYS_recvfrom, c->sock, (long)&got, 1, 0, 0, 0);
	while (n == -EINTR);
	if (n != 1 || got != 'g')
		raw_call(SYS_exit_group, CELL_EXIT_ERROR, 0, 0, 0); /* cell failed, and says why */
	c->go_seen = true;
	child_main(c);
}

/* A jail's first process may share cell's memory: not where the launch
 * stops at created (cell ends while the process waits to be started),
 * not in a time namespace of its own (its clock pages are the memory's),
 * not when it parses a file of the image (a flaw of that parser must
 * reach the jail's process at most, never cell's memory: it runs as the
 * host's root), and where ns_clone_vm() is (x86-64). */
static bool child_may_share(const struct launch *l)
{
#if defined(__x86_64__)
	return !l->opts->stop_created && !l->spec->mech.has_time_offsets &&
	       !process_reads_image(l->spec, l->child.pin.passwd_absent);
#else
	(void)l;
	return false;
#endif
}

/* The child has left cell's memory (exec'd, or ended): cell is dumpable
 * again if it was.  Its stack stays mapped, for the next launch of this
 * cell's (an unmap would make the kernel flush the other CPUs' TLBs, a
 * slow call to the hypervisor on a VM: 0.3 ms on the test machine). */
static void child_left(struct launch *l)
{
	if (!l->r.shared)
		return;
	l->r.shared = false;
	if (l->dumpable > 0)
		prctl(PR_SET_DUMPABLE, l->dumpable, 0, 0, 0);
}

/* The stack of the shared children, one at a time: mapped at the first. */
static void *child_stack;

/* Clones the child into cell's memory: its context copied to the top of
 * its stack. */
static pid_t clone_shared(struct launch *l, unsigned long long flags)
{
	struct child_ctx *copy;
	char *top;
	pid_t pid;

	if (child_stack == NULL) {
		void *m = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

		if (m == MAP_FAILED)
			return -1;
		if (mprotect(m, 4096, PROT_NONE) < 0) {
			int err = errno;

			munmap(m, CHILD_STACK);
			errno = err;
			return -1;
		}
		child_stack = m;
	}
	top = (char *)child_stack + CHILD_STACK;
	copy = (struct child_ctx *)(((uintptr_t)top - sizeof(*copy)) & ~(uintptr_t)63);
	*copy = l->child;
	copy->shared = true;
	copy->peer = l->sv[0];
	/* PR_SET_DUMPABLE is the memory's: once the child has made itself
	 * not dumpable (child_enter(), after "go"), so is cell, until
	 * child_left(). */
	l->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	l->r.shared = true;
	pid = ns_clone_vm(flags, l->cg.fd, &l->r.pidfd, child_stack,
			  (size_t)((char *)copy - (char *)child_stack) & ~(size_t)15, child_shared,
			  copy);
	if (pid < 0)
		l->r.shared = false;
	return pid;
}

/* spawn: the channel, the forwarded signals blocked (queued, not lost,
 * while the jail starts), and the clone into every namespace. */
static int stage_spawn(struct launch *l, struct cell_err *e)
{
	struct child_ctx *c = &l->child;
	unsigned long long flags;
	int own_time = -1;

	if (run_open(&l->r, l->sv, e) < 0)
		return -1;
	c->parent = l->r.saved;
	c->sock = l->sv[1];
	c->umask = umask(022);
	umask(c->umask);
	l->r.pty_elsewhere = l->opts->console_socket != NULL;
	/* A pid namespace joined by path holds for cell's children only:
	 * cell joins it just before the clone.  (A launch is cell's last
	 * act: nothing else of cell's is forked after it.) */
	for (size_t i = 0; i < c->njoin; i++)
		if (c->join_type[i] == CLONE_NEWPID && setns(c->join_fd[i], CLONE_NEWPID) < 0)
			return cell_err_set(e, errno, "join namespace %s",
					    l->spec->mech.ns_join[i].path);
	if (l->spec->mech.has_time_offsets && time_ns_for_child(l, &own_time, e) < 0)
		return -1;
	/* A network namespace made beforehand (slirp) is joined, not made. */
	flags = clone_flags(l->spec, &l->cg) &
		~(c->own.net >= 0 ? (unsigned long long)CLONE_NEWNET : 0ULL);
	l->r.pid = child_may_share(l) ? clone_shared(l, flags)
				      : ns_clone(flags, l->cg.fd, &l->r.pidfd);
	/* Cell's own children are born in its own time namespace again. */
	if (own_time >= 0 && l->r.pid != 0) {
		int err = setns(own_time, CLONE_NEWTIME) < 0 ? errno : 0;

		close(own_time);
		if (err != 0 && l->r.pid > 0)
			return cell_err_set(e, err, "time namespace: back to cell's");
	}
	if (l->r.pid < 0)
		return cell_err_set(e, errno, "clone the jail's namespaces");
	if (l->r.pid == 0) {
		close(l->sv[0]);
		child_main(c);
	}
	/* The exec fifo's reader is the child alone: its close at the exec
	 * is what start waits for (a created child never shares). */
	if (c->fifo_fd >= 0) {
		close(c->fifo_fd);
		c->fifo_fd = -1;
	}
	/* The namespaces are the child's now.  A helper whose namespaces
	 * the child joins itself lives until the child has, and is reaped
	 * after the exec (stage_exec): until then cell has two children.
	 * Else, killed once they were opened, it is reaped now.  After the
	 * exec the jail's first process is cell's only child (as tests and
	 * tools that walk a cell's children expect). */
	if (c->own.pending) {
		ns_own_close_namespaces(&c->own);
	} else {
		ns_own_close(&c->own);
		ns_own_reap(&c->own);
	}
	run_take_channel(&l->r, l->sv);
	testpoint_pause("run:cloned");
	return 0;
}

/* Kills and reaps the child (a pidfd: never another process). */
static void undo_spawn(struct launch *l)
{
	if (l->r.pidfd >= 0 && l->r.pid > 0) {
		syscall(SYS_pidfd_send_signal, l->r.pidfd, SIGKILL, NULL, 0);
		run_supervise(&l->r);
	}
	child_left(l);
	run_close(&l->r, l->sv);
}

/* A child that has failed already is no error here: its reason waits on
 * the channel, read next. */
static int send_byte(struct run *r, char byte, struct cell_err *e)
{
	if (run_send(r, byte) < 0 && errno != EPIPE && errno != ECONNRESET)
		return cell_err_set(e, errno, "start the jail");
	return 0;
}

/* start: in its cgroups (v1: moved here), recorded with its pid, then
 * "go" (sync 1).  The jail never runs a process of its own or its
 * command unrecorded. */
static int stage_start(struct launch *l, struct cell_err *e)
{
	struct run *r = &l->r;

	if ((l->cg.layout == CGROUP_V1 && cgroup_add_pid(&l->cg, r->pid, e) < 0) ||
	    record_state(&l->jail, l->spec, l->opts, &l->cg, &l->net, &l->ids, r->pid, l->created,
			 l->opts->stop_created ? "created" : "running", e) < 0 ||
	    send_byte(r, 'g', e) < 0)
		return -1;
	testpoint_pause("run:started");
	return 0;
}

/* The child is held (sync "hold"): the caller's turn, then "c". */
static int release_hold(struct launch *l, struct cell_err *e)
{
	const struct launch_opts *o = l->opts;
	enum launch_hold where = (enum launch_hold)l->r.hold;

	l->r.hold = 0;
	if (o->on_hold != NULL && o->on_hold(where, l->r.pid, o->ctx, e) < 0)
		return -1;
	return send_byte(&l->r, 'c', e);
}

static int open_fifo(int dirfd, const char *name, struct cell_err *e);
static int release_fifo(int dirfd, int fd, const char *state, struct cell_err *e);
static int write_pid_file(const char *file, pid_t pid, struct cell_err *e);

/* A foreground launch that stopped at created goes on at once: the
 * record says running, the state goes into the exec fifo as
 * jail_start() writes it; the caller's started() runs once the process
 * has exec'd (wait_and_release(): the jail unlocked meanwhile). */
static int start_here(struct launch *l, struct cell_err *e)
{
	const struct launch_opts *o = l->opts;
	cleanup_free char *state = o->start_state != NULL ? o->start_state(l->r.pid, o->ctx) : NULL;
	cleanup_close int fifo = -1;

	if (o->pid_file != NULL && write_pid_file(o->pid_file, l->r.pid, e) < 0)
		return -1;
	if (record_state(&l->jail, l->spec, o, &l->cg, &l->net, &l->ids, l->r.pid, l->created,
			 "running", e) < 0)
		return -1;
	fifo = open_fifo(l->jail.dirfd, l->spec->name, e);
	if (fifo < 0)
		return -1;
	if (release_fifo(l->jail.dirfd, fifo, state != NULL ? state : "", e) < 0)
		return cell_err_prefix(e, "jail %s", l->spec->name);
	/* started() once it has exec'd: run_supervise() says when. */
	l->r.execd_fd = fifo;
	l->r.started = o->started;
	l->r.started_ctx = o->ctx;
	fifo = -1;
	return 0;
}

/* exec: until the command runs (sync 3), still holding the jail's lock:
 * exec, set and stop find the jail built or not at all, never half-way
 * (a cell exec that joined it now could land in the copy of the host's
 * mounts).  The child's error, if it sent one, is the launch's. */
static int stage_exec(struct launch *l, struct cell_err *e)
{
	for (;;) {
		run_wait_exec(&l->r);
		if (l->r.failed)
			break;
		/* The agent gets the listener at once: a call the process
		 * makes before its exec may already wait on it. */
		if (l->r.seccomp_fd >= 0 && !l->r.seccomp_handed) {
			l->r.seccomp_handed = true;
			if (l->opts->on_seccomp != NULL &&
			    l->opts->on_seccomp(l->r.seccomp_fd, l->r.pid, l->opts->ctx, e) < 0)
				return cell_err_prefix(e, "jail %s", l->spec->name);
			/* A shared child waits for the answer (channel.h). */
			if (l->r.shared && send_byte(&l->r, 'c', e) < 0)
				return -1;
			continue;
		}
		if (l->r.hold == 0)
			break;
		if (release_hold(l, e) < 0)
			return -1;
	}
	/* End of file: the child exec'd or ended, and is out of cell's
	 * memory.  Exec'd or created, it has joined the helper's namespaces:
	 * the helper has ended, and is reaped (a failed launch's undo does). */
	if (l->r.sock < 0)
		child_left(l);
	if (l->r.failed) {
		run_child_error(&l->r, e);
		return cell_err_prefix(e, "jail %s", l->spec->name);
	}
	ns_own_close(&l->child.own);
	ns_own_reap(&l->child.own);
	if (l->opts->stop_created && !l->r.created)
		return cell_err_set(e, EPIPE, "jail %s: its process ended before it was created",
				    l->spec->name);
	if (l->opts->stop_created && !l->opts->detach && start_here(l, e) < 0)
		return -1;
	if (l->opts->detach)
		testpoint_pause("run:execd");
	return 0;
}

struct stage {
	const char *name; /* CELL_TEST_FAIL=launch:NAME fails it (test builds) */
	int (*run)(struct launch *l, struct cell_err *e);
	void (*undo)(struct launch *l);
};

/* In order; a failure undoes the stages before it, in reverse. */
static const struct stage stages[] = {
	{"prepare", stage_prepare, undo_prepare},
	{"state", stage_state, undo_state},
	{"userns", stage_userns, NULL},
	{"ids", stage_ids, undo_ids},
	{"cgroups", stage_cgroups, undo_cgroups},
	{"address", stage_address, NULL},
	{"files", stage_files, undo_files},
	{"spawn", stage_spawn, undo_spawn},
	{"net", stage_net, undo_net},
	{"start", stage_start, NULL},
	{"exec", stage_exec, NULL},
};
#define NSTAGES (sizeof(stages) / sizeof(stages[0]))

static void undo_from(struct launch *l, size_t n)
{
	while (n-- > 0)
		if (stages[n].undo != NULL)
			stages[n].undo(l);
}

/* Runs every stage; on a failure, the ones done are undone. */
static int run_stages(struct launch *l, struct cell_err *e)
{
	for (size_t i = 0; i < NSTAGES; i++) {
		if (stages[i].run(l, e) < 0 || testpoint_fail_at("launch", stages[i].name, e)) {
			/* The stage's own part too: each undo is safe on what
			 * it finds half made. */
			undo_from(l, i + 1);
			return -1;
		}
	}
	return 0;
}

/* Writes the jail's host pid into O->pid_file (a temporary file beside
 * it, renamed: a reader never sees half of it). */
static int write_pid_file(const char *file, pid_t pid, struct cell_err *e)
{
	cleanup_free char *tmp = NULL;
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", (int)pid), fd;

	if (asprintf(&tmp, "%s.cell-tmp", file) < 0) {
		tmp = NULL;
		return cell_err_set(e, ENOMEM, "pid file %s", file);
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return cell_err_set(e, errno, "pid file %s", file);
	if (write(fd, buf, (size_t)len) != len || close(fd) < 0 || rename(tmp, file) < 0) {
		int err = errno;

		unlink(tmp);
		return cell_err_set(e, err, "pid file %s", file);
	}
	return 0;
}

/* The pty's master to the console socket, as runc sends it: SCM_RIGHTS
 * with the pty's name as the message. */
static int send_console(const char *path, int master, struct cell_err *e)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	cleanup_close int sock = -1;
	char name[64] = "/dev/console";

	if (strlen(path) >= sizeof(sa.sun_path))
		return cell_err_set(e, ENAMETOOLONG, "console socket %s", path);
	strcpy(sa.sun_path, path);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return cell_err_set(e, errno, "console socket %s", path);
	if (ptsname_r(master, name, sizeof(name)) != 0)
		strcpy(name, "/dev/console");
	if (tty_send_fd(sock, name, strlen(name), master) < 0)
		return cell_err_set(e, errno, "console socket %s: send the pty", path);
	return 0;
}

/* A detached jail lives on without cell: its cgroups and state stay. */
static int leave_detached(struct launch *l, struct cell_err *e)
{
	const struct jail_spec *s = l->spec;
	int ret = 0;

	if (l->opts->console_socket != NULL && l->r.master >= 0 &&
	    send_console(l->opts->console_socket, l->r.master, e) < 0)
		ret = -1;
	else if (l->opts->console_socket != NULL && l->r.master < 0 && s->proc.terminal)
		ret = cell_err_set(e, EPROTO, "jail %s: no pty came for the console socket",
				   s->name);
	if (ret == 0 && l->opts->pid_file != NULL &&
	    write_pid_file(l->opts->pid_file, l->r.pid, e) < 0)
		ret = -1;
	if (ret < 0) {
		/* Nothing half-made: the jail goes as a failed start would. */
		undo_net(l);
		undo_spawn(l);
		undo_files(l);
		undo_cgroups(l);
		undo_ids(l);
		undo_state(l);
		undo_prepare(l);
		return -1;
	}
	if (l->opts->autoremove &&
	    jail_watch_remove(l->opts->state_root, s->name, l->r.pid, l->r.pidfd, e) < 0)
		ret = -1;
	run_close(&l->r, l->sv);
	undo_files(l);
	cgroup_release(&l->cg);
	store_jail_close(&l->jail);
	return ret;
}

/* wait, then release: the command runs with the jail unlocked (exec,
 * set, stop and rm -f may take it); then its cgroups and state go, unless
 * an rm -f removed them meanwhile.  A failure to remove them is reported,
 * and *status keeps the command's status. */
static int wait_and_release(struct launch *l, int *status, struct cell_err *e)
{
	struct cell_err ignored;
	int ret = 0;

	store_jail_unlock(&l->jail);
	*status = run_supervise(&l->r);
	run_close(&l->r, l->sv);
	undo_files(l);
	if (store_jail_relock(l->rootfd, &l->jail) < 0) {
		/* Removed meanwhile (cell rm -f): its cgroups went with it,
		 * and a jail of the same name may own them now. */
		cgroup_release(&l->cg);
		store_jail_close(&l->jail);
		return 0;
	}
	reload_cgroups(&l->jail, &l->cg);
	if (testpoint_fail("run:cleanup")) {
		cell_err_set(e, EBUSY, "remove the jail's cgroups (test failure)");
		ret = -1;
	}
	if (cgroup_destroy(&l->cg, ret == 0 ? e : &ignored) < 0)
		ret = -1;
	if (net_teardown(&l->net, true, ret == 0 ? e : &ignored) < 0) {
		/* Kept: its record names the network (and the ids), for the
		 * next command to tear down and release. */
		ns_own_close(&l->child.own);
		store_jail_close(&l->jail);
		return -1;
	}
	undo_ids(l);
	if (store_jail_remove(l->rootfd, &l->jail, ret == 0 ? e : &ignored) < 0)
		ret = -1;
	return ret;
}

#ifdef CELL_TESTPOINTS
/* Test builds: cell pauses while the child is held. */
static int pause_at_hold(enum launch_hold where, pid_t pid, void *ctx, struct cell_err *e)
{
	testpoint_pause(where == LAUNCH_HOLD_PREPIVOT ? "run:prepivot" : "run:postpivot");
	return 0;
}

/* CELL_TEST_HOLD=prepivot|postpivot, when the caller asks for no hold. */
static void test_holds(struct launch_opts *o)
{
	const char *h = getenv("CELL_TEST_HOLD");

	if (h == NULL || o->hold != 0)
		return;
	o->hold = strcmp(h, "prepivot") == 0	? LAUNCH_HOLD_PREPIVOT
		  : strcmp(h, "postpivot") == 0 ? LAUNCH_HOLD_POSTPIVOT
						: 0;
	o->on_hold = pause_at_hold;
}
#endif

int jail_run(const struct jail_spec *s, const struct launch_opts *opts, int *status,
	     struct cell_err *e)
{
	struct launch_opts o = *opts;
	struct launch l = {
		.spec = s,
		.opts = &o,
		.child = {.spec = s, .opts = &o, .sock = -1, .fifo_fd = -1},
		.jail = {.dirfd = -1},
		.rootfd = -1,
		.netns_fd = -1,
		.dumpable = -1,
		.sv = {-1, -1},
		.created = time(NULL),
	};
	int ret;

#ifdef CELL_TESTPOINTS
	test_holds(&o);
#endif
	l.child.hold = o.hold;
	init_plan_clear(&l.child);
	*status = -1;
	l.child.cgroup = &l.cg;
	cgroup_init(&l.cg);
	run_init(&l.r);
	ns_own_init(&l.child.own);
	if (run_stages(&l, e) < 0) {
		ret = -1;
	} else if (o.detach) {
		*status = 0;
		ret = leave_detached(&l, e);
	} else {
		ret = wait_and_release(&l, status, e);
	}
	undo_prepare(&l);
	if (l.rootfd >= 0)
		close(l.rootfd);
	ns_own_reap(&l.child.own);
	net_plan_free(&l.net);
	return ret;
}

static int min_nofile(const struct jail_spec *s, const struct launch_opts *o)
{
	long long keep = s->log_keep >= 0 ? s->log_keep : LAUNCH_LOG_KEEP;

	return init_min_nofile(o->detach ? (int)keep + 1 : 0);
}

int launch_complete_spec(struct jail_spec *s, const struct launch_opts *o, struct cell_err *e)
{
	/* A service's pid 1 is the reaper: signals reach the payload, stop
	 * returns as soon as it ends, its status and log are kept. */
	if (!s->init_given && o->detach)
		s->init = true;
	s->init_given = true;
	if (s->restart != JAIL_RESTART_NO && !s->init)
		return cell_err_param(e, PARAM_RESTART, 0, 0,
				      "needs cell's reaper as pid 1 (not with --no-init)");
	/* Its pid 1 runs under the jail's rlimits, its log files open. */
	if (s->init && s->limits.nofile >= 0 && s->limits.nofile < min_nofile(s, o))
		return cell_err_param(
			e, PARAM_NOFILE, 0, 0,
			"at least %d for cell's reaper and its log files (or --no-init)",
			min_nofile(s, o));
	return 0;
}

/* --- OCI start: created -> running ----------------------------------- */

/* The created jail's exec fifo in DIRFD, opened for writing without
 * waiting: no reader (its process went) is ESRCH, never a wait. */
static int open_fifo(int dirfd, const char *name, struct cell_err *e)
{
	int fd = openat(dirfd, "exec.fifo", O_WRONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		cell_err_set(e, errno == ENXIO ? ESRCH : errno, "jail %s: open exec.fifo", name);
	return fd;
}

/* Lets the created process go: STATE and a newline into its fifo FD
 * (non-blocking: a state larger than the pipe is refused, not
 * half-sent), the fifo removed (started once: a second start finds
 * none).  FD stays open: its reader's close says the process exec'd
 * (wait_execd()). */
static int release_fifo(int dirfd, int fd, const char *state, struct cell_err *e)
{
	struct iovec v[2] = {{.iov_base = (void *)state, .iov_len = strlen(state)},
			     {.iov_base = "\n", .iov_len = 1}};
	size_t len = v[0].iov_len + 1;
	ssize_t n;

	do
		n = writev(fd, v, 2);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len)
		return cell_err_set(e, n < 0 ? errno : EMSGSIZE, "write the exec fifo");
	unlinkat(dirfd, "exec.fifo", 0);
	return 0;
}

/* Until the created process has exec'd its command, or ended: the
 * exec fifo's last reader gone (POLLERR on the write end FD), which it
 * holds close-on-exec once it has read the state. */
static void wait_execd(int fd)
{
	struct pollfd p = {.fd = fd, .events = 0};

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

int jail_start(const char *state_root, const char *name, const char *state_json, struct cell_err *e)
{
	struct jail j = {.pidfd = -1, .exit_status = -1};
	cleanup_close int rootfd = -1;
	cleanup_close int fifo = -1;
	const char *phase;
	int ret = -1;

	if (store_open_root_existing(state_root, &rootfd, e) < 0 ||
	    jail_open_existing(rootfd, name, &j, e) < 0)
		return -1;
	phase = json_string_value(json_object_get(j.state, "state"));
	if (!j.running) {
		cell_err_set(e, 0, "jail %s: cannot start a stopped jail", name);
		goto out;
	}
	if (phase == NULL || strcmp(phase, "created") != 0) {
		cell_err_set(e, 0, "jail %s: cannot start a jail that is not created (it is %s)",
			     name, phase != NULL ? phase : "unknown");
		goto out;
	}
	fifo = open_fifo(j.dir.dirfd, name, e);
	if (fifo < 0)
		goto out;
	json_object_set_new(j.state, "state", json_string("running"));
	if (store_jail_write(&j.dir, j.state, e) < 0)
		goto out;
	if (release_fifo(j.dir.dirfd, fifo, state_json != NULL ? state_json : "", e) < 0) {
		/* Still created: the record says so again. */
		struct cell_err ignored;

		json_object_set_new(j.state, "state", json_string("created"));
		store_jail_write(&j.dir, j.state, &ignored);
		cell_err_prefix(e, "jail %s", name);
		goto out;
	}
	ret = 0;
out:
	jail_close(&j);
	/* Unlocked: its startContainer hooks may ask for its state. */
	if (ret == 0)
		wait_execd(fifo);
	return ret;
}
