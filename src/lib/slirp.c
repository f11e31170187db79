/*
 * slirp.c - `--net slirp`: pasta or slirp4netns beside a jail, and the
 * keeper that ends it with the jail.  See slirp.h.
 *
 * Descriptors of the program (its command line names them as
 * /proc/self/fd/N, so that it opens them itself without a path cell
 * would have to spell, and without the ptrace check /proc/PID/ns/net of
 * a jail's process would cost it):
 *   0 /dev/null, 1 and 2 slirp.log, 3 the jail's network namespace,
 *   4 the ready pipe (pasta writes its pid there; slirp4netns "1"),
 *   5 slirp4netns: the jail's state directory (O_PATH, opened anew: never
 *     the locked description of cell's, which the program would hold for
 *     the jail's life), where its API socket goes,
 *   6 slirp4netns: its exit pipe (the other end goes with the keeper).
 */
#include "slirp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "netaddr.h"
#include "param.h"
#include "proc.h"

#define DEFAULT_PATH	  "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define READY_TIMEOUT_MS  10000 /* ready in 0.1-0.7 s on a loaded 2-CPU host */
#define REPORT_TIMEOUT_MS (READY_TIMEOUT_MS + 5000)
#define TERM_WAIT_MS	  2000 /* SIGTERM, then SIGKILL */
#define API_TIMEOUT_MS	  5000
#define LOG_NAME	  "slirp.log"
#define SOCK_NAME	  "slirp.sock"

/* The program's descriptors (above). */
enum { FD_NETNS = 3, FD_READY, FD_DIR, FD_EXIT, FD_COUNT };

const char *slirp_prog_name(enum slirp_prog p)
{
	return p == SLIRP_PASTA ? "pasta" : "slirp4netns";
}

/* ---- which program ---- */

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* NAME in PATH's absolute directories (a relative one would make the
 * program depend on where cell was started). */
static bool find_in_path(const char *name, char *out, size_t size)
{
	const char *env = getenv("PATH");
	cleanup_free char *copy = strdup(env != NULL && *env != '\0' ? env : DEFAULT_PATH);
	char *save = NULL;

	if (copy == NULL)
		return false;
	for (char *dir = strtok_r(copy, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save))
		if (dir[0] == '/' && (size_t)snprintf(out, size, "%s/%s", dir, name) < size &&
		    executable(out))
			return true;
	return false;
}

/* The program P: its override's path ($CELL_PASTA, $CELL_SLIRP4NETNS)
 * when set, else found in PATH. */
static bool find_prog(enum slirp_prog p, char *out, size_t size)
{
	const char *over = getenv(p == SLIRP_PASTA ? "CELL_PASTA" : "CELL_SLIRP4NETNS");

	if (over != NULL && *over != '\0')
		return over[0] == '/' && (size_t)snprintf(out, size, "%s", over) < size &&
		       executable(out);
	return find_in_path(slirp_prog_name(p), out, size);
}

int slirp_find(struct slirp *sl, const struct jail_spec *s, struct cell_err *e)
{
	memset(sl, 0, sizeof(*sl));
	if (s->net != JAIL_NET_SLIRP)
		return 0;
	sl->on = true;
	snprintf(sl->ifname, sizeof(sl->ifname), "%s",
		 s->network.ifname != NULL ? s->network.ifname : "eth0");
	if (find_prog(SLIRP_PASTA, sl->path, sizeof(sl->path)))
		sl->prog = SLIRP_PASTA;
	else if (find_prog(SLIRP_SLIRP4NETNS, sl->path, sizeof(sl->path)))
		sl->prog = SLIRP_SLIRP4NETNS;
	else {
		sl->on = false;
		return cell_err_param(e, PARAM_NET, 0, 0,
				      "needs pasta (Debian package passt) or slirp4netns, and "
				      "neither is installed");
	}
	/* The program opens the tun device as the caller (real ids): said
	 * now, before anything is made, rather than by the program once
	 * the jail is half up.  A host without udev leaves it 0600. */
	if (access("/dev/net/tun", R_OK | W_OK) < 0) {
		int err = errno;

		sl->on = false;
		return cell_err_param(
			e, PARAM_NET, 0, 0, "%s cannot open /dev/net/tun as uid %u (%s)%s",
			slirp_prog_name(sl->prog), (unsigned int)getuid(), strerror(err),
			err == EACCES ? ": a rootless slirp needs it open to "
					"users (mode 0666, as udev makes it)"
				      : "");
	}
	return 0;
}

