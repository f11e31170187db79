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
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "channel.h"
#include "cleanup.h"
#include "param.h"
#include "untrusted.h"

/* The jail's /etc/passwd is the jail's: a FIFO there once hung `cell
 * exec -u` for ever, holding the jail's lock.  8 MiB is some 100000
 * users. */
#define PASSWD_MAX (8U << 20)

/* UID's group in the jail's own /etc/passwd (parsed here, never through
 * NSS modules); UID itself when the file or the user is missing. */
static int passwd_gid(uid_t uid, gid_t *gid, struct cell_err *e)
{
	cleanup_free char *text = NULL;
	struct passwd *pw;
	size_t len;
	FILE *f;

	*gid = (gid_t)uid;
	if (untrusted_read(AT_FDCWD, "/etc/passwd", 0, PASSWD_MAX, &text, &len, e) < 0) {
		char why[sizeof(e->msg)];
		int err = e->errnum;

		if (err == ENOENT)
			return 0;
		/* An error about the user parameter: its subject first. */
		snprintf(why, sizeof(why), "%s", e->msg);
		cell_err_param(e, PARAM_USER, 0, 0, "%s", why);
		e->errnum = err;
		return -1;
	}
	if (len == 0)
		return 0;
	f = fmemopen(text, len, "r");
	if (f == NULL)
		return cell_err_param(e, PARAM_USER, 0, errno, "read /etc/passwd");
	while ((pw = fgetpwent(f)) != NULL)
		if (pw->pw_uid == uid) {
			*gid = pw->pw_gid;
			break;
		}
	fclose(f);
	return 0;
}

int process_set_user(const struct jail_spec *s, struct cell_err *e)
{
	gid_t gid;

	if (!s->proc.has_user)
		return 0;
	gid = s->proc.gid;
	if (!s->proc.has_gid && passwd_gid(s->proc.uid, &gid, e) < 0)
		return -1;
	/* Groups first: after setresuid() we may no longer change them. */
	if (setgroups(0, NULL) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "drop supplementary groups");
	if (setresgid(gid, gid, gid) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "set gid %u", (unsigned int)gid);
	if (setresuid(s->proc.uid, s->proc.uid, s->proc.uid) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "set uid %u",
				      (unsigned int)s->proc.uid);
	return 0;
}

int process_set_workdir(const struct jail_spec *s, struct cell_err *e)
{
	const char *dir = s->proc.cwd != NULL ? s->proc.cwd : "/";

	if (chdir(dir) < 0)
		return cell_err_param(e, PARAM_WORKDIR, 0, errno, "%s", "");
	return 0;
}

int process_close_fds(struct cell_err *e)
{
	/* CVE-2024-21626: no descriptor of the runtime may reach the jail.
	 * Close-on-exec rather than close, so the error channel to the
	 * parent stays open until the execve() succeeds. */
	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		return cell_err_set(e, errno, "close descriptors");
	return 0;
}

static int exec_failed(struct cell_err *e, int err, const char *cmd)
{
	cell_err_set(e, err, "exec %s", cmd);
	e->exit_code = (err == ENOENT || err == ENOTDIR) ? CELL_EXIT_NOTFOUND : CELL_EXIT_NOEXEC;
	return -1;
}

int process_exec(const struct jail_spec *s, struct cell_err *e)
{
	const char *cmd = s->proc.argv[0];
	const char *path;
	int saved = ENOENT;
	char buf[PATH_MAX];

	if (strchr(cmd, '/') != NULL) {
		execve(cmd, s->proc.argv, s->proc.env);
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
			execve(buf, s->proc.argv, s->proc.env);
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

/* A detached jail's stdio: stdin /dev/null, stdout and stderr the log
 * unless the caller redirected them to a file of its own. */
static int detach_stdio(const struct process_finish *f, struct cell_err *e)
{
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (null < 0 || dup2(null, STDIN_FILENO) < 0)
		return cell_err_set(e, errno, "stdin from /dev/null");
	close(null);
	if ((!f->keep_stdout && dup2(f->log_fd, STDOUT_FILENO) < 0) ||
	    (!f->keep_stderr && dup2(f->log_fd, STDERR_FILENO) < 0))
		return cell_err_set(e, errno, "stdout and stderr to the log");
	return 0;
}

static int finish(const struct process_finish *f, struct cell_err *e)
{
	const struct jail_spec *s = f->spec;

	if (f->tty_slave >= 0 && tty_make_controlling(f->tty_slave, e) < 0)
		return -1;
	/* A uid change empties the permitted set: the kept caps again. */
	if (process_set_user(s, e) < 0 ||
	    (s->proc.has_user && policy_apply_caps(f->policy, e) < 0) ||
	    process_set_workdir(s, e) < 0)
		return -1;
	if (f->rearm_deathsig)
		channel_rearm_deathsig(f->sock);
	umask(f->umask);
	if (f->log_fd >= 0 && detach_stdio(f, e) < 0)
		return -1;
	if (process_close_fds(e) < 0)
		return -1;
	if (sigprocmask(SIG_SETMASK, &f->sigmask, NULL) < 0)
		return cell_err_set(e, errno, "restore the signal mask");
	/* From its exec on a detached jail outlives its cell; before, a cell
	 * killed mid-start takes the unfinished jail with it. */
	if (f->outlive_cell && prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) < 0)
		return cell_err_set(e, errno, "clear the parent-death signal");
	return process_exec(s, e);
}

noreturn void process_finish(const struct process_finish *f)
{
	struct cell_err e;

	cell_err_clear(&e);
	finish(f, &e);
	channel_fail(f->sock, &e);
}
