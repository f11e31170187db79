/*
 * process.c - identity, working directory, descriptors and execve of a
 * jail's payload.  Everything here runs inside the jail, after the root
 * switch, so paths are the jail's own.
 */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/close_range.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "hooks.h"
#include "param.h"
#include "passwd.h"
#include "rootless.h"
#include "untrusted.h"

/* The jail's /etc/passwd and /etc/group are the jail's: a FIFO there
 * once hung `cell exec -u` for ever, holding the jail's lock.  8 MiB is
 * some 100000 users. */
#define USERDB_MAX (8U << 20)
/* Supplementary groups taken from the jail's /etc/group at most. */
#define USER_GROUPS_MAX 1024

/* Who the process becomes, found in the jail's own files. */
struct ident {
	uid_t uid;
	gid_t gid;
	gid_t groups[USER_GROUPS_MAX]; /* the user's, from /etc/group */
	size_t ngroups;
	char home[PASSWD_HOME_MAX + 1];
};

/* An error reading the jail's files, made one about the user parameter:
 * its subject first (err.h), the errno kept. */
static int user_err(struct cell_err *e)
{
	char why[sizeof(e->msg)];
	int err = e->errnum;

	snprintf(why, sizeof(why), "%s", e->msg);
	cell_err_param(e, PARAM_USER, 0, 0, "%s", why);
	e->errnum = err;
	return -1;
}

/* PATH of the jail (cell stands in its root), bounded and never waited
 * on; *TEXT stays NULL when there is no such file. */
static int userdb_read(const char *path, char **text, size_t *len, struct cell_err *e)
{
	if (untrusted_read(AT_FDCWD, path, 0, USERDB_MAX, text, len, e) == 0)
		return 0;
	if (e->errnum != ENOENT)
		return -1;
	cell_err_clear(e);
	return 0;
}

/* The primary group by name (GROUP of -u USER:GROUP) and the user's
 * supplementary groups (docker -u's: each group of /etc/group that
 * lists the user NAME, when known). */
static int resolve_groups(const struct jail_process *p, const char *name, struct ident *id,
			  struct cell_err *e)
{
	cleanup_free char *gr = NULL;
	size_t len = 0;

	if (p->group_name == NULL && (name == NULL || !p->user_groups || p->has_groups))
		return 0;
	/* Needed only for a group by name; for the extra groups alone, an
	 * unreadable file (a FIFO...) means none. */
	if (userdb_read("/etc/group", &gr, &len, e) < 0) {
		if (p->group_name != NULL)
			return user_err(e);
		cell_err_clear(e);
	}
	if (p->group_name != NULL && (gr == NULL || !group_find(gr, len, p->group_name, &id->gid)))
		return cell_err_param(e, PARAM_USER, 0, 0,
				      "no group \"%s\" in the jail's /etc/group", p->group_name);
	if (name == NULL || !p->user_groups || p->has_groups || gr == NULL)
		return 0;
	if (group_members(gr, len, name, id->groups, USER_GROUPS_MAX, &id->ngroups) < 0)
		return cell_err_param(e, PARAM_USER, 0, 0,
				      "%s is in more than %u groups of the jail's /etc/group", name,
				      USER_GROUPS_MAX);
	return 0;
}

/* Whether the payload's HOME is its user's home: the spec wants it and
 * the environment has no HOME, or an empty one (runc replaces "HOME="
 * too: docker's `-e HOME=` relies on it). */
static bool wants_home(const struct jail_spec *s)
{
	const char *home = spec_env_get(s, "HOME");

	return s->proc.home_env && (home == NULL || home[0] == '\0');
}

bool process_home_from_rootfs(const struct jail_spec *s)
{
	return !s->proc.has_user && wants_home(s) && s->rootfs != NULL && s->nbinds == 0 &&
	       !s->mech.mounts_given;
}

/*
 * The process's uid, gid, groups and HOME from the spec and the jail's
 * own /etc/passwd and /etc/group (parsed here, never through NSS
 * modules): a name must be there; a uid there gives its group and home;
 * a uid not there is its own group, HOME "/".  The file is needed for a
 * name or a primary group (no gid given), and then one that cannot be
 * read (a FIFO, too large) is an error; for HOME and the extra groups
 * alone it means none: HOME "/".
 */
