/*
 * proc.c - reading /proc/PID/stat, and small /proc and cgroup files.
 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int proc_start_time(pid_t pid, unsigned long long *start)
{
	char state;

	return proc_stat(pid, start, &state);
}

int proc_stat(pid_t pid, unsigned long long *start, char *state)
{
	char path[64], buf[1024];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* comm (field 2) may hold spaces and parentheses: skip to the last ')'. */
	p = strrchr(buf, ')');
	if (p == NULL)
		return -1;
	/* Field 3 (state) follows; start time is field 22, 19 fields later. */
	*state = p[1] == ' ' ? p[2] : '?';
	for (int field = 2; field < 22; field++) {
		p = strchr(p + 1, ' ');
		if (p == NULL)
			return -1;
	}
	errno = 0;
	*start = strtoull(p + 1, NULL, 10);
	return errno != 0 ? -1 : 0;
}

int proc_read_text(const char *path, char *buf, size_t size)
{
	return proc_read_text_at(AT_FDCWD, path, buf, size);
}

int proc_read_text_at(int dirfd, const char *path, char *buf, size_t size)
{
	int fd = openat(dirfd, path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

bool proc_alive(pid_t pid, unsigned long long start)
{
	unsigned long long now;
	char state;

	/* A zombie has ended: it only waits for its parent to reap it. */
	return pid > 0 && proc_stat(pid, &now, &state) == 0 && now == start && state != 'Z' &&
	       state != 'X';
}

/*
 * Whether PID's "NSpid:" line in its status (readable by anyone) names
 * one pid only: the namespace of this /proc, not one beneath it.  For a
 * process whose namespace links the caller may not follow: a rootless
 * jail's first process before its execve, not dumpable and of a memory
 * map made in the host's user namespace (ptrace rules: only the host's
 * root may read its links).
 */
static bool nspid_single(pid_t pid)
{
	char path[64], buf[4096];
	const char *line;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (proc_read_text(path, buf, sizeof(buf)) < 0 || (line = strstr(buf, "\nNSpid:")) == NULL)
		return true; /* unknown: the caller fails closed */
	line += strlen("\nNSpid:");
	line += strspn(line, " \t");
	line += strspn(line, "0123456789");
	/* A second pid follows on the line: a namespace beneath. */
	return line[strspn(line, " \t")] == '\n' || line[strspn(line, " \t")] == '\0';
}

bool proc_in_own_pidns(pid_t pid)
{
	static struct stat own;
	static bool have_own;
	char path[64];
	struct stat st;

	if (!have_own) {
		if (stat("/proc/self/ns/pid", &own) < 0)
			return true; /* unknown: the caller fails closed */
		have_own = true;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &st) < 0)
		return errno == EACCES || errno == EPERM ? nspid_single(pid) : true;
	return st.st_ino == own.st_ino && st.st_dev == own.st_dev;
}

void proc_worker_fail(int fd, const struct cell_err *e)
{
	if (write(fd, e, sizeof(*e)) != (ssize_t)sizeof(*e))
		_exit(CELL_EXIT_ERROR);
	_exit(1);
}

int proc_worker_wait(pid_t pid, int fd, const char *who, struct cell_err *e)
{
	int status = 0;
	ssize_t n;

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	do
		n = read(fd, e, sizeof(*e));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (n == (ssize_t)sizeof(*e))
		return -1;
	return cell_err_set(e, 0, "%s ended (%s %d)", who,
			    WIFSIGNALED(status) ? "signal" : "status",
			    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}