/* ---- the jail's network namespace ---- */

int slirp_netns(struct cell_err *e)
{
	/* A number of cell's own, which the child's descriptor replaces
	 * (its table is cell's: CLONE_FILES). */
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), status = 0;
	pid_t pid;

	if (fd < 0)
		return cell_err_set(e, errno, "--net slirp: a network namespace");
	/* fork()-like (no CLONE_VM: memory copied), only the descriptor
	 * table shared; the child makes the namespace and leaves it at FD. */
	pid = (pid_t)syscall(SYS_clone, CLONE_FILES | SIGCHLD, NULL, NULL, NULL, 0UL);
	if (pid == 0) {
		int ns;

		if (unshare(CLONE_NEWNET) < 0)
			_exit(10);
		ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		_exit(ns < 0 || dup3(ns, fd, O_CLOEXEC) < 0 ? 11 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0 || ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET) {
		int err = pid < 0 ? errno : WEXITSTATUS(status) == 10 ? EPERM : EIO;

		close(fd);
		return cell_err_set(e, err, "--net slirp: make a network namespace");
	}
	return fd;
}

/* ---- the command line ---- */

#define ARGV_MAX 96

/* An argv of at most ARGV_MAX words, kept in one buffer. */
struct argv {
	char *v[ARGV_MAX + 1];
	char buf[8192];
	size_t n, used;
	bool failed;
};

static void add(struct argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct argv *a, const char *fmt, ...)
{
	va_list ap;
	int len;

	if (a->failed || a->n >= ARGV_MAX) {
		a->failed = true;
		return;
	}
	va_start(ap, fmt);
	len = vsnprintf(a->buf + a->used, sizeof(a->buf) - a->used, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= sizeof(a->buf) - a->used) {
		a->failed = true;
		return;
	}
	a->v[a->n++] = a->buf + a->used;
	a->v[a->n] = NULL;
	a->used += (size_t)len + 1;
}

/* pasta's spelling of the ports of PROTO ("tcp", "udp"): one -t/-u each,
 * "[ADDR/]HOSTPORT:JAILPORT"; "none" when there are none (pasta's default
 * would forward every port the jail binds). */
static void pasta_ports(struct argv *a, const struct jail_spec *s, const char *proto)
{
	const char *opt = proto[0] == 't' ? "-t" : "-u";
	struct cell_err ignored;
	bool any = false;

	for (size_t i = 0; i < s->network.npublish; i++) {
		char addr[NETADDR_TEXT] = "";
		struct netport p;

		if (netport_parse(s->network.publish[i], &p, &ignored) < 0) {
			a->failed = true;
			return;
		}
		if (strcmp(p.proto, proto) != 0)
			continue;
		if (p.has_addr) {
			netaddr_format_addr(&p.addr, addr, sizeof(addr));
			strcat(addr, "/");
		}
		add(a, "%s", opt);
		add(a, "%s%u:%u", addr, p.host_port, p.jail_port);
		any = true;
	}
	if (!any) {
		add(a, "%s", opt);
		add(a, "none");
	}
}

/*
 * pasta, in the foreground (the keeper's child), quiet but for warnings
 * and errors, into the jail's namespace by descriptor.  Its own root
 * (--runas: in cell's user namespace; it drops every capability and
 * sandboxes itself once the tap is made).  The jail's side is fixed
 * (slirp.h); --no-map-gw and -T/-U none keep the host's loopback out of
 * the jail's reach, -t/-u the published ports only.
 */
