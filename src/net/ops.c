/*
 * ops.c - cell-net's commands: setup, teardown, addr, stats.  See ops.h
 * and net-protocol (docs/cell-net.8).
 *
 * setup makes, in this order: the bridge (if missing, at the MTU asked
 * for; an existing one's MTU must be that) and its gateway
 * addresses, the veth pair (at the bridge's MTU) (its peer born in the jail's namespace), the
 * jail's addresses, lo and routes, the nftables rules, the sysctls.  What
 * it made is noted in a struct undo and taken back if a later
 * step fails, so a failed setup leaves nothing.  setup and teardown hold
 * an exclusive lock on cell-net's lock file while they work: a bridge
 * counted portless, or a table listed empty, is still so when removed.
 */
#include "ops.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nft.h"

/* In /run, which only root may write: /run/lock is world-writable on
 * Debian, and a user's file of that name, locked, would stop every
 * setup. */
#define LOCK_FILE    "/run/cell-net.lock"
#define BRIDGE_ALIAS "cell"

/* What a setup made so far: its undo. */
struct undo {
	struct rtnl *host;
	const char *key;
	const char *bridge;
	int bridge_index;
	bool bridge_made;
	struct net_addr gw_added[NET_MAX_ADDRS];
	size_t n_gw_added;
	int veth_index; /* 0: none made */
	bool rules;
};

/* Serialises setups and teardowns (of every namespace: a lock file is
 * not per namespace, and they take milliseconds), until the command's
 * end. */
static int take_lock(struct cell_err *e)
{
	int fd = open(LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd < 0)
		return cell_err_set(e, errno, "open %s", LOCK_FILE);
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int err = errno;

			close(fd);
			return cell_err_set(e, err, "lock %s", LOCK_FILE);
		}
	}
	return fd;
}

/* FILE opened, and known to be a network namespace. */
static int open_netns(const char *file, struct cell_err *e)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	int type;

	if (fd < 0)
		return cell_err_set(e, errno, "netns %s", file);
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWNET) {
		close(fd);
		return cell_err_set(e, type < 0 ? errno : 0, "netns %s: not a network namespace",
				    file);
	}
	return fd;
}

static int write_sysctl(const char *path, const char *value, struct cell_err *e)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return cell_err_set(e, errno, "sysctl %s", path + strlen("/proc/sys/"));
	n = write(fd, value, strlen(value));
	if (n < 0) {
		int err = errno;

		close(fd);
		return cell_err_set(e, err, "sysctl %s", path + strlen("/proc/sys/"));
	}
	close(fd);
	return 0;
}

/* The first of ADDRS of FAMILY, or NULL. */
static const struct net_addr *first_of(const struct net_addr *addrs, size_t n, int family)
{
	for (size_t i = 0; i < n; i++)
		if (addrs[i].family == family)
			return &addrs[i];
	return NULL;
}

int net_setup_check(const struct net_setup *s, struct cell_err *e)
{
	for (size_t i = 0; i < s->n_publish; i++) {
		const struct net_publish *p = &s->publish[i];

		if (p->any_host && s->n_addrs == 0)
			return cell_err_set(e, 0, "--publish needs an --addr to forward to");
		if (!p->any_host && first_of(s->addrs, s->n_addrs, p->host.family) == NULL)
			return cell_err_set(e, 0,
					    "--publish to an IPv%c address needs an IPv%c --addr",
					    p->host.family == AF_INET ? '4' : '6',
					    p->host.family == AF_INET ? '4' : '6');
	}
	return 0;
}

/* --- the bridge --- */

/* Each gateway on the bridge, unless there already. */
static int bridge_gateways(const struct net_setup *s, struct undo *u, struct cell_err *e)
{
	for (size_t i = 0; i < s->n_gateways; i++) {
		char text[NET_ADDR_TEXT];

		if (rtnl_addr(u->host, true, u->bridge_index, &s->gateways[i], e) == 0) {
			u->gw_added[u->n_gw_added++] = s->gateways[i];
			continue;
		}
		if (e->errnum == EEXIST) {
			cell_err_clear(e);
			continue;
		}
		net_addr_format(&s->gateways[i], true, text, sizeof(text));
		return cell_err_prefix(e, "bridge %s: add address %s", s->bridge, text);
	}
	return 0;
}

