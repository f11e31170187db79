/*
 * net.c - a jail's network beyond loopback.  See net.h.
 *
 * The engine's part: which addresses a bridged jail gets (under a lock
 * of the state root, read from the other jails' records), the files a
 * bridged or joined jail sees as /etc/hosts, /etc/hostname and
 * /etc/resolv.conf, and running cell-net (fork + execve of an absolute
 * path, its outputs through pipes read with a bound and a timeout).
 * Netlink and nftables are cell-net's alone; a slirp jail's program is
 * slirp.c's.
 */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "netaddr.h"
#include "param.h"
#include "store.h"
#include "testpoint.h"

#ifndef CELL_NET_PATH
#define CELL_NET_PATH "/usr/local/libexec/cell/cell-net"
#endif

#define HELPER_OUT_MAX	  65536 /* cell-net's stdout: one small JSON object */
#define HELPER_ERR_MAX	  4096	/* its stderr: one line */
#define HELPER_TIMEOUT_MS 30000 /* netlink and one nft batch: far less */
#define HELPER_NETNS_FD	  3	/* the namespace handed to cell-net, as /proc/self/fd/3 */

/* The subnets of cell0 when nothing says: outside the documentation
 * ranges, so that tests (which use those) never meet them. */
static const char *const default_gateways[] = {"10.89.0.1/24", "fd89::1/64"};

unsigned int net_fnv1a(const char *s)
{
	unsigned int h = 2166136261u;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

void net_plan_init(struct net_plan *n)
{
	memset(n, 0, sizeof(*n));
}

void net_plan_free(struct net_plan *n)
{
	param_strv_free(n->ip4, n->nip4);
	param_strv_free(n->ip6, n->nip6);
	param_strv_free(n->gateway, n->ngateway);
	net_plan_init(n);
}

static int push(char ***v, size_t *n, const char *text, struct cell_err *e)
{
	char *copy = strdup(text), **grown;

	grown = copy != NULL ? realloc(*v, (*n + 1) * sizeof(*grown)) : NULL;
	if (grown == NULL) {
		free(copy);
		return cell_err_set(e, ENOMEM, "net");
	}
	grown[(*n)++] = copy;
	*v = grown;
	return 0;
}

/* E, as it is, about element INDEX of PARAM (its whole message the
 * part about the value). */
static int about(struct cell_err *e, int param, int index)
{
	e->about.param = param;
	e->about.index = index;
	e->about.at = 0;
	return -1;
}

/* ---- running cell-net ---- */

/* cell-net beside cell's own binary (a build tree, or an install of
 * both), else where the build says it is installed; no PATH search. */
static int find_helper(char *path, size_t size, struct cell_err *e)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash != NULL) {
			*slash = '\0';
			if ((size_t)snprintf(path, size, "%s/cell-net", self) < size &&
			    access(path, X_OK) == 0)
				return 0;
		}
	}
	snprintf(path, size, "%s", CELL_NET_PATH);
	if (access(path, X_OK) == 0)
		return 0;
	return cell_err_set(e, ENOENT, "cell-net: not found beside cell nor at %s", CELL_NET_PATH);
}

struct helper_out {
	char out[HELPER_OUT_MAX];
	size_t nout;
	char err[HELPER_ERR_MAX];
	size_t nerr;
	int status; /* as waitpid() says it */
};

/* How cell-net is started: stdin /dev/null, stdout and stderr the pipes
 * OUT and ERR, NETNS_FD as its descriptor 3, nothing else of cell's
 * (its jails' locks, the state root), no signal blocked (a launch
 * blocks the signals it forwards: not cell-net's). */
static int helper_spawn_setup(posix_spawn_file_actions_t *fa, posix_spawnattr_t *at, int out,
			      int err, int netns_fd)
{
	sigset_t none;
	int rc;

	sigemptyset(&none);
	if ((rc = posix_spawnattr_setsigmask(at, &none)) != 0 ||
	    (rc = posix_spawnattr_setflags(at, POSIX_SPAWN_SETSIGMASK)) != 0 ||
	    (rc = posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0)) != 0 ||
	    (rc = posix_spawn_file_actions_adddup2(fa, out, 1)) != 0 ||
	    (rc = posix_spawn_file_actions_adddup2(fa, err, 2)) != 0 ||
	    (netns_fd >= 0 &&
	     (rc = posix_spawn_file_actions_adddup2(fa, netns_fd, HELPER_NETNS_FD)) != 0))
		return rc;
	return posix_spawn_file_actions_addclosefrom_np(fa,
							netns_fd >= 0 ? HELPER_NETNS_FD + 1 : 3);
}

/* cell-net started as PATH with ARGV (above).  posix_spawn(): the child
 * shares cell's memory until its exec (CLONE_VM|CLONE_VFORK), where a
 * fork() would copy cell's page tables first, about 1 ms. */