static void pasta_argv(struct argv *a, const struct slirp *sl, const struct jail_spec *s)
{
	add(a, "pasta");
	add(a, "--foreground");
	add(a, "--quiet");
	add(a, "--ipv4-only");
	add(a, "--runas");
	add(a, "0:0");
	add(a, "--log-file");
	add(a, "/proc/self/fd/2");
	add(a, "--pid");
	add(a, "/proc/self/fd/%d", FD_READY);
	add(a, "--netns");
	add(a, "/proc/self/fd/%d", FD_NETNS);
	add(a, "--config-net");
	add(a, "--ns-ifname");
	add(a, "%s", sl->ifname);
	add(a, "--address");
	add(a, "%.*s", (int)strcspn(SLIRP_ADDR, "/"), SLIRP_ADDR);
	add(a, "--netmask");
	add(a, "%s", strchr(SLIRP_ADDR, '/') + 1);
	add(a, "--gateway");
	add(a, SLIRP_GATEWAY);
	add(a, "--dns-forward");
	add(a, SLIRP_DNS);
	add(a, "--no-map-gw");
	add(a, "--tcp-ns");
	add(a, "none");
	add(a, "--udp-ns");
	add(a, "none");
	pasta_ports(a, s, "tcp");
	pasta_ports(a, s, "udp");
}

/* slirp4netns: the same layout (its own defaults), the host's loopback
 * closed, sandboxed; ports through its API socket once it is ready. */
static void slirp4netns_argv(struct argv *a, const struct slirp *sl)
{
	add(a, "slirp4netns");
	add(a, "--configure");
	add(a, "--mtu=65520");
	add(a, "--disable-host-loopback");
	add(a, "--enable-sandbox");
	add(a, "--enable-seccomp");
	add(a, "--ready-fd=%d", FD_READY);
	add(a, "--exit-fd=%d", FD_EXIT);
	add(a, "--api-socket");
	add(a, "/proc/self/fd/%d/%s", FD_DIR, SOCK_NAME);
	add(a, "--netns-type=path");
	add(a, "/proc/self/fd/%d", FD_NETNS);
	add(a, "%s", sl->ifname);
}

/* ---- the program ---- */

/* Puts FDS[i] at descriptor i (-1: i closed), and closes every other
 * one; the sources may be any descriptors, the targets among them. */
static int place_fds(const int *fds, int n)
{
	int high[FD_COUNT + 1];

	for (int i = 0; i < n; i++) {
		high[i] = fds[i] >= 0 ? fcntl(fds[i], F_DUPFD_CLOEXEC, 64) : -1;
		if (fds[i] >= 0 && high[i] < 0)
			return -1;
	}
	for (int i = 0; i < n; i++) {
		if (high[i] >= 0 && dup2(high[i], i) < 0)
			return -1;
		if (high[i] < 0)
			close(i);
	}
	return (int)syscall(SYS_close_range, (unsigned int)n, ~0U, 0U);
}

static noreturn void prog_child(const struct slirp *sl, char *const *argv, pid_t keeper,
				const int *fds)
{
	static char *const envp[] = {"PATH=" DEFAULT_PATH, "LC_ALL=C", NULL};
	sigset_t none;

	/* It goes with its keeper, whatever the keeper died of (pasta keeps
	 * the signal: its root stays root, its capabilities only shrink;
	 * slirp4netns has its exit pipe as well). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != keeper)
		_exit(126);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	/* A mount namespace of its own where nothing propagates back: the
	 * programs' sandboxes detach the old root after a pivot_root, and
	 * slirp4netns makes only / private first, so that the detach would
	 * take the host's shared submounts with it (every namespace bound
	 * under /run/netns: a change to the host's mounts). */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		_exit(126);
	if (place_fds(fds, FD_COUNT) < 0)
		_exit(126);
	execve(sl->path, argv, envp);
	_exit(127);
}