/* The bridge a setup killed between its making and its naming left
 * under TMP: a bridge of that name, removed. */
static int tmp_release(struct rtnl *host, const char *tmp, struct cell_err *e)
{
	struct rtnl_link l;
	bool found;

	if (rtnl_link_get(host, tmp, &l, &found, e) < 0)
		return -1;
	if (found && strcmp(l.kind, "bridge") == 0 && rtnl_link_del(host, l.index, e) < 0 &&
	    e->errnum != ENODEV)
		return cell_err_prefix(e, "delete %s", tmp);
	cell_err_clear(e);
	return 0;
}

/* The bridge, found or made, and its MTU in *MTU: one bridge never
 * mixes MTUs (its ports' larger frames would be dropped without a
 * word), so a jail takes an existing bridge's, and one that asks for
 * another is refused before anything is made. */
static int bridge_prepare(const struct net_setup *s, struct undo *u, unsigned int *mtu,
			  struct cell_err *e)
{
	struct rtnl_link l;
	bool found;

	if (rtnl_link_get(u->host, s->bridge, &l, &found, e) < 0)
		return cell_err_prefix(e, "bridge %s: look up", s->bridge);
	if (found && strcmp(l.kind, "bridge") != 0)
		return cell_err_set(e, 0, "bridge %s: a link of that name is not a bridge",
				    s->bridge);
	if (found && s->mtu != 0 && l.mtu != s->mtu)
		return cell_err_set(e, 0, "bridge %s has MTU %u, not %u", s->bridge, l.mtu, s->mtu);
	if (found) {
		u->bridge_index = l.index;
		*mtu = l.mtu;
	} else {
		char tmp[IFNAMSIZ];

		*mtu = s->mtu != 0 ? s->mtu : NET_MTU_DEFAULT;
		net_bridge_tmpname(s->bridge, tmp, sizeof(tmp));
		if (tmp_release(u->host, tmp, e) < 0 ||
		    rtnl_bridge_add(u->host, s->bridge, tmp, BRIDGE_ALIAS, *mtu, &u->bridge_index,
				    e) < 0)
			return cell_err_prefix(e, "bridge %s: create", s->bridge);
		u->bridge_made = true;
	}
	return bridge_gateways(s, u, e);
}

/* --- the jail's side --- */

/* An address already on a link of the jail's namespace is refused:
 * IPv4 would take it twice, on two links, without a word. */
static int addrs_free(struct rtnl *jail, const struct net_setup *s, struct cell_err *e)
{
	struct net_addr have[NET_MAX_ADDRS * 2];
	int n;

	if (rtnl_addr_list(jail, 0, have, NULL, NET_MAX_ADDRS * 2, &n, e) < 0)
		return cell_err_prefix(e, "jail: list addresses");
	for (size_t i = 0; i < s->n_addrs; i++) {
		for (int j = 0; j < n; j++) {
			char text[NET_ADDR_TEXT];

			if (have[j].family != s->addrs[i].family ||
			    memcmp(have[j].bytes, s->addrs[i].bytes, net_addr_len(&have[j])) != 0)
				continue;
			net_addr_format(&s->addrs[i], true, text, sizeof(text));
			return cell_err_set(e, EADDRINUSE, "jail %s: add address %s", s->ifname,
					    text);
		}
	}
	return 0;
}

/* A default route per family of the jail's addresses, via that
 * family's first gateway. */
static int jail_routes(struct rtnl *jail, int index, const struct net_setup *s, struct cell_err *e)
{
	static const int families[] = {AF_INET, AF_INET6};

	for (size_t i = 0; i < 2; i++) {
		const struct net_addr *gw = first_of(s->gateways, s->n_gateways, families[i]);
		char text[NET_ADDR_TEXT];

		if (gw == NULL || first_of(s->addrs, s->n_addrs, families[i]) == NULL)
			continue;
		if (rtnl_route_default(jail, index, gw, e) < 0) {
			net_addr_format(gw, false, text, sizeof(text));
			return cell_err_prefix(e, "jail %s: default route via %s", s->ifname, text);
		}
	}
	return 0;
}