static int helper_spawn(const char *path, char *const *argv, int out, int err, int netns_fd,
			pid_t *pid)
{
	static char *const envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL};
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	int rc;

	if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
		return rc;
	if ((rc = posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return rc;
	}
	rc = helper_spawn_setup(&fa, &at, out, err, netns_fd);
	if (rc == 0)
		rc = posix_spawn(pid, path, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* Reads OUT and ERR until both end, at most their buffers' worth (the
 * rest drained and dropped), or until the deadline. */
static int helper_read(int out, int err, struct helper_out *h)
{
	struct pollfd p[2] = {{.fd = out, .events = POLLIN}, {.fd = err, .events = POLLIN}};
	struct timespec t0, t;
	char drop[512];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (p[0].fd >= 0 || p[1].fd >= 0) {
		int left, r;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = HELPER_TIMEOUT_MS -
		       (int)((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			return -1;
		r = poll(p, 2, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		for (int i = 0; i < 2; i++) {
			char *buf = i == 0 ? h->out : h->err;
			size_t *len = i == 0 ? &h->nout : &h->nerr;
			size_t cap = (i == 0 ? sizeof(h->out) : sizeof(h->err)) - 1;
			ssize_t n;

			if (p[i].fd < 0 || p[i].revents == 0)
				continue;
			if (*len < cap)
				n = read(p[i].fd, buf + *len, cap - *len);
			else
				n = read(p[i].fd, drop, sizeof(drop));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				p[i].fd = -1;
				continue;
			}
			if (*len < cap)
				*len += (size_t)n;
			buf[*len] = '\0';
		}
	}
	return 0;
}

/*
 * Runs cell-net with ARGV (argv[0] its name), NETNS_FD (or -1) as its
 * descriptor 3; *H gets its outputs and status.  -1 only when it could
 * not be run or did not end in time (killed then).
 */
static int run_helper(char **argv, int netns_fd, struct helper_out *h, struct cell_err *e)
{
	char path[PATH_MAX];
	int out[2] = {-1, -1}, err[2] = {-1, -1}, ret = 0;
	pid_t pid;

	h->nout = h->nerr = 0;
	h->out[0] = h->err[0] = '\0';
	if (find_helper(path, sizeof(path), e) < 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0) {
		ret = cell_err_set(e, errno, "cell-net: pipe");
		goto out;
	}
	ret = helper_spawn(path, argv, out[1], err[1], netns_fd, &pid);
	if (ret != 0) {
		ret = cell_err_set(e, ret, "cell-net: run %s", path);
		goto out;
	}
	close(out[1]);
	close(err[1]);
	out[1] = err[1] = -1;
	if (helper_read(out[0], err[0], h) < 0) {
		/* Our own child, not reaped yet: the pid is still its. */
		kill(pid, SIGKILL);
		ret = cell_err_set(e, ETIMEDOUT, "cell-net %s", argv[1]);
	}
	while (waitpid(pid, &h->status, 0) < 0)
		if (errno != EINTR) {
			ret = cell_err_set(e, errno, "cell-net: wait");
			break;
		}
out:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (err[i] >= 0)
			close(err[i]);
	}
	return ret;
}

/* cell-net's one line of error, without its newline (or what its status
 * says when it wrote none). */
static void helper_reason(const struct helper_out *h, char *buf, size_t size)
{
	size_t n = strcspn(h->err, "\n");

	if (n > 0) {
		snprintf(buf, size, "%.*s", (int)n, h->err);
		return;
	}
	if (WIFSIGNALED(h->status))
		snprintf(buf, size, "cell-net killed by signal %d", WTERMSIG(h->status));
	else if (WIFEXITED(h->status) && WEXITSTATUS(h->status) == 127)
		snprintf(buf, size, "cell-net could not be run");
	else
		snprintf(buf, size, "cell-net failed (status %d)",
			 WIFEXITED(h->status) ? WEXITSTATUS(h->status) : -1);
}

static bool helper_ok(const struct helper_out *h)
{
	return WIFEXITED(h->status) && WEXITSTATUS(h->status) == 0;
}

/* Runs ARGV; a failure is PARAM's (its reason cell-net's line). */
static int helper(char **argv, int netns_fd, int param, struct helper_out *h, struct cell_err *e)
{
	char reason[HELPER_ERR_MAX];

	if (run_helper(argv, netns_fd, h, e) < 0)
		return param >= 0 ? about(e, param, 0) : -1;
	if (helper_ok(h))
		return 0;
	helper_reason(h, reason, sizeof(reason));
	if (param >= 0)
		return cell_err_param(e, param, 0, 0, "%s", reason);
	return cell_err_set(e, 0, "%s", reason);
}

/* An argv under construction (every element a heap string). */
struct args {
	char **v;
	size_t n;
	bool failed;
};

static void arg(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void arg(struct args *a, const char *fmt, ...)
{
	char **grown;
	char *s = NULL;
	va_list ap;

	if (a->failed)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	grown = s != NULL ? realloc(a->v, (a->n + 2) * sizeof(*grown)) : NULL;
	if (grown == NULL) {
		free(s);
		a->failed = true;
		return;
	}
	grown[a->n++] = s;
	grown[a->n] = NULL;
	a->v = grown;
}

static void args_free(struct args *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

/* ---- prepare ---- */

/* --net ns:PATH: a network namespace, checked before anything is made
 * (the launch opens it again to join it). */
static int check_ns_path(const char *path, struct cell_err *e)
{
	cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
	int type;

	if (fd < 0)
		return cell_err_param(e, PARAM_NET, 0, errno, "%s", "");
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type < 0)
		return cell_err_param(e, PARAM_NET, 0, 0, "not a namespace file");
	if (type != CLONE_NEWNET)
		return cell_err_param(e, PARAM_NET, 0, 0, "not a network namespace");
	return 0;
}

int net_check(const struct jail_spec *s, struct cell_err *e)
{
	char path[PATH_MAX];

	if (s->net == JAIL_NET_NS)
		return check_ns_path(s->network.ns_path, e);
	if (s->net == JAIL_NET_BRIDGE && find_helper(path, sizeof(path), e) < 0)
		return about(e, PARAM_NET, 0);
	return 0;
}

/* ---- the lock and the other jails' addresses ---- */

int net_lock(int rootfd, struct cell_err *e)
{
	int fd = openat(rootfd, "net.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return cell_err_set(e, errno, "open the network lock");
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			cell_err_set(e, errno, "take the network lock");
			close(fd);
			return -1;
		}
	}
	return fd;
}

void net_unlock(int lockfd)
{
	if (lockfd >= 0)
		close(lockfd);
}

bool net_record_active(const json_t *rec)
{
	const json_t *n = json_object_get(rec, "network");

	return json_is_object(n) && json_is_true(json_object_get(n, "active"));
}

/* One address another jail holds. */
struct holder {
	char *name;
	struct netaddr a;
};

struct holders {
	struct holder *v;
	size_t n;
	json_t *gateway; /* the first other jail's gateways on the bridge, or NULL */
};

static void holders_free(struct holders *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].name);
	free(h->v);
	json_decref(h->gateway);
	memset(h, 0, sizeof(*h));
}

