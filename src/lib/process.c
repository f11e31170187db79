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
#include <sys/syscall.h>
#include <unistd.h>

#include "param.h"

static gid_t passwd_gid(uid_t uid)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	gid_t gid = (gid_t)uid;

	if (f == NULL)
		return gid;
	while ((pw = fgetpwent(f)) != NULL)
		if (pw->pw_uid == uid) {
			gid = pw->pw_gid;
			break;
		}
	fclose(f);
	return gid;
}

int process_set_user(const struct jail_spec *s, struct cell_err *e)
{
	gid_t gid;

	if (!s->has_user)
		return 0;
	gid = s->has_gid ? s->gid : passwd_gid(s->uid);
	/* Groups first: after setresuid() we may no longer change them. */
	if (setgroups(0, NULL) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "drop supplementary groups");
	if (setresgid(gid, gid, gid) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "set gid %u", (unsigned int)gid);
	if (setresuid(s->uid, s->uid, s->uid) < 0)
		return cell_err_param(e, PARAM_USER, 0, errno, "set uid %u", (unsigned int)s->uid);
	return 0;
}

int process_set_workdir(const struct jail_spec *s, struct cell_err *e)
{
	const char *dir = s->workdir != NULL ? s->workdir : "/";

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
	const char *cmd = s->argv[0];
	const char *path;
	int saved = ENOENT;
	char buf[PATH_MAX];

	if (strchr(cmd, '/') != NULL) {
		execve(cmd, s->argv, s->env);
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
			execve(buf, s->argv, s->env);
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
