/*
 * rtnl.c - rtnetlink (nl.h): the links, addresses and routes of
 * a bridged jail, and a link's counters.  See rtnl.h.
 *
 * Each request asks for an acknowledgement (NLM_F_ACK), so that the
 * kernel's answer, or its errno, is read before the next step: a step
 * that failed is never taken for done.  The functions return the reason
 * alone ("File exists"); callers say what they were doing.
 */
#include "rtnl.h"

#include <errno.h>
#include <fcntl.h>
#include "nl.h"
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* A request fits in a page; a dump's datagrams are up to 32 KiB. */
#define REQ_SIZE  4096
#define RECV_SIZE 32768

int nl_open(struct rtnl *r, int bus, struct cell_err *e)
{
	if (nls_open(&r->sock, bus) < 0)
		return cell_err_set(e, errno, "open netlink socket");
	r->seq = (unsigned int)time(NULL);
	return 0;
}

int rtnl_open(struct rtnl *r, struct cell_err *e)
{
	return nl_open(r, NETLINK_ROUTE, e);
}

int rtnl_open_in(struct rtnl *r, int nsfd, struct cell_err *e)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int rc;

	if (self < 0)
		return cell_err_set(e, errno, "open /proc/self/ns/net");
	if (setns(nsfd, CLONE_NEWNET) < 0) {
		close(self);
		return cell_err_set(e, errno, "enter the jail's network namespace");
	}
	rc = rtnl_open(r, e);
	/* Back home: a cell-net left in the jail's namespace would make
	 * the bridge's links there.  Nothing may go on if this fails. */
	if (setns(self, CLONE_NEWNET) < 0) {
		int err = errno;

		close(self);
		if (rc == 0)
			rtnl_close(r);
		return cell_err_set(e, err, "return to cell's network namespace");
	}
	close(self);
	return rc;
}

void rtnl_close(struct rtnl *r)
{
	nls_close(&r->sock);
}

int nl_talk(struct rtnl *r, struct nlmsghdr *nlh, nl_cb cb, void *data, struct cell_err *e)
{
	static char buf[RECV_SIZE];
	unsigned int seq = ++r->seq;

	nlh->nlmsg_seq = seq;
	if (nls_send(&r->sock, nlh, nlh->nlmsg_len) < 0)
		return cell_err_set(e, errno, "%s", "");
	for (;;) {
		ssize_t n = nls_recv(&r->sock, buf, sizeof(buf));
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return cell_err_set(e, errno, "%s", "");
		rc = nl_cb_run(buf, (size_t)n, seq, r->sock.portid, cb, data);
		if (rc == NL_CB_ERROR)
			return cell_err_set(e, errno, "%s", "");
		if (rc == NL_CB_STOP)
			return 0;
	}
}

static struct nlmsghdr *request(char *buf, unsigned short type, unsigned short flags)
{
	struct nlmsghdr *nlh = nlm_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	return nlh;
}

/* --- links --- */

struct link_attrs {
	const struct nlattr *tb[IFLA_MAX + 1];
};

/* A string attribute into BUF, cut to fit and always terminated. */
static void copy_str(const struct nlattr *a, char *buf, size_t size)
{
	size_t len = nla_len(a);

	if (len >= size)
		len = size - 1;
	memcpy(buf, nla_data(a), len);
	buf[len] = '\0';
	buf[strnlen(buf, len)] = '\0';
}

static uint32_t get_u32(const struct nlattr *a)
{
	return nla_len(a) >= sizeof(uint32_t) ? nla_u32(a) : 0;
}