static int holders_add(struct holders *h, const char *name, const json_t *list)
{
	struct cell_err ignored;
	size_t i;
	json_t *el;

	json_array_foreach(list, i, el)
	{
		struct holder *grown;
		struct netaddr a;

		if (!json_is_string(el) ||
		    netaddr_parse(json_string_value(el), true, &a, &ignored) < 0)
			continue;
		grown = realloc(h->v, (h->n + 1) * sizeof(*grown));
		if (grown == NULL)
			return -1;
		h->v = grown;
		h->v[h->n].name = strdup(name);
		if (h->v[h->n].name == NULL)
			return -1;
		h->v[h->n++].a = a;
	}
	return 0;
}

/* The addresses the other jails of the root hold on BRIDGE: those whose
 * record has an active network there and is not stopped.  (A record left
 * running by a jail that died holds its addresses until a command
 * releases it: the safe side.) */
static int holders_read(int rootfd, const char *self, const char *bridge, struct holders *h,
			struct cell_err *e)
{
	char **names;
	size_t n;

	memset(h, 0, sizeof(*h));
	if (store_list(rootfd, &names, &n, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_t *rec, *net;
		const char *state, *b;

		if (self != NULL && strcmp(names[i], self) == 0)
			continue;
		rec = store_jail_peek(rootfd, names[i]);
		net = json_object_get(rec, "network");
		state = json_string_value(json_object_get(rec, "state"));
		b = json_string_value(json_object_get(net, "bridge"));
		if (net_record_active(rec) && b != NULL && strcmp(b, bridge) == 0 &&
		    (state == NULL || strcmp(state, "stopped") != 0)) {
			if (holders_add(h, names[i], json_object_get(rec, "ip4.addr")) < 0 ||
			    holders_add(h, names[i], json_object_get(rec, "ip6.addr")) < 0) {
				json_decref(rec);
				store_names_free(names, n);
				holders_free(h);
				return cell_err_set(e, ENOMEM, "read the jails' addresses");
			}
			if (h->gateway == NULL && json_is_array(json_object_get(net, "gateway")))
				h->gateway = json_incref(json_object_get(net, "gateway"));
		}
		json_decref(rec);
	}
	store_names_free(names, n);
	return 0;
}

static const char *held_by(const struct holders *h, const struct netaddr *a)
{
	for (size_t i = 0; i < h->n; i++)
		if (netaddr_same(&h->v[i].a, a))
			return h->v[i].name;
	return NULL;
}

/* ---- the plan ---- */

/* A gateway's text with its prefix (default /24, /64). */
static int gateway_add(struct net_plan *n, const char *text, struct cell_err *e)
{
	char buf[NETADDR_TEXT];
	struct netaddr a;

	if (netaddr_parse(text, true, &a, e) < 0)
		return -1;
	if (a.prefix < 0)
		a.prefix = a.family == AF_INET ? 24 : 64;
	netaddr_format(&a, buf, sizeof(buf));
	return push(&n->gateway, &n->ngateway, buf, e);
}

/* The gateways: the spec's; else another jail's on the bridge; else, for
 * cell0, cell's defaults. */
static int plan_gateways(struct net_plan *n, const struct jail_spec *s, const struct holders *h,
			 struct cell_err *e)
{
	size_t i;
	json_t *el;

