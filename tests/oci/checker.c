/*
 * checker: a small static program the OCI conformance suite (tests/oci)
 * runs inside a container to show what busybox cannot: the capability
 * sets, rlimits, umask, seccomp mode, personality, no_new_privs, open
 * fds, the ids and groups, and the result of single syscalls.  A few
 * verbs run on the host side of a test instead (console socket, the
 * renameat2 race of CVE-2021-30465).
 *
 * Built by tests/oci/helpers.bash with `gcc -static` into each test
 * bundle's root.  Every verb prints one line per fact and exits 0 when
 * it could look; 2 on bad usage.  Probes print "ok" or the errno name
 * (EPERM...), never fail on a refused call: the test decides.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* "ok" for a non-negative result, else the errno's name. */
static void report(const char *what, long r)
{
	if (r >= 0)
		printf("%s ok\n", what);
	else
		printf("%s %s\n", what, strerrorname_np(errno));
}

/* The five capability sets as 64-bit hex masks; bounding and ambient
 * through prctl, so that a masked /proc cannot hide them. */
static int cmd_caps(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	uint64_t inh, prm, eff, bnd = 0, amb = 0;
	int c;

	if (syscall(SYS_capget, &h, d) < 0) {
		perror("capget");
		return 1;
	}
	inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	eff = d[0].effective | (uint64_t)d[1].effective << 32;
	for (c = 0; c < 64; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 1)
			bnd |= 1ULL << c;
		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, c, 0, 0) == 1)
			amb |= 1ULL << c;
	}
	printf("inh=%016llx\nprm=%016llx\neff=%016llx\nbnd=%016llx\namb=%016llx\n",
	       (unsigned long long)inh, (unsigned long long)prm, (unsigned long long)eff,
	       (unsigned long long)bnd, (unsigned long long)amb);
	return 0;
}

