/*
 * rootless.c - cell without privilege over the host.  See rootless.h.
 */
#include "rootless.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "passwd.h"
#include "proc.h"
#include "untrusted.h"

static int is_rootless = -1;
static enum rootless_mapping mapping = ROOTLESS_NO;

/* CAP_SYS_ADMIN in this process's effective set. */
static bool has_sys_admin(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return (d[CAP_SYS_ADMIN / 32].effective & (1U << (CAP_SYS_ADMIN % 32))) != 0;
}

/* The initial user namespace maps every id to itself: its uid_map is
 * the one line "0 0 4294967295". */
static bool in_initial_userns(void)
{
	char buf[128];
	unsigned long a, b, c;

	if (proc_read_text("/proc/self/uid_map", buf, sizeof(buf)) < 0)
		return false;
	return sscanf(buf, "%lu %lu %lu", &a, &b, &c) == 3 && a == 0 && b == 0 &&
	       c == 4294967295UL && strchr(buf, '\n') == buf + strlen(buf) - 1;
}

bool rootless(void)
{
	if (is_rootless < 0)
		is_rootless = !(geteuid() == 0 && in_initial_userns() && has_sys_admin());
	return is_rootless != 0;
}

enum rootless_mapping rootless_mapping(void)
{
	return mapping;
}

const char *rootless_mapping_name(enum rootless_mapping m)
{
	switch (m) {
	case ROOTLESS_INHERITED:
		return "inherited";
	case ROOTLESS_SINGLE:
		return "single";
	case ROOTLESS_RANGE:
		return "subids";
	case ROOTLESS_GIVEN:
		return "given";
	case ROOTLESS_NO:
		break;
	}
	return "none";
}

bool rootless_gid_mapped(gid_t gid)
{
	char buf[1024];
	bool found = false;

	if (proc_read_text("/proc/self/gid_map", buf, sizeof(buf)) < 0)
		return false;
	for (char *line = buf; line != NULL && *line != '\0' && !found;) {
		unsigned long in, out, count;
		char *nl = strchr(line, '\n');

		if (sscanf(line, "%lu %lu %lu", &in, &out, &count) == 3 && gid >= in &&
		    gid - in < count)
			found = true;
		line = nl != NULL ? nl + 1 : NULL;
	}
	return found;
}

int rootless_setgroups(size_t n, const gid_t *groups)
{
	char buf[8];
	int err;

	if (setgroups(n, groups) == 0)
		return 0;
	err = errno;
	if (err == EPERM && n == 0 &&
	    proc_read_text("/proc/self/setgroups", buf, sizeof(buf)) == 0 &&
	    strncmp(buf, "deny", 4) == 0)
		return 0;
	errno = err;
	return -1;
}

int rootless_subids(const char *text, size_t len, const char *user, uid_t uid, unsigned int want,
		    unsigned long *start, unsigned long *count)
{
	char uidtext[16];
	int found = 0;

	snprintf(uidtext, sizeof(uidtext), "%u", (unsigned int)uid);
	for (size_t at = 0; at < len;) {
		const char *line = text + at;
		const char *nl = memchr(line, '\n', len - at);
		size_t ll = nl != NULL ? (size_t)(nl - line) : len - at;
		char buf[512], *c1, *c2, *end;
		unsigned long s, n;

		at += ll + 1;
		if (ll == 0 || ll >= sizeof(buf) || memchr(line, '\0', ll) != NULL)
			continue;
		memcpy(buf, line, ll);
		buf[ll] = '\0';
		c1 = strchr(buf, ':');
		c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
		if (c2 == NULL)
			continue;
		*c1 = '\0';
		if (!((user != NULL && strcmp(buf, user) == 0) || strcmp(buf, uidtext) == 0))
			continue;
		/* Digits only: strtoul() would take blanks and signs. */
		if (!isdigit((unsigned char)c1[1]) || !isdigit((unsigned char)c2[1]))
			continue;
		errno = 0;
		s = strtoul(c1 + 1, &end, 10);
		if (errno != 0 || end != c2)
			continue;
		n = strtoul(c2 + 1, &end, 10);
		if (errno != 0 || *end != '\0' || n == 0 || s + n < s || s + n > 4294967296UL)
			continue;
		if (!found || (*count < want && n > *count)) {
			*start = s;
			*count = n;
			found = 1;
		}
		if (n >= want)
			break;
	}
	return found;
}