static int link_up_by_name(struct rtnl *r, const char *name, struct cell_err *e)
{
	struct rtnl_link l;
	bool found;

	if (rtnl_link_get(r, name, &l, &found, e) < 0)
		return -1;
	if (!found)
		return cell_err_set(e, ENODEV, "%s", "");
	return rtnl_link_up(r, l.index, e);
}

static int jail_side_on(struct rtnl *jail, const struct net_setup *s, struct cell_err *e)
{
	struct rtnl_link l;
	bool found;

	if (addrs_free(jail, s, e) < 0)
		return -1;
	if (rtnl_link_get(jail, s->ifname, &l, &found, e) < 0)
		return cell_err_prefix(e, "jail %s: look up", s->ifname);
	if (!found)
		return cell_err_set(e, ENODEV, "jail %s", s->ifname);
	/* Up before the addresses: the kernel makes an IPv6 prefix route
	 * only on a link that is up. */
	if (rtnl_link_up(jail, l.index, e) < 0)
		return cell_err_prefix(e, "jail %s: up", s->ifname);
	for (size_t i = 0; i < s->n_addrs; i++) {
		char text[NET_ADDR_TEXT];

		if (rtnl_addr(jail, true, l.index, &s->addrs[i], e) < 0) {
			net_addr_format(&s->addrs[i], true, text, sizeof(text));
			return cell_err_prefix(e, "jail %s: add address %s", s->ifname, text);
		}
	}
	if (link_up_by_name(jail, "lo", e) < 0)
		return cell_err_prefix(e, "jail lo: up");
	return jail_routes(jail, l.index, s, e);
}

/* The jail's addresses, lo and routes, through a socket in its
 * namespace; nothing to undo here: they go with the veth. */
static int jail_side(int nsfd, const struct net_setup *s, struct cell_err *e)
{
	struct rtnl jail = {{-1, 0}, 0};
	int rc;

	if (rtnl_open_in(&jail, nsfd, e) < 0)
		return -1;
	rc = jail_side_on(&jail, s, e);
	rtnl_close(&jail);
	return rc;
}

/* --- rules and sysctls --- */

/* The bridge's networks (its gateways', else the jail's addresses'),
 * each once. */
static size_t subnets_of(const struct net_setup *s, struct net_addr *out)
{
	const struct net_addr *from = s->n_gateways > 0 ? s->gateways : s->addrs;
	size_t n_from = s->n_gateways > 0 ? s->n_gateways : s->n_addrs, n = 0;

	for (size_t i = 0; i < n_from; i++) {
		struct net_addr net;
		bool seen = false;

		net_addr_network(&from[i], &net);
		for (size_t j = 0; j < n; j++)
			seen = seen || memcmp(&out[j], &net, sizeof(net)) == 0;
		if (!seen)
			out[n++] = net;
	}
	return n;
}

static int add_rules(const struct net_setup *s, struct cell_err *e)
{
	struct net_addr subnets[NET_MAX_ADDRS];
	struct cellnft_jail j = {
		.key = s->key,
		.bridge = s->bridge,
		.nat = s->nat,
		.subnets = subnets,
		.n_subnets = subnets_of(s, subnets),
		.gateways = s->gateways,
		.n_gateways = s->n_gateways,
		.publish = s->publish,
		.n_publish = s->n_publish,
		.jail4 = first_of(s->addrs, s->n_addrs, AF_INET),
		.jail6 = first_of(s->addrs, s->n_addrs, AF_INET6),
	};
	return cellnft_add(&j, e);
}

/* Forwarding on for --nat (as docker does: the namespace's whole
 * forwarding, IPv6 too where the kernel has it); route_localnet on the
 * bridge for a port published to the host's loopback. */