	for (i = 0; i < s->network.ngateway; i++)
		if (gateway_add(n, s->network.gateway[i], e) < 0)
			return about(e, PARAM_GATEWAY, (int)i);
	if (n->ngateway > 0)
		return 0;
	if (h->gateway != NULL) {
		json_array_foreach(h->gateway, i, el)
		{
			if (json_is_string(el) && gateway_add(n, json_string_value(el), e) < 0)
				return -1;
		}
		if (n->ngateway > 0)
			return 0;
	}
	if (strcmp(n->bridge, NET_DEFAULT_BRIDGE) != 0)
		return cell_err_param(e, PARAM_NET, 0, 0,
				      "bridge %s has no gateway yet (give --gateway ADDR/PREFIX)",
				      n->bridge);
	for (i = 0; i < sizeof(default_gateways) / sizeof(default_gateways[0]); i++)
		if (gateway_add(n, default_gateways[i], e) < 0)
			return -1;
	return 0;
}

/* The plan's gateway of FAMILY, or NULL. */
static int gateway_of(const struct net_plan *n, int family, struct netaddr *gw)
{
	struct cell_err ignored;

	for (size_t i = 0; i < n->ngateway; i++)
		if (netaddr_parse(n->gateway[i], true, gw, &ignored) == 0 && gw->family == family)
			return 0;
	return -1;
}

/* A given address: its prefix (the gateway's, else a host route's),
 * free on the bridge. */
static int plan_given(struct net_plan *n, int param, size_t index, const char *text,
		      const struct holders *h, struct cell_err *e)
{
	char buf[NETADDR_TEXT];
	struct netaddr a, gw;
	const char *who;

	if (netaddr_parse(text, true, &a, e) < 0)
		return about(e, param, (int)index);
	if (a.prefix < 0)
		a.prefix = gateway_of(n, a.family, &gw) == 0 ? gw.prefix
			   : a.family == AF_INET	     ? 32
							     : 128;
	if (gateway_of(n, a.family, &gw) == 0 && netaddr_same(&a, &gw))
		return cell_err_param(e, param, (int)index, 0, "is the gateway's address");
	who = held_by(h, &a);
	if (who != NULL)
		return cell_err_param(e, param, (int)index, 0, "held by jail %s", who);
	netaddr_format(&a, buf, sizeof(buf));
	return a.family == AF_INET ? push(&n->ip4, &n->nip4, buf, e)
				   : push(&n->ip6, &n->nip6, buf, e);
}

/* The next free address of GATEWAY's subnet: neither the gateway's nor
 * held by another jail on the bridge.  (An IPv6 subnet is searched in its
 * first 65535 hosts.) */
static int plan_next(struct net_plan *n, const char *gateway, const struct holders *h,
		     struct cell_err *e)
{
	char buf[NETADDR_TEXT];
	struct netaddr gw, a;