static int resolve_ident(const struct jail_spec *s, bool passwd_absent, struct ident *id,
			 struct cell_err *e)
{
	const struct jail_process *p = &s->proc;
	bool want_home = wants_home(s) && !passwd_absent;
	cleanup_free char *pw = NULL;
	struct passwd_user u;
	size_t len = 0;
	int found = 0;

	id->uid = p->has_user ? p->uid : getuid();
	id->gid = p->has_gid ? p->gid : (gid_t)id->uid;
	id->ngroups = 0;
	strcpy(id->home, "/");
	if (!p->has_user && !want_home)
		return 0;
	if (userdb_read("/etc/passwd", &pw, &len, e) < 0) {
		if (p->user_name != NULL || (p->has_user && !p->has_gid))
			return user_err(e);
		cell_err_clear(e); /* pw stays NULL: as if there were none */
	}
	if (p->user_name != NULL) {
		if (pw == NULL || !(found = passwd_find(pw, len, p->user_name, 0, &u)))
			return cell_err_param(e, PARAM_USER, 0, 0,
					      "no user \"%s\" in the jail's /etc/passwd",
					      p->user_name);
		id->uid = u.uid;
	} else if (pw != NULL) {
		found = passwd_find(pw, len, NULL, id->uid, &u);
	}
	if (found) {
		strcpy(id->home, u.home);
		if (!p->has_gid)
			id->gid = u.gid;
	}
	if (!p->has_user)
		return 0;
	return resolve_groups(p, found ? u.name : NULL, id, e);
}

bool process_reads_image(const struct jail_spec *s, bool passwd_absent)
{
	/* resolve_ident() reads the jail's /etc/passwd (and /etc/group)
	 * for a user or for HOME; the embedded root is the host's own
	 * files, read-only, unless a bind or a mount may cover them; a
	 * --rootfs without one has no HOME to read (PASSWD_ABSENT). */
	return (s->proc.has_user || (wants_home(s) && !passwd_absent)) &&
	       (s->rootfs != NULL || s->nbinds != 0 || s->mech.mounts_given);
}

/* Becomes ID: groups first (after setresuid() they may no longer
 * change), then gid, then uid.  Without -u only given groups change. */
static int set_ident(const struct jail_spec *s, const struct ident *id, struct cell_err *e)
{
	const struct jail_process *p = &s->proc;

	if (!p->has_user) {
		if (p->has_groups && rootless_setgroups(p->ngroups, p->groups) < 0)
			return cell_err_set(e, errno, "set supplementary groups");
		return 0;
	}
	if (rootless_setgroups(p->has_groups ? p->ngroups : id->ngroups,
			       p->has_groups ? p->groups : id->groups) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "set supplementary groups");
	if (setresgid(id->gid, id->gid, id->gid) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "set gid %u", (unsigned int)id->gid);
	if (setresuid(id->uid, id->uid, id->uid) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "set uid %u", (unsigned int)id->uid);
	return 0;
}

int process_set_workdir(const struct jail_spec *s, struct cell_err *e)
{
	const char *dir = s->proc.cwd != NULL ? s->proc.cwd : "/";

	char here[PATH_MAX];

	if (chdir(dir) < 0)
		return cell_err_param(e, PARAM_WORKDIR, 0, errno, "%s", "");
	/* CVE-2024-21626: a directory reached through a descriptor of the
	 * runtime's (/proc/self/fd/N) may lie outside the root; the kernel
	 * then says the working directory is unreachable (getcwd(): ENOENT). */
	if (getcwd(here, sizeof(here)) == NULL || here[0] != '/')
		return cell_err_param(e, PARAM_WORKDIR, 0, 0, "%s: outside the jail's root", dir);
	return 0;
}