static int set_sysctls(const struct net_setup *s, struct cell_err *e)
{
	char path[128];

	if (s->nat) {
		if (write_sysctl("/proc/sys/net/ipv4/ip_forward", "1", e) < 0)
			return -1;
		if (access("/proc/sys/net/ipv6/conf/all/forwarding", F_OK) == 0 &&
		    write_sysctl("/proc/sys/net/ipv6/conf/all/forwarding", "1", e) < 0)
			return -1;
	}
	if (s->n_publish > 0 && first_of(s->addrs, s->n_addrs, AF_INET) != NULL) {
		snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/route_localnet",
			 s->bridge);
		if (write_sysctl(path, "1", e) < 0)
			return -1;
	}
	return 0;
}

/* --- setup --- */

/* Takes back what U says was made, newest first; errors are dropped
 * (the one reported is the failure that led here). */
static void undo(struct undo *u)
{
	struct cell_err ignored;
	int ports = 1;

	if (u->veth_index > 0)
		rtnl_link_del(u->host, u->veth_index, &ignored);
	if (u->bridge_made) {
		rtnl_link_del(u->host, u->bridge_index, &ignored);
	} else {
		for (size_t i = u->n_gw_added; i-- > 0;)
			rtnl_addr(u->host, false, u->bridge_index, &u->gw_added[i], &ignored);
		if (rtnl_link_ports(u->host, u->bridge_index, &ports, &ignored) < 0)
			ports = 1;
	}
	/* The jail's rules, and the bridge's when this setup was its only
	 * jail (it made them). */
	if (u->rules)
		cellnft_remove(u->key, u->bridge_made || ports == 0 ? u->bridge : NULL, &ignored);
}

/* How long a veth's peer namespace may look alive after its last
 * process and its last name went (references the kernel drops in the
 * background: 6 to 10 ms measured) before its jail is taken for live. */
#define STALE_PEER_WAIT_MS 200

/* The veth NAME that the key's last jail left, its namespace not yet
 * dismantled by the kernel (teardown leaves that to it): deleted now.
 * EEXIST stays when NAME is no veth, or a live jail's. */
static int stale_veth_release(struct rtnl *host, const char *name, struct cell_err *e)
{
	struct rtnl_link l;
	bool found, alive = true;

	for (int ms = 0;; ms += 5) {
		if (rtnl_link_get(host, name, &l, &found, e) < 0)
			return -1;
		if (!found)
			return 0; /* gone meanwhile */
		if (strcmp(l.kind, "veth") != 0 || rtnl_peer_alive(host, &l, &alive, e) < 0)
			return cell_err_set(e, EEXIST, "%s", "");
		if (!alive)
			break;
		if (ms >= STALE_PEER_WAIT_MS)
			return cell_err_set(e, EEXIST, "%s", "");
		usleep(5000);
	}
	if (rtnl_link_del(host, l.index, e) < 0 && e->errnum != ENODEV)
		return -1;
	cell_err_clear(e);
	return 0;
}

static int make_veth(const struct net_setup *s, int nsfd, struct net_setup_result *res,
		     struct undo *u, struct cell_err *e)
{
	struct rtnl_link l;
	bool found;

	net_host_ifname(s->key, res->host_if, sizeof(res->host_if));
	if (rtnl_veth_add(u->host, res->host_if, u->bridge_index, s->ifname, nsfd, res->mtu, e) <
		    0 &&
	    (e->errnum != EEXIST || stale_veth_release(u->host, res->host_if, e) < 0 ||
	     rtnl_veth_add(u->host, res->host_if, u->bridge_index, s->ifname, nsfd, res->mtu, e) <
		     0))
		return cell_err_prefix(e, "veth %s: create (peer %s in the jail)", res->host_if,
				       s->ifname);
	if (rtnl_link_get(u->host, res->host_if, &l, &found, e) < 0)
		return cell_err_prefix(e, "veth %s: look up", res->host_if);
	if (!found)
		return cell_err_set(e, ENODEV, "veth %s", res->host_if);
	u->veth_index = l.index;
	return 0;
}

static int setup_steps(const struct net_setup *s, int nsfd, struct net_setup_result *res,
		       struct undo *u, struct cell_err *e)
{
	if (bridge_prepare(s, u, &res->mtu, e) < 0 || make_veth(s, nsfd, res, u, e) < 0 ||
	    jail_side(nsfd, s, e) < 0)
		return -1;
	/* No --nat and no --publish: no rule, and no nf_tables work at
	 * all.  (With them, a batch is sent only when a rule is missing:
	 * nft.c.) */
	if (s->nat || s->n_publish > 0) {
		u->rules = true;
		if (add_rules(s, e) < 0)
			return -1;
	}
	return set_sysctls(s, e);
}