/* The last line of slirp.log (DIRFD's), for an error: its timestamp
 * ("0.0123: ") dropped. */
static void log_reason(int dirfd, char *buf, size_t size)
{
	char tail[2048], *line, *end;
	cleanup_close int fd = openat(dirfd, LOG_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	off_t len = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	ssize_t n;

	buf[0] = '\0';
	if (len < 0)
		return;
	n = pread(fd, tail, sizeof(tail) - 1,
		  len > (off_t)sizeof(tail) - 1 ? len - (off_t)sizeof(tail) + 1 : 0);
	if (n <= 0)
		return;
	tail[n] = '\0';
	while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
		tail[--n] = '\0';
	line = strrchr(tail, '\n');
	line = line != NULL ? line + 1 : tail;
	strtod(line, &end);
	if (end != line && end[0] == ':' && end[1] == ' ')
		line = end + 2;
	n = (ssize_t)strnlen(line, size - 1);
	memcpy(buf, line, (size_t)n);
	buf[n] = '\0';
}

/* Milliseconds left of DEADLINE (CLOCK_MONOTONIC), at least 0. */
static int left_ms(const struct timespec *deadline)
{
	struct timespec now;
	long long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (deadline->tv_sec - now.tv_sec) * 1000LL + (deadline->tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : ms > 600000 ? 600000 : (int)ms;
}

static void deadline_in(struct timespec *d, int ms)
{
	clock_gettime(CLOCK_MONOTONIC, d);
	d->tv_sec += ms / 1000;
	d->tv_nsec += (long)(ms % 1000) * 1000000;
	if (d->tv_nsec >= 1000000000) {
		d->tv_sec++;
		d->tv_nsec -= 1000000000;
	}
}

/*
 * Until the program writes to the ready pipe READY: 0.  -1 with *WHY
 * when it ended first (its log says why), the jail did, or the time ran
 * out.
 */
static int wait_ready(int ready, int prog_pidfd, int jail_pidfd, const char **why)
{
	struct pollfd p[3] = {{.fd = ready, .events = POLLIN},
			      {.fd = prog_pidfd, .events = POLLIN},
			      {.fd = jail_pidfd, .events = POLLIN}};
	struct timespec deadline;
	char c;

	deadline_in(&deadline, READY_TIMEOUT_MS);
	for (;;) {
		int r = poll(p, 3, left_ms(&deadline));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			*why = r == 0 ? "not ready in time" : "poll";
			return -1;
		}
		if (p[0].revents != 0) {
			ssize_t n = read(ready, &c, 1);

			if (n == 1)
				return 0;
			if (n < 0 && errno == EINTR)
				continue;
			*why = NULL; /* it ended: its log says why */
			return -1;
		}
		if (p[1].revents != 0) {
			*why = NULL;
			return -1;
		}
		*why = "the jail ended";
		return -1;
	}
}

/* ---- slirp4netns's API: the published ports ---- */

/* Sends REQ to the API socket of DIRFD, reads its one reply. */
static json_t *api_call(int dirfd, json_t *req, struct cell_err *e)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	cleanup_free char *text = json_dumps(req, JSON_COMPACT);
	cleanup_close int sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct timeval tv = {.tv_sec = API_TIMEOUT_MS / 1000};
	char reply[4096];
	size_t len = 0;
	ssize_t n;

	json_t *answer;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s", dirfd, SOCK_NAME);
	if (text == NULL || sock < 0) {
		cell_err_set(e, text == NULL ? ENOMEM : errno, "slirp4netns API");
		return NULL;
	}
	/* Bounded: a program that stopped answering is not waited for. */
	if (setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(sock, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    write(sock, text, strlen(text)) != (ssize_t)strlen(text) ||
	    shutdown(sock, SHUT_WR) < 0) {
		cell_err_set(e, errno, "slirp4netns API");
		return NULL;
	}
	while (len < sizeof(reply) - 1 &&
	       (n = read(sock, reply + len, sizeof(reply) - 1 - len)) > 0)
		len += (size_t)n;
	reply[len] = '\0';
	answer = json_loads(reply, 0, NULL);
	if (answer == NULL)
		cell_err_set(e, EPROTO, "slirp4netns API: no answer");
	return answer;
}

/* One published port through slirp4netns's add_hostfwd. */
static int api_publish(int dirfd, const char *text, struct cell_err *e)
{
	char addr[NETADDR_TEXT] = "0.0.0.0";
	struct netport p;
	json_t *req, *reply;
	const char *desc = NULL;
	int ret = 0;

	if (netport_parse(text, &p, e) < 0)
		return -1;
	if (p.has_addr)
		netaddr_format_addr(&p.addr, addr, sizeof(addr));
	req = json_pack("{s:s, s:{s:s, s:s, s:i, s:i}}", "execute", "add_hostfwd", "arguments",
			"proto", p.proto, "host_addr", addr, "host_port", (int)p.host_port,
			"guest_port", (int)p.jail_port);
	if (req == NULL)
		return cell_err_set(e, ENOMEM, "publish %s", text);
	reply = api_call(dirfd, req, e);
	json_decref(req);
	if (reply == NULL)
		return cell_err_prefix(e, "publish %s", text);
	if (json_object_get(reply, "return") == NULL) {
		json_unpack(reply, "{s:{s:s}}", "error", "desc", &desc);
		ret = cell_err_set(e, 0, "publish %s: slirp4netns: %s", text,
				   desc != NULL ? desc : "refused");
	}
	json_decref(reply);
	return ret;
}

/* ---- the keeper ---- */

/* What the keeper starts with (a fork of cell: these are its copies). */
struct keeper {
	const struct slirp *sl;
	const struct jail_spec *s;
	int netns, jail_pidfd, dir, report;
};

/* The program's end: SIGTERM, and SIGKILL if it has not gone within
 * TERM_WAIT_MS.  PIDFD pins it: never another process. */
static void end_prog(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	if (syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0) == 0 &&
	    poll(&p, 1, TERM_WAIT_MS) == 1)
		return;
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	poll(&p, 1, TERM_WAIT_MS);
}

