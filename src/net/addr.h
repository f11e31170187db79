/*
 * addr.h - the values cell-net's command line carries: addresses with
 * their prefix, interface names, jail keys and published ports.
 *
 * Parsing is kept apart from the netlink and nftables work so that every
 * value is checked before anything is made (a bad --publish must not
 * leave a veth behind), and so that the unit tests can reach it.
 */
#ifndef CELL_NET_ADDR_H
#define CELL_NET_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* An IPv4 or IPv6 address and, where the text had one, its prefix. */
struct net_addr {
	int family;		 /* AF_INET or AF_INET6 */
	unsigned int prefix;	 /* 0..32 or 0..128 */
	unsigned char bytes[16]; /* network order; 4 used for AF_INET */
};

/* Longest text of an address with its prefix ("ffff:...:ffff/128"). */
#define NET_ADDR_TEXT 64
/* Interface names: the kernel's IFNAMSIZ less the terminating NUL. */
#define NET_IFNAME_MAX 15
#define NET_KEY_MAX    40

enum net_proto { NET_TCP, NET_UDP };

/* One --publish PROTO:HOSTADDR:HOSTPORT:JAILPORT. */
struct net_publish {
	enum net_proto proto;
	bool any_host; /* HOSTADDR empty: every local address */
	struct net_addr host;
	uint16_t host_port, jail_port;
};

/* TEXT as ADDR/PREFIX (NEED_PREFIX) or as a bare address (else; its
 * prefix is then the full length).  IPv6 in any form inet_pton() takes. */
int net_addr_parse(const char *text, bool need_prefix, struct net_addr *a, struct cell_err *e);

/* The address's length in bytes: 4 or 16. */
size_t net_addr_len(const struct net_addr *a);

/* "192.0.2.1/24", or without the prefix. BUF holds NET_ADDR_TEXT. */
void net_addr_format(const struct net_addr *a, bool with_prefix, char *buf, size_t size);

/* The network of A: its host bits cleared. */
void net_addr_network(const struct net_addr *a, struct net_addr *net);

/* An interface name the kernel takes and that is safe to quote in an
 * nftables batch: 1 to 15 of [A-Za-z0-9_.-], not "." or "..". */
bool net_ifname_valid(const char *name);

/* A jail key: 1 to 40 of [a-z0-9-]. */
bool net_key_valid(const char *key);

/* The host end of a jail's veth: "cv" + FNV-1a-32(KEY) in 8 hex digits.
 * BUF holds at least 11 bytes. */
void net_host_ifname(const char *key, char *buf, size_t size);

/* The name a bridge is made under before it takes its own and its
 * alias: "cb" + FNV-1a-32(BRIDGE), as above. */
void net_bridge_tmpname(const char *bridge, char *buf, size_t size);

/* PROTO:HOSTADDR:HOSTPORT:JAILPORT; an IPv6 HOSTADDR in brackets. */
int net_publish_parse(const char *text, struct net_publish *p, struct cell_err *e);

const char *net_proto_name(enum net_proto proto);

#endif