	if (netaddr_parse(gateway, true, &gw, e) < 0)
		return -1;
	for (unsigned long i = 1; i < 65536; i++) {
		if (netaddr_host(&gw, i, &a) < 0)
			break;
		if (netaddr_same(&a, &gw) || held_by(h, &a) != NULL)
			continue;
		netaddr_format(&a, buf, sizeof(buf));
		return a.family == AF_INET ? push(&n->ip4, &n->nip4, buf, e)
					   : push(&n->ip6, &n->nip6, buf, e);
	}
	return cell_err_param(e, PARAM_NET, 0, 0, "bridge %s: no free address in %s", n->bridge,
			      gateway);
}

int net_plan(struct net_plan *n, const struct jail_spec *s, const char *state_root, int rootfd,
	     int jid, int *lockfd, struct cell_err *e)
{
	const struct jail_network *net = &s->network;
	struct holders h;
	uint32_t nonce;
	int ret = -1;

	*lockfd = -1;
	if (s->net != JAIL_NET_BRIDGE)
		return 0;
	n->bridged = true;
	snprintf(n->bridge, sizeof(n->bridge), "%s",
		 net->bridge != NULL ? net->bridge : NET_DEFAULT_BRIDGE);
	snprintf(n->ifname, sizeof(n->ifname), "%s",
		 net->ifname != NULL ? net->ifname : NET_DEFAULT_IFNAME);
	/* A launch's own key: the veth of a jail of the same JID that ended
	 * a moment ago may still be there, going with its namespace
	 * (teardown --ended), and is not in the way. */
	if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
		nonce = (uint32_t)getpid() ^ (uint32_t)time(NULL);
	snprintf(n->key, sizeof(n->key), "%08x-%d-%08x", net_fnv1a(state_root), jid, nonce);
	snprintf(n->host_if, sizeof(n->host_if), "cv%08x", net_fnv1a(n->key));
	*lockfd = net_lock(rootfd, e);
	if (*lockfd < 0)
		return -1;
	testpoint_pause("run:net-locked");
	if (holders_read(rootfd, s->name, n->bridge, &h, e) < 0)
		goto fail;
	if (plan_gateways(n, s, &h, e) < 0)
		goto out;
	for (size_t i = 0; i < net->nip4; i++)
		if (plan_given(n, PARAM_IP4, i, net->ip4[i], &h, e) < 0)
			goto out;
	for (size_t i = 0; i < net->nip6; i++)
		if (plan_given(n, PARAM_IP6, i, net->ip6[i], &h, e) < 0)
			goto out;
	/* Without --ip: one address of each gateway's subnet. */
	for (size_t i = 0; net->nip4 + net->nip6 == 0 && i < n->ngateway; i++)
		if (plan_next(n, n->gateway[i], &h, e) < 0)
			goto out;
	ret = 0;
out:
	holders_free(&h);
fail:
	if (ret < 0) {
		net_unlock(*lockfd);
		*lockfd = -1;
	}
	return ret;
}

static json_t *strv_json(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < n; i++)
		if (json_array_append_new(a, json_string(v[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

int net_record(json_t *rec, const struct net_plan *n)
{
	json_t *net;

	if (n->slirp.on && n->slirp.pid > 0)
		return json_object_set_new(rec, "network", slirp_record(&n->slirp));
	if (!n->bridged)
		return 0;
	net = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:b}", "mode", "bridge", "key", n->key,
			"bridge", n->bridge, "interface", n->ifname, "host_interface", n->host_if,
			"gateway", strv_json(n->gateway, n->ngateway), "active", 1);
	/* The MTU the veth got: the bridge's when vnet.mtu is unset. */
	if (net != NULL && n->mtu > 0 &&
	    json_object_set_new(net, "mtu", json_integer((json_int_t)n->mtu)) < 0) {
		json_decref(net);
		return -1;
	}
	if (net == NULL || json_object_set_new(rec, "network", net) < 0 ||
	    json_object_set_new(rec, "ip4.addr", strv_json(n->ip4, n->nip4)) < 0 ||
	    json_object_set_new(rec, "ip6.addr", strv_json(n->ip6, n->nip6)) < 0 ||
	    json_object_set_new(rec, "gateway", strv_json(n->gateway, n->ngateway)) < 0)
		return -1;
	return 0;
}

/* ---- the files ---- */

static int write_file(int dirfd, const char *name, const char *text, struct cell_err *e)
{
	size_t len = strlen(text);
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return cell_err_set(e, errno, "write %s", name);
	if (write(fd, text, len) != (ssize_t)len) {
		int err = errno;

		close(fd);
		return cell_err_set(e, err, "write %s", name);
	}
	if (close(fd) < 0)
		return cell_err_set(e, errno, "write %s", name);
	return 0;
}

/* hosts: loopback, then each of the jail's addresses with its names
 * (the fully qualified first: what hostname -f prints). */
static char *hosts_text(const struct jail_spec *s, const struct net_plan *n)
{
	cleanup_free char *names = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct cell_err ignored;
	const char *host = s->hostname != NULL ? s->hostname : "cell";

	if (f == NULL)
		return NULL;
	if (s->domainname != NULL && strcmp(s->domainname, "(none)") != 0) {
		if (asprintf(&names, "%s.%s %s", host, s->domainname, host) < 0)
			names = NULL;
	} else {
		names = strdup(host);
	}
	fprintf(f, "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n");
	for (size_t i = 0; names != NULL && i < n->nip4 + n->nip6; i++) {
		const char *addr = i < n->nip4 ? n->ip4[i] : n->ip6[i - n->nip4];
		char buf[NETADDR_TEXT];
		struct netaddr a;

		if (netaddr_parse(addr, true, &a, &ignored) < 0)
			continue;
		netaddr_format_addr(&a, buf, sizeof(buf));
		fprintf(f, "%s\t%s\n", buf, names);
	}
	/* A joined network: no address cell knows; the names still
	 * resolve, as Debian's installer writes them. */
	if (names != NULL && n->nip4 + n->nip6 == 0)
		fprintf(f, "127.0.1.1\t%s\n", names);
	if (fclose(f) != 0 || names == NULL) {
		free(text);
		return NULL;
	}
	return text;
}

/* A nameserver line the jail can use: not the host's loopback (a
 * resolver on 127.0.0.53 or ::1 is the host's, not the jail's). */
static bool loopback_server(const char *line)
{
	char addr[INET6_ADDRSTRLEN + 1];

	if (sscanf(line, " nameserver %46s", addr) != 1)
		return false;
	return strncmp(addr, "127.", 4) == 0 || strcmp(addr, "::1") == 0;
}

/* resolv.conf: --dns's nameservers; else the host's, without its
 * loopback nameservers (a comment says so when none is left); a slirp
 * jail's: the stack's DNS forwarder, with the host's other lines (search,
 * options: the forwarder asks the host's resolver). */
static char *resolv_text(const struct jail_spec *s)
{
	char *text = NULL, *line = NULL;
	size_t len = 0, cap = 0;
	FILE *out = open_memstream(&text, &len), *in;
	int servers = 0, dropped = 0;
	bool slirp = s->net == JAIL_NET_SLIRP && s->network.ndns == 0;

	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < s->network.ndns; i++)
		fprintf(out, "nameserver %s\n", s->network.dns[i]);
	if (slirp)
		fprintf(out, "nameserver %s\n", SLIRP_DNS);
	in = s->network.ndns == 0 ? fopen("/etc/resolv.conf", "re") : NULL;
	/* At most 64 KiB: the host's file, but bounded all the same. */
	for (size_t total = 0; in != NULL && total < 65536 && getline(&line, &cap, in) > 0;) {
		total += strlen(line);
		if (slirp && strncmp(line + strspn(line, " \t"), "nameserver", 10) == 0)
			continue;
		if (loopback_server(line)) {
			dropped++;
			continue;
		}
		servers += strstr(line, "nameserver") == line;
		fputs(line, out);
	}
	if (in != NULL)
		fclose(in);
	free(line);
	if (dropped > 0 && servers == 0)
		fputs("# the host's nameservers are on its loopback, which the jail cannot\n"
		      "# reach: give the jail its own with --dns ADDR\n",
		      out);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

int net_write_files(int dirfd, const struct jail_spec *s, const struct net_plan *n,
		    struct cell_err *e)
{
	/* A slirp jail's address is the stack's, always the same. */
	char *slirp_addr[] = {SLIRP_ADDR};
	struct net_plan slirp = {.ip4 = slirp_addr, .nip4 = 1};
	cleanup_free char *hosts = hosts_text(s, s->net == JAIL_NET_SLIRP ? &slirp : n);
	cleanup_free char *resolv = resolv_text(s);
	cleanup_free char *hostname = NULL;

	if (asprintf(&hostname, "%s\n", s->hostname != NULL ? s->hostname : "cell") < 0)
		hostname = NULL;
	if (hosts == NULL || resolv == NULL || hostname == NULL)
		return cell_err_set(e, ENOMEM, "jail %s: the network's files", s->name);
	if (write_file(dirfd, "hosts", hosts, e) < 0 ||
	    write_file(dirfd, "hostname", hostname, e) < 0 ||
	    write_file(dirfd, "resolv.conf", resolv, e) < 0)
		return cell_err_prefix(e, "jail %s", s->name);
	return 0;
}

/* ---- setup, teardown ---- */

/* A published port in cell-net's spelling: PROTO:HOSTADDR:HOSTPORT:JAILPORT
 * (HOSTADDR empty for any; an IPv6 one bare: cell-net reads the ports
 * from the right). */
static void publish_arg(struct args *a, const char *text)
{
	struct cell_err ignored;
	struct netport p;
	char addr[INET6_ADDRSTRLEN] = "";

	if (netport_parse(text, &p, &ignored) < 0) {
		a->failed = true;
		return;
	}
	if (p.has_addr)
		netaddr_format_addr(&p.addr, addr, sizeof(addr));
	arg(a, "--publish");
	arg(a, "%s:%s:%u:%u", p.proto, addr, p.host_port, p.jail_port);
}

/* The MTU cell-net setup says the veth got ({"mtu":N,...} on its
 * stdout); 0 when it says none (the record then has none). */
static unsigned int setup_mtu(const struct helper_out *h)
{
	json_t *o = json_loadb(h->out, h->nout, 0, NULL);
	json_int_t mtu = json_integer_value(json_object_get(o, "mtu"));

	json_decref(o);
	return mtu > 0 && mtu <= 65535 ? (unsigned int)mtu : 0;
}

int net_setup(struct net_plan *n, const struct jail_spec *s, int netns_fd, struct cell_err *e)
{
	struct helper_out *h;
	struct args a = {0};
	int ret;

	if (!n->bridged)
		return 0;
	arg(&a, "cell-net");
	arg(&a, "setup");
	arg(&a, "--key");
	arg(&a, "%s", n->key);
	arg(&a, "--netns");
	arg(&a, "/proc/self/fd/%d", HELPER_NETNS_FD);
	arg(&a, "--bridge");
	arg(&a, "%s", n->bridge);
	arg(&a, "--ifname");
	arg(&a, "%s", n->ifname);
	for (size_t i = 0; i < n->ngateway; i++) {
		arg(&a, "--gateway");
		arg(&a, "%s", n->gateway[i]);
	}
	for (size_t i = 0; i < n->nip4 + n->nip6; i++) {
		arg(&a, "--addr");
		arg(&a, "%s", i < n->nip4 ? n->ip4[i] : n->ip6[i - n->nip4]);
	}
	if (s->network.nat)
		arg(&a, "--nat");
	for (size_t i = 0; i < s->network.npublish; i++)
		publish_arg(&a, s->network.publish[i]);
	if (s->network.mtu >= 0) {
		arg(&a, "--mtu");
		arg(&a, "%lld", s->network.mtu);
	}
	h = malloc(sizeof(*h));
	if (a.failed || h == NULL) {
		args_free(&a);
		free(h);
		return cell_err_set(e, ENOMEM, "net");
	}
	ret = helper(a.v, netns_fd, PARAM_NET, h, e);
	if (ret == 0) {
		n->made = true;
		n->mtu = setup_mtu(h);
	}
	free(h);
	args_free(&a);
	return ret;
}

static int teardown(const char *key, const char *bridge, bool ended, struct cell_err *e)
{
	char *argv[] = {"cell-net",
			"teardown",
			"--key",
			(char *)key,
			"--bridge",
			(char *)bridge,
			ended ? "--ended" : NULL,
			NULL};
	struct helper_out *h = malloc(sizeof(*h));
	int ret;

	if (h == NULL)
		return cell_err_set(e, ENOMEM, "net");
	ret = helper(argv, -1, -1, h, e);
	free(h);
	if (ret < 0)
		return cell_err_prefix(e, "network teardown (key %s)", key);
	return 0;
}

int net_teardown(const struct net_plan *n, bool ended, struct cell_err *e)
{
	slirp_stop(&n->slirp);
	if (!n->bridged)
		return 0;
	return teardown(n->key, n->bridge, ended, e);
}

int net_release(json_t *rec, struct cell_err *e)
{
	json_t *net = json_object_get(rec, "network");
	const char *key = json_string_value(json_object_get(net, "key"));
	const char *bridge = json_string_value(json_object_get(net, "bridge"));

	if (!net_record_active(rec))
		return 0;
	if (json_is_string(json_object_get(net, "helper"))) {
		slirp_release(net);
		json_object_set_new(net, "active", json_false());
		return 0;
	}
	if (key == NULL || bridge == NULL)
		return cell_err_set(e, EINVAL, "network: the record names no key or bridge");
	if (teardown(key, bridge, true, e) < 0)
		return -1;
	json_object_set_new(net, "active", json_false());
	return 0;
}

/* ---- live addresses, stats ---- */

/* The jail's network namespace, through its pid 1 PID: opened, then the
 * pid checked to be the jail's still (a pidfd of it answers). */
static int open_netns(pid_t pid, struct cell_err *e)
{
	char path[64];
	int fd, pidfd;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	fd = pidfd >= 0 ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0 || syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		if (pidfd >= 0)
			close(pidfd);
		return cell_err_set(e, err, "the jail's network namespace");
	}
	close(pidfd);
	return fd;
}

int net_addr(const json_t *rec, pid_t pid, bool add, const char *addr, struct cell_err *e)
{
	const json_t *net = json_object_get(rec, "network");
	const char *ifname = json_string_value(json_object_get(net, "interface"));
	struct cell_err ignored;
	struct netaddr a, gw;
	struct args args = {0};
	struct helper_out *h;
	cleanup_close int fd = -1;
	size_t i;
	json_t *el;
	int ret;

	if (netaddr_parse(addr, true, &a, e) < 0)
		return -1;
	fd = open_netns(pid, e);
	if (fd < 0)
		return -1;
	arg(&args, "cell-net");
	arg(&args, "addr");
	arg(&args, add ? "add" : "del");
	arg(&args, "--netns");
	arg(&args, "/proc/self/fd/%d", HELPER_NETNS_FD);
	arg(&args, "--ifname");
	arg(&args, "%s", ifname != NULL ? ifname : NET_DEFAULT_IFNAME);
	arg(&args, "%s", addr);
	json_array_foreach(json_object_get(net, "gateway"), i, el)
	{
		char buf[NETADDR_TEXT];

		if (!add || !json_is_string(el) ||
		    netaddr_parse(json_string_value(el), true, &gw, &ignored) < 0 ||
		    gw.family != a.family)
			continue;
		netaddr_format_addr(&gw, buf, sizeof(buf));
		arg(&args, "--gateway");
		arg(&args, "%s", buf);
	}
	h = malloc(sizeof(*h));
	if (args.failed || h == NULL) {
		args_free(&args);
		free(h);
		return cell_err_set(e, ENOMEM, "net");
	}
	ret = helper(args.v, fd, -1, h, e);
	free(h);
	args_free(&args);
	return ret;
}

int net_check_free(int rootfd, const char *self, const json_t *rec, int param, char *const *want,
		   size_t nwant, char *const *old, size_t nold, struct cell_err *e)
{
	const char *bridge =
		json_string_value(json_object_get(json_object_get(rec, "network"), "bridge"));
	struct holders h;
	int ret = 0;

	if (bridge == NULL || holders_read(rootfd, self, bridge, &h, e) < 0)
		return bridge == NULL ? 0 : -1;
	for (size_t i = 0; i < nwant && ret == 0; i++) {
		struct cell_err ignored;
		struct netaddr a;
		const char *who;
		bool had = false;

		for (size_t k = 0; k < nold; k++)
			had = had || strcmp(old[k], want[i]) == 0;
		if (had || netaddr_parse(want[i], true, &a, &ignored) < 0)
			continue;
		who = held_by(&h, &a);
		if (who != NULL)
			ret = cell_err_param(e, param, (int)i, 0, "held by jail %s", who);
	}
	holders_free(&h);
	return ret;
}

static int complete_list(const json_t *gateways, char **list, size_t n, struct cell_err *e)
{
	struct cell_err ignored;

	for (size_t i = 0; i < n; i++) {
		char buf[NETADDR_TEXT];
		struct netaddr a, gw;
		size_t k;
		json_t *el;

		if (netaddr_parse(list[i], true, &a, &ignored) < 0 || a.prefix >= 0)
			continue;
		a.prefix = a.family == AF_INET ? 32 : 128;
		json_array_foreach(gateways, k, el)
		{
			if (json_is_string(el) &&
			    netaddr_parse(json_string_value(el), true, &gw, &ignored) == 0 &&
			    gw.family == a.family && gw.prefix >= 0)
				a.prefix = gw.prefix;
		}
		netaddr_format(&a, buf, sizeof(buf));
		free(list[i]);
		list[i] = strdup(buf);
		if (list[i] == NULL)
			return cell_err_set(e, ENOMEM, "addresses");
	}
	return 0;
}

int net_complete(const json_t *rec, struct jail_network *n, struct cell_err *e)
{
	const json_t *gw = json_object_get(json_object_get(rec, "network"), "gateway");

	return complete_list(gw, n->ip4, n->nip4, e) < 0 ||
			       complete_list(gw, n->ip6, n->nip6, e) < 0
		       ? -1
		       : 0;
}

/* cell-net stats of the jail's interface, parsed; NULL when it failed. */
static json_t *stats(pid_t pid, const char *ifname)
{
	char *argv[] = {"cell-net", "stats",	    "--netns", "/proc/self/fd/3",
			"--ifname", (char *)ifname, NULL};
	struct helper_out *h = malloc(sizeof(*h));
	struct cell_err e;
	cleanup_close int fd = -1;
	json_t *j = NULL;

	if (h == NULL)
		return NULL;
	fd = open_netns(pid, &e);
	if (fd >= 0 && helper(argv, fd, -1, h, &e) == 0)
		j = json_loadb(h->out, h->nout, 0, NULL);
	free(h);
	if (j != NULL && !json_is_object(j)) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

json_t *net_inspect(const json_t *rec, pid_t pid)
{
	const json_t *net = json_object_get(rec, "network");
	const char *mode = json_string_value(json_object_get(rec, "net"));
	json_t *o, *addrs = json_array();

	if (!json_is_object(net)) {
		json_decref(addrs);
		if (mode != NULL && strncmp(mode, "ns:", 3) == 0)
			return json_pack("{s:s, s:s}", "mode", "ns", "path", mode + 3);
		return json_pack("{s:s}", "mode", mode != NULL ? mode : "none");
	}
	o = json_deep_copy(net);
	if (o == NULL || addrs == NULL) {
		json_decref(o);
		json_decref(addrs);
		return NULL;
	}
	if (json_is_string(json_object_get(net, "helper"))) {
		/* slirp: its program, whether it still runs, its ports. */
		json_decref(addrs);
		json_object_del(o, "start_time");
		json_object_set(o, "published", json_object_get(rec, "publish"));
		json_object_set_new(
			o, "running",
			json_boolean(pid > 0 && net_record_active(rec) && slirp_running(net)));
		return o;
	}
	json_array_extend(addrs, json_object_get(rec, "ip4.addr"));
	json_array_extend(addrs, json_object_get(rec, "ip6.addr"));
	json_object_set_new(o, "addresses", addrs);
	json_object_set(o, "published", json_object_get(rec, "publish"));
	json_object_del(o, "key");
	if (pid > 0 && net_record_active(rec)) {
		const char *ifname = json_string_value(json_object_get(net, "interface"));
		json_t *st = stats(pid, ifname != NULL ? ifname : NET_DEFAULT_IFNAME);

		json_object_set_new(o, "counters", st != NULL ? st : json_null());
	}
	return o;
}
