/*
 * ops.h - what cell-net's commands do: a bridged jail's network made and
 * undone, an address added or removed live, a jail link's counters.
 *
 * The front door (cell-net.c) parses the command line into these
 * structures; everything here returns 0 or -1 with a struct cell_err
 * whose message is the one line cell-net prints.
 */
#ifndef CELL_NET_OPS_H
#define CELL_NET_OPS_H

#include <stdbool.h>
#include <stddef.h>

#include "addr.h"
#include "err.h"
#include "rtnl.h"

#define NET_MAX_ADDRS	32
#define NET_MAX_PUBLISH 64
/* A link MTU: IPv6's minimum to the kernel's largest; a bridge cell
 * makes without --mtu has Ethernet's. */
#define NET_MTU_MIN	1280
#define NET_MTU_MAX	65535
#define NET_MTU_DEFAULT 1500

struct net_setup {
	const char *key;
	const char *netns;			 /* /proc/PID/ns/net of the jail */
	const char *bridge;			 /* made if missing */
	const char *ifname;			 /* the jail's end of the veth */
	struct net_addr gateways[NET_MAX_ADDRS]; /* the bridge's addresses */
	size_t n_gateways;
	struct net_addr addrs[NET_MAX_ADDRS]; /* the jail's */
	size_t n_addrs;
	struct net_publish publish[NET_MAX_PUBLISH];
	size_t n_publish;
	bool nat;
	/* The bridge's MTU: a new bridge's, and what an existing one must
	 * have; 0: not given (the bridge's, a new one's NET_MTU_DEFAULT). */
	unsigned int mtu;
};

struct net_setup_result {
	char host_if[IFNAMSIZ];
	bool bridge_made; /* by this call */
	unsigned int mtu; /* the bridge's and so the veth's */
};

/* The checks across values, before anything is made: a published port
 * needs a jail address of its host address's family. */
int net_setup_check(const struct net_setup *s, struct cell_err *e);

/* Makes S's network (net-protocol: setup); on failure undoes what it
 * made. */
int net_setup(const struct net_setup *s, struct net_setup_result *res, struct cell_err *e);

/* Removes what setup made for KEY, and BRIDGE (NULL: none) when it is
 * cell's and has no port left.  ENDED: the jail's processes have ended,
 * so its veth is left to the kernel, which dismantles it with the
 * namespace, and is not counted as a port.  Nothing left to remove is
 * success. */
int net_teardown(const char *key, const char *bridge, bool ended, struct cell_err *e);

/* Adds (ADD) or deletes A on IFNAME in NETNS's namespace; an add with
 * GW (NULL: none) also makes a default route via GW when A's family had
 * none. */
int net_addr_change(bool add, const char *netns, const char *ifname, const struct net_addr *a,
		    const struct net_addr *gw, struct cell_err *e);

struct net_stats {
	struct rtnl_link link;
	struct net_addr addrs[NET_MAX_ADDRS];
	int n_addrs;
};

/* IFNAME's counters, MAC, MTU and addresses in NETNS's namespace. */
int net_stats(const char *netns, const char *ifname, struct net_stats *st, struct cell_err *e);

#endif