int net_setup(const struct net_setup *s, struct net_setup_result *res, struct cell_err *e)
{
	struct rtnl host = {{-1, 0}, 0};
	struct undo u;
	int lock, nsfd, rc = -1;

	memset(res, 0, sizeof(*res));
	memset(&u, 0, sizeof(u));
	u.host = &host;
	u.key = s->key;
	u.bridge = s->bridge;
	if (net_setup_check(s, e) < 0)
		return -1;
	lock = take_lock(e);
	if (lock < 0)
		return -1;
	nsfd = open_netns(s->netns, e);
	if (nsfd < 0)
		goto out_lock;
	if (rtnl_open(&host, e) < 0)
		goto out_ns;
	rc = setup_steps(s, nsfd, res, &u, e);
	if (rc < 0)
		undo(&u);
	res->bridge_made = u.bridge_made;
	rtnl_close(&host);
out_ns:
	close(nsfd);
out_lock:
	close(lock);
	return rc;
}

/* --- teardown --- */

/* BRIDGE removed when it is cell's and portless (port SKIP, 0: none,
 * not counted).  *GONE: it has no port (or is not there), so its
 * element of the set can go. */
static int bridge_release(struct rtnl *host, const char *bridge, int skip, bool *gone,
			  struct cell_err *e)
{
	struct rtnl_link l;
	char tmp[IFNAMSIZ];
	bool found;
	int ports;

	*gone = false;
	net_bridge_tmpname(bridge, tmp, sizeof(tmp));
	if (tmp_release(host, tmp, e) < 0)
		return cell_err_prefix(e, "bridge %s", bridge);
	if (rtnl_link_get(host, bridge, &l, &found, e) < 0)
		return cell_err_prefix(e, "bridge %s: look up", bridge);
	if (!found || strcmp(l.kind, "bridge") != 0) {
		*gone = !found;
		return 0;
	}
	/* A port whose jail's namespace is being dismantled is not
	 * counted: the bridge goes, and the veth with the namespace. */
	if (rtnl_live_ports(host, l.index, skip, &ports, e) < 0)
		return cell_err_prefix(e, "bridge %s: list ports", bridge);
	if (ports > 0)
		return 0;
	*gone = true;
	/* A bridge cell did not make is used, never removed. */
	if (strcmp(l.alias, BRIDGE_ALIAS) != 0)
		return 0;
	if (rtnl_link_del(host, l.index, e) < 0 && e->errnum != ENODEV)
		return cell_err_prefix(e, "bridge %s: delete", bridge);
	return 0;
}

/* KEY's host veth deleted while its jail may still use it.  ENDED
 * (the jail's processes have ended): left to the kernel, and *LEFT is
 * its index, which the bridge does not count as a port. */
static int veth_release(struct rtnl *host, const char *key, bool ended, int *left,
			struct cell_err *e)
{
	char name[IFNAMSIZ];
	struct rtnl_link l;
	bool found, alive;

	*left = 0;
	net_host_ifname(key, name, sizeof(name));
	if (rtnl_link_get(host, name, &l, &found, e) < 0)
		return cell_err_prefix(e, "veth %s: look up", name);
	if (!found)
		return 0;
	/* The jail's namespace released (its processes gone): the kernel
	 * deletes the veth with it, both ends, soon and without anyone
	 * waiting.  Deleting it here would wait out the RCU grace periods
	 * of unregistering a device (15 ms and more) where the kernel's
	 * worker has not begun.  The namespace outlives the jail's last
	 * process by some milliseconds (references the kernel drops in the
	 * background: 6 to 10 ms after a short jail, measured): a jail
	 * that ended is taken at its word. */
	if (ended && strcmp(l.kind, "veth") == 0) {
		*left = l.index;
		return 0;
	}
	if (rtnl_peer_alive(host, &l, &alive, e) < 0)
		return cell_err_prefix(e, "veth %s: its jail's namespace", name);
	if (alive && rtnl_link_del(host, l.index, e) < 0 && e->errnum != ENODEV)
		return cell_err_prefix(e, "veth %s: delete", name);
	cell_err_clear(e);
	return 0;
}