/* The user's subordinate range in FILE, at most WANT ids. */
static int subids_of(const char *file, const char *user, uid_t uid, unsigned long *start,
		     unsigned long *count)
{
	cleanup_free char *text = NULL;
	size_t len = 0;
	struct cell_err ignored;

	if (untrusted_read(AT_FDCWD, file, 0, 1 << 20, &text, &len, &ignored) < 0)
		return 0;
	if (!rootless_subids(text, len, user, uid, ROOTLESS_IDS - 1, start, count))
		return 0;
	if (*count > ROOTLESS_IDS - 1)
		*count = ROOTLESS_IDS - 1;
	return 1;
}

/* The user's name in /etc/passwd (subordinate ranges are by name). */
static bool user_name(uid_t uid, char *name, size_t n)
{
	cleanup_free char *text = NULL;
	size_t len = 0;
	struct passwd_user u;
	struct cell_err ignored;

	if (untrusted_read(AT_FDCWD, "/etc/passwd", 0, 16 << 20, &text, &len, &ignored) < 0 ||
	    passwd_find(text, len, NULL, uid, &u) != 1 || strlen(u.name) >= n)
		return false;
	strcpy(name, u.name);
	return true;
}

/* PROG (newuidmap, newgidmap) found in the usual places: a setuid
 * program, so never the caller's PATH's first match by surprise. */
static bool find_helper(const char *prog, char *path, size_t n)
{
	static const char *const dirs[] = {"/usr/bin", "/bin", "/usr/sbin", "/sbin"};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, n, "%s/%s", dirs[i], prog);
		if (access(path, X_OK) == 0)
			return true;
	}
	return false;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(text);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, (size_t)len) == len;
	if (!ok && errno == 0)
		errno = EIO;
	close(fd);
	return ok ? 0 : -1;
}

/* The maps of one's own ids only, written by the process itself. */
static int map_self(uid_t uid, gid_t gid, struct cell_err *e)
{
	char text[64];

	if (unshare(CLONE_NEWUSER) < 0)
		return cell_err_set(e, errno, "rootless: make a user namespace");
	if (write_file("/proc/self/setgroups", "deny") < 0)
		return cell_err_set(e, errno, "rootless: deny setgroups");
	snprintf(text, sizeof(text), "0 %u 1", (unsigned int)uid);
	if (write_file("/proc/self/uid_map", text) < 0)
		return cell_err_set(e, errno, "rootless: write uid_map");
	snprintf(text, sizeof(text), "0 %u 1", (unsigned int)gid);
	if (write_file("/proc/self/gid_map", text) < 0)
		return cell_err_set(e, errno, "rootless: write gid_map");
	return 0;
}

#define MAP_ARGS 64 /* 2 + 3 per entry: up to 20 entries */

/* argv of newuidmap/newgidmap PROG for PID: "PROG PID IN OUT N...". */
static int map_argv(const char *prog, pid_t pid, const struct jail_idmap *m, size_t n,
		    char store[][16], char **argv)
{
	size_t k = 0;

	if (n > (MAP_ARGS - 2) / 3)
		return -1;
	argv[k++] = (char *)prog;
	snprintf(store[k], 16, "%d", (int)pid);
	argv[k] = store[k];
	k++;
	for (size_t i = 0; i < n; i++) {
		snprintf(store[k], 16, "%u", m[i].inside);
		argv[k] = store[k];
		k++;
		snprintf(store[k], 16, "%u", m[i].outside);
		argv[k] = store[k];
		k++;
		snprintf(store[k], 16, "%u", m[i].count);
		argv[k] = store[k];
		k++;
	}
	argv[k] = NULL;
	return 0;
}