int process_close_fds(unsigned int first, struct cell_err *e)
{
	/* CVE-2024-21626: no descriptor of the runtime may reach the jail.
	 * Close-on-exec rather than close, so the error channel to the
	 * parent stays open until the execve() succeeds. */
	if (syscall(SYS_close_range, first, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		return cell_err_set(e, errno, "close descriptors");
	return 0;
}

static int exec_failed(struct cell_err *e, int err, const char *cmd)
{
	cell_err_set(e, err, "exec %s", cmd);
	e->exit_code = (err == ENOENT || err == ENOTDIR) ? CELL_EXIT_NOTFOUND : CELL_EXIT_NOEXEC;
	return -1;
}

int process_set_limits(const struct jail_process *p, struct cell_err *e)
{
	for (size_t i = 0; i < p->nrlimits; i++) {
		struct rlimit rl = {.rlim_cur = p->rlimits[i].soft, .rlim_max = p->rlimits[i].hard};

		if (setrlimit(p->rlimits[i].resource, &rl) < 0)
			return cell_err_set(e, errno, "set rlimit %d to %llu/%llu",
					    p->rlimits[i].resource, p->rlimits[i].soft,
					    p->rlimits[i].hard);
	}
	if (p->has_oom_score_adj) {
		char buf[16];
		int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
		int len = snprintf(buf, sizeof(buf), "%d", p->oom_score_adj);

		if (fd < 0 || write(fd, buf, (size_t)len) != len) {
			int err = errno;

			if (fd >= 0)
				close(fd);
			return cell_err_set(e, err, "set oom_score_adj to %d", p->oom_score_adj);
		}
		close(fd);
	}
	return 0;
}

/* The command's path as its exec will find it (the jail's PATH), so that
 * a created process that could never run fails its create, not its
 * start: "executable file not found in $PATH", as engines expect. */
static int resolve_command(const struct jail_spec *s, char *buf, size_t size, struct cell_err *e)
{
	const char *cmd = s->proc.argv[0];
	const char *path = spec_env_get(s, "PATH");
	int saved = ENOENT;

	if (strchr(cmd, '/') != NULL) {
		struct stat st;

		if (stat(cmd, &st) < 0)
			return exec_failed(e, errno, cmd);
		/* execve() refuses a directory (EACCES): so does create. */
		if (!S_ISREG(st.st_mode))
			return exec_failed(e, EACCES, cmd);
		if (faccessat(AT_FDCWD, cmd, X_OK, AT_EACCESS) < 0)
			return exec_failed(e, errno, cmd);
		if ((size_t)snprintf(buf, size, "%s", cmd) >= size)
			return exec_failed(e, ENAMETOOLONG, cmd);
		return 0;
	}
	for (; path != NULL;) {
		const char *end = strchrnul(path, ':');
		size_t len = (size_t)(end - path);
		struct stat st;

		if ((size_t)snprintf(buf, size, "%.*s/%s", (int)(len == 0 ? 1 : len),
				     len == 0 ? "." : path, cmd) < size &&
		    stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
			if (faccessat(AT_FDCWD, buf, X_OK, AT_EACCESS) == 0)
				return 0;
			saved = errno;
		}
		if (*end == '\0')
			break;
		path = end + 1;
	}
	cell_err_set(e, saved, "exec %s: %s", cmd,
		     saved == ENOENT ? "executable file not found in $PATH" : strerror(saved));
	e->errnum = 0; /* the text says it */
	e->exit_code = saved == ENOENT ? CELL_EXIT_NOTFOUND : CELL_EXIT_NOEXEC;
	return -1;
}

int process_exec(const struct jail_spec *s, char *const *env, struct cell_err *e)
{
	const char *cmd = s->proc.argv[0];
	const char *path;
	int saved = ENOENT;
	char buf[PATH_MAX];

	if (strchr(cmd, '/') != NULL) {
		execve(cmd, s->proc.argv, env);
		return exec_failed(e, errno, cmd);
	}
	/* Search the jail's PATH, not cell's: execvpe() would use ours.
	 * spec_validate() gave the environment one. */
	path = spec_env_get(s, "PATH");
	for (;;) {
		const char *end = strchrnul(path, ':');
		const char *dir = path;
		size_t len = (size_t)(end - path);

		if (len == 0) { /* an empty entry means the current directory */
			dir = ".";
			len = 1;
		}
		if (len + 1 + strlen(cmd) < sizeof(buf)) {
			memcpy(buf, dir, len);
			buf[len] = '/';
			strcpy(buf + len + 1, cmd);
			execve(buf, s->proc.argv, env);
			/* Remember "found but refused" over "not here". */
			if (errno != ENOENT && errno != ENOTDIR)
				saved = errno;
		}
		if (*end == '\0')
			break;
		path = end + 1;
	}
	return exec_failed(e, saved, cmd);
}

/* A pipe whose write end becomes FD (the payload's stdout or stderr) and
 * whose read end, close-on-exec, goes to the reaper; -1 on failure. */
static int pipe_to(int fd)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	if (dup2(p[1], fd) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	return p[0];
}

/*
 * A detached jail's stdio: stdin /dev/null; stdout and stderr, unless the
 * caller sent them to a file, pipes to the reaper (PLAN, which gets
 * their read ends), or /dev/null without it.  Pipes rather than the log
 * file itself: a payload holding the file could write past the log's
 * cap, fallocate on the state root's filesystem, or seek; a pipe
 * refuses all of that (fallocate: ESPIPE).
 */
static int detach_stdio(const struct process_finish *f, struct init_plan *plan, struct cell_err *e)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		return cell_err_set(e, errno, "stdin from /dev/null");
	if (plan == NULL && ((!f->keep_stdout && dup2(null, STDOUT_FILENO) < 0) ||
			     (!f->keep_stderr && dup2(null, STDERR_FILENO) < 0))) {
		close(null);
		return cell_err_set(e, errno, "stdout and stderr to /dev/null");
	}
	close(null);
	if (plan != NULL && ((!f->keep_stdout && (plan->out_fd = pipe_to(STDOUT_FILENO)) < 0) ||
			     (!f->keep_stderr && (plan->err_fd = pipe_to(STDERR_FILENO)) < 0)))
		return cell_err_set(e, errno, "stdout and stderr to the log's pipes");
	return 0;
}

/* Writes TEXT into the first of the /proc/thread-self/attr files PATHS
 * that exists.  Returns 1 if none does. */
static int write_attr(const char *const *paths, const char *text, struct cell_err *e)
{
	for (; *paths != NULL; paths++) {
		int fd = open(*paths, O_WRONLY | O_CLOEXEC);
		ssize_t len = (ssize_t)strlen(text);

		if (fd < 0 && errno == ENOENT)
			continue;
		if (fd < 0 || write(fd, text, (size_t)len) != len) {
			int err = errno;

			if (fd >= 0)
				close(fd);
			return cell_err_set(e, err, "write %s", *paths);
		}
		close(fd);
		return 0;
	}
	return 1;
}

/* Whether the LSM whose "enabled" file is FILE is on ("Y" or "1"). */
static bool lsm_on(const char *file)
{
	char c = 0;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == 'Y' || c == '1';
}

/*
 * The process's AppArmor profile and SELinux label, for its exec: applied
 * where that LSM is on, ignored where it is not (as runc does).
 */
static int set_lsm_labels(const struct jail_process *p, struct cell_err *e)
{
	static const char *const aa[] = {"/proc/thread-self/attr/apparmor/exec",
					 "/proc/thread-self/attr/exec", NULL};
	static const char *const se[] = {"/proc/thread-self/attr/exec", NULL};

	if (p->apparmor_profile != NULL && p->apparmor_profile[0] != '\0' &&
	    lsm_on("/sys/module/apparmor/parameters/enabled")) {
		char text[4096];

		snprintf(text, sizeof(text), "exec %s", p->apparmor_profile);
		if (write_attr(aa, text, e) < 0)
			return cell_err_prefix(e, "apparmor profile %s", p->apparmor_profile);
	}
	if (p->selinux_label != NULL && p->selinux_label[0] != '\0' &&
	    access("/sys/fs/selinux/enforce", F_OK) == 0 && write_attr(se, p->selinux_label, e) < 0)
		return cell_err_prefix(e, "selinux label %s", p->selinux_label);
	return 0;
}

/* After MSG_CREATED no one reads the channel: an error goes to stderr
 * (the engine's log) and ends the process. */
static noreturn void created_fail(const struct process_finish *f, const struct cell_err *e)
{
	char line[sizeof(e->msg) + 64];
	int len = snprintf(line, sizeof(line), "cell: start: jail %s: %s\n", f->spec->name, e->msg);

	if (len > 0 && write(STDERR_FILENO, line, (size_t)len) < 0)
		_exit(e->exit_code != 0 ? e->exit_code : CELL_EXIT_ERROR);
	_exit(e->exit_code != 0 ? e->exit_code : CELL_EXIT_ERROR);
}

/* The state `start` writes into the exec fifo, up to its newline. */
#define CREATED_STATE_MAX (64U << 10)

/*
 * An OCI create: says MSG_CREATED and waits on the exec fifo (open for
 * reading since before the clone) until `cell-oci start` writes the
 * state into it, ended by a newline (compact JSON has none of its own);
 * then the startContainer hooks run, here, in the jail.  The fifo was
 * opened non-blocking with no writer, where Linux reports no hang-up
 * until a writer has come and gone (a start that died before the
 * newline: the hooks get what came).  It stays open, close-on-exec: its
 * close at the exec (or at this process's end) tells start, which waits
 * for it, that the process runs, so that the poststart hooks come after.
 */
static void wait_created(const struct process_finish *f, struct cell_err *e)
{
	const struct jail_mechanisms *m = &f->spec->mech;
	struct child_msg msg = {.type = MSG_CREATED};
	cleanup_free char *state = malloc(CREATED_STATE_MAX + 1);
	size_t len = 0;

	if (state == NULL) {
		cell_err_set(e, ENOMEM, "exec fifo");
		channel_fail(f->sock, e);
	}
	/* The runtime that created it goes: the process lives on. */
	if (prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) < 0) {
		cell_err_set(e, errno, "clear the parent-death signal");
		channel_fail(f->sock, e);
	}
	/* Nothing of cell's is held while it waits, the jail's lock above
	 * all (start takes it): the fifo becomes fd 3, the channel fd 4, and
	 * the rest is closed. */
	unsigned int at = 3 + f->preserve_fds; /* the preserved ones below */
	int fifo = fcntl(f->created_fd, F_DUPFD_CLOEXEC, (int)at + 10);
	int sock = fcntl(f->sock, F_DUPFD_CLOEXEC, (int)at + 10);

	if (fifo < 0 || sock < 0 || dup3(fifo, (int)at, O_CLOEXEC) < 0 ||
	    dup3(sock, (int)at + 1, O_CLOEXEC) < 0 ||
	    syscall(SYS_close_range, at + 2, ~0U, 0U) < 0) {
		cell_err_set(e, errno, "close cell's descriptors");
		channel_fail(f->sock, e);
	}
	if (send((int)at + 1, &msg, sizeof(msg), MSG_NOSIGNAL) != (ssize_t)sizeof(msg))
		_exit(CELL_EXIT_ERROR);
	close((int)at + 1);
	while (len == 0 || state[len - 1] != '\n') {
		struct pollfd p = {.fd = (int)at, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			cell_err_set(e, errno, "wait on the exec fifo");
			created_fail(f, e);
		}
		n = read((int)at, state + len, CREATED_STATE_MAX - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			cell_err_set(e, errno, "read the exec fifo");
			created_fail(f, e);
		}
		if (n == 0 && p.revents & POLLHUP)
			break; /* start closed its end before the newline */
		len += (size_t)n;
		if (len == CREATED_STATE_MAX)
			break;
	}
	if (len > 0 && state[len - 1] == '\n')
		len--;
	state[len] = '\0';
	if (hooks_run(m->hooks[JAIL_HOOK_START_CONTAINER], m->nhooks[JAIL_HOOK_START_CONTAINER],
		      JAIL_HOOK_START_CONTAINER, state, -1, e) < 0)
		created_fail(f, e);
}