static const struct {
	const char *name;
	int resource;
} rlimits[] = {
	{"RLIMIT_AS", RLIMIT_AS},
	{"RLIMIT_CORE", RLIMIT_CORE},
	{"RLIMIT_CPU", RLIMIT_CPU},
	{"RLIMIT_DATA", RLIMIT_DATA},
	{"RLIMIT_FSIZE", RLIMIT_FSIZE},
	{"RLIMIT_LOCKS", RLIMIT_LOCKS},
	{"RLIMIT_MEMLOCK", RLIMIT_MEMLOCK},
	{"RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE},
	{"RLIMIT_NICE", RLIMIT_NICE},
	{"RLIMIT_NOFILE", RLIMIT_NOFILE},
	{"RLIMIT_NPROC", RLIMIT_NPROC},
	{"RLIMIT_RSS", RLIMIT_RSS},
	{"RLIMIT_RTPRIO", RLIMIT_RTPRIO},
	{"RLIMIT_RTTIME", RLIMIT_RTTIME},
	{"RLIMIT_SIGPENDING", RLIMIT_SIGPENDING},
	{"RLIMIT_STACK", RLIMIT_STACK},
};

static void print_limit(rlim_t v)
{
	if (v == RLIM_INFINITY)
		printf("unlimited");
	else
		printf("%llu", (unsigned long long)v);
}

/* "SOFT HARD" of the named rlimit. */
static int cmd_rlimit(const char *name)
{
	struct rlimit rl;
	size_t i;

	for (i = 0; i < sizeof(rlimits) / sizeof(rlimits[0]); i++) {
		if (strcmp(rlimits[i].name, name) != 0)
			continue;
		if (getrlimit(rlimits[i].resource, &rl) < 0) {
			perror("getrlimit");
			return 1;
		}
		print_limit(rl.rlim_cur);
		putchar(' ');
		print_limit(rl.rlim_max);
		putchar('\n');
		return 0;
	}
	fprintf(stderr, "checker: unknown rlimit %s\n", name);
	return 2;
}

static int cmd_ids(void)
{
	gid_t groups[NGROUPS_MAX];
	int n = getgroups(NGROUPS_MAX, groups), i;

	if (n < 0) {
		perror("getgroups");
		return 1;
	}
	printf("uid=%u gid=%u euid=%u egid=%u groups=", getuid(), getgid(), geteuid(), getegid());
	for (i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", groups[i]);
	putchar('\n');
	return 0;
}

/* Every open fd but the one reading the directory: "N TARGET". */
static int cmd_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[64], target[PATH_MAX];
	ssize_t n;

	if (!d) {
		perror("opendir /proc/self/fd");
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", atoi(e->d_name));
		n = readlink(path, target, sizeof(target) - 1);
		target[n < 0 ? 0 : n] = '\0';
		printf("%s %s\n", e->d_name, target);
	}
	closedir(d);
	return 0;
}

static int cmd_cwd(void)
{
	char buf[PATH_MAX];

	/* getcwd(2) fails with ENOENT, or glibc's wrapper returns a path
	 * starting "(unreachable)", when the cwd is outside the root
	 * (CVE-2024-21626). */
	if (syscall(SYS_getcwd, buf, sizeof(buf)) < 0)
		printf("cwd %s\n", strerrorname_np(errno));
	else
		printf("cwd %s\n", buf);
	return 0;
}

/* try SYSCALL ARG: one raw syscall, so that a seccomp rule on exactly
 * that syscall number decides; prints "ok" or the errno's name. */
static int cmd_try(int argc, char **argv)
{
	const char *s = argv[0];
	long r;

	if (strcmp(s, "mkdir") == 0 && argc > 1)
		r = syscall(SYS_mkdir, argv[1], 0755);
	else if (strcmp(s, "umask") == 0 && argc > 1)
		r = syscall(SYS_umask, strtol(argv[1], NULL, 8));
	else if (strcmp(s, "getppid") == 0)
		r = syscall(SYS_getppid);
	else if (strcmp(s, "sethostname") == 0 && argc > 1)
		r = syscall(SYS_sethostname, argv[1], strlen(argv[1]));
	else if (strcmp(s, "open-write") == 0 && argc > 1)
		r = syscall(SYS_open, argv[1], O_WRONLY | O_CLOEXEC);
	else if (strcmp(s, "create") == 0 && argc > 1)
		r = syscall(SYS_open, argv[1], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	else if (strcmp(s, "open-read") == 0 && argc > 1)
		r = syscall(SYS_open, argv[1], O_RDONLY | O_CLOEXEC);
	else if (strcmp(s, "chdir") == 0 && argc > 1)
		r = syscall(SYS_chdir, argv[1]);
	else {
		fprintf(stderr, "checker: try: unknown call %s\n", s);
		return 2;
	}
	report(s, r);
	return 0;
}

/* ptrace PID: attach (and detach at once); "ptrace ok" or the errno. */
static int cmd_ptrace(const char *pid_s)
{
	pid_t pid = atoi(pid_s);
	long r = ptrace(PTRACE_ATTACH, pid, NULL, NULL);

	report("ptrace", r);
	if (r == 0) {
		waitpid(pid, NULL, __WALL);
		ptrace(PTRACE_DETACH, pid, NULL, NULL);
	}
	return 0;
}

/* Whether NAME is one of this checker's own or a busybox applet: the
 * programs of the container itself, which exe-watch leaves alone. */
static int own_program(const char *target)
{
	return strcmp(target, "/bin/busybox") == 0 || strcmp(target, "/bin/checker") == 0;
}

/* exe-watch SECONDS: for SECONDS, look at every process's exe link and
 * try to open it for writing (never truncating, never writing) and to
 * reopen it for reading.  Prints "seen N" (foreign exes observed) and a
 * "writable PID TARGET" / "readable PID TARGET" line for each success:
 * CVE-2019-5736 overwrote the runtime through /proc/PID/exe. */
static int cmd_exe_watch(const char *secs_s)
{
	time_t end = time(NULL) + atoi(secs_s);
	long seen = 0;
	pid_t self = getpid();

	while (time(NULL) < end) {
		DIR *d = opendir("/proc");
		struct dirent *e;

		if (!d) {
			perror("opendir /proc");
			return 1;
		}
		while ((e = readdir(d))) {
			char path[64], target[PATH_MAX];
			pid_t pid = atoi(e->d_name);
			ssize_t n;
			int fd;

			if (pid <= 0 || pid == self)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/exe", pid);
			n = readlink(path, target, sizeof(target) - 1);
			if (n < 0) {
				/* An exe link we may not read is a process we
				 * cannot see into: count it, it was tried. */
				if (errno == EACCES || errno == EPERM)
					seen++;
				continue;
			}
			target[n] = '\0';
			if (own_program(target))
				continue;
			seen++;
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd >= 0) {
				printf("writable %d %s\n", pid, target);
				close(fd);
			}
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0) {
				printf("readable %d %s\n", pid, target);
				close(fd);
			}
		}
		closedir(d);
		fflush(stdout);
	}
	printf("seen %ld\n", seen);
	return 0;
}

/* rename-exchange A B SECONDS: swap A and B with renameat2(2)
 * RENAME_EXCHANGE as fast as possible for SECONDS (host side of the
 * CVE-2021-30465 race). */
static int cmd_rename_exchange(const char *a, const char *b, const char *s)
{
	time_t end = time(NULL) + atoi(s);
	long n = 0;

	while (time(NULL) < end) {
		for (int i = 0; i < 1000; i++, n++)
			if (syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) < 0) {
				perror("renameat2");
				return 1;
			}
	}
	/* An even number of swaps leaves the tree as it was. */
	if (n % 2)
		syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
	printf("swaps %ld\n", n);
	return 0;
}

