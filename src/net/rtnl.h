/*
 * rtnl.h - the rtnetlink requests cell-net makes (nl.h): links
 * (a bridge, a veth pair whose peer is born in another namespace),
 * addresses, default routes, and a link's counters.
 *
 * A struct rtnl is one NETLINK_ROUTE socket; the namespace it acts in is
 * the one it was opened in (rtnl_open_in(): a socket made inside a
 * jail's namespace keeps working there after cell-net goes back).
 */
#ifndef CELL_NET_RTNL_H
#define CELL_NET_RTNL_H

#include <linux/if_link.h>
#include <net/if.h>
#include <stdbool.h>

#include "addr.h"
#include "err.h"

#include "nl.h"

struct rtnl {
	struct nl_sock sock;
	unsigned int seq;
};

/* What rtnl_link_get() learns of one link. */
struct rtnl_link {
	int index;
	int master; /* the bridge it is a port of, 0 for none */
	int peer;   /* IFLA_LINK: a veth's peer's index (in its namespace) */
	/* IFLA_LINK_NETNSID: the id, here, of the namespace of a veth's
	 * peer when that is another; -1 when it has none (the namespace is
	 * being dismantled). */
	int peer_nsid;
	bool has_peer_nsid;
	unsigned int mtu;
	char name[IFNAMSIZ];
	char kind[16];	/* IFLA_INFO_KIND: "bridge", "veth"; "" for none */
	char alias[64]; /* IFLA_IFALIAS */
	unsigned char mac[6];
	bool has_mac;
	struct rtnl_link_stats64 stats;
};

/* A NETLINK_ROUTE socket in cell-net's own namespace. */
int rtnl_open(struct rtnl *r, struct cell_err *e);
/* A socket of netlink bus BUS (NETLINK_NETFILTER for nft.c's listing). */
int nl_open(struct rtnl *r, int bus, struct cell_err *e);
/* Sends NLH and reads the answer, each message through CB (if any),
 * until the acknowledgement or the end of a dump.  The error is the
 * reason alone (strerror), errno in e->errnum. */
int nl_talk(struct rtnl *r, struct nlmsghdr *nlh, nl_cb cb, void *data, struct cell_err *e);
/* A socket in the namespace of NSFD (setns there, socket, setns back). */
int rtnl_open_in(struct rtnl *r, int nsfd, struct cell_err *e);
void rtnl_close(struct rtnl *r);

/* Link NAME into L; *FOUND false (and 0) when there is none. */
int rtnl_link_get(struct rtnl *r, const char *name, struct rtnl_link *l, bool *found,
		  struct cell_err *e);

/* A bridge NAME with alias ALIAS, MTU MTU and a fixed random MAC (so
 * that it does not change as ports come and go), up; made under the
 * name TMP, then renamed with its alias.  Its index in *INDEX. */
int rtnl_bridge_add(struct rtnl *r, const char *name, const char *tmp, const char *alias,
		    unsigned int mtu, int *index, struct cell_err *e);

/* A veth pair of MTU MTU, both ends: HOST here, a port of MASTER and
 * up; PEER born (down) in the namespace of PEER_NSFD. */
int rtnl_veth_add(struct rtnl *r, const char *host, int master, const char *peer, int peer_nsfd,
		  unsigned int mtu, struct cell_err *e);

/* Sets link INDEX up. */
int rtnl_link_up(struct rtnl *r, int index, struct cell_err *e);

/* Deletes link INDEX (a veth takes its peer with it). */
int rtnl_link_del(struct rtnl *r, int index, struct cell_err *e);

/* The number of links whose master is INDEX. */
int rtnl_link_ports(struct rtnl *r, int index, int *count, struct cell_err *e);

/* *ALIVE: the namespace of L's peer (a veth's other end) is alive: not
 * released by its last process and reference, which the kernel's
 * cleanup_net worker dismantles, deleting its devices (the veth, both
 * ends) in its own time.  A link without a peer elsewhere is alive. */
int rtnl_peer_alive(struct rtnl *r, const struct rtnl_link *l, bool *alive, struct cell_err *e);

/* The number of ports of bridge INDEX whose peer is alive (above),
 * port SKIP (0: none) not counted. */
int rtnl_live_ports(struct rtnl *r, int index, int skip, int *count, struct cell_err *e);

/* Adds (ADD) or deletes address A on link INDEX; IPv6 with IFA_F_NODAD,
 * usable at once.  Adding one that is there fails with EEXIST. */
int rtnl_addr(struct rtnl *r, bool add, int index, const struct net_addr *a, struct cell_err *e);

/* The addresses of scope global (and site) of link INDEX, or of every
 * link (INDEX 0), with the link each is on; at most MAX. */
int rtnl_addr_list(struct rtnl *r, int index, struct net_addr *addrs, int *links, int max,
		   int *count, struct cell_err *e);

/* A default route of GW's family via GW out of link INDEX.  EEXIST when
 * the family has one. */
int rtnl_route_default(struct rtnl *r, int index, const struct net_addr *gw, struct cell_err *e);

#endif