static void link_kind(const struct nlattr *info, struct rtnl_link *l)
{
	const struct nlattr *a;
	int left;

	nla_for_each_nested(a, info, left)
	{
		if (nla_type(a) == IFLA_INFO_KIND)
			copy_str(a, l->kind, sizeof(l->kind));
	}
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rtnl_link *l = data;
	const struct ifinfomsg *ifm = nlm_payload(nlh);
	struct link_attrs at = {{NULL}};

	if (nlh->nlmsg_type != RTM_NEWLINK || nlm_payload_len(nlh) < sizeof(*ifm))
		return NL_CB_OK;
	nla_parse(nlh, sizeof(*ifm), at.tb, IFLA_MAX);
	memset(l, 0, sizeof(*l));
	l->index = ifm->ifi_index;
	if (at.tb[IFLA_IFNAME] != NULL)
		copy_str(at.tb[IFLA_IFNAME], l->name, sizeof(l->name));
	if (at.tb[IFLA_IFALIAS] != NULL)
		copy_str(at.tb[IFLA_IFALIAS], l->alias, sizeof(l->alias));
	if (at.tb[IFLA_MASTER] != NULL)
		l->master = (int)get_u32(at.tb[IFLA_MASTER]);
	if (at.tb[IFLA_LINK] != NULL)
		l->peer = (int)get_u32(at.tb[IFLA_LINK]);
	if (at.tb[IFLA_LINK_NETNSID] != NULL) {
		l->peer_nsid = (int)get_u32(at.tb[IFLA_LINK_NETNSID]);
		l->has_peer_nsid = true;
	}
	if (at.tb[IFLA_MTU] != NULL)
		l->mtu = get_u32(at.tb[IFLA_MTU]);
	if (at.tb[IFLA_ADDRESS] != NULL && nla_len(at.tb[IFLA_ADDRESS]) == 6) {
		memcpy(l->mac, nla_data(at.tb[IFLA_ADDRESS]), 6);
		l->has_mac = true;
	}
	if (at.tb[IFLA_STATS64] != NULL) {
		size_t len = nla_len(at.tb[IFLA_STATS64]);

		memcpy(&l->stats, nla_data(at.tb[IFLA_STATS64]),
		       len < sizeof(l->stats) ? len : sizeof(l->stats));
	}
	if (at.tb[IFLA_LINKINFO] != NULL)
		link_kind(at.tb[IFLA_LINKINFO], l);
	return NL_CB_OK;
}

int rtnl_link_get(struct rtnl *r, const char *name, struct rtnl_link *l, bool *found,
		  struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_GETLINK, NLM_F_ACK);
	struct ifinfomsg *ifm = nlm_put_extra(nlh, sizeof(*ifm));

	ifm->ifi_family = AF_UNSPEC;
	nla_put_strz(nlh, IFLA_IFNAME, name);
	memset(l, 0, sizeof(*l));
	*found = false;
	if (nl_talk(r, nlh, link_cb, l, e) < 0) {
		if (e->errnum == ENODEV) {
			cell_err_clear(e);
			return 0;
		}
		return -1;
	}
	*found = l->index > 0;
	return 0;
}

/* Link INDEX renamed NAME, given ALIAS and MTU, and up: one request,
 * after which the bridge is whole.  The MTU is set here, on the link
 * that exists, rather than at its making: a change through the bridge's
 * own ndo_change_mtu marks it as the user's, and the kernel then keeps
 * it as ports come and go (br_mtu_auto_adjust() would otherwise set the
 * smallest port's, and 1500 when the last port goes).  1500, the
 * bridge's own default, needs no mark: cell's ports never differ. */
static int bridge_finish(struct rtnl *r, int index, const char *name, const char *alias,
			 unsigned int mtu, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_NEWLINK, NLM_F_ACK);
	struct ifinfomsg *ifm = nlm_put_extra(nlh, sizeof(*ifm));

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = index;
	ifm->ifi_flags = IFF_UP;
	ifm->ifi_change = IFF_UP;
	nla_put_strz(nlh, IFLA_IFNAME, name);
	nla_put_strz(nlh, IFLA_IFALIAS, alias);
	nla_put_u32(nlh, IFLA_MTU, mtu);
	return nl_talk(r, nlh, NULL, NULL, e);
}