static int teardown_steps(struct rtnl *host, const char *key, const char *bridge, bool ended,
			  struct cell_err *e)
{
	bool gone = false;
	int left;

	if (veth_release(host, key, ended, &left, e) < 0)
		return -1;
	if (bridge != NULL && bridge_release(host, bridge, left, &gone, e) < 0)
		return -1;
	return cellnft_remove(key, gone ? bridge : NULL, e);
}

int net_teardown(const char *key, const char *bridge, bool ended, struct cell_err *e)
{
	struct rtnl host = {{-1, 0}, 0};
	int lock, rc = -1;

	lock = take_lock(e);
	if (lock < 0)
		return -1;
	if (rtnl_open(&host, e) == 0) {
		rc = teardown_steps(&host, key, bridge, ended, e);
		rtnl_close(&host);
	}
	close(lock);
	return rc;
}

/* --- addr, stats --- */

/* A socket in NETNS's namespace and IFNAME's index there. */
static int open_jail_link(const char *netns, const char *ifname, struct rtnl *jail,
			  struct rtnl_link *l, struct cell_err *e)
{
	int nsfd = open_netns(netns, e);
	bool found;

	if (nsfd < 0)
		return -1;
	if (rtnl_open_in(jail, nsfd, e) < 0) {
		close(nsfd);
		return -1;
	}
	close(nsfd);
	if (rtnl_link_get(jail, ifname, l, &found, e) < 0) {
		rtnl_close(jail);
		return cell_err_prefix(e, "jail %s: look up", ifname);
	}
	if (!found) {
		rtnl_close(jail);
		return cell_err_set(e, ENODEV, "jail %s", ifname);
	}
	return 0;
}

static int addr_change_on(struct rtnl *jail, int index, bool add, const char *ifname,
			  const struct net_addr *a, const struct net_addr *gw, struct cell_err *e)
{
	char text[NET_ADDR_TEXT];
	struct cell_err ignored;

	net_addr_format(a, true, text, sizeof(text));
	if (rtnl_addr(jail, add, index, a, e) < 0)
		return cell_err_prefix(e, "jail %s: %s address %s", ifname, add ? "add" : "delete",
				       text);
	if (!add || gw == NULL)
		return 0;
	/* EEXIST: the family had a default route. */
	if (rtnl_route_default(jail, index, gw, e) == 0 || e->errnum == EEXIST) {
		cell_err_clear(e);
		return 0;
	}
	net_addr_format(gw, false, text, sizeof(text));
	cell_err_prefix(e, "jail %s: default route via %s", ifname, text);
	rtnl_addr(jail, false, index, a, &ignored);
	return -1;
}

int net_addr_change(bool add, const char *netns, const char *ifname, const struct net_addr *a,
		    const struct net_addr *gw, struct cell_err *e)
{
	struct rtnl jail = {{-1, 0}, 0};
	struct rtnl_link l;
	int rc;

	if (gw != NULL && gw->family != a->family)
		return cell_err_set(e, 0, "--gateway is not of the address's family");
	if (open_jail_link(netns, ifname, &jail, &l, e) < 0)
		return -1;
	rc = addr_change_on(&jail, l.index, add, ifname, a, gw, e);
	rtnl_close(&jail);
	return rc;
}

int net_stats(const char *netns, const char *ifname, struct net_stats *st, struct cell_err *e)
{
	struct rtnl jail = {{-1, 0}, 0};
	int rc;

	memset(st, 0, sizeof(*st));
	if (open_jail_link(netns, ifname, &jail, &st->link, e) < 0)
		return -1;
	rc = rtnl_addr_list(&jail, st->link.index, st->addrs, NULL, NET_MAX_ADDRS, &st->n_addrs, e);
	if (rc < 0)
		cell_err_prefix(e, "jail %s: list addresses", ifname);
	rtnl_close(&jail);
	return rc;
}