/* recvtty SOCKET: the engine's end of --console-socket.  Listens on
 * SOCKET, takes the pty master from the first connection's SCM_RIGHTS
 * message and copies what the container writes to stdout until the
 * pty closes (EIO once every slave fd is gone).  With INPUT, writes it
 * to the master first. */
static int recv_master(int conn)
{
	/* runc sends the pty's name as the data; take all of it. */
	char name[256], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {name, sizeof(name)};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(conn, &msg, 0) < 0) {
		perror("recvmsg");
		return -1;
	}
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS) {
		fprintf(stderr, "checker: no fd on the console socket\n");
		return -1;
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	return fd;
}

static int cmd_recvtty(const char *path, const char *input)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char buf[4096];
	int s, conn, master;
	ssize_t n;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s, 1) < 0) {
		perror("console socket");
		return 1;
	}
	conn = accept4(s, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0) {
		perror("accept");
		return 1;
	}
	master = recv_master(conn);
	close(conn);
	close(s);
	if (master < 0)
		return 1;
	if (input && write(master, input, strlen(input)) < 0)
		perror("write to the pty");
	while ((n = read(master, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	return 0;
}

/* Writes S to the file PATH; 0 or -1 with errno. */
static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n < 0 ? -1 : 0;
}

/* release-agent DIR: what `unshare -UrmC` then a cgroup v1 mount gives
 * (CVE-2022-0492): a user, mount and cgroup namespace of its own, the
 * memory hierarchy mounted on DIR, and a write of release_agent's own
 * value back to it (harmless if it went through).  Prints a line per
 * step: "unshare", "mount", "write", each "ok" or the errno. */
static int cmd_release_agent(const char *dir)
{
	char map[64], value[4096] = "";
	char path[PATH_MAX];
	uid_t uid = getuid();
	gid_t gid = getgid();
	ssize_t n;
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP) < 0) {
		report("unshare", -1);
		return 0;
	}
	report("unshare", 0);
	snprintf(map, sizeof(map), "0 %u 1", uid);
	write_file("/proc/self/setgroups", "deny");
	write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", gid);
	write_file("/proc/self/gid_map", map);
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	mkdir(dir, 0755);
	if (mount("cgroup", dir, "cgroup", 0, "memory") < 0) {
		report("mount", -1);
		return 0;
	}
	report("mount", 0);
	snprintf(path, sizeof(path), "%s/release_agent", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, value, sizeof(value) - 1);
		value[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	report("write", write_file(path, value[0] ? value : "\n"));
	return 0;
}

static int cmd_winsize(void)
{
	struct winsize ws;

	if (ioctl(0, TIOCGWINSZ, &ws) < 0) {
		printf("winsize %s\n", strerrorname_np(errno));
		return 0;
	}
	printf("winsize %u %u\n", ws.ws_row, ws.ws_col);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: checker caps|rlimit NAME|umask|nnp|seccomp|"
			"personality|ids|fds|cwd|isatty|winsize|try CALL ARG|"
			"ptrace PID|exe-watch SECS|rename-exchange A B SECS|"
			"recvtty SOCKET [INPUT]|release-agent DIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *v = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(v, "caps") == 0)
		return cmd_caps();
	if (strcmp(v, "rlimit") == 0 && argc > 2)
		return cmd_rlimit(argv[2]);
	if (strcmp(v, "umask") == 0) {
		mode_t m = umask(0);
		printf("%04o\n", m);
		return 0;
	}
	if (strcmp(v, "nnp") == 0)
		return printf("%d\n", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)) < 0;
	if (strcmp(v, "seccomp") == 0)
		return printf("%d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0)) < 0;
	if (strcmp(v, "personality") == 0)
		return printf("0x%x\n", personality(0xffffffff)) < 0;
	if (strcmp(v, "ids") == 0)
		return cmd_ids();
	if (strcmp(v, "fds") == 0)
		return cmd_fds();
	if (strcmp(v, "cwd") == 0)
		return cmd_cwd();
	if (strcmp(v, "isatty") == 0)
		return printf("%d %d %d\n", isatty(0), isatty(1), isatty(2)) < 0;
	if (strcmp(v, "winsize") == 0)
		return cmd_winsize();
	if (strcmp(v, "try") == 0 && argc > 2)
		return cmd_try(argc - 2, argv + 2);
	if (strcmp(v, "ptrace") == 0 && argc > 2)
		return cmd_ptrace(argv[2]);
	if (strcmp(v, "exe-watch") == 0 && argc > 2)
		return cmd_exe_watch(argv[2]);
	if (strcmp(v, "rename-exchange") == 0 && argc > 4)
		return cmd_rename_exchange(argv[2], argv[3], argv[4]);
	if (strcmp(v, "release-agent") == 0 && argc > 2)
		return cmd_release_agent(argv[2]);
	if (strcmp(v, "recvtty") == 0 && argc > 2)
		return cmd_recvtty(argv[2], argc > 3 ? argv[3] : NULL);
	return usage();
}