int rtnl_bridge_add(struct rtnl *r, const char *name, const char *tmp, const char *alias,
		    unsigned int mtu, int *index, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	struct ifinfomsg *ifm = nlm_put_extra(nlh, sizeof(*ifm));
	struct cell_err ignored;
	unsigned char mac[6];
	struct nlattr *info;
	struct rtnl_link l;
	bool found;

	/* A bridge whose MAC address was never set takes the lowest of its
	 * ports' and changes as jails come and go, which the other jails'
	 * neighbour caches would hold stale: a fixed one, locally
	 * administered and unicast. */
	if (getrandom(mac, sizeof(mac), 0) != sizeof(mac))
		return cell_err_set(e, errno, "getrandom");
	mac[0] = (unsigned char)((mac[0] & 0xfe) | 0x02);

	ifm->ifi_family = AF_UNSPEC;
	nla_put_strz(nlh, IFLA_IFNAME, tmp);
	nla_put(nlh, IFLA_ADDRESS, sizeof(mac), mac);
	info = nla_nest_start(nlh, IFLA_LINKINFO);
	nla_put_strz(nlh, IFLA_INFO_KIND, "bridge");
	nla_nest_end(nlh, info);
	if (nl_talk(r, nlh, NULL, NULL, e) < 0)
		return -1;
	/* rtnetlink sets an alias on an existing link only, and a bridge
	 * without it would look like a user's and stay forever: made under
	 * TMP, it takes its name and alias at once (teardown removes a
	 * TMP that a killed setup left). */
	if (rtnl_link_get(r, tmp, &l, &found, e) < 0)
		return -1;
	if (!found)
		return cell_err_set(e, ENODEV, "%s", "");
	if (bridge_finish(r, l.index, name, alias, mtu, e) < 0) {
		rtnl_link_del(r, l.index, &ignored);
		return -1;
	}
	*index = l.index;
	return 0;
}

int rtnl_veth_add(struct rtnl *r, const char *host, int master, const char *peer, int peer_nsfd,
		  unsigned int mtu, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	struct ifinfomsg *ifm = nlm_put_extra(nlh, sizeof(*ifm));
	struct ifinfomsg peer_ifm = {.ifi_family = AF_UNSPEC};
	struct nlattr *info, *data, *peer_nest;

	/* One request: the host end enslaved and up, the peer born in the
	 * jail's namespace (never visible in cell's).  The peer is set up
	 * from there: flags for a peer born in another namespace fail
	 * (ENOTCONN, kernel 6.18). */
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_flags = IFF_UP;
	ifm->ifi_change = IFF_UP;
	nla_put_strz(nlh, IFLA_IFNAME, host);
	nla_put_u32(nlh, IFLA_MASTER, (uint32_t)master);
	/* Each end has its own MTU (the peer's below): both the bridge's,
	 * or the larger frames of one end are dropped at the other. */
	nla_put_u32(nlh, IFLA_MTU, mtu);
	info = nla_nest_start(nlh, IFLA_LINKINFO);
	nla_put_strz(nlh, IFLA_INFO_KIND, "veth");
	data = nla_nest_start(nlh, IFLA_INFO_DATA);
	peer_nest = nla_nest_start(nlh, VETH_INFO_PEER);
	/* VETH_INFO_PEER's payload starts with the peer's ifinfomsg. */
	memcpy(nlm_tail(nlh), &peer_ifm, sizeof(peer_ifm));
	nlh->nlmsg_len += NLMSG_ALIGN(sizeof(peer_ifm));
	nla_put_strz(nlh, IFLA_IFNAME, peer);
	nla_put_u32(nlh, IFLA_MTU, mtu);
	nla_put_u32(nlh, IFLA_NET_NS_FD, (uint32_t)peer_nsfd);
	nla_nest_end(nlh, peer_nest);
	nla_nest_end(nlh, data);
	nla_nest_end(nlh, info);
	return nl_talk(r, nlh, NULL, NULL, e);
}

int rtnl_link_up(struct rtnl *r, int index, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_NEWLINK, NLM_F_ACK);
	struct ifinfomsg *ifm = nlm_put_extra(nlh, sizeof(*ifm));

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = index;
	ifm->ifi_flags = IFF_UP;
	ifm->ifi_change = IFF_UP;
	return nl_talk(r, nlh, NULL, NULL, e);
}