/* The environment the payload gets: the spec's, with HOME=ID's home
 * when wants_home(): added, or in the place of the empty "HOME=" (the
 * variable once, as runc).  *ENV is the spec's own array, or a new one
 * (the process execs or exits soon: it is never freed). */
static int payload_env(const struct jail_spec *s, const struct ident *id, char ***env,
		       struct cell_err *e)
{
	size_t n = s->proc.nenv, at = n;
	char **v;

	*env = s->proc.env;
	if (!wants_home(s))
		return 0;
	v = calloc(n + 2, sizeof(*v));
	if (v == NULL)
		return cell_err_set(e, ENOMEM, "environment");
	for (size_t i = 0; i < n; i++) {
		v[i] = s->proc.env[i];
		if (strcmp(v[i], "HOME=") == 0)
			at = i;
	}
	if (asprintf(&v[at], "HOME=%s", id->home) < 0)
		return cell_err_set(e, ENOMEM, "environment");
	*env = v;
	return 0;
}

/* The payload, forked by the reaper-to-be, waits for the gate's write
 * end to close: cell-init closes it once it is non-dumpable, so the
 * payload never finds a /proc/1 it may open. */
static void wait_gate(int gate)
{
	char c;

	while (read(gate, &c, 1) < 0 && errno == EINTR)
		;
	close(gate);
}