static void report(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(int fd, const char *fmt, ...)
{
	char line[1200];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	/* Cell may be gone (killed): SIGPIPE is ignored, the error too. */
	if (write(fd, line, (size_t)n) < 0)
		return;
}

/* Starts the program; its pid and pidfd.  Its log opened (truncated)
 * in the state directory. */
static int start_prog(const struct keeper *k, int ready_w, int exit_r, pid_t *pid, int *pidfd)
{
	struct argv *a = calloc(1, sizeof(*a));
	cleanup_close int log = -1, null = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid_t self = getpid();

	log = openat(k->dir, LOG_NAME,
		     O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (a == NULL || log < 0 || null < 0) {
		free(a);
		return -1;
	}
	if (k->sl->prog == SLIRP_PASTA)
		pasta_argv(a, k->sl, k->s);
	else
		slirp4netns_argv(a, k->sl);
	if (a->failed) {
		free(a);
		errno = E2BIG;
		return -1;
	}
	*pid = fork();
	if (*pid == 0) {
		int fds[FD_COUNT] = {null,    log,
				     log,     k->netns,
				     ready_w, k->sl->prog == SLIRP_SLIRP4NETNS ? k->dir : -1,
				     exit_r};

		prog_child(k->sl, a->v, self, fds);
	}
	free(a);
	if (*pid < 0)
		return -1;
	/* Its child, not reaped: the pid is still its. */
	*pidfd = (int)syscall(SYS_pidfd_open, *pid, 0);
	return *pidfd < 0 ? -1 : 0;
}

/* Until the jail or the program ends; then the program goes. */
static noreturn void keep(int jail_pidfd, int prog_pidfd, pid_t pid)
{
	struct pollfd p[2] = {{.fd = jail_pidfd, .events = POLLIN},
			      {.fd = prog_pidfd, .events = POLLIN}};

	while (poll(p, 2, -1) < 0 && errno == EINTR)
		;
	if (p[1].revents == 0)
		end_prog(prog_pidfd);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* The program that failed ended and reaped, MSG reported: the keeper's
 * end. */
static noreturn void give_up(const struct keeper *k, int pidfd, pid_t pid, const char *msg)
{
	end_prog(pidfd);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	report(k->report, "error %s", msg);
	_exit(1);
}

static noreturn void keeper_main(const struct keeper *k)
{
	const char *name = slirp_prog_name(k->sl->prog);
	int ready[2] = {-1, -1}, exitp[2] = {-1, -1}, pidfd = -1;
	unsigned long long start = 0;
	const char *why = NULL;
	char reason[1024], msg[sizeof(reason) + 64];
	struct cell_err e;
	pid_t pid = -1;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(exitp, O_CLOEXEC) < 0 ||
	    start_prog(k, ready[1], k->sl->prog == SLIRP_SLIRP4NETNS ? exitp[0] : -1, &pid,
		       &pidfd) < 0) {
		report(k->report, "error %s: %s", name, strerror(errno));
		if (pid > 0)
			kill(pid, SIGKILL); /* its child, unreaped */
		_exit(1);
	}
	close(ready[1]);
	close(exitp[0]);
	if (wait_ready(ready[0], pidfd, k->jail_pidfd, &why) < 0) {
		/* It ended first: the last line of its log says why. */
		if (why == NULL)
			log_reason(k->dir, reason, sizeof(reason));
		snprintf(msg, sizeof(msg), "%s: %s", name,
			 why != NULL	     ? why
			 : reason[0] != '\0' ? reason
					     : "it ended before it was ready");
		give_up(k, pidfd, pid, msg);
	}
	for (size_t i = 0; k->sl->prog == SLIRP_SLIRP4NETNS && i < k->s->network.npublish; i++)
		if (api_publish(k->dir, k->s->network.publish[i], &e) < 0)
			give_up(k, pidfd, pid, e.msg);
	/* The ports are set: nobody is to change them (the socket stays
	 * open in slirp4netns, reachable by no path). */
	unlinkat(k->dir, SOCK_NAME, 0);
	proc_start_time(pid, &start);
	report(k->report, "ok %d %llu %d", (int)pid, start, (int)getpid());
	/* Nothing of the jail's but its pidfd: the program holds the rest. */
	close(k->report);
	close(k->netns);
	close(k->dir);
	close(ready[0]);
	keep(k->jail_pidfd, pidfd, pid);
}

/* The keeper's process: in a session of its own, no signal of the
 * terminal's, nothing of cell's open but what it needs (cell's locks
 * above all: a detached jail's keeper outlives cell). */
static noreturn void keeper_enter(struct keeper *k)
{
	int fds[7] = {-1, -1, -1, k->netns, k->jail_pidfd, k->dir, k->report};
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	sigset_t none;

	fds[0] = fds[1] = fds[2] = null;
	if (null < 0 || setsid() < 0 || place_fds(fds, 7) < 0)
		_exit(1);
	k->netns = 3;
	k->jail_pidfd = 4;
	k->dir = 5;
	k->report = 6;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	prctl(PR_SET_NAME, "cell-slirp");
	if (chdir("/") < 0)
		_exit(1);
	/* Twice forked: init's child, not cell's (cell's only child stays
	 * the jail's first process). */
	switch (fork()) {
	case -1:
		report(k->report, "error keeper: fork: %s", strerror(errno));
		_exit(1);
	case 0:
		keeper_main(k);
	default:
		_exit(0);
	}
}

/* The keeper's one line: "ok PID START KEEPER" or "error MESSAGE". */
static int read_report(int fd, char *line, size_t size)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	struct timespec deadline;
	size_t len = 0;

	deadline_in(&deadline, REPORT_TIMEOUT_MS);
	while (len < size - 1 && memchr(line, '\n', len) == NULL) {
		int r = poll(&p, 1, left_ms(&deadline));
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		n = read(fd, line + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	line[len] = '\0';
	line[strcspn(line, "\n")] = '\0';
	return len > 0 ? 0 : -1;
}

int slirp_start(struct slirp *sl, const struct jail_spec *s, int dirfd, int netns_fd,
		int jail_pidfd, struct cell_err *e)
{
	/* The state directory anew: cell's descriptor holds the jail's
	 * lock, which a copy in the keeper would hold for the jail's life. */
	cleanup_close int dir = openat(dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct keeper k = {
		.sl = sl, .s = s, .netns = netns_fd, .jail_pidfd = jail_pidfd, .dir = dir};
	int rep[2], status, pid, keeper;
	unsigned long long start;
	char line[1200];
	pid_t mid;

	if (!sl->on)
		return 0;
	if (dir < 0)
		return cell_err_set(e, errno, "--net slirp: the state directory");
	if (pipe2(rep, O_CLOEXEC) < 0)
		return cell_err_set(e, errno, "--net slirp: pipe");
	mid = fork();
	if (mid < 0) {
		close(rep[0]);
		close(rep[1]);
		return cell_err_set(e, errno, "--net slirp: fork");
	}
	if (mid == 0) {
		close(rep[0]);
		k.report = rep[1];
		keeper_enter(&k);
	}
	close(rep[1]);
	while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
		;
	if (read_report(rep[0], line, sizeof(line)) < 0) {
		close(rep[0]);
		return cell_err_param(e, PARAM_NET, 0, 0, "%s: its keeper did not answer",
				      slirp_prog_name(sl->prog));
	}
	close(rep[0]);
	if (sscanf(line, "ok %d %llu %d", &pid, &start, &keeper) != 3 || pid <= 0)
		return cell_err_param(e, PARAM_NET, 0, 0, "%s",
				      strncmp(line, "error ", 6) == 0 ? line + 6 : line);
	sl->pid = pid;
	sl->start = start;
	sl->keeper = keeper;
	return 0;
}

/* Ends PID if it is the process that started at START. */
static void stop_pid(pid_t pid, unsigned long long start)
{
	cleanup_close int fd = pid > 0 ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;

	/* Checked once the pidfd pins it: a recycled pid is never killed. */
	if (fd >= 0 && proc_alive(pid, start))
		end_prog(fd);
}

void slirp_stop(const struct slirp *sl)
{
	if (sl->on && sl->pid > 0)
		stop_pid(sl->pid, sl->start);
}

json_t *slirp_record(const struct slirp *sl)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:I, s:i, s:s, s:s, s:s, s:s, s:b}", "mode", "slirp",
			 "helper", slirp_prog_name(sl->prog), "path", sl->path, "pid", (int)sl->pid,
			 "start_time", (json_int_t)sl->start, "keeper", (int)sl->keeper,
			 "interface", sl->ifname, "address", SLIRP_ADDR, "gateway", SLIRP_GATEWAY,
			 "dns", SLIRP_DNS, "active", 1);
}

/* The pid and start time NET names; false when it names none. */
static bool recorded(const json_t *net, pid_t *pid, unsigned long long *start)
{
	json_int_t p = 0, t = 0;

	if (json_unpack((json_t *)net, "{s:I, s:I}", "pid", &p, "start_time", &t) < 0 || p <= 0)
		return false;
	*pid = (pid_t)p;
	*start = (unsigned long long)t;
	return true;
}

void slirp_release(const json_t *net)
{
	unsigned long long start;
	pid_t pid;

	if (recorded(net, &pid, &start))
		stop_pid(pid, start);
}

bool slirp_running(const json_t *net)
{
	unsigned long long start;
	pid_t pid;

	return recorded(net, &pid, &start) && proc_alive(pid, start);
}