struct mapper_args {
	const char *uidprog, *gidprog;
	const struct jail_idmap *uid, *gid;
	size_t nuid, ngid;
};

/* A mapper: forked before the unshare, it waits for cell's byte on GO,
 * then becomes ARGV (newuidmap or newgidmap), its complaints to ERRFD. */
static pid_t fork_mapper(char **argv, int go, int errfd)
{
	pid_t pid = fork();

	if (pid == 0) {
		static char *const envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
		char c;

		/* Released when cell has unshared (a byte) or failed (EOF). */
		if (read(go, &c, 1) != 1)
			_exit(1);
		if (dup2(errfd, STDERR_FILENO) < 0 || dup2(errfd, STDOUT_FILENO) < 0)
			_exit(1);
		execve(argv[0], argv, envp);
		dprintf(errfd, "%s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

static bool reaped_ok(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/*
 * The maps of more ids than one's own, written by newuidmap and
 * newgidmap side by side: each forked before the unshare (a setuid
 * program gains nothing in a user namespace that maps no root), let go
 * once cell has unshared, run on cell's pid.  Their complaint, if any,
 * becomes the error.
 */
static int map_with_helpers(const struct mapper_args *a, struct cell_err *e)
{
	int go[2] = {-1, -1}, errp[2] = {-1, -1};
	pid_t self = getpid(), kids[2] = {-1, -1};
	char ustore[MAP_ARGS][16], gstore[MAP_ARGS][16], *uargv[MAP_ARGS], *gargv[MAP_ARGS];
	char msg[256];
	ssize_t n;
	int ret = -1;
	bool ok = true;

	if (map_argv(a->uidprog, self, a->uid, a->nuid, ustore, uargv) < 0 ||
	    map_argv(a->gidprog, self, a->gid, a->ngid, gstore, gargv) < 0)
		return cell_err_set(e, E2BIG, "rootless: too many id mappings");
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		cell_err_set(e, errno, "rootless: pipe");
		goto out;
	}
	kids[0] = fork_mapper(uargv, go[0], errp[1]);
	if (kids[0] > 0)
		kids[1] = fork_mapper(gargv, go[0], errp[1]);
	close(go[0]);
	close(errp[1]);
	go[0] = errp[1] = -1;
	if (kids[0] < 0 || kids[1] < 0) {
		cell_err_set(e, errno, "rootless: fork");
	} else if (unshare(CLONE_NEWUSER) < 0) {
		cell_err_set(e, errno, "rootless: make a user namespace");
	} else if (write(go[1], "gg", 2) != 2) {
		cell_err_set(e, errno, "rootless: start newuidmap");
	} else {
		ret = 0;
	}
	/* EOF lets a mapper not yet released go without acting. */
	close(go[1]);
	go[1] = -1;
	n = read(errp[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	msg[strcspn(msg, "\n")] = '\0';
	for (int i = 0; i < 2; i++)
		if (kids[i] > 0 && !reaped_ok(kids[i]))
			ok = false;
	if (ret == 0 && !ok) {
		ret = -1;
		cell_err_set(e, 0, "rootless: map the user namespace: %s",
			     msg[0] != '\0' ? msg : "newuidmap/newgidmap failed");
	}
out:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return ret;
}

/* Whether MAP is exactly "0 ID 1": what a process may write itself. */
static bool only_self(const struct jail_idmap *m, size_t n, unsigned int id)
{
	return n == 1 && m[0].inside == 0 && m[0].outside == id && m[0].count == 1;
}

int rootless_enter(const struct jail_idmap *uid_map, size_t nuid, const struct jail_idmap *gid_map,
		   size_t ngid, struct cell_err *e)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	struct jail_idmap urange[2], grange[2];
	struct mapper_args a = {0};
	char uidprog[64], gidprog[64], name[PASSWD_NAME_MAX + 1];
	unsigned long us = 0, uc = 0, gs = 0, gc = 0;
	bool have_name;

	if (!rootless() || mapping != ROOTLESS_NO)
		return 0;
	if (uid == 0 && has_sys_admin()) {
		mapping = ROOTLESS_INHERITED;
		return 0;
	}
	if (uid_map != NULL) {
		if (only_self(uid_map, nuid, uid) && only_self(gid_map, ngid, gid)) {
			if (map_self(uid, gid, e) < 0)
				return -1;
			mapping = ROOTLESS_GIVEN;
			return 0;
		}
		if (!find_helper("newuidmap", uidprog, sizeof(uidprog)) ||
		    !find_helper("newgidmap", gidprog, sizeof(gidprog)))
			return cell_err_set(e, ENOENT,
					    "rootless: mapping ids other than one's own needs "
					    "newuidmap and newgidmap (Debian's uidmap package)");
		a = (struct mapper_args){uidprog, gidprog, uid_map, gid_map, nuid, ngid};
		if (map_with_helpers(&a, e) < 0)
			return -1;
		mapping = ROOTLESS_GIVEN;
		return 0;
	}
	have_name = user_name(uid, name, sizeof(name));
	if (find_helper("newuidmap", uidprog, sizeof(uidprog)) &&
	    find_helper("newgidmap", gidprog, sizeof(gidprog)) &&
	    subids_of("/etc/subuid", have_name ? name : NULL, uid, &us, &uc) &&
	    subids_of("/etc/subgid", have_name ? name : NULL, uid, &gs, &gc)) {
		urange[0] = (struct jail_idmap){0, uid, 1};
		urange[1] = (struct jail_idmap){1, (uint32_t)us, (uint32_t)uc};
		grange[0] = (struct jail_idmap){0, gid, 1};
		grange[1] = (struct jail_idmap){1, (uint32_t)gs, (uint32_t)gc};
		a = (struct mapper_args){uidprog, gidprog, urange, grange, 2, 2};
		if (map_with_helpers(&a, e) < 0)
			return -1;
		mapping = ROOTLESS_RANGE;
		/* The host user's groups are nobody's here: gone. */
		if (setgroups(0, NULL) < 0)
			return cell_err_set(e, errno, "rootless: drop supplementary groups");
		return 0;
	}
	if (map_self(uid, gid, e) < 0)
		return -1;
	mapping = ROOTLESS_SINGLE;
	return 0;
}

int rootless_join(pid_t pid, struct cell_err *e)
{
	char path[64];
	struct stat self, target;
	cleanup_close int fd = -1;

	if (!rootless())
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cell_err_set(e, errno, "open the jail's user namespace");
	if (fstat(fd, &target) < 0 || stat("/proc/self/ns/user", &self) < 0)
		return cell_err_set(e, errno, "the jail's user namespace");
	if (self.st_ino == target.st_ino && self.st_dev == target.st_dev)
		return 0;
	if (setns(fd, CLONE_NEWUSER) < 0)
		return cell_err_set(e, errno, "join the jail's user namespace");
	return 0;
}

int rootless_state_root(const char *tool, char *buf, size_t n, struct cell_err *e)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int len;

	if (xdg != NULL && xdg[0] == '/')
		len = snprintf(buf, n, "%s/%s", xdg, tool);
	else
		len = snprintf(buf, n, "/tmp/%s-%u", tool, (unsigned int)geteuid());
	if (len < 0 || (size_t)len >= n)
		return cell_err_set(e, ENAMETOOLONG, "state root: $XDG_RUNTIME_DIR too long");
	return 0;
}

int rootless_check_root(int fd, const char *path, struct cell_err *e)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return cell_err_set(e, errno, "state root %s", path);
	/* Compared in this process's own terms: before rootless_enter() the
	 * user's uid, after it 0, which maps to the user's. */
	if (st.st_uid != geteuid())
		return cell_err_set(e, EPERM, "state root %s: not yours (owned by uid %u)", path,
				    (unsigned int)st.st_uid);
	if ((st.st_mode & 022) != 0)
		return cell_err_set(e, EPERM,
				    "state root %s: others may write it (mode %04o; want 0700)",
				    path, (unsigned int)(st.st_mode & 07777));
	return 0;
}