/* The payload's last steps, in the child forked off the reaper. */
static int exec_payload(const struct process_finish *f, const char *path, int gate,
			char *const *env, struct cell_err *e)
{
	const struct jail_spec *s = f->spec;

	if (f->tty_slave >= 0 && setpgid(0, 0) < 0)
		return cell_err_set(e, errno, "setpgid");
	wait_gate(gate);
	if (process_close_fds(3 + f->preserve_fds, e) < 0)
		return -1;
	if (sigprocmask(SIG_SETMASK, &f->sigmask, NULL) < 0)
		return cell_err_set(e, errno, "restore the signal mask");
	execve(path, s->proc.argv, env);
	return exec_failed(e, errno, s->proc.argv[0]);
}

/*
 * With the reaper: the fork comes at the very end, so that pid 1 holds
 * everything the payload's exec needs (user, capabilities, working
 * directory, umask, labels, stdio, the path found in the jail's PATH)
 * and starts it again with fork + execve alone: freestanding, it could
 * not redo any of it.  The reaper thus runs with the payload's
 * credentials, and needs none.  With a terminal, the payload is its
 * foreground process group: ^C reaches it once, not pid 1 too.
 */
static int fork_payload(const struct process_finish *f, struct init_plan *plan, const char *path,
			char *const *env, struct cell_err *e)
{
	int gate[2];
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC) < 0)
		return cell_err_set(e, errno, "the reaper's gate");
	pid = fork();
	if (pid < 0)
		return cell_err_param(e, PARAM_INIT, 0, errno, "fork the payload");
	if (pid == 0) {
		close(gate[1]);
		return exec_payload(f, path, gate[0], env, e);
	}
	close(gate[0]);
	if (plan->tty && (setpgid(pid, pid) < 0 || tcsetpgrp(STDIN_FILENO, pid) < 0))
		return cell_err_set(e, errno, "the terminal's foreground to the payload");
	/* A detached jail outlives its cell. */
	if (f->outlive_cell && prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) < 0)
		return cell_err_set(e, errno, "clear the parent-death signal");
	return init_exec(plan, pid, path, f->spec->proc.argv, env, gate[1], e);
}

