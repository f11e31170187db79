/*
 * net.h - a jail's network beyond loopback: `--net bridge` through the
 * helper program cell-net (src/net/, docs/ARCHITECTURE.md), the
 * addresses it is given, and the small files (hosts, hostname,
 * resolv.conf) of a bridged or joined network.
 *
 * The netlink and nftables work lives in cell-net (static, as cell is),
 * which the engine runs as a child (posix_spawn) for bridged jails only:
 * `--net none` and `--net host` never run it.  Its command line is the protocol of
 * /work/briefs/r3/net-protocol.md (setup, teardown, addr, stats).
 *
 * The record's "network" object says what cleanup needs, written before
 * anything is made: {"mode":"bridge","key":K,"bridge":B,"interface":IF,
 * "host_interface":"cvXXXXXXXX","gateway":[...],"active":true}, and
 * once the veth is made "mtu": the MTU it got (vnet.mtu, else the
 * bridge's).  Its
 * addresses are the record's ip4.addr and ip6.addr.  "active" false: the
 * teardown ran (a stopped jail's record).
 *
 * `--net slirp` (slirp.h) runs no cell-net: its object is {"mode":"slirp",
 * "helper":"pasta","pid":P,"start_time":T,...,"active":true}, written once
 * the program is ready (its keeper ends it with the jail meanwhile).
 */
#ifndef CELL_NET_H
#define CELL_NET_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "slirp.h"
#include "spec.h"

#define NET_DEFAULT_BRIDGE "cell0"
#define NET_DEFAULT_IFNAME "eth0"

/* A bridged jail's network as its start chose it. */
struct net_plan {
	bool bridged;	  /* --net bridge: the rest is set */
	char key[48];	  /* cell-net's KEY: state root hash "-" JID "-" nonce */
	char bridge[16];  /* the bridge's name */
	char ifname[16];  /* the interface in the jail */
	char host_if[16]; /* the veth's host end: "cv" + FNV-1a-32(key) */
	/* The jail's addresses and the bridge's gateways, with prefixes:
	 * the spec's, or chosen (net_plan()). */
	char **ip4, **ip6, **gateway;
	size_t nip4, nip6, ngateway;
	bool made;	    /* cell-net setup succeeded */
	unsigned int mtu;   /* the veth's (the bridge's), as setup says; 0: not yet */
	struct slirp slirp; /* --net slirp: its program (slirp.on) */
};

void net_plan_init(struct net_plan *n);
void net_plan_free(struct net_plan *n);

/* prepare: the clear errors before anything is made: cell-net found
 * (bridge), the namespace file of --net ns:PATH a network namespace. */
int net_check(const struct jail_spec *s, struct cell_err *e);

/*
 * Chooses the network of jail S (its JID in STATE_ROOT, whose descriptor
 * is ROOTFD): the gateways (given; else another jail's of the same
 * bridge; else cell0's defaults) and the addresses (given, each refused
 * when another jail of the root holds it on the same bridge, naming it;
 * else the next free one of each gateway's subnet).  Under the root's
 * network lock, taken here and returned in *LOCKFD: the caller records
 * the choice and then calls net_unlock(), so that two starts never take
 * one address.
 */
int net_plan(struct net_plan *n, const struct jail_spec *s, const char *state_root, int rootfd,
	     int jid, int *lockfd, struct cell_err *e);
/* The root's network lock (net.lock in the state root). */
int net_lock(int rootfd, struct cell_err *e);
void net_unlock(int lockfd);

/* The record's "network" object, its ip4.addr, ip6.addr and gateway set
 * to the plan's. */
int net_record(json_t *rec, const struct net_plan *n);

/* hosts, hostname and resolv.conf of a bridged or joined jail, written
 * in its state directory DIRFD (rootfs.c binds them over the root's). */
int net_write_files(int dirfd, const struct jail_spec *s, const struct net_plan *n,
		    struct cell_err *e);
/* Whether the jail gets those files. */
static inline bool net_has_files(const struct jail_spec *s)
{
	return s->net == JAIL_NET_BRIDGE || s->net == JAIL_NET_NS || s->net == JAIL_NET_SLIRP;
}

/* Whether the launch's net stage has work: a veth, or a slirp program. */
static inline bool net_has_stage(const struct net_plan *n)
{
	return n->bridged || n->slirp.on;
}

/* cell-net setup: the veth into NETNS_FD (the jail's network namespace),
 * the bridge, the addresses and routes, the published ports and NAT. */
int net_setup(struct net_plan *n, const struct jail_spec *s, int netns_fd, struct cell_err *e);
/* cell-net teardown of the plan's key and bridge (idempotent); slirp:
 * its program ended.  ENDED: the jail's processes have ended (its veth
 * goes with its namespace). */
int net_teardown(const struct net_plan *n, bool ended, struct cell_err *e);
/* The same from a record, of a jail whose processes have ended: a no-op
 * without an active "network"; then "active" false in REC (the caller
 * writes it). */
int net_release(json_t *rec, struct cell_err *e);

/* Whether the record holds an active bridged network. */
bool net_record_active(const json_t *rec);

/*
 * cell set: ADDR ("192.0.2.9/24") added to (ADD) or removed from the
 * jail's interface in the network namespace of PID (its pid 1), through
 * cell-net addr; a family without a default route gets one via its
 * gateway of the record REC.
 */
int net_addr(const json_t *rec, pid_t pid, bool add, const char *addr, struct cell_err *e);
/* The addresses of WANT's list not in OLD's held by another jail of the
 * root (ROOTFD) on the bridge of REC: an error naming it (param PARAM,
 * the element's index). */
int net_check_free(int rootfd, const char *self, const json_t *rec, int param, char *const *want,
		   size_t nwant, char *const *old, size_t nold, struct cell_err *e);

/* The addresses of N given without a prefix get their family's gateway's
 * of the record REC (a host route's without one). */
int net_complete(const json_t *rec, struct jail_network *n, struct cell_err *e);

/* inspect: the "network" object of a record REC, with counters of
 * cell-net stats while the jail (pid 1 PID; 0: stopped) runs. */
json_t *net_inspect(const json_t *rec, pid_t pid);

/* FNV-1a-32, the hash of the key and of the host interface's name. */
unsigned int net_fnv1a(const char *s);

#endif