int rtnl_link_del(struct rtnl *r, int index, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_DELLINK, NLM_F_ACK);
	struct ifinfomsg *ifm = nlm_put_extra(nlh, sizeof(*ifm));

	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = index;
	return nl_talk(r, nlh, NULL, NULL, e);
}

struct ports {
	int master;
	int count;
};

static int ports_cb(const struct nlmsghdr *nlh, void *data)
{
	struct ports *p = data;
	struct rtnl_link l;

	if (link_cb(nlh, &l) == NL_CB_OK && l.index > 0 && l.master == p->master)
		p->count++;
	return NL_CB_OK;
}

int rtnl_link_ports(struct rtnl *r, int index, int *count, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_GETLINK, NLM_F_DUMP);
	struct ifinfomsg *ifm = nlm_put_extra(nlh, sizeof(*ifm));
	struct ports p = {index, 0};

	ifm->ifi_family = AF_UNSPEC;
	/* The kernel dumps only the ports (ip link show master BR); the
	 * callback checks again for kernels that ignore the filter. */
	nla_put_u32(nlh, IFLA_MASTER, (uint32_t)index);
	if (nl_talk(r, nlh, ports_cb, &p, e) < 0)
		return -1;
	*count = p.count;
	return 0;
}

int rtnl_peer_alive(struct rtnl *r, const struct rtnl_link *l, bool *alive, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	struct rtnl_link peer;

	*alive = true;
	if (!l->has_peer_nsid || l->peer <= 0)
		return 0;
	/* The id is unassigned once cleanup_net has begun with the
	 * namespace; before, while its last reference is going, the kernel
	 * refuses to act in it (get_net_ns_by_id() finds it dead): EINVAL,
	 * or ENODEV when its devices are gone already. */
	*alive = l->peer_nsid >= 0;
	if (!*alive)
		return 0;
	nlh = request(buf, RTM_GETLINK, NLM_F_ACK);
	ifm = nlm_put_extra(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = l->peer;
	nla_put_u32(nlh, IFLA_TARGET_NETNSID, (uint32_t)l->peer_nsid);
	if (nl_talk(r, nlh, link_cb, &peer, e) == 0)
		return 0;
	/* Not allowed to look: taken for alive (the veth is deleted). */
	if (e->errnum == EACCES || e->errnum == EPERM) {
		cell_err_clear(e);
		return 0;
	}
	if (e->errnum != EINVAL && e->errnum != ENODEV)
		return -1;
	cell_err_clear(e);
	*alive = false;
	return 0;
}

/* The ports of a bridge, from one dump. */
struct port_list {
	int master;
	struct rtnl_link *links;
	int count, cap;
	bool oom;
};

static int port_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct port_list *p = data;
	struct rtnl_link l;

	if (link_cb(nlh, &l) != NL_CB_OK || l.index <= 0 || l.master != p->master)
		return NL_CB_OK;
	if (p->count == p->cap) {
		int cap = p->cap ? p->cap * 2 : 16;
		void *more = realloc(p->links, (size_t)cap * sizeof(*p->links));

		if (more == NULL) {
			p->oom = true;
			return NL_CB_ERROR;
		}
		p->links = more;
		p->cap = cap;
	}
	p->links[p->count++] = l;
	return NL_CB_OK;
}

int rtnl_live_ports(struct rtnl *r, int index, int skip, int *count, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_GETLINK, NLM_F_DUMP);
	struct ifinfomsg *ifm = nlm_put_extra(nlh, sizeof(*ifm));
	struct port_list p = {index, NULL, 0, 0, false};
	int rc = 0;

	ifm->ifi_family = AF_UNSPEC;
	nla_put_u32(nlh, IFLA_MASTER, (uint32_t)index);
	if (nl_talk(r, nlh, port_list_cb, &p, e) < 0) {
		free(p.links);
		return p.oom ? cell_err_set(e, ENOMEM, "%s", "") : -1;
	}
	*count = 0;
	for (int i = 0; i < p.count && rc == 0; i++) {
		bool alive;

		if (p.links[i].index == skip)
			continue;
		rc = rtnl_peer_alive(r, &p.links[i], &alive, e);
		if (rc == 0 && alive)
			(*count)++;
	}
	free(p.links);
	return rc;
}