static int finish(const struct process_finish *f, struct cell_err *e)
{
	char path[PATH_MAX];
	struct init_plan plan;
	struct ident id;
	char **env;

	const struct jail_spec *s = f->spec;

	if (f->init != NULL) {
		plan = *f->init;
		plan.tty = f->tty_slave >= 0;
	}
	if (f->tty_slave >= 0 && tty_make_controlling(f->tty_slave, e) < 0)
		return -1;
	/* Names are looked up here, in the jail's root: its own users. */
	if (resolve_ident(s, f->passwd_absent, &id, e) < 0 || payload_env(s, &id, &env, e) < 0)
		return -1;
	/* A uid change empties the permitted set: the kept caps again. */
	if (set_ident(s, &id, e) < 0 ||
	    ((s->proc.has_user || s->proc.caps_exact) && policy_apply_caps(f->policy, e) < 0) ||
	    process_set_workdir(s, e) < 0)
		return -1;
	if (f->rearm_deathsig)
		channel_rearm_deathsig(f->sock);
	umask(s->proc.has_umask ? s->proc.umask : f->umask);
	if (f->detached && detach_stdio(f, f->init != NULL ? &plan : NULL, e) < 0)
		return -1;
	if (set_lsm_labels(&s->proc, e) < 0)
		return -1;
	if (f->init != NULL) {
		/* Said as process_exec() says it. */
		if (resolve_command(s, path, sizeof(path), e) < 0)
			return exec_failed(e, e->exit_code == CELL_EXIT_NOTFOUND ? ENOENT : EACCES,
					   s->proc.argv[0]);
		return fork_payload(f, &plan, path, env, e);
	}
	if (f->created_fd >= 0) {
		if (resolve_command(s, path, sizeof(path), e) < 0)
			return -1;
		wait_created(f, e);
	}
	if (process_close_fds(3 + f->preserve_fds, e) < 0)
		return -1;
	if (sigprocmask(SIG_SETMASK, &f->sigmask, NULL) < 0)
		return cell_err_set(e, errno, "restore the signal mask");
	/* From its exec on a detached jail outlives its cell; before, a cell
	 * killed mid-start takes the unfinished jail with it. */
	if (f->outlive_cell && prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) < 0)
		return cell_err_set(e, errno, "clear the parent-death signal");
	if (f->created_fd >= 0) {
		execve(path, s->proc.argv, env);
		exec_failed(e, errno, s->proc.argv[0]);
		created_fail(f, e);
	}
	return process_exec(s, env, e);
}

noreturn void process_finish(const struct process_finish *f)
{
	struct cell_err e;

	cell_err_clear(&e);
	finish(f, &e);
	channel_fail(f->sock, &e);
}
