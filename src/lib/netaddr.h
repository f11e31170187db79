/*
 * netaddr.h - the text of a jail's network parameters: addresses with
 * prefixes, published ports, interface names; and the arithmetic of
 * subnets that choosing a jail's address needs.  Pure functions (no
 * system calls): param.c parses with them, net.c allocates with them,
 * test_netaddr.c tests them.
 */
#ifndef CELL_NETADDR_H
#define CELL_NETADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>

#include "err.h"

/* One address: its family (AF_INET, AF_INET6), its 16 bytes (an IPv4
 * address in the first 4), its prefix length (-1: none given). */
struct netaddr {
	int family;
	unsigned char a[16];
	int prefix;
};

/* The longest text netaddr_format() writes. */
#define NETADDR_TEXT (INET6_ADDRSTRLEN + 5)

/* "ADDR" or "ADDR/PREFIX" -> *A.  PREFIX_OK false refuses a prefix
 * (--dns).  Errors say what is wrong with the text. */
int netaddr_parse(const char *text, bool prefix_ok, struct netaddr *a, struct cell_err *e);
/* The canonical text (inet_ntop's, "/PREFIX" when it has one). */
void netaddr_format(const struct netaddr *a, char *buf, size_t size);
/* The address alone, without its prefix. */
void netaddr_format_addr(const struct netaddr *a, char *buf, size_t size);
/* The family of the text of an address, 0 when it is none. */
int netaddr_family(const char *text);
/* Same address (prefixes ignored). */
bool netaddr_same(const struct netaddr *x, const struct netaddr *y);
/* Whether A lies in the subnet NET/NET->prefix. */
bool netaddr_in_subnet(const struct netaddr *a, const struct netaddr *net);
/* Host number N (1, 2, ...) of the subnet of GW: *OUT, with GW's prefix.
 * -1 when the subnet has no such host (past its end; an IPv4 subnet's
 * broadcast address is none). */
int netaddr_host(const struct netaddr *gw, unsigned long n, struct netaddr *out);

/* A published port: "[HOSTADDR:]HOSTPORT:JAILPORT[/tcp|/udp]"; an IPv6
 * HOSTADDR in brackets. */
struct netport {
	bool has_addr;
	struct netaddr addr;
	unsigned int host_port, jail_port;
	char proto[4]; /* "tcp" or "udp" */
};

int netport_parse(const char *text, struct netport *p, struct cell_err *e);
/* The canonical text ("[2001:db8::1]:8080:80/tcp", "8080:80/udp"). */
void netport_format(const struct netport *p, char *buf, size_t size);

/* An interface name the kernel takes: 1-15 bytes, no '/', ':' or blank. */
int netaddr_check_ifname(const char *name, struct cell_err *e);
/* A bridge's name: an interface name of [A-Za-z0-9_.-] (it goes into
 * cell-net's command line and the record). */
int netaddr_check_bridge(const char *name, struct cell_err *e);

#endif