/* --- addresses --- */

int rtnl_addr(struct rtnl *r, bool add, int index, const struct net_addr *a, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, add ? RTM_NEWADDR : RTM_DELADDR,
				       add ? NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK : NLM_F_ACK);
	struct ifaddrmsg *ifa = nlm_put_extra(nlh, sizeof(*ifa));
	/* Duplicate address detection would hold an IPv6 address
	 * "tentative", unusable, for a second or more: the jail's
	 * addresses are cell's to hand out. */
	uint32_t flags = a->family == AF_INET6 ? IFA_F_NODAD : 0;

	ifa->ifa_family = (unsigned char)a->family;
	ifa->ifa_prefixlen = (unsigned char)a->prefix;
	ifa->ifa_flags = (unsigned char)flags;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (unsigned int)index;
	nla_put(nlh, IFA_LOCAL, net_addr_len(a), a->bytes);
	nla_put(nlh, IFA_ADDRESS, net_addr_len(a), a->bytes);
	if (flags != 0)
		nla_put_u32(nlh, IFA_FLAGS, flags);
	return nl_talk(r, nlh, NULL, NULL, e);
}

struct addr_list {
	int index;
	struct net_addr *addrs;
	int *links;
	int max;
	int count;
};

static int addr_cb(const struct nlmsghdr *nlh, void *data)
{
	struct addr_list *l = data;
	const struct ifaddrmsg *ifa = nlm_payload(nlh);
	const struct nlattr *tb[IFA_MAX + 1] = {NULL};
	const struct nlattr *at;
	struct net_addr *a;

	if (nlh->nlmsg_type != RTM_NEWADDR || nlm_payload_len(nlh) < sizeof(*ifa) ||
	    (l->index != 0 && (int)ifa->ifa_index != l->index) || ifa->ifa_scope >= RT_SCOPE_LINK)
		return NL_CB_OK;
	nla_parse(nlh, sizeof(*ifa), tb, IFA_MAX);
	/* IFA_LOCAL is the address itself; IFA_ADDRESS the peer's on a
	 * point-to-point IPv4 link.  IPv6 has IFA_ADDRESS alone. */
	at = tb[IFA_LOCAL] != NULL ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (at == NULL || l->count >= l->max ||
	    (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6))
		return NL_CB_OK;
	a = &l->addrs[l->count];
	memset(a, 0, sizeof(*a));
	a->family = ifa->ifa_family;
	a->prefix = ifa->ifa_prefixlen;
	if (nla_len(at) != net_addr_len(a))
		return NL_CB_OK;
	memcpy(a->bytes, nla_data(at), net_addr_len(a));
	if (l->links != NULL)
		l->links[l->count] = (int)ifa->ifa_index;
	l->count++;
	return NL_CB_OK;
}

int rtnl_addr_list(struct rtnl *r, int index, struct net_addr *addrs, int *links, int max,
		   int *count, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_GETADDR, NLM_F_DUMP);
	struct ifaddrmsg *ifa = nlm_put_extra(nlh, sizeof(*ifa));
	struct addr_list l = {index, addrs, links, max, 0};

	ifa->ifa_family = AF_UNSPEC;
	if (nl_talk(r, nlh, addr_cb, &l, e) < 0)
		return -1;
	*count = l.count;
	return 0;
}

/* --- routes --- */

int rtnl_route_default(struct rtnl *r, int index, const struct net_addr *gw, struct cell_err *e)
{
	char buf[REQ_SIZE];
	struct nlmsghdr *nlh = request(buf, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	struct rtmsg *rtm = nlm_put_extra(nlh, sizeof(*rtm));

	rtm->rtm_family = (unsigned char)gw->family;
	rtm->rtm_dst_len = 0;
	rtm->rtm_table = RT_TABLE_MAIN;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	nla_put(nlh, RTA_GATEWAY, net_addr_len(gw), gw->bytes);
	nla_put_u32(nlh, RTA_OIF, (uint32_t)index);
	return nl_talk(r, nlh, NULL, NULL, e);
}
